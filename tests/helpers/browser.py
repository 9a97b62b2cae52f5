"""The headless browser the page tests open built HTML in: Debian's Chromium.

`make test` installs it when it is missing and sets LAKESHIFT_REQUIRE_BROWSER=1, so there a
test fails rather than skips without a browser.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

#: Flags for a run that reaches no network (every host unresolvable) and leaves no state.
HEADLESS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--hide-scrollbars",
    "--host-resolver-rules=MAP * ~NOTFOUND",
)


def browser() -> str:
    """Chromium's path; fails (under `make test`) or skips the test without one."""
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("LAKESHIFT_REQUIRE_BROWSER") == "1":
        pytest.fail("no chromium on PATH (make test installs Debian's chromium package)")
    pytest.skip("no chromium on PATH; `make test` installs it")


def dump_dom(page: Path, profile: Path, budget_ms: int = 5000) -> str:
    """The page's DOM after its scripts ran, as Chromium serialises it."""
    completed = subprocess.run(
        [
            browser(),
            *HEADLESS,
            f"--virtual-time-budget={budget_ms}",
            f"--user-data-dir={profile}",
            "--dump-dom",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert completed.returncode == 0, completed.stderr[-2000:]
    return completed.stdout

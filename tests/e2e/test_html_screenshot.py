"""The HTML report renders in a real browser: headless Chromium (Debian's) screenshots it.

`make test` installs Debian's chromium when it is missing and sets LAKESHIFT_REQUIRE_BROWSER=1,
so there this test fails rather than skips without a browser.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from collections import Counter
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image

from lakeshift.cli.main import cli
from lakeshift.sample.load import LoadResult

SOURCE_BAR = (0x1E, 0x88, 0xE5)  # html_report: "source (ORC footers)" series


def _browser() -> str:
    for name in ("chromium", "chromium-browser", "google-chrome"):
        found = shutil.which(name)
        if found:
            return found
    if os.environ.get("LAKESHIFT_REQUIRE_BROWSER") == "1":
        pytest.fail("no chromium on PATH (make test installs Debian's chromium package)")
    pytest.skip("no chromium on PATH; `make test` installs it")


def test_report_renders_in_headless_chromium(
    lakeshift_home: Path, metastore_uri: str, sample_table: LoadResult, tmp_path: Path
) -> None:
    base = ["--home", str(lakeshift_home), "--metastore-uri", metastore_uri, "--output", "json"]
    result = CliRunner().invoke(cli, [*base, "report", "sample.click_log", "--refresh"])
    assert result.exit_code == 0, result.output
    page = Path(json.loads(result.output)["html"])
    shot = tmp_path / "report.png"
    completed = subprocess.run(
        [
            _browser(),
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--hide-scrollbars",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1000,900",
            f"--screenshot={shot}",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shot.is_file(), completed.stderr[-2000:]
    image = Image.open(shot).convert("RGB")
    assert image.size == (1000, 900)
    colors = Counter(image.getdata())
    # The page is not blank: mostly white background, plus text and the charts' colours.
    assert len(colors) > 50
    assert colors[(255, 255, 255)] < 0.97 * image.width * image.height
    # The SVG bar chart drew the source rows of the sample's partitions.
    assert colors[SOURCE_BAR] > 200, colors.most_common(8)

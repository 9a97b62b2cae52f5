"""The Python workers' daemon: what it imports before forking, and what it leaves to tasks."""

from __future__ import annotations

import subprocess
import sys

from lakeshift.platform.worker_daemon import PRELOADED, preload


def test_every_preloaded_module_imports_in_a_fresh_interpreter() -> None:
    """A name that no longer imports would be left to the tasks silently: each must import."""
    script = "from lakeshift.platform.worker_daemon import preload; print(preload())"
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, check=True, timeout=120
    )
    assert done.stdout.strip() == "[]", done.stderr[-2000:]
    assert "pyiceberg.io.pyarrow" in PRELOADED and "lakeshift.formats.arrow_path" in PRELOADED


def test_a_module_that_fails_to_import_is_named_not_raised() -> None:
    assert preload(("lakeshift.no_such_module", "json")) == ["lakeshift.no_such_module"]

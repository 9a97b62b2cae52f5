"""The HTML report renders in a real browser: headless Chromium (Debian's) screenshots it,
with every host unresolvable, so the charts (plotly.js, inlined) draw without a network.

`make test` installs Debian's chromium when it is missing and sets LAKESHIFT_REQUIRE_BROWSER=1,
so there this test fails rather than skips without a browser.
"""

from __future__ import annotations

import json
import subprocess
from collections import Counter
from pathlib import Path

from click.testing import CliRunner
from PIL import Image

from lakeshift.cli.main import cli
from lakeshift.report import palette
from lakeshift.sample.load import LoadResult
from tests.helpers.browser import HEADLESS, browser


def _rgb(color: str) -> tuple[int, int, int]:
    return int(color[1:3], 16), int(color[3:5], 16), int(color[5:7], 16)


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
            browser(),
            *HEADLESS,
            "--virtual-time-budget=10000",
            f"--user-data-dir={tmp_path / 'profile'}",
            "--window-size=1000,2000",
            f"--screenshot={shot}",
            page.resolve().as_uri(),
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert shot.is_file(), completed.stderr[-2000:]
    image = Image.open(shot).convert("RGB")
    assert image.size == (1000, 2000)
    colors = Counter(image.getdata())
    # The page is not blank: mostly white background, plus text and the charts' colours.
    assert len(colors) > 50
    assert colors[(255, 255, 255)] < 0.97 * image.width * image.height
    # plotly drew the bars of the sample's partitions: source rows, and bytes on disk.
    assert colors[_rgb(palette.SOURCE_ROWS)] > 200, colors.most_common(8)
    assert colors[_rgb(palette.BYTES)] > 200, colors.most_common(8)

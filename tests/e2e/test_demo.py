"""`make demo`'s command, end to end, against the test metastore."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lakeshift.cli.main import cli


@pytest.mark.slow
def test_demo_runs_the_whole_story(lakeshift_home: Path, metastore_uri: str, spark: object) -> None:
    args = [
        "--home",
        str(lakeshift_home),
        "--metastore-uri",
        metastore_uri,
        "--output",
        "json",
        "demo",
        "--target",
        "sample.click_log_demo",
    ]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    assert document["migrate"]["rows"] == 76_330
    assert document["validation"]["ok"] and document["validation"]["totals"]["equal"] == 29
    assert len(document["switched"]) == 29 and document["view"] == "sample.click_log_routed"
    page = Path(document["html_report"]).read_text()
    assert page.count("<svg") == 4 and "yyyymmdd=20220424" in page
    again = json.loads(CliRunner().invoke(cli, args, catch_exceptions=False).output)
    assert again["migrate"]["backfilled"] == [] and len(again["migrate"]["unchanged"]) == 29

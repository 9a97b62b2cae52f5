"""`make demo`'s command, end to end, against the test metastore: through cutover, then revert."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from lakeshift.cli.main import cli
from lakeshift.metastore.client import MetastoreClient
from lakeshift.sample.load import LoadResult
from tests.helpers.source_state import source_snapshot


@pytest.mark.slow
def test_demo_runs_the_whole_story_then_reverts(
    metastore_uri: str,
    spark: object,
    client: MetastoreClient,
    sample_table: LoadResult,
    tmp_path: Path,
) -> None:
    files_before = source_snapshot(client, "sample", "click_log")[2]
    base = ["--home", str(tmp_path / "home"), "--metastore-uri", metastore_uri, "--output", "json"]
    args = [*base, "demo", "--target", "sample.click_log_demo"]
    result = CliRunner().invoke(cli, args, catch_exceptions=False)
    try:
        assert result.exit_code == 0, result.output
        document = json.loads(result.output)
        assert document["migrate"]["rows"] == 76_330
        assert document["validation"]["ok"] and document["validation"]["totals"]["equal"] == 29
        assert len(document["switched"]) == 29 and document["view"] == "sample.click_log_routed"
        assert (
            "renamed Iceberg table sample.click_log_demo -> sample.click_log" in document["cutover"]
        )
        assert client.get_table("sample", "click_log").parameters["table_type"] == "ICEBERG"
        assert client.get_table("sample", "click_log_hive_legacy").tableType == "EXTERNAL_TABLE"
        page = Path(document["html_report"]).read_text()
        # plotly charts (drawn in the browser; the screenshot test checks they render)
        assert page.count("Plotly.newPlot(") >= 4 and "yyyymmdd=20220424" in page

        # A second `make demo` knows the story is finished.
        again = CliRunner().invoke(cli, args, catch_exceptions=False)
        assert again.exit_code == 0 and json.loads(again.output)["cutover"] == "done"
    finally:
        # Give the sample back to the tests after this one, whatever failed above.
        reverted = CliRunner().invoke(cli, [*base, "revert", "sample.click_log"])
    assert reverted.exit_code == 0, reverted.output
    assert client.get_table("sample", "click_log").tableType == "EXTERNAL_TABLE"
    assert source_snapshot(client, "sample", "click_log")[2] == files_before

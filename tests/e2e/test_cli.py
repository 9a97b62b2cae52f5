"""The CLI as users drive it: exit codes, JSON output, messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from click.testing import CliRunner

from lakeshift.cli.main import cli
from lakeshift.errors import EXIT_ENVIRONMENT, EXIT_NOT_FOUND, EXIT_USAGE
from lakeshift.platform.ports import free_port
from lakeshift.sample.load import LoadResult


def _run(home: Path, uri: str, *args: str) -> tuple[int, str]:
    result = CliRunner().invoke(
        cli, ["--home", str(home), "--metastore-uri", uri, *args], catch_exceptions=False
    )
    return result.exit_code, result.output


def test_inspect_json_is_the_inventory(
    lakeshift_home: Path, metastore_uri: str, sample_table: LoadResult
) -> None:
    code, output = _run(
        lakeshift_home, metastore_uri, "--output", "json", "inspect", "sample.click_log"
    )
    assert code == 0, output
    document = json.loads(output)
    assert document["version"] == 1
    assert document["summary"]["partitions"] == sample_table.partitions
    assert document["summary"]["rows"] == sample_table.rows
    assert (lakeshift_home / "inventory" / "sample.click_log.json").is_file()


def test_inspect_text_filters_partitions(
    lakeshift_home: Path, metastore_uri: str, sample_table: LoadResult
) -> None:
    code, output = _run(
        lakeshift_home,
        metastore_uri,
        "inspect",
        "sample.click_log",
        "--partitions",
        "yyyymmdd=20220401..20220403",
        "--limit",
        "0",
    )
    assert code == 0, output
    assert "3 partitions" in output and "positional-files" in output
    assert "20220404" not in output


def test_missing_table_exit_code_and_json_error(lakeshift_home: Path, metastore_uri: str) -> None:
    code, output = _run(lakeshift_home, metastore_uri, "--output", "json", "inspect", "sample.nope")
    assert code == EXIT_NOT_FOUND
    assert "sample.nope" in json.loads(output)["error"]["message"]


def test_bad_table_name_is_a_usage_error(lakeshift_home: Path, metastore_uri: str) -> None:
    code, output = _run(lakeshift_home, metastore_uri, "inspect", "no_dot")
    assert code == EXIT_USAGE and "DATABASE.TABLE" in output


def test_unreachable_metastore_is_an_environment_error(tmp_path: Path) -> None:
    uri = f"thrift://127.0.0.1:{free_port()}"
    result = CliRunner().invoke(
        cli,
        ["--home", str(tmp_path), "--metastore-uri", uri, "inspect", "a.b"],
        env={"LAKESHIFT_METASTORE_TIMEOUT": "1"},
    )
    assert result.exit_code == EXIT_ENVIRONMENT
    assert uri in result.output and "does not answer" in result.output


def test_metastore_status_as_a_subprocess(tmp_path: Path) -> None:
    env = {**os.environ, "LAKESHIFT_HOME": str(tmp_path)}
    done = subprocess.run(
        [sys.executable, "-m", "lakeshift.cli.main", "--output", "json", "metastore", "status"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["running"] is False


def test_every_command_has_help_with_examples() -> None:
    runner = CliRunner()
    for args in (["inspect"], ["metastore"], ["sample", "load"], ["demo"], ["hiveserver2"]):
        result = runner.invoke(cli, [*args, "--help"])
        assert result.exit_code == 0 and "Example" in result.output, args


def test_schema_shows_field_ids_and_keeps_them(
    lakeshift_home: Path, metastore_uri: str, sample_table: LoadResult
) -> None:
    code, output = _run(
        lakeshift_home, metastore_uri, "--output", "json", "schema", "sample.click_log"
    )
    assert code == 0, output
    mapping = json.loads(output)
    by_name = {f["name"]: f for f in mapping["columns"]}
    assert by_name["bid_price"]["lineage"] == ["price", "bid_price"]
    assert mapping["mapping_mode"] == "auto"
    code, again = _run(
        lakeshift_home, metastore_uri, "--output", "json", "schema", "sample.click_log"
    )
    assert json.loads(again)["columns"] == mapping["columns"]

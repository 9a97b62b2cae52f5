"""`lakeshift interactive`, answered by a script: stopped, resumed, and finished in a subprocess."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.cli.main import cli
from lakeshift.config import Settings
from lakeshift.metastore.client import MetastoreClient
from lakeshift.sample.generate_table import generate_table
from tests.helpers.cli import lakeshift_command
from tests.helpers.hive_tables import unique_name
from tests.integration.test_migrate import assert_target_equals_source


def test_a_scripted_session_stops_resumes_and_cuts_over(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    metastore_uri: str,
    tables_root: Path,
    tmp_path: Path,
) -> None:
    table = f"guided.{unique_name('t')}"
    generate_table(
        client, table, tables_root / table.replace(".", "/"), partitions=3, rows_per_partition=60
    )
    home = tmp_path / "home"
    base = ["--home", str(home), "--metastore-uri", metastore_uri, "interactive", table]

    # Session 1: yes to the backfill, then the script ends at the validation prompt.
    first = CliRunner().invoke(cli, base, input="y\n")
    assert first.exit_code == 130, first.output
    assert "3 partitions backfilled" in first.output
    assert f"Run `lakeshift interactive {table}` to continue" in first.output

    # Session 2: nothing is backfilled again; validate (count) and switch one partition.
    second = CliRunner().invoke(cli, base, input="y\ncount\ndt=2024-01-02\n")
    assert second.exit_code == 0, second.output
    assert "nothing to backfill" in second.output
    assert "3 equal" in second.output
    assert "1 partitions switched; 1 of 3 now served from the lake table" in second.output
    assert "cutover waits until every partition is switched" in second.output

    # Session 3, a real process with answers on stdin: switch the rest and cut over.
    third = subprocess.run(
        lakeshift_command(home, metastore_uri, "interactive", table),
        input="all\ny\n",
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert third.returncode == 0, third.stdout[-3000:] + third.stderr[-3000:]
    assert "nothing to validate" in third.stdout
    assert "2 partitions switched; 3 of 3" in third.stdout
    assert f"renamed Iceberg table {table}_iceberg -> {table}" in third.stdout
    catalog = HiveCatalog("guided", uri=metastore_uri)
    assert_target_equals_source(spark, client, settings, catalog, f"{table}_hive_legacy", table)
    assert "HTML report:" in third.stdout

    # Session 4 knows the table is finished.
    fourth = CliRunner().invoke(cli, base, input="")
    assert fourth.exit_code == 0 and "already cut over" in fourth.output


def test_interactive_refuses_json_output(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["--home", str(tmp_path), "--output", "json", "interactive", "a.b"]
    )
    assert result.exit_code == 2 and "cannot write JSON" in result.output

"""Ctrl-C during ``lakeshift migrate`` (issue 13 item 4): stop before the next batch, report
what committed, exit 130, no py4j tracebacks; the re-run finishes the table."""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.cli.main import cli
from lakeshift.errors import EXIT_INTERRUPTED
from lakeshift.formats.iceberg import backfilled_partitions
from lakeshift.metastore.client import MetastoreClient
from lakeshift.sample.generate_table import generate_table
from tests.helpers.cli import lakeshift_command
from tests.helpers.hive_tables import unique_name


@pytest.mark.slow
def test_ctrl_c_stops_migrate_before_the_next_batch_and_exits_130(
    spark: Any, client: MetastoreClient, metastore_uri: str, tables_root: Path, tmp_path: Path
) -> None:
    table = f"signals.{unique_name('t')}"
    generated = generate_table(
        client,
        table,
        tables_root / "signals" / table.split(".")[1],
        partitions=8,
        rows_per_partition=400,
    )
    home = tmp_path / "home"
    command = lakeshift_command(home, metastore_uri, "migrate", table, "--batch-rows", "350")
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    journal = home / "journal.sqlite"
    backfilled = "SELECT partition FROM partitions WHERE status='backfilled'"
    deadline = time.monotonic() + 300
    while time.monotonic() < deadline and process.poll() is None:
        if journal.exists():
            with sqlite3.connect(journal) as db:
                try:
                    if db.execute(backfilled).fetchall():
                        break
                except sqlite3.OperationalError:  # the journal exists before its tables do
                    pass
        time.sleep(0.2)
    assert process.poll() is None, "the run ended before it could be interrupted"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=180)

    assert process.returncode == EXIT_INTERRUPTED, stderr[-3000:]
    assert "Traceback" not in stderr and "reentrant" not in stderr, stderr[-3000:]
    assert "committed in this run" in stderr
    target = f"{table}_iceberg"
    committed = set(backfilled_partitions(HiveCatalog("sig", uri=metastore_uri).load_table(target)))
    with sqlite3.connect(journal) as db:
        recorded = {row[0] for row in db.execute(backfilled)}
        failed = db.execute("SELECT count(*) FROM partitions WHERE status='failed'").fetchone()
        assert db.execute("SELECT count(*) FROM leases").fetchone()[0] == 0
    # The journal says exactly what the target's commits say; nothing is reported failed,
    # and it stopped instead of running the remaining batches.
    assert recorded == committed and failed[0] == 0
    assert 1 <= len(committed) < 8

    resumed = CliRunner().invoke(cli, command[command.index("--home") :])
    assert resumed.exit_code == 0, resumed.output
    table_now = HiveCatalog("sig", uri=metastore_uri).load_table(target)
    assert len(backfilled_partitions(table_now)) == 8
    assert table_now.scan().to_arrow().num_rows == generated.rows

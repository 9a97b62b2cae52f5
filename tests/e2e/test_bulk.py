"""`lakeshift bulk`: three generated tables, killed mid-run, resumed; failures isolated."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import time
from pathlib import Path
from typing import Any

import pyarrow.orc as orc
import pytest
from click.testing import CliRunner
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.cli.main import cli
from lakeshift.config import Settings
from lakeshift.errors import EXIT_NOT_FOUND, EXIT_PARTIAL, EXIT_USAGE
from lakeshift.formats import format_of
from lakeshift.metastore.client import MetastoreClient
from lakeshift.sample.generate_table import generate_table
from lakeshift.testing import assert_table_migrated
from tests.helpers.cli import lakeshift_command
from tests.helpers.hive_tables import unique_name
from tests.helpers.lake import read_lake, unique_keys
from tests.helpers.source_state import source_snapshot


def _generate(client: MetastoreClient, root: Path, db: str, **kwargs: Any) -> str:
    name = unique_name("t")
    generate_table(client, f"{db}.{name}", root / db / name, **kwargs)
    return f"{db}.{name}"


def _source_order_ids(root: Path) -> list[int]:
    """The rows Hive has, read straight from the files (independent of lakeshift): ORC, or the
    generator's text partitions (``order_id`` is the first ``|``-separated field)."""
    ids: list[int] = []
    for path in sorted(root.rglob("*_0")):
        if path.read_bytes()[:3] == b"ORC":
            ids += orc.read_table(str(path), columns=["order_id"]).column(0).to_pylist()
        else:
            ids += [int(line.split("|")[0]) for line in path.read_text().splitlines()]
    return sorted(ids)


def _target_rows(catalog: HiveCatalog, table: str) -> tuple[list[int], list[str]]:
    data = catalog.load_table(table).scan(selected_fields=("order_id", "uuid")).to_arrow()
    return sorted(data.column("order_id").to_pylist()), data.column("uuid").to_pylist()


def _bulk_file(path: Path, body: str) -> Path:
    path.write_text(body)
    return path


@pytest.mark.faults  # a SIGKILL and a resume: `make faults` (Ctrl-C and rerun stay in make test)
def test_three_tables_killed_mid_run_then_resumed(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    metastore_uri: str,
    tables_root: Path,
    tmp_path: Path,
) -> None:
    db = "bulk_e2e"
    orders = _generate(client, tables_root, db, partitions=6, rows_per_partition=300, drift=True)
    returns = _generate(
        client, tables_root, db, partitions=4, rows_per_partition=100, text_partitions=2
    )
    refunds = _generate(client, tables_root, db, partitions=5, rows_per_partition=80, seed=3)
    before = {t: source_snapshot(client, *t.split(".")) for t in (orders, returns, refunds)}
    config = _bulk_file(
        tmp_path / "three.toml",
        f"""
[bulk]
parallel = 2
batch_rows = 700

[[tables]]
source = "{orders}"
switch = "cutover"

[[tables]]
source = "{returns}"
format = "delta"
validate = "independent"

[[tables]]
source = "{refunds}"
partitions = "dt=2024-01-02..2024-01-04"
switch = "none"
maintain = false

[maintain]
expire_days = 0
""",
    )
    command = lakeshift_command(
        tmp_path / "home",
        metastore_uri,
        "--output",
        "json",
        "bulk",
        str(config),
        spark_master="local[2]",
    )
    env = {**os.environ, "LAKESHIFT_FAULT": "after-commit:2"}
    killed = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-3000:]

    env.pop("LAKESHIFT_FAULT")
    resumed = subprocess.run(command, capture_output=True, text=True, env=env, timeout=600)
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
    summary = {t["source"]: t for t in json.loads(resumed.stdout)["tables"]}
    # The killed run had committed some batches: the re-run skipped them.
    assert sum(t["unchanged"] for t in summary.values()) > 0
    assert summary[orders]["status"] == "cut-over" and summary[orders]["switched"] == 6
    assert summary[returns]["status"] == "ok" and summary[returns]["switched"] == 4
    assert (
        summary[refunds]["switched"] == 0
        and summary[refunds]["backfilled"] + summary[refunds]["unchanged"] == 3
    )
    # [maintain] ran after the others' steps (expiry keeps each table's current snapshot, so
    # the row checks below read the same rows), not for the table that opted out.
    assert "maintain" in summary[orders]["steps"] and "maintain" in summary[returns]["steps"]
    assert summary[refunds]["maintenance"] is None and "maintain" not in summary[refunds]["steps"]
    maintained = json.loads(
        (tmp_path / "home" / "reports" / returns / "maintain-latest.json").read_text()
    )
    source_rows = len(_source_order_ids(tables_root / returns.replace(".", "/")))
    assert maintained["after"]["rows"] == maintained["before"]["rows"] == source_rows
    # expire_days = 0 keeps the current version only; when the killed run had already
    # maintained this table, the re-run finds nothing older to expire.
    assert maintained["after"]["versions"] == 1 <= maintained["before"]["versions"]

    catalog = HiveCatalog("bulk", uri=metastore_uri)
    # After the cutover the public name is the Iceberg table; Hive kept a legacy name. The
    # Delta table is read by delta-rs, the Iceberg ones by pyiceberg.
    legacy = f"{orders}_hive_legacy"
    assert (
        format_of(client, orders) == "iceberg" and format_of(client, f"{returns}_delta") == "delta"
    )
    for source, target, root in (
        (legacy, orders, tables_root / orders.replace(".", "/")),
        (returns, f"{returns}_delta", tables_root / returns.replace(".", "/")),
    ):
        rows = read_lake(client, target)
        assert sorted(rows.column("order_id").to_pylist()) == _source_order_ids(root)
        assert unique_keys(rows)
        assert_table_migrated(spark, source, target)
    ids, _ = _target_rows(catalog, f"{refunds}_iceberg")
    wanted = [
        p
        for p in (tables_root / refunds.replace(".", "/")).iterdir()
        if p.name[3:] in {"2024-01-02", "2024-01-03", "2024-01-04"}
    ]
    assert ids == sorted(i for p in wanted for i in _source_order_ids(p))
    # The Hive side of every table is byte-for-byte what it was (the cut-over one renamed).
    assert source_snapshot(client, *returns.split(".")) == before[returns]
    assert source_snapshot(client, *refunds.split(".")) == before[refunds]

    # A third run (in this process, on the session's Spark) has nothing left to do.
    again = CliRunner().invoke(cli, command[command.index("--home") :])
    assert again.exit_code == 0, again.output
    rerun = {t["source"]: t for t in json.loads(again.output)["tables"]}
    assert all(t["backfilled"] == 0 and t["validated"] == 0 for t in rerun.values())
    assert rerun[orders]["status"] == "cut-over"


def test_a_failing_table_does_not_stop_the_others(
    spark: Any,
    client: MetastoreClient,
    lakeshift_home: Path,
    metastore_uri: str,
    tables_root: Path,
    tmp_path: Path,
) -> None:
    good = _generate(client, tables_root, "bulk_iso", partitions=3, rows_per_partition=50)
    broken = _generate(client, tables_root, "bulk_iso", partitions=3, rows_per_partition=50)
    bad_file = tables_root / broken.replace(".", "/") / "dt=2024-01-02" / "000009_0"
    bad_file.write_bytes(b"ORC" + b"\x00garbage" * 20)  # a corrupt file: that partition is refused
    config = _bulk_file(
        tmp_path / "iso.toml",
        f'[[tables]]\nsource = "bulk_iso.does_not_exist"\n\n[[tables]]\nsource = "{good}"\n'
        f'\n[[tables]]\nsource = "{broken}"\nswitch = "cutover"\n',
    )
    base = ["--home", str(lakeshift_home), "--metastore-uri", metastore_uri, "--output", "json"]

    planned = CliRunner().invoke(cli, [*base, "bulk", str(config), "--dry-run"])
    assert planned.exit_code == EXIT_PARTIAL, planned.output
    plan = {t["source"]: t for t in json.loads(planned.output)["tables"]}
    assert plan[good]["status"] == "planned" and plan[good]["planned_rows"] > 0
    assert not HiveCatalog("iso", uri=metastore_uri).table_exists(f"{good}_iceberg")

    result = CliRunner().invoke(cli, [*base, "bulk", str(config), "--parallel", "2"])
    assert result.exit_code == EXIT_PARTIAL, result.output
    document = json.loads(result.output)
    tables = {t["source"]: t for t in document["tables"]}
    missing = tables["bulk_iso.does_not_exist"]
    assert missing["status"] == "failed" and missing["exit_code"] == EXIT_NOT_FOUND
    assert "bulk_iso.does_not_exist" in missing["error"]
    assert tables[good]["status"] == "ok" and tables[good]["switched"] == 3
    # The corrupt partition is refused; the other two are switched; no cutover without it.
    assert tables[broken]["status"] == "partial" and tables[broken]["exit_code"] == EXIT_PARTIAL
    assert list(tables[broken]["not_migrated"]) == ["dt=2024-01-02"]
    assert tables[broken]["switched"] == 2 and not tables[broken]["cutover"]
    assert client.get_table(*broken.split(".")).tableType == "EXTERNAL_TABLE"
    assert not document["ok"] and document["exit_code"] == EXIT_PARTIAL
    # One JSON document: the summary, with the error that set the exit code.
    assert document["error"]["exit_code"] == EXIT_PARTIAL
    report = lakeshift_home / "reports" / "bulk-iso" / "bulk-latest.md"
    assert "does_not_exist" in report.read_text()
    page = (lakeshift_home / "reports" / "bulk-iso" / "report-latest.html").read_text()
    assert f'href="../{good}/report-latest.html"' in page
    assert (lakeshift_home / "reports" / good / "report-latest.html").is_file()


@pytest.mark.parametrize(
    ("body", "message"),
    [
        ('[[tables]]\nsource = "a.b"\nformat = "parquet"\n', "format must be one of"),
        ('[[tables]]\nsource = "a.b"\nswitch = "always"\n', "switch must be one of"),
        ('[[tables]]\nsource = "a.b"\n[[tables]]\nsource = "A.B"\n', "listed twice"),
        ('[[tables]]\nsource = "a.b"\nbatchrows = 5\n', "table #1 has unknown keys: batchrows"),
        ("[bulk]\nparallel = 2\n", "lists no tables"),
        ('[maintain]\n[[tables]]\nsource = "a.b"\n', "[maintain]: say what to do: compact"),
        ('[maintain]\nexpire = 7\n[[tables]]\nsource = "a.b"\n', "unknown keys: expire"),
        (
            '[maintain]\norphan_hours = 0.5\n[[tables]]\nsource = "a.b"\n',
            "orphan_hours must be at least 1 hour",
        ),
    ],
)
def test_bad_bulk_files_fail_before_any_work(tmp_path: Path, body: str, message: str) -> None:
    config = _bulk_file(tmp_path / "bad.toml", body)
    result = CliRunner().invoke(cli, ["--home", str(tmp_path), "bulk", str(config)])
    assert result.exit_code == EXIT_USAGE
    assert message in result.output and str(config) in result.output
    assert not (tmp_path / "journal.sqlite").exists()


@pytest.mark.slow
def test_ctrl_c_cancels_cleanly_and_the_rerun_finishes(
    spark: Any, client: MetastoreClient, metastore_uri: str, tables_root: Path, tmp_path: Path
) -> None:
    table = _generate(client, tables_root, "bulk_int", partitions=8, rows_per_partition=400)
    config = _bulk_file(
        tmp_path / "one.toml", f'[[tables]]\nsource = "{table}"\nbatch_rows = 350\n'
    )
    home = tmp_path / "home"
    command = lakeshift_command(home, metastore_uri, "bulk", str(config))
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    journal = home / "journal.sqlite"
    deadline = time.monotonic() + 300
    backfilled = "SELECT count(*) FROM partitions WHERE status='backfilled'"
    at_signal = 0
    while time.monotonic() < deadline and process.poll() is None:
        if journal.exists():
            with sqlite3.connect(journal) as db:
                at_signal = db.execute(backfilled).fetchone()[0]
                if at_signal >= 1:
                    break
        time.sleep(0.2)
    assert process.poll() is None, "the run ended before it could be interrupted"
    process.send_signal(signal.SIGINT)
    _, stderr = process.communicate(timeout=120)
    assert process.returncode == 130, stderr[-3000:]
    assert "re-run the same command to resume" in stderr
    with sqlite3.connect(journal) as db:
        # The run is recorded as ended and the lease is released: nothing waits for a takeover.
        assert db.execute("SELECT count(*) FROM runs WHERE finished_at IS NULL").fetchone()[0] == 0
        assert db.execute("SELECT status FROM runs").fetchall() == [("failed",)]
        assert db.execute("SELECT count(*) FROM leases").fetchone()[0] == 0
        # It stopped at the next batch instead of going on with the table (8 one-partition
        # batches): at most the batch in flight when the signal came was committed.
        assert db.execute(backfilled).fetchone()[0] <= at_signal + 1

    # The re-run (in this process, on the session's Spark) finishes the table.
    resumed = CliRunner().invoke(cli, command[command.index("--home") :])
    assert resumed.exit_code == 0, resumed.output
    catalog = HiveCatalog("bulk_int", uri=metastore_uri)
    ids, keys = _target_rows(catalog, f"{table}_iceberg")
    assert ids == _source_order_ids(tables_root / table.replace(".", "/"))
    assert len(set(keys)) == len(keys)

"""``follow``: the lake table and the routing view keep up with a Hive table being written.

Each test writes to the Hive table as real writers do (an upload dropping an ORC file into a
switched partition, an ``INSERT OVERWRITE`` leaving new files and removing the old, partitions
added and dropped through the metastore, ``ADD COLUMNS``), runs passes, and reads the routing
view, the Hive table and the lake table (with the format's own reader) after each.
"""

from __future__ import annotations

import signal
import sqlite3
import subprocess
import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pyarrow.orc as orc
import pytest
from click.testing import CliRunner
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.cli.main import cli
from lakeshift.config import load_settings
from lakeshift.context import Context
from lakeshift.follow.passes import FollowOptions, run_pass
from lakeshift.follow.state import FollowState
from lakeshift.formats import format_of
from lakeshift.inspect.footer_cache import FooterCache
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.route.router import recover
from lakeshift.validate.validator import validate_table
from tests.helpers.cli import lakeshift_command
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake
from tests.helpers.live_table import COLUMNS, LiveTable, Sampler, check_samples, rows
from tests.helpers.migration import EACH_FORMAT_EXTENDED
from tests.helpers.source_state import source_snapshot
from tests.helpers.tcp_gate import TcpGate

QUIET = 1.0  # seconds a partition must rest before it is copied and switched


@pytest.fixture
def follower(context: Context) -> Iterator[Context]:
    """A context of its own (journal connection), sharing the session's Spark and metastore."""
    ctx = context.worker()
    yield ctx
    ctx.close()


def view_rows(spark: Any, view: str, source: str) -> Counter[tuple[Any, ...]]:
    """The routing view's rows as a reader sees them now (Spark's caches refreshed)."""
    spark.sql(f"REFRESH TABLE {source}")
    spark.sql(f"REFRESH TABLE {view}")
    return Counter(tuple(r) for r in spark.sql(f"SELECT * FROM {view}").collect())


def hive_rows(spark: Any, source: str) -> Counter[tuple[Any, ...]]:
    spark.sql(f"REFRESH TABLE {source}")
    return Counter(tuple(r) for r in spark.sql(f"SELECT * FROM {source}").collect())


def settle() -> None:
    time.sleep(QUIET + 0.2)


def add_column(client: MetastoreClient, db: str, name: str, column: str, kind: str) -> None:
    """``ALTER TABLE ... ADD COLUMNS`` without CASCADE: the table's columns only."""
    from hive_metastore.ttypes import FieldSchema

    table = client.get_table(db, name)
    table.sd.cols = [*table.sd.cols, FieldSchema(column, kind, None)]
    client.alter_table(db, name, table)


@EACH_FORMAT_EXTENDED
def test_follow_keeps_view_and_lake_in_step_with_writers(
    spark: Any,
    client: MetastoreClient,
    follower: Context,
    tables_root: Path,
    fmt: str,
) -> None:
    name = unique_name(f"live_{fmt}")
    source, target = f"follow.{name}", f"follow.{name}_lake"
    view = f"{source}_routed"
    builder = HiveTableBuilder(client, tables_root, "follow", name, COLUMNS)
    for day in range(1, 6):
        builder.add_partition([f"2024-01-0{day}"], {"000000_0": rows(day * 100, 20)})
    options = FollowOptions(target=target, format=fmt, quiet_seconds=QUIET)
    state = FollowState(follower.journal.path)
    cache = FooterCache()

    # A first pass with a minute's quiet period: nothing written a moment ago is copied.
    first = run_pass(follower, source, replace(options, quiet_seconds=60), state, cache)
    assert set(first.changes.unsettled) == set(first.changes.added) and first.changes.first_pass
    assert not first.backfilled and not first.in_step
    settle()
    second = run_pass(follower, source, options, state, cache)
    assert len(second.switched) == 5 and second.in_step
    assert view_rows(spark, view, source) == hive_rows(spark, source)

    # Writers: an upload into a switched partition, an INSERT OVERWRITE of another, a new
    # partition, a dropped one.
    orc.write_table(rows(150, 7), str(builder.partition_dir(["2024-01-01"]) / "upload_1.orc"))
    overwritten = builder.partition_dir(["2024-01-02"])
    orc.write_table(rows(5000, 3), str(overwritten / "000000_0_copy_1"))
    (overwritten / "000000_0").unlink()
    builder.add_partition(["2024-01-06"], {"000000_0": rows(600, 11)})
    client.drop_partition("follow", name, ["2024-01-03"])
    expected = hive_rows(spark, source)

    third = run_pass(follower, source, options, state, cache)
    assert set(third.changes.changed) == {"dt=2024-01-01", "dt=2024-01-02"}
    assert third.changes.added == ("dt=2024-01-06",) and third.changes.dropped == ("dt=2024-01-03",)
    # Both changed partitions are back on Hive at once; nothing unrested is copied.
    assert set(third.withdrawn) >= {"dt=2024-01-01", "dt=2024-01-02", "dt=2024-01-03"}
    assert not third.backfilled and third.deleted == ["dt=2024-01-03"]
    assert view_rows(spark, view, source) == expected
    served = set(recover(client, follower.journal, source))
    assert served == {"dt=2024-01-04", "dt=2024-01-05"}
    assert {"dt=2024-01-01", "dt=2024-01-02", "dt=2024-01-06"} <= set(third.behind)

    settle()
    untouched = source_snapshot(client, "follow", name)
    fourth = run_pass(follower, source, options, state, cache)
    assert source_snapshot(client, "follow", name) == untouched  # lakeshift wrote no source
    assert set(fourth.backfilled) == {"dt=2024-01-01", "dt=2024-01-02", "dt=2024-01-06"}
    assert fourth.in_step and fourth.lag_seconds == 0
    assert view_rows(spark, view, source) == expected
    assert set(recover(client, follower.journal, source)) == {
        f"dt=2024-01-0{d}" for d in (1, 2, 4, 5, 6)
    }
    # Unchanged footers are not read again: only the new files' are.
    assert fourth.requests["footer_reads"] <= 3

    # A column added without CASCADE: the target evolves, every partition is proven again.
    add_column(client, "follow", name, "note", "string")
    settle()
    fifth = run_pass(follower, source, options, state, cache)
    assert fifth.changes.schema_changed and fifth.in_step, str(fifth.to_json())
    assert len(fifth.validated) == 5
    expected = hive_rows(spark, source)
    assert next(iter(expected))[2] is None  # the new column reads NULL in the old files
    assert view_rows(spark, view, source) == expected

    # The lake table, read by the format's own reader, holds exactly Hive's rows.
    lake = read_lake(client, target).to_pylist()
    # (hudi-rs reads each base file's own columns: files older than the column lack it)
    assert Counter((r["id"], r["name"], r.get("note"), r["dt"]) for r in lake) == expected
    proof = validate_table(
        spark, client, follower.formats.catalog, follower.settings, follower.journal, source,
        target, level="independent",
    )  # fmt: skip
    assert proof.ok and len(proof.partitions) == 5, [p.detail for p in proof.partitions]

    state.close()

    # Cutover of a followed table: a last catch-up first, refused while a write is settling.
    orc.write_table(rows(700, 2), str(builder.partition_dir(["2024-01-04"]) / "late.orc"))
    command = ["--home", str(follower.home), "--metastore-uri", client.uri, "cutover", source]
    quiet = {"LAKESHIFT_FOLLOW_QUIET_SECONDS": str(QUIET)}  # the catch-up's quiet period
    refused = CliRunner().invoke(cli, [*command, "--yes"], env=quiet)
    assert refused.exit_code == 7 and "dt=2024-01-04" in refused.output, refused.output
    assert client.get_table("follow", name).tableType == "EXTERNAL_TABLE"  # still Hive's
    settle()
    done = CliRunner().invoke(cli, [*command, "--yes"], env=quiet)
    assert done.exit_code == 0, done.output
    assert "last catch-up" in done.output
    assert format_of(client, source) == fmt  # the public name reads the lake table now


def run_live(
    spark: Any,
    client: MetastoreClient,
    metastore_uri: str,
    tables_root: Path,
    home: Path,
    fmt: str,
    *,
    kill_mid_pass: bool = False,
    outage_seconds: float = 0.0,
) -> None:
    """``lakeshift follow`` as a user runs it (a process of its own) while this test writes
    to the table and reads its routing view; then the checks of issue #54's done-when.

    ``outage_seconds``: follow reaches the metastore through a gate that is shut that long
    while changes wait (the metastore restarting, as follow sees it; the test's own reader
    keeps reaching it): passes fail and are retried, and the staleness allowed grows by the
    outage (no view update can be made while the metastore cannot be reached).
    """
    name = unique_name(f"writers_{fmt}")
    source, target, view = f"follow.{name}", f"follow.{name}_lake", f"follow.{name}_routed"
    live = LiveTable.create(client, tables_root, "follow", name, days=4)
    interval = 3.0
    gate = None
    follow_uri = metastore_uri
    if outage_seconds:
        address = urlsplit(metastore_uri)
        gate = TcpGate(address.hostname or "127.0.0.1", address.port or 9083).open()
        follow_uri = f"thrift://127.0.0.1:{gate.port}"
    command = lakeshift_command(
        home, follow_uri, "follow", source, "--target", target, "--format", fmt,
        "--interval", str(interval), "--quiet-seconds", "1",
    )  # fmt: skip
    journal = home / "journal.sqlite"
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        _wait_in_step(process, journal, source, passes=1)
        sampler = Sampler(spark, view, source)
        sampler.start()
        day = LiveTable.partition
        live.upload("2024-03-01", 7)  # switched: served from Hive within one pass
        live.add("2024-03-05", 5)
        time.sleep(interval)
        live.overwrite("2024-03-02", 4)
        live.add("2024-03-06", 3)
        live.drop("2024-03-03")
        if kill_mid_pass:
            process = _kill_mid_pass_and_restart(process, command, journal, source)
        if gate is not None:
            cut = gate.shut()
            assert cut > 0, "follow held no metastore connection through the gate"
            time.sleep(outage_seconds)
            gate.open()
        time.sleep(interval)
        live.upload("2024-03-05", 2)  # unswitched, or switched a moment ago
        add_column(client, "follow", name, "note", "string")
        _wait_in_step(process, journal, source, passes=_passes(journal, source) + 2)
        settled = time.time()
        sampler.wait_for(2, after=settled)  # samples of the table in step
        sampler.stop()
    finally:
        process.terminate()
        output = process.communicate(timeout=120)[0]
        if gate is not None:
            gate.shut()
    assert process.returncode in (0, 10), output[-3000:]
    # (Met by a pass, the outage either fails it, "pass failed ... trying again", or is
    # waited out by the clients' own retries: both are fine, what follows must hold.)
    assert len(sampler.samples) >= 3, sampler.errors
    longest = max(p["seconds"] for p in _pass_rows(journal, source))
    tolerance = interval + longest + 1.0 + outage_seconds
    checked = check_samples(live, sampler.samples, tolerance=tolerance)
    assert checked["current"] > 0 and checked["states"] > 0
    # The lake table, read by the format's own reader, holds exactly Hive's rows now.
    lake = read_lake(client, target).to_pylist()
    expected = Counter(
        (i, n, None, d) for d, rows_now in live.contents.items() for (i, n) in rows_now.elements()
    )
    assert Counter((r["id"], r["name"], r.get("note"), r["dt"]) for r in lake) == expected
    assert day("2024-03-03") not in {f"dt={r['dt']}" for r in lake}
    proof_journal = Journal(journal)
    try:
        proof = validate_table(
            spark, client, HiveCatalog("t", uri=metastore_uri), replace(
                load_settings({"home": home, "metastore_uri": metastore_uri}, env={}),
                spark_master="local[2]",
            ), proof_journal, source, target, level="independent",
        )  # fmt: skip
    finally:
        proof_journal.close()
    assert proof.ok and len(proof.partitions) == len(live.contents), [
        (p.partition, p.status, p.detail) for p in proof.partitions
    ]


def _pass_rows(journal: Path, source: str) -> list[dict[str, Any]]:
    state = FollowState(journal)
    try:
        return state.passes(source, limit=1000)
    finally:
        state.close()


def _passes(journal: Path, source: str) -> int:
    rows_now = _pass_rows(journal, source)
    return max((p["pass"] for p in rows_now), default=0)


def _wait_in_step(process: subprocess.Popen[str], journal: Path, source: str, passes: int) -> None:
    """Until a pass numbered ``passes`` or later found the table in step."""
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline:
        assert process.poll() is None, process.communicate()[0][-3000:]
        if journal.exists():
            try:
                done = _pass_rows(journal, source)
            except sqlite3.OperationalError:  # the follow tables are not created yet
                done = []
            if any(p["pass"] >= passes and p["in_step"] for p in done):
                return
        time.sleep(0.3)
    raise AssertionError(f"follow did not get {source} in step by pass {passes}")


def _kill_mid_pass_and_restart(
    process: subprocess.Popen[str], command: list[str], journal: Path, source: str
) -> subprocess.Popen[str]:
    """``kill -9`` while a pass is under way (follow's lease gets no heartbeat during a
    pass), then start follow again as a user would."""
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        with sqlite3.connect(journal) as db:
            row = db.execute(
                "SELECT heartbeat_at FROM leases WHERE source=?", (f"follow:{source}",)
            ).fetchone()
        if row and time.time() - row[0] > 1.0:
            break
        time.sleep(0.1)
    else:
        raise AssertionError("no pass was under way within two minutes")
    process.send_signal(signal.SIGKILL)
    process.wait(timeout=60)
    return subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)


@pytest.mark.slow
@pytest.mark.parametrize(
    "fmt",
    # `make extended`: a follow process of its own and a reader beside it take 2-4 minutes,
    # past make test's budget; make test holds the same passes in-process, the view read after
    # each (test_follow_keeps_view_and_lake_in_step_with_writers)
    [pytest.param(f, marks=pytest.mark.extended) for f in ("iceberg", "delta", "hudi")],
)
def test_follow_serves_only_hive_states_while_writers_write(
    spark: Any,
    client: MetastoreClient,
    metastore_uri: str,
    tables_root: Path,
    tmp_path: Path,
    fmt: str,
) -> None:
    run_live(spark, client, metastore_uri, tables_root, tmp_path / "home", fmt)


@EACH_FORMAT_EXTENDED
def test_a_column_added_after_the_backfill_is_not_proven_until_migrate_evolves_the_target(
    spark: Any, client: MetastoreClient, follower: Context, tables_root: Path, fmt: str
) -> None:
    """``ALTER TABLE ADD COLUMNS`` between migrate and validate: validate says so, proves
    nothing and fails nothing; once migrate evolved the target every partition is equal (the
    new column stands after the partition columns in a lake table: checksums hash by name)."""
    name = unique_name(f"added_{fmt}")
    source, target = f"follow.{name}", f"follow.{name}_lake"
    builder = HiveTableBuilder(client, tables_root, "follow", name, COLUMNS)
    builder.add_partition(["2024-04-01"], {"000000_0": rows(0, 6)})
    builder.add_partition(["2024-04-02"], {"000000_0": rows(10, 3)})
    ctx = follower
    migrate(ctx.spark, client, ctx.formats.catalog, ctx.settings, ctx.journal, source,
            MigrateOptions(target, format=fmt))  # fmt: skip
    add_column(client, "follow", name, "note", "string")
    for level in ("checksum", "independent"):
        early = validate_table(spark, client, ctx.formats.catalog, ctx.settings, ctx.journal,
                               source, target, level=level)  # fmt: skip
        assert not early.ok and {p.status for p in early.partitions} == {"not-proven"}
        assert "run migrate" in early.partitions[0].detail
    migrate(ctx.spark, client, ctx.formats.catalog, ctx.settings, ctx.journal, source,
            MigrateOptions(target, format=fmt))  # fmt: skip
    for level in ("checksum", "independent"):
        proven = validate_table(spark, client, ctx.formats.catalog, ctx.settings, ctx.journal,
                                source, target, level=level)  # fmt: skip
        assert proven.ok and {p.status for p in proven.partitions} == {"equal"}, [
            p.detail for p in proven.partitions
        ]

"""``follow``: the lake table and the routing view keep up with a Hive table being written.

Each test writes to the Hive table as real writers do (an upload dropping an ORC file into a
switched partition, an ``INSERT OVERWRITE`` leaving new files and removing the old, partitions
added and dropped through the metastore, ``ADD COLUMNS``), runs passes, and reads the routing
view, the Hive table and the lake table (with the format's own reader) after each.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc
import pytest

from lakeshift.context import Context
from lakeshift.follow import FollowOptions, FollowState, run_pass
from lakeshift.follow.passes import SourceGone
from lakeshift.inspect.footer_cache import FooterCache
from lakeshift.metastore.client import MetastoreClient
from lakeshift.route.router import recover
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake
from tests.helpers.migration import EACH_FORMAT_EXTENDED
from tests.helpers.source_state import source_snapshot

QUIET = 1.0  # seconds a partition must rest before it is copied and switched

COLUMNS = (("id", "bigint"), ("name", "string"))


def rows(start: int, count: int) -> pa.Table:
    return pa.table(
        {
            "id": pa.array(range(start, start + count), pa.int64()),
            "name": pa.array([f"n{i}" for i in range(start, start + count)]),
        }
    )


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
    assert third.changes.added == ("dt=2024-01-06",) and third.changes.dropped == (
        "dt=2024-01-03",
    )
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
    assert Counter((r["id"], r["name"], r["note"], r["dt"]) for r in lake) == expected
    proof = validate_table(
        spark, client, follower.formats.catalog, follower.settings, follower.journal, source,
        target, level="independent",
    )  # fmt: skip
    assert proof.ok and len(proof.partitions) == 5, [p.detail for p in proof.partitions]
    state.close()


def test_a_dropped_source_table_ends_follow_with_the_lake_table_intact(
    client: MetastoreClient, follower: Context, tables_root: Path
) -> None:
    name = unique_name("gone")
    source, target = f"follow.{name}", f"follow.{name}_lake"
    builder = HiveTableBuilder(client, tables_root, "follow", name, COLUMNS)
    builder.add_partition(["2024-02-01"], {"000000_0": rows(0, 4)})
    options = FollowOptions(target=target, quiet_seconds=QUIET)
    state = FollowState(follower.journal.path)
    settle()
    assert run_pass(follower, source, options, state, FooterCache()).in_step
    client.drop_table("follow", name)
    with pytest.raises(SourceGone) as raised:
        run_pass(follower, source, options, state, FooterCache())
    assert raised.value.exit_code == 6 and target in str(raised.value)
    assert read_lake(client, target).num_rows == 4
    state.close()

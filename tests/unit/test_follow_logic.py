"""``follow``'s pure logic: what changed between passes, what settled, the notification
cursor, the footer cache and how listings class what Hive skips."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from lakeshift.follow.changes import compare, layout_digest, schema_digest
from lakeshift.follow.events import PAGE, read_events
from lakeshift.follow.state import FollowState, Seen
from lakeshift.inspect.files import EMPTY, HIDDEN, MARKER, in_progress, skip_kind
from lakeshift.inspect.footer_cache import FooterCache, active, reusing
from lakeshift.inspect.model import Column, FileInfo, PartitionInfo, TableInventory
from lakeshift.metastore.catalog import Notification, NotificationBatch

NOW = 1_000_000.0


def partition(
    name: str, fingerprint: str = "f1", newest: float = NOW - 3600, **kw: object
) -> PartitionInfo:
    base = PartitionInfo(
        name=name,
        values=(name.split("=")[1],),
        location=f"file:/t/{name}",
        location_exists=True,
        outside_table_root=False,
        format="orc",
        input_format="OrcInputFormat",
        serde="OrcSerde",
        columns=(Column("id", "bigint"),),
        parameters={},
        files=(),
        skipped_files=0,
        fingerprint=fingerprint,
        newest_mtime_ns=int(newest * 1e9),
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def inventory(
    *partitions: PartitionInfo, columns: tuple[Column, ...] = (Column("id", "bigint"),)
) -> TableInventory:
    return TableInventory(
        database="db",
        table="t",
        location="file:/t",
        table_type="EXTERNAL_TABLE",
        format="orc",
        input_format="OrcInputFormat",
        serde="OrcSerde",
        columns=columns,
        partition_keys=(Column("dt", "string"),),
        parameters={},
        partitions=partitions,
        unregistered_dirs=(),
        anomalies=(),
        metastore_uri="thrift://fake",
        inspected_at="",
        seconds=0.0,
    )


def seen_of(*partitions: PartitionInfo, changed_at: float = 0.0) -> dict[str, Seen]:
    return {p.name: Seen(p.fingerprint, layout_digest(p), p.values, changed_at) for p in partitions}


def test_first_pass_settles_by_the_listing_times_alone() -> None:
    old, fresh = partition("dt=a"), partition("dt=b", newest=NOW - 2)
    found = compare({}, None, inventory(old, fresh), now=NOW, quiet_seconds=60)
    assert found.first_pass and found.added == ("dt=a", "dt=b")
    assert found.unsettled == ("dt=b",)  # a file written two seconds ago: still being written
    assert not found.schema_changed and found.seen["dt=a"].changed_at == 0.0


def test_a_change_waits_a_quiet_period_from_the_pass_that_saw_it() -> None:
    before = partition("dt=a")
    previous = seen_of(before)
    after = replace(before, fingerprint="f2")  # a file appended (its mtime can be old: a copy)
    found = compare(previous, None, inventory(after), now=NOW, quiet_seconds=60)
    assert found.changed == ("dt=a",) and found.unsettled == ("dt=a",)
    assert found.seen["dt=a"].changed_at == NOW
    later = compare(found.seen, None, inventory(after), now=NOW + 61, quiet_seconds=60)
    assert later.changed == () and later.unsettled == ()  # two listings agreed, a minute apart


def test_a_storage_descriptor_change_over_the_same_files_is_a_change() -> None:
    before = partition("dt=a")
    moved = replace(before, serde="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe")
    found = compare(seen_of(before), None, inventory(moved), now=NOW, quiet_seconds=1)
    assert found.changed == ("dt=a",)


def test_added_dropped_and_schema_changes() -> None:
    a, b = partition("dt=a"), partition("dt=b")
    previous = seen_of(a, b)
    schema = schema_digest(inventory(a, b))
    grown = inventory(a, partition("dt=c"), columns=(Column("id", "bigint"), Column("x", "int")))
    found = compare(previous, schema, grown, now=NOW, quiet_seconds=1)
    assert found.added == ("dt=c",) and found.dropped == ("dt=b",) and found.schema_changed
    assert found.dropped_values == {"dt=b": ("b",)}
    assert "dt=c" in found.unsettled  # added since the last pass: activity now
    same = compare(previous, schema, inventory(a, b), now=NOW, quiet_seconds=1)
    assert not same.any and not same.schema_changed


class FakeLog:
    """The notification log of a metastore: ``events`` ids in order, the oldest ones expired."""

    def __init__(self, ids: list[int], current: int, table: str = "t") -> None:
        self.ids, self.current, self.table, self.calls = ids, current, table, 0
        self.uri = "thrift://fake"

    def notifications(self, after: int, limit: int = 1000) -> NotificationBatch | None:
        self.calls += 1
        if self.current == 0:
            return None
        chosen = [i for i in self.ids if i > after][:limit]
        return NotificationBatch(
            self.current,
            tuple(Notification(i, 0, "ADD_PARTITION", "db", self.table) for i in chosen),
        )


def test_events_after_the_cursor_are_counted_and_the_cursor_moves() -> None:
    log = FakeLog(list(range(1, 11)), current=10)
    read = read_events(log, "db", "t", cursor=4)  # type: ignore[arg-type]
    assert read.kept and not read.gap and read.cursor == 10
    assert read.by_type == {"ADD_PARTITION": 6}


def test_a_cursor_older_than_the_oldest_event_kept_is_a_gap() -> None:
    log = FakeLog(list(range(50, 61)), current=60)  # 1..49 expired
    read = read_events(log, "db", "t", cursor=10)  # type: ignore[arg-type]
    assert read.gap and read.cursor == 60
    reset = read_events(FakeLog([1, 2], current=2), "db", "t", cursor=500)  # type: ignore[arg-type]
    assert reset.gap and reset.cursor == 2


def test_a_long_backlog_is_read_in_pages_and_no_log_is_said() -> None:
    log = FakeLog(list(range(1, 2 * PAGE + 6)), current=2 * PAGE + 5)
    read = read_events(log, "db", "t", cursor=0)  # type: ignore[arg-type]
    assert read.cursor == 2 * PAGE + 5 and read.by_type["ADD_PARTITION"] == 2 * PAGE + 5
    assert not read_events(FakeLog([], current=0), "db", "t", cursor=None).kept  # type: ignore[arg-type]
    first = read_events(FakeLog([1, 2, 3], current=3), "db", "t", cursor=None)  # type: ignore[arg-type]
    assert first.cursor == 3 and first.by_type == {}  # a first pass starts at the end


def test_footer_cache_reuses_by_identity_and_never_keeps_a_failure() -> None:
    cache = FooterCache(entries=2)
    reads: list[str] = []

    def read(path: str, error: str | None = None) -> FileInfo:
        reads.append(path)
        return FileInfo(path, 1, 1, "orc", error=error)

    assert cache.get(("a", 1, 1, None), lambda: read("a")).path == "a"
    cache.get(("a", 1, 1, None), lambda: read("a"))
    cache.get(("a", 1, 2, None), lambda: read("a"))  # rewritten: another mtime
    cache.get(("bad", 1, 1, None), lambda: read("bad", "truncated"))
    cache.get(("bad", 1, 1, None), lambda: read("bad", "truncated"))
    assert reads == ["a", "a", "bad", "bad"] and cache.hits == 1
    cache.get(("c", 1, 1, None), lambda: read("c"))  # the oldest entry goes past the bound
    cache.get(("a", 1, 1, None), lambda: read("a"))
    assert reads[-1] == "a"
    assert active() is None
    with reusing(cache):
        assert active() is cache
    assert active() is None


@pytest.mark.parametrize(
    ("path", "size", "kind"),
    [
        ("dt=1_$folder$", 0, MARKER),
        ("sub_$folder$", 12, MARKER),  # a marker with bytes is still a marker, never data
        ("_SUCCESS", 0, HIDDEN),
        (".hive-staging_1/x", 5, HIDDEN),
        ("000000_0", 0, EMPTY),
        ("000000_0", 10, None),
        ("HIVE_UNION_SUBDIR_1/000000_0", 10, None),
    ],
)
def test_every_skipped_object_has_a_class(path: str, size: int, kind: str | None) -> None:
    assert skip_kind(path, size) == kind


@pytest.mark.parametrize(
    ("path", "writing"),
    [
        ("_temporary/0/_temporary/attempt_1/part-0", True),
        (".hive-staging_hive_2024/-ext-10000/000000_0", True),
        ("_tmp.000000_0", True),
        ("000000_0._COPYING_", True),  # hadoop fs -put before its rename: Hive would read it
        (".spark-staging-123/part-0", True),
        ("part-0.inprogress.abc", True),
        ("000000_0", False),
        ("_SUCCESS", False),
    ],
)
def test_writes_under_way_are_named(path: str, writing: bool) -> None:
    assert in_progress(path) is writing


def test_follow_state_keeps_the_last_pass_and_prunes(tmp_path: Path) -> None:
    state = FollowState(tmp_path / "journal.sqlite")
    seen = {"dt=a": Seen("f1", "l1", ("a",), 5.0), "dt=b": Seen("f2", "l2", (None,), 0.0)}
    number = state.settle(
        "db.t", "db.t_lake", seen, schema="s1", cursor=7, started_at=1.0, status="in-step",
        summary={"in_step": True, "lag_seconds": 0.0, "behind": {}},
    )  # fmt: skip
    assert number == 1 and state.seen("db.t") == seen
    assert state.table("db.t") is not None and state.table("db.t").cursor == 7  # type: ignore[union-attr]
    state.settle(
        "db.t", "db.t_lake", {}, schema="s2", cursor=9, started_at=2.0, status="behind",
        summary={"in_step": False, "lag_seconds": 12.5, "behind": {"dt=c": "why"}},
    )  # fmt: skip
    assert state.seen("db.t") == {}
    summary = state.summary("db.t")
    assert summary is not None and summary["passes"] == 2 and summary["behind"] == 1
    assert [p["pass"] for p in summary["recent"]] == [1, 2] and not summary["in_step"]
    state.forget("db.t")
    assert state.table("db.t") is None and state.summary("db.t") is None
    state.close()


def test_a_metastore_lost_by_another_client_is_told_from_other_failures() -> None:
    from thrift.transport.TTransport import TTransportException

    from lakeshift.errors import EXIT_ENVIRONMENT
    from lakeshift.follow.loop import _transient
    from lakeshift.metastore.client import lost_metastore

    try:
        try:
            raise TTransportException(message="TSocket read 0 bytes")
        except TTransportException as inner:
            raise RuntimeError("pyiceberg could not load the table") from inner
    except RuntimeError as outer:
        lost = lost_metastore(outer)
    assert lost is not None and "TSocket read 0 bytes" in lost.message
    assert lost.exit_code == EXIT_ENVIRONMENT
    java = Exception("MetaException(message:Could not connect to meta store using any of the URIs)")
    assert _transient(java) is not None
    assert lost_metastore(ValueError("a bad partition value")) is None
    assert _transient(ConnectionRefusedError("py4j gateway")) is None  # not the metastore's


def test_only_a_store_that_did_not_answer_fails_the_pass_before_it_acts() -> None:
    from lakeshift.follow.passes import _refuse_unlisted
    from lakeshift.inspect.model import Anomaly
    from lakeshift.storage.store import StorageUnavailable

    def unlisted(name: str, why: str) -> PartitionInfo:
        found = Anomaly("unreadable-directory", "error", f"cannot list s3://b/t/{name}: {why}", "")
        return partition(name, anomalies=(found,))

    down = "listing s3://b/t/dt=1/: Could not connect to the endpoint URL: http://127.0.0.1:9"
    with pytest.raises(StorageUnavailable, match="did not list 1 partition"):
        _refuse_unlisted(inventory(unlisted("dt=1", down), partition("dt=2")))
    throttled = "AWS Error SlowDown listing s3://b/t/dt=1/: Please reduce your request rate"
    with pytest.raises(StorageUnavailable):
        _refuse_unlisted(inventory(unlisted("dt=1", throttled)))
    # Errors a person fixes stay the partition's own (served from Hive): follow goes on.
    for why in ("permission denied: AWS Error AccessDenied", "bucket 'b' does not exist"):
        _refuse_unlisted(inventory(unlisted("dt=1", why), partition("dt=2")))

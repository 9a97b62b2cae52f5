from __future__ import annotations

import sqlite3
from pathlib import Path

from lakeshift.migrate.journal import Journal


def test_journal_from_an_earlier_version_gains_new_columns(tmp_path: Path) -> None:
    path = tmp_path / "journal.sqlite"
    with sqlite3.connect(path) as db:  # the routes table as first released, without `legacy`
        db.execute(
            "CREATE TABLE routes (source TEXT PRIMARY KEY, view TEXT NOT NULL, target "
            "TEXT NOT NULL, switched TEXT NOT NULL, pending TEXT, cutover TEXT, "
            "updated_at REAL NOT NULL)"
        )
    journal = Journal(path)
    journal.set_route(
        "db.t",
        "db.v",
        "db.t_ice",
        switched=["p=1"],
        pending=None,
        cutover="done",
        legacy="db.t_old",
    )
    route = journal.route("db.t")
    # The cutover's time (added later still): set when the cutover is recorded as done.
    assert route is not None and route.pop("cutover_at") and route.pop("updated_at")
    assert route == {
        "view": "db.v",
        "target": "db.t_ice",
        "switched": ["p=1"],
        "pending": None,
        "cutover": "done",
        "legacy": "db.t_old",
    }


def test_record_many_writes_every_partition_and_event_in_one_transaction(tmp_path: Path) -> None:
    from lakeshift.migrate.journal import BACKFILLED, FAILED, PartitionEntry

    journal = Journal(tmp_path / "journal.sqlite")
    journal.record("db.t", "p=0", "db.t_ice", FAILED, fingerprint="f0", error="boom")
    entries = [
        PartitionEntry("db.t", f"p={i}", "db.t_ice", BACKFILLED, f"f{i}", i * 10, {"batch": "b"})
        for i in range(3)
    ]
    journal.record_many(entries)
    records = journal.partitions("db.t")
    assert sorted(records) == ["p=0", "p=1", "p=2"]
    assert records["p=0"].status == BACKFILLED and records["p=0"].error is None  # replaced
    assert [records[f"p={i}"].rows for i in range(3)] == [0, 10, 20]
    assert records["p=2"].checksum == {"batch": "b"}
    with sqlite3.connect(tmp_path / "journal.sqlite") as db:
        events = db.execute("SELECT partition, event FROM events ORDER BY rowid").fetchall()
    assert events == [
        ("p=0", FAILED),
        ("p=0", BACKFILLED),
        ("p=1", BACKFILLED),
        ("p=2", BACKFILLED),
    ]
    # a failing entry leaves none of its batch behind
    bad = [
        PartitionEntry("db.t", "p=9", "db.t_ice", BACKFILLED),
        PartitionEntry(None, "x", "y", "z"),
    ]  # type: ignore[arg-type]
    try:
        journal.record_many(bad)
    except sqlite3.IntegrityError:
        pass
    else:
        raise AssertionError("a NULL source was accepted")
    assert "p=9" not in journal.partitions("db.t")


def test_a_transaction_keeps_all_of_its_writes_or_none(tmp_path: Path) -> None:
    from lakeshift.migrate.journal import BACKFILLED, VALIDATED

    journal = Journal(tmp_path / "journal.sqlite")
    journal.record("db.t", "p=1", "db.t_ice", BACKFILLED)
    with journal.transaction():
        journal.set_status("db.t", "p=1", VALIDATED)
        journal.record("db.t", "p=2", "db.t_ice", BACKFILLED)
    assert {n: r.status for n, r in journal.partitions("db.t").items()} == {
        "p=1": VALIDATED,
        "p=2": BACKFILLED,
    }
    try:
        with journal.transaction():
            journal.set_status("db.t", "p=1", BACKFILLED)
            raise RuntimeError("killed half-way")
    except RuntimeError:
        pass
    assert journal.partitions("db.t")["p=1"].status == VALIDATED  # rolled back
    journal.record("db.t", "p=3", "db.t_ice", BACKFILLED)  # the connection is usable again
    assert "p=3" in journal.partitions("db.t")

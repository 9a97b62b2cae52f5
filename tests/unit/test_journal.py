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

"""What ``follow`` remembers between passes, in the journal's SQLite file.

Per partition: the listing fingerprint and storage-descriptor digest it last saw, the partition
values (to delete it from the lake once Hive drops it) and when it last saw it change; per
table: the schema digest the lake table was last proven at, the metastore notification cursor;
one row per pass with what it did. Everything here can be lost: a pass without it treats every
partition as first seen, which copies nothing twice (migrate compares fingerprints with the
target's commits) and serves nothing unproven (switch checks validations).
"""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lakeshift.errors import StateDirError

_SCHEMA = """
CREATE TABLE IF NOT EXISTS follow_partitions (
  source TEXT NOT NULL, partition TEXT NOT NULL, fingerprint TEXT NOT NULL,
  layout TEXT NOT NULL, partition_values TEXT NOT NULL, changed_at REAL NOT NULL,
  PRIMARY KEY (source, partition));
CREATE TABLE IF NOT EXISTS follow_tables (
  source TEXT PRIMARY KEY, target TEXT NOT NULL, schema TEXT, cursor INTEGER,
  passes INTEGER NOT NULL DEFAULT 0, updated_at REAL NOT NULL);
CREATE TABLE IF NOT EXISTS follow_passes (
  source TEXT NOT NULL, pass INTEGER NOT NULL, started_at REAL NOT NULL,
  finished_at REAL NOT NULL, status TEXT NOT NULL, summary TEXT NOT NULL,
  PRIMARY KEY (source, pass));
"""

#: Passes kept per table (older ones are pruned: a table followed for weeks at one pass a
#: minute would otherwise hold tens of thousands).
KEPT_PASSES = 1_000


@dataclass(frozen=True)
class Seen:
    """A partition as the last pass saw it."""

    fingerprint: str
    layout: str
    values: tuple[str | None, ...]
    changed_at: float  # when a pass last saw it differ from the pass before (0: never)


@dataclass(frozen=True)
class TableState:
    target: str
    schema: str | None  # digest of the columns the lake table was last proven at
    cursor: int | None  # the metastore notification log's last event id read
    passes: int


class FollowState:
    """Open the follow tables in the journal file at ``path``."""

    def __init__(self, path: Path) -> None:
        try:
            self._db = sqlite3.connect(
                str(path), timeout=30, isolation_level=None, check_same_thread=False
            )
            self._db.execute("PRAGMA journal_mode=WAL")
            self._db.executescript(_SCHEMA)
        except sqlite3.Error as e:
            raise StateDirError(
                f"cannot open the journal {path}: {e}",
                hint="Check that the state directory is writable.",
            ) from e

    def close(self) -> None:
        self._db.close()

    def table(self, source: str) -> TableState | None:
        row = self._db.execute(
            "SELECT target, schema, cursor, passes FROM follow_tables WHERE source=?", (source,)
        ).fetchone()
        return TableState(*row) if row else None

    def seen(self, source: str) -> dict[str, Seen]:
        rows = self._db.execute(
            "SELECT partition, fingerprint, layout, partition_values, changed_at "
            "FROM follow_partitions WHERE source=?",
            (source,),
        )
        return {
            name: Seen(fp, layout, tuple(json.loads(values)), changed)
            for name, fp, layout, values, changed in rows
        }

    def settle(
        self,
        source: str,
        target: str,
        seen: dict[str, Seen],
        *,
        schema: str | None,
        cursor: int | None,
        started_at: float,
        status: str,
        summary: dict[str, Any],
    ) -> int:
        """Record a finished pass: the partitions it saw (replacing the last pass's), the
        table's schema and cursor, and the pass itself, in one transaction. Returns the
        pass's number."""
        now = time.time()
        self._db.execute("BEGIN IMMEDIATE")
        try:
            row = self._db.execute(
                "SELECT passes FROM follow_tables WHERE source=?", (source,)
            ).fetchone()
            number = (row[0] if row else 0) + 1
            self._db.execute(
                "INSERT OR REPLACE INTO follow_tables VALUES (?,?,?,?,?,?)",
                (source, target, schema, cursor, number, now),
            )
            self._db.execute("DELETE FROM follow_partitions WHERE source=?", (source,))
            self._db.executemany(
                "INSERT INTO follow_partitions VALUES (?,?,?,?,?,?)",
                _rows(source, seen.items()),
            )
            self._db.execute(
                "INSERT INTO follow_passes VALUES (?,?,?,?,?,?)",
                (source, number, started_at, now, status, json.dumps(summary, default=str)),
            )
            self._db.execute(
                "DELETE FROM follow_passes WHERE source=? AND pass<=?",
                (source, number - KEPT_PASSES),
            )
            self._db.execute("COMMIT")
        except BaseException:
            self._db.execute("ROLLBACK")
            raise
        return number

    def passes(self, source: str, limit: int = 20) -> list[dict[str, Any]]:
        """The latest passes, newest first."""
        rows = self._db.execute(
            "SELECT pass, started_at, finished_at, status, summary FROM follow_passes "
            "WHERE source=? ORDER BY pass DESC LIMIT ?",
            (source, limit),
        )
        return [
            {
                **json.loads(summary),
                "pass": number,
                "started_at": started,
                "finished_at": finished,
                "status": status,
            }
            for number, started, finished, status, summary in rows
        ]

    def summary(self, source: str, recent: int = 20) -> dict[str, Any] | None:
        """What ``status``, JSON output and the report show of a followed table: passes,
        the last pass's lag and what is behind, and the recent passes (oldest first)."""
        table = self.table(source)
        if table is None:
            return None
        passes = self.passes(source, limit=recent)
        last = passes[0] if passes else {}
        return {
            "passes": table.passes,
            "last_pass_at": last.get("finished_at"),
            "in_step": bool(last.get("in_step")),
            "lag_seconds": last.get("lag_seconds", 0.0),
            "behind": len(last.get("behind") or {}),
            "stale_seconds_max": max((p.get("stale_seconds") or 0.0 for p in passes), default=0.0),
            "recent": [_brief(p) for p in reversed(passes)],
        }

    def forget(self, source: str) -> None:
        """Drop what follow knows of ``source`` (a new migration starts from nothing)."""
        with self._db:
            for table in ("follow_partitions", "follow_tables", "follow_passes"):
                self._db.execute(f"DELETE FROM {table} WHERE source=?", (source,))


def _rows(
    source: str, seen: Iterable[tuple[str, Seen]]
) -> Iterable[tuple[str, str, str, str, str, float]]:
    for name, s in seen:
        yield source, name, s.fingerprint, s.layout, json.dumps(list(s.values)), s.changed_at


def _brief(entry: dict[str, Any]) -> dict[str, Any]:
    """One pass as ``status`` lists it."""
    changes = entry.get("changes") or {}
    return {
        "pass": entry["pass"],
        "finished_at": entry["finished_at"],
        "seconds": entry.get("seconds"),
        "added": len(changes.get("added") or ()),
        "changed": len(changes.get("changed") or ()),
        "dropped": len(changes.get("dropped") or ()),
        "schema_changed": bool(changes.get("schema_changed")),
        "withdrawn": len(entry.get("withdrawn") or ()),
        "backfilled": len(entry.get("backfilled") or ()),
        "switched": len(entry.get("switched") or ()),
        "behind": len(entry.get("behind") or {}),
        "lag_seconds": entry.get("lag_seconds", 0.0),
        "stale_seconds": entry.get("stale_seconds", 0.0),
    }

"""The metastore's notification log, read from a cursor: the cheapest change signal.

A Hive Metastore with ``DbNotificationListener`` among its listeners writes an event for every
partition added, altered or dropped, every ``INSERT`` and every ``ALTER TABLE``. ``follow``
reads the events after its cursor at each pass and reports them per table. They never replace
the listing: writers that drop files into a directory without telling the metastore (upload
pipelines) leave no event. A cursor older than the oldest event the server still keeps
(entries expire after ``hive.metastore.event.db.listener.timetolive``) is a gap, reported,
and covered by the pass's full sweep. Glue and servers without the listener keep no log.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field

from lakeshift.metastore.catalog import CatalogClient

log = logging.getLogger(__name__)
PAGE = 1_000  # events per request
MAX_PAGES = 100  # per pass: a backlog past that is read on by the next pass


@dataclass(frozen=True)
class EventsRead:
    """What one pass read from the log.

    Attributes:
        kept: the catalog keeps a notification log.
        cursor: the last event id read (the next pass reads after it).
        gap: events between the cursor and the oldest one kept were lost (expired, or the
            log was reset); the pass's sweep covers them.
        by_type: this table's events since the cursor, counted by type.
        requests: calls made.
    """

    kept: bool
    cursor: int | None
    gap: bool = False
    by_type: dict[str, int] = field(default_factory=dict)
    requests: int = 0

    def to_json(self) -> dict[str, object]:
        return {
            "kept": self.kept,
            "cursor": self.cursor,
            "gap": self.gap,
            "events": dict(self.by_type),
            "requests": self.requests,
        }


def read_events(client: CatalogClient, db: str, table: str, cursor: int | None) -> EventsRead:
    """Events of ``db.table`` after ``cursor`` (None: start at the log's current end)."""
    first = client.notifications(cursor or 0, 1 if cursor is None else PAGE)
    if first is None:
        return EventsRead(kept=False, cursor=None, requests=1)
    if cursor is None:  # the first pass sweeps everything: only the position matters
        return EventsRead(kept=True, cursor=first.current_id, requests=2)
    by_type: dict[str, int] = {}
    requests, batch = 2, first
    reset = cursor > first.current_id  # the log was reset under the cursor
    last = first.current_id if reset else cursor
    gap = reset
    if batch.events and batch.events[0].event_id > cursor + 1:
        gap = True  # the events just after the cursor expired
    for page in range(MAX_PAGES):
        for event in batch.events:
            last = max(last, event.event_id)
            if (event.database or "").lower() == db and (event.table or "").lower() == table:
                by_type[event.event_type] = by_type.get(event.event_type, 0) + 1
        if len(batch.events) < PAGE or page == MAX_PAGES - 1:
            break
        following = client.notifications(last, PAGE)
        requests += 2
        if following is None:
            break
        batch = following
    if gap:
        log.warning(
            "the notification log of %s no longer holds the events after %s: this pass "
            "sweeps every partition",
            client.uri,
            cursor,
        )
    return EventsRead(kept=True, cursor=last, gap=gap, by_type=by_type, requests=requests)

"""The Hudi timeline: instants, their states and their content, for table versions 6 and 8.

An action moves through ``<t>.<action>.requested`` → ``<t>.<action>.inflight`` (for
``commit`` just ``<t>.inflight``) → completed; only the completed file makes it visible, so it
is written last and atomically, after every base file is in place. A requested or inflight
instant without its completed file is a crashed write that the next writer rolls back (its
files are never read: readers only take file slices of completed instants).

Version 6 keeps the instants in ``.hoodie``, names a completed one ``<t>.<action>`` and writes
commits as JSON. Version 8 (timeline layout 2) keeps them in ``.hoodie/timeline``, names a
completed one ``<t>_<completion time>.<action>``, writes commits as Avro and plans clustering
as a ``clustering`` action that completes as a ``replacecommit``.
"""

from __future__ import annotations

import json
import posixpath
import re
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from lakeshift.errors import LeaseHeld
from lakeshift.formats.hudi import instant_schemas
from lakeshift.formats.hudi.properties import HOODIE, Location, layout_of
from lakeshift.storage import Store

_INSTANT = re.compile(r"^(\d{17})(?:_(\d{17}))?\.(.+)$")
#: One empty file per instant lakeshift started, written before the instant's first file: a
#: requested instant is empty, so only this says whose a pending (or a clean) instant is.
OWN_INSTANTS = f"{HOODIE}/.lakeshift/instants"
COMMIT, REPLACE, CLEAN, CLUSTERING = "commit", "replacecommit", "clean", "clustering"
REQUESTED, INFLIGHT, COMPLETED = "requested", "inflight", "completed"
_COMPLETED_ACTIONS = (COMMIT, REPLACE, CLEAN, "deltacommit", "rollback", "savepoint")


@dataclass(frozen=True)
class Instant:
    time: str
    action: str
    state: str
    #: When it completed (version 8 names completed instants with it), else None.
    completion: str | None = field(default=None, compare=False)


def _parse(name: str) -> Instant | None:
    match = _INSTANT.match(name)
    if not match:
        return None
    stamp, completion, rest = match.groups()
    if completion is not None:
        return Instant(stamp, rest, COMPLETED, completion) if rest in _COMPLETED_ACTIONS else None
    if rest == "inflight":
        return Instant(stamp, COMMIT, INFLIGHT)
    for suffix, state in ((".requested", REQUESTED), (".inflight", INFLIGHT)):
        if rest.endswith(suffix):
            return Instant(stamp, rest[: -len(suffix)], state)
    if rest in _COMPLETED_ACTIONS:
        return Instant(stamp, rest, COMPLETED)
    return None


def jackson_json(value: Any) -> bytes:
    """JSON spelled the way Hudi's Jackson pretty printer spells it (readers only parse it)."""
    return json.dumps(value, indent=2, separators=(",", " : ")).encode()


class Timeline:
    """The instants of one table (``base`` is the table's root directory); its layout is read
    from the table's ``hoodie.properties``. ``own``: the instants this timeline starts are
    marked lakeshift's (``OWN_INSTANTS``)."""

    def __init__(self, base: Location, *, own: bool = False) -> None:
        self.own = own
        self.base = Store.of(base)
        self.hoodie = self.base.child(HOODIE)
        self.version, timeline_path = layout_of(self.hoodie)
        #: The timeline directory, relative to the table's root.
        self.directory = f"{HOODIE}/{timeline_path}" if timeline_path else HOODIE

    @property
    def avro(self) -> bool:
        """Whether commits are Avro (table version 8 and later) rather than JSON."""
        return self.version >= 8

    @property
    def clustering_action(self) -> str:
        """The action a pending clustering carries (it always completes as a replacecommit)."""
        return CLUSTERING if self.version >= 8 else REPLACE

    def _instants(self) -> list[Instant]:
        found = [_parse(f.name) for f in self.base.list_files(self.directory, recursive=False)]
        return sorted((i for i in found if i), key=lambda i: (i.time, i.state != COMPLETED))

    def completed(self, actions: set[str] | None = None) -> list[Instant]:
        """Completed instants, oldest (by instant time) first."""
        return [
            i
            for i in self._instants()
            if i.state == COMPLETED and (actions is None or i.action in actions)
        ]

    def instants(self) -> list[Instant]:
        """Every instant file, oldest (by instant time) first."""
        return self._instants()

    def own_times(self) -> set[str]:
        """Times of the instants lakeshift started (marked when it started them)."""
        return {f.name for f in self.base.list_files(OWN_INSTANTS, recursive=False)}

    def mark_own(self, instant_time: str) -> None:
        """Record ``instant_time`` as an instant lakeshift started."""
        self.base.write(f"{OWN_INSTANTS}/{instant_time}", b"")

    def pending(self) -> list[Instant]:
        """Requested or inflight instants that never completed (an instant time names one
        action: a clustering completes as a replacecommit)."""
        done = {i.time for i in self.completed()}
        pending: dict[str, Instant] = {}
        for instant in self._instants():
            if instant.state != COMPLETED and instant.time not in done:
                pending[instant.time] = instant
        return list(pending.values())

    def new_instant_time(self) -> str:
        """A 17-digit UTC time (``yyyyMMddHHmmssSSS``) later than every instant and completion
        time here: new instants and completions both take one."""
        latest = max(
            (t for i in self._instants() for t in (i.time, i.completion) if t), default="0"
        )
        while True:
            now = datetime.now(timezone.utc).strftime("%Y%m%d%H%M%S%f")[:17]
            if now > latest:
                return now
            time.sleep(0.002)

    def _file(self, instant: Instant) -> str:
        """The instant's file, relative to the table's root."""
        if instant.state == COMPLETED:
            if instant.completion:
                name = f"{instant.time}_{instant.completion}.{instant.action}"
            else:
                name = f"{instant.time}.{instant.action}"
        elif instant.state == INFLIGHT and instant.action == COMMIT:
            name = f"{instant.time}.inflight"
        else:
            name = f"{instant.time}.{instant.action}.{instant.state}"
        return f"{self.directory}/{name}"

    def _write(self, instant: Instant, payload: bytes) -> None:
        """Write an instant's file. A completed one is created once (the store's put-if-absent:
        no writer's completion replaces another's, and none is ever seen half-written);
        requested and inflight files are replaced whole."""
        path = self._file(instant)
        if instant.state == REQUESTED and self.own:
            self.mark_own(instant.time)  # before the instant exists: never one unmarked
        if instant.state != COMPLETED:
            self.base.write(path, payload)
        elif not self.base.create(path, payload):
            raise LeaseHeld(
                f"Hudi instant {path} of {self.base} already exists: another writer completed "
                "the same instant.",
                hint="Make sure no other job writes to the table, then re-run the command.",
            )

    def _encode(self, action: str, metadata: Any) -> bytes:
        if self.avro:
            return instant_schemas.avro_commit(metadata, replace=action == REPLACE)
        return jackson_json(metadata)

    def write_requested(self, instant_time: str, action: str, payload: bytes = b"") -> None:
        self._write(Instant(instant_time, action, REQUESTED), payload)

    def write_inflight(self, instant_time: str, action: str, metadata: Any = None) -> None:
        """The inflight file: in version 6 empty or the given JSON, in version 8 a commit's
        Avro record (no write stats yet) for commits and replacecommits, empty otherwise."""
        if self.avro and action in (COMMIT, REPLACE):
            body = self._encode(COMMIT, metadata or {})  # Hudi writes it as a plain commit
        else:
            body = b"" if metadata is None else jackson_json(metadata)
        self._write(Instant(instant_time, action, INFLIGHT), body)

    def write_completed(self, instant_time: str, action: str, metadata: Any) -> Instant:
        """Complete a commit or replacecommit: the one write that makes it visible."""
        return self.write_state(instant_time, action, COMPLETED, self._encode(action, metadata))

    def write_state(self, instant_time: str, action: str, state: str, payload: bytes) -> Instant:
        """Write one state's file with a ready payload (e.g. an Avro clean plan); completing
        takes a completion time in version 8."""
        completion = self.new_instant_time() if state == COMPLETED and self.avro else None
        instant = Instant(instant_time, action, state, completion)
        self._write(instant, payload)
        return instant

    def completion_time(self, instant: Instant) -> str:
        """When a completed instant completed: its name says so from version 8; before, Hudi
        takes the completed file's modification time (as an instant time, UTC here)."""
        if instant.completion:
            return instant.completion
        found = self.base.info(self._file(instant))
        stamp = found.mtime_ns / 1e9 if found else time.time()
        modified = datetime.fromtimestamp(stamp, timezone.utc)
        return modified.strftime("%Y%m%d%H%M%S%f")[:17]

    def metadata(self, instant: Instant) -> dict[str, Any]:
        """An instant's content: JSON or an Avro container's first record."""
        text = self.base.read_bytes(self._file(instant))
        if text.startswith(b"Obj\x01"):
            import io

            import fastavro

            records: list[Any] = list(fastavro.reader(io.BytesIO(text)))
            return dict(records[0]) if records else {}
        return json.loads(text) if text.strip() else {}

    def remove_pending(self, instant: Instant) -> None:
        """Forget a crashed instant: its requested/inflight files and its markers."""
        for state in (INFLIGHT, REQUESTED):
            self.base.delete(self._file(Instant(instant.time, instant.action, state)))
        self.base.delete_dir(marker_dir(instant.time))
        if self.own:
            self.base.delete(f"{OWN_INSTANTS}/{instant.time}")


def marker_dir(instant_time: str) -> str:
    """Where a write's markers go, relative to the table's root."""
    return f"{HOODIE}/.temp/{instant_time}"


def write_marker(base: Store, instant_time: str, partition: str, name: str) -> None:
    """``.hoodie/.temp/<t>/<partition>/<name>`` (Hudi's direct markers, e.g.
    ``<file>.marker.CREATE``), so Hudi's own rollback can find a crashed write's files too."""
    base.write(posixpath.join(marker_dir(instant_time), partition, name), b"")

"""The Hudi timeline under ``.hoodie`` (table version 6): instants, their states, their JSON.

An action moves through ``<t>.<action>.requested`` → ``<t>.<action>.inflight`` (for
``commit`` just ``<t>.inflight``) → ``<t>.<action>``; only the completed file makes it visible,
so it is written last and atomically, after every base file is in place. A requested or
inflight instant without its completed file is a crashed write that the next writer rolls
back (its files are never read: readers only take file slices of completed instants).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from lakeshift.formats.hudi.properties import HOODIE

_INSTANT = re.compile(r"^(\d{17})\.(.+)$")
COMMIT, REPLACE, CLEAN = "commit", "replacecommit", "clean"
REQUESTED, INFLIGHT, COMPLETED = "requested", "inflight", "completed"


@dataclass(frozen=True)
class Instant:
    time: str
    action: str
    state: str


def _parse(name: str) -> Instant | None:
    match = _INSTANT.match(name)
    if not match:
        return None
    stamp, rest = match.groups()
    if rest == "inflight":
        return Instant(stamp, COMMIT, INFLIGHT)
    for suffix, state in ((".requested", REQUESTED), (".inflight", INFLIGHT)):
        if rest.endswith(suffix):
            return Instant(stamp, rest[: -len(suffix)], state)
    if rest in (COMMIT, REPLACE, CLEAN, "deltacommit", "rollback", "savepoint"):
        return Instant(stamp, rest, COMPLETED)
    return None


def jackson_json(value: Any) -> bytes:
    """JSON spelled the way Hudi's Jackson pretty printer spells it (readers only parse it)."""
    return json.dumps(value, indent=2, separators=(",", " : ")).encode()


class Timeline:
    """The instants of one table (``base`` is the table's root directory)."""

    def __init__(self, base: Path) -> None:
        self.base = base
        self.hoodie = base / HOODIE

    def _instants(self) -> list[Instant]:
        if not self.hoodie.is_dir():
            return []
        found = [_parse(p.name) for p in self.hoodie.iterdir() if p.is_file()]
        return sorted((i for i in found if i), key=lambda i: (i.time, i.state != COMPLETED))

    def completed(self, actions: set[str] | None = None) -> list[Instant]:
        """Completed instants, oldest first."""
        return [
            i
            for i in self._instants()
            if i.state == COMPLETED and (actions is None or i.action in actions)
        ]

    def pending(self) -> list[Instant]:
        """Requested or inflight instants that never completed."""
        done = {(i.time, i.action) for i in self.completed()}
        pending: dict[tuple[str, str], Instant] = {}
        for instant in self._instants():
            if instant.state != COMPLETED and (instant.time, instant.action) not in done:
                pending[(instant.time, instant.action)] = instant
        return list(pending.values())

    def new_instant_time(self) -> str:
        """A 17-digit UTC instant (``yyyyMMddHHmmssSSS``) later than every instant here."""
        latest = max((i.time for i in self._instants()), default="0")
        while True:
            now = datetime.now(timezone.utc).strftime("%Y%m%d%H%M%S%f")[:17]
            if now > latest:
                return now
            time.sleep(0.002)

    def _file(self, instant_time: str, action: str, state: str) -> Path:
        if state == COMPLETED:
            return self.hoodie / f"{instant_time}.{action}"
        if state == INFLIGHT and action == COMMIT:
            return self.hoodie / f"{instant_time}.inflight"
        return self.hoodie / f"{instant_time}.{action}.{state}"

    def _write(self, path: Path, payload: bytes) -> None:
        partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
        partial.write_bytes(payload)
        os.replace(partial, path)

    def write_requested(self, instant_time: str, action: str, payload: bytes = b"") -> None:
        self._write(self._file(instant_time, action, REQUESTED), payload)

    def write_inflight(self, instant_time: str, action: str, metadata: Any = None) -> None:
        body = b"" if metadata is None else jackson_json(metadata)
        self._write(self._file(instant_time, action, INFLIGHT), body)

    def write_completed(self, instant_time: str, action: str, metadata: Any) -> Instant:
        """Complete an instant: the one write that makes it visible."""
        self._write(self._file(instant_time, action, COMPLETED), jackson_json(metadata))
        return Instant(instant_time, action, COMPLETED)

    def write_state(self, instant_time: str, action: str, state: str, payload: bytes) -> None:
        """Write one state's file with a ready payload (e.g. an Avro clean plan)."""
        self._write(self._file(instant_time, action, state), payload)

    def metadata(self, instant: Instant) -> dict[str, Any]:
        """An instant's content: JSON (commits) or an Avro container's first record (cleans)."""
        path = self._file(instant.time, instant.action, instant.state)
        text = path.read_bytes()
        if text.startswith(b"Obj\x01"):
            import io

            import fastavro

            records: list[Any] = list(fastavro.reader(io.BytesIO(text)))
            return dict(records[0]) if records else {}
        return json.loads(text) if text.strip() else {}

    def remove_pending(self, instant: Instant) -> None:
        """Forget a crashed instant: its requested/inflight files and its markers."""
        for state in (INFLIGHT, REQUESTED):
            self._file(instant.time, instant.action, state).unlink(missing_ok=True)
        shutil.rmtree(self.marker_dir(instant.time), ignore_errors=True)

    def marker_dir(self, instant_time: str) -> Path:
        return self.hoodie / ".temp" / instant_time

    def write_marker(self, instant_time: str, partition: str, file_name: str) -> None:
        """``.hoodie/.temp/<t>/<partition>/<file>.marker.CREATE`` (Hudi's direct markers),
        so Hudi's own rollback can find a crashed write's files too."""
        directory = self.marker_dir(instant_time) / partition
        directory.mkdir(parents=True, exist_ok=True)
        (directory / f"{file_name}.marker.CREATE").touch()

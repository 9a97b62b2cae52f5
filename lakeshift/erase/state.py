"""An erasure's progress, kept under ``HOME/erasures/<id>/`` so any step can be resumed.

The state holds record keys (generated UUIDs), partition names and counts; the values the audit
searches for are kept in their own file, next to it, and deleted once the audit passed.
"""

from __future__ import annotations

import json
import os
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

PLANNED, DELETED, PURGED, AUDITED = "planned", "deleted", "purged", "audited"


@dataclass(frozen=True)
class ErasureState:
    """Where an erasure stands; written atomically after every step."""

    erase_id: str
    source: str
    lake_table: str
    format: str
    selector: str  # the predicate, or "keys from FILE"
    step: str
    matched: dict[str, int]
    hive_matching: dict[str, int | None] = field(default_factory=dict)
    commit_id: int | None = None
    purged: list[str] = field(default_factory=list)
    audit: dict[str, Any] = field(default_factory=dict)
    #: Matched rows without a record key, deleted by the predicate itself (``delete_rows``).
    keyless: int = 0
    #: Files outside the lake table's location (the Hive source's, adopted) that held matched
    #: rows -> how many: the lake table stops referencing them; the rows remain in them.
    legacy_files: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def advance(self, step: str, **changes: Any) -> ErasureState:
        return replace(self, step=step, **changes)

    def to_json(self) -> dict[str, Any]:
        return asdict(self)


def erasure_dir(home: Path, erase_id: str) -> Path:
    return home / "erasures" / erase_id


def save(home: Path, state: ErasureState) -> None:
    _write(erasure_dir(home, state.erase_id) / "state.json", state.to_json())


def save_targets(home: Path, erase_id: str, keys: list[str], values: list[str]) -> None:
    """The record keys to delete and the values the audit must not find anywhere."""
    _write(erasure_dir(home, erase_id) / "targets.json", {"keys": keys, "values": values})


def load_targets(home: Path, erase_id: str) -> tuple[list[str], list[str]]:
    data = json.loads((erasure_dir(home, erase_id) / "targets.json").read_text())
    return list(data["keys"]), list(data["values"])


def forget_values(home: Path, erase_id: str) -> None:
    """After a passed audit, keep only the keys (random UUIDs), not the erased values."""
    keys, _ = load_targets(home, erase_id)
    save_targets(home, erase_id, keys, [])


def unfinished(home: Path, source: str, selector: str) -> ErasureState | None:
    """An erasure of the same rows of ``source`` that stopped before its audit."""
    root = home / "erasures"
    if not root.exists():
        return None
    for path in sorted(root.glob("*/state.json"), reverse=True):
        data = json.loads(path.read_text())
        if data["source"] == source and data["selector"] == selector and data["step"] != AUDITED:
            return ErasureState(**data)
    return None


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, indent=1, ensure_ascii=False, default=str))
    os.replace(temporary, path)

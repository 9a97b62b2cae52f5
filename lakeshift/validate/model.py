"""Validation results: one record per partition, one report per table."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

from lakeshift.inspect.archived import SkippedArchive, skipped_totals
from lakeshift.validate.canonical import Fingerprint

EQUAL = "equal"
MISMATCH = "mismatch"
STALE = "stale"  # the source changed since the backfill: never reported as equal
MISSING = "missing"  # source rows, no target rows / never backfilled
EXTRA = "extra"  # target partition with no source partition
NOT_MIGRATED = "not-migrated"  # refused by the inspector
NOT_PROVEN = "not-proven"  # a reader could not read the source (independent; timestamp count)
# independent: + a second reader (Arrow, in Spark tasks) that must agree with both sides
LEVELS = ("count", "checksum", "deep", "independent")


@dataclass(frozen=True)
class RowDiff:
    """Rows found on one side only (a sample), rendered as dicts."""

    only_in_source: list[dict[str, Any]]
    only_in_target: list[dict[str, Any]]
    differing_buckets: list[int]


@dataclass(frozen=True)
class PartitionValidation:
    partition: str
    status: str
    level: str
    source_rows: int | None
    target_rows: int | None
    source_fingerprint: str | None = None
    source_checksum: Fingerprint | None = None
    target_checksum: Fingerprint | None = None
    source_rescanned: bool = False
    detail: str = ""
    diff: RowDiff | None = None
    # column -> source values Hive's type conversions read as NULL (so the target holds NULL)
    nulled: dict[str, int] = field(default_factory=dict)
    # column -> source strings cut to a VARCHAR/CHAR width (as Hive shows them)
    truncated: dict[str, int] = field(default_factory=dict)
    # level independent: the second reader's fingerprint, and which opinions agree
    independent_checksum: Fingerprint | None = None
    agree: tuple[str, ...] = ()

    @property
    def ok(self) -> bool:
        return self.status == EQUAL


@dataclass(frozen=True)
class ValidationReport:
    source: str
    target: str
    level: str
    partitions: tuple[PartitionValidation, ...]
    table_problems: tuple[str, ...] = field(default=())
    seconds: float = 0.0
    independent_seconds: float | None = None  # the independent reader's share (its cost)
    #: archived objects left out of the source (``archived_objects = "skip"``): the source
    #: is compared without them, as it was migrated
    archived_skipped: tuple[SkippedArchive, ...] = ()

    @property
    def ok(self) -> bool:
        """Every partition equal: a partition held back from the migration is not ok either."""
        return not self.table_problems and all(p.ok for p in self.partitions)

    @property
    def differences(self) -> list[str]:
        """Partitions whose target differs from the source (mismatch, stale, missing, extra)."""
        return [
            p.partition
            for p in self.partitions
            if not p.ok and p.status not in (NOT_MIGRATED, NOT_PROVEN)
        ]

    def count(self, status: str) -> int:
        return sum(1 for p in self.partitions if p.status == status)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["ok"] = self.ok
        data["totals"] = {
            s: self.count(s)
            for s in (EQUAL, MISMATCH, STALE, MISSING, EXTRA, NOT_MIGRATED, NOT_PROVEN)
        }
        data["archived_skipped_totals"] = skipped_totals(self.archived_skipped)
        return data

"""The migration plan (dry run): what would be backfilled, in which batches (pure logic)."""

from __future__ import annotations

import math
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from lakeshift.errors import NotFound
from lakeshift.formats.base import Backfilled
from lakeshift.inspect.archived import (
    SkippedArchive,
    skipped_archives,
    skipped_note,
    skipped_totals,
)
from lakeshift.inspect.model import TableInventory
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.migrate.adoption import AdoptionDecision
from lakeshift.migrate.batching import (
    DEFAULT_BATCH_FILES,
    DEFAULT_BATCH_PARTITIONS,
    Batch,
    BatchLimits,
    make_batches,
)
from lakeshift.schema_map.model import FieldMapping

NEW, CHANGED, UNCHANGED, REFUSED = "new", "changed", "unchanged", "refused"
TARGET_FILE_BYTES = 128 * 1024 * 1024


@dataclass(frozen=True, slots=True)  # one per partition: 100,000 and more in a plan
class PartitionPlan:
    name: str
    state: str  # new | changed | unchanged | refused
    rows: int
    bytes: int
    files: int
    fingerprint: str
    reason: str = ""

    @property
    def to_backfill(self) -> bool:
        return self.state in (NEW, CHANGED)


def version_notes(inventory: TableInventory, mapping: FieldMapping) -> list[str]:
    """A note naming the partitions and columns other Hive versions show differently, so the
    user chooses ``hive_version`` knowingly."""
    sensitive = [
        (p.name, a.details.get("columns", {}))
        for p in inventory.partitions
        for a in p.anomalies
        if a.code == "hive-version-sensitive"
    ]
    if not sensitive:
        return []
    columns = sorted({c for _, found in sensitive for c in found})
    name, first = sensitive[0]
    example = "; ".join(
        f"{column}: " + ", ".join(f"Hive {v} {s}" for v, s in seen.items())
        for column, seen in list(first.items())[:2]
    )
    return [
        f"{len(sensitive)} partition(s) read differently by other Hive versions, in column(s) "
        f"{', '.join(columns[:8])}{' ...' if len(columns) > 8 else ''}: e.g. {name} ({example}). "
        f"Read as {mapping.semantics.label}; set hive_version if your Hive differs."
    ]


@dataclass(frozen=True)
class MigrationPlan:
    source: str
    target: str
    target_exists: bool
    mapping: FieldMapping
    key_mode: str
    partitions: tuple[PartitionPlan, ...]
    batches: tuple[Batch, ...]
    throughput_rows_per_second: float | None
    spark_conf: dict[str, str]
    anomalies: dict[str, int]
    notes: tuple[str, ...] = field(default=())
    format: str = "iceberg"
    #: What the target is or will be (``TargetFormat.describe``).
    target_layout: str = ""
    #: archived objects left out of planned partitions (``archived_objects = "skip"``)
    archived_skipped: tuple[SkippedArchive, ...] = ()
    #: objects Hive does not read, per class (markers, hidden names, empty files)
    skipped_objects: dict[str, int] = field(default_factory=dict)
    #: ``adopt_files``: each partition to back-fill, adopted or copied and why
    adoption: tuple[AdoptionDecision, ...] = ()

    @property
    def adopted(self) -> list[str]:
        return [d.partition for d in self.adoption if d.adopt]

    def count(self, state: str) -> int:
        return sum(1 for p in self.partitions if p.state == state)

    @property
    def rows_to_backfill(self) -> int:
        return sum(p.rows for p in self.partitions if p.to_backfill)

    @property
    def bytes_to_backfill(self) -> int:
        return sum(p.bytes for p in self.partitions if p.to_backfill)

    @property
    def estimated_output_files(self) -> int:
        return sum(
            max(1, math.ceil(p.bytes / TARGET_FILE_BYTES))
            for p in self.partitions
            if p.to_backfill and p.rows
        )

    @property
    def estimated_seconds(self) -> float | None:
        if not self.throughput_rows_per_second:
            return None
        return round(self.rows_to_backfill / self.throughput_rows_per_second, 1)

    def to_json(self) -> dict[str, Any]:
        data = asdict(self)
        data["totals"] = {
            "new": self.count(NEW),
            "changed": self.count(CHANGED),
            "unchanged": self.count(UNCHANGED),
            "refused": self.count(REFUSED),
            "rows_to_backfill": self.rows_to_backfill,
            "bytes_to_backfill": self.bytes_to_backfill,
            "estimated_output_files": self.estimated_output_files,
            "estimated_seconds": self.estimated_seconds,
            "batches": len(self.batches),
        }
        data["archived_skipped_totals"] = skipped_totals(self.archived_skipped)
        data["adoption"] = [d.to_json() for d in self.adoption]
        data["totals"]["adopted"] = len(self.adopted)
        return data


def require_match(inventory: TableInventory, wanted: PartitionFilter) -> None:
    """A partition filter the user gave must match a partition of the table: a typo would
    otherwise plan, migrate or validate nothing and report success."""
    if wanted.terms and not any(wanted.matches(p.name) for p in inventory.partitions):
        examples = ", ".join(p.name for p in inventory.partitions[:3])
        raise NotFound(
            f"the partition filter {','.join(wanted.terms)!r} matches no partition of "
            f"{inventory.database}.{inventory.table}"
            + (f" (its partitions look like {examples})." if examples else "."),
            hint="Filters are globs or key=FROM..TO ranges over partition names "
            '(docs/reference/commands.md, "Partition filters"); `lakeshift inspect TABLE` '
            "lists them.",
        )


def classify(
    inventory: TableInventory,
    backfilled: Mapping[str, Backfilled],
    wanted: PartitionFilter,
    rebackfill: Mapping[str, str] | None = None,
) -> list[PartitionPlan]:
    """new / changed / unchanged by source fingerprint; refused when the inspector says so.

    ``rebackfill`` names unchanged partitions to back-fill again anyway (partition -> why:
    a failed validation, or ``--force``); they are planned as changed.
    """
    require_match(inventory, wanted)
    out = []
    for p in inventory.partitions:
        if not wanted.matches(p.name):
            continue
        errors = [a for a in p.anomalies if a.severity == "error"]
        done = backfilled.get(p.name)
        if errors:
            state, reason = REFUSED, f"{errors[0].code}: {errors[0].message}"
        elif done is None:
            state, reason = NEW, "not in the target yet"
        elif done.fingerprint != p.fingerprint:
            state, reason = CHANGED, "source files changed since the backfill"
        elif rebackfill and p.name in rebackfill:
            state, reason = CHANGED, rebackfill[p.name]
        else:
            state, reason = UNCHANGED, f"backfilled in commit {done.commit_id}"
        out.append(
            PartitionPlan(p.name, state, p.rows, p.bytes, len(p.files), p.fingerprint, reason)
        )
    return out


def build_plan(
    inventory: TableInventory,
    mapping: FieldMapping,
    target: str,
    *,
    target_exists: bool,
    backfilled: Mapping[str, Backfilled],
    wanted: PartitionFilter,
    batch_rows: int,
    batch_bytes: int,
    key_mode: str,
    throughput: float | None,
    spark_conf: dict[str, str],
    format: str = "iceberg",
    target_layout: str = "",
    batch_files: int = DEFAULT_BATCH_FILES,
    batch_partitions: int = DEFAULT_BATCH_PARTITIONS,
    rebackfill: Mapping[str, str] | None = None,
) -> MigrationPlan:
    partitions = classify(inventory, backfilled, wanted, rebackfill)
    limits = BatchLimits(batch_rows, batch_bytes, batch_files, batch_partitions)
    anomalies: dict[str, int] = {}
    for a in inventory.all_anomalies:
        anomalies[a.code] = anomalies.get(a.code, 0) + 1
    notes = version_notes(inventory, mapping)
    planned = {p.name for p in partitions if p.state != REFUSED}
    skipped = skipped_archives(p for p in inventory.partitions if p.name in planned)
    note = skipped_note(skipped)
    if note:
        notes.append(note)
    unread = inventory.skipped_kinds()
    if unread:
        kinds = ", ".join(f"{n:,} {kind}" for kind, n in sorted(unread.items()))
        notes.append(
            f"{sum(unread.values()):,} objects are not read, as Hive does not read them "
            f"({kinds}); `lakeshift inspect` names them per partition."
        )
    if inventory.unregistered_dirs:
        notes.append(
            f"{len(inventory.unregistered_dirs)} unregistered directories are not "
            "migrated (Hive does not show them)."
        )
    return MigrationPlan(
        source=inventory.qualified_name,
        target=target,
        target_exists=target_exists,
        mapping=mapping,
        key_mode=key_mode,
        partitions=tuple(partitions),
        batches=tuple(make_batches([p for p in partitions if p.to_backfill], limits)),
        throughput_rows_per_second=round(throughput, 1) if throughput else None,
        spark_conf=spark_conf,
        anomalies=anomalies,
        notes=tuple(notes),
        format=format,
        target_layout=target_layout,
        archived_skipped=tuple(skipped),
        skipped_objects=unread,
    )

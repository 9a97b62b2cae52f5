"""``adopt_files``: register the partitions that pass ``adoption.decide``, prove them, and hand
back the rest to be copied in the same run.

Order, so that no reader and no re-run can see a partition wrongly held:
1. each batch of adoptable partitions is one replace-partitions commit carrying lakeshift's
   commit record (a kill between commits leaves whole partitions, each with its fingerprint,
   as a copied batch does; a re-run replaces a partition with the same files);
2. the adopted partitions are validated at the independent level (which includes the
   checksum level): Iceberg's reader of the registered files against lakeshift's
   Hive-faithful reader and its independent reader of the same files;
3. a partition that differs is copied over them (``rebackfill``), or, under ``require``, the
   run stops (exit 7) with its files registered but never served (switching needs a proof).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lakeshift import profiling
from lakeshift.errors import RefusedInput
from lakeshift.formats import CommitRecord, TargetFormat
from lakeshift.inspect.model import TableInventory
from lakeshift.migrate.adoption import ADOPT_REQUIRE, AdoptionDecision, decide
from lakeshift.migrate.journal import BACKFILLED, Journal, PartitionEntry
from lakeshift.migrate.planner import MigrationPlan

if TYPE_CHECKING:
    from collections.abc import Callable

log = logging.getLogger(__name__)
#: Adoption commits are numbered from here, apart from the copy batches of the same run.
FIRST_BATCH = 100_000
#: Files per adoption commit (one manifest entry each; the commit reads every footer).
BATCH_FILES = 5_000


@dataclass
class AdoptionOutcome:
    """What ``adopt_files`` did in one run.

    Attributes:
        decisions: every candidate partition's decision (``plan`` shows them).
        proven: adopted and validated equal at both levels.
        differed: adopted, then found to read differently: partition -> the validation's
            words (they are copied, or refused under ``require``).
    """

    decisions: list[AdoptionDecision] = field(default_factory=list)
    proven: list[str] = field(default_factory=list)
    differed: dict[str, str] = field(default_factory=dict)

    @property
    def copied(self) -> dict[str, str]:
        """Partitions copied instead, and why."""
        out = {d.partition: d.reason for d in self.decisions if not d.adopt}
        out.update(
            (name, f"adopted, but Iceberg's reading differed: {why}")
            for name, why in self.differed.items()
        )
        return out

    def to_json(self) -> dict[str, Any]:
        return {"adopted": self.proven, "copied": self.copied}


def plan_adoption(
    fmt: TargetFormat, target: str, inventory: TableInventory, plan: MigrationPlan, mode: str
) -> list[AdoptionDecision]:
    """The decision for every partition the plan would back-fill; refused under ``require``
    when any must be copied."""
    candidates = [p.name for p in plan.partitions if p.to_backfill]
    if fmt.adoption_refusal:
        decisions = [
            AdoptionDecision(n, False, f"{fmt.label}s: {fmt.adoption_refusal}") for n in candidates
        ]
    else:
        location = fmt.location(target) if fmt.exists(target) else None
        decisions = decide(inventory, plan.mapping, candidates, location)
    if mode == ADOPT_REQUIRE:
        refuse_copies({d.partition: d.reason for d in decisions if not d.adopt}, target)
    return decisions


def refuse_copies(copies: dict[str, str], target: str) -> None:
    """``adopt_files = "require"``: nothing is copied; name what would have been."""
    if not copies:
        return
    shown = "; ".join(f"{name}: {why}" for name, why in list(copies.items())[:5])
    more = f" (and {len(copies) - 5} more)" if len(copies) > 5 else ""
    raise RefusedInput(
        f"adopt_files = require: {len(copies)} partition(s) of {target} cannot be adopted and "
        f"would be copied: {shown}{more}.",
        hint="Use --adopt-files auto to copy them in the same run, or fix the source.",
    )


def adopt(
    fmt: TargetFormat,
    journal: Journal,
    inventory: TableInventory,
    target: str,
    decisions: Sequence[AdoptionDecision],
    run_id: str,
    validate: Callable[[list[str]], dict[str, tuple[bool, str]]],
) -> AdoptionOutcome:
    """Register every adoptable partition of ``decisions``, then prove them with ``validate``
    (partition names -> partition -> (equal, detail))."""
    outcome = AdoptionOutcome(list(decisions))
    chosen = [d for d in decisions if d.adopt]
    if not chosen:
        return outcome
    source = inventory.qualified_name
    by_name = {p.name: p for p in inventory.partitions}
    for index, batch in enumerate(_batches(chosen), start=FIRST_BATCH):
        record = CommitRecord(
            run_id,
            index,
            source,
            {
                d.partition: (by_name[d.partition].fingerprint, by_name[d.partition].rows)
                for d in batch
            },
        )
        with profiling.phase("adopt"):
            result = fmt.adopt_partitions(target, inventory, batch, record=record)
        journal.record_many(
            [
                PartitionEntry(
                    source,
                    d.partition,
                    target,
                    BACKFILLED,
                    fingerprint=by_name[d.partition].fingerprint,
                    rows=by_name[d.partition].rows,
                    snapshot_id=result.commit_id,
                    run_id=run_id,
                )
                for d in batch
            ]
        )
    with profiling.phase("prove adopted"):
        verdicts = validate([d.partition for d in chosen])
    for d in chosen:
        equal, detail = verdicts.get(d.partition, (False, "not validated"))
        if equal:
            outcome.proven.append(d.partition)
        else:
            outcome.differed[d.partition] = detail
    if outcome.differed:
        log.warning(
            "%s: %d adopted partition(s) read differently and are copied: %s",
            target,
            len(outcome.differed),
            ", ".join(sorted(outcome.differed)[:10]),
        )
    return outcome


def _batches(chosen: Sequence[AdoptionDecision]) -> list[list[AdoptionDecision]]:
    out: list[list[AdoptionDecision]] = [[]]
    files = 0
    for d in chosen:
        if out[-1] and files + len(d.files) > BATCH_FILES:
            out.append([])
            files = 0
        out[-1].append(d)
        files += len(d.files)
    return out

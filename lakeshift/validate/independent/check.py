"""Validation at level ``independent``: after the checksum pass, compare three opinions of
every compared partition (see ``verdict``) and show differing rows where the readers differ."""

from __future__ import annotations

import time
from dataclasses import replace
from typing import TYPE_CHECKING

from lakeshift.formats import TargetFormat
from lakeshift.inspect.model import TableInventory
from lakeshift.migrate.journal import Journal
from lakeshift.schema_map.model import FieldMapping
from lakeshift.validate.canonical import Fingerprint
from lakeshift.validate.drilldown import partition_diff
from lakeshift.validate.fingerprints import combined, target_fingerprints
from lakeshift.validate.independent.runner import independent_frame, independent_reading
from lakeshift.validate.independent.verdict import OBSERVED, RESCAN, Opinions, verdict
from lakeshift.validate.model import EQUAL, MISMATCH, NOT_PROVEN, PartitionValidation
from lakeshift.validate.observed import observed_batches

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _opinions(
    result: PartitionValidation,
    independent: dict[str, Fingerprint],
    targets: dict[str, Fingerprint],
    batch: tuple[str, list[str], Fingerprint] | None,
) -> Opinions:
    name = result.partition
    agrees = independent[name] == targets[name]
    if batch is not None:
        # The observation is per batch; as the checksum pass does, a batch sum that equals
        # one side's sums speaks for each of its partitions (every row hash holds the keys).
        _, names, observed = batch
        if observed == combined([targets[n] for n in names]):
            matches = (True, agrees)
        elif observed == combined([independent[n] for n in names]):
            matches = (agrees, True)
        else:
            matches = (False, False)
        return Opinions(agrees, OBSERVED, *matches, batch_partitions=len(names))
    rescan = result.source_checksum  # scanned by the checksum pass when nothing was observed
    return Opinions(agrees, RESCAN, rescan == targets[name], rescan == independent[name])


def independent_check(
    spark: SparkSession,
    inventory: TableInventory,
    mapping: FieldMapping,
    fmt: TargetFormat,
    target: str,
    journal: Journal,
    results: dict[str, PartitionValidation],
    *,
    accept_truncation: bool = False,
) -> tuple[dict[str, PartitionValidation], float]:
    """Results with every compared partition judged by three opinions; and the seconds the
    independent reader took (its cost, shown in the report)."""
    candidates = [
        n
        for n, r in results.items()
        if r.status in (EQUAL, MISMATCH) and r.target_checksum is not None
    ]
    if not candidates:
        return results, 0.0
    batches = observed_batches(journal, inventory, candidates, spark_only=True)
    batch_of = {n: batch for batch in batches.values() for n in batch[1]}
    needed = sorted(set(candidates) | set(batch_of))
    started = time.monotonic()
    reading = independent_reading(spark, inventory, mapping, needed, fmt.target_type)
    independent = reading.fingerprints
    seconds = time.monotonic() - started
    targets = {n: results[n].target_checksum for n in candidates}
    others = [n for n in needed if n not in targets]
    if others:  # batch members outside the partitions asked for: their target too
        targets.update(target_fingerprints(fmt.frame(target, inventory), inventory, others))
    known = {n: t for n, t in targets.items() if t is not None}
    out = dict(results)
    for name in candidates:
        result = results[name]
        if name in reading.unreadable:
            out[name] = replace(
                result,
                status=NOT_PROVEN,
                detail="not proven: the independent reader cannot read the source: "
                f"{reading.unreadable[name]} (the checksum level's verdict was "
                f"{result.status})",
            )
            continue
        found = verdict(
            _opinions(result, independent, known, batch_of.get(name)), independent[name].rows
        )
        diff = result.diff
        if independent[name] != known[name]:
            diff = partition_diff(
                independent_frame(spark, inventory, mapping, [name], fmt.target_type),
                fmt,
                target,
                inventory,
                name,
            )
        judged = replace(
            result,
            status=EQUAL if found.ok else MISMATCH,
            independent_checksum=independent[name],
            agree=found.agree,
            detail=found.detail,
            diff=diff,
        )
        finer = reading.finer.get(name, 0)
        out[name] = truncated(
            judged,
            f"the independent reader counted {finer:,} timestamp value(s)" if finer else "",
            accept_truncation,
        )
    return out, seconds


def truncated(result: PartitionValidation, found: str, accept: bool) -> PartitionValidation:
    """A partition whose source holds timestamps finer than a microsecond (``found`` says how
    many or how it is known; empty: none) is not what its target holds, truncated: it differs,
    unless the user accepted truncation (``timestamp_precision = "truncate"``)."""
    if not found:
        return result
    what = f"{found} finer than a microsecond, which the target holds truncated to microseconds"
    if accept:
        note = f"{what} (accepted: timestamp_precision = truncate)"
        return replace(result, detail="; ".join(d for d in (result.detail, note) if d))
    note = f"{what} (set timestamp_precision = truncate to accept)"
    return replace(
        result,
        status=MISMATCH if result.status == EQUAL else result.status,
        detail="; ".join(d for d in (result.detail, note) if d),
    )

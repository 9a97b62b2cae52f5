"""The backfill's observed checksums that still speak for the source (from the journal)."""

from __future__ import annotations

from typing import Any

from lakeshift.inspect.model import TableInventory
from lakeshift.migrate.journal import Journal
from lakeshift.validate.canonical import Fingerprint


def columns_key(inventory: TableInventory) -> str:
    """The columns an observed checksum was computed over: one observed before ``ADD
    COLUMNS`` does not speak for the rows as the table reads them after it."""
    return ",".join(f"{c.name}:{c.type}" for c in (*inventory.columns, *inventory.partition_keys))


def observed_batches(
    journal: Journal, inventory: TableInventory, candidates: list[str], *, spark_only: bool = False
) -> dict[str, tuple[str, list[str], Fingerprint]]:
    """Batches whose observed checksum still speaks for the current source: batch id ->
    (id, its partitions, checksum). A batch counts only if none of its partitions changed and
    the table's columns are those it was observed over; with ``spark_only``, only if
    lakeshift's Spark reader observed it (the independent level's second reader is pyarrow,
    so a batch the Arrow path observed through pyarrow is read again by the Spark reader)."""
    return {
        batch_id: (batch_id, list(batch["partitions"]), Fingerprint.from_json(batch["checksum"]))
        for batch_id, batch in _current_batches(journal, inventory, candidates)
        if not (spark_only and batch["checksum"].get("observed_by") == "arrow")
    }


def observed_finer(
    journal: Journal, inventory: TableInventory, candidates: list[str]
) -> dict[str, int]:
    """Partition -> the timestamps with digits past a microsecond its writer counted in the
    source (the Arrow path's tasks), for the ``candidates`` whose batch still speaks for the
    current source; the others are not counted yet."""
    wanted = set(candidates)
    out: dict[str, int] = {}
    for _, batch in _current_batches(journal, inventory, candidates):
        for name, count in (batch["checksum"].get("finer") or {}).items():
            if name in wanted:
                out[name] = int(count)
    return out


def _current_batches(
    journal: Journal, inventory: TableInventory, candidates: list[str]
) -> list[tuple[str, dict[str, Any]]]:
    """The journal's batches of ``candidates`` none of whose partitions changed since, over
    the table's columns as they are now: (batch id, its record), each once."""
    fingerprints = {p.name: p.fingerprint for p in inventory.partitions}
    columns = columns_key(inventory)
    records = journal.partitions(inventory.qualified_name)
    seen: set[str] = set()
    out: list[tuple[str, dict[str, Any]]] = []
    for name in candidates:
        record = records.get(name)
        batch_id = (record.checksum or {}).get("batch") if record else None
        if not batch_id or batch_id in seen:
            continue
        seen.add(batch_id)
        batch = journal.batch(batch_id)
        if (
            batch
            # (journals written before the key was kept hold no columns: taken as they are)
            and batch["checksum"].get("columns", columns) == columns
            and all(fingerprints.get(n) == fp for n, fp in batch["partitions"].items())
        ):
            out.append((batch_id, batch))
    return out

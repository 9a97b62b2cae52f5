"""Refuse tables lakeshift does not migrate, saying why."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakeshift.errors import UnsupportedTable

if TYPE_CHECKING:
    from hive_metastore.ttypes import Table

_INPUT_FORMATS = {
    "orc": ("OrcInputFormat",),
    "parquet": ("MapredParquetInputFormat", "ParquetInputFormat"),
    "text": ("TextInputFormat",),
}


def storage_format(input_format: str | None, serde: str | None) -> str:
    """``orc``, ``parquet``, ``text`` or ``other`` from a storage descriptor."""
    name = (input_format or "").rsplit(".", 1)[-1]
    for fmt, classes in _INPUT_FORMATS.items():
        if name in classes:
            return fmt
    if serde and "orc" in serde.lower():
        return "orc"
    return "other"


def check_supported(table: Table) -> None:
    """Raise :class:`UnsupportedTable` for views, ACID, bucketed or non-ORC tables."""
    name = f"{table.dbName}.{table.tableName}"
    params = {k.lower(): str(v).lower() for k, v in (table.parameters or {}).items()}
    if table.tableType in ("VIRTUAL_VIEW", "MATERIALIZED_VIEW"):
        raise UnsupportedTable(
            f"{name} is a view, not a table; there is no data to migrate.",
            hint="Migrate the tables it reads from instead.",
        )
    if params.get("transactional") == "true":
        raise UnsupportedTable(
            f"{name} is a transactional (ACID) table; its delta files need Hive's compaction "
            "rules, which lakeshift does not apply.",
            hint="Run a major compaction and copy it into an external ORC table first.",
        )
    sd = table.sd
    if sd is not None and (sd.numBuckets or 0) > 0 and sd.bucketCols:
        raise UnsupportedTable(
            f"{name} is bucketed by {', '.join(sd.bucketCols)}; bucketed layouts are not "
            "migrated yet.",
            hint="Copy it into a non-bucketed external table first.",
        )
    fmt = storage_format(
        sd.inputFormat if sd else None,
        sd.serdeInfo.serializationLib if sd and sd.serdeInfo else None,
    )
    if fmt != "orc":
        raise UnsupportedTable(
            f"{name} is stored as {fmt} ({sd.inputFormat if sd else 'no storage descriptor'}); "
            "lakeshift migrates ORC tables.",
            hint="Only tables whose storage descriptor is ORC are supported.",
        )

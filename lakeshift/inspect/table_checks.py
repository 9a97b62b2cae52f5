"""Refuse tables lakeshift does not migrate, and warn about those it cannot take all the way."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakeshift.errors import UnsupportedTable
from lakeshift.inspect.model import SEVERITY_WARNING, Anomaly
from lakeshift.text.layout import read_as_text

if TYPE_CHECKING:
    from hive_metastore.ttypes import Table

_INPUT_FORMATS = {
    "orc": ("OrcInputFormat",),
    "parquet": ("MapredParquetInputFormat", "ParquetInputFormat"),
    "text": ("TextInputFormat",),
    "sequence": ("SequenceFileInputFormat",),
}


def storage_format(input_format: str | None, serde: str | None) -> str:
    """``orc``, ``parquet``, ``text``, ``sequence`` or ``other`` from a storage descriptor."""
    name = (input_format or "").rsplit(".", 1)[-1]
    for fmt, classes in _INPUT_FORMATS.items():
        if name in classes:
            return fmt
    if serde and "orc" in serde.lower():
        return "orc"
    return "other"


def check_supported(table: Table) -> None:
    """Raise :class:`UnsupportedTable` for views, ACID, bucketed tables, or tables stored as
    neither ORC nor LazySimpleSerDe text (their partitions may still differ: see anomalies)."""
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
    if sd is None or not sd.location:
        kind = params.get("table_type") or params.get("spark.sql.sources.provider")
        raise UnsupportedTable(
            f"{name} has no storage descriptor with a location in the catalog"
            + (f" (it is a {kind} table)" if kind else "")
            + "; lakeshift cannot find its files.",
            hint="Migrate a Hive table stored as ORC or text; a table catalogued without a "
            "location (a failed crawler, a lake format's entry) has nothing lakeshift reads.",
        )
    if (sd.numBuckets or 0) > 0 and sd.bucketCols:
        raise UnsupportedTable(
            f"{name} is bucketed by {', '.join(sd.bucketCols)}; bucketed layouts are not "
            "migrated yet.",
            hint="Copy it into a non-bucketed external table first.",
        )
    serde = sd.serdeInfo.serializationLib if sd and sd.serdeInfo else None
    fmt = storage_format(sd.inputFormat if sd else None, serde)
    if fmt != "orc" and not read_as_text(fmt, serde):
        stored = serde or (sd.inputFormat if sd else None) or "no storage descriptor"
        raise UnsupportedTable(
            f"{name} is stored as {fmt} ({stored}); lakeshift migrates ORC tables and "
            "LazySimpleSerDe text and SequenceFile tables.",
            hint="Copy it into an ORC table in Hive (CREATE TABLE ... STORED AS ORC AS SELECT).",
        )


def table_warnings(table: Table) -> list[Anomaly]:
    """Table-level anomalies of a supported table: what will stop it before the end.

    A managed (non-external) table migrates, validates and switches, but its cutover is
    refused (renaming it in Hive moves its files); saying so at inspect and plan time spares a
    surprise at the last step.
    """
    if table.tableType == "EXTERNAL_TABLE":
        return []
    return [
        Anomaly(
            code="managed-table",
            severity=SEVERITY_WARNING,
            message=f"{table.dbName}.{table.tableName} is a managed table ({table.tableType}); "
            "cutover will refuse it, because renaming a managed table moves its files.",
            action="Migrate, validate and switch as usual; before cutover make it external "
            "(ALTER TABLE ... SET TBLPROPERTIES('EXTERNAL'='TRUE')).",
            details={"table_type": table.tableType},
        )
    ]

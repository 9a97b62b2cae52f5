"""Make an Iceberg table hold a Hive partition's own ORC files, as zero-copy adoption leaves it.

For tests of what lakeshift does to tables holding adopted files, independent of the adoption
code itself: one partition's copied files are replaced, in one ``newReplacePartitions`` commit
through Iceberg's Java API, by the source's ORC files (statistics read through the table's name
mapping, as Iceberg's writers read theirs), and ``gc.enabled`` is set to false as adoption does.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from lakeshift.formats.iceberg import spark_identifier
from lakeshift.metastore.ddl import location_uri


def adopt_partition(
    spark: Any, target: str, values: Mapping[str, str | int], files: Sequence[Path]
) -> list[str]:
    """Replace the partition of ``target`` whose identity keys are ``values`` (strings or
    ints) by the ORC ``files``; returns the paths registered (``file:`` URIs)."""
    jvm = spark.sparkContext._jvm
    iceberg = jvm.org.apache.iceberg
    ident = spark_identifier(target)
    table = iceberg.spark.Spark3Util.loadIcebergTable(spark._jsparkSession, ident)
    table.refresh()
    # Set first, as adoption does: no snapshot referencing a source file may be gc-enabled.
    table.updateProperties().set("gc.enabled", "false").commit()
    table.refresh()
    spec, schema = table.spec(), table.schema()
    partition = iceberg.PartitionData(spec.partitionType())
    for position, field in enumerate(spec.fields()):
        value = values[str(schema.findColumnName(field.sourceId()))]
        boxed = jvm.java.lang.Integer.valueOf(value) if isinstance(value, int) else value
        partition.set(position, boxed)
    mapping = iceberg.mapping.NameMappingParser.fromJson(
        table.properties().get("schema.name-mapping.default")
    )
    config = iceberg.MetricsConfig.forTable(table)
    replace = table.newReplacePartitions()
    paths = []
    for file in files:
        path = f"{location_uri(file.parent)}/{file.name}"
        metrics = iceberg.orc.OrcMetrics.fromInputFile(
            table.io().newInputFile(path), config, mapping
        )
        replace.addFile(
            iceberg.DataFiles.builder(spec)
            .withPath(path)
            .withFormat(iceberg.FileFormat.ORC)
            .withFileSizeInBytes(file.stat().st_size)
            .withPartition(partition)
            .withMetrics(metrics)
            .build()
        )
        paths.append(path)
    replace.commit()
    spark.sql(f"REFRESH TABLE {ident}")
    return paths


def tree_digest(root: Path) -> dict[str, str]:
    """sha256 of every file below ``root`` (relative path -> hex digest)."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }

"""Source-vs-target assertions for a migrated table, usable from any test with a Spark session.

The metastore is taken from the session (``spark.hadoop.hive.metastore.uris``); the source is
read exactly as Hive users see it and compared with the lake target (any format lakeshift
writes) through fingerprints, then, on a difference, through the differing rows.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from lakeshift.config import load_settings
from lakeshift.formats import FormatServices, TargetFormat, require_target
from lakeshift.hive.source_frame import source_frame
from lakeshift.inspect.inspector import inspect_table
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore.client import MetastoreClient
from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN, build_mapping
from lakeshift.validate.drilldown import row_diff
from lakeshift.validate.fingerprints import GENERATED, source_fingerprints, target_fingerprints

if TYPE_CHECKING:
    from pyspark.sql import SparkSession


def _metastore_uri(spark: SparkSession) -> str:
    uri = spark.conf.get("spark.hadoop.hive.metastore.uris", None)
    if not uri:
        raise AssertionError("the Spark session has no spark.hadoop.hive.metastore.uris")
    return uri.split(",")[0]


def _context(
    spark: SparkSession, source: str, target: str, partitions: PartitionFilter
) -> tuple[Any, Any, TargetFormat]:
    uri = _metastore_uri(spark)
    settings = load_settings({"metastore_uri": uri}, env={})
    client = MetastoreClient(uri).connect()
    inventory = inspect_table(client, source, settings, partition_filter=partitions)
    fmt = require_target(FormatServices(spark, client, settings), target, source)
    mapping = fmt.stored_mapping(target) or build_mapping(inventory, None, settings.hive)
    return inventory, mapping, fmt


def assert_partition_equal(spark: SparkSession, source: str, target: str, partition: str) -> None:
    """Assert one partition of the lake ``target`` holds exactly the Hive ``source`` rows.

    Args:
        partition: the Hive partition name, e.g. ``"yyyymmdd=20220401"``.
    """
    from pyspark.sql import functions as F

    inventory, mapping, fmt = _context(spark, source, target, PartitionFilter((partition,)))
    if not inventory.partitions:
        raise AssertionError(f"{source} has no partition {partition!r}")
    expected = source_fingerprints(spark, inventory, mapping, [partition], fmt.target_type)
    actual = target_fingerprints(fmt.frame(target, inventory), inventory, [partition])
    if expected[partition] == actual[partition]:
        return
    source_rows = source_frame(spark, inventory, mapping, [partition], fmt.target_type).drop(
        PARTITIONPATH_COLUMN
    )
    target_rows = (
        fmt.frame(target, inventory)
        .where(F.col(PARTITIONPATH_COLUMN) == partition)
        .drop(*GENERATED)
        .select(*source_rows.columns)
    )
    diff = row_diff(source_rows, target_rows)
    lines = [
        f"{target} partition {partition} differs from {source}: "
        f"source {expected[partition].rows:,} rows, target {actual[partition].rows:,} rows"
    ]
    lines += [f"  only in source: {row}" for row in diff.only_in_source]
    lines += [f"  only in target: {row}" for row in diff.only_in_target]
    raise AssertionError("\n".join(lines))


def assert_table_migrated(
    spark: SparkSession, source: str, target: str, *, partitions: str | None = None
) -> None:
    """Assert every (or every filtered) partition of ``target`` equals ``source``."""
    inventory, mapping, fmt = _context(spark, source, target, PartitionFilter.parse(partitions))
    names = [p.name for p in inventory.partitions if p.migratable]
    expected = source_fingerprints(spark, inventory, mapping, names, fmt.target_type)
    actual = target_fingerprints(fmt.frame(target, inventory), inventory, names)
    wrong = [
        f"  {n}: source {expected[n].rows:,} rows, target {actual[n].rows:,} rows"
        + ("" if expected[n].rows != actual[n].rows else " (contents differ)")
        for n in names
        if expected[n] != actual[n]
    ]
    if wrong:
        raise AssertionError(
            f"{len(wrong)} partition(s) of {target} differ from {source}:\n"
            + "\n".join(wrong)
            + "\nassert_partition_equal(...) shows the differing rows."
        )

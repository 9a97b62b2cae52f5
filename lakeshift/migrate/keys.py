"""Generated columns: the ``uuid`` record key and the ``partitionpath`` column."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lakeshift.hive.reader import SOURCE_FILE
from lakeshift.hive.spark_sql import quote
from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN
from lakeshift.validate.canonical import row_hash

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

KEY_MODES = ("uuid", "deterministic")


def _uuid_from(a: str, b: str) -> str:
    """An RFC 9562 version-8 UUID string built from two 64-bit hashes (SQL)."""
    ha, hb = f"lpad(lower(hex({a})), 16, '0')", f"lpad(lower(hex({b})), 16, '0')"
    return (
        f"concat(substr({ha}, 1, 8), '-', substr({ha}, 9, 4), '-8', substr({ha}, 14, 3), "
        f"'-a', substr({hb}, 2, 3), '-', substr({hb}, 5, 12))"
    )


def add_record_key(frame: DataFrame, mode: str, data_columns: list[str]) -> DataFrame:
    """Add ``uuid``: random (default), or derived from the source file, the row's content and
    its rank among identical rows of that file, so that re-runs give the same keys."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    if mode == "uuid":
        return frame.withColumn("uuid", F.expr("uuid()")).drop(SOURCE_FILE)
    fields = [f for f in frame.schema.fields if f.name in set(data_columns)]
    content = F.expr(row_hash(fields, 7))
    # A file lies in one partition, so adding the partition to the window's keys changes no
    # group (nor any key); it lets rows already gathered per partition stay where they are.
    window = Window.partitionBy(PARTITIONPATH_COLUMN, SOURCE_FILE, "__h").orderBy("__h")
    ranked = frame.withColumn("__h", content).withColumn("__n", F.row_number().over(window))
    material = f"{quote(SOURCE_FILE)}, __h, __n"
    key = _uuid_from(f"xxhash64(11, {material})", f"xxhash64(13, {material})")
    return ranked.withColumn("uuid", F.expr(key)).drop("__h", "__n", SOURCE_FILE)

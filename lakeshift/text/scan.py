"""Text files as a Spark DataFrame: each task opens its files with pyarrow and parses them.

Spark's own text and CSV sources do not follow Hive's LazySimpleSerDe (nesting levels,
escapes, null sequence, per-file header and footer lines), so the records are parsed in
Python inside the tasks (``mapInArrow``), where the files are.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import TYPE_CHECKING

import pyarrow as pa

from lakeshift.errors import in_task
from lakeshift.hive.spark_sql import quote, spark_type
from lakeshift.hive.types import parse_hive_type
from lakeshift.inspect.model import Column
from lakeshift.storage import filesystem_for
from lakeshift.text.fields import RecordParser, text_type
from lakeshift.text.layout import TextLayout
from lakeshift.text.lines import records

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

BATCH_ROWS = 8192


def text_frame(
    spark: SparkSession,
    files: list[tuple[str, str]],
    layout: TextLayout,
    declared: tuple[Column, ...],
    key_column: str,
) -> DataFrame:
    """Rows of text ``files`` ((location, key reported in ``key_column``)) in the text types of
    the ``declared`` partition columns (see :func:`text_type`)."""
    types = [parse_hive_type(c.type) for c in declared]
    names = [c.name for c in declared]
    ddl = ", ".join(
        f"{quote(c.name)} {spark_type(text_type(t), physical=True)}"
        for c, t in zip(declared, types)
    )
    ddl += f", {quote(key_column)} STRING"

    @in_task
    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        parser = RecordParser(layout, types)
        for batch in batches:
            for index in batch.column(0).to_pylist():
                location, key = files[index]
                fs, path = filesystem_for(location)
                pending: list[bytes] = []
                for record in records(fs, path, layout):
                    pending.append(record)
                    if len(pending) == BATCH_ROWS:
                        yield _keyed(parser.batch(pending, names), key_column, key)
                        pending = []
                if pending:
                    yield _keyed(parser.batch(pending, names), key_column, key)

    slices = max(1, min(len(files), spark.sparkContext.defaultParallelism * 4))
    return spark.range(0, len(files), 1, slices).mapInArrow(run, ddl)


def _keyed(batch: pa.RecordBatch, name: str, key: str) -> pa.RecordBatch:
    keys = pa.array([key] * batch.num_rows, pa.string())
    return pa.RecordBatch.from_arrays([*batch.columns, keys], names=[*batch.schema.names, name])

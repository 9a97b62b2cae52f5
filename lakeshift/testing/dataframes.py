"""DataFrame equality with migration-aware options, built on chispa."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN, UUID_COLUMN
from lakeshift.validate.drilldown import comparable

if TYPE_CHECKING:
    from pyspark.sql import DataFrame

GENERATED_COLUMNS = (UUID_COLUMN, PARTITIONPATH_COLUMN)


def canonical_frame(frame: DataFrame, *, ignore_columns: Sequence[str] = ()) -> DataFrame:
    """Drop ``ignore_columns`` and turn maps into key-sorted entry arrays (comparable)."""
    kept = frame.drop(*[c for c in ignore_columns if c in frame.columns])
    return comparable(kept)


def assert_df_equal(
    actual: DataFrame,
    expected: DataFrame,
    *,
    ignore_row_order: bool = True,
    ignore_generated: bool = True,
    ignore_nullable: bool = True,
    ignore_column_order: bool = False,
    ignore_columns: Sequence[str] = (),
) -> None:
    """Assert two DataFrames hold the same rows; on failure chispa shows the differing rows.

    Args:
        ignore_row_order: compare as multisets (default), as migrated tables have no order.
        ignore_generated: ignore lakeshift's ``uuid`` and ``partitionpath`` columns.
        ignore_nullable: ignore nullability differences (Iceberg and Hive disagree on it).
        ignore_column_order: match columns by name rather than position.
        ignore_columns: further columns to leave out.
    """
    from chispa import assert_df_equality

    skip = [*ignore_columns, *(GENERATED_COLUMNS if ignore_generated else ())]
    assert_df_equality(
        canonical_frame(actual, ignore_columns=skip),
        canonical_frame(expected, ignore_columns=skip),
        ignore_row_order=ignore_row_order,
        ignore_nullable=ignore_nullable,
        ignore_column_order=ignore_column_order,
    )

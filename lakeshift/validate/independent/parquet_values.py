"""A Parquet file's values as Hive's Parquet reader builds them for the table's types, on
Arrow arrays: the independent reader's side of ``parquet_reading.built`` (the Spark reader's
is ``spark_sql.parquet_built``, written apart from this one).

Hand-written: no library models Hive's ``ETypeConverter``.
"""

from __future__ import annotations

import math
from decimal import Decimal

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from lakeshift.hive.parquet_reading import INTEGER_RANGE, Built, built, rebuilds
from lakeshift.hive.types import HiveType, field_index, stored_type
from lakeshift.validate.independent.arrow_hash import compact
from lakeshift.validate.independent.arrow_types import arrow_type
from lakeshift.validate.independent.convert import convert, null_mask, offsets_of
from lakeshift.validate.independent.text_rules import nearest_float32


def built_values(array: pa.Array, file: HiveType, table: HiveType, version: str) -> pa.Array:
    """``array`` (a Parquet file's column of type ``file``) as Hive ``version``'s Parquet
    reader builds it for the table's type ``table``, at every depth; of type
    ``parquet_reading.built_type`` afterwards; ``array`` itself where nothing changes."""
    if isinstance(array, pa.ChunkedArray):
        array = array.combine_chunks()
    if not rebuilds(file, table, version):
        return array
    if file.is_primitive:
        change = built(file, table, version)
        assert change is not None  # rebuilds said so
        return _primitive(array, file, change)
    mask = null_mask(array)
    if file.kind == "struct":
        children = []
        for index, (name, child) in enumerate(file.fields):
            values = array.field(index)
            found = field_index(table, name, 0, by_name=True, case_sensitive=False)
            if found is not None:
                values = built_values(values, child, table.fields[found][1], version)
            children.append(values)
        names = [name for name, _ in file.fields]
        return pa.StructArray.from_arrays(children, names=names, mask=mask)
    lengths, indices = compact(array)
    take = pa.array(indices, pa.int64())
    offsets = offsets_of(lengths)
    if file.kind == "array":
        values = built_values(array.values.take(take), file.fields[0][1], table.fields[0][1],
                              version)  # fmt: skip
        return pa.ListArray.from_arrays(offsets, values, mask=mask)
    items = built_values(array.items.take(take), file.fields[1][1], table.fields[1][1], version)
    return pa.MapArray.from_arrays(offsets, array.keys.take(take), items, mask=mask)


def _primitive(array: pa.Array, file: HiveType, change: Built) -> pa.Array:
    to = arrow_type(change.to)
    if change.rule == "float":  # Java's (float) rounds to nearest, as Arrow's unsafe cast
        return pc.cast(pc.cast(array, pa.float32(), safe=False), pa.float64())
    if change.rule == "range":
        keep = pc.and_(pc.greater_equal(array, change.low), pc.less_equal(array, change.high))
        return pc.if_else(keep, pc.cast(array, to, safe=False), pa.nulls(len(array), to))
    if change.rule == "convert" and change.widen:
        widened = pc.cast(array, pa.float64())
        return convert(widened, HiveType("double"), change.to, by_name=True)
    if change.rule == "convert":
        return convert(array, file, change.to, by_name=True)
    # integral, magnitude: per value, in Python (Hive 4 only; a decimal's double and float
    # are its nearest, as Java's BigDecimal gives them: float(Decimal) is correctly rounded,
    # and nearest_float32 rounds the decimal once, not through that double)
    out: list[int | float | None] = []
    for value in array.to_pylist():
        number = float(value) if value is not None else None
        if number is None or math.isnan(number):
            out.append(None)
        elif change.rule == "integral":
            if not (change.low <= number <= change.high and number.is_integer()):
                out.append(None)
            elif isinstance(value, Decimal):  # BigDecimal.longValue: truncated, wrapped
                out.append((int(value) + 2**63) % 2**64 - 2**63)
            else:  # Java's (long): saturated (2**63 passes the check as a double)
                low, high = INTEGER_RANGE[change.to.kind]
                out.append(max(low, min(int(value), high)))
        else:
            size = abs(number)
            keep = change.low <= size <= change.high or (change.zero and size == 0)
            if not keep:
                out.append(None)
            elif isinstance(value, Decimal):
                out.append(nearest_float32(value))
            else:
                out.append(float(np.float32(number)))
    return pa.array(out, to)


def hive_leaves(table: pa.Table, nulls: bool) -> pa.Table:
    """``table`` (columns of a Parquet file) with its values as Hive's Parquet reader takes
    them, at any depth: an Arrow-only type pyarrow restores from the writer's stored Arrow
    schema as the column Parquet holds (``hive.types.stored_type``: a dictionary's values, a
    duration's int64); an unsigned integer as the physical ``INT32``/``INT64``, signed
    (4294967295 in a ``UINT_32`` is -1), or with ``nulls`` NULL where that is negative
    (``parquet_reading.unsigned_nulls``), map keys signed, never NULL; a fixed-size binary (an
    unannotated ``FIXED_LEN_BYTE_ARRAY``) as a binary. Other columns are left as read (the
    Spark reader's side: ``spark_sql.scanned_sql``; Spark reads the stored column, and a
    fixed-size binary as binary, itself)."""
    for index, field in enumerate(table.schema):
        stored = stored_type(field.type)
        if stored != field.type:
            table = table.set_column(
                index, field.with_type(stored), table.column(index).cast(stored)
            )
            field = table.schema.field(index)
        if _changes(field.type):
            values = _signed(table.column(index).combine_chunks(), nulls)
            table = table.set_column(index, field.with_type(values.type), values)
    return table


def _changes(kind: pa.DataType) -> bool:
    if pa.types.is_unsigned_integer(kind) or pa.types.is_fixed_size_binary(kind):
        return True
    if pa.types.is_map(kind):
        return _changes(kind.key_type) or _changes(kind.item_type)
    return any(_changes(kind.field(i).type) for i in range(kind.num_fields))


def _signed(array: pa.Array, nulls: bool) -> pa.Array:
    kind = array.type
    if not _changes(kind):
        return array
    if pa.types.is_fixed_size_binary(kind):
        return pc.cast(array, pa.binary())
    if pa.types.is_unsigned_integer(kind):
        to = pa.int64() if kind.bit_width == 64 else pa.int32()
        signed = pc.cast(array, to, safe=False)  # wraps, as Java reads the physical bits
        if nulls and kind.bit_width >= 32:
            return pc.if_else(pc.less(signed, 0), pa.nulls(len(array), to), signed)
        return signed
    mask = null_mask(array)
    if pa.types.is_struct(kind):
        children = [_signed(array.field(i), nulls) for i in range(kind.num_fields)]
        names = [kind.field(i).name for i in range(kind.num_fields)]
        return pa.StructArray.from_arrays(children, names=names, mask=mask)
    lengths, indices = compact(array)
    take = pa.array(indices, pa.int64())
    offsets = offsets_of(lengths)
    if pa.types.is_map(kind):
        keys = _signed(array.keys.take(take), nulls=False)
        items = _signed(array.items.take(take), nulls)
        return pa.MapArray.from_arrays(offsets, keys, items, mask=mask)
    return pa.ListArray.from_arrays(offsets, _signed(array.values.take(take), nulls), mask=mask)

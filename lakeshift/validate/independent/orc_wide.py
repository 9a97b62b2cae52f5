"""ORC files whose timestamps pyarrow cannot read: read with pyorc, at microseconds.

pyarrow's ORC reader gives every timestamp in nanoseconds, whose 64 bits end before 1677-09-21
and after 2262-04-11, and refuses a file holding any timestamp outside them; Hive reads
0001-01-01..9999-12-31. pyorc (the same ORC C++ library, another binding) hands each value's
seconds and nanoseconds to a converter of ours, so the file is read whole at microseconds
(nanoseconds floored, as Spark and the lake formats hold them). It builds Python objects per
value, so it is only the fallback for such files, not the reader of every file.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import pyarrow as pa

from lakeshift.errors import EnvironmentProblem


def microsecond_type(kind: pa.DataType) -> pa.DataType:
    """``kind`` with every timestamp (at any depth) in microseconds."""
    if pa.types.is_timestamp(kind):
        return pa.timestamp("us", kind.tz)
    if pa.types.is_struct(kind):
        return pa.struct(
            [
                kind.field(i).with_type(microsecond_type(kind.field(i).type))
                for i in range(kind.num_fields)
            ]
        )
    if pa.types.is_map(kind):
        return pa.map_(microsecond_type(kind.key_type), microsecond_type(kind.item_type))
    if pa.types.is_list(kind) or pa.types.is_large_list(kind):
        return pa.list_(microsecond_type(kind.value_type))
    return kind


def beyond_nanoseconds(error: pa.ArrowInvalid) -> bool:
    """Whether pyarrow refused an ORC file for a timestamp outside its nanosecond range (the
    files to read through pyorc)."""
    return "nanosecond" in str(error)


def _pyorc(path: str) -> Any:
    try:
        import pyorc
    except ImportError as e:  # executors of a cluster may lack it
        raise EnvironmentProblem(
            f"{path}: holds timestamps outside 1677-09-21..2262-04-11, which only pyorc reads "
            "here, and pyorc is not installed where this task ran.",
            hint="Install lakeshift's dependencies (pyorc) on every executor, or validate this "
            "partition at the checksum level.",
        ) from e
    return pyorc


def _rows(
    source: Any, columns: list[str], path: str, stamp: Callable[[int, int], Any]
) -> Iterator[dict[str, Any]]:
    """The rows of ``columns`` of the ORC file open as ``source``, as dicts, each timestamp
    given as ``stamp(seconds, nanoseconds)`` and each date as its day number."""
    pyorc = _pyorc(path)
    from pyorc.converters import ORCConverter
    from pyorc.enums import StructRepr, TypeKind

    class Stamps(ORCConverter):
        @staticmethod
        def from_orc(seconds: int, nanoseconds: int, timezone: Any) -> Any:
            return stamp(seconds, nanoseconds)

        @staticmethod
        def to_orc(*args: Any) -> Any:
            raise NotImplementedError("lakeshift only reads ORC files with this converter")

    class Days(ORCConverter):
        """A date as its day number, as pyarrow gives it."""

        @staticmethod
        def from_orc(days: int) -> int:
            return days

        @staticmethod
        def to_orc(*args: Any) -> Any:
            raise NotImplementedError("lakeshift only reads ORC files with this converter")

    converters: dict[TypeKind, type[ORCConverter]] = {
        TypeKind.TIMESTAMP: Stamps,
        TypeKind.TIMESTAMP_INSTANT: Stamps,
        TypeKind.DATE: Days,
    }
    source.seek(0)
    return iter(
        pyorc.Reader(
            source, column_names=columns, converters=converters, struct_repr=StructRepr.DICT
        )
    )


def read_orc_microseconds(
    source: Any, columns: list[str], schema: pa.Schema, path: str
) -> pa.Table:
    """``columns`` of the ORC file open as ``source`` (pyarrow's ``schema`` of the file), with
    timestamps in microseconds since the epoch (nanoseconds floored)."""
    rows = list(_rows(source, columns, path, lambda s, n: s * 1_000_000 + n // 1000))
    out = {}
    for name in columns:  # rows are dicts by column name (StructRepr.DICT)
        kind = microsecond_type(schema.field(name).type)
        out[name] = pa.array([row[name] for row in rows], kind)
    return pa.table(out)


class _Finer:
    """A timestamp holding digits past a microsecond (one object per value: map keys that are
    such timestamps stay apart)."""


def finer_in_wide_orc(source: Any, columns: list[str], path: str) -> int:
    """Timestamps, at any depth, of ``columns`` of the ORC file open as ``source`` whose
    nanoseconds go past a microsecond: each value is looked at in Python (such files only)."""
    marked = _rows(source, columns, path, lambda s, n: _Finer() if n % 1000 else None)
    return sum(_marked(row) for row in marked)


def _marked(value: Any) -> int:
    if isinstance(value, _Finer):
        return 1
    if isinstance(value, dict):  # a struct (by field name) or a map
        return sum(_marked(k) + _marked(v) for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return sum(_marked(v) for v in value)
    return 0

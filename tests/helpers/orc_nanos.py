"""ORC files whose timestamps are written as given seconds and nanoseconds (through pyorc), for
values pyarrow cannot write: past 2262, or nanoseconds it would otherwise lose."""

from __future__ import annotations

import io
from collections.abc import Iterable
from typing import Any

import pyorc


class _Nanos(pyorc.converters.ORCConverter):
    """A timestamp given as (seconds since the epoch, nanoseconds), written as given."""

    @staticmethod
    def to_orc(value: tuple[int, int], timezone: object) -> tuple[int, int]:
        return value

    @staticmethod
    def from_orc(*args: object) -> object:
        raise NotImplementedError("only writes")


def orc_with_nanos(schema: str, rows: Iterable[Any], by_name: bool = False) -> bytes:
    """An ORC file of ``schema`` (``struct<...>``) holding ``rows`` (tuples, or dicts where
    ``by_name``), each timestamp a (seconds, nanoseconds) pair."""
    out = io.BytesIO()
    repr_ = pyorc.StructRepr.DICT if by_name else pyorc.StructRepr.TUPLE
    converters = {pyorc.TypeKind.TIMESTAMP: _Nanos}
    with pyorc.Writer(out, schema, converters=converters, struct_repr=repr_) as writer:
        for row in rows:
            writer.write(row)
    return out.getvalue()

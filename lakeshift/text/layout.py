"""How a Hive text partition is laid out: LazySimpleSerDe's parameters, read as Hive reads them.

Hive takes every delimiter through ``LazySerDeParameters.getByte``: a value that parses as a
Java ``byte`` (``"9"``, ``"-2"``) is that byte, anything else is its first character's low byte.
The separator of each nesting level is the field delimiter (level 0: the row), the collection
delimiter, the map-key delimiter, then a fixed list of control bytes Hive picked as unlikely
to be in data. Header and footer lines are skipped per file (table property
``skip.header.line.count`` / ``skip.footer.line.count``).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

from lakeshift.errors import RefusedInput
from lakeshift.text.timestamps import compile_formats, split_formats

LAZY_SIMPLE_SERDES = frozenset(
    {
        "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe",
        # Hive's older default text SerDe reads through the same lazy code.
        "org.apache.hadoop.hive.serde2.MetadataTypedColumnsetSerDe",
    }
)
#: Partition formats whose records LazySimpleSerDe parses: lines of text files, or the values
#: of SequenceFiles.
TEXT_FORMATS = ("text", "sequence")


def read_as_text(storage: str, serde: str | None) -> bool:
    """Whether lakeshift reads a storage descriptor's files as LazySimpleSerDe records (text
    or SequenceFile; not the CSV, JSON or regex SerDes)."""
    return storage in TEXT_FORMATS and serde in LAZY_SIMPLE_SERDES


DEFAULT_NULL = "\\N"
_JAVA_BYTE = re.compile(r"[+-]?[0-9]+")
# Hive's nesting levels past the three configurable delimiters (LazySerDeParameters).
_EXTRA_SEPARATORS = (
    bytes(range(4, 9))
    + b"\x0b"
    + bytes(range(14, 27))
    + bytes(range(28, 32))
    + bytes(range(128, 256))
)


def hive_byte(value: str | None, default: int) -> int:
    """LazySerDeParameters.getByte: a Java byte number, else the first character's low byte."""
    if not value:
        return default
    if _JAVA_BYTE.fullmatch(value) and -128 <= int(value) <= 127:
        return int(value) & 0xFF
    return ord(value[0]) & 0xFF


@dataclass(frozen=True)
class TextLayout:
    """Everything needed to split a text partition's lines into Hive's values."""

    separators: bytes
    null_sequence: bytes
    escape: int | None
    escape_crlf: bool
    last_column_takes_rest: bool
    encoding: str
    skip_header: int
    skip_footer: int
    container: str = "text"  # text (lines) or sequence (SequenceFile values)
    timestamp_formats: tuple[str, ...] = ()  # strptime forms of timestamp.formats (or millis)

    @classmethod
    def from_parameters(
        cls,
        serde: Mapping[str, str],
        table: Mapping[str, str] | None = None,
        container: str = "text",
    ) -> TextLayout:
        """The layout from a partition's SerDe parameters (and the table's properties, where
        Hive reads the header and footer counts)."""
        params = {**(table or {}), **serde}
        field = hive_byte(params.get("field.delim", params.get("serialization.format")), 1)
        collection = hive_byte(params.get("collection.delim", params.get("colelction.delim")), 2)
        mapkey = hive_byte(params.get("mapkey.delim"), 3)
        escape_text = params.get("escape.delim")
        encoding = params.get("serialization.encoding") or "utf-8"
        try:
            "".encode(encoding)
        except LookupError as e:
            raise RefusedInput(
                f"text SerDe encoding {encoding!r} is not known to Python.",
                hint="Set serialization.encoding to a standard charset name, or convert "
                "the partition to ORC in Hive.",
            ) from e
        return cls(
            separators=bytes((field, collection, mapkey)) + _EXTRA_SEPARATORS,
            null_sequence=params.get("serialization.null.format", DEFAULT_NULL).encode("utf-8"),
            escape=hive_byte(escape_text, ord("\\")) if escape_text is not None else None,
            escape_crlf=params.get("serialization.escape.crlf", "").lower() == "true",
            last_column_takes_rest=params.get("serialization.last.column.takes.rest", "").lower()
            == "true",
            encoding=encoding,
            skip_header=_count(params, "skip.header.line.count"),
            skip_footer=_count(params, "skip.footer.line.count"),
            container=container,
            timestamp_formats=compile_formats(split_formats(params.get("timestamp.formats"))),
        )


def _count(params: Mapping[str, str], key: str) -> int:
    raw = params.get(key)
    if raw is None or raw.strip() == "":
        return 0
    try:
        value = int(raw.strip())
    except ValueError as e:
        raise RefusedInput(
            f"table property {key}={raw!r} is not a number.",
            hint=f"Fix it in Hive (ALTER TABLE ... SET TBLPROPERTIES('{key}'='1')).",
        ) from e
    return max(0, value)

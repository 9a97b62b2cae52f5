"""Parse and print Hive type strings, and translate them to and from Arrow types.

Hand-written: no maintained Python library parses Hive's type grammar
(``struct<a:int,b:array<map<string,decimal(10,2)>>>``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from decimal import Context
from functools import lru_cache
from typing import Any, Protocol

import pyarrow as pa

from lakeshift.errors import RefusedInput

PRIMITIVES = {
    "tinyint",
    "smallint",
    "int",
    "bigint",
    "boolean",
    "float",
    "double",
    "string",
    "binary",
    "date",
    "timestamp",
    "decimal",
    "char",
    "varchar",
    "void",
}
_ALIASES = {
    "integer": "int",
    "real": "float",
    "double precision": "double",
    "numeric": "decimal",
    "dec": "decimal",
    "long": "bigint",
    "short": "smallint",
    "byte": "tinyint",
}

#: Decimal arithmetic wide enough for any decimal(38, s) value and its rounding (Python's
#: default context holds 28 digits).
DECIMAL_38 = Context(prec=80)


@dataclass(frozen=True)
class HiveType:
    """A parsed Hive type.

    Attributes:
        kind: ``int``, ``decimal``, ``struct``, ``array``, ``map``, ...
        params: precision/scale for decimal, length for char/varchar.
        fields: (name, type) pairs of a struct; ``element`` for arrays; ``key``/``value`` for maps.
    """

    kind: str
    params: tuple[int, ...] = ()
    fields: tuple[tuple[str, HiveType], ...] = field(default=())

    @property
    def is_primitive(self) -> bool:
        return self.kind not in ("struct", "array", "map", "uniontype")

    def __str__(self) -> str:
        if self.kind == "struct":
            return "struct<" + ",".join(f"{n}:{t}" for n, t in self.fields) + ">"
        if self.kind == "array":
            return f"array<{self.fields[0][1]}>"
        if self.kind == "map":
            return f"map<{self.fields[0][1]},{self.fields[1][1]}>"
        if self.kind == "uniontype":
            return "uniontype<" + ",".join(str(t) for _, t in self.fields) + ">"
        if self.params:
            return f"{self.kind}({','.join(str(p) for p in self.params)})"
        return self.kind


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.pos = 0

    def error(self, what: str) -> RefusedInput:
        return RefusedInput(f"cannot parse Hive type {self.text!r}: {what} at offset {self.pos}")

    def skip_ws(self) -> None:
        while self.pos < len(self.text) and self.text[self.pos].isspace():
            self.pos += 1

    def peek(self) -> str:
        self.skip_ws()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def expect(self, char: str) -> None:
        if self.peek() != char:
            raise self.error(f"expected {char!r}")
        self.pos += 1

    def word(self) -> str:
        self.skip_ws()
        start = self.pos
        while self.pos < len(self.text) and (
            self.text[self.pos].isalnum() or self.text[self.pos] in "_$"
        ):
            self.pos += 1
        if start == self.pos:
            raise self.error("expected a name")
        return self.text[start : self.pos]

    def field_name(self) -> str:
        if self.peek() == "`":
            self.pos += 1
            end = self.text.index("`", self.pos)
            name, self.pos = self.text[self.pos : end], end + 1
            return name
        return self.word()

    def parse(self) -> HiveType:
        kind = self.word().lower()
        if kind == "double" and self.text[self.pos :].lower().lstrip().startswith("precision"):
            self.word()
        kind = _ALIASES.get(kind, kind)
        if kind == "struct":
            self.expect("<")
            fields: list[tuple[str, HiveType]] = []
            if self.peek() != ">":
                while True:
                    name = self.field_name()
                    self.expect(":")
                    fields.append((name, self.parse()))
                    if self.peek() == ",":
                        self.pos += 1
                        continue
                    break
            self.expect(">")
            return HiveType("struct", fields=tuple(fields))
        if kind in ("array", "map", "uniontype"):
            self.expect("<")
            children = [self.parse()]
            while self.peek() == ",":
                self.pos += 1
                children.append(self.parse())
            self.expect(">")
            if kind == "array" and len(children) == 1:
                return HiveType("array", fields=(("element", children[0]),))
            if kind == "map" and len(children) == 2:
                return HiveType("map", fields=(("key", children[0]), ("value", children[1])))
            if kind == "uniontype":
                return HiveType(
                    "uniontype", fields=tuple((f"tag_{i}", c) for i, c in enumerate(children))
                )
            raise self.error(f"wrong number of type arguments for {kind}")
        if kind not in PRIMITIVES:
            raise self.error(f"unknown type {kind!r}")
        params: list[int] = []
        if self.peek() == "(":
            self.pos += 1
            while True:
                params.append(int(self.word()))
                if self.peek() == ",":
                    self.pos += 1
                    continue
                break
            self.expect(")")
        if kind == "decimal" and not params:
            params = [10, 0]  # Hive's default DECIMAL is decimal(10,0)
        elif kind == "decimal" and len(params) == 1:
            params.append(0)
        return HiveType(kind, tuple(params))


@lru_cache(maxsize=4096)
def parse_hive_type(text: str) -> HiveType:
    """Parse a Hive type string such as ``map<string,array<decimal(10,2)>>`` (cached: a
    table's few types are parsed once, not once per partition and file)."""
    parser = _Parser(text)
    result = parser.parse()
    if parser.peek():
        raise parser.error("trailing text")
    return result


def to_arrow(hive_type: HiveType) -> pa.DataType:
    """The Arrow type that holds values of ``hive_type`` (CHAR/VARCHAR become strings)."""
    simple: dict[str, pa.DataType] = {
        "tinyint": pa.int8(),
        "smallint": pa.int16(),
        "int": pa.int32(),
        "bigint": pa.int64(),
        "boolean": pa.bool_(),
        "float": pa.float32(),
        "double": pa.float64(),
        "string": pa.string(),
        "char": pa.string(),
        "varchar": pa.string(),
        "binary": pa.binary(),
        "date": pa.date32(),
        "timestamp": pa.timestamp("us"),
        "void": pa.null(),
    }
    if hive_type.kind in simple:
        return simple[hive_type.kind]
    if hive_type.kind == "decimal":
        return pa.decimal128(*hive_type.params)
    if hive_type.kind == "array":
        return pa.list_(to_arrow(hive_type.fields[0][1]))
    if hive_type.kind == "map":
        return pa.map_(to_arrow(hive_type.fields[0][1]), to_arrow(hive_type.fields[1][1]))
    if hive_type.kind == "struct":
        return pa.struct([(n, to_arrow(t)) for n, t in hive_type.fields])
    raise RefusedInput(f"Hive type {hive_type} has no Arrow equivalent")


#: How ``from_arrow`` types a column: an ORC file's (or a lake table's: no unsigned integer
#: can come), a Parquet file's as Hive reads it (an unsigned integer is the physical INT32 or
#: INT64, signed), or a Parquet file's as Spark must scan it (``FileInfo.scanned``: a
#: ``UINT_32`` as bigint and a ``UINT_64`` as decimal(20,0), wide enough for their values,
#: and a nanosecond ``INT64`` timestamp as its bigint count, which Spark reads only so)
ORC_TYPES = "orc"
PARQUET_TYPES = "parquet"
SCAN_TYPES = "scan"


def _unsigned(arrow_type: pa.DataType, how: str) -> HiveType | None:
    """The Hive type of an unsigned Arrow integer (None for any other type), ``how`` says."""
    if not pa.types.is_unsigned_integer(arrow_type) or how == ORC_TYPES:
        return None
    if how == PARQUET_TYPES or arrow_type.bit_width < 32:
        return HiveType("bigint" if arrow_type.bit_width == 64 else "int")
    if arrow_type.bit_width == 32:
        return HiveType("bigint")
    return HiveType("decimal", (20, 0))


#: Arrow extension types whose Parquet column carries a logical type of its own (``UUID``,
#: ``JSON``), which is what Hive reads; any other's column is its storage type's
_ANNOTATED_EXTENSIONS = frozenset({"arrow.uuid", "arrow.json"})


def stored_type(arrow_type: pa.DataType) -> pa.DataType:
    """The Arrow type of what a Parquet file stores, where pyarrow gives back an Arrow-only
    type from the Arrow schema its writer keeps in the footer (``ARROW:schema``): a
    dictionary's values (pandas' ``category``), a duration's int64 (``timedelta64``: an
    unannotated ``INT64``), a fixed-size list's list, a view's string or binary, an extension
    type's storage (pandas' ``period``: its ordinal, ``interval``: a struct of its bounds).
    Hive and Spark read the Parquet column itself, at every depth."""
    if pa.types.is_dictionary(arrow_type):
        return stored_type(arrow_type.value_type)
    if isinstance(arrow_type, pa.BaseExtensionType):
        if arrow_type.extension_name in _ANNOTATED_EXTENSIONS:
            return arrow_type  # (no reading yet: from_arrow refuses it)
        return stored_type(arrow_type.storage_type)  # pandas' period, interval, ...
    if pa.types.is_duration(arrow_type):
        return pa.int64()
    if pa.types.is_string_view(arrow_type):
        return pa.string()
    if pa.types.is_binary_view(arrow_type):
        return pa.binary()
    if pa.types.is_struct(arrow_type):
        fields = [arrow_type.field(i) for i in range(arrow_type.num_fields)]
        return pa.struct([f.with_type(stored_type(f.type)) for f in fields])
    if pa.types.is_map(arrow_type):
        return pa.map_(stored_type(arrow_type.key_type), stored_type(arrow_type.item_type))
    if pa.types.is_large_list(arrow_type):
        return pa.large_list(stored_type(arrow_type.value_type))
    if (
        pa.types.is_list(arrow_type)
        or pa.types.is_fixed_size_list(arrow_type)
        or pa.types.is_list_view(arrow_type)
        or pa.types.is_large_list_view(arrow_type)
    ):
        return pa.list_(stored_type(arrow_type.value_type))
    return arrow_type


def from_arrow(arrow_type: pa.DataType, how: str = ORC_TYPES) -> HiveType:
    """The Hive type of an ORC or Parquet column as pyarrow reports it; ``how``: an ORC file's
    or a Parquet file's, as Hive reads it or as Spark scans it (``ORC_TYPES`` ..)."""
    arrow_type = stored_type(arrow_type)
    if how == SCAN_TYPES and pa.types.is_timestamp(arrow_type) and arrow_type.unit == "ns":
        return HiveType("bigint")  # (INT96 timestamps are read at microseconds: see footers)
    as_unsigned = _unsigned(arrow_type, how)
    if as_unsigned is not None:
        return as_unsigned
    checks: list[tuple[object, str]] = [
        (pa.types.is_int8, "tinyint"),
        (pa.types.is_int16, "smallint"),
        (pa.types.is_int32, "int"),
        (pa.types.is_int64, "bigint"),
        (pa.types.is_boolean, "boolean"),
        (pa.types.is_float32, "float"),
        (pa.types.is_float64, "double"),
        (pa.types.is_date32, "date"),
        (pa.types.is_timestamp, "timestamp"),
        (pa.types.is_null, "void"),
    ]
    for check, kind in checks:
        if check(arrow_type):  # type: ignore[operator]
            return HiveType(kind)
    if pa.types.is_string(arrow_type) or pa.types.is_large_string(arrow_type):
        return HiveType("string")
    if pa.types.is_binary(arrow_type) or pa.types.is_large_binary(arrow_type):
        return HiveType("binary")
    if pa.types.is_fixed_size_binary(arrow_type):  # Parquet's unannotated FIXED_LEN_BYTE_ARRAY
        return HiveType("binary")  # Hive's Parquet reader: a BytesWritable, as for BINARY
    if pa.types.is_decimal(arrow_type):
        return HiveType("decimal", (arrow_type.precision, arrow_type.scale))
    if pa.types.is_map(arrow_type):
        return HiveType(
            "map",
            fields=(
                ("key", from_arrow(arrow_type.key_type, how)),
                ("value", from_arrow(arrow_type.item_type, how)),
            ),
        )
    if pa.types.is_list(arrow_type) or pa.types.is_large_list(arrow_type):
        return HiveType("array", fields=(("element", from_arrow(arrow_type.value_type, how)),))
    if pa.types.is_struct(arrow_type):
        return HiveType(
            "struct",
            fields=tuple(
                (arrow_type.field(i).name, from_arrow(arrow_type.field(i).type, how))
                for i in range(arrow_type.num_fields)
            ),
        )
    if pa.types.is_union(arrow_type):
        return HiveType(
            "uniontype",
            fields=tuple(
                (f"tag_{i}", from_arrow(arrow_type.field(i).type, how))
                for i in range(arrow_type.num_fields)
            ),
        )
    raise RefusedInput(
        f"file column type {arrow_type} has no Hive type lakeshift reads; the file itself is sound"
    )


#: Hive's text types.
_TEXT = frozenset({"string", "char", "varchar"})


def digits_counted(partition: HiveType, table: HiveType) -> tuple[bool, bool]:
    """Whether a top-level value read as a timestamp can show the target's cut of its
    nanoseconds: at the file-to-partition step (the partition declares a timestamp, which the
    table keeps as a timestamp, as text, as a float or double, or as a decimal of six or more
    fraction digits, which Hive makes from its nanoseconds: ``getDouble``, rounded from the
    double's text) and at the partition-to-table step (the table declares the timestamp).
    Both validation levels count by this rule, so that they agree."""
    scale = table.params[1] if table.kind == "decimal" and len(table.params) > 1 else -1
    keeps = table.kind in ("timestamp", "float", "double") or table.kind in _TEXT or scale >= 6
    return partition.kind == "timestamp" and keeps, table.kind == "timestamp"


def text_counted(partition: HiveType, table: HiveType) -> bool:
    """Whether a text column's values are read as timestamps whose digits can show the
    target's cut (``digits_counted``): at the first step, or at the second through a text
    partition type (a number partition type makes them numbers first)."""
    first, second = digits_counted(partition, table)
    return first or (second and partition.kind in _TEXT)


#: Hive's integer types and their widths in bits.
INTEGER_BITS = {"tinyint": 8, "smallint": 16, "int": 32, "bigint": 64}
#: The types that read a timestamp as a number; all but a boolean (whether its seconds are
#: zero) count its seconds.
NUMBER_KINDS = frozenset({*INTEGER_BITS, "boolean", "float", "double", "decimal"})
SECONDS_COUNTED = NUMBER_KINDS - {"boolean"}


_TEXT_KINDS = frozenset({"string", "char", "varchar"})


def zone_rule(
    zone: str | None,
    src: HiveType,
    dst: HiveType,
    *,
    orc_file: bool,
    hive3_converters: bool,
    orc_sql_dates: bool,
) -> str | None:
    """How the zone Hive's JVMs run in (``hive_time_zone``; ``None``: UTC) changes one
    conversion of ``src`` to ``dst``, or ``None`` where it does not.

    Hive 1.2 and 2.x hold a timestamp as a ``java.sql.Timestamp``, an instant whose wall clock
    is shown in the JVM's zone: their converters and text SerDe do, and so does ORC under
    them (no ``useUTCTimestamp``: ORC 1.3 has none; ORC 1.6+, ``orc_date_parser = "exact"``,
    then count a number from the zone's epoch, and read it as Hive in UTC would):

    - ``"instant shown"``: a number read as a timestamp counts from 1970-01-01 00:00 UTC and
      shows that instant's wall clock in the zone (``TimestampWritable.doubleToTimestamp``,
      ``new Timestamp(long)``): 0 is 1969-12-31 19:00 in New York;
    - ``"instant counted"``: a timestamp read as a number counts the seconds of the instant
      its wall clock is in the zone (``getSeconds``, ``getDouble``);
    - ``"parsed in zone"``: text read as a timestamp (``Timestamp.valueOf``) is a wall clock
      in the zone: one in a daylight-saving gap shows the clock after it (02:30 is 03:30).

    Hive 3.0+ count in UTC (HIVE-12192) and read ORC with ``useUTCTimestamp``, but ORC 1.5's
    java.sql conversions (``orc_sql_dates``), which Hive 3.1 runs, still work in the JVM's
    zone (ORC 1.6+'s do not):

    - ``"parsed as instant"``: text or a date read as a timestamp is the instant of that wall
      clock (a date's midnight) in the zone (``Timestamp.valueOf``,
      ``DateWritable.daysToMillis``), which Hive shows as UTC: ``10:00`` read in New York is
      ``14:00`` (``15:00`` in winter);
    - ``"wall clock read"``: a timestamp read as text or a date is the wall clock in the zone
      of the instant Hive reads as UTC (``Timestamp.toString``, ``DateWritable.dateToDays``):
      ``2020-06-01 02:00`` is the day before in New York.
    """
    if zone is None:
        return None
    return zone_dependence(
        src, dst, orc_file=orc_file, hive3_converters=hive3_converters, orc_sql_dates=orc_sql_dates
    )


def zone_dependence(
    src: HiveType, dst: HiveType, *, orc_file: bool, hive3_converters: bool, orc_sql_dates: bool
) -> str | None:
    """``zone_rule`` for a Hive whose JVMs run outside UTC: the rule by which the zone changes
    reading ``src`` as ``dst``, or ``None`` (``inspect`` names such columns before a zone is
    chosen)."""
    if not hive3_converters:
        if dst.kind == "timestamp" and src.kind in NUMBER_KINDS:
            # ORC 1.6+ count a number from the epoch of the JVM's zone (convertFromUtc)
            return "instant shown" if orc_sql_dates or not orc_file else None
        if src.kind == "timestamp" and dst.kind in NUMBER_KINDS:
            return "instant counted"
        if dst.kind == "timestamp" and src.kind in _TEXT_KINDS:
            return "parsed in zone"
    elif hive3_converters and orc_file and orc_sql_dates:
        if dst.kind == "timestamp" and (src.kind == "date" or src.kind in _TEXT_KINDS):
            return "parsed as instant"
        if src.kind == "timestamp" and (dst.kind == "date" or dst.kind in _TEXT_KINDS):
            return "wall clock read"
    return None


def holds_kind(hive: HiveType, *kinds: str) -> bool:
    """Whether ``hive`` or a type at any depth inside it is of one of ``kinds``."""
    return hive.kind in kinds or any(holds_kind(t, *kinds) for _, t in hive.fields)


def counts_instants(table: HiveType) -> bool:
    """Whether the table reads a timestamp as a number (its instant: Hive 2's ``getDouble``,
    ``getTime``), so a number read as the partition's timestamp keeps its instant and must
    not be relabelled by the hybrid calendar on the way (``hybrid_instants``)."""
    return table.kind in NUMBER_KINDS


def holds_instant(file: HiveType, declared: HiveType, table: HiveType) -> bool:
    """Whether Hive's first step leaves a column's value an instant, not a wall clock: a
    number read as the partition's timestamp that the table reads back as a number
    (``counts_instants``), whose seconds the second step then counts as they are."""
    return counts_instants(table) and declared.kind == "timestamp" and counts_instants(file)


class ConverterFlags(Protocol):
    """What a reader knows of the user's Hive for its converters (a ``FileGroup`` of the Spark
    reader, a ``FileTask`` of the independent one)."""

    @property
    def hive3_converters(self) -> bool: ...
    @property
    def hive4_dates(self) -> bool: ...
    @property
    def hybrid_instants(self) -> bool: ...
    @property
    def hive1_decimals(self) -> bool: ...
    @property
    def hive_zone(self) -> str | None: ...


def second_step(read: ConverterFlags, instant: bool = False) -> dict[str, Any]:
    """Both readers' ``convert`` options for Hive's second step, the partition's declared type
    read as the table's by Hive's converters (``instant``: the first step left the value an
    instant, ``holds_instant``, whose seconds are counted as they are)."""
    return {
        "by_name": False,
        "hive3_converters": read.hive3_converters,
        "hive4_dates": read.hive4_dates,
        "hive1_decimals": read.hive1_decimals,
        "hybrid_instants": read.hybrid_instants,
        "hybrid_seconds": read.hybrid_instants and not instant,
        "zone": None if instant else read.hive_zone,
    }


_WHOLE_DIGITS = {"tinyint": 3, "smallint": 5, "int": 10, "bigint": 19}
_EXACT_IN = {"float": 24, "double": 53}  # bits of an integer a float or double holds exactly
_AS_TEXT = frozenset({*_WHOLE_DIGITS, "decimal", "boolean", "char", "varchar"})


def keys_may_merge(src: HiveType, dst: HiveType) -> bool:
    """Whether reading map keys of type ``src`` as ``dst`` can make two keys one or a key NULL
    (so that a map keeps only some entries, as Hive's maps do): not where every value reads
    as a distinct value (an integer or decimal widened, any number or CHAR/VARCHAR as text),
    so that those maps keep the cheap conversion."""
    if src == dst:
        return False
    if src.kind in _WHOLE_DIGITS:
        if dst.kind in INTEGER_BITS:
            return INTEGER_BITS[dst.kind] < INTEGER_BITS[src.kind]
        if dst.kind in _EXACT_IN:
            return _EXACT_IN[dst.kind] < INTEGER_BITS[src.kind] - 1
        if dst.kind == "decimal" and len(dst.params) == 2:
            return dst.params[0] - dst.params[1] < _WHOLE_DIGITS[src.kind]
    if src.kind == "float" and dst.kind == "double":
        return False
    if src.kind == "decimal" and dst.kind == "decimal" and len(src.params) == len(dst.params) == 2:
        (p1, s1), (p2, s2) = src.params, dst.params
        return s2 < s1 or p2 - s2 < p1 - s1
    return not (dst.kind == "string" and src.kind in _AS_TEXT)


#: One step into a nested value: ("field", index), ("element", 0), ("key", 0) or ("value", 0).
Step = tuple[str, int]


@dataclass(frozen=True)
class NestedLeaf:
    """A primitive inside a nested column whose digits can show the target's cut: reached by
    ``partition_path`` in the value read as the partition's declared type and, where the file
    has it, by ``file_path`` in the file's value; ``first``/``second`` as ``digits_counted``
    says for its types (``first`` only where the file has the leaf)."""

    file_path: tuple[Step, ...] | None
    partition_path: tuple[Step, ...]
    file: HiveType | None
    declared: HiveType
    table: HiveType
    first: bool
    second: bool


def nested_leaves(
    file: HiveType, declared: HiveType, table: HiveType, *, by_name: bool, case_sensitive: bool
) -> list[NestedLeaf]:
    """The leaves of a nested column that ``digits_counted`` counts, each with its paths: the
    declared fields matched to the table's by position (Hive's converters) and the file's to
    the declared ones by name (``by_name``, ORC's schema evolution of named files) or by
    position, as both readers match them. A field the table lacks counts nothing; one the
    file lacks (or holds as another kind, as a text file holds text) counts at the second
    step only. The walk is shared so that both validation levels count the same leaves (a
    count is a policy; each level reads the values itself)."""
    out: list[NestedLeaf] = []

    def walk(
        f: HiveType | None,
        d: HiveType,
        t: HiveType,
        fp: tuple[Step, ...] | None,
        dp: tuple[Step, ...],
    ) -> None:
        if d.is_primitive:
            if not t.is_primitive:
                return
            first, second = digits_counted(d, t)
            first = first and f is not None and f.is_primitive
            if first or second:
                out.append(NestedLeaf(fp if first else None, dp, f, d, t, first, second))
            return
        if t.kind != d.kind:
            return
        if f is None or fp is None or f.kind != d.kind:
            f, fp = None, None
        if d.kind in ("array", "map"):
            steps = ("element",) if d.kind == "array" else ("key", "value")
            for index, step in enumerate(steps):
                child = f.fields[index][1] if f is not None else None
                walk(child, d.fields[index][1], t.fields[index][1],
                     None if fp is None else (*fp, (step, 0)), (*dp, (step, 0)))  # fmt: skip
        elif d.kind == "struct":
            for position, (name, d_child) in enumerate(d.fields):
                if position >= len(t.fields):
                    continue
                found = None
                if f is not None:
                    found = field_index(f, name, position, by_name, case_sensitive)
                f_child = None if f is None or found is None else f.fields[found][1]
                f_path = None if fp is None or found is None else (*fp, ("field", found))
                walk(f_child, d_child, t.fields[position][1], f_path,
                     (*dp, ("field", position)))  # fmt: skip

    walk(file, declared, table, (), ())
    return out


def child_type(hive: HiveType, step: Step) -> HiveType:
    """The type one ``Step`` into ``hive``."""
    kind, index = step
    return hive.fields[index if kind == "field" else int(kind == "value")][1]


def field_index(
    src: HiveType, name: str, position: int, by_name: bool, case_sensitive: bool
) -> int | None:
    """The index of ``src``'s struct field that a reader's field ``name`` at ``position``
    reads: by name (``by_name``, ORC's schema evolution of named files; ``case_sensitive``)
    or by position; ``None`` where there is none (the field reads NULL)."""
    if not by_name:
        return position if position < len(src.fields) else None
    wanted = name if case_sensitive else name.lower()
    for index, (candidate, _) in enumerate(src.fields):
        if (candidate if case_sensitive else candidate.lower()) == wanted:
            return index
    return None


def names_asked(declared: HiveType, table: HiveType) -> HiveType:
    """``declared`` (a partition's type) with the table's struct field names, position by
    position at every depth: what Hive's Parquet reader asks a file for. It requests the
    table's columns (``HiveInputFormat.pushFilters`` puts the table scan's names and types in
    ``columns``; ``DataWritableReadSupport.init`` finds them in the file by name, ignoring
    case) and lays each row out in the table's order, which the partition's declared types
    then read by position. A declared field past the table's is dropped: Hive's converter to
    the table never shows it. Hand-written: no library models Hive's reader."""
    if declared.kind != table.kind or declared.is_primitive:
        return declared
    if declared.kind == "struct":
        fields = tuple(
            (t_name, names_asked(d_type, t_type))
            for (_, d_type), (t_name, t_type) in zip(declared.fields, table.fields)
        )
        return HiveType("struct", declared.params, fields)
    if len(declared.fields) != len(table.fields):  # a union's alternatives
        return declared
    return HiveType(
        declared.kind,
        declared.params,
        tuple(
            (name, names_asked(d_type, t_type))
            for (name, d_type), (_, t_type) in zip(declared.fields, table.fields)
        ),
    )

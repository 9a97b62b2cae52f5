"""Which type changes Hive can read at all: one rule for inspect, plan, migrate and validate.

Hive reads an ORC file's column as the partition's declared type through ORC schema evolution
(``ConvertTreeReaderFactory.canConvert``). Where that says no, ``SchemaEvolution`` throws
``IllegalEvolutionException`` and every Hive query that touches the partition fails; the
partition-to-table step (``ObjectInspectorConverters``) has the same limits (a complex value
given to a primitive converter is a ``ClassCastException``). lakeshift therefore refuses such a
partition (an ``error`` anomaly: not migrated until fixed) and migrates the others. A change
Hive *can* read converts value by value, and a value that does not convert reads NULL.

The rule, as ORC states it: nothing converts from or to a complex type except the same kind
(element, key, value and struct fields checked in turn); booleans and numbers do not convert to
``binary`` or ``date``; ``date`` converts only to strings and ``timestamp``; ``binary`` only to
strings; ``timestamp`` to anything but ``binary``; strings to anything.
"""

from __future__ import annotations

from lakeshift.hive.types import HiveType

_NUMERIC = frozenset(
    {"boolean", "tinyint", "smallint", "int", "bigint", "float", "double", "decimal"}
)
_STRINGS = frozenset({"string", "char", "varchar"})
_NOT_TO: dict[str, frozenset[str]] = {
    **{kind: frozenset({"binary", "date"}) for kind in _NUMERIC},
    "timestamp": frozenset({"binary"}),
    "date": _NUMERIC | {"binary"},
    # ORC's canConvert lets binary through to date, but its binary reader then only builds
    # string readers; Spark cannot cast binary to date either.
    "binary": _NUMERIC | {"timestamp", "date"},
}


def _primitive(src: HiveType, dst: HiveType) -> bool:
    if src.kind == "void" or src.kind == dst.kind or src.kind in _STRINGS:
        return True
    return dst.kind not in _NOT_TO.get(src.kind, frozenset())


def unreadable(
    src: HiveType,
    dst: HiveType,
    *,
    by_name: bool,
    case_sensitive: bool = False,
    at: str = "",
    converter: bool = False,
    legacy_orc: bool = False,
) -> str | None:
    """Why Hive cannot read a value of type ``src`` as ``dst``, or ``None`` when it can.

    Struct fields are matched by name when ``by_name`` (ORC schema evolution of named files),
    else by position (positional files; the partition-to-table step). ``at`` names the nested
    field in the reason (``.a.b``, ``[]``, ``.key``). ``converter``: the partition-to-table
    step (Hive's ObjectInspector converters), whose ``getBoolean`` has no case for CHAR and
    VARCHAR (Hive 2.3 and 3.1 ``PrimitiveObjectInspectorUtils``): every query of such a
    partition fails with "unsupported conversion" (seen in Hive 2.3.9). ``legacy_orc``: the
    step is ORC 1.3-1.5's schema evolution (Hive 2.x and 3.1, ``HiveSemantics.orc_sql_dates``),
    whose reader of text as ``binary`` (``BinaryFromStringGroupTreeReader``, built without
    the column's present stream) reads neither the bytes nor which values are NULL: Hive's
    ``RecordReaderImpl.nextBinary`` then copies from a missing buffer (``BytesWritable
    .set(null, 0, 0)``), a NullPointerException on the first row (read in ORC 1.3.4's,
    1.5.8's and Hive 2.3.7's source).
    """
    where = f" at {at}" if at else ""
    if src.is_primitive and dst.is_primitive:
        if converter and src.kind in ("char", "varchar") and dst.kind == "boolean":
            return (
                f"{src} cannot be read as {dst}{where} (Hive's converter has no such "
                "conversion: every query of the partition fails)"
            )
        if legacy_orc and src.kind in _STRINGS and dst.kind == "binary":
            return (
                f"{src} cannot be read as {dst}{where} (Hive's ORC reader before ORC 1.6 "
                "never reads the text's bytes: every query of the partition fails)"
            )
        if _primitive(src, dst):
            return None
        return f"{src} cannot be read as {dst}{where} (Hive's reader has no such conversion)"
    if src.kind != dst.kind:
        return f"{src} cannot be read as {dst}{where} (Hive converts no complex type to another)"
    if dst.kind == "uniontype" and len(src.fields) != len(dst.fields):
        return f"{src} cannot be read as {dst}{where} (different union arity)"
    for inner_src, inner_dst, inner_at in nested_pairs(
        src, dst, by_name=by_name, case_sensitive=case_sensitive, at=at
    ):
        reason = unreadable(
            inner_src,
            inner_dst,
            by_name=by_name,
            case_sensitive=case_sensitive,
            at=inner_at,
            converter=converter,
            legacy_orc=legacy_orc,
        )
        if reason:
            return reason
    return None


def nested_pairs(
    src: HiveType, dst: HiveType, *, by_name: bool, case_sensitive: bool = False, at: str = ""
) -> list[tuple[HiveType, HiveType, str]]:
    """The (source, declared, path) pairs one level inside two complex types of one kind, as
    Hive's reader pairs them: struct fields by name when ``by_name`` else by position (a
    declared field the source lacks has no pair), array elements, map keys and values, union
    members by position."""
    if dst.kind == "struct":
        pairs = []
        for position, (name, dst_type) in enumerate(dst.fields):
            found = _field(src, name, position, by_name, case_sensitive)
            if found is not None:
                pairs.append((found, dst_type, f"{at}.{name}"))
        return pairs
    if dst.kind == "array":
        return [(src.fields[0][1], dst.fields[0][1], f"{at}[]")]
    if dst.kind == "map":
        return [
            (src.fields[0][1], dst.fields[0][1], f"{at}.key"),
            (src.fields[1][1], dst.fields[1][1], f"{at}.value"),
        ]
    # uniontype: by position, as Hive's union converter does
    return [(s, d, f"{at}.{name}") for (_, s), (name, d) in zip(src.fields, dst.fields)]


def primitive_pairs(
    src: HiveType, dst: HiveType, *, by_name: bool, case_sensitive: bool = False, at: str = ""
) -> list[tuple[HiveType, HiveType, str]]:
    """The (source, declared, path) pairs of primitive types at any depth of two types, paired
    as Hive's reader pairs them (``nested_pairs``); complex types of different kinds pair
    nothing (the partition is refused as unreadable)."""
    if src.is_primitive and dst.is_primitive:
        return [(src, dst, at)]
    if src.kind != dst.kind or src.is_primitive:
        return []
    out: list[tuple[HiveType, HiveType, str]] = []
    for inner_src, inner_dst, inner_at in nested_pairs(
        src, dst, by_name=by_name, case_sensitive=case_sensitive, at=at
    ):
        out.extend(
            primitive_pairs(
                inner_src, inner_dst, by_name=by_name, case_sensitive=case_sensitive, at=inner_at
            )
        )
    return out


def numbers_as_timestamps(
    src: HiveType, dst: HiveType, *, by_name: bool, case_sensitive: bool = False, at: str = ""
) -> list[str]:
    """``path: source -> timestamp`` for each field (at any depth, paired as Hive's reader
    pairs them) where a float, double or a decimal of more than six fraction digits is read
    as a timestamp: Hive's converter and ORC's schema evolution take the nanoseconds from the
    number's digits, the targets keep microseconds."""
    out = []
    for source, declared, path in primitive_pairs(
        src, dst, by_name=by_name, case_sensitive=case_sensitive, at=at
    ):
        scale = source.params[1] if source.kind == "decimal" and len(source.params) > 1 else 0
        if declared.kind == "timestamp" and (source.kind in ("float", "double") or scale > 6):
            out.append(f"{path}: {source} -> {declared}")
    return out


def _field(
    src: HiveType, name: str, position: int, by_name: bool, case_sensitive: bool
) -> HiveType | None:
    if not by_name:
        return src.fields[position][1] if position < len(src.fields) else None
    wanted = name if case_sensitive else name.lower()
    for field_name, field_type in src.fields:
        if (field_name if case_sensitive else field_name.lower()) == wanted:
            return field_type
    return None

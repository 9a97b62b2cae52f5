"""Which Parquet partitions Hive's Parquet reader fails on, and which values it changes on
the way (``built``), per Hive version (pure).

Hive reads a Parquet partition's file for the *table's* columns, by the table's names
(``projection.asks_table_names``), and its converters (``ETypeConverter``) build each value
as a Hadoop writable chosen from the file's physical type and, from Hive 2.0 (HIVE-12080), the
*table's* type: an ``INT32`` column the table declares ``bigint`` arrives as a
``LongWritable``. The partition's declared types then read those writables by position
(``ArrayWritableObjectInspector``), and a declared type whose inspector expects another class
throws ``ClassCastException``: every query of the partition fails, as it does after an
``ALTER TABLE ... CHANGE`` from ``int`` to ``bigint`` without ``CASCADE`` on a Parquet
partition. lakeshift refuses such a partition, as it refuses what ORC's schema evolution
cannot convert (``conversions.unreadable``).

Read in Hive 2.3.7's, 3.1.3's and 4.0.1's ``ETypeConverter`` and checked against Hive 2.3.9
for every pair of primitive types (``tests/differential``); Hive 1.2 (no table type given to
the converters) and Hive 3.1 and 4 from the source only. Hand-written: no library models
Hive's reader.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from lakeshift.hive.types import HiveType, field_index

_INT32 = frozenset({"tinyint", "smallint", "int"})
_STRINGS = frozenset({"string", "char", "varchar"})
_NUMBERS = frozenset({"tinyint", "smallint", "int", "bigint", "float", "double", "decimal"})
#: the writable each declared kind's inspector reads (tinyint and smallint: Parquet's own
#: inspectors, which take an ``IntWritable``; strings: ``Text`` or ``BytesWritable``)
_READS: dict[str, frozenset[str]] = {
    **{kind: frozenset({"int"}) for kind in _INT32},
    **{kind: frozenset({"text", "binary"}) for kind in _STRINGS},
    "binary": frozenset({"binary"}),
}


def writable(file_kind: str, table_kind: str, version: str, int96: bool = True) -> str:
    """The kind of writable Hive's Parquet reader builds for a file value of ``file_kind``
    (as lakeshift names a Parquet column's type) that the table declares ``table_kind``."""
    if file_kind == "timestamp" and not int96 and version != "4":
        file_kind = "bigint"  # INT64 timestamps: read as numbers until Hive 4 (HIVE-21215)
    own = "int" if file_kind in _INT32 else "text" if file_kind in _STRINGS else file_kind
    if version == "1.2":
        return own
    if version == "4" and file_kind in _NUMBERS and table_kind in _NUMBERS:
        return "int" if table_kind in _INT32 else table_kind  # Hive 4 converts to the table's
    if file_kind in _INT32:
        if table_kind in ("bigint", "float", "double"):
            return table_kind
        return "decimal" if table_kind == "decimal" and version != "2.3" else own
    if file_kind == "bigint":
        if table_kind in ("float", "double"):
            return table_kind
        if version != "2.3" and table_kind == "decimal":
            return "decimal"
        return "int" if version != "2.3" and table_kind in _INT32 else own
    if file_kind == "float" and table_kind == "double":
        return "double"
    return own


@dataclass(frozen=True)
class Refusal:
    """Why lakeshift refuses a Parquet column (``parquet_unreadable``): ``failure`` names the
    exception every Hive query of the partition fails with, or is None where Hive shows other
    values than the file holds, which lakeshift does not copy; ``message`` says which column
    and why."""

    message: str
    failure: str | None = None

    def __str__(self) -> str:
        return self.message


def _fails(why: str, failure: str) -> Refusal:
    return Refusal(f"{why} ({failure}: every query of the partition fails)", failure)


def parquet_unreadable(
    file: HiveType,
    declared: HiveType,
    table: HiveType,
    *,
    version: str,
    int96: bool = True,
    integer_decimals: frozenset[str] = frozenset(),
    at: str = "",
) -> Refusal | None:
    """Why every Hive query of a Parquet partition fails on this column, or Hive shows other
    values than it holds, or ``None``:
    ``declared`` is the partition's type as the reader asks for it (the table's names,
    ``hive.types.names_asked``), matched to the table's by position and found in ``file`` by
    name, ignoring case; ``int96``: the file's timestamps are ``INT96``."""
    if declared.is_primitive:
        if not (file.is_primitive and table.is_primitive):
            return None  # the converters' own rule refuses it (conversions.unreadable)
        if file.kind == "decimal" and at.lower() in integer_decimals:
            return _integer_decimal(file, table, version, at)
        built = writable(file.kind, table.kind, version, int96)
        if built in _READS.get(declared.kind, frozenset({declared.kind})):
            return None
        return _fails(
            f"Hive {version}'s Parquet reader builds the file's {file}{at} as a {built} value "
            f"for the table's {table}, which the partition's declared {declared} cannot read",
            "ClassCastException",
        )
    if file.kind != declared.kind or table.kind != declared.kind:
        return None
    if declared.kind == "struct":
        for position, (name, child) in enumerate(declared.fields[: len(table.fields)]):
            found = field_index(file, name, position, by_name=True, case_sensitive=False)
            if found is None:
                continue
            reason = parquet_unreadable(
                file.fields[found][1],
                child,
                table.fields[position][1],
                version=version,
                int96=int96,
                integer_decimals=integer_decimals,
                at=f"{at}.{name}",
            )
            if reason:
                return reason
        return None
    steps = ("[]",) if declared.kind == "array" else (".key", ".value")
    for index, step in enumerate(steps[: len(declared.fields)]):
        reason = parquet_unreadable(
            file.fields[index][1],
            declared.fields[index][1],
            table.fields[index][1],
            version=version,
            int96=int96,
            integer_decimals=integer_decimals,
            at=at + step,
        )
        if reason:
            return reason
    return None


def _integer_decimal(file: HiveType, table: HiveType, version: str, at: str) -> Refusal | None:
    """Why Hive ``version`` cannot show a decimal the file stores as an ``INT32``/``INT64``
    (as Spark writes those of up to 18 digits), or ``None`` where it reads it as any other.
    Hive 1.2-3.1 build a decimal only from binary (``EDECIMAL_CONVERTER`` is a
    ``BinaryConverter`` in 2.3.7 and 3.1.3; Hive 2.3.9 fails with ParquetDecodingException).
    Hive 4.0.1 reads one for a number table, but for a decimal table takes the integer at the
    table's scale (``HiveDecimal.create(value, decimalInfo.scale())``: 12.34 stored as 1234
    shows 1.234 under decimal(10,3)), and for a text table has no converter."""
    where = f"the file's {file}{at} (stored as an integer, as Spark writes decimals)"
    if version != "4":
        return _fails(
            f"Hive {version}'s Parquet reader reads a decimal only from binary, not {where}",
            "ParquetDecodingException",
        )
    if table.kind in _STRINGS:
        return _fails(
            f"Hive 4's Parquet reader has no text converter for {where}",
            "UnsupportedOperationException",
        )
    if table.kind == "decimal" and table.params[1:] != file.params[1:]:
        return Refusal(
            f"Hive 4's Parquet reader takes {where} at the table's scale "
            f"({table}), not its own: its values would show shifted; lakeshift does not copy that"
        )
    return None


#: the integer kinds' ranges (Java's ``Byte``, ``Short``, ``Integer``, ``Long``)
INTEGER_RANGE = {
    "tinyint": (-(2**7), 2**7 - 1),
    "smallint": (-(2**15), 2**15 - 1),
    "int": (-(2**31), 2**31 - 1),
    "bigint": (-(2**63), 2**63 - 1),
}
FLOAT_MAX = 3.4028234663852886e38  # Float.MAX_VALUE
FLOAT_MIN_NORMAL = 2.0**-126  # the least double whose Math.getExponent is Float.MIN_EXPONENT
FLOAT_MIN = 2.0**-149  # Float.MIN_VALUE


@dataclass(frozen=True)
class Built:
    """How Hive's Parquet reader changes a file value while building it for the table's
    type (``ETypeConverter``), where it is not the value the file holds. ``to``: the value's
    type afterwards, which the partition's declared type then reads. ``rule``:

    - ``"float"``: rounded through a ``float`` (an ``INT32`` built for a ``double`` table:
      ``new DoubleWritable((float) value)``);
    - ``"range"``: NULL outside ``[low, high]`` (an integer built for a narrower table type);
    - ``"integral"``: NULL unless a whole number in ``[low, high]``, compared as a double
      (Hive 4: a floating or decimal value built for an integer table type);
    - ``"magnitude"``: NULL unless ``low <= |value| <= high`` as a double, or zero where
      ``zero`` (Hive 4: a double or decimal built for a ``float`` table);
    - ``"convert"``: Hive's conversion to ``to`` (Hive 4: a double or decimal enforced to the
      table's precision and scale before the declared type reads it; a float through its
      double where ``widen``: ``setFromDouble``, the double's text).
    """

    to: HiveType
    rule: str
    low: float = 0
    high: float = 0
    zero: bool = False
    widen: bool = False


def built(file: HiveType, table: HiveType, version: str) -> Built | None:
    """How Hive ``version``'s Parquet reader changes a primitive file value of type ``file``
    that the table declares ``table``, or ``None`` where it keeps it. From ``ETypeConverter``
    in Hive 2.3.7, 3.1.3 and 4.0.1; the ``float`` rule checked against Hive 2.3.9. Hive 1.2
    builds every value as the file holds it; Hive 4's floating and decimal rules are read
    from the source only."""
    fk, tk = file.kind, table.kind
    if version == "1.2" or not (file.is_primitive and table.is_primitive):
        return None
    if fk == "int" and tk == "double":  # smaller INT32 kinds fit a float's 24 bits
        return Built(HiveType("double"), "float")
    if version == "2.3":
        return None
    if fk in INTEGER_RANGE and tk in INTEGER_RANGE and _bits(tk) < _bits(fk):
        # Hive 3.1+: out of the table type's range reads NULL (getMinValue/getMaxValue)
        low, high = INTEGER_RANGE[tk]
        return Built(HiveType("int") if fk == "bigint" else file, "range", low, high)
    if version != "4":
        return None
    if fk in ("float", "double", "decimal") and tk in INTEGER_RANGE:
        low, high = INTEGER_RANGE[tk]
        to = HiveType("bigint" if tk == "bigint" else "int")
        return Built(to, "integral", float(low), float(high))
    if fk == "double" and tk == "float":  # also drops zero and float's subnormals
        return Built(HiveType("float"), "magnitude", FLOAT_MIN_NORMAL, FLOAT_MAX)
    if fk == "decimal" and tk == "float":
        return Built(HiveType("float"), "magnitude", FLOAT_MIN, FLOAT_MAX, zero=True)
    if fk in ("float", "double") and tk == "decimal":
        return Built(table, "convert", widen=fk == "float")
    if fk == "decimal" and tk == "decimal" and file.params != table.params:
        return Built(table, "convert")
    return None


def unsigned_nulls(version: str) -> bool:
    """Whether Hive ``version``'s Parquet reader shows an unsigned integer (``UINT_8`` ..
    ``UINT_64``, as pandas and pyarrow write ``uint*``) whose physical ``INT32``/``INT64`` is
    negative as NULL: from 3.1 its converters' least value is 0 for them (``getMinValue``, in
    every branch of 3.1.3's and 4.0.1's ``EINT32_CONVERTER``/``EINT64_CONVERTER``). Hive 1.2
    and 2.x take the physical value as it is, signed: a ``UINT_32`` 4294967295 shows -1 (Hive
    2.3.9, ``make differential``). Map keys are left signed (README "Limits")."""
    return version not in ("1.2", "2.3")


def _bits(kind: str) -> int:
    return INTEGER_RANGE[kind][1].bit_length()


def rebuilds(file: HiveType, table: HiveType, version: str) -> bool:
    """Whether Hive ``version``'s Parquet reader changes any value of a file column of type
    ``file`` that the table declares ``table`` (``built``), at any depth: struct fields found
    by the table's names ignoring case (``HiveStructConverter.getFieldTypeIgnoreCase``),
    elements and map values. Map keys are left as the file holds them (README "Limits")."""
    if file.is_primitive:
        return built(file, table, version) is not None
    if file.kind != table.kind or file.kind not in ("struct", "array", "map"):
        return False
    return any(rebuilds(child, inner, version) for child, inner in nested_pairs(file, table))


def nested_pairs(file: HiveType, table: HiveType) -> list[tuple[HiveType, HiveType]]:
    """The (file, table) types Hive's Parquet reader pairs inside a struct, array or map
    (``rebuilds``): a struct field the table lacks is paired with nothing (left out); a map's
    key is not paired."""
    if file.kind == "struct":
        pairs = []
        for name, child in file.fields:
            found = field_index(table, name, 0, by_name=True, case_sensitive=False)
            if found is not None:
                pairs.append((child, table.fields[found][1]))
        return pairs
    if file.kind == "array":
        return [(file.fields[0][1], table.fields[0][1])]
    return [(file.fields[1][1], table.fields[1][1])]


def holds_unsigned(hive: HiveType, scanned: HiveType) -> bool:
    """Whether a Parquet column Spark scans as ``scanned`` (``FileInfo.scanned``) where Hive
    reads ``hive`` holds a ``UINT_32``/``UINT_64`` leaf (its other such leaves are nanosecond
    timestamps)."""
    if hive.is_primitive:
        return hive != scanned and hive.kind in ("int", "bigint")
    return any(holds_unsigned(h, w) for (_, h), (_, w) in zip(hive.fields, scanned.fields))


def keys_rebuilt(
    file: HiveType, table: HiveType, version: str, wide: HiveType | None = None, at: str = ""
) -> list[str]:
    """Where Hive ``version``'s Parquet reader builds a map's keys for the table's key type
    (``built``; and from 3.1 an unsigned key past the signed range as NULL: ``wide`` is the
    column's type as Spark scans it, ``FileInfo.scanned``), which lakeshift leaves
    as the file holds them (README "Limits"): the paths of those maps (``""`` for the column
    itself, ``.field``, ``[]``, ``.value``)."""
    if file.kind != table.kind or file.kind not in ("struct", "array", "map"):
        return []
    found = []
    children = [w for _, w in wide.fields] if wide is not None else [None] * len(file.fields)
    if file.kind == "map":
        key, table_key = file.fields[0][1], table.fields[0][1]
        unsigned = children[0] not in (None, key) and key.kind in ("int", "bigint")
        nulled = unsigned and unsigned_nulls(version)
        rebuilt = key.is_primitive and table_key.is_primitive and built(key, table_key, version)
        if rebuilt or nulled:
            found.append(at)
    if file.kind == "struct":
        for (name, child), child_wide in zip(file.fields, children):
            index = field_index(table, name, 0, by_name=True, case_sensitive=False)
            if index is not None:
                inner = table.fields[index][1]
                found += keys_rebuilt(child, inner, version, child_wide, f"{at}.{name}")
    elif file.kind == "array":
        found += keys_rebuilt(file.fields[0][1], table.fields[0][1], version, children[0],
                              f"{at}[]")  # fmt: skip
    else:
        found += keys_rebuilt(file.fields[1][1], table.fields[1][1], version, children[1],
                              f"{at}.value")  # fmt: skip
    return found


def built_type(file: HiveType, table: HiveType, version: str) -> HiveType:
    """``file`` with every value Hive ``version``'s Parquet reader builds as another type
    (``built``) given that type, at every depth (as ``rebuilds`` pairs them)."""
    if file.is_primitive:
        change = built(file, table, version)
        return change.to if change else file
    if not rebuilds(file, table, version):
        return file
    if file.kind == "struct":
        fields = []
        for name, child in file.fields:
            found = field_index(table, name, 0, by_name=True, case_sensitive=False)
            inner = child if found is None else built_type(child, table.fields[found][1], version)
            fields.append((name, inner))
        return replace(file, fields=tuple(fields))
    if file.kind == "array":
        element = built_type(*nested_pairs(file, table)[0], version)
        return replace(file, fields=((file.fields[0][0], element),))
    value = built_type(*nested_pairs(file, table)[0], version)
    return replace(file, fields=(file.fields[0], (file.fields[1][0], value)))

"""Classification rules, on hand-made records (no metastore, no files)."""

from __future__ import annotations

from dataclasses import replace

from hive_metastore.ttypes import Table

from lakeshift.hive.semantics import HiveSemantics, version_defaults
from lakeshift.inspect.anomalies import Rules, classify_partition, many_small_files, schema_drift
from lakeshift.inspect.model import Column, FileInfo, PartitionInfo
from lakeshift.inspect.table_checks import table_warnings

TABLE = (Column("id", "bigint"), Column("name", "string"), Column("amount", "double"))


def _file(path: str, columns: tuple[Column, ...], rows: int = 10, **kw: object) -> FileInfo:
    return FileInfo(
        path=path, size=1000, mtime_ns=1, format="orc", columns=columns, rows=rows, **kw
    )  # type: ignore[arg-type]


def _partition(files: tuple[FileInfo, ...] = (), **kw: object) -> PartitionInfo:
    base = PartitionInfo(
        name="dt=1",
        values=("1",),
        location="file:/t/dt=1",
        location_exists=True,
        outside_table_root=False,
        format="orc",
        input_format="OrcInputFormat",
        serde="OrcSerde",
        columns=TABLE,
        parameters={},
        files=files,
        skipped_files=0,
        fingerprint="x",
    )
    return replace(base, **kw)  # type: ignore[arg-type]


DEFAULT_RULES = Rules()


def codes(p: PartitionInfo, rules: Rules = DEFAULT_RULES) -> set[str]:
    return {a.code for a in classify_partition(p, TABLE, "orc", rules)}


def test_clean_partition_has_no_anomalies() -> None:
    assert codes(_partition((_file("f", TABLE),))) == set()


def test_positional_files_compare_by_position() -> None:
    wide = tuple(Column(f"_col{i}", t) for i, t in enumerate(["bigint", "string", "double", "int"]))
    found = codes(_partition((_file("f", wide),)))
    assert found == {"positional-files", "file-extra-columns"}
    narrow = tuple(Column(f"_col{i}", t) for i, t in enumerate(["bigint", "string"]))
    assert codes(_partition((_file("f", narrow),))) == {"positional-files", "file-missing-columns"}


INSENSITIVE = Rules(hive=HiveSemantics(case_sensitive=False))
HIVE_12 = Rules(hive=version_defaults("1.2"))


def test_by_name_extra_missing_reordered_and_retyped() -> None:
    f = _file("f", (Column("amount", "float"), Column("ID", "bigint"), Column("x", "int")))
    found = codes(_partition((f,)), INSENSITIVE)
    assert found == {
        "file-extra-columns",
        "file-missing-columns",
        "file-reordered-columns",
        "file-type-differs",
        "name-case-differs",  # named either way
        "hive-version-sensitive",  # Hive 1.2 reads the file by position
    }


def test_case_sensitive_matching_follows_orc_default() -> None:
    f = _file("f", (Column("ID", "bigint"), Column("name", "string"), Column("amount", "double")))
    # Hive 2.x/3.1 (ORC's orc.schema.evolution.case.sensitive=true): ID is not id, reads NULL.
    sensitive = codes(_partition((f,)))
    assert {"name-case-differs", "file-extra-columns", "file-missing-columns"} <= sensitive
    assert "hive-version-sensitive" in sensitive  # Hive 1.2 and 4 read it by position
    assert codes(_partition((f,)), INSENSITIVE) == {"name-case-differs", "hive-version-sensitive"}
    case_note = next(
        a
        for a in classify_partition(_partition((f,)), TABLE, "orc", DEFAULT_RULES)
        if a.code == "name-case-differs"
    )
    assert "read NULL" in case_note.action and "ID (as id)" in case_note.message


def test_position_mode_ignores_names() -> None:
    f = _file("f", (Column("a", "bigint"), Column("b", "string"), Column("c", "double")))
    positional = Rules(hive=HiveSemantics(orc_positional=True))
    assert codes(_partition((f,)), positional) == {"hive-version-sensitive"}
    assert "file-missing-columns" in codes(_partition((f,)))


def test_partition_versus_table_by_position_in_hive_12() -> None:
    older = (Column("id", "bigint"), Column("nm", "string"))
    found = codes(_partition((_file("f", older),), columns=older), HIVE_12)
    assert found == {"partition-behind-table", "partition-column-renamed", "hive-version-sensitive"}
    retyped = (Column("id", "int"), *TABLE[1:])
    assert "partition-type-differs" in codes(
        _partition((_file("f", retyped),), columns=retyped), HIVE_12
    )


def test_schema_evolution_reads_orc_with_the_table_columns() -> None:
    older = (Column("id", "bigint"), Column("nm", "string"))
    found = codes(_partition((_file("f", older),), columns=older))
    # The partition's own declaration is ignored; the file is compared with the table.
    assert found == {
        "partition-columns-ignored",
        "file-extra-columns",
        "file-missing-columns",
        "hive-version-sensitive",
    }
    retyped = (Column("id", "int"), *TABLE[1:])
    found = codes(_partition((_file("f", retyped),), columns=retyped))
    assert "partition-type-differs" not in found and "file-type-differs" in found


def test_string_to_boolean_is_version_sensitive_in_text_partitions() -> None:
    table = (Column("flag", "boolean"),)
    declared = (Column("flag", "string"),)
    text = FileInfo(path="t", size=5, mtime_ns=1, format="text", columns=declared, rows=1)
    p = _partition((text,), columns=declared, format="text")
    found = classify_partition(p, table, "orc", DEFAULT_RULES)
    sensitive = next(a for a in found if a.code == "hive-version-sensitive")
    assert "non-empty string is true" in sensitive.message


def test_orc_release_conversions_are_version_sensitive() -> None:
    """ORC 1.3/1.5 (Hive 2.x/3.1) print a timestamp read as text by java.sql's toString (a
    whole second with '.0'), read an integer as a timestamp in milliseconds and a float as a
    double through its text, and give a timestamp's day as written; ORC 1.6+ (Hive 4) do not:
    the plan names such columns."""
    table = (Column("at", "string"), Column("short", "varchar(12)"), Column("day", "string"),
             Column("n", "timestamp"), Column("f", "double"), Column("d", "double"),
             Column("on", "date"))  # fmt: skip
    written = (Column("at", "timestamp"), Column("short", "timestamp"), Column("day", "date"),
               Column("n", "bigint"), Column("f", "float"), Column("d", "int"),
               Column("on", "timestamp"))  # fmt: skip
    found = classify_partition(
        _partition((_file("f", written),), columns=table), table, "orc", DEFAULT_RULES
    )
    sensitive = next(a for a in found if a.code == "hive-version-sensitive")
    # a date prints alike; an int widens to a double alike
    assert set(sensitive.details["columns"]) == {"at", "short", "n", "f", "on"}
    assert "'10:00:00.0'" in sensitive.message and "milliseconds" in sensitive.message
    plain = classify_partition(
        _partition((_file("f", table),), columns=table), table, "orc", DEFAULT_RULES
    )
    assert "hive-version-sensitive" not in {a.code for a in plain}


def test_string_to_date_and_timestamp_are_version_sensitive() -> None:
    table = (Column("day", "date"), Column("at", "timestamp"), Column("note", "string"))
    declared = (Column("day", "varchar(10)"), Column("at", "string"), Column("note", "string"))
    text = FileInfo(path="t", size=5, mtime_ns=1, format="text", columns=declared, rows=1)
    p = _partition((text,), columns=declared, format="text")
    found = classify_partition(p, table, "orc", DEFAULT_RULES)
    sensitive = next(a for a in found if a.code == "hive-version-sensitive")
    assert set(sensitive.details["columns"]) == {"day", "at"}
    assert "java.time" in sensitive.message
    same = _partition((text,), columns=table, format="text")
    assert "hive-version-sensitive" not in {
        a.code for a in classify_partition(same, table, "orc", DEFAULT_RULES)
    }
    # An ORC partition is read by ORC's rules from Hive 2.1 on, not by the converter: only the
    # file comparison names it (Hive 1.2 reads the file column as the declared string).
    orc = _file("f", declared)
    found = classify_partition(_partition((orc,), columns=declared), table, "orc", DEFAULT_RULES)
    sensitive = next(a for a in found if a.code == "hive-version-sensitive")
    assert "java.time" not in sensitive.message and "as string" in sensitive.message
    # A string file column the table (and partition) read as a date: ORC's own conversion,
    # java.sql's parsers in ORC 1.3/1.5 (Hive 2.x/3.1), exact forms in ORC 1.6+ (Hive 4)
    found = classify_partition(_partition((orc,), columns=table), table, "orc", DEFAULT_RULES)
    sensitive = next(a for a in found if a.code == "hive-version-sensitive")
    assert set(sensitive.details["columns"]) == {"day", "at"}
    assert "java.sql" in sensitive.message and "ORC 1.6+" in sensitive.message
    assert "hive-version-sensitive" not in {
        a.code
        for a in classify_partition(
            _partition((_file("f", table),), columns=table), table, "orc", DEFAULT_RULES
        )
    }


def test_location_and_content_anomalies() -> None:
    assert codes(_partition(location_exists=False)) == {"missing-directory"}
    assert codes(_partition()) == {"empty-partition"}
    p = _partition(
        (_file("f", TABLE),),
        name="dt=__HIVE_DEFAULT_PARTITION__",
        outside_table_root=True,
        skipped_files=2,
        parameters={"numRows": "11"},
    )
    assert codes(p) == {"null-partition", "outside-table-root", "skipped-files", "stats-mismatch"}


def test_corrupt_and_foreign_files_are_errors_that_block_migration() -> None:
    bad = FileInfo(path="bad", size=5, mtime_ns=1, format="unknown", error="ArrowInvalid: x")
    text = FileInfo(path="t.csv", size=5, mtime_ns=1, format="text")
    p = _partition((_file("f", TABLE), bad, text))
    classified = classify_partition(p, TABLE, "orc", Rules())
    errors = {a.code for a in classified if a.severity == "error"}
    assert errors == {"corrupt-file", "file-format-differs"}
    assert not replace(p, anomalies=tuple(classified)).migratable


def test_parquet_partition_in_orc_table_is_flagged() -> None:
    f = FileInfo(path="p", size=9, mtime_ns=1, format="parquet", columns=TABLE, rows=1)
    assert codes(_partition((f,), format="parquet")) == {"partition-format-differs"}


def test_small_files_threshold() -> None:
    files = tuple(_file(f"f{i}", TABLE, rows=1) for i in range(20))
    assert "small-files" in codes(_partition(files))
    assert "small-files" not in codes(_partition(files[:3]))


def test_schema_drift_counts_distinct_physical_schemas() -> None:
    a = _partition((_file("f", TABLE),))
    b = _partition((_file("g", TABLE[:2]),), name="dt=2")
    assert schema_drift([a]) == []
    assert schema_drift([a, b])[0].details["schemas"] == 2


def test_text_partitions_migrate_only_through_lazy_simple_serde() -> None:
    f = FileInfo(path="t", size=9, mtime_ns=1, format="text", columns=TABLE, rows=2)
    csv = _partition((f,), format="text", serde="org.apache.hadoop.hive.serde2.OpenCSVSerde")
    classified = classify_partition(csv, TABLE, "orc", Rules())
    assert [(a.code, a.severity) for a in classified] == [("partition-format-differs", "error")]
    lazy = replace(csv, serde="org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe")
    classified = classify_partition(lazy, TABLE, "orc", Rules())
    assert [(a.code, a.severity) for a in classified] == [("partition-format-differs", "warning")]


def test_many_tiny_files_across_partitions_are_flagged_at_table_level() -> None:
    tiny = [
        _partition((replace(_file("000000_0", TABLE, rows=5), size=600),), name=f"dt={i}")
        for i in range(2000)
    ]
    assert all("small-files" not in codes(p) for p in tiny[:3])  # one file each: not per partition
    (found,) = many_small_files(tiny, Rules())
    assert found.code == "many-small-files" and found.severity == "warning"
    assert found.partition is None
    assert found.details == {"files": 2000, "partitions": 2000, "median_bytes": 600}


def test_few_or_large_files_are_not_many_small_files() -> None:
    rules = Rules()
    few = [_partition((_file("f", TABLE),), name=f"dt={i}") for i in range(rules.many_files - 1)]
    assert many_small_files(few, rules) == []
    big = replace(_file("f", TABLE), size=rules.small_file_bytes)
    large = [_partition((big,), name=f"dt={i}") for i in range(rules.many_files)]
    assert many_small_files(large, rules) == []


def test_managed_tables_are_warned_about_before_cutover_refuses_them() -> None:
    managed = Table(dbName="db", tableName="events", tableType="MANAGED_TABLE")
    (warning,) = table_warnings(managed)
    assert warning.code == "managed-table" and warning.severity == "warning"
    assert "db.events" in warning.message and "cutover" in warning.message
    external = Table(dbName="db", tableName="events", tableType="EXTERNAL_TABLE")
    assert table_warnings(external) == []


def test_a_file_type_hive_cannot_read_refuses_only_its_partition() -> None:
    # One rule (lakeshift.hive.conversions): Hive's ORC reader fails on array<int> read
    # as int, so the partition is an error, as `migrate` then treats it; 'abc' -> int is a
    # value-by-value conversion (NULL), a warning.
    arrays = (Column("id", "array<int>"), *TABLE[1:])
    classified = classify_partition(_partition((_file("f", arrays),)), TABLE, "orc", Rules())
    errors = [a for a in classified if a.severity == "error"]
    assert [a.code for a in errors] == ["file-type-incompatible"]
    assert "id: array<int> cannot be read as bigint" in errors[0].message
    strings = (Column("id", "string"), *TABLE[1:])
    assert codes(_partition((_file("f", strings),))) == {"file-type-differs"}


def test_a_partition_type_the_table_cannot_convert_is_an_error() -> None:
    nested = (Column("id", "struct<a:int>"), *TABLE[1:])
    partition = _partition((_file("f", nested),), columns=nested)
    found = classify_partition(partition, TABLE, "orc", HIVE_12)
    assert {a.code for a in found if a.severity == "error"} == {"partition-type-incompatible"}
    # Hive 2.1+ reads the file straight as the table's type, and fails the same way.
    found = classify_partition(partition, TABLE, "orc", DEFAULT_RULES)
    assert {a.code for a in found if a.severity == "error"} == {"file-type-incompatible"}


def test_plan_note_names_version_sensitive_partitions_and_columns() -> None:
    from lakeshift.inspect.model import TableInventory
    from lakeshift.migrate.planner import version_notes
    from lakeshift.schema_map.mapping import build_mapping

    renamed = (Column("id", "bigint"), Column("nm", "string"), Column("amount", "double"))
    p = _partition((_file("f", renamed),), columns=renamed)
    p = replace(p, anomalies=tuple(classify_partition(p, TABLE, "orc", DEFAULT_RULES)))
    inventory = TableInventory(
        "db", "t", "file:/t", "EXTERNAL_TABLE", "orc", "", "", TABLE,
        (Column("dt", "string"),), {}, (p,), (), (), "", "", 0.0,
    )  # fmt: skip
    notes = version_notes(inventory, build_mapping(inventory, None, HiveSemantics()))
    assert len(notes) == 1
    assert "1 partition(s)" in notes[0] and "column(s) name" in notes[0] and "dt=1" in notes[0]
    assert "Hive 2.x/3.1 NULL" in notes[0] and "Read as Hive 3.1" in notes[0]


def test_numbers_read_as_timestamps_are_named_where_digits_may_pass_a_microsecond() -> None:
    # Hive's TimestampUtils.doubleToTimestamp and decimalToTimestamp (2.3.7, 3.1.3) and ORC's
    # TimestampFromDouble/DecimalTreeReader take a timestamp's nanoseconds from the number's
    # digits; Iceberg, Delta and Hudi keep microseconds.
    table = (Column("id", "bigint"), Column("at", "timestamp"), Column("s", "struct<t:timestamp>"))

    def finer(file_types: tuple[str, str, str], rules: Rules = DEFAULT_RULES) -> list[str]:
        columns = tuple(Column(c.name, t) for c, t in zip(table, file_types))
        partition = _partition((_file("f", columns),), columns=columns)
        found = classify_partition(partition, table, "orc", rules)
        return [a.message for a in found if a.code == "timestamp-from-number"]

    (message,) = finer(("bigint", "double", "struct<t:decimal(20,9)>"))
    assert "at: double -> timestamp" in message and "s.t: decimal(20,9) -> timestamp" in message
    # Integers and decimals of at most six fraction digits hold no finer digits.
    assert finer(("bigint", "decimal(12,6)", "struct<t:bigint>")) == []
    assert finer(("bigint", "timestamp", "struct<t:float>")) != []
    # Hive 1.2 reads by the partition's declared types and converts those to the table's.
    declared = (Column("id", "bigint"), Column("at", "float"), Column("s", "struct<t:timestamp>"))
    partition = _partition((_file("f", declared),), columns=declared)
    found = classify_partition(partition, table, "orc", HIVE_12)
    assert [a.message for a in found if a.code == "timestamp-from-number"] == [
        "numbers the table reads as timestamps, whose digits Hive shows to the nanosecond: "
        "at: float -> timestamp"
    ]


def test_text_read_as_binary_through_orc_before_1_6_is_an_error() -> None:
    # ORC 1.3-1.5 (Hive 2.x, 3.1) never read the text's bytes: Hive fails every query of a
    # value; ORC 1.6+ (Hive 4) and a text partition's converter read them
    blobs = (*TABLE[:1], Column("name", "binary"), *TABLE[2:])
    partition = _partition((_file("f", TABLE),))
    for version in ("2.3", "3.1"):
        found = classify_partition(partition, blobs, "orc", Rules(hive=version_defaults(version)))
        errors = [a for a in found if a.severity == "error"]
        assert [a.code for a in errors] == ["file-type-incompatible"], version
        assert "name: string cannot be read as binary (Hive's ORC reader before ORC 1.6" in (
            errors[0].message
        )
    found = classify_partition(partition, blobs, "orc", Rules(hive=version_defaults("4")))
    assert "file-type-differs" in {a.code for a in found}
    assert [a for a in found if a.severity == "error"] == []


def test_a_parquet_partition_is_read_by_the_tables_names() -> None:
    """Hive's Parquet reader asks a file for the table's names (checked against Hive 2.3.9 in
    test_hive_versions): a file holding a column's old name reads NULL there."""
    older = (Column("ident", "bigint"), Column("name", "string"), Column("amount", "double"))
    parquet = {"format": "parquet", "input_format": "MapredParquetInputFormat"}
    old_file = replace(_file("f", older), format="parquet")
    old_names = _partition((old_file,), columns=older, **parquet)
    found = {a.code: a for a in classify_partition(old_names, TABLE, "orc", DEFAULT_RULES)}
    renamed = found["partition-column-renamed"]
    assert renamed.severity == "warning" and "NULL" in renamed.message
    assert found["file-missing-columns"].message.endswith("f: id")  # the table's name
    # the file holds the table's names: nothing is missing, whatever the partition declares
    new_file = replace(_file("f", TABLE), format="parquet")
    new_names = _partition((new_file,), columns=older, **parquet)
    assert "file-missing-columns" not in codes(new_names)


def test_parquet_values_hive_versions_build_differently_are_named() -> None:
    """Hive's Parquet reader builds each value for the table's type, per version
    (``parquet_reading``): the plan names the column and what each version does."""
    parquet = {"format": "parquet", "input_format": "MapredParquetInputFormat"}
    table = (Column("id", "bigint"), Column("name", "string"), Column("amount", "smallint"))
    as_ints = (Column("id", "bigint"), Column("name", "string"), Column("amount", "int"))
    f = replace(_file("f", as_ints), format="parquet")
    found = classify_partition(_partition((f,), columns=as_ints, **parquet), table, "orc",
                               DEFAULT_RULES)  # fmt: skip
    sensitive = next(a for a in found if a.code == "hive-version-sensitive")
    readings = sensitive.details["columns"]["amount"]  # type: ignore[index]
    assert readings == {
        "1.2/2.x": "reads the file's values as they are",  # then Hive's converter wraps
        "3.1/4": "reads the file's int out of the table's smallint range as NULL",
    }
    # an int read as a double: through a float from 2.0, refused by 1.2's double inspector
    doubled = (Column("id", "bigint"), Column("name", "string"), Column("amount", "double"))
    p = _partition((f,), columns=doubled, **parquet)
    found = classify_partition(p, doubled, "orc", DEFAULT_RULES)
    readings = next(a for a in found if a.code == "hive-version-sensitive").details["columns"][
        "amount"
    ]  # type: ignore[index]
    assert list(readings) == ["1.2", "2.x/3.1/4"] and "ClassCastException" in readings["1.2"]
    # a file as the table declares it: every version alike
    same = replace(_file("f", TABLE), format="parquet")
    plain = classify_partition(_partition((same,), **parquet), TABLE, "orc", DEFAULT_RULES)
    assert "hive-version-sensitive" not in {a.code for a in plain}


def test_a_sound_file_with_a_type_lakeshift_cannot_read_is_not_called_damaged() -> None:
    unread = replace(_file("u", TABLE), format="unknown",
                     error="RefusedInput: file column type halffloat has no Hive type")  # fmt: skip
    found = {a.code: a for a in classify_partition(_partition((unread,)), TABLE, "orc",
                                                   DEFAULT_RULES)}  # fmt: skip
    assert "Do not remove the file" in found["corrupt-file"].action
    broken = replace(unread, error="ArrowInvalid: not an ORC file")
    found = {a.code: a for a in classify_partition(_partition((broken,)), TABLE, "orc",
                                                   DEFAULT_RULES)}  # fmt: skip
    assert found["corrupt-file"].action.startswith("Repair or remove")


def test_unsigned_parquet_integers_are_named_as_hive_version_sensitive() -> None:
    """A UINT_32 column (pandas' uint32): Hive 1.2/2.x show a value past int's range negative,
    3.1/4 NULL (``parquet_reading.unsigned_nulls``); both go on with the other rules."""
    parquet = {"format": "parquet", "input_format": "MapredParquetInputFormat"}
    as_ints = (Column("id", "bigint"), Column("name", "string"), Column("amount", "int"))
    f = replace(_file("f", as_ints), format="parquet", scanned=(Column("amount", "bigint"),))
    found = classify_partition(_partition((f,), columns=as_ints, **parquet), as_ints, "orc",
                               DEFAULT_RULES)  # fmt: skip
    sensitive = next(a for a in found if a.code == "hive-version-sensitive")
    assert sensitive.details["columns"] == {  # type: ignore[index]
        "amount": {
            "1.2/2.x": "reads the file's unsigned integers signed (4294967295 is -1)",
            "3.1/4": "reads the file's unsigned integers past the signed range as NULL",
        }
    }
    assert [a.code for a in found if a.severity == "error"] == []  # migratable
    narrowed = (*as_ints[:2], Column("amount", "smallint"))
    found = classify_partition(_partition((f,), columns=narrowed, **parquet), narrowed, "orc",
                               DEFAULT_RULES)  # fmt: skip
    readings = next(a for a in found if a.code == "hive-version-sensitive").details["columns"]
    assert readings["amount"]["3.1/4"] == (  # type: ignore[index]
        "reads the file's unsigned integers past the signed range as NULL; reads the file's "
        "int out of the table's smallint range as NULL"
    )


def test_integer_stored_parquet_decimals_are_refused_and_named_by_version() -> None:
    """A decimal the file stores as an INT32 (as Spark writes it): Hive 1.2-3.1 fail on it,
    Hive 4 reads it (``parquet_reading._integer_decimal``)."""
    parquet = {"format": "parquet", "input_format": "MapredParquetInputFormat"}
    columns = (Column("id", "bigint"), Column("name", "string"), Column("amount", "decimal(8,2)"))
    f = replace(_file("f", columns), format="parquet", integer_decimals=(("amount", ""),))
    found = {a.code: a for a in classify_partition(_partition((f,), columns=columns, **parquet),
                                                   columns, "orc", DEFAULT_RULES)}  # fmt: skip
    incompatible = found["file-type-incompatible"]
    assert incompatible.severity == "error" and "ParquetDecodingException" in incompatible.message
    assert found["hive-version-sensitive"].details["columns"]["amount"] == {  # type: ignore[index]
        "1.2/2.x/3.1": "fails on every query of it (ParquetDecodingException: not migrated)",
        "4": "reads the file's values as they are",
    }


def test_parquet_map_keys_hive_builds_otherwise_are_named() -> None:
    parquet = {"format": "parquet", "input_format": "MapredParquetInputFormat"}
    columns = (Column("id", "bigint"), Column("name", "string"), Column("m", "map<bigint,int>"))
    table = (*columns[:2], Column("m", "map<int,int>"))
    f = replace(_file("f", columns), format="parquet")
    found = {a.code: a for a in classify_partition(_partition((f,), columns=table, **parquet),
                                                   table, "orc", DEFAULT_RULES)}  # fmt: skip
    keys = found["map-keys-as-written"]
    assert keys.severity == "warning" and "m (map<bigint,int> read as map<int,int>)" in keys.message
    same = classify_partition(_partition((f,), columns=columns, **parquet), columns, "orc",
                              DEFAULT_RULES)  # fmt: skip
    assert "map-keys-as-written" not in {a.code for a in same}


def test_partitions_whose_arrays_hive_shows_with_stale_tails_are_named() -> None:
    """Hive's converter writes a Parquet or text partition's rows into an ORC table's, whose
    list inspector never shrinks a list (seen in Hive 2.3.9: README "Limits")."""
    table = (Column("id", "bigint"), Column("tags", "array<int>"),
             Column("s", "struct<a:array<string>>"))  # fmt: skip
    parquet = {"format": "parquet", "input_format": "MapredParquetInputFormat"}
    f = replace(_file("f", table), format="parquet")
    found = {a.code: a for a in classify_partition(_partition((f,), columns=table, **parquet),
                                                   table, "orc", DEFAULT_RULES)}  # fmt: skip
    assert found["stale-array-tails"].details["columns"] == ["tags", "s"]
    # an ORC partition read into the table's columns: no converter, whatever it declares
    older = (table[0], Column("tags", "array<smallint>"), table[2])
    orc = _partition((_file("f", older),), columns=older)
    into_table = classify_partition(orc, table, "orc", DEFAULT_RULES)
    assert "stale-array-tails" not in {a.code for a in into_table}
    # Hive 1.2 reads it with its declared columns: converted where the array type differs
    tails = next(a for a in classify_partition(orc, table, "orc", HIVE_12)
                 if a.code == "stale-array-tails")  # fmt: skip
    assert tails.details["columns"] == ["tags"]
    # a Parquet table's own list inspector is not ORC's
    plain = classify_partition(_partition((f,), columns=table, **parquet), table, "parquet",
                               DEFAULT_RULES)  # fmt: skip
    assert "stale-array-tails" not in {a.code for a in plain}


def test_a_parquet_files_unsigned_and_integer_decimal_columns_survive_the_inventorys_json() -> None:
    """The inventory is stored as JSON between commands: what the readers need of a Parquet
    file's unsigned integers and integer-stored decimals comes back as it was."""
    import json

    from lakeshift.inspect.model import TableInventory

    f = replace(_file("f", TABLE), format="parquet", compression="SNAPPY,ZSTD",
                scanned=(Column("amount", "decimal(20,0)"),),
                integer_decimals=(("amount", ""), ("s", ".a[]")),
                int64_timestamps=(("t", "nanos", False),))  # fmt: skip
    inventory = TableInventory(
        database="db", table="t", location="file:/t", table_type="EXTERNAL_TABLE",
        format="orc", input_format="", serde="", columns=TABLE,
        partition_keys=(Column("dt", "string"),), parameters={},
        partitions=(_partition((f,)),), unregistered_dirs=(), anomalies=(),
        metastore_uri="thrift://x", inspected_at="now", seconds=0.0,
    )  # fmt: skip
    stored = json.loads(json.dumps(inventory.to_json()))
    assert TableInventory.from_json(stored).partitions[0].files[0] == f
    # written before nanosecond timestamps were scanned too: the key was "unsigned"
    file = stored["partitions"][0]["files"][0]
    file["unsigned"] = file.pop("scanned")
    assert TableInventory.from_json(stored).partitions[0].files[0] == f

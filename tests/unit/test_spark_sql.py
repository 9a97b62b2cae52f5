from __future__ import annotations

import pytest

from lakeshift.errors import SchemaMappingError
from lakeshift.hive.spark_sql import convert, quote, spark_type, string_literal
from lakeshift.hive.types import parse_hive_type as t


def test_identifiers_and_literals_are_escaped() -> None:
    assert quote("a`b c") == "`a``b c`"
    assert string_literal("it's a\\b") == "'it\\'s a\\\\b'"


def test_spark_types() -> None:
    assert spark_type(t("timestamp")) == "TIMESTAMP_NTZ"
    assert spark_type(t("timestamp"), physical=True) == "TIMESTAMP"
    assert spark_type(t("map<string,array<char(3)>>")) == "MAP<STRING,ARRAY<STRING>>"
    assert spark_type(t("struct<`a b`:decimal(5,2)>")) == "STRUCT<`a b`:DECIMAL(5,2)>"


def test_identity_conversion_is_the_expression_itself() -> None:
    assert convert("x", t("struct<a:int>"), t("struct<a:int>"), by_name=True) == "x"
    assert convert("x", t("bigint"), t("bigint"), by_name=True) == "x"


def test_physical_timestamps_become_wall_clock_even_nested() -> None:
    assert convert("x", t("timestamp"), t("timestamp"), by_name=True, src_physical=True) == (
        "CAST(x AS TIMESTAMP_NTZ)"
    )
    nested = convert(
        "x", t("array<timestamp>"), t("array<timestamp>"), by_name=True, src_physical=True
    )
    assert nested.startswith("transform(x, ") and "TIMESTAMP_NTZ" in nested


def test_char_and_varchar() -> None:
    assert convert("x", t("string"), t("char(3)"), by_name=True) == (
        "rpad(substring(CAST(x AS STRING), 1, 3), 3, ' ')"
    )
    assert convert("x", t("string"), t("varchar(2)"), by_name=True) == (
        "substring(CAST(x AS STRING), 1, 2)"
    )


def test_struct_by_name_versus_by_position() -> None:
    src, dst = t("struct<b:int,a:int>"), t("struct<a:bigint,c:int>")
    by_name = convert("s", src, dst, by_name=True)
    assert "'a', CAST(s.`a` AS BIGINT)" in by_name and "'c', CAST(NULL AS INT)" in by_name
    by_position = convert("s", src, dst, by_name=False)
    assert "'a', CAST(s.`b` AS BIGINT)" in by_position and "'c', s.`a`" in by_position
    assert by_name.startswith("IF(s IS NULL, NULL, named_struct(")


def test_kind_changes_are_refused_naming_the_column() -> None:
    with pytest.raises(SchemaMappingError, match="col x"):
        convert("x", t("struct<a:int>"), t("string"), by_name=True, where="col x")


def test_metastore_refusal_behind_pyiceberg_typeerror_is_explained() -> None:
    from lakeshift.errors import EnvironmentProblem
    from lakeshift.formats.iceberg_schema import _commit_error

    try:
        try:
            raise RuntimeError(
                "The following columns have types incompatible with the existing "
                "columns in their respective positions :\ns"
            )
        except RuntimeError:
            raise TypeError("can't modify immutable instance") from None
    except TypeError as hidden:
        hidden.__context__ = RuntimeError("incompatible with the existing columns")
        error = _commit_error(hidden, "db.t")
    assert isinstance(error, EnvironmentProblem)
    assert "db.t" in str(error) and "disallow.incompatible.col.type.changes=false" in str(error)

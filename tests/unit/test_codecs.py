"""Which codecs each Hive version's ORC and Parquet libraries open (pure; the files' codecs as
pyarrow reads them from real footers)."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq
import pytest

from lakeshift.hive.semantics import HiveSemantics
from lakeshift.inspect.codecs import unreadable_codec
from lakeshift.inspect.footers import parquet_codecs


def test_a_parquet_files_codecs_are_named_as_parquet_names_them(tmp_path: Path) -> None:
    table = pa.table({"a": pa.array([1, 2], pa.int32()), "b": pa.array(["x", "y"])})
    path = tmp_path / "f.parquet"
    pq.write_table(table, path, compression="lz4")  # LZ4_RAW: pyarrow calls it LZ4
    assert parquet_codecs(pq.ParquetFile(path).metadata) == "LZ4_RAW"
    pq.write_table(table, path, compression={"a": "zstd", "b": "snappy"})
    assert parquet_codecs(pq.ParquetFile(path).metadata) == "SNAPPY,ZSTD"
    orc.write_table(table, tmp_path / "f.orc", compression="zstd")
    assert str(orc.ORCFile(str(tmp_path / "f.orc")).compression) == "ZSTD"


@pytest.mark.parametrize(
    ("fmt", "codecs", "version", "refused"),
    [
        ("orc", "ZSTD", "1.2", True),
        ("orc", "ZSTD", "2.3", True),  # ORC 1.3.4
        ("orc", "ZSTD", "3.1", True),  # ORC 1.5.8: Unknown compression
        ("orc", "ZSTD", "4", False),  # ORC 1.8
        ("orc", "SNAPPY", "2.3", False),
        ("parquet", "SNAPPY", "1.2", False),
        ("parquet", "GZIP", "2.3", False),
        ("parquet", "ZSTD", "2.3", True),  # parquet-mr 1.8.1 knows four codecs
        ("parquet", "ZSTD", "3.1", False),  # Hadoop's codec (native)
        ("parquet", "LZ4", "2.3", True),
        ("parquet", "LZ4", "3.1", False),
        ("parquet", "LZ4_RAW", "3.1", True),  # parquet-mr 1.13
        ("parquet", "LZ4_RAW", "4", False),
        ("parquet", "BROTLI", "4", True),  # no Hadoop codec anywhere
        ("parquet", "SNAPPY,BROTLI", "3.1", True),
        ("text", "ZSTD", "2.3", False),  # text codecs: the text reader's own rules
    ],
)
def test_each_version_opens_the_codecs_its_libraries_know(
    fmt: str, codecs: str, version: str, refused: bool
) -> None:
    hive = HiveSemantics(version=version, orc_sql_dates=version != "4")
    why = unreadable_codec(fmt, codecs, hive)
    assert (why is not None) == refused, why
    if why:
        assert f"Hive {version}'s" in why


def test_an_orc_1_6_release_under_hive_3_1_opens_zstd() -> None:
    """``orc_date_parser = "exact"`` says the Hive runs ORC 1.6+ (a vendor's 3.1)."""
    assert (
        unreadable_codec("orc", "ZSTD", HiveSemantics(version="3.1", orc_sql_dates=False)) is None
    )


def test_byte_stream_split_is_unknown_before_hive_4(tmp_path: Path) -> None:
    """parquet-mr before 1.12 (Hive 1.2-3.1) has no BYTE_STREAM_SPLIT, and its footer
    conversion fails on an encoding it does not know, whichever column is read."""
    from lakeshift.inspect.codecs import unreadable_encoding
    from lakeshift.inspect.footers import parquet_encodings

    table = pa.table({"f": pa.array([1.5, 2.5]), "s": pa.array(["x", "y"])})
    path = tmp_path / "f.parquet"
    pq.write_table(table, path, use_dictionary=False, use_byte_stream_split=["f"])
    encodings = parquet_encodings(pq.ParquetFile(path).metadata)
    assert encodings is not None and "BYTE_STREAM_SPLIT" in encodings.split(",")
    for version in ("1.2", "2.3", "3.1"):
        why = unreadable_encoding("parquet", encodings, version)
        assert why is not None and f"Hive {version}'s" in why
    spark = unreadable_encoding("parquet", encodings, "4")  # Hive 4 reads it, Spark 3.5 not
    assert spark is not None and "Spark 3.5" in spark
    pq.write_table(table, path)
    assert unreadable_encoding("parquet", parquet_encodings(pq.ParquetFile(path).metadata),
                               "2.3") is None  # fmt: skip
    assert unreadable_encoding("orc", "BYTE_STREAM_SPLIT", "2.3") is None

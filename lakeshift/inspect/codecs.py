"""Which compression codecs the user's Hive can open, per file format (pure).

Hive opens a file with the ORC or Parquet library it ships, and those learned codecs over the
years; a file written with a newer codec (by Spark, Trino or pyarrow) fails on every query in
an older Hive, so lakeshift refuses its partition as it refuses other partitions Hive cannot
read. From the libraries' source:

- ORC: ZSTD came in ORC 1.6 (ORC-363). Hive 2.3 ships ORC 1.3.4 and Apache Hive 3.1 ORC 1.5.8,
  whose ``ReaderImpl.extractPostScript`` throws ``IllegalArgumentException("Unknown
  compression")`` for it; Hive 1.2's own ORC reader predates it. Hive 4 ships ORC 1.8.
- Parquet (``CompressionCodecName``): parquet-mr 1.8.1 (Hive 2.3; Hive 1.2's is older) knows
  UNCOMPRESSED, SNAPPY, GZIP and LZO only; 1.10.0 (Hive 3.1) adds BROTLI, LZ4 (Hadoop's
  framing) and ZSTD through Hadoop's codecs; 1.13.1 (Hive 4) adds LZ4_RAW and its own ZSTD.
  BROTLI needs ``org.apache.hadoop.io.compress.BrotliCodec``, which Hadoop does not ship (nor
  does Spark: lakeshift's own reader cannot open it either). ZSTD and LZ4 in Hive 3.1 need
  Hadoop's native library, which most clusters load: taken as readable.

And encodings: parquet-mr before 1.12 (Hive 1.2 to 3.1) has no ``BYTE_STREAM_SPLIT``
(PARQUET-1622); its footer conversion (``ParquetMetadataConverter.fromFormatEncodings``, 1.8.1
and 1.10.0) turns each column chunk's encodings into its own enum by name and fails on one it
does not know, so such a file fails whichever column a query reads. pyarrow writes it only
when asked (``use_byte_stream_split``).

Hand-written: no library describes which codecs which Hive release opens.
"""

from __future__ import annotations

from lakeshift.hive.semantics import HiveSemantics

#: pyarrow's names of Parquet's codecs where they differ from Parquet's own: it calls LZ4_RAW
#: ``LZ4`` and has no name for Hadoop-framed LZ4 (the only codec it shows as ``UNKNOWN``)
PARQUET_NAMES = {"LZ4": "LZ4_RAW", "UNKNOWN": "LZ4"}

#: Parquet codecs each Hive version's parquet-mr cannot open
_PARQUET_UNREAD = {
    "1.2": frozenset({"BROTLI", "LZ4", "ZSTD", "LZ4_RAW"}),
    "2.3": frozenset({"BROTLI", "LZ4", "ZSTD", "LZ4_RAW"}),
    "3.1": frozenset({"BROTLI", "LZ4_RAW"}),
    "4": frozenset({"BROTLI"}),
}
_PARQUET_RELEASE = {"1.2": "", "2.3": " 1.8.1", "3.1": " 1.10.0", "4": " 1.13.1"}


def unreadable_codec(file_format: str, codecs: str | None, hive: HiveSemantics) -> str | None:
    """Why the user's Hive cannot open a file of ``file_format`` compressed with ``codecs``
    (comma-separated, as ``FileInfo.compression`` holds them), or ``None``."""
    found = set((codecs or "").split(","))
    if file_format == "orc" and "ZSTD" in found and (hive.version == "1.2" or hive.orc_sql_dates):
        release = "its own ORC reader" if hive.version == "1.2" else "ORC 1.3-1.5"
        return (
            f"compressed with ZSTD, which Hive {hive.version}'s {release} cannot open (ORC 1.6+ "
            "can; IllegalArgumentException: Unknown compression)"
        )
    if file_format == "parquet":
        refused = sorted(found & _PARQUET_UNREAD[hive.version])
        if refused:
            release = _PARQUET_RELEASE[hive.version]
            return (
                f"compressed with {', '.join(refused)}, which Hive {hive.version}'s parquet-mr"
                f"{release} cannot open"
                + (" (nor can Spark: Hadoop ships no Brotli codec)" if "BROTLI" in refused else "")
            )
    return None


#: Parquet encodings each Hive version's parquet-mr cannot open
_ENCODINGS_UNREAD = {
    "1.2": frozenset({"BYTE_STREAM_SPLIT"}),
    "2.3": frozenset({"BYTE_STREAM_SPLIT"}),
    "3.1": frozenset({"BYTE_STREAM_SPLIT"}),
    "4": frozenset(),
}
#: Parquet encodings Spark 3.5's vectorized reader, lakeshift's, cannot read
#: (``UnsupportedOperationException: Unsupported encoding``, tried here)
_SPARK_UNREAD = frozenset({"BYTE_STREAM_SPLIT"})


def unreadable_encoding(file_format: str, encodings: str | None, version: str) -> str | None:
    """Why Hive ``version`` cannot open a Parquet file whose column chunks use ``encodings``
    (comma-separated, as ``FileInfo.encodings`` holds them), or lakeshift cannot read it
    where Hive can, or ``None``."""
    if file_format != "parquet":
        return None
    found = set((encodings or "").split(","))
    refused = sorted(found & _ENCODINGS_UNREAD[version])
    if refused:
        return (
            f"encoded with {', '.join(refused)}, which Hive {version}'s parquet-mr"
            f"{_PARQUET_RELEASE[version]} does not know (its footer fails to convert)"
        )
    unread = sorted(found & _SPARK_UNREAD)
    if unread:
        return (
            f"encoded with {', '.join(unread)}, which Hive {version}'s parquet-mr"
            f"{_PARQUET_RELEASE[version]} reads and Spark 3.5's reader, lakeshift's, does not"
        )
    return None

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

Hand-written: no library describes which codecs which Hive release opens.
"""

from __future__ import annotations

from lakeshift.schema_map.hive_semantics import HiveSemantics

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

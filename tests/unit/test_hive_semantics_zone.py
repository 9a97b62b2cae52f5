"""How Hive shows a Parquet file's INT96 timestamps, per version (pure logic; the readers'
results are in ``tests/integration/test_hive_zone.py`` and asked of Hive 2.3.9 there). The
rules are read in Hive 2.3.7's, 3.1.3's and 4.0's ``ParquetRecordReaderBase``,
``DataWritableReadSupport``, ``ETypeConverter`` and ``NanoTimeUtils``."""

from __future__ import annotations

from lakeshift.hive.semantics import Int96Reading, int96_reading

SPARK = "parquet-mr version 1.13.1 (build db4183109d5b734ec5930d870cdae161e408ddba)"
NY, BERLIN = "America/New_York", "Europe/Berlin"
OTHERS = ("impala version 3.4.0", "parquet-cpp-arrow version 14.0.0", None)


def test_hive_2_shows_parquet_mr_instants_in_its_zone_by_java_util() -> None:
    for version in ("1.2", "2.3"):
        assert int96_reading(NY, version, SPARK, None) == Int96Reading(NY, java_util=True)
        # Hive 2 knows no writer.time.zone
        assert int96_reading(NY, version, SPARK, BERLIN) == Int96Reading(NY, java_util=True)
        assert int96_reading(None, version, SPARK, None) is None  # in UTC: as stored
        for writer in OTHERS:  # hive.parquet.timestamp.skip.conversion = true
            assert int96_reading(NY, version, writer, None) is None


def test_hive_3_1_converts_every_writers_file_by_java_time() -> None:
    assert int96_reading(None, "3.1", SPARK, BERLIN) == Int96Reading(BERLIN, java_util=False)
    assert int96_reading(NY, "3.1", SPARK, None) == Int96Reading(NY, java_util=False)
    assert int96_reading(NY, "3.1", SPARK, "UTC") is None
    # a zone Java does not know: the JVM's (Hive fails such a file; lakeshift reads on)
    assert int96_reading(NY, "3.1", SPARK, "Mars/Olympus") == Int96Reading(NY, java_util=False)
    # hive.parquet.timestamp.skip.conversion is false in 3.1 (true from HIVE-21888, Hive 4)
    for writer in OTHERS:
        assert int96_reading(NY, "3.1", writer, None) == Int96Reading(NY, java_util=False)
        assert int96_reading(None, "3.1", writer, None) is None


def test_hive_4_converts_parquet_mr_files_by_the_legacy_rule() -> None:
    # no writer zone: hive.parquet.timestamp.legacy.conversion.enabled (true): java.util
    assert int96_reading(NY, "4", SPARK, None) == Int96Reading(NY, java_util=True)
    # a Hive 3.1 file: its zone, by java.time; a Hive 4 file says which itself
    assert int96_reading(NY, "4", SPARK, BERLIN) == Int96Reading(BERLIN, java_util=False)
    assert int96_reading(NY, "4", SPARK, BERLIN, True) == Int96Reading(BERLIN, java_util=True)
    assert int96_reading(NY, "4", SPARK, None, False) == Int96Reading(NY, java_util=False)
    for writer in OTHERS:
        assert int96_reading(NY, "4", writer, BERLIN) is None

"""Which zone Hive shows a Parquet file's INT96 timestamps in (pure logic; the readers'
results are in ``tests/integration/test_hive_zone.py`` and asked of Hive 2.3.9 there)."""

from __future__ import annotations

from lakeshift.schema_map.hive_semantics import int96_zone

SPARK = "parquet-mr version 1.13.1 (build db4183109d5b734ec5930d870cdae161e408ddba)"


def test_parquet_mr_instants_show_in_the_jvms_zone_under_hive_2() -> None:
    assert int96_zone("America/New_York", False, SPARK, None) == "America/New_York"
    # Hive 2 knows no writer.time.zone
    assert int96_zone("America/New_York", False, SPARK, "Europe/Berlin") == "America/New_York"
    assert int96_zone(None, False, SPARK, None) is None  # a Hive in UTC shows them as stored


def test_hive_3_takes_the_files_writer_zone_first() -> None:
    assert int96_zone(None, True, SPARK, "Europe/Berlin") == "Europe/Berlin"
    assert int96_zone("America/New_York", True, SPARK, None) == "America/New_York"
    assert int96_zone("America/New_York", True, SPARK, "UTC") is None
    # a zone Java does not know: the JVM's (Hive fails such a file; lakeshift reads on)
    assert int96_zone("America/New_York", True, SPARK, "Mars/Olympus") == "America/New_York"


def test_other_writers_files_are_shown_as_stored() -> None:
    for writer in ("impala version 3.4.0", "parquet-cpp-arrow version 14.0.0", None):
        assert int96_zone("America/New_York", False, writer, None) is None
        assert int96_zone("America/New_York", True, writer, "Europe/Berlin") is None

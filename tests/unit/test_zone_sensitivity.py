"""`hive-zone-sensitive`: the columns whose rows depend on the zone Hive's JVMs run in, on
hand-made records; the rules are ``hive.types.zone_dependence``'s, which the readers follow
(``tests/integration/test_hive_zone.py`` checks those against Hive 2.3.9 in New York)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lakeshift.hive.semantics import version_defaults
from lakeshift.inspect.anomalies import Rules, classify_partition
from lakeshift.inspect.model import Anomaly, Column, FileInfo, PartitionInfo
from lakeshift.inspect.zone_sensitivity import EFFECTS

TABLE = (Column("id", "bigint"), Column("ts", "timestamp"))


def _partition(
    file_columns: tuple[Column, ...],
    fmt: str = "orc",
    declared: tuple[Column, ...] = TABLE,
    **file: object,
) -> PartitionInfo:
    f = FileInfo(path="f", size=1, mtime_ns=1, format=fmt, columns=file_columns, rows=1, **file)  # type: ignore[arg-type]
    serde = {"orc": "OrcSerde", "parquet": "ParquetHiveSerDe"}.get(
        fmt, "org.apache.hadoop.hive.serde2.lazy.LazySimpleSerDe"
    )
    return PartitionInfo(
        name="dt=1",
        values=("1",),
        location="file:/t/dt=1",
        location_exists=True,
        outside_table_root=False,
        format=fmt,
        input_format="x",
        serde=serde,
        columns=declared,
        parameters={},
        files=(f,),
        skipped_files=0,
        fingerprint="x",
    )


def _sensitive(
    p: PartitionInfo, version: str, zone: str | None = None, table: tuple[Column, ...] = TABLE
) -> Anomaly | None:
    """The anomaly under ``version`` with ``hive_time_zone = zone`` (None: not set)."""
    hive = replace(version_defaults(version), time_zone=zone or "UTC")
    rules = Rules(hive=hive, zone_chosen=zone is not None)
    found = [
        a for a in classify_partition(p, table, p.format, rules) if a.code == "hive-zone-sensitive"
    ]
    assert len(found) <= 1
    return found[0] if found else None


def _rules(a: Anomaly | None) -> dict[str, list[str]]:
    return dict(a.details["columns"]) if a else {}


STRING_TS = (Column("id", "bigint"), Column("ts", "string"))
BIGINT_TS = (Column("id", "bigint"), Column("ts", "bigint"))


def test_orc_text_read_as_timestamp_by_version() -> None:
    # Hive 3.1's ORC 1.5 parses the text in the JVM's zone and reads the instant as UTC
    found = _sensitive(_partition(STRING_TS), "3.1")
    assert _rules(found) == {"ts": ["parsed as instant"]}
    assert found is not None and found.severity == "warning"
    assert EFFECTS["parsed as instant"] in found.message and "Hive 3.1" in found.message
    # Hive 2.3 parses it there and shows it there: only an hour the clocks skip moves
    found = _sensitive(_partition(STRING_TS), "2.3")
    assert _rules(found) == {"ts": ["parsed in zone"]} and found and found.severity == "info"
    # Hive 4's ORC 1.6+ parse in UTC
    assert _sensitive(_partition(STRING_TS), "4") is None


def test_a_chosen_zone_turns_the_warning_into_information() -> None:
    found = _sensitive(_partition(STRING_TS), "3.1", zone="America/New_York")
    assert found is not None and found.severity == "info"
    assert "running in America/New_York" in found.action
    # UTC chosen: the same columns, as information (a UTC estate has nothing left to do)
    chosen = _sensitive(_partition(STRING_TS), "3.1", zone="UTC")
    assert chosen is not None and chosen.severity == "info" and "running in UTC" in chosen.action


def test_numbers_read_as_timestamps_and_back() -> None:
    # Hive 2.3 shows a number read as a timestamp as an instant in its zone
    assert _rules(_sensitive(_partition(BIGINT_TS), "2.3")) == {"ts": ["instant shown"]}
    # Hive 3.1 counts in UTC
    assert _sensitive(_partition(BIGINT_TS), "3.1") is None
    # a text partition: Hive 1.2/2.x's converter counts the declared timestamp's instant
    numbers = (Column("id", "bigint"), Column("ts", "bigint"))
    text = _partition(TABLE, fmt="text")
    assert _rules(_sensitive(text, "2.3", table=numbers)) == {
        "ts": ["parsed in zone", "instant counted"]
    }
    # a number read as the partition's timestamp and back as a number keeps its instant
    parquet = _partition(BIGINT_TS, fmt="parquet")
    assert _sensitive(parquet, "2.3", table=numbers) is None
    assert _rules(_sensitive(parquet, "2.3")) == {"ts": ["instant shown"]}


def test_unchanged_timestamps_and_hive3_text_are_not_named() -> None:
    for version in ("1.2", "2.3", "3.1", "4"):
        assert _sensitive(_partition(TABLE), version) is None
    # Hive 3.0+'s converters and text SerDe count in UTC
    assert _sensitive(_partition(TABLE, fmt="text"), "3.1") is None
    assert _rules(_sensitive(_partition(TABLE, fmt="text"), "2.3")) == {"ts": ["parsed in zone"]}


def test_nested_fields_are_named_by_path() -> None:
    table = (Column("id", "bigint"), Column("s", "struct<a:string,b:array<timestamp>>"))
    file = (Column("id", "bigint"), Column("s", "struct<b:array<string>,a:timestamp>"))
    found = _sensitive(_partition(file, declared=table), "3.1", table=table)
    assert _rules(found) == {"s.a": ["wall clock read"], "s.b[]": ["parsed as instant"]}


@pytest.mark.parametrize(
    ("version", "writer", "writer_zone", "expected"),
    [
        ("2.3", "parquet-mr version 1.10.1", None, {"ts": ["INT96 shown"]}),
        ("3.1", "parquet-mr version 1.10.1", None, {"ts": ["INT96 shown"]}),
        # Hive 3.1+ show it in the writer's recorded zone, whatever their own
        ("3.1", "parquet-mr version 1.10.1", "Europe/Berlin", {}),
        # Hive 2.x ignores writer.time.zone
        ("2.3", "parquet-mr version 1.10.1", "Europe/Berlin", {"ts": ["INT96 shown"]}),
        # other writers' files are shown as stored, except by Hive 3.1
        ("2.3", "impala version 3.4", None, {}),
        ("4", "impala version 3.4", None, {}),
        ("3.1", "impala version 3.4", None, {"ts": ["INT96 shown"]}),
        ("4", "parquet-mr version 1.10.1", None, {"ts": ["INT96 shown"]}),
    ],
)
def test_int96_shown_in_the_jvm_zone(
    version: str, writer: str, writer_zone: str | None, expected: dict[str, list[str]]
) -> None:
    p = _partition(TABLE, fmt="parquet", writer=writer, writer_zone=writer_zone, int96=("ts",))
    assert _rules(_sensitive(p, version)) == expected

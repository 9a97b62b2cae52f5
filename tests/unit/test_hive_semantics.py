"""Which Hive's reading lakeshift reproduces: versions, their switches, hive-site.xml and the
settings that override them, per table in bulk files."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakeshift.bulk.spec import load_bulk_spec
from lakeshift.config import load_settings
from lakeshift.errors import BulkFileError, ConfigError
from lakeshift.hive.semantics import (
    HiveSemantics,
    normalise_version,
    read_hive_site,
    resolve,
    version_defaults,
)

SITE = """<?xml version="1.0"?>
<configuration>
  <property><name>hive.exec.schema.evolution</name><value>false</value></property>
  <property><name>orc.force.positional.evolution</name><value> TRUE </value></property>
  <property><name>hive.metastore.uris</name><value>thrift://x:9083</value></property>
</configuration>
"""


@pytest.mark.parametrize(
    ("given", "label"),
    [("1.2.1", "1.2"), ("2", "2.3"), ("2.1.1", "2.3"), ("2.3.9", "2.3"), ("3", "3.1"),
     ("3.0", "3.1"), ("3.1.3", "3.1"), ("4.0.1", "4"), ("hive4", "4"), (3.1, "3.1")],
)  # fmt: skip
def test_versions_are_normalised(given: object, label: str) -> None:
    assert normalise_version(given) == label  # type: ignore[arg-type]


@pytest.mark.parametrize("given", ["2.0", "5", "0.13", "latest", ""])
def test_unknown_versions_are_refused_with_the_choices(given: str) -> None:
    with pytest.raises(ConfigError, match="hive_version") as caught:
        normalise_version(given)
    assert "1.2, 2.3, 3.1, 4" in (caught.value.hint or "")


def test_each_version_has_its_own_defaults() -> None:
    assert version_defaults("1.2") == HiveSemantics("1.2", False, False, True, "hive2")
    assert version_defaults("2.3") == HiveSemantics("2.3", True, False, True, "hive2")
    assert version_defaults("3.1") == HiveSemantics("3.1", True, False, True, "proleptic")
    assert version_defaults("4") == HiveSemantics("4", True, True, True, "hive3", False)
    # ORC 1.3.4 (Hive 2.3) and 1.5.8 (Hive 3.1) parse strings by java.sql, ORC 1.6+ do not
    assert version_defaults("3.1").orc_sql_dates and not version_defaults("4").orc_sql_dates
    assert resolve("3.1", orc_sql_dates=False).orc_sql_dates is False
    assert "ORC strings as dates by exact forms" in version_defaults("4").label
    assert not version_defaults("2.3").hive3_converters and version_defaults("4").hive3_converters
    assert version_defaults("3.1").reads_into_table("orc")
    assert not version_defaults("3.1").reads_into_table("parquet")
    assert not version_defaults("1.2").reads_into_table("orc")


def test_hive_site_overrides_the_version_and_settings_override_hive_site(tmp_path: Path) -> None:
    site = tmp_path / "hive-site.xml"
    site.write_text(SITE)
    assert read_hive_site(site) == {
        "hive.exec.schema.evolution": False,
        "orc.force.positional.evolution": True,
    }
    from_site = resolve("3.1", hive_site=site)
    assert (from_site.schema_evolution, from_site.orc_positional) == (False, True)
    explicit = resolve("3.1", hive_site=site, schema_evolution=True, mapping_mode="name")
    assert (explicit.schema_evolution, explicit.orc_positional) == (True, False)
    # Hive 1.2 has no schema evolution, whatever a setting says.
    assert not resolve("1.2", schema_evolution=True).schema_evolution


def test_a_broken_hive_site_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read hive_site"):
        read_hive_site(tmp_path / "missing.xml")
    bad = tmp_path / "bad.xml"
    bad.write_text("<configuration><property>")
    with pytest.raises(ConfigError, match="not valid XML"):
        read_hive_site(bad)
    odd = tmp_path / "odd.xml"
    odd.write_text(SITE.replace("false", "maybe"))
    with pytest.raises(ConfigError, match=r"hive\.exec\.schema\.evolution"):
        read_hive_site(odd)


def test_settings_resolve_the_semantics(tmp_path: Path) -> None:
    settings = load_settings({"home": tmp_path}, env={})
    assert settings.hive == version_defaults("3.1")
    env = {"LAKESHIFT_HIVE_VERSION": "2.3.9", "LAKESHIFT_NAME_CASE_SENSITIVE": "false"}
    older = load_settings({"home": tmp_path}, env=env)
    assert older.hive_version == "2.3" and older.hive.calendar == "hive2"
    assert older.hive.case_sensitive is False
    assert load_settings({"home": tmp_path, "calendar": "hive3"}, env=env).hive.calendar == "hive3"
    exact = load_settings({"home": tmp_path}, env={**env, "LAKESHIFT_ORC_DATE_PARSER": "exact"})
    assert older.hive.orc_sql_dates and not exact.hive.orc_sql_dates
    with pytest.raises(ConfigError, match="orc_date_parser"):
        load_settings({"home": tmp_path, "orc_date_parser": "java.time"}, env={})
    with pytest.raises(ConfigError):
        load_settings({"home": tmp_path, "hive_version": "2.0"}, env={})


def test_a_bulk_table_chooses_its_hive_version(tmp_path: Path) -> None:
    good = tmp_path / "good.toml"
    good.write_text(
        '[bulk]\nhive_version = "2.3.9"\n[[tables]]\nsource = "a.b"\nschema_evolution = false\n'
        '[[tables]]\nsource = "a.c"\nhive_version = 4\norc_date_parser = "java.sql"\n'
    )
    spec = load_bulk_spec(good)
    assert [t.hive_version for t in spec.tables] == ["2.3", "4"]
    assert [t.orc_date_parser for t in spec.tables] == [None, "java.sql"]
    assert spec.tables[0].schema_evolution is False and spec.tables[1].schema_evolution is None
    bad = tmp_path / "bad.toml"
    bad.write_text('[[tables]]\nsource = "a.b"\nhive_version = "0.13"\n')
    with pytest.raises(BulkFileError, match=r"table #1.*hive_version"):
        load_bulk_spec(bad)


def test_a_hive_site_that_cannot_be_read_fails_when_settings_load(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="cannot read hive_site"):
        load_settings({"home": tmp_path, "hive_site": str(tmp_path / "nope.xml")}, env={})


def test_partitions_hive_shows_with_one_key_value_are_named() -> None:
    from lakeshift.inspect.key_values import key_anomalies
    from lakeshift.inspect.model import Column, PartitionInfo

    def partition(values: tuple[str | None, ...]) -> PartitionInfo:
        base = PartitionInfo(
            name="k=" + "/".join(str(v) for v in values), values=values, location="file:/t",
            location_exists=True, outside_table_root=False, format="orc", input_format="",
            serde="", columns=(), parameters={}, files=(), skipped_files=0, fingerprint="f",
        )  # fmt: skip
        return base

    keys = (Column("k", "int"), Column("t", "timestamp"))
    found = key_anomalies(
        [
            partition(("05", "2020-01-01 00:00:00")),
            partition(("5", "2020-01-01")),  # Hive shows both as k=5, t=2020-01-01 00:00:00
            partition(("6", "2020-01-01 00:00:00.000000001")),
            partition(("abc", None)),  # an int key Hive cannot read is NULL, as is the NULL one
            partition((None, None)),
        ],
        keys,
        "2.3",
    )
    codes = {a.code: a for a in found if a.code == "key-precision-lost"}
    collide = [a for a in found if a.code == "partition-values-collide"]
    assert sorted(len(a.details["partitions"]) for a in collide) == [2, 2]
    assert any("k=5" in a.message for a in collide) and any("k=NULL" in a.message for a in collide)
    assert codes["key-precision-lost"].details["partitions"] == [
        "k=6/2020-01-01 00:00:00.000000001"
    ]
    # no boolean, date or timestamp key text here that the two generations read apart
    assert not [a for a in found if a.code == "key-version-sensitive"]
    flags = (Column("ok", "boolean"), Column("at", "timestamp"))
    found = key_anomalies(
        [partition(("yes", "2020-01-01 10:00")), partition(("true", "2020-01-01 10:00:00"))],
        flags,
        "3.1",
    )
    (sensitive,) = [a for a in found if a.code == "key-version-sensitive"]
    assert sensitive.details["partitions"] == ["k=yes/2020-01-01 10:00"]
    readings = sensitive.details["readings"]["k=yes/2020-01-01 10:00"]
    # Hive 2: any non-empty text is true, java.sql needs seconds; Hive 3 and 4: 'yes' is true
    # too, and a time without seconds reads as the date at midnight
    midnight = "ok=True/at=2020-01-01 00:00:00"
    assert readings == {"1.2/2.x": "ok=True/at=NULL", "3.1": midnight, "4": midnight}
    # Hive 4 reads dates strictly: 2020-02-30 is NULL where 2.x and 3.1 carry it into March
    days = (Column("ok", "boolean"), Column("at", "date"))
    found = key_anomalies([partition(("true", "2020-02-30"))], days, "4")
    (sensitive,) = [a for a in found if a.code == "key-version-sensitive"]
    march = "ok=True/at=2020-03-01"
    readings = sensitive.details["readings"]["k=true/2020-02-30"]
    assert readings == {"1.2/2.x": march, "3.1": march, "4": "ok=True/at=NULL"}
    assert "in Hive 4" in sensitive.message

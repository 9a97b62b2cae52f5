"""Archived objects (S3 Glacier, Deep Archive): refused or skipped, by rule (no store)."""

from __future__ import annotations

from dataclasses import replace

import pytest

from lakeshift.config import load_settings
from lakeshift.errors import ConfigError
from lakeshift.inspect.anomalies import Rules, classify_partition
from lakeshift.inspect.archived import skipped_archives, skipped_note, skipped_totals
from lakeshift.inspect.model import ArchivedObject, FileInfo, PartitionInfo, TableInventory
from lakeshift.storage.objects import StoredObject
from tests.unit.test_anomalies import TABLE, _file, _partition

GLACIER = ArchivedObject("000001_0", 2048, "GLACIER")


def _archived(**kw: object) -> PartitionInfo:
    files: tuple[FileInfo, ...] = (_file("000000_0", TABLE, rows=10),)
    return _partition(files, archived=(GLACIER,), **kw)


def _classified(p: PartitionInfo, policy: str) -> PartitionInfo:
    found = classify_partition(p, TABLE, "orc", Rules(archived_objects=policy))
    return replace(p, anomalies=tuple(found))


def test_only_archive_classes_without_a_finished_restore_are_archived() -> None:
    def stored(storage_class: str, restored: bool = False) -> StoredObject:
        return StoredObject("b/k", 1, 1, storage_class=storage_class, restored=restored)

    assert stored("GLACIER").archived and stored("DEEP_ARCHIVE").archived
    assert not stored("GLACIER", restored=True).archived
    # Instant retrieval and the ordinary classes are read like any object.
    for readable in ("GLACIER_IR", "STANDARD", "STANDARD_IA", "INTELLIGENT_TIERING", ""):
        assert not stored(readable).archived


def test_refuse_is_an_error_naming_the_object_and_both_ways_out() -> None:
    p = _classified(_archived(), "refuse")
    assert not p.migratable
    assert p.refusal is not None and p.refusal.startswith("archived: ")
    (anomaly,) = [a for a in p.anomalies if a.code == "archived"]
    assert "file:/t/dt=1/000001_0 (GLACIER)" in anomaly.message
    assert "restore-object" in anomaly.action and 'archived_objects = "skip"' in anomaly.action
    assert anomaly.details["objects"] == ["000001_0"] and anomaly.details["bytes"] == 2048
    assert "empty-partition" not in {a.code for a in p.anomalies}


def test_skip_migrates_without_them_and_counts_what_was_left_out() -> None:
    p = _classified(_archived(parameters={"numRows": "25"}), "skip")
    assert p.migratable
    (anomaly,) = [a for a in p.anomalies if a.code == "archived-skipped"]
    assert anomaly.severity == "warning" and anomaly.details["rows"] == 15
    (skipped,) = skipped_archives([p])
    assert (skipped.partition, skipped.objects, skipped.bytes) == ("dt=1", 1, 2048)
    assert skipped.rows == 15
    assert skipped.paths == ("000001_0",)
    assert skipped_totals([skipped]) == {"partitions": 1, "objects": 1, "bytes": 2048, "rows": 15}
    note = skipped_note([skipped])
    assert note is not None and "15 row(s)" in note and "dt=1: 000001_0" in note


def test_skipped_rows_are_unknown_without_statistics_never_guessed() -> None:
    p = _classified(_archived(), "skip")
    (skipped,) = skipped_archives([p])
    assert skipped.rows is None and skipped_totals([skipped])["rows"] is None
    assert skipped_archives([_classified(_archived(), "refuse")]) == []


def test_archived_objects_round_trip_through_the_inventory() -> None:
    p = _classified(_archived(), "refuse")
    fields = ("db", "t", "file:/t", "EXTERNAL_TABLE", "orc", "", "", TABLE, (), {}, (p,))
    inventory = TableInventory(*fields, (), (), "", "", 0)
    again = TableInventory.from_json(inventory.to_json())
    assert again.partitions[0].archived == (GLACIER,)


def test_the_setting_has_two_values_refuse_by_default() -> None:
    assert load_settings({}, env={}).archived_objects == "refuse"
    env = {"LAKESHIFT_ARCHIVED_OBJECTS": "skip"}
    assert load_settings({}, env=env).archived_objects == "skip"
    with pytest.raises(ConfigError, match="archived_objects"):
        load_settings({"archived_objects": "read"}, env={})

"""The committed sample is exactly what the generator makes, and states Hive's view."""

from __future__ import annotations

import filecmp
import json
from pathlib import Path

from lakeshift.sample.click_log_data import hive_view_rows
from lakeshift.sample.click_log_spec import partitions
from lakeshift.sample.generate import generate

REPO = Path(__file__).resolve().parents[2]


def test_generator_reproduces_committed_sample_byte_for_byte(tmp_path: Path) -> None:
    generate(tmp_path)
    committed = REPO / "sample_data" / "click_log"
    comparison = filecmp.dircmp(committed, tmp_path)
    stack = [comparison]
    while stack:
        current = stack.pop()
        assert not current.left_only and not current.right_only, current.report()
        _, mismatch, errors = filecmp.cmpfiles(
            current.left, current.right, current.common_files, shallow=False
        )
        assert not mismatch and not errors
        stack.extend(current.subdirs.values())


def test_manifest_plants_the_documented_cases() -> None:
    manifest = json.loads((REPO / "sample_data/click_log/manifest.json").read_text())
    parts = manifest["partitions"]
    positional = [p["value"] for p in parts if any(f["positional"] for f in p["files"])]
    assert positional == ["20220401", "20220402", "20220403"]
    assert [p["value"] for p in parts if p["value"] is None] == [None]
    assert [p["location"] for p in parts if p["location"].startswith("archive")] == [
        "archive/click_log_20220427"
    ]
    assert [p["value"] for p in parts if not p["files"]] == ["20220428"]
    assert [p["value"] for p in parts if not p["registered"]] == ["20220429"]
    assert sorted({p["schema_version"] for p in parts}) == [1, 2, 3, 4]


def test_hive_view_follows_each_hive_version() -> None:
    day5 = next(p for p in partitions() if p.value == "20220405")
    main, late = day5.files[0], next(f for f in day5.files if f.hand_copied)
    # Hive 2.1+: the table's columns read the file by name.
    rows = hive_view_rows(day5, late)
    assert any(r["country"] is not None for r in rows)  # the late file holds it
    assert all(r["bid_price"] is None for r in hive_view_rows(day5, main))  # it says `price`
    # Hive 1.2: the partition's columns, then by position.
    old = hive_view_rows(day5, late, into_table=False)
    assert all(r["country"] is None for r in old)  # the partition does not declare it
    assert any(r["bid_price"] is not None for r in old)  # renamed, kept by position
    day1 = next(p for p in partitions() if p.value == "20220401")
    positional = hive_view_rows(day1, day1.files[0])  # _colN: by position in every version
    assert any(r["bid_price"] is not None for r in positional)
    assert all(r["country"] is None for r in positional)

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


def test_hive_view_hides_columns_the_partition_does_not_declare() -> None:
    day5 = next(p for p in partitions() if p.value == "20220405")
    late = next(f for f in day5.files if f.hand_copied)
    rows = hive_view_rows(day5, late)
    assert all(r["country"] is None for r in rows)  # the file holds it; Hive shows NULL
    assert any(r["bid_price"] is not None for r in rows)  # renamed, kept by position

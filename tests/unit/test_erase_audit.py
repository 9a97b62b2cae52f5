"""The erasure audit on files built here: it must find what is left, wherever it hides."""

from __future__ import annotations

import json
from pathlib import Path

import fastavro
import pyarrow as pa
import pyarrow.parquet as pq

from lakeshift.erase.audit import audit_files
from lakeshift.erase.report import markdown, render_html
from lakeshift.erase.run import _referenced
from lakeshift.erase.state import AUDITED, ErasureState
from lakeshift.storage import Store

KEY = "0b6d3c2e-9a1f-4c1e-8a51-5f0f3b2f9c11"


def _data(path: Path, keys: list[str]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(pa.table({"uuid": keys, "customer": ["x"] * len(keys)}), path)


def test_clean_table_passes_and_counts_what_it_read(tmp_path: Path) -> None:
    _data(tmp_path / "data" / "a.parquet", ["k1", "k2"])
    (tmp_path / "metadata").mkdir()
    (tmp_path / "metadata" / "v1.metadata.json").write_text('{"snapshots": []}')
    result = audit_files(Store(str(tmp_path)), [KEY], ["cust-17"])
    assert result.passed and result.data_files == 1 and result.metadata_files == 1


def test_key_left_in_an_unreferenced_data_file_is_found(tmp_path: Path) -> None:
    _data(tmp_path / "old-batch" / "part=0" / "f.parquet", ["k1", KEY])
    result = audit_files(Store(str(tmp_path)), [KEY], [])
    assert not result.passed and "old-batch/part=0/f.parquet" in result.findings[0]


def test_value_in_a_json_log_and_in_a_compressed_checkpoint_is_found(tmp_path: Path) -> None:
    log = tmp_path / "_delta_log"
    log.mkdir()
    (log / "00000000000000000001.json").write_text(
        json.dumps({"add": {"stats": '{"minValues":{"customer":"cust-17"}}'}})
    )
    pq.write_table(
        pa.table({"add": [json.dumps({"min": "cust-17"})]}),
        log / "00000000000000000002.checkpoint.parquet",
        compression="zstd",
    )
    result = audit_files(Store(str(tmp_path)), [], ["cust-17"])
    assert len(result.findings) == 2


def test_value_in_a_deflated_avro_manifest_is_found(tmp_path: Path) -> None:
    schema = {"type": "record", "name": "m", "fields": [{"name": "bound", "type": "string"}]}
    (tmp_path / "metadata").mkdir()
    with (tmp_path / "metadata" / "snap-1.avro").open("wb") as handle:
        fastavro.writer(handle, schema, [{"bound": "cust-17"}] * 50, codec="deflate")
    raw = (tmp_path / "metadata" / "snap-1.avro").read_bytes()
    assert b"cust-17" not in raw  # compressed: a byte search alone would miss it
    assert not audit_files(Store(str(tmp_path)), [], ["cust-17"]).passed


def test_short_values_are_not_searched_in_metadata(tmp_path: Path) -> None:
    (tmp_path / "metadata").mkdir()
    (tmp_path / "metadata" / "v1.metadata.json").write_text('{"format-version": 2}')
    assert audit_files(Store(str(tmp_path)), [], ["2"]).passed


def test_referenced_columns_are_whole_identifiers() -> None:
    columns = ["customer", "customer_id", "id", "amount"]
    assert _referenced(columns, "customer_id = 'c' AND `amount` > 3") == ["customer_id", "amount"]
    assert _referenced(columns, "id IN (1, 2)") == ["id"]
    assert _referenced(columns, None) == []


def test_report_lists_partitions_and_what_lakeshift_cannot_reach() -> None:
    state = ErasureState(
        erase_id="e1",
        source="db.t",
        lake_table="db.t",
        format="delta",
        selector="customer = '<b>'",
        step=AUDITED,
        matched={"dt=1": 3},
        hive_matching={"db.t_hive_legacy": 3},
        commit_id=7,
        audit={
            "passed": True,
            "data_files": 2,
            "metadata_files": 5,
            "keys_searched": 3,
            "values_searched": 1,
            "predicate_checked": True,
            "findings": [],
            "notes": [],
        },
    )
    text = markdown(state)
    assert "| `dt=1` | 3 |" in text and "db.t_hive_legacy still holds 3" in text
    page = render_html(state)
    assert "&lt;b&gt;" in page and "<b>'" not in page and "passed" in page

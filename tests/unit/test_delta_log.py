"""The Delta log layer against real delta-rs: files written with pyarrow, read back three ways
(delta-rs's QueryBuilder, DataFusion, and a log replay of our own with pyarrow.parquet)."""

from __future__ import annotations

import json
import os
import re
from collections import Counter
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from lakeshift.errors import NotFound, RefusedInput, SchemaMappingError
from lakeshift.formats.delta import log as delta_log
from lakeshift.formats.delta.log import ConcurrentCommit, NewFile
from lakeshift.formats.delta.schema import PHYSICAL_NAME_KEY, delta_schema, physical_names
from lakeshift.schema_map.model import FieldMapping, TargetField
from lakeshift.storage import Store

HOSTILE = "a b%\"é='/x"
SOURCE = {"lakeshift.source": "db.src"}


def field_mapping(name: str = "name", renamed_from: str | None = None) -> FieldMapping:
    return FieldMapping(
        table="db.src",
        columns=(
            TargetField(1, "id", "bigint"),
            TargetField(2, name, "string", lineage=(renamed_from or name, name)),
            TargetField(3, "ts", "timestamp"),
            TargetField(4, "s", "struct<x:int>", (TargetField(6, "x", "int"),)),
        ),
        partition_keys=(TargetField(5, "dt", "string"),),
        generated=(),
        retired=(),
        last_id=6,
        mapping_mode="name",
        case_sensitive=False,
    )


@pytest.fixture
def schema() -> dict[str, Any]:
    # Physical names differ from logical ones, as they do after renames and drops.
    schema = delta_schema(field_mapping(), None)
    for field in schema["fields"]:
        field["metadata"][PHYSICAL_NAME_KEY] = f"col-{field['metadata']['delta.columnMapping.id']}"
    return schema


@pytest.fixture
def root(tmp_path: Path, schema: dict[str, Any]) -> Path:
    root = tmp_path / "table"
    delta_log.create_table(Store(str(root)), schema, ["dt"], dict(SOURCE))
    return root


Row = tuple[int | None, str | None, datetime | None, int | None, str | None]


def write_file(root: Path, rel: str, rows: list[Row]) -> NewFile:
    """A Parquet file as Spark writes it: physical names, field ids, no partition column."""

    def field(name: str, kind: pa.DataType, field_id: int) -> pa.Field:
        return pa.field(name, kind, metadata={b"PARQUET:field_id": str(field_id).encode()})

    arrow = pa.schema(
        [
            field("col-1", pa.int64(), 1),
            field("col-2", pa.string(), 2),
            field("col-3", pa.timestamp("us"), 3),
            field("col-4", pa.struct([field("x", pa.int32(), 6)]), 4),
        ]
    )
    table = pa.table(
        {
            "col-1": [r[0] for r in rows],
            "col-2": [r[1] for r in rows],
            "col-3": [r[2] for r in rows],
            "col-4": [None if r[3] is None else {"x": r[3]} for r in rows],
        },
        schema=arrow,
    )
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    pq.write_table(table, path)
    return NewFile(rel, {"dt": rows[0][4]})


def commit(root: Path, files: list[NewFile], batch: int, **kwargs: Any) -> delta_log.CommitOutcome:
    options: dict[str, Any] = {
        "replace": None,
        "app_id": "lakeshift-run1",
        "app_version": batch,
        "metadata": {"lakeshift.run-id": "run1", "lakeshift.batch": str(batch)},
        "expected_version": delta_log.table_state(Store(str(root))).version,  # type: ignore[union-attr]
    }
    options.update(kwargs)
    return delta_log.commit_batch(Store(str(root)), files, **options)


def read_query_builder(root: Path, sql: str = "SELECT * FROM t") -> list[Row]:
    from deltalake import DeltaTable, QueryBuilder

    table = pa.table(QueryBuilder().register("t", DeltaTable(str(root))).execute(sql).read_all())
    return rows_of(table.to_pylist())


def read_datafusion(root: Path) -> list[Row]:
    import datafusion
    from deltalake import DeltaTable

    context = datafusion.SessionContext()
    context.register_table("t", DeltaTable(str(root)))
    return rows_of(context.sql("SELECT * FROM t").to_arrow_table().to_pylist())


def read_replay(root: Path) -> list[Row]:
    """Our own replay of the JSON log, and pyarrow for the files: independent of delta-rs."""
    files: dict[str, dict[str, Any]] = {}
    metadata: dict[str, Any] = {}
    for commit_file in sorted((root / "_delta_log").glob("*.json")):
        for line in commit_file.read_text().splitlines():
            action = json.loads(line)
            if "metaData" in action:
                metadata = action["metaData"]
            if "add" in action:
                files[action["add"]["path"]] = action["add"]
            if "remove" in action:
                del files[action["remove"]["path"]]
    schema = json.loads(metadata["schemaString"])
    logical = {v: k for k, v in physical_names(schema).items()}
    out = []
    for path, add in files.items():
        table = pq.read_table(root / unquote(path))
        for row in table.to_pylist():
            named = {logical[k]: v for k, v in row.items()}
            named.update({logical[k]: v for k, v in add["partitionValues"].items()})
            out.append(named)
    return rows_of(out)


def rows_of(records: list[dict[str, Any]]) -> list[Row]:
    name = "full_name" if records and "full_name" in records[0] else "name"
    return [
        (r["id"], r[name], r["ts"], None if r["s"] is None else r["s"]["x"], r["dt"])
        for r in records
    ]


def same_rows(a: list[Row], b: list[Row]) -> bool:
    return Counter(a) == Counter(b)


DAY1: list[Row] = [
    (1, "ann", datetime(2024, 1, 1, 1, 2, 3, 456789), 10, "2024-01-01"),
    (2, None, None, None, "2024-01-01"),
]
HOSTILE_ROWS: list[Row] = [(3, "bob", datetime(1500, 1, 1), 30, HOSTILE)]
# A directory name with %, space, quote, = and unicode: the log must encode it, readers decode.
HOSTILE_DIR = "b1/dt=a b%\"é='x"


def test_create_writes_column_mapped_protocol_and_metadata(root: Path) -> None:
    state = delta_log.table_state(Store(str(root)))
    assert state is not None and state.version == 0
    assert state.partition_columns == ("dt",)
    assert state.configuration["delta.columnMapping.mode"] == "name"
    assert state.configuration["delta.columnMapping.maxColumnId"] == "6"
    assert state.configuration["lakeshift.source"] == "db.src"
    assert physical_names(state.schema)["name"] == "col-2"
    lines = (root / "_delta_log" / f"{0:020d}.json").read_text().splitlines()
    protocol = json.loads(lines[1])["protocol"]
    assert protocol["readerFeatures"] == ["columnMapping", "timestampNtz"]


def test_no_log_means_no_state(tmp_path: Path) -> None:
    assert delta_log.table_state(Store(str(tmp_path))) is None


def test_create_again_leaves_ours_and_refuses_a_foreign_table(
    root: Path, schema: dict[str, Any]
) -> None:
    delta_log.create_table(Store(str(root)), schema, ["dt"], dict(SOURCE))
    assert delta_log.table_state(Store(str(root))).version == 0  # type: ignore[union-attr]
    with pytest.raises(RefusedInput, match=re.escape(str(root))):
        delta_log.create_table(Store(str(root)), schema, ["dt"], {"lakeshift.source": "db.other"})


def test_committed_files_read_back_the_same_three_ways(root: Path) -> None:
    files = [
        write_file(root, "b1/dt=2024-01-01/part-0.parquet", DAY1),
        write_file(root, f"{HOSTILE_DIR}/part-0.parquet", HOSTILE_ROWS),
    ]
    outcome = commit(root, files, 1)
    assert outcome == delta_log.CommitOutcome(version=1, committed=True)
    expected = DAY1 + HOSTILE_ROWS
    assert same_rows(read_query_builder(root), expected)
    assert same_rows(read_datafusion(root), expected)
    assert same_rows(read_replay(root), expected)


def test_log_holds_physical_partition_keys_encoded_paths_and_stats(root: Path) -> None:
    commit(root, [write_file(root, f"{HOSTILE_DIR}/part-0.parquet", DAY1[:1])], 1)
    lines = (root / "_delta_log" / f"{1:020d}.json").read_text().splitlines()
    add = next(json.loads(line)["add"] for line in lines if '"add"' in line)
    assert add["partitionValues"] == {"col-5": "2024-01-01"}
    assert (
        "%25" in add["path"]
        and "%20" in add["path"]
        and unquote(add["path"]).startswith(HOSTILE_DIR)
    )
    stats = json.loads(add["stats"])
    assert stats["numRecords"] == 1
    assert stats["minValues"] == {
        "col-1": 1,
        "col-2": "ann",
        "col-3": "2024-01-01T01:02:03.456",
    }
    # Rounded up to the millisecond: still an upper bound for readers that keep milliseconds.
    assert stats["maxValues"]["col-3"] == "2024-01-01T01:02:03.457"
    assert stats["nullCount"] == {"col-1": 0, "col-2": 0, "col-3": 0}
    assert "col-4" not in stats["minValues"]  # nested: no stats
    # delta-rs parses our timestamp format, and skipping by it keeps the exact maximum.
    exact = "SELECT * FROM t WHERE ts = '2024-01-01T01:02:03.456789'"
    assert read_query_builder(root, exact) == DAY1[:1]


def test_recommitting_the_same_batch_is_a_no_op(root: Path) -> None:
    files = [write_file(root, "b1/dt=2024-01-01/part-0.parquet", DAY1)]
    commit(root, files, 1)
    again = commit(root, files, 1, expected_version=0)
    assert again == delta_log.CommitOutcome(version=1, committed=False)
    # Without a version check too: the recorded transaction alone stops the replay.
    assert not commit(root, files, 1, expected_version=None).committed
    assert delta_log.partition_row_counts(Store(str(root))) == {("2024-01-01",): 2}


def test_replace_removes_only_that_partitions_old_files_in_one_version(root: Path) -> None:
    commit(
        root,
        [
            write_file(root, "b1/dt=2024-01-01/part-0.parquet", DAY1),
            write_file(root, f"{HOSTILE_DIR}/part-0.parquet", HOSTILE_ROWS),
        ],
        1,
    )
    new_rows: list[Row] = [(9, "new", None, 9, HOSTILE)]
    outcome = commit(
        root,
        [write_file(root, "b2/dt=x/part-0.parquet", new_rows)],
        2,
        replace=[{"dt": HOSTILE}],
    )
    assert outcome.version == 2
    assert same_rows(read_query_builder(root), DAY1 + new_rows)
    assert same_rows(read_datafusion(root), DAY1 + new_rows)
    assert same_rows(read_replay(root), DAY1 + new_rows)
    paths = sorted(f.path for f in delta_log.current_files(Store(str(root))))
    assert paths == ["b1/dt=2024-01-01/part-0.parquet", "b2/dt=x/part-0.parquet"]


def test_replacing_a_partition_with_nothing_deletes_it(root: Path) -> None:
    commit(root, [write_file(root, "b1/dt=2024-01-01/part-0.parquet", DAY1)], 1)
    commit(root, [], 2, replace=[{"dt": "2024-01-01"}], metadata={})
    assert delta_log.partition_row_counts(Store(str(root))) == {}


def test_a_file_outside_the_replaced_partitions_is_refused(root: Path) -> None:
    files = [write_file(root, "b1/dt=2024-01-01/part-0.parquet", DAY1)]
    with pytest.raises(RefusedInput, match="does not replace"):
        commit(root, files, 1, replace=[{"dt": "2024-01-02"}])
    assert delta_log.table_state(Store(str(root))).version == 0  # type: ignore[union-attr]


def test_wrong_expected_version_raises_naming_both_versions(root: Path) -> None:
    commit(root, [write_file(root, "b1/dt=2024-01-01/part-0.parquet", DAY1)], 1)
    files = [write_file(root, f"{HOSTILE_DIR}/part-0.parquet", HOSTILE_ROWS)]
    with pytest.raises(ConcurrentCommit, match=r"version 0.*version 1"):
        commit(root, files, 2, expected_version=0)
    assert delta_log.table_state(Store(str(root))).version == 1  # type: ignore[union-attr]


def test_missing_file_raises_before_anything_is_committed(root: Path) -> None:
    present = write_file(root, "b1/dt=2024-01-01/part-0.parquet", DAY1)
    missing = NewFile("b1/dt=2024-01-01/part-1.parquet", {"dt": "2024-01-01"})
    with pytest.raises(NotFound, match=r"part-1\.parquet"):
        commit(root, [present, missing], 1)
    assert delta_log.table_state(Store(str(root))).version == 0  # type: ignore[union-attr]


def test_file_written_with_logical_names_is_refused(root: Path) -> None:
    path = root / "b1/dt=2024-01-01/part-0.parquet"
    path.parent.mkdir(parents=True)
    pq.write_table(pa.table({"id": [1]}), path)
    with pytest.raises(RefusedInput, match="'id'"):
        commit(root, [NewFile("b1/dt=2024-01-01/part-0.parquet", {"dt": "2024-01-01"})], 1)


@pytest.mark.parametrize(
    ("files", "match"),
    [
        ([NewFile("../outside.parquet", {"dt": "x"})], "not a relative path"),
        ([NewFile("f.parquet", {"day": "x"})], "partitioned by"),
    ],
)
def test_bad_paths_and_partition_keys_are_refused(
    root: Path, files: list[NewFile], match: str
) -> None:
    with pytest.raises(RefusedInput, match=match):
        commit(root, files, 1)


def test_metadata_outside_the_lakeshift_namespace_is_refused(root: Path) -> None:
    files = [write_file(root, "b1/dt=2024-01-01/part-0.parquet", DAY1)]
    with pytest.raises(RefusedInput, match="operation"):
        commit(root, files, 1, metadata={"operation": "x"})


def test_hostile_partition_values_round_trip(root: Path) -> None:
    commit(root, [write_file(root, f"{HOSTILE_DIR}/part-0.parquet", HOSTILE_ROWS)], 1)
    (only,) = delta_log.current_files(Store(str(root)))
    assert only.path == f"{HOSTILE_DIR}/part-0.parquet"
    assert only.partition_values == {"dt": HOSTILE}
    assert only.rows == 1
    assert only.size == os.path.getsize(root / only.path)
    escaped = HOSTILE.replace("'", "''")
    assert read_query_builder(root, f"SELECT * FROM t WHERE dt = '{escaped}'") == HOSTILE_ROWS


def test_null_partition_value(root: Path) -> None:
    rows: list[Row] = [(7, "n", None, None, None)]
    commit(root, [write_file(root, "b1/dt=null/part-0.parquet", rows)], 1)
    assert delta_log.partition_row_counts(Store(str(root))) == {(None,): 1}
    assert same_rows(read_replay(root), rows)
    assert same_rows(read_query_builder(root), rows)


def test_partition_row_counts(root: Path) -> None:
    commit(
        root,
        [
            write_file(root, "b1/dt=2024-01-01/part-0.parquet", DAY1[:1]),
            write_file(root, "b1/dt=2024-01-01/part-1.parquet", DAY1[1:]),
            write_file(root, f"{HOSTILE_DIR}/part-0.parquet", HOSTILE_ROWS),
        ],
        1,
    )
    assert delta_log.partition_row_counts(Store(str(root))) == {("2024-01-01",): 2, (HOSTILE,): 1}


def test_rename_through_update_metadata_reads_the_new_name(
    root: Path, schema: dict[str, Any]
) -> None:
    commit(root, [write_file(root, "b1/dt=2024-01-01/part-0.parquet", DAY1)], 1)
    renamed = delta_schema(field_mapping("full_name", renamed_from="name"), schema)
    assert physical_names(renamed)["full_name"] == "col-2"
    version = delta_log.update_metadata(Store(str(root)), renamed, {"lakeshift.note": "renamed"}, 1)
    assert version == 2
    state = delta_log.table_state(Store(str(root)))
    assert state is not None and state.version == 2
    assert [f["name"] for f in state.schema["fields"]][1] == "full_name"
    assert state.configuration["lakeshift.source"] == "db.src"  # merged, not replaced
    assert state.configuration["lakeshift.note"] == "renamed"
    rows = read_query_builder(root, "SELECT id, full_name, ts, s, dt FROM t")
    assert same_rows(rows, DAY1)
    assert same_rows(read_datafusion(root), DAY1)
    # Batches still commit after a hand-written metadata commit.
    commit(root, [write_file(root, f"{HOSTILE_DIR}/part-0.parquet", HOSTILE_ROWS)], 2)
    assert same_rows(read_query_builder(root), DAY1 + HOSTILE_ROWS)


def test_update_metadata_refuses_type_changes_and_stale_versions(
    root: Path, schema: dict[str, Any]
) -> None:
    changed = json.loads(json.dumps(schema))
    changed["fields"][0]["type"] = "string"
    with pytest.raises(SchemaMappingError, match="'id': long -> string"):
        delta_log.update_metadata(Store(str(root)), changed, {}, 0)
    with pytest.raises(ConcurrentCommit, match="version 5"):
        delta_log.update_metadata(Store(str(root)), schema, {}, 5)
    assert delta_log.table_state(Store(str(root))).version == 0  # type: ignore[union-attr]


def test_update_metadata_adds_the_timestamp_feature_when_needed(tmp_path: Path) -> None:
    root = tmp_path / "t"
    plain = {"type": "struct", "fields": [field_dict("a", "long", 1)]}
    delta_log.create_table(Store(str(root)), plain, [], dict(SOURCE))
    first = json.loads((root / "_delta_log" / f"{0:020d}.json").read_text().splitlines()[1])
    assert first["protocol"]["readerFeatures"] == ["columnMapping"]
    wider = {"type": "struct", "fields": [*plain["fields"], field_dict("t", "timestamp_ntz", 2)]}
    delta_log.update_metadata(Store(str(root)), wider, {}, 0)
    from deltalake import DeltaTable

    protocol = DeltaTable(str(root)).protocol()
    assert protocol.reader_features == ["columnMapping", "timestampNtz"]
    state = delta_log.table_state(Store(str(root)))
    assert state is not None and state.configuration["delta.columnMapping.maxColumnId"] == "2"


def field_dict(name: str, kind: str, field_id: int) -> dict[str, Any]:
    metadata = {"delta.columnMapping.id": field_id, PHYSICAL_NAME_KEY: name}
    return {"name": name, "type": kind, "nullable": True, "metadata": metadata}


def test_lakeshift_commits_newest_first(root: Path, schema: dict[str, Any]) -> None:
    commit(root, [write_file(root, "b1/dt=2024-01-01/part-0.parquet", DAY1)], 1)
    delta_log.update_metadata(Store(str(root)), schema, {}, 1)  # no run id: not listed
    commit(root, [write_file(root, f"{HOSTILE_DIR}/part-0.parquet", HOSTILE_ROWS)], 2)
    assert delta_log.lakeshift_commits(Store(str(root))) == [
        {"lakeshift.run-id": "run1", "lakeshift.batch": "2", "version": "3"},
        {"lakeshift.run-id": "run1", "lakeshift.batch": "1", "version": "1"},
    ]


def test_another_writers_commit_after_lakeshifts_newest_is_refused_by_every_later_commit(
    root: Path,
) -> None:
    from deltalake import DeltaTable

    commit(root, [write_file(root, "b1/dt=2024-01-01/part-0.parquet", DAY1)], 1)
    table = DeltaTable(str(root))
    assert delta_log.foreign_commits(table) == []  # version 0 and 1 are lakeshift's
    table.alter.set_table_properties({"delta.appendOnly": "false"})  # another writer
    found = delta_log.foreign_commits(DeltaTable(str(root)))
    assert [(f.version, f.operation) for f in found] == [(2, "SET TBLPROPERTIES")]
    files = [write_file(root, f"{HOSTILE_DIR}/part-0.parquet", HOSTILE_ROWS)]
    # Whatever version the caller read last (the ground truth is the log, not the caller).
    for expected in (None, 2):
        with pytest.raises(ConcurrentCommit, match=r"version 2 \(SET TBLPROPERTIES"):
            commit(root, files, 2, expected_version=expected)
    assert DeltaTable(str(root)).version() == 2
    # Erasure and maintenance (guard off) expect only the version they read.
    assert commit(root, files, 2, expected_version=2, guard=False).committed
    assert delta_log.foreign_commits(DeltaTable(str(root))) == []


def test_a_table_lakeshift_never_committed_to_has_no_foreign_commits(tmp_path: Path) -> None:
    from deltalake import DeltaTable, write_deltalake

    write_deltalake(str(tmp_path / "t"), pa.table({"x": [1]}))
    write_deltalake(str(tmp_path / "t"), pa.table({"x": [2]}), mode="append")
    assert delta_log.foreign_commits(DeltaTable(str(tmp_path / "t"))) == []  # adopted as found

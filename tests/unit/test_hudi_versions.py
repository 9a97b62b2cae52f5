"""Hudi table versions 6 and 8 as lakeshift writes them, against the real tables of
../shared/reference-tables/hudi: properties, directory skeleton, instant file names, the JSON
(v6) and Avro (v8) records of the timeline, base-file names, meta columns and footers; and a
v8 table built from these files, read back by hudi-rs."""

from __future__ import annotations

import json
import re
from pathlib import Path

import fastavro
import pyarrow as pa
import pytest

from lakeshift.formats.hudi import instant_schemas, properties
from lakeshift.formats.hudi.clean import clean
from lakeshift.formats.hudi.cleaning import base_files, superseded
from lakeshift.formats.hudi.instant_schemas import requested_replace_schema
from lakeshift.formats.hudi.timeline import CLEAN, COMMIT, REPLACE, Timeline
from tests.helpers.hudi_build import commit_rows, new_table

#: Keys whose values define the table's layout: a v8 table lakeshift writes has real Hudi 1.0's.
LAYOUT_KEYS = (
    "hoodie.table.version",
    "hoodie.table.initial.version",
    "hoodie.timeline.layout.version",
    "hoodie.timeline.path",
    "hoodie.timeline.history.path",
    "hoodie.table.type",
    "hoodie.table.keygenerator.type",
    "hoodie.record.merge.mode",
    "hoodie.record.merge.strategy.id",
    "hoodie.compaction.payload.class",
    "hoodie.archivelog.folder",
    "hoodie.datasource.write.hive_style_partitioning",
    "hoodie.datasource.write.partitionpath.urlencode",
    "hoodie.datasource.write.drop.partition.columns",
)
OURS = {
    s["name"]: s
    for s in (
        instant_schemas.COMMIT_SCHEMA,
        instant_schemas.REPLACE_SCHEMA,
        instant_schemas.REQUESTED_REPLACE_SCHEMA,
    )
}


def _shape(name: str) -> str:
    """An instant file name with its times replaced by T (requested) and C (completion)."""
    return re.sub(r"^\d{17}", "T", re.sub(r"_\d{17}\.", "_C.", name))


def _instant_files(directory: Path) -> list[Path]:
    return sorted(p for p in directory.iterdir() if p.is_file() and p.name[:1].isdigit())


def test_a_v6_table_names_and_spells_instants_as_hudi_0_14_does(
    references: Path, tmp_path: Path
) -> None:
    """File-name grammar, and every JSON record's keys in Jackson's order, per action."""
    timeline = new_table(tmp_path, version=6)
    commit_rows(tmp_path, {"20": ["a", "bb"], "30": ["ccc"]}, timeline)
    current = {f.partition: f.file_id for f in base_files(tmp_path)}
    commit_rows(tmp_path, {"20": ["dd"]}, timeline, replaced={"20": [current["20"]]})
    ours = _instant_files(tmp_path / ".hoodie")
    real = _instant_files(references / "v6_simplekeygen_nonhivestyle_overwritetable" / ".hoodie")
    assert sorted({_shape(p.name) for p in ours}) == sorted({_shape(p.name) for p in real})

    def by_shape(files: list[Path]) -> dict[str, bytes]:
        return {_shape(p.name): p.read_bytes() for p in files}

    mine, theirs = by_shape(ours), by_shape(real)
    for shape in ("T.commit", "T.replacecommit", "T.inflight", "T.replacecommit.inflight"):
        ours_json, real_json = json.loads(mine[shape]), json.loads(theirs[shape])
        assert list(ours_json) == list(real_json), shape
        if shape in ("T.commit", "T.replacecommit"):
            [our_stat] = ours_json["partitionToWriteStats"]["20"]
            real_stat = next(iter(real_json["partitionToWriteStats"].values()))[0]
            assert list(our_stat) == list(real_stat), shape  # the 23 keys, in order

    # The requested replace is Hudi 0.14's Avro record: the same header and data block; only
    # the random sync marker (which closes the header and each block) differs.
    def split(container: bytes) -> tuple[bytes, bytes]:
        sync = container[-16:]
        end = container.index(sync)
        return container[:end], container[end + 16 : -16]

    assert split(mine["T.replacecommit.requested"]) == split(theirs["T.replacecommit.requested"])


def test_base_files_have_every_real_tables_names_meta_columns_and_footer_keys(
    references: Path, tmp_path: Path
) -> None:
    import pyarrow.parquet as pq

    grammar = re.compile(
        r"^[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}-\d+_\d+-\d+-\d+_\d{17}\.parquet$"
    )
    ours = {}
    for version in properties.TABLE_VERSIONS:
        timeline = new_table(tmp_path / str(version), version=version)
        commit_rows(tmp_path / str(version), {"20": ["a", "bb"]}, timeline)
        [ours[version]] = base_files(tmp_path / str(version))
    checked = 0
    for hoodie in sorted(references.glob("*/.hoodie")):
        props = properties.read_properties(hoodie)
        version = int(props["hoodie.table.version"])
        if props["hoodie.table.type"] != "COPY_ON_WRITE" or version not in ours:
            continue  # what lakeshift does not write (Hudi 1.1's row writer: Spark footers)
        mine = tmp_path / str(version) / ours[version].path
        footer = set(pq.read_metadata(mine).metadata or {})
        assert grammar.match(mine.name)
        for f in base_files(hoodie.parent):
            if "metadata" in Path(f.path).parts:
                continue
            full = hoodie.parent / f.path
            assert grammar.match(full.name), full
            assert set(pq.read_metadata(full).metadata or {}) == footer, full
            assert pq.read_schema(full).names[:5] == pq.read_schema(mine).names[:5]
            codec = pq.read_metadata(full).row_group(0).column(0).compression
            assert codec == pq.read_metadata(mine).row_group(0).column(0).compression == "GZIP"
            checked += 1
    assert checked >= 20  # the v6 and v8 copy-on-write tables


def test_v8_properties_and_skeleton_are_hudi_1_0s(references: Path, tmp_path: Path) -> None:
    real = properties.read_properties(references / "v8_simplekeygen_nonhivestyle" / ".hoodie")
    timeline = new_table(tmp_path, version=8)
    ours = properties.read_properties(tmp_path / ".hoodie")
    assert set(real) - set(ours) == set()
    assert {k: ours[k] for k in LAYOUT_KEYS} == {k: real[k] for k in LAYOUT_KEYS}
    assert ours["hoodie.table.checksum"] == str(properties.table_checksum("db", "t"))
    # The same directories under .hoodie (v8: a timeline with its history, no "archived").
    ref_dirs = {
        p.relative_to(references / "v8_simplekeygen_nonhivestyle" / ".hoodie")
        for p in (references / "v8_simplekeygen_nonhivestyle" / ".hoodie").rglob("*")
        if p.is_dir()
    }
    our_dirs = {
        p.relative_to(tmp_path / ".hoodie") for p in (tmp_path / ".hoodie").rglob("*") if p.is_dir()
    }
    assert ref_dirs == our_dirs
    assert timeline.directory == ".hoodie/timeline" and timeline.avro
    with pytest.raises(ValueError, match="table version 7"):
        properties.table_properties("db", "t", {}, version=7)


def test_timeline_records_are_written_with_the_real_files_writer_schemas(
    references: Path,
) -> None:
    """Java reads each instant with the schema its file carries: lakeshift's schemas are the
    ones in the real files of the same table version, character for character."""
    seen: dict[tuple[str, int], int] = {}
    for hoodie in sorted(references.glob("*/.hoodie")):
        version = min(int(properties.read_properties(hoodie)["hoodie.table.version"]), 8)
        ours = {**OURS, "HoodieRequestedReplaceMetadata": requested_replace_schema(version)}
        for path in sorted(hoodie.rglob("*")):
            if not path.is_file() or path.read_bytes()[:4] != b"Obj\x01":
                continue
            with path.open("rb") as handle:
                raw = fastavro.reader(handle).metadata["avro.schema"]
            name = json.loads(raw)["name"]
            if name in ours and "metadata" not in path.parts:
                assert json.dumps(ours[name], separators=(",", ":")) == raw, path
                seen[(name, version)] = seen.get((name, version), 0) + 1
    assert set(seen) == {(name, 8) for name in OURS} | {("HoodieRequestedReplaceMetadata", 6)}
    assert seen[("HoodieCommitMetadata", 8)] >= 20, seen


def test_a_v8_table_names_and_encodes_instants_as_hudi_1_0_does(
    references: Path, tmp_path: Path
) -> None:
    timeline = new_table(tmp_path, version=8)
    first = commit_rows(tmp_path, {"20": ["a", "bb"], "30": ["ccc"]}, timeline)
    current = {f.partition: f.file_id for f in base_files(tmp_path)}
    commit_rows(tmp_path, {"20": ["dd"]}, timeline, replaced={"20": [current["20"]]})
    files = sorted(p.name for p in (tmp_path / ".hoodie" / "timeline").iterdir() if p.is_file())
    real = sorted(
        p.name
        for p in (references / "v8_simplekeygen_nonhivestyle" / ".hoodie" / "timeline").iterdir()
        if p.is_file()
    )
    v9 = references / "v9_txns_simple_nometa" / ".hoodie" / "timeline"
    real_replace = sorted(p.name for p in v9.glob("20260307135707243*"))  # an insert_overwrite
    assert [_shape(n) for n in files] == [_shape(n) for n in real[:3] + real_replace]
    for name in files:  # a completion time follows its instant time
        if "_" in name:
            requested, completion = re.findall(r"\d{17}", name)
            assert completion > requested
    assert not any((tmp_path / ".hoodie").glob("*.commit"))  # nothing in the v6 place

    # Each file decodes into the record real Hudi writes for that state.
    names = {}
    for name in files:
        body = (tmp_path / ".hoodie" / "timeline" / name).read_bytes()
        if body:
            with (tmp_path / ".hoodie" / "timeline" / name).open("rb") as handle:
                reader = fastavro.reader(handle)
                assert set(reader.metadata) == {"avro.schema"}  # as Hudi's: no avro.codec
                raw = reader.metadata["avro.schema"]
                assert raw == json.dumps(OURS[json.loads(raw)["name"]], separators=(",", ":"))
                names[_shape(name)] = (json.loads(raw)["name"], *reader)
    assert {k: v[0] for k, v in names.items()} == {
        "T.inflight": "HoodieCommitMetadata",
        "T_C.commit": "HoodieCommitMetadata",
        "T.replacecommit.requested": "HoodieRequestedReplaceMetadata",
        "T.replacecommit.inflight": "HoodieCommitMetadata",
        "T_C.replacecommit": "HoodieReplaceCommitMetadata",
    }
    _, replace = names["T_C.replacecommit"]
    assert replace["partitionToReplaceFileIds"] == {"20": [current["20"]]}
    assert replace["operationType"] == "INSERT_OVERWRITE" and replace["version"] is None
    [stat] = replace["partitionToWriteStats"]["20"]
    assert (stat["numWrites"], stat["prevCommit"], stat["numUpdates"]) == (1, "null", 0)
    assert json.loads(replace["extraMetadata"]["schema"])["name"] == "t_record"
    _, commit = names["T_C.commit"]
    assert commit["extraMetadata"]["lakeshift.batch"] == "1" and commit["compacted"] is False
    # lakeshift's own reading of the timeline: completion times, metadata, nothing pending.
    [c1, c2] = timeline.completed({COMMIT, REPLACE})
    assert (c1.time, c1.action, c2.action) == (first, COMMIT, REPLACE)
    assert c1.completion is not None and c1.completion < c2.time
    assert timeline.metadata(c2)["partitionToReplaceFileIds"] == {"20": [current["20"]]}
    assert timeline.pending() == []


def test_hudi_rs_reads_a_v8_table_lakeshift_built_snapshot_time_travel_and_incremental(
    tmp_path: Path,
) -> None:
    import datetime as dt

    import hudi

    timeline = new_table(tmp_path, version=8)
    first = commit_rows(tmp_path, {"20": ["a", "bb"], "30": ["ccc"]}, timeline)
    old = {f.partition: f for f in base_files(tmp_path)}
    second = commit_rows(
        tmp_path, {"20": ["dd", "e"]}, timeline, replaced={"20": [old["20"].file_id]}
    )

    def keys(options: object = None) -> list[str]:
        table = hudi.HudiTableBuilder.from_base_uri(str(tmp_path)).build()
        batches = table.read(options) if options is not None else table.read()
        return sorted(pa.Table.from_batches(batches).column("uuid").to_pylist()) if batches else []

    assert keys() == ["ccc", "dd", "e"]
    assert keys(hudi.HudiReadOptions().with_as_of_timestamp(first)) == ["a", "bb", "ccc"]
    # Incremental reads of a v8 table go by completion time (Hudi 1.x): after the first
    # commit completed, up to the second's completion, is exactly the second batch.
    c1, c2 = timeline.completed({COMMIT, REPLACE})
    assert c1.completion and c2.completion

    def incremental(start: str, end: str) -> object:
        return (
            hudi.HudiReadOptions()
            .with_query_type(hudi.HudiQueryType.Incremental)
            .with_start_timestamp(start)
            .with_end_timestamp(end)
        )

    assert keys(incremental(c1.completion, c2.completion)) == ["dd", "e"]
    assert keys(incremental("0", c1.completion)) == ["a", "bb", "ccc"]
    table = hudi.HudiTableBuilder.from_base_uri(str(tmp_path)).build()
    hudi_timeline = table.get_timeline()
    assert [i.timestamp for i in hudi_timeline.get_completed_commits()] == [first]
    assert [i.timestamp for i in hudi_timeline.get_completed_replacecommits()] == [second]

    # The clean of the replaced file group: Avro plan and outcome, a completion time too.
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=5)
    doomed = superseded(tmp_path, timeline, later)
    assert [f.path for f in doomed] == [old["20"].path]
    done = clean(timeline, str(tmp_path), doomed, None)
    [cleaned] = timeline.completed({CLEAN})
    assert cleaned.time == done and cleaned.completion is not None
    assert (tmp_path / ".hoodie" / "timeline" / f"{done}_{cleaned.completion}.clean").is_file()
    assert timeline.metadata(cleaned)["totalFilesDeleted"] == 1
    assert keys() == ["ccc", "dd", "e"] and not (tmp_path / old["20"].path).exists()


def test_lakeshift_reads_every_reference_timeline_as_hudi_rs_does(references: Path) -> None:
    """Instant times and actions of completed commits and replacecommits, v6 to v9 layouts."""
    import hudi

    checked = 0
    for hoodie in sorted(references.glob("*/.hoodie")):
        table = hudi.HudiTableBuilder.from_base_uri(str(hoodie.parent)).build().get_timeline()
        theirs = [i.timestamp for i in table.get_completed_commits()]
        theirs += [i.timestamp for i in table.get_completed_replacecommits()]
        ours = [i.time for i in Timeline(hoodie.parent).completed({COMMIT, REPLACE})]
        assert sorted(ours) == sorted(theirs), hoodie.parent.name
        checked += bool(ours)
    assert checked >= 8


@pytest.mark.parametrize("codec", ["snappy", "zstd"])
def test_base_files_in_another_codec_read_back_in_hudi_rs(tmp_path: Path, codec: str) -> None:
    import hudi
    import pyarrow.parquet as pq

    timeline = new_table(tmp_path, version=8)
    commit_rows(tmp_path, {"20": ["a", "bb"], "30": ["ccc"]}, timeline, codec=codec)
    for f in base_files(tmp_path):
        compression = pq.read_metadata(tmp_path / f.path).row_group(0).column(0).compression
        assert compression == codec.upper()
    table = hudi.HudiTableBuilder.from_base_uri(str(tmp_path)).build()
    read = pa.Table.from_batches(table.read())
    assert sorted(read.column("uuid").to_pylist()) == ["a", "bb", "ccc"]

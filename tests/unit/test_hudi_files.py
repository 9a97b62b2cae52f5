"""lakeshift's Hudi file layer against tables real Hudi wrote (../shared/reference-tables/hudi),
and a table built only from it, read back by hudi-rs."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq

from lakeshift.formats.hudi import properties
from lakeshift.formats.hudi.avro_schema import avro_schema, create_schema, with_meta_fields
from lakeshift.formats.hudi.base_file import META_COLUMNS, new_file_id, write_base_file
from lakeshift.formats.hudi.bloom import BloomFilter, murmur_hash, positions
from lakeshift.formats.hudi.commit_metadata import commit_metadata, write_stat
from lakeshift.formats.hudi.timeline import COMMIT, COMPLETED, Instant, Timeline
from tests.helpers.hudi_build import commit_rows


def _base_files(root: Path) -> list[Path]:
    return [p for p in sorted(root.rglob("*.parquet")) if ".hoodie" not in p.parts]


def test_every_reference_bloom_filter_holds_its_keys_and_is_rebuilt_byte_for_byte(
    references: Path,
) -> None:
    files = _base_files(references)
    tails = Counter()
    assert len(files) >= 30
    for path in files:
        parquet = pq.ParquetFile(path)
        footer = parquet.metadata.metadata[b"org.apache.hudi.bloomfilter"].decode()
        keys = parquet.read(columns=["_hoodie_record_key"]).column(0).to_pylist()
        decoded = BloomFilter.deserialize(footer)
        assert all(decoded.might_contain(k) for k in keys), path
        assert BloomFilter.for_keys(keys).serialize() == footer, path
        tails.update(len(k.encode()) % 4 for k in keys)
    # Keys with 0, 1 and 3 tail bytes are among them (Hadoop's tail-byte rule is exercised).
    assert {0, 1, 3} <= set(tails)


def test_hadoop_murmur_takes_tail_bytes_from_the_end_sign_extended() -> None:
    # Canonical MurmurHash2 mixes a 2-byte tail as t[1] << 8 ^ t[0]; Hadoop's as t[0] << 8 ^ t[1]
    # (indexed from the end): two keys that swap their tail bytes hash differently, and a
    # non-ASCII tail byte is sign-extended.
    assert murmur_hash(b"ab", 0) != murmur_hash(b"ba", 0)
    assert murmur_hash("é".encode(), 0) == murmur_hash(b"\xc3\xa9", 0)
    bloom = BloomFilter.for_keys(["k-é", "xy", "uuid-1234"])
    assert all(bloom.might_contain(k) for k in ("k-é", "xy", "uuid-1234"))
    assert not any(bloom.might_contain(f"absent-{i}") for i in range(200))
    assert all(0 <= p < 2_587_966 for p in positions("anything"))


def test_the_vectorised_filter_is_the_key_by_key_one_and_grows_past_60000_keys() -> None:
    import random
    import uuid

    rng = random.Random(7)
    keys = [str(uuid.UUID(int=rng.getrandbits(128))) for _ in range(200)]
    keys += ["", "a", "ab", "abc", "k-é", "日本語キー", "x" * 41]  # every tail length, non-ASCII
    keys += [
        "".join(chr(rng.randint(32, 0x2000)) for _ in range(rng.randint(0, 30))) for _ in range(300)
    ]
    one_by_one = BloomFilter()
    for key in keys:
        one_by_one.add(key)
    assert BloomFilter.for_keys(keys).serialize() == one_by_one.serialize()
    assert BloomFilter.for_keys([]).serialize() == BloomFilter().serialize()
    many = [f"key-{i}" for i in range(60_001)]
    grown = BloomFilter.for_keys(many)
    assert (len(grown.rows), grown.current) == (2, 1)  # DYNAMIC_V0 adds a row past capacity
    assert grown.rows[1] == BloomFilter.for_keys(many[-1:]).rows[0]
    assert grown.rows[0] == BloomFilter.for_keys(many[:60_000]).rows[0]
    assert all(grown.might_contain(k) for k in many[::997] + many[-3:])


def test_properties_match_real_tables_key_checksum_and_escaping(
    references: Path, tmp_path: Path
) -> None:
    real = properties.read_properties(references / "v6_simplekeygen_nonhivestyle" / ".hoodie")
    assert real["hoodie.table.checksum"] == str(
        properties.table_checksum(real["hoodie.database.name"], real["hoodie.table.name"])
    )
    json.loads(real["hoodie.table.create.schema"])  # unescaped back to valid JSON
    schema = avro_schema("orders", pa.schema([("id", pa.int64()), ("uuid", pa.string())]))
    ours = properties.table_properties("shop", "orders", create_schema(schema))
    # Every key real Hudi 0.14 writes for a v6 copy-on-write table, with the same meaning.
    assert set(real) - set(ours) == set()
    properties.init_table(tmp_path, ours)
    assert properties.read_properties(tmp_path / ".hoodie") == ours
    text = (tmp_path / ".hoodie" / "hoodie.properties").read_text()
    assert 'hoodie.table.create.schema={"type"\\:"record"' in text
    assert (tmp_path / ".hoodie" / ".aux" / ".bootstrap" / ".partitions").is_dir()
    created = json.loads(ours["hoodie.table.create.schema"])
    assert (
        created["fields"][0]["type"] == ["long", "null"] and "default" not in created["fields"][0]
    )


def test_avro_schema_names_and_decimals_as_spark_avro_does() -> None:
    schema = avro_schema(
        "t",
        pa.schema(
            [
                ("d", pa.decimal128(10, 5)),
                ("s", pa.struct([("a", pa.int32())])),
                ("ts", pa.timestamp("us", tz="UTC")),
            ]
        ),
    )
    d, s, ts = schema["fields"]
    assert d["type"][1] == {
        "type": "fixed",
        "name": "fixed",
        "namespace": "hoodie.t.t_record.d",
        "size": 5,
        "logicalType": "decimal",
        "precision": 10,
        "scale": 5,
    }
    assert s["type"][1]["name"] == "s" and s["type"][1]["namespace"] == "hoodie.t.t_record"
    assert ts["type"] == ["null", {"type": "long", "logicalType": "timestamp-micros"}]
    assert [f["name"] for f in with_meta_fields(schema)["fields"]][:5] == list(META_COLUMNS)


def test_a_table_built_from_these_files_reads_back_in_hudi_rs(tmp_path: Path) -> None:
    import hudi

    schema = avro_schema("t", pa.schema([("uuid", pa.string()), ("v", pa.int64())]))
    properties.init_table(tmp_path, properties.table_properties("db", "t", create_schema(schema)))
    timeline = Timeline(tmp_path)
    commit_rows(tmp_path, {"dt=1": ["a", "b"], "dt=2": ["c"]}, timeline)
    # A crashed second write: requested and inflight, a file on disk, never completed.
    crashed = timeline.new_instant_time()
    timeline.write_requested(crashed, COMMIT)
    timeline.write_inflight(crashed, COMMIT)
    rows = pa.table({"uuid": ["zombie"], "v": [9], "partitionpath": ["dt=1"]})
    write_base_file(
        rows,
        tmp_path / "dt=1",
        partition_path="dt=1",
        instant=crashed,
        file_id=new_file_id(),
        write_token="0-2-0",
        avro_schema=with_meta_fields(schema),
    )
    table = hudi.HudiTableBuilder.from_base_uri(str(tmp_path)).build()
    read = pa.Table.from_batches(table.read())
    assert sorted(read.column("uuid").to_pylist()) == ["a", "b", "c"]
    assert read.column("_hoodie_record_key").to_pylist() == read.column("uuid").to_pylist()
    names = {r["_hoodie_file_name"] for r in read.select(["_hoodie_file_name"]).to_pylist()}
    assert names == {s.base_file_name for s in table.get_file_slices()}
    assert [i.state for i in timeline.completed()] == [COMPLETED]
    [pending] = timeline.pending()
    assert pending.time == crashed
    timeline.remove_pending(pending)
    assert timeline.pending() == []


def test_the_gzip_level_is_the_one_given(tmp_path: Path) -> None:
    """(The integration tests read the default level's files with hudi-rs.)"""
    import pyarrow.parquet as pq

    schema = avro_schema("t", pa.schema([("uuid", pa.string()), ("v", pa.string())]))
    n = 20_000
    rows = pa.table(
        {
            "uuid": [f"{i:08x}-key" for i in range(n)],
            "v": [f"value {i * 7919 % 10007} of {i % 13}" for i in range(n)],
        }
    )
    sizes = {}
    for level in (1, 9):
        root = tmp_path / f"level{level}"
        properties.init_table(root, properties.table_properties("db", "t", create_schema(schema)))
        timeline = Timeline(root)
        instant = timeline.new_instant_time()
        timeline.write_requested(instant, COMMIT)
        timeline.write_inflight(instant, COMMIT)
        written = write_base_file(
            rows,
            root,
            partition_path="",
            instant=instant,
            file_id=new_file_id(),
            write_token="0-1-0",
            avro_schema=with_meta_fields(schema),
            level=level,
        )
        path = root / written.name
        column = pq.ParquetFile(path).metadata.row_group(0).column(5)
        assert column.compression == "GZIP"
        sizes[level] = path.stat().st_size
        assert pq.read_table(path).column("v").to_pylist() == rows.column("v").to_pylist()
    assert sizes[9] < sizes[1]


def test_old_routing_directories_go_after_the_grace_period_current_ones_stay(
    tmp_path: Path,
) -> None:
    import os
    import time

    from lakeshift.formats.hudi.routing import ROUTE_GRACE_SECONDS, drop_old_route_dirs
    from lakeshift.storage import Store

    dirs = {name: tmp_path / "dt=1" / name for name in ("old", "recent", "current")}
    for directory in dirs.values():
        directory.mkdir(parents=True)
        (directory / "f.parquet").write_bytes(b"x")
    past = time.time() - ROUTE_GRACE_SECONDS - 60
    for name in ("old", "current"):  # an object store knows its files' times, not directories'
        os.utime(dirs[name] / "f.parquet", (past, past))
    removed = drop_old_route_dirs(Store(str(tmp_path)), "dt=1", {"dt=1/current"})
    assert removed == [f"{tmp_path}/dt=1/old"]
    assert not dirs["old"].exists()
    assert dirs["recent"].exists() and dirs["current"].exists()


def test_a_delete_rewrite_keeps_meta_columns_and_cleaning_finds_the_old_slice(
    tmp_path: Path,
) -> None:
    import datetime as dt

    import hudi

    from lakeshift.formats.hudi import cleaning
    from lakeshift.formats.hudi.base_file import instant_of, rewrite_base_files

    schema = avro_schema(
        "t", pa.schema([("uuid", pa.string()), ("v", pa.int64()), ("partitionpath", pa.string())])
    )
    properties.init_table(tmp_path, properties.table_properties("db", "t", create_schema(schema)))
    timeline = Timeline(tmp_path)
    first = commit_rows(tmp_path, {"dt=1": ["a", "bb", "ccc", "dddd"]}, timeline)
    [old] = (tmp_path / "dt=1").glob("*.parquet")
    before = {r["_hoodie_record_key"]: r for r in pq.read_table(old).to_pylist()}

    # The erasure's commit: same file group, new instant, "bb" dropped.
    second = timeline.new_instant_time()
    file_id = old.name.split("_", 1)[0]
    written, dropped = rewrite_base_files(
        [old],
        tmp_path / "dt=1",
        partition_path="dt=1",
        instant=second,
        file_id=file_id,
        write_token="0-3-0",
        drop_keys=frozenset({"bb", "not-there"}),
    )
    stat = write_stat(
        file_id=file_id,
        path=f"dt=1/{written.name}",
        partition="dt=1",
        rows=written.rows,
        size=written.size,
        prev_commit=first,
        num_deletes=dropped,
        num_inserts=0,
    )
    timeline.write_requested(second, COMMIT)
    timeline.write_completed(second, COMMIT, commit_metadata([stat], schema, "DELETE", {}))
    assert dropped == 1 and written.rows == 3 and instant_of(written.name) == second
    after = pq.read_table(written.path)
    for row in after.to_pylist():  # each row keeps its commit time and seqno; file name is new
        kept = before[row["_hoodie_record_key"]]
        assert row["_hoodie_commit_time"] == kept["_hoodie_commit_time"] == first
        assert row["_hoodie_commit_seqno"] == kept["_hoodie_commit_seqno"]
        assert row["_hoodie_file_name"] == written.name and row["v"] == kept["v"]
    kv = pq.read_metadata(written.path).metadata or {}
    footer = {k.decode(): v.decode() for k, v in kv.items()}
    assert (footer["hoodie_min_record_key"], footer["hoodie_max_record_key"]) == ("a", "dddd")
    rebuilt = BloomFilter.for_keys(["a", "ccc", "dddd"]).serialize()
    assert footer["org.apache.hudi.bloomfilter"] == rebuilt
    old_footer = {k.decode(): v.decode() for k, v in (pq.read_metadata(old).metadata or {}).items()}
    assert old_footer["hoodie_bloom_filter_type_code"] == "DYNAMIC_V0"
    assert old_footer["org.apache.hudi.bloomfilter"] == BloomFilter.for_keys(before).serialize()
    assert old_footer["writer.model.name"] == "avro" and "ARROW:schema" not in old_footer
    assert footer["parquet.avro.schema"] == old_footer["parquet.avro.schema"] != ""

    # hudi-rs reads the latest slice only; the old one is superseded, so cleaned, not orphaned.
    read = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(str(tmp_path)).build().read())
    assert sorted(read.column("uuid").to_pylist()) == ["a", "ccc", "dddd"]
    later = dt.datetime.now(dt.timezone.utc) + dt.timedelta(seconds=5)
    earlier = cleaning.instant_datetime(second)
    assert [tmp_path / f.path for f in cleaning.superseded(tmp_path, timeline, later)] == [old]
    assert cleaning.superseded(tmp_path, timeline, earlier) == []  # not before its cutoff
    stray = tmp_path / "dt=1" / f"{new_file_id()}_0-9-1_{second}.parquet"
    stray.write_bytes(old.read_bytes())  # a failed attempt's file the commit does not name
    assert [tmp_path / f.path for f in cleaning.orphans(tmp_path, timeline, later)] == [stray]

    # The clean instant: plan and outcome as Avro, as Hudi's cleaner writes them.
    from lakeshift.formats.hudi.clean import clean

    done = clean(timeline, str(tmp_path), cleaning.superseded(tmp_path, timeline, later), None)
    assert done is not None and not old.exists() and Path(written.path).exists()
    [instant] = [i for i in timeline.completed() if i.action == "clean"]
    outcome = timeline.metadata(instant)
    assert outcome["totalFilesDeleted"] == 1 and outcome["version"] == 2
    assert outcome["partitionMetadata"]["dt=1"]["successDeleteFiles"] == [old.name]
    plan = timeline.metadata(Instant(instant.time, "clean", "requested"))
    [info] = plan["filePathsToBeDeletedPerPartition"]["dt=1"]
    assert info == {"filePath": str(old), "isBootstrapBaseFile": False}
    assert timeline.pending() == []
    stray.unlink()  # (hudi-rs would read it: a completed instant's name is all it checks)
    read = pa.Table.from_batches(hudi.HudiTableBuilder.from_base_uri(str(tmp_path)).build().read())
    assert sorted(read.column("uuid").to_pylist()) == ["a", "ccc", "dddd"]


def test_the_bloom_filter_of_an_arrow_array_is_the_one_of_its_keys() -> None:
    from lakeshift.formats.arrow_path import random_uuids

    mixed = ["a", "bb", "", "ünïcode", "x" * 37, "k1", "k22"] * 10
    for keys in (random_uuids(61_000).to_pylist(), mixed, []):
        expected = BloomFilter.for_keys(keys).serialize()
        assert BloomFilter.for_array(pa.array(keys, pa.string())).serialize() == expected
        # a slice of a longer array (its offsets do not start at 0)
        assert BloomFilter.for_array(pa.array(["pad", *keys]).slice(1)).serialize() == expected
    several = BloomFilter.for_array(random_uuids(61_000))
    assert len(several.rows) == 2 and several.current == 1_000

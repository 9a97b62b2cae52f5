"""Hudi target end to end on a small table: migrate, read back with hudi-rs, validate, switch
through the routing view, re-backfill a changed partition as a replacecommit, roll back a
crashed write, cut over and revert."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from datetime import datetime, timedelta, timezone
from itertools import pairwise
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner

from lakeshift.cli.main import cli
from lakeshift.config import Settings
from lakeshift.errors import ConcurrentCommit, RefusedInput
from lakeshift.formats import FormatServices, format_of, load_format
from lakeshift.formats.hudi import format as hudi_format
from lakeshift.formats.hudi.properties import read_properties, write_properties
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.route.cutover import cutover, names_for, revert
from lakeshift.route.router import switch
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import local_path

pytestmark = pytest.mark.slow


def _rows(p: int, n: int, tag: str = "") -> pa.Table:
    ids = [p * 1000 + i for i in range(n)]
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "v": [f"v{i}{tag}" for i in ids],
            "tags": pa.array(
                [[f"t{i}", None] if i % 3 else None for i in ids], pa.list_(pa.string())
            ),
        }
    )


def _hudi_rows(
    root: Path, as_of: str | None = None, between: tuple[str, str] | None = None
) -> pa.Table:
    """hudi-rs's snapshot, time-travel (``as_of``) or incremental (``between``) read."""
    import hudi

    table = hudi.HudiTableBuilder.from_base_uri(str(root)).build()
    options = hudi.HudiReadOptions()
    if as_of is not None:
        options = options.with_as_of_timestamp(as_of)
    if between is not None:
        options = (
            options.with_query_type(hudi.HudiQueryType.Incremental)
            .with_start_timestamp(between[0])
            .with_end_timestamp(between[1])
        )
    return pa.Table.from_batches(table.read(options))


def _partition_count(table: pa.Table, dt: str) -> int:
    return sum(1 for d in table.column("dt").to_pylist() if d == dt)


def _multiset(table: pa.Table) -> Counter[tuple[Any, ...]]:
    columns = ("id", "v", "dt")
    return Counter((r["id"], r["v"], r["dt"]) for r in table.select(list(columns)).to_pylist())


@pytest.mark.parametrize("version", [6, 8])
def test_hudi_target_end_to_end(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    tables_root: Path,
    tmp_path: Path,
    version: int,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # Version 8 also writes its base files with ZSTD (setting hudi_parquet_codec).
    codec = "zstd" if version == 8 else "gzip"
    settings = replace(
        settings, home=tmp_path, hudi_table_version=version, hudi_parquet_codec=codec
    )
    journal = Journal(tmp_path / "journal.sqlite")
    services = FormatServices(spark, client, settings)
    hive = HiveTableBuilder(
        client,
        tables_root,
        "hudi_cases",
        unique_name("t"),
        [("id", "bigint"), ("v", "string"), ("tags", "array<string>")],
    )
    for p in range(3):
        hive.add_partition([f"2024-01-0{p + 1}"], {"000000_0": _rows(p, 40 + p)})
    source, target = f"{hive.db}.{hive.name}", f"{hive.db}.{hive.name}_hudi"

    # The plan says what will be created (table version from the setting), from the CLI.
    planned = CliRunner(env={"LAKESHIFT_HUDI_TABLE_VERSION": str(version)}).invoke(
        cli,
        [
            *("--home", str(tmp_path), "--metastore-uri", client.uri, "--output", "json"),
            *("plan", source, "--target", target, "--format", "hudi"),
        ],
    )
    assert planned.exit_code == 0, planned.output
    document = json.loads(planned.output)
    assert document["target_layout"] == f"Hudi copy-on-write, table version {version}"
    assert not document["target_exists"] and document["totals"]["new"] == 3

    # One batch per partition (each ~40 rows): three commits, each read back incrementally.
    options = MigrateOptions(target, format="hudi", batch_rows=50)
    result = migrate(spark, client, None, settings, journal, source, options)
    assert len(result.backfilled) == 3 and format_of(client, target) == "hudi"
    fmt = load_format("hudi", services)
    root = local_path(fmt.location(target))
    timeline = fmt._timeline(target)  # type: ignore[attr-defined]
    assert read_properties(root / ".hoodie")["hoodie.table.version"] == str(version)
    commits = timeline.completed()
    assert [i.action for i in commits] == ["commit"] * 3 and timeline.avro == (version == 8)
    lake = _hudi_rows(root)
    expected = Counter(
        (p * 1000 + i, f"v{p * 1000 + i}", f"2024-01-0{p + 1}")
        for p in range(3)
        for i in range(40 + p)
    )
    assert _multiset(lake) == expected
    keys = lake.column("_hoodie_record_key").to_pylist()
    assert keys == lake.column("uuid").to_pylist() and len(set(keys)) == len(keys)
    assert set(lake.column("_hoodie_partition_path").to_pylist()) == {
        f"dt=2024-01-0{p + 1}" for p in range(3)
    }
    # Incremental reads return exactly each batch (between instant times in version 6,
    # completion times in version 8, as Hudi 0.x and 1.x do).
    marks = ["0"] + [i.completion or i.time for i in commits]
    batches = [_hudi_rows(root, between=(a, b)) for a, b in pairwise(marks)]
    dates = [set(b.column("dt").to_pylist()) for b in batches]
    assert sorted(d for ds in dates for d in ds) == [f"2024-01-0{p + 1}" for p in range(3)]
    for batch, [dt] in zip(batches, dates):
        assert _multiset(batch) == Counter({k: n for k, n in expected.items() if k[2] == dt})
    # Meta columns name the row's own file, commit and partition, as Hudi writes them.
    for row in lake.select(
        [
            "_hoodie_file_name",
            "_hoodie_commit_time",
            "_hoodie_commit_seqno",
            "_hoodie_partition_path",
        ]
    ).to_pylist():
        assert (root / row["_hoodie_partition_path"] / row["_hoodie_file_name"]).is_file()
        assert row["_hoodie_file_name"].endswith(f"_{row['_hoodie_commit_time']}.parquet")
        assert row["_hoodie_commit_seqno"].startswith(f"{row['_hoodie_commit_time']}_")
    # NULL arrays stay NULL; NULL elements stay NULL elements.
    by_id = dict(zip(lake.column("id").to_pylist(), lake.column("tags").to_pylist()))
    assert by_id[0] is None and by_id[1] == ["t1", None]
    assert (root / "dt=2024-01-01" / ".hoodie_partition_metadata").exists()
    for path in root.glob("dt=*/*.parquet"):
        assert pq.read_metadata(path).row_group(0).column(0).compression == codec.upper()
    assert fmt.row_counts(target, _inventory(client, source, settings)) == {
        f"dt=2024-01-0{p + 1}": 40 + p for p in range(3)
    }

    report = validate_table(spark, client, None, settings, journal, source, target)
    assert report.ok, [p for p in report.partitions if not p.ok]
    switch(services, settings, journal, source, target, partitions=None, all_validated=True)
    view = f"{source}_routed"
    seen = Counter((r.id, r.v, r.dt) for r in spark.table(view).select("id", "v", "dt").collect())
    assert seen == expected

    # A changed source partition: backfilled again as one replacecommit. The replaced slice
    # stays for the retention (time travel still reads it) until a clean removes it.
    (hive.partition_dir(["2024-01-02"]) / "000001_0").write_bytes(_orc(_rows(1, 5, "x")))
    before_replace = commits[-1].time
    replaced = sorted((root / "dt=2024-01-02").glob("*.parquet"))
    migrate(spark, client, None, settings, journal, source, MigrateOptions(target, format="hudi"))
    assert [i.action for i in timeline.completed()] == ["commit"] * 3 + ["replacecommit"]
    assert _partition_count(_hudi_rows(root), "2024-01-02") == 46
    assert all(p.exists() for p in replaced)
    assert _partition_count(_hudi_rows(root, as_of=before_replace), "2024-01-02") == 41
    # The clean after the next commit removes what was superseded longer ago than the
    # retention (here: no retention), the slices that commit replaced included.
    monkeypatch.setattr(hudi_format, "CLEAN_RETAIN", timedelta(0))
    (hive.partition_dir(["2024-01-03"]) / "000001_0").write_bytes(_orc(_rows(2, 3, "y")))
    replaced += sorted((root / "dt=2024-01-03").glob("*.parquet"))
    migrate(spark, client, None, settings, journal, source, MigrateOptions(target, format="hudi"))
    assert not any(p.exists() for p in replaced)
    [clean] = timeline.completed({"clean"})
    outcome = timeline.metadata(clean)["partitionMetadata"]
    deleted = {name for p in outcome.values() for name in p["successDeleteFiles"]}
    assert deleted == {p.name for p in replaced}
    lake = _hudi_rows(root)
    assert (_partition_count(lake, "2024-01-02"), _partition_count(lake, "2024-01-03")) == (46, 45)
    old = [p for p in (root / "dt=2024-01-02").glob("*.parquet")]
    assert len({p.name.split("_")[0] for p in old}) == len(old)  # one slice per file group
    again = validate_table(spark, client, None, settings, journal, source, target)
    assert again.ok, [(p.partition, p.status, p.detail) for p in again.partitions if not p.ok]

    # Cutover gives the public name to the Hudi table; revert takes it back.
    switch(services, settings, journal, source, target, partitions=None, all_validated=True)
    names = names_for(journal, source, target, None, None)
    cutover(services, settings, journal, names)
    assert format_of(client, source) == "hudi"
    _assert_hive_synced(client, source, root, fmt._timeline(source))  # type: ignore[attr-defined]
    # The view still reads the routing table made at creation (no second one after the rename).
    assert client.table_exists(hive.db, f"{hive.name}_hudi_current")
    assert not client.table_exists(hive.db, f"{hive.name}_current")
    assert Counter((r.id, r.v, r.dt) for r in spark.table(view).collect()) == Counter(
        (r["id"], r["v"], r["dt"]) for r in _hudi_rows(root).to_pylist()
    )
    revert(services, settings, journal, names)
    assert format_of(client, source) == "hive"

    # A real Hudi writer touched the table: lakeshift refuses to write, before rolling back
    # anything (the pending instant could be that writer's).
    hoodie = root / ".hoodie"
    saved = (hoodie / "hoodie.properties").read_bytes()
    upgraded = {**read_properties(hoodie), "hoodie.table.version": str(version + 1)}
    write_properties(hoodie, upgraded)
    foreign = root / timeline.directory / "20991231235959999.commit.requested"
    foreign.touch()
    with pytest.raises(
        RefusedInput, match=rf"hoodie\.table\.version: {version} -> {version + 1}"
    ) as caught:
        fmt.expire(target, datetime.now(timezone.utc))
    assert "another writer" in str(caught.value) and "--target" in (caught.value.hint or "")
    assert foreign.exists()
    (hoodie / "hoodie.properties").write_bytes(saved)
    (hoodie / "metadata").mkdir()
    with pytest.raises(RefusedInput, match="metadata table"):
        migrate(
            spark, client, None, settings, journal, source, MigrateOptions(target, format="hudi")
        )
    (hoodie / "metadata").rmdir()
    # Writable again, but the pending instant is not lakeshift's: never rolled back by it.
    with pytest.raises(ConcurrentCommit, match="20991231235959999"):
        fmt.expire(target, datetime.now(timezone.utc))
    assert foreign.exists()
    foreign.unlink()
    fmt.expire(target, datetime.now(timezone.utc))


def _orc(table: pa.Table) -> bytes:
    import io

    import pyarrow.orc as orc

    sink = io.BytesIO()
    orc.write_table(table, sink)
    return sink.getvalue()


def _inventory(client: MetastoreClient, source: str, settings: Settings) -> Any:
    from lakeshift.inspect import inspect_table

    return inspect_table(client, source, settings)


def _assert_hive_synced(client: MetastoreClient, table: str, root: Path, timeline: Any) -> None:
    """The entry is what Hudi's Hive sync writes: meta and data columns, partitioned by
    partitionpath, one partition per Hudi partition at its directory, the instant synced."""
    from lakeshift.formats.hudi.base_file import META_COLUMNS
    from lakeshift.formats.hudi.hive_sync import INPUT_FORMAT, LAST_COMPLETION_SYNC, LAST_SYNC

    db, name = table.split(".")
    entry = client.get_table(db, name)
    columns = [c.name for c in entry.sd.cols]
    assert columns[:5] == list(META_COLUMNS) and {"id", "v", "tags", "uuid", "dt"} <= set(columns)
    assert "partitionpath" not in columns
    assert [(k.name, k.type) for k in entry.partitionKeys] == [("partitionpath", "string")]
    assert entry.sd.inputFormat == INPUT_FORMAT and entry.sd.serdeInfo.parameters["path"]
    assert entry.parameters["spark.sql.sources.provider"] == "hudi"
    schema = json.loads(entry.parameters["spark.sql.sources.schema.part.0"])
    assert schema["fields"][-1]["name"] == "partitionpath"  # partition column last, as Spark wants
    last = timeline.completed({"commit", "replacecommit"})[-1]
    assert entry.parameters[LAST_SYNC] == last.time
    # Its completion time too (version 8: from its name; version 6: the file's time).
    synced_completion = entry.parameters[LAST_COMPLETION_SYNC]
    assert synced_completion == (last.completion or timeline.completion_time(last))
    assert synced_completion >= last.time
    partitions = client.partitions_by_names(db, name, client.partition_names(db, name))
    found = {tuple(p.values): p.sd.location for p in partitions}
    assert found == {
        (f"2024-01-0{d}",): f"{entry.sd.location.rstrip('/')}/dt=2024-01-0{d}" for d in (1, 2, 3)
    }
    assert all((root / f"dt=2024-01-0{d}").is_dir() for d in (1, 2, 3))

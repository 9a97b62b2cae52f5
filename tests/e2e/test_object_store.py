"""Every command on S3 (moto's server), for every format, driven through the CLI.

The sample table's files live on ``s3a://lake/source/...``, its database's location (where the
lake tables go) on ``s3a://lake/warehouse``; lakeshift reaches S3 only through the settings a
user writes (``[spark_conf]`` with Hadoop's ``fs.s3a.*`` keys). Each lake table is read back by
its format's own reader over S3, and the source's objects must be byte-identical afterwards.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import threading
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc
import pytest
from click.testing import CliRunner

from lakeshift.cli.main import cli
from lakeshift.context import Context
from lakeshift.errors import EXIT_ENVIRONMENT, EXIT_PARTIAL
from lakeshift.metastore import ddl
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.faults import ENV, SIGNAL_ENV
from lakeshift.sample.load import LoadResult, load_sample
from lakeshift.storage import StorageOptions, Store
from tests.faults._tables import resume_to_the_end, wait_until_stopped
from tests.helpers import s3
from tests.helpers.cli import lakeshift_command
from tests.helpers.lake import read_lake, unique_keys
from tests.helpers.s3 import MotoServer
from tests.helpers.sample import one_partition_per_feature

pytestmark = pytest.mark.slow


def _objects(moto: MotoServer, prefix: str) -> dict[str, tuple[str, int]]:
    """Every object under ``prefix``: key -> (ETag, size)."""
    pages = moto.client().get_paginator("list_objects_v2").paginate(Bucket=s3.BUCKET, Prefix=prefix)
    return {o["Key"]: (o["ETag"], o["Size"]) for page in pages for o in page.get("Contents", [])}


@pytest.fixture(scope="module")
def s3_home(tmp_path_factory: pytest.TempPathFactory, object_store_conf: dict[str, str]) -> Path:
    """A state directory whose lakeshift.toml reaches moto's S3, as a user's would."""
    if not object_store_conf:
        pytest.fail("the S3A connector jars are missing: run `make test` (it fetches them)")
    home = tmp_path_factory.mktemp("s3-home")
    lines = ["retire_probation_days = 0", "[spark_conf]"]
    lines += [f'"{k}" = "{v}"' for k, v in object_store_conf.items()]
    (home / "lakeshift.toml").write_text("\n".join(lines) + "\n")
    return home


def _run(home: Path, uri: str, *args: str) -> tuple[int, Any]:
    result = CliRunner().invoke(
        cli, ["--home", str(home), "--metastore-uri", uri, "--output", "json", *args]
    )
    try:
        return result.exit_code, json.loads(result.output)
    except json.JSONDecodeError:
        return result.exit_code, result.output


def _source(context: Context, fmt: str, storage: StorageOptions, home: Path) -> LoadResult:
    """The sample, one partition per feature (tests.helpers.sample), on S3; staged in ``home``."""
    return load_sample(
        context.metastore,
        home,
        source=one_partition_per_feature(home / "sample-source"),
        location=f"s3a://{s3.BUCKET}/source/{fmt}/click_log",
        database=f"s3_{fmt}",
        warehouse=f"s3a://{s3.BUCKET}/warehouse",
        storage=storage,
    )


@pytest.mark.parametrize(
    "fmt",
    [
        "iceberg",
        # `make extended`: test_glue runs every command on S3 for each format in make test
        pytest.param("delta", marks=pytest.mark.extended),
        pytest.param("hudi", marks=pytest.mark.extended),
    ],
)
def test_every_command_on_s3(
    fmt: str,
    s3_home: Path,
    metastore_uri: str,
    moto: MotoServer,
    context: Context,
    client: MetastoreClient,
    object_store_conf: dict[str, str],
    spark: Any,
) -> None:
    storage = StorageOptions.from_spark_conf(object_store_conf)
    source = _source(context, fmt, storage, s3_home)
    table, target = f"s3_{fmt}.click_log", f"s3_{fmt}.click_log_lake"
    before = _objects(moto, f"source/{fmt}/")
    assert len(before) > source.partitions  # every data file, on S3

    code, inventory = _run(s3_home, metastore_uri, "inspect", table)
    assert code == 0, inventory
    assert inventory["summary"]["rows"] == source.rows
    assert all(p["location"].startswith("s3a://lake/source/") for p in inventory["partitions"])

    code, plan = _run(s3_home, metastore_uri, "plan", table, "--target", target, "--format", fmt)
    assert code == 0, plan
    # The plan shows the Spark configuration, never the credentials in it.
    assert s3.SECRET_KEY not in json.dumps(plan)

    code, migrated = _run(
        s3_home, metastore_uri, "migrate", table, "--target", target, "--format", fmt
    )
    assert code == 0, migrated
    entry = client.get_table(f"s3_{fmt}", "click_log_lake")
    assert entry.sd.location.startswith("s3a://lake/warehouse/"), entry.sd.location
    assert _objects(moto, f"warehouse/s3_{fmt}.db/click_log_lake/")  # the lake table is on S3

    # The checksum level here; test_glue validates both levels on S3 for every format.
    code, report = _run(s3_home, metastore_uri, "validate", table, "--target", target)
    assert code == 0, report
    assert report["totals"]["equal"] == source.partitions, report["totals"]

    # The format's own reader, over S3: every row, once.
    rows = read_lake(client, target, storage)
    assert rows.num_rows == source.rows and unique_keys(rows)

    code, switched = _run(s3_home, metastore_uri, "switch", table, "--all-validated")
    assert code == 0, switched
    view = f"s3_{fmt}.click_log_routed"
    assert spark.table(view).count() == source.rows
    one = "yyyymmdd=20220401"
    code, out = _run(s3_home, metastore_uri, "rollback", table, "--partitions", one)
    assert code == 0, out
    assert spark.table(view).count() == source.rows
    code, out = _run(s3_home, metastore_uri, "switch", table, "--all-validated")
    assert code == 0, out

    code, out = _run(s3_home, metastore_uri, "cutover", table, "--yes")
    assert code == 0, out
    code, out = _run(s3_home, metastore_uri, "revert", table)
    assert code == 0, out
    assert client.get_table(f"s3_{fmt}", "click_log").tableType == "EXTERNAL_TABLE"
    code, out = _run(s3_home, metastore_uri, "cutover", table, "--yes")
    assert code == 0, out
    # The public name is the lake table's now (read by the format's own reader).
    assert read_lake(client, table, storage).num_rows == source.rows

    code, out = _run(s3_home, metastore_uri, "retire", table, "--yes")
    assert code == 0, out
    assert not client.table_exists(f"s3_{fmt}", "click_log_hive_legacy")

    erased = rows.column("uuid")[0].as_py()
    keys = s3_home / f"keys-{fmt}.txt"
    keys.write_text(erased + "\n")
    code, out = _run(s3_home, metastore_uri, "erase", table, "--keys", str(keys))
    assert code == 0, out
    after = read_lake(client, table, storage)
    assert after.num_rows == source.rows - 1
    assert erased not in set(after.column("uuid").to_pylist())

    code, out = _run(s3_home, metastore_uri, "maintain", table, "--compact", "--expire", "0")
    assert code == 0, out
    assert read_lake(client, table, storage).num_rows == source.rows - 1

    # The source is sacred: every object as it was, byte for byte (ETag) and size.
    assert _objects(moto, f"source/{fmt}/") == before


def test_a_commit_on_s3_is_created_once_when_writers_race(moto: MotoServer) -> None:
    """The commit primitive on S3 (a conditional PUT): of eight writers of one Delta version,
    exactly one wins and the version holds its content whole."""
    conf = s3.spark_conf(moto.endpoint, [])
    store = Store(f"s3a://{s3.BUCKET}/race/t", StorageOptions.from_spark_conf(conf))
    name = "_delta_log/00000000000000000000.json"
    results: dict[int, bool] = {}

    def writer(i: int) -> None:
        results[i] = store.create(name, f'{{"writer":{i}}}\n' * 200)

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    winners = [i for i, won in results.items() if won]
    assert len(results) == 8 and len(winners) == 1
    assert set(store.read_text(name).splitlines()) == {f'{{"writer":{winners[0]}}}'}


def _put_orc(moto: MotoServer, key: str, table: pa.Table, bucket: str = s3.BUCKET) -> None:
    sink = pa.BufferOutputStream()
    orc.write_table(table, sink)
    moto.client().put_object(Bucket=bucket, Key=key, Body=sink.getvalue().to_pybytes())


def _register(
    client: MetastoreClient,
    db: str,
    name: str,
    location: str,
    parts: list[str],
    columns: list[tuple[str, str]] | None = None,
) -> str:
    """An external ORC table ``db.name`` (``columns``, by default ``id bigint``, partitioned by
    ``dt int``) at ``location``, with one partition per entry of ``parts`` (its location);
    returns its name."""
    ddl.ensure_database(client, db, f"s3a://{s3.BUCKET}/warehouse/{db}.db")
    if client.table_exists(db, name):
        client.drop_table(db, name, delete_data=False)
    columns, keys = columns or [("id", "bigint")], [("dt", "int")]
    client.create_table(ddl.external_table(db, name, columns, keys, location))
    client.add_partitions(
        [ddl.partition(db, name, [part.rsplit("dt=", 1)[1]], columns, part) for part in parts]
    )
    return f"{db}.{name}"


@pytest.mark.parametrize("fmt", ["iceberg", "delta"])
def test_the_arrow_write_path_on_s3(
    fmt: str,
    s3_home: Path,
    metastore_uri: str,
    moto: MotoServer,
    client: MetastoreClient,
    object_store_conf: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """``write_path = "arrow"`` with source and target on S3: the Spark tasks read the ORC
    objects and write the target's Parquet objects through pyarrow's S3 file system (the
    driver's store options travel with each task), the format's commit adds them; both
    validation levels prove every partition, the format's own reader reads every row once,
    and the source's objects are untouched. (Hudi's writer is an Arrow path already.)"""
    db, name = "s3_arrow", f"t_{fmt}"
    prefix = f"arrow/{name}"
    columns = [("id", "bigint"), ("name", "string"), ("day", "date"), ("at", "timestamp")]
    ids = list(range(150))
    first = dt.date(2020, 1, 1)
    for p in range(3):
        part = ids[p * 50 : p * 50 + 50]
        rows = {
            "id": pa.array(part, pa.int64()),
            "name": pa.array([None if i % 7 == 0 else f"n{i}" for i in part]),
            "day": pa.array([first + dt.timedelta(days=i) for i in part]),
            "at": pa.array(
                [dt.datetime(2021, 5, 1, 12) + dt.timedelta(seconds=i) for i in part],
                pa.timestamp("us"),
            ),
        }
        _put_orc(moto, f"{prefix}/dt={p}/000000_0", pa.table(rows))
    location = f"s3a://{s3.BUCKET}/{prefix}"
    parts = [f"{location}/dt={p}" for p in range(3)]
    source = _register(client, db, name, location, parts, columns)
    target = f"{source}_lake"
    before = _objects(moto, f"{prefix}/")

    monkeypatch.setenv("LAKESHIFT_WRITE_PATH", "arrow")
    code, migrated = _run(
        s3_home, metastore_uri, "migrate", source, "--target", target, "--format", fmt
    )
    assert code == 0, migrated
    written = [
        k for k in _objects(moto, f"warehouse/{db}.db/{name}_lake/") if k.endswith(".parquet")
    ]
    assert len(written) == 3, written  # one per source file, each named by the Arrow path
    assert all(k.rsplit("/", 1)[1].startswith("arrow-") for k in written), written

    for level in ("checksum", "independent"):
        code, report = _run(
            s3_home, metastore_uri, "validate", source, "--target", target, "--level", level
        )
        assert code == 0, report
        assert report["totals"]["equal"] == 3, report["totals"]

    lake = read_lake(client, target, StorageOptions.from_spark_conf(object_store_conf))
    assert unique_keys(lake)
    got = sorted(zip(*(lake.column(c).to_pylist() for c in ("id", "name", "day"))))
    assert got == [(i, None if i % 7 == 0 else f"n{i}", first + dt.timedelta(days=i)) for i in ids]
    assert _objects(moto, f"{prefix}/") == before


def test_adopted_files_on_s3_are_the_sources_own_objects(
    s3_home: Path,
    metastore_uri: str,
    moto: MotoServer,
    client: MetastoreClient,
    object_store_conf: dict[str, str],
) -> None:
    """``--adopt-files auto`` with the source on S3: the Iceberg table holds the source's own
    ORC objects (no Parquet written), proven at both levels in the run and again by validate,
    read back by pyiceberg through S3; the objects are untouched, and a re-run adds nothing."""
    db, name = "s3_adopt", "t"
    prefix = "adopt/t"
    columns = [("id", "bigint"), ("name", "string"), ("at", "timestamp")]
    for p in range(3):
        part = list(range(p * 40, p * 40 + 40))
        rows = {
            "id": pa.array(part, pa.int64()),
            "name": pa.array([None if i % 6 == 0 else f"n{i}" for i in part]),
            "at": pa.array(
                [dt.datetime(2022, 2, 1) + dt.timedelta(minutes=i) for i in part],
                pa.timestamp("us"),
            ),
        }
        _put_orc(moto, f"{prefix}/dt={p}/000000_0", pa.table(rows))
    location = f"s3a://{s3.BUCKET}/{prefix}"
    source = _register(
        client, db, name, location, [f"{location}/dt={p}" for p in range(3)], columns
    )
    target = f"{source}_lake"
    before = _objects(moto, f"{prefix}/")

    for attempt in range(2):
        code, migrated = _run(
            s3_home, metastore_uri, "migrate", source, "--target", target, "--adopt-files", "auto"
        )
        assert code == 0, migrated
        adopted = migrated["adoption"]["adopted"]
        assert sorted(adopted) == ([] if attempt else ["dt=0", "dt=1", "dt=2"]), migrated
    written = [k for k in _objects(moto, f"warehouse/{db}.db/{name}_lake/") if "/data/" in k]
    assert written == [], written
    code, report = _run(
        s3_home, metastore_uri, "validate", source, "--target", target, "--level", "independent"
    )
    assert code == 0 and report["totals"]["equal"] == 3, report
    lake = read_lake(client, target, StorageOptions.from_spark_conf(object_store_conf))
    assert sorted(lake.column("id").to_pylist()) == list(range(120))
    assert _objects(moto, f"{prefix}/") == before


def test_an_s3_listing_is_read_as_hive_reads_it(
    s3_home: Path,
    metastore_uri: str,
    moto: MotoServer,
    client: MetastoreClient,
    object_store_conf: dict[str, str],
) -> None:
    """Partitions catalogued under s3://, s3n:// and s3a:// of one bucket; directory markers,
    zero-byte keys, committer leftovers and hidden files beside the data, a subdirectory."""
    db, name, prefix = "s3_listing", "events", "listing/events"
    rows = {d: pa.table({"id": list(range(d * 10, d * 10 + d + 2))}) for d in (1, 2, 3)}
    schemes = {1: "s3", 2: "s3n", 3: "s3a"}
    for d, table in rows.items():
        _put_orc(moto, f"{prefix}/dt={d}/000000_0", table.slice(0, 1))
        _put_orc(moto, f"{prefix}/dt={d}/sub/000001_0", table.slice(1))  # read too (Tez)
    junk = [
        f"{prefix}/dt=1/",  # a directory marker, as older clients and consoles write them
        f"{prefix}/dt=1/sub/",
        f"{prefix}/dt=2/empty_file",  # a zero-byte key
        f"{prefix}/dt=2/_SUCCESS",
        f"{prefix}/dt=2/_temporary/0/task_1/part-0",  # a job committer's leftover
        f"{prefix}/dt=3/.hive-staging_hive_1/-ext-10000/000000_0",
        f"{prefix}/dt=3/sub_$folder$",  # an EMRFS marker, with bytes: still a marker, not data
    ]
    for key in junk:
        body = b"" if key.endswith(("/", "empty_file", "_SUCCESS")) else b"not an ORC file"
        moto.client().put_object(Bucket=s3.BUCKET, Key=key, Body=body)
    parts = [f"{schemes[d]}://{s3.BUCKET}/{prefix}/dt={d}" for d in rows]
    table = _register(client, db, name, f"s3a://{s3.BUCKET}/{prefix}", parts)
    target = f"{table}_lake"
    code, inventory = _run(s3_home, metastore_uri, "inspect", table)
    assert code == 0, inventory
    files = {p["name"]: sorted(f["path"] for f in p["files"]) for p in inventory["partitions"]}
    assert files == {f"dt={d}": ["000000_0", "sub/000001_0"] for d in rows}
    assert inventory["summary"]["rows"] == sum(t.num_rows for t in rows.values())
    # Every object not read is named with its class: what lakeshift decided not to read.
    skipped = {
        p["name"]: (p["skipped_kinds"], p["skipped_examples"]) for p in inventory["partitions"]
    }
    assert skipped["dt=1"][0] == {"marker": 1}  # sub/ (the listing leaves out dt=1/ itself)
    assert skipped["dt=2"] == (
        {"empty": 1, "hidden": 2},
        {"empty": ["empty_file"], "hidden": ["_SUCCESS", "_temporary/0/task_1/part-0"]},
    )
    assert skipped["dt=3"] == (
        {"hidden": 1, "marker": 1},
        {"hidden": [".hive-staging_hive_1/-ext-10000/000000_0"], "marker": ["sub_$folder$"]},
    )
    assert inventory["summary"]["skipped"] == {"marker": 2, "hidden": 3, "empty": 1}
    code, out = _run(s3_home, metastore_uri, "migrate", table, "--target", target)
    assert code == 0, out
    code, report = _run(
        s3_home, metastore_uri, "validate", table, "--target", target, "--level", "independent"
    )
    assert code == 0 and report["totals"]["equal"] == 3, report
    storage = StorageOptions.from_spark_conf(object_store_conf)
    lake = read_lake(client, target, storage)
    assert sorted(lake.column("id").to_pylist()) == sorted(
        i for t in rows.values() for i in t.column("id").to_pylist()
    )


def test_bad_inputs_on_s3_are_named_and_commit_nothing(
    s3_home: Path,
    metastore_uri: str,
    moto: MotoServer,
    client: MetastoreClient,
    object_store_conf: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    db, name = "s3_bad", "events"
    s3c = moto.client()
    s3c.create_bucket(Bucket="gone-bucket")
    one = pa.table({"id": pa.array([1, 2, 3], pa.int64())})
    _put_orc(moto, "t/dt=1/000000_0", one, bucket="gone-bucket")
    _put_orc(moto, "bad/t/dt=2/000000_0", one)
    sink = pa.BufferOutputStream()
    orc.write_table(one, sink)
    # An object archived to Glacier: listed like any other, unreadable until restored.
    s3c.put_object(
        Bucket=s3.BUCKET,
        Key="bad/t/dt=3/000000_0",
        Body=sink.getvalue().to_pybytes(),
        StorageClass="GLACIER",
    )
    parts = ["s3a://gone-bucket/t/dt=1", *[f"s3a://{s3.BUCKET}/bad/t/dt={d}" for d in (2, 3)]]
    _register(client, db, name, f"s3a://{s3.BUCKET}/bad/t", parts)
    # The metastore checks a bucket when a partition is added; it can vanish afterwards.
    s3c.delete_object(Bucket="gone-bucket", Key="t/dt=1/000000_0")
    s3c.delete_bucket(Bucket="gone-bucket")
    table, target = f"{db}.{name}", f"{db}.{name}_lake"
    before = _objects(moto, "bad/")

    # A partition in a bucket that no longer exists: Hive's queries fail on it, so it is an
    # error (not an empty partition); an archived object's partition is refused as such,
    # naming it (test_archived_objects: never read, skipped on request, read once restored);
    # the healthy partition migrates.
    code, out = _run(s3_home, metastore_uri, "migrate", table, "--target", target)
    assert code == EXIT_PARTIAL, out
    assert out["backfilled"] == ["dt=2"], out
    assert "bucket 'gone-bucket' does not exist" in str(out["refused"]["dt=1"])
    assert str(out["refused"]["dt=3"]).startswith("archived: "), out["refused"]
    assert "dt=3/000000_0 (GLACIER)" in str(out["refused"]["dt=3"]), out["refused"]

    # A store that refuses these credentials, or finds none: every partition is named as
    # unreadable at inspect; a migration stops with exit 5 before anything is committed.
    monkeypatch.setenv("INITIAL_NO_AUTH_ACTION_COUNT", "0")  # moto checks signatures then
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    denying = MotoServer.start(tmp_path / "denying-moto.log")
    try:
        for label, drop_keys in (("wrong credentials", False), ("no credentials", True)):
            home = tmp_path / label.replace(" ", "-")
            home.mkdir()
            conf = {**object_store_conf, "spark.hadoop.fs.s3a.endpoint": denying.endpoint}
            if drop_keys:
                conf = {k: v for k, v in conf.items() if ".key" not in k}
            lines = ["[spark_conf]", *[f'"{k}" = "{v}"' for k, v in conf.items()]]
            (home / "lakeshift.toml").write_text("\n".join(lines) + "\n")
            code, inventory = _run(home, metastore_uri, "inspect", table)
            assert code == 0, inventory
            reasons = [a["message"] for p in inventory["partitions"] for a in p["anomalies"]]
            assert any("cannot list s3a://lake/bad/t/dt=2" in r for r in reasons), (label, reasons)
            code, out = _run(home, metastore_uri, "migrate", table, "--target", f"{target}_2")
            assert code == EXIT_ENVIRONMENT, (label, out)
            assert "object store" in out["error"]["message"] and out["error"]["hint"]
            assert not client.table_exists(db, f"{name}_lake_2")
    finally:
        denying.stop()
    assert _objects(moto, "bad/") == before


@pytest.mark.parametrize(
    "fmt",
    [
        pytest.param("iceberg", marks=pytest.mark.faults),  # its commit is the catalog's
        # files on S3, the log commit (a conditional PUT) not yet written
        pytest.param("delta", marks=pytest.mark.faults),
        # base files and markers on S3, the instant not completed
        pytest.param("hudi", marks=pytest.mark.faults),
        # (`make test` kills each format at these points on local disk: test_kill_resume)
    ],
)
def test_killed_mid_batch_on_s3_then_rerun_gives_exact_rows(
    fmt: str,
    s3_home: Path,
    metastore_uri: str,
    moto: MotoServer,
    client: MetastoreClient,
    object_store_conf: dict[str, str],
) -> None:
    db, name = "s3_kill", f"t_{fmt}"
    prefix = f"kill/{name}"
    expected: list[int] = []
    for p in range(4):
        ids = list(range(p * 100, p * 100 + 100))
        expected += ids
        _put_orc(moto, f"{prefix}/dt={p}/000000_0", pa.table({"id": pa.array(ids, pa.int64())}))
    location = f"s3a://{s3.BUCKET}/{prefix}"
    source = _register(client, db, name, location, [f"{location}/dt={p}" for p in range(4)])
    target = f"{source}_lake"
    before = _objects(moto, f"{prefix}/")
    cmd = [
        *lakeshift_command(s3_home, metastore_uri, spark_master="local[1]"),
        "migrate", source, "--target", target, "--batch-rows", "150", "--format", fmt,
    ]  # fmt: skip
    fault = "after-commit:2" if fmt == "iceberg" else "before-log-commit:2"
    env = {**os.environ, "LAKESHIFT_FAULT": fault}
    killed = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=400)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    env.pop("LAKESHIFT_FAULT")
    resumed = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=400)
    assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
    rows = read_lake(client, target, StorageOptions.from_spark_conf(object_store_conf))
    assert sorted(rows.column("id").to_pylist()) == expected and unique_keys(rows)
    assert _objects(moto, f"{prefix}/") == before


def test_an_object_that_vanishes_before_its_batch_fails_that_partition_only(
    s3_home: Path,
    metastore_uri: str,
    moto: MotoServer,
    client: MetastoreClient,
    object_store_conf: dict[str, str],
    tmp_path: Path,
) -> None:
    """Listed at the start of the run, deleted before the batch's Spark job reads it."""
    prefix = "vanish/t"
    for p in range(2):
        ids = pa.array(range(p * 10, p * 10 + 10), pa.int64())
        _put_orc(moto, f"{prefix}/dt={p}/000000_0", pa.table({"id": ids}))
    location = f"s3a://{s3.BUCKET}/{prefix}"
    source = _register(client, "s3_vanish", "t", location, [f"{location}/dt={p}" for p in (0, 1)])
    cmd = [
        *lakeshift_command(s3_home, metastore_uri),
        *("--output", "json", "migrate", source, "--target", f"{source}_lake"),
    ]
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAKESHIFT_")}
    out_file = tmp_path / "stdout"
    with out_file.open("w") as stdout:
        process = subprocess.Popen(
            cmd,
            env={**env, ENV: "before-commit", SIGNAL_ENV: "SIGSTOP"},
            stdout=stdout,
            stderr=subprocess.DEVNULL,
        )
    try:
        assert wait_until_stopped(process), "the migration never reached its batch"
        moto.client().delete_object(Bucket=s3.BUCKET, Key=f"{prefix}/dt=1/000000_0")
    finally:
        resume_to_the_end(process)
    out = out_file.read_text()
    assert process.returncode == EXIT_PARTIAL, out[-3000:]
    document = json.loads(out)
    assert document["backfilled"] == ["dt=0"], json.dumps(document)[:3000]
    assert f"{prefix}/dt=1/000000_0" in document["failed"]["dt=1"], document["failed"]
    lake = read_lake(client, f"{source}_lake", StorageOptions.from_spark_conf(object_store_conf))
    assert sorted(lake.column("id").to_pylist()) == list(range(10))


def test_no_secret_in_anything_lakeshift_wrote(s3_home: Path) -> None:
    """Runs after the flows above (same module): logs, reports, journal, inventories."""
    written = [p for p in s3_home.rglob("*") if p.is_file() and p.name != "lakeshift.toml"]
    assert len(written) > 10
    leaked = [str(p) for p in written if s3.SECRET_KEY.encode() in p.read_bytes()]
    assert not leaked

"""Inspection spread over Spark tasks gives the driver's inventory, errors included.

The same real table (metastore entries, ORC and Parquet files, a corrupt file, odd values) is
inspected on the driver and in the session's Spark tasks (``local[2]``: Python workers in
other processes, which see none of the driver's globals), and the inventories compared whole.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TypeVar

import pyarrow as pa
import pytest

from lakeshift import storage
from lakeshift.config import Settings
from lakeshift.errors import EnvironmentProblem
from lakeshift.inspect import TableInventory, inspect_table
from lakeshift.inspect import spread as spread_module
from lakeshift.inspect.footer_cache import FooterCache, reusing
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore import ddl
from lakeshift.metastore.client import MetastoreClient
from lakeshift.platform.ports import free_port
from lakeshift.storage import StorageOptions
from tests.helpers import s3
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.s3 import MotoServer

COLUMNS = (("id", "bigint"), ("name", "string"))
T = TypeVar("T")
ODD_VALUES = ("it's a/b=c %x", "späť ü", " lead and trail ", "=", "x#y?z")


def _rows(n: int) -> pa.Table:
    return pa.table({"id": pa.array(range(n), pa.int64()), "name": [f"r{i}" for i in range(n)]})


def _comparable(inventory: TableInventory) -> TableInventory:
    """Everything but when and how long (those differ between any two inspections)."""
    return replace(inventory, inspected_at="", seconds=0.0)


def _spark_jobs(spark) -> int:  # type: ignore[no-untyped-def]
    return len(spark.sparkContext.statusTracker().getJobIdsForGroup(None))


def _both(
    client: MetastoreClient,
    spark,  # type: ignore[no-untyped-def]
    table: str,
    settings: Settings,
    jobs: int = 1,
    **kwargs: object,
) -> tuple[TableInventory, TableInventory]:
    on_driver = inspect_table(
        client, table, replace(settings, inspect_on="driver"), spark=lambda: spark, **kwargs
    )
    before = _spark_jobs(spark)
    spread = inspect_table(
        client, table, replace(settings, inspect_on="spark"), spark=lambda: spark, **kwargs
    )
    assert _spark_jobs(spark) == before + jobs  # it did run as Spark tasks, in waves
    return on_driver, spread


@pytest.fixture
def odd_table(client: MetastoreClient, tables_root: Path, tmp_path: Path) -> HiveTableBuilder:
    builder = HiveTableBuilder(client, tables_root, "inspect_spread", unique_name("t"), COLUMNS)
    for index, value in enumerate(ODD_VALUES):
        builder.add_partition([value], {"000000_0": _rows(index + 1)})
    builder.add_partition([None], {"000000_0": _rows(2)})
    corrupt = builder.add_partition(["corrupt"], {"000000_0": _rows(3)})
    (corrupt / "000001_0").write_bytes(b"ORC" + b"\x00garbage" * 20)
    builder.add_partition(["parquet"], {"part-0.parquet": _rows(5)}, fmt="parquet")
    narrow = pa.table({"id": pa.array([1], pa.int64())})  # written before `name` was added
    builder.add_partition(["drift"], {"000000_0": narrow}, columns=(("id", "bigint"),))
    builder.add_partition(["gone"], {}, create_dir=False)
    builder.add_partition(["empty"], {})
    hidden = builder.add_partition(["hidden"], {"000000_0": _rows(1), "_SUCCESS": b""})
    (hidden / ".hive-staging_1").mkdir()
    builder.add_partition(
        ["union"],
        {"HIVE_UNION_SUBDIR_1/000000_0": _rows(1), "HIVE_UNION_SUBDIR_2/000000_0": _rows(2)},
    )
    builder.add_partition(["far"], {"000000_0": _rows(1)}, location=tmp_path / "elsewhere")
    builder.add_partition(["many"], {f"{i:06d}_0": _rows(1) for i in range(17)})
    (builder.location / "dt=stray").mkdir()
    return builder


def test_spread_inventory_is_the_drivers(
    client: MetastoreClient,
    settings: Settings,
    spark,  # type: ignore[no-untyped-def]
    odd_table: HiveTableBuilder,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = f"{odd_table.db}.{odd_table.name}"
    # Waves of 4 partitions: 15 partitions go to Spark as 4 jobs, merged back in order.
    monkeypatch.setattr(spread_module, "WAVE_PARTITIONS", 4)
    monkeypatch.setattr(spread_module, "CORE_PARTITIONS", 2)
    on_driver, spread = _both(client, spark, table, settings, jobs=4)
    assert _comparable(spread) == _comparable(on_driver)
    # ...and that inventory holds what makes the comparison worth making.
    assert len(spread.partitions) == len(ODD_VALUES) + 10
    assert [p.name for p in spread.partitions] == sorted(p.name for p in spread.partitions)
    corrupt = spread.partition("dt=corrupt")
    assert {f.path: f.error is not None for f in corrupt.files} == {
        "000000_0": False,
        "000001_0": True,
    }
    assert "corrupt-file" in {a.code for a in corrupt.anomalies}
    assert spread.partition("dt=it%27s a%2Fb%3Dc %25x").values == ("it's a/b=c %x",)
    assert spread.partition("dt=__HIVE_DEFAULT_PARTITION__").values == (None,)
    assert {a.code for a in spread.partition("dt=gone").anomalies} == {"missing-directory"}
    assert spread.unregistered_dirs == ("dt=stray",)
    assert {a.code for a in spread.anomalies} >= {"schema-drift", "unregistered-directory"}
    # A filter sends only the partitions it selects.
    wanted = PartitionFilter.parse("dt=corrupt,dt=far")
    on_driver, spread = _both(client, spark, table, settings, partition_filter=wanted)
    assert _comparable(spread) == _comparable(on_driver)
    assert [p.name for p in spread.partitions] == ["dt=corrupt", "dt=far"]


def test_spread_inspection_reuses_and_fills_the_footer_cache(
    client: MetastoreClient, settings: Settings, spark, odd_table: HiveTableBuilder
) -> None:  # type: ignore[no-untyped-def]
    table = f"{odd_table.db}.{odd_table.name}"
    spreading = replace(settings, inspect_on="spark")
    cache = FooterCache()
    with reusing(cache):
        first = inspect_table(client, table, spreading, spark=lambda: spark)
        readable = sum(1 for p in first.partitions for f in p.files if f.error is None)
        assert (cache.reads, cache.hits) == (readable + 1, 0)  # the corrupt file read too
        assert len(cache.items()) == readable  # ...but not kept: it is read again next time
        second = inspect_table(client, table, spreading, spark=lambda: spark)
    assert (cache.reads, cache.hits) == (readable + 2, readable)
    assert _comparable(second) == _comparable(first)


def _on_moto(moto: MotoServer, prefix: str, partitions: tuple[str, ...]) -> str:
    """The location of ``prefix`` on moto's S3, with one (unread) file per partition."""
    if s3.connector_jars() is None:
        pytest.skip("the S3A jars are missing: `make test` fetches them")
    for p in partitions:
        moto.client().put_object(Bucket=s3.BUCKET, Key=f"{prefix}/dt={p}/000000_0", Body=b"x")
    return f"s3a://{s3.BUCKET}/{prefix}"


def _inspect_with(options: StorageOptions, inspect: Callable[[], T]) -> T:
    """``inspect()`` with every S3 client of this process (and of its tasks, which take the
    driver's options) built from ``options``."""
    driver_options = storage.current()
    storage.configure(options)
    try:
        return inspect()
    finally:
        storage.configure(driver_options)


def test_a_failing_partition_raises_the_drivers_error(
    client: MetastoreClient, settings: Settings, spark, tables_root: Path, moto: MotoServer
) -> None:  # type: ignore[no-untyped-def]
    builder = HiveTableBuilder(client, tables_root, "inspect_spread", unique_name("f"), COLUMNS)
    builder.add_partition(["a"], {"000000_0": _rows(1)})
    location = _on_moto(moto, f"spread/{builder.name}", ("b",))
    client.add_partitions(
        [ddl.partition(builder.db, builder.name, ["b"], COLUMNS, f"{location}/dt=b")]
    )
    # An endpoint no S3 client accepts: opening partition b's store raises, in a task too.
    broken = StorageOptions(s3_endpoint="gopher://127.0.0.1:1", s3_region="us-east-1")
    table = f"{builder.db}.{builder.name}"
    errors = []
    for where in ("driver", "spark"):
        chosen = replace(settings, inspect_on=where)
        inspect = functools.partial(inspect_table, client, table, chosen, spark=lambda: spark)
        with pytest.raises(EnvironmentProblem) as raised:
            _inspect_with(broken, inspect)
        errors.append((type(raised.value), raised.value.message, raised.value.hint))
    assert errors[0] == errors[1]
    assert f"{location}/dt=b" in errors[0][1] and "gopher" in errors[0][1]


def test_an_unreachable_store_is_reported_as_on_the_driver(
    client: MetastoreClient, settings: Settings, spark, moto: MotoServer
) -> None:  # type: ignore[no-untyped-def]
    name = unique_name("s3")
    location = _on_moto(moto, f"spread/{name}", ("a", "b"))
    db = "inspect_spread_s3"
    ddl.ensure_database(client, db, f"s3a://{s3.BUCKET}/warehouse/{db}.db")
    client.create_table(ddl.external_table(db, name, COLUMNS, (("dt", "string"),), location))
    client.add_partitions(
        [ddl.partition(db, name, [p], COLUMNS, f"{location}/dt={p}") for p in ("a", "b")]
    )
    # S3 at a port where nothing listens. A filter: each partition lists itself, in a task.
    closed = StorageOptions(
        s3_endpoint=f"http://127.0.0.1:{free_port()}",
        s3_region="us-east-1",
        s3_path_style=True,
        s3_access_key=s3.ACCESS_KEY,
        s3_secret_key=s3.SECRET_KEY,
    )
    wanted = PartitionFilter.parse("dt=a,dt=b")
    on_driver, spread = _inspect_with(
        closed, lambda: _both(client, spark, f"{db}.{name}", settings, partition_filter=wanted)
    )
    assert _comparable(spread) == _comparable(on_driver)
    messages = [a.message for p in spread.partitions for a in p.anomalies]
    assert len(messages) == 2 and all("127.0.0.1" in m for m in messages), messages

"""Session fixtures: one embedded metastore and one Spark session for the whole test run."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from lakeshift.config import Settings, load_settings
from lakeshift.context import Context
from lakeshift.metastore.client import MetastoreClient
from lakeshift.platform.metastore_server import EmbeddedMetastore
from lakeshift.sample.load import LoadResult, load_sample
from lakeshift.storage import StorageOptions
from tests.helpers import s3
from tests.helpers.s3 import MotoServer

REPO = Path(__file__).resolve().parents[1]

# Each CLI subprocess's Spark driver lives seconds on small data, where the JIT's optimizing
# tier (C2) costs more than it gains: C1 alone and the serial collector cut a subprocess
# migration by about a third (kill/resume cases 37-48 s -> 28-31 s). Spark's launcher adds
# SPARK_SUBMIT_OPTS to the driver's command line beside lakeshift's own
# spark.driver.extraJavaOptions. Not for this session's own driver (see ``spark``), which runs
# the whole suite's in-process queries: there C2 pays (test_orc_conversions took 58 s under C1
# against 37 s). Tests only: a user's backfill wants C2.
SHORT_LIVED_DRIVER = "-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"
os.environ.setdefault("SPARK_SUBMIT_OPTS", SHORT_LIVED_DRIVER)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        parts = Path(str(item.fspath)).parts
        if "integration" in parts:
            item.add_marker(pytest.mark.integration)
        if "e2e" in parts:
            item.add_marker(pytest.mark.e2e)


@pytest.fixture(scope="session")
def lakeshift_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("lakeshift-home")


@pytest.fixture(scope="session")
def moto(lakeshift_home: Path) -> Iterator[MotoServer]:
    """moto's S3 (and Glue) API on 127.0.0.1, with the bucket the tests use."""
    server = MotoServer.start(lakeshift_home.parent / "moto.log")
    server.client().create_bucket(Bucket=s3.BUCKET)
    yield server
    server.stop()


@pytest.fixture(scope="session")
def object_store_conf(moto: MotoServer) -> dict[str, str]:
    """The session's ``spark_conf``: S3A on moto, when `make test` fetched the connector jars.

    One Spark session and one metastore serve local and S3 tests alike, so the connector is
    configured for all of them (it costs nothing where no s3a:// location is used).
    """
    jars = s3.connector_jars()
    return s3.spark_conf(moto.endpoint, jars) if jars else {}


@pytest.fixture(scope="session")
def embedded_metastore(
    lakeshift_home: Path, object_store_conf: dict[str, str]
) -> Iterator[EmbeddedMetastore]:
    storage = StorageOptions.from_spark_conf(object_store_conf)
    server = EmbeddedMetastore(
        lakeshift_home,
        extra_jars=[j for j in object_store_conf.get("spark.jars", "").split(",") if j],
        hadoop_properties=storage.hadoop(),
        environment=storage.aws_environment(),
    )
    server.ensure_running()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def metastore_uri(embedded_metastore: EmbeddedMetastore) -> str:
    status = embedded_metastore.status()
    assert status.uri is not None
    return status.uri


@pytest.fixture(scope="session")
def settings(
    lakeshift_home: Path, metastore_uri: str, object_store_conf: dict[str, str]
) -> Settings:
    return load_settings(
        {
            "home": lakeshift_home,
            "metastore_uri": metastore_uri,
            "spark_master": "local[2]",
            "shuffle_partitions": 2,
            # lakeshift's own default: at 1g one Delta write ran out of execution memory after
            # some 600 tests in the shared session (test_value_range, once)
            "spark_driver_memory": "2g",
            "spark_conf": object_store_conf,
        },
        env={},
    )


@pytest.fixture(scope="session")
def context(settings: Settings) -> Iterator[Context]:
    ctx = Context(settings)
    yield ctx
    if "spark" in ctx.__dict__:
        ctx.spark.stop()
    ctx.close()


@pytest.fixture(scope="session")
def client(context: Context) -> MetastoreClient:
    return context.metastore


@pytest.fixture(scope="session")
def spark(context: Context):  # type: ignore[no-untyped-def]
    ours = os.environ.get("SPARK_SUBMIT_OPTS") == SHORT_LIVED_DRIVER
    if ours:  # the session's driver is long-lived (above)
        del os.environ["SPARK_SUBMIT_OPTS"]
    try:
        return context.spark
    finally:
        if ours:
            os.environ["SPARK_SUBMIT_OPTS"] = SHORT_LIVED_DRIVER


@pytest.fixture(scope="session")
def sample_table(context: Context) -> LoadResult:
    return load_sample(context.metastore, context.home)


@pytest.fixture(scope="session")
def tables_root(lakeshift_home: Path) -> Path:
    root = lakeshift_home / "test-tables"
    root.mkdir(exist_ok=True)
    return root

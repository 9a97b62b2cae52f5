"""Session fixtures: one embedded metastore and one Spark session for the whole test run."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from lakeshift.config import Settings, load_settings
from lakeshift.context import Context
from lakeshift.metastore.client import MetastoreClient
from lakeshift.platform.metastore_server import EmbeddedMetastore
from lakeshift.sample.load import LoadResult, load_sample

REPO = Path(__file__).resolve().parents[1]


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
def embedded_metastore(lakeshift_home: Path) -> Iterator[EmbeddedMetastore]:
    server = EmbeddedMetastore(lakeshift_home)
    server.ensure_running()
    yield server
    server.stop()


@pytest.fixture(scope="session")
def metastore_uri(embedded_metastore: EmbeddedMetastore) -> str:
    status = embedded_metastore.status()
    assert status.uri is not None
    return status.uri


@pytest.fixture(scope="session")
def settings(lakeshift_home: Path, metastore_uri: str) -> Settings:
    return load_settings(
        {
            "home": lakeshift_home,
            "metastore_uri": metastore_uri,
            "spark_master": "local[2]",
            "shuffle_partitions": 2,
            "spark_driver_memory": "1g",
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
    return context.spark


@pytest.fixture(scope="session")
def sample_table(context: Context) -> LoadResult:
    return load_sample(context.metastore, context.home)


@pytest.fixture(scope="session")
def tables_root(lakeshift_home: Path) -> Path:
    root = lakeshift_home / "test-tables"
    root.mkdir(exist_ok=True)
    return root

"""The Spark standalone cluster fixture: started once, on the first test that asks for it."""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.cluster.standalone import StandaloneCluster
from tests.faults.conftest import pytest_runtest_logreport  # noqa: F401 (the faults summary)

_CLUSTER_KEY = pytest.StashKey[StandaloneCluster]()
#: What the executors' Python has besides PySpark (README "Running on your cluster"): pyarrow,
#: for formats whose Spark tasks write files with it (Hudi's base files).
EXECUTOR_PACKAGES = ("pyarrow",)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if "cluster" in Path(str(item.fspath)).parts:
            item.add_marker(pytest.mark.integration)


@pytest.fixture(scope="session")
def spark_cluster(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[StandaloneCluster]:
    cluster = StandaloneCluster(tmp_path_factory.mktemp("spark-cluster"))
    request.config.stash[_CLUSTER_KEY] = cluster
    try:
        cluster.start()
        yield cluster
    finally:
        cluster.stop()


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):  # type: ignore[no-untyped-def]
    """A failed cluster test shows the tails of the master's, worker's and executors' logs."""
    outcome = yield
    report = outcome.get_result()
    cluster = item.config.stash.get(_CLUSTER_KEY, None)
    if report.failed and cluster is not None and "spark_cluster" in item.fixturenames:
        report.sections.append(("spark cluster logs", cluster.logs()))


@dataclass(frozen=True)
class ClusterCli:
    """``python -m lakeshift`` as a user runs it against the cluster: its own driver process,
    executors in the worker's JVMs, every file they need shipped through the Spark conf."""

    cluster: StandaloneCluster
    metastore_uri: str
    executor_python: Path

    def command(self, home: Path, *args: str) -> list[str]:
        conf = {
            # The driver must be reachable from executors; here both are on loopback.
            "spark.driver.host": "127.0.0.1",
            "spark.driver.bindAddress": "127.0.0.1",
            "spark.driver.memory": "768m",
            "spark.executor.memory": "1g",
            "spark.executor.cores": "1",
            "spark.cores.max": "1",
            "spark.sql.shuffle.partitions": "2",
            "spark.pyspark.python": str(self.executor_python),
        }
        flags = [f for k, v in conf.items() for f in ("--conf", f"{k}={v}")]
        return [
            sys.executable,
            "-m",
            "lakeshift",
            "--home",
            str(home),
            "--metastore-uri",
            self.metastore_uri,
            "--spark-master",
            self.cluster.master_url,
            *flags,
            *args,
        ]

    def run(
        self, home: Path, *args: str, env: dict[str, str] | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess[str]:
        environment = {
            k: v for k, v in os.environ.items() if not k.startswith(("LAKESHIFT_", "PYSPARK_"))
        }
        environment.update(env or {})
        return subprocess.run(
            self.command(home, *args),
            capture_output=True,
            text=True,
            env=environment,
            timeout=timeout,
            check=False,
        )


@pytest.fixture(scope="session")
def cluster_cli(spark_cluster: StandaloneCluster, metastore_uri: str) -> ClusterCli:
    # Executors run Python without site-packages (-S), given only the packages README says a
    # cluster node needs: lakeshift's code can reach them only through what lakeshift ships
    # (spark.submit.pyFiles). PySpark comes from the worker's SPARK_HOME, as on a cluster node.
    site = spark_cluster.root / "executor-site-packages"
    site.mkdir(exist_ok=True)
    for package in EXECUTOR_PACKAGES:
        module = importlib.import_module(package)
        (site / package).symlink_to(Path(module.__file__ or "").parent)
    wrapper = spark_cluster.root / "executor-python"
    path = f'PYTHONPATH="{site}${{PYTHONPATH:+:$PYTHONPATH}}"'
    wrapper.write_text(f'#!/bin/sh\n{path} exec "{sys.executable}" -S "$@"\n')
    wrapper.chmod(0o755)
    return ClusterCli(spark_cluster, metastore_uri, wrapper)

"""Task failures on the cluster: a task failing its first attempt is retried on the executor
(``spark.task.maxFailures`` defaults to 4 off local mode) and no row is duplicated. The hook is
lakeshift code run inside the executors' Python, which has no site-packages: it reaches them
only through ``spark.submit.pyFiles``."""

from __future__ import annotations

from pathlib import Path

import pytest

from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.faults import FIRST_ATTEMPT, TASK_ENV
from tests.cluster.conftest import ClusterCli
from tests.cluster.test_cluster_flow import FORMATS, assert_ok, lake_rows, small_table
from tests.helpers.lake import unique_keys

pytestmark = pytest.mark.slow


@pytest.mark.parametrize(
    "fmt", [f if f == "iceberg" else pytest.param(f, marks=pytest.mark.faults) for f in FORMATS]
)
def test_task_retried_on_the_cluster_duplicates_nothing(
    fmt: str, cluster_cli: ClusterCli, client: MetastoreClient, tables_root: Path, tmp_path: Path
) -> None:
    b, expected = small_table(client, tables_root)
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_{fmt}"
    home = tmp_path / "home"
    migrated = cluster_cli.run(
        home, "migrate", source, "--target", target, "--format", fmt, env={TASK_ENV: FIRST_ATTEMPT}
    )
    assert_ok(migrated, "migrate")
    assert "injected failure of task" in (home / "logs" / "spark.log").read_text()

    rows, found = lake_rows(client, target)
    assert found == expected
    assert unique_keys(rows)
    assert_ok(cluster_cli.run(home, "validate", source), "validate")

"""Task failures on the cluster, and no row duplicated after them:

- a task failing its first attempt is retried (``spark.task.maxFailures`` defaults to 4 off
  local mode);
- the executor JVM running a task's first attempt is SIGKILLed mid-batch: the worker starts
  another executor and the batch's tasks run again there.

The hook is lakeshift code run inside the executors' Python, which has no site-packages: it
reaches them only through ``spark.submit.pyFiles``."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pytest

from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.faults import FIRST_ATTEMPT, KILL_EXECUTOR, TASK_ENV
from tests.cluster.conftest import ClusterCli
from tests.cluster.test_cluster_flow import (
    FORMATS,
    NEEDS_DEPENDENCIES,
    assert_ok,
    lake_rows,
    small_table,
)
from tests.helpers.lake import unique_keys

pytestmark = pytest.mark.slow


def _cases() -> list[object]:
    # The whole-flow test already retries every task once for every format (make test).
    return [
        pytest.param(fmt, mode, marks=pytest.mark.faults)
        for mode in (FIRST_ATTEMPT, KILL_EXECUTOR)
        for fmt in FORMATS
    ]


@pytest.mark.parametrize(("fmt", "mode"), _cases())
def test_task_retried_on_the_cluster_duplicates_nothing(
    fmt: str,
    mode: str,
    cluster_cli: ClusterCli,
    client: MetastoreClient,
    tables_root: Path,
    tmp_path: Path,
) -> None:
    b, expected = small_table(client, tables_root)
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_{fmt}"
    home = tmp_path / "home"
    if fmt in NEEDS_DEPENDENCIES:
        cluster_cli = replace(cluster_cli, executor_python=Path(sys.executable))
    executors_before = len(cluster_cli.cluster.executor_logs())
    migrated = cluster_cli.run(
        home, "migrate", source, "--target", target, "--format", fmt, env={TASK_ENV: mode}
    )
    assert_ok(migrated, "migrate")
    started = len(cluster_cli.cluster.executor_logs()) - executors_before
    if mode == FIRST_ATTEMPT:
        assert "injected failure of task" in (home / "logs" / "spark.log").read_text()
        assert started == 1
    else:
        # The first executor was killed; at least one more was started for the retries.
        assert started >= 2, cluster_cli.cluster.logs()

    rows, found = lake_rows(client, target)
    assert found == expected
    assert unique_keys(rows)
    assert_ok(cluster_cli.run(home, "validate", source), "validate")

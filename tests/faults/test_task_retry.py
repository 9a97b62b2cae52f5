"""A Spark task that fails on its first attempt and succeeds on retry: the batch lands once,
every row exactly once (local mode with retries: ``local[N,F]``)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.faults import FIRST_ATTEMPT, TASK_ENV
from tests.faults._tables import assert_exact, small_table
from tests.helpers.cli import lakeshift_command

pytestmark = pytest.mark.slow


# make test retries every task on the cluster (tests/cluster); this is the local-mode variant.
@pytest.mark.faults
@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_task_failing_its_first_attempt_is_retried_and_no_row_is_duplicated(
    fmt: str, client: MetastoreClient, metastore_uri: str, tables_root: Path, tmp_path: Path
) -> None:
    b, expected = small_table(client, tables_root, "retry")
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_{fmt}"
    # local[1,2]: one thread, each task tried up to twice (local mode never retries otherwise).
    cmd = lakeshift_command(tmp_path, metastore_uri, spark_master="local[1,2]")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAKESHIFT_")}
    args = ["migrate", source, "--target", target, "--format", fmt, "--batch-rows", "200"]
    result = subprocess.run(
        [*cmd, *args],
        capture_output=True,
        text=True,
        env={**env, TASK_ENV: FIRST_ATTEMPT},
        timeout=300,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    # The fault fired: Spark logged the lost first attempts.
    assert "injected failure of task" in (tmp_path / "logs" / "spark.log").read_text()

    assert_exact(client, target, expected)
    validated = subprocess.run(
        [*cmd, "validate", source], capture_output=True, text=True, env=env, timeout=300
    )
    assert validated.returncode == 0, validated.stdout[-2000:]

"""A Spark task that fails on its first attempt and succeeds on retry: the batch lands once,
every row exactly once (local mode with retries: ``local[N,F]``)."""

from __future__ import annotations

import os
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.faults import FIRST_ATTEMPT, TASK_ENV
from tests.helpers.cli import lakeshift_command
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake, unique_keys

pytestmark = pytest.mark.slow


def _table(client: MetastoreClient, root: Path) -> tuple[HiveTableBuilder, Counter[Any]]:
    b = HiveTableBuilder(
        client, root, "fault_cases", unique_name("retry"), [("id", "bigint"), ("v", "string")]
    )
    expected: Counter[Any] = Counter()
    for p in range(4):
        ids = list(range(p * 40, p * 40 + 40))
        rows = pa.table({"id": pa.array(ids, pa.int64()), "v": [f"v{i % 3}" for i in ids]})
        b.add_partition([str(p)], {"000000_0": rows, "000001_0": rows.slice(0, 5)})
        for table in (rows, rows.slice(0, 5)):
            expected.update(
                (f"dt={p}", i, v) for i, v in zip(table["id"].to_pylist(), table["v"].to_pylist())
            )
    return b, expected


@pytest.mark.parametrize("fmt", ["iceberg", pytest.param("delta", marks=pytest.mark.faults)])
def test_task_failing_its_first_attempt_is_retried_and_no_row_is_duplicated(
    fmt: str, client: MetastoreClient, metastore_uri: str, tables_root: Path, tmp_path: Path
) -> None:
    b, expected = _table(client, tables_root)
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_{fmt}"
    # local[1,2]: one thread, each task tried up to twice (local mode never retries otherwise).
    cmd = lakeshift_command(tmp_path, metastore_uri, spark_master="local[1,2]")
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAKESHIFT_")}
    env[TASK_ENV] = FIRST_ATTEMPT
    args = ["migrate", source, "--target", target, "--format", fmt, "--batch-rows", "200"]
    result = subprocess.run(
        [*cmd, *args], capture_output=True, text=True, env=env, timeout=300, check=False
    )
    assert result.returncode == 0, result.stdout[-2000:] + result.stderr[-2000:]
    # The fault fired: Spark logged the lost first attempts.
    assert "injected failure of task" in (tmp_path / "logs" / "spark.log").read_text()

    rows = read_lake(client, target)
    found = Counter(
        (r["partitionpath"], r["id"], r["v"])
        for r in rows.select(["partitionpath", "id", "v"]).to_pylist()
    )
    assert found == expected
    assert unique_keys(rows)
    env.pop(TASK_ENV)
    validated = subprocess.run(
        [*cmd, "validate", source],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
        check=False,
    )
    assert validated.returncode == 0, validated.stdout[-2000:]

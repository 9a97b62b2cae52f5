"""lakeshift's whole flow against a Spark standalone cluster (executors in their own JVMs and
Python processes), with the result checked exactly by each format's own reader, and every
batch task failing once on the way (no row may be duplicated by the retries)."""

from __future__ import annotations

import sys
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.formats import format_of
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.faults import FIRST_ATTEMPT, TASK_ENV
from tests.cluster.conftest import ClusterCli
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import read_lake, unique_keys

pytestmark = pytest.mark.slow

#: Every format lakeshift writes; a new one is one more word here.
FORMATS = ["iceberg", "delta", "hudi"]
#: Formats whose Spark tasks import lakeshift modules that need its third-party dependencies:
#: their executors run the driver's full Python (on a cluster: a packed environment, README).
#: Hudi's task writer lives under ``lakeshift.formats``, whose ``__init__`` imports the
#: metastore client (thrift); an executor with only PySpark and pyarrow cannot import it.
NEEDS_DEPENDENCIES = {"hudi"}
PARTITIONS = ("2024-01-01", "2024-01-02", "2024-01-03")


Expected = dict[str, Counter[Any]]


def small_table(client: MetastoreClient, root: Path) -> tuple[HiveTableBuilder, Expected]:
    """Three partitions of two ORC files each (one with a repeated row); the expected rows per
    partition as a multiset."""
    b = HiveTableBuilder(
        client, root, "cluster_cases", unique_name("t"), [("id", "bigint"), ("v", "string")]
    )
    expected: dict[str, Counter[Any]] = {}
    for n, day in enumerate(PARTITIONS):
        ids = list(range(n * 50, n * 50 + 50))
        rows = pa.table({"id": pa.array(ids, pa.int64()), "v": [f"v{i % 7}" for i in ids]})
        repeated = rows.slice(0, 3)
        b.add_partition([day], {"000000_0": rows, "000001_0": repeated})
        expected[f"dt={day}"] = Counter(zip(rows["id"].to_pylist(), rows["v"].to_pylist()))
        expected[f"dt={day}"].update(zip(repeated["id"].to_pylist(), repeated["v"].to_pylist()))
    return b, expected


def lake_rows(client: MetastoreClient, table: str) -> tuple[pa.Table, dict[str, Counter[Any]]]:
    rows = read_lake(client, table)
    found: dict[str, Counter[Any]] = {}
    for r in rows.select(["partitionpath", "id", "v"]).to_pylist():
        found.setdefault(r["partitionpath"], Counter())[(r["id"], r["v"])] += 1
    return rows, found


def assert_ok(result: Any, step: str) -> None:
    assert result.returncode == 0, (
        f"{step}: exit {result.returncode}\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    )


# Each format's flow is two processes: `inspect`, then one `bulk` run that migrates,
# validates, switches and cuts over (one driver JVM instead of one per command), so that every
# format's flow fits in `make test`.
@pytest.mark.parametrize(
    "fmt",
    # make test: Hudi, the format whose tasks run lakeshift's own code on the executors (the
    # case a cluster breaks first); make extended: the other two (make test's 25-minute budget)
    [f if f == "hudi" else pytest.param(f, marks=pytest.mark.extended) for f in FORMATS],
)
def test_whole_flow_on_a_standalone_cluster(
    fmt: str, cluster_cli: ClusterCli, client: MetastoreClient, tables_root: Path, tmp_path: Path
) -> None:
    b, expected = small_table(client, tables_root)
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_{fmt}"
    home = tmp_path / "home"
    if fmt in NEEDS_DEPENDENCIES:
        cluster_cli = replace(cluster_cli, executor_python=Path(sys.executable))

    assert_ok(cluster_cli.run(home, "inspect", source), "inspect")
    spec = tmp_path / "flow.toml"
    spec.write_text(
        f'[[tables]]\nsource = "{source}"\ntarget = "{target}"\nformat = "{fmt}"\n'
        'validate = "checksum"\nswitch = "cutover"\n'
    )
    # Every batch task fails its first attempt and is retried (spark.task.maxFailures is 4 off
    # local mode). The failing check is lakeshift code run in the executors' Python, which
    # has no site-packages: it gets there only through spark.submit.pyFiles.
    executors = len(cluster_cli.cluster.executor_logs())
    flow = cluster_cli.run(home, "bulk", str(spec), env={TASK_ENV: FIRST_ATTEMPT})
    assert_ok(flow, "bulk: migrate, validate, switch, cutover")
    assert "injected failure of task" in (home / "logs" / "spark.log").read_text()
    # The application really ran on the cluster: its executor wrote a log in the worker.
    assert len(cluster_cli.cluster.executor_logs()) == executors + 1

    # After the cutover the source's name is the lake table; each partition holds exactly the
    # Hive rows (as a multiset: the repeated rows twice), each with its own record key.
    assert format_of(client, source) == fmt
    rows, found = lake_rows(client, source)
    assert found == expected
    assert unique_keys(rows) and rows.num_rows == sum(sum(c.values()) for c in expected.values())

"""``--profile``: where a migration's and a validation's time went, in every format."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from click.testing import CliRunner

from lakeshift.cli.main import cli
from lakeshift.metastore.client import MetastoreClient
from tests.helpers.hive_tables import HiveTableBuilder, unique_name

#: The phase under ``batch/write`` whose Spark job writes the rows, per format.
WRITE_PHASE = {
    "iceberg": "batch/write/spark write and commit",
    "delta": "batch/write/spark write",
    "hudi": "batch/write/spark write",
}


def _table(client: MetastoreClient, root: Path) -> str:
    b = HiveTableBuilder(
        client, root, "profiled", unique_name("t"), (("id", "bigint"), ("name", "string"))
    )
    for day in range(3):
        rows = pa.table({"id": pa.array(range(200), pa.int64()), "name": ["x"] * 200})
        b.add_partition([f"2024-01-0{day + 1}"], {"000000_0": rows})
    return f"{b.db}.{b.name}"


def _run(home: Path, uri: str, *args: str) -> str:
    result = CliRunner().invoke(cli, ["--home", str(home), "--metastore-uri", uri, *args])
    assert result.exit_code == 0, result.output
    return result.output


def _profile(home: Path, table: str) -> dict[str, Any]:
    document: dict[str, Any] = json.loads(
        (home / "reports" / table / "profile-latest.json").read_text()
    )
    return document


def _check_sums(profile: dict[str, Any]) -> dict[str, dict[str, Any]]:
    rows = {r["phase"]: r for r in profile["phases"]}
    top = sum(r["seconds"] for r in rows.values() if "/" not in r["phase"])
    assert abs(top + profile["outside_phases_seconds"] - profile["wall_seconds"]) < 0.05
    for row in rows.values():  # one thread: a phase's jobs run within its own time
        assert row["spark_seconds"] <= row["own_seconds"] + 0.05, row
    return rows


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_profile_breaks_down_migrate_and_validate(
    fmt: str, client: MetastoreClient, tables_root: Path, metastore_uri: str, tmp_path: Path
) -> None:
    table = _table(client, tables_root)
    home = tmp_path / "home"
    target = f"{table}_{fmt}"
    _run(home, metastore_uri, "migrate", table, "--target", target, "--format", fmt)
    assert not (home / "reports" / table / "profile-latest.json").exists()  # only when asked

    output = _run(
        home, metastore_uri, "migrate", table, "--target", target, "--force",
        "--partitions", "dt=2024-01-0*", "--profile",
    )  # fmt: skip
    assert "Where the time went" in output
    profile = _profile(home, table)
    assert profile["label"] == f"lakeshift migrate {table}"
    rows = _check_sums(profile)
    for phase in ("inspect", "sync target", "read commits", "plan", "batch", "batch/journal"):
        assert rows[phase]["calls"] >= 1, phase
    write = rows[WRITE_PHASE[fmt]]
    assert write["spark_jobs"] >= 1 and write["tasks"] >= 1 and write["spark_seconds"] > 0
    assert write["task_seconds"] > 0
    assert profile["spark_jobs_outside_phases"] == 0  # every job was joined to its phase

    _run(home, metastore_uri, "validate", table, "--target", target, "--profile")
    profile = _profile(home, table)
    assert profile["label"] == f"lakeshift validate {table}"
    rows = _check_sums(profile)
    scan = rows["checksums/target scan"]
    assert scan["spark_jobs"] >= 1 and scan["tasks"] >= 1
    html = (home / "reports" / table / "report-latest.html").read_text()
    assert "Where the time went" in html and "checksums/target scan" in html

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
    rows = pa.table({"id": pa.array(range(200), pa.int64()), "name": ["x"] * 200})
    for day in range(2):
        b.add_partition([f"2024-01-0{day + 1}"], {"000000_0": rows})
    b.add_partition(["2024-01-03"], {"000000_0": rows, "000001_0": rows})  # two files
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
    assert top <= profile["wall_seconds"] + 0.01  # no phase counted twice
    for row in rows.values():  # one thread: a phase's jobs run within its own time
        assert row["spark_seconds"] <= row["own_seconds"] + 0.05, row
    # every job was joined to a phase of this run, and each is counted once
    assert all(job["phase"] in rows for job in profile["jobs"]), profile["jobs"]
    assert len(profile["jobs"]) == sum(r["spark_jobs"] for r in rows.values())
    return rows


def _write_operators(profile: dict[str, Any], fmt: str) -> list[list[str]]:
    """The operators of the batch write's jobs (one list per job)."""
    return [
        job["operators"].split(" > ") for job in profile["jobs"] if job["phase"] == WRITE_PHASE[fmt]
    ]


@pytest.mark.parametrize(
    "fmt",  # make test: Iceberg; make extended: Delta and Hudi
    ["iceberg", *(pytest.param(f, marks=pytest.mark.extended) for f in ("delta", "hudi"))],
)
def test_profile_breaks_down_migrate_and_validate(
    fmt: str,
    client: MetastoreClient,
    tables_root: Path,
    metastore_uri: str,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The Spark path's jobs (its scan, its shuffle); the Arrow path's phases are checked in
    # test_arrow_path
    monkeypatch.setenv("LAKESHIFT_WRITE_PATH", "spark")
    table = _table(client, tables_root)
    home = tmp_path / "home"
    target = f"{table}_{fmt}"
    _run(home, metastore_uri, "migrate", table, "--target", target, "--format", fmt)
    assert not (home / "reports" / table / "profile-latest.json").exists()  # only when asked

    # one-file partitions: each is read by one task whole, so the batch is not shuffled
    output = _run(
        home, metastore_uri, "migrate", table, "--target", target, "--force",
        "--partitions", "dt=2024-01-01,dt=2024-01-02", "--profile",
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
    operators = _write_operators(profile, fmt)
    assert any("Scan orc" in ops for ops in operators), operators
    assert not any("Exchange" in ops for ops in operators), operators

    # a small partition of two files is gathered into one task (one file) by a shuffle
    _run(
        home, metastore_uri, "migrate", table, "--target", target, "--force",
        "--partitions", "dt=2024-01-03", "--profile",
    )  # fmt: skip
    profile = _profile(home, table)
    _check_sums(profile)
    operators = _write_operators(profile, fmt)
    assert any("Exchange" in ops for ops in operators), operators

    _run(home, metastore_uri, "validate", table, "--target", target, "--profile")
    profile = _profile(home, table)
    assert profile["label"] == f"lakeshift validate {table}"
    rows = _check_sums(profile)
    scan = rows["checksums/target scan"]
    assert scan["spark_jobs"] >= 1 and scan["tasks"] >= 1
    html = (home / "reports" / table / "report-latest.html").read_text()
    assert "Where the time went" in html and "checksums/target scan" in html


def _data_files(location: str) -> list[Path]:
    """The Parquet data files under a lake table's location (no log or metadata dirs)."""
    root = Path(location.removeprefix("file:"))
    return [
        p
        for p in root.rglob("*.parquet")
        if not any(part.startswith((".", "_")) for part in p.relative_to(root).parts)
    ]


@pytest.mark.parametrize(
    "fmt",  # make test: Iceberg; make extended: Delta and Hudi
    ["iceberg", *(pytest.param(f, marks=pytest.mark.extended) for f in ("delta", "hudi"))],
)
def test_deterministic_keys_are_stable_and_each_small_partition_is_one_file(
    fmt: str, client: MetastoreClient, tables_root: Path, metastore_uri: str, tmp_path: Path
) -> None:
    from lakeshift.config import Settings
    from lakeshift.formats import FormatServices, target_format
    from tests.helpers.lake import read_lake

    table = _table(client, tables_root)  # two one-file partitions and one of two files
    home = tmp_path / "home"
    target = f"{table}_{fmt}_det"
    _run(home, metastore_uri, "migrate", table, "--target", target, "--format", fmt,
         "--key", "deterministic", "--profile")  # fmt: skip
    profile = _profile(home, table)
    # the window that ranks identical rows runs on rows already gathered per partition
    for ops in _write_operators(profile, fmt):
        assert "Window" in ops and "Exchange" in ops, ops
    fmt_obj = target_format(FormatServices(lambda: None, client, Settings()), target, None)  # type: ignore[arg-type]
    location = fmt_obj.location(target)
    assert location is not None
    assert len(_data_files(location)) == 3  # one file per partition
    first = read_lake(client, target)
    assert first.num_rows == 800 and len(set(first.column("uuid").to_pylist())) == 800

    _run(home, metastore_uri, "migrate", table, "--target", target, "--force",
         "--partitions", "dt=2024-01-0*", "--key", "deterministic")  # fmt: skip
    again = read_lake(client, target)
    assert sorted(again.column("uuid").to_pylist()) == sorted(first.column("uuid").to_pylist())

"""SIGKILL of the lakeshift process at points chosen at random (seeded, reported) across
migrate, validate, switch, rollback, cutover and revert; each killed command is re-run, and the
flow ends with exactly the source's rows, unique keys, and a journal that agrees with the
target's commits.

``LAKESHIFT_KILL_POINTS`` (default 20) and ``LAKESHIFT_KILL_SEED`` (default 17) choose the points;
``make test`` runs a 3-point subset for Iceberg, ``make faults`` all 20 for every format. Each
point and its outcome is printed, and appended to ``LAKESHIFT_FAULTS_SUMMARY`` (a Markdown
file) when that is set.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

import pytest

from lakeshift.config import Settings
from lakeshift.formats import FormatServices, require_target
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.journal import Journal
from tests.faults._tables import assert_exact, small_table
from tests.helpers.cli import lakeshift_command

pytestmark = pytest.mark.slow

SEED = int(os.environ.get("LAKESHIFT_KILL_SEED", "17"))
POINTS = int(os.environ.get("LAKESHIFT_KILL_POINTS", "20"))
SUMMARY = os.environ.get("LAKESHIFT_FAULTS_SUMMARY")


@dataclass(frozen=True)
class Step:
    name: str
    args: tuple[str, ...]
    #: Kills land uniformly in [0, longest] seconds after the start: about the command's run
    #: time on a small table (measured: migrate 22 s, validate 15 s, the others 1.2-1.5 s).
    longest: float


def _steps(source: str, target: str, fmt: str) -> list[Step]:
    return [
        Step(
            "migrate",
            ("migrate", source, "--target", target, "--format", fmt, "--batch-rows", "90"),
            24.0,
        ),
        Step("validate", ("validate", source), 18.0),
        Step("switch", ("switch", source, "--partitions", "dt=0,dt=1"), 1.6),
        Step("rollback", ("rollback", source, "--partitions", "dt=1"), 1.6),
        Step("switch", ("switch", source, "--all-validated"), 1.6),
        Step("cutover", ("cutover", source, "--yes"), 1.6),
        Step("revert", ("revert", source), 1.6),
        Step("cutover", ("cutover", source, "--yes"), 1.6),
    ]


def kill_points(steps: list[Step], seed: int, count: int) -> list[tuple[int, float]]:
    """``count`` (step index, seconds) pairs, in the order the flow meets them."""
    rng = random.Random(seed)
    points = []
    for _ in range(count):
        index = rng.randrange(len(steps))
        points.append((index, round(rng.uniform(0.0, steps[index].longest), 2)))
    return sorted(points)


def _report(line: str) -> None:
    print(line)
    if SUMMARY:
        with Path(SUMMARY).open("a") as handle:
            handle.write(line + "\n")


def _kill_after(cmd: list[str], env: dict[str, str], seconds: float) -> str:
    process = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        process.wait(timeout=seconds)
        return f"finished first (exit {process.returncode})"
    except subprocess.TimeoutExpired:
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=60)
        return "killed"


def _cases() -> list[object]:
    # All in `make faults`: `make test` keeps the fixed crash points (test_kill_resume), one
    # per format, within its 20-minute budget.
    return [
        pytest.param(fmt, POINTS, id=f"{fmt}-{POINTS}", marks=pytest.mark.faults)
        for fmt in ("iceberg", "delta", "hudi")
    ]


@pytest.mark.parametrize(("fmt", "count"), _cases())
def test_sigkill_at_seeded_random_points_then_rerun(
    fmt: str,
    count: int,
    client: MetastoreClient,
    settings: Settings,
    metastore_uri: str,
    tables_root: Path,
    tmp_path: Path,
) -> None:
    b, expected = small_table(client, tables_root, "kills")
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_{fmt}"
    steps = _steps(source, target, fmt)
    points = kill_points(steps, SEED, count)
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAKESHIFT_")}
    home = tmp_path / "home"
    _report(f"\n**{fmt}**, seed {SEED}, {count} kill points: `{source}`\n")
    _report("| # | command | SIGKILL after (s) | outcome | re-run |")
    _report("|---|---|---|---|---|")
    killed = 0
    started = time.monotonic()
    for index, step in enumerate(steps):
        cmd = [*lakeshift_command(home, metastore_uri), *step.args]
        here = [seconds for at, seconds in points if at == index]
        for seconds in here:
            outcome = _kill_after(cmd, env, seconds)
            killed += outcome == "killed"
            _report(f"| {index + 1} | {step.name} | {seconds} | {outcome} | |")
        began = time.monotonic()
        done = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"{step.name}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
        _report(f"| {index + 1} | {step.name} | | | exit 0 in {time.monotonic() - began:.1f}s |")

    # The source's name is the lake table again after the last cutover, holding exactly the
    # Hive rows; the journal's commit per partition is the one the target's history names.
    services = FormatServices(spark=_no_spark, client=client, settings=settings)
    commits = require_target(services, source, source).backfilled(source)
    journal = Journal(home / "journal.sqlite")
    try:
        recorded = {n: (r.status, r.snapshot_id) for n, r in journal.partitions(source).items()}
    finally:
        journal.close()
    assert {n: c for n, (_, c) in recorded.items()} == {n: c.commit_id for n, c in commits.items()}
    assert sorted(commits) == [f"dt={p}" for p in range(4)]
    rows = assert_exact(client, source, expected)
    _report(
        f"\n{fmt}: {len(points)} points, {killed} killed mid-command, "
        f"{len(steps) + len(points)} runs, {rows} rows compared exactly, "
        f"{time.monotonic() - started:.0f}s\n"
    )


def _no_spark() -> object:
    raise AssertionError("reading commit metadata must not need Spark")

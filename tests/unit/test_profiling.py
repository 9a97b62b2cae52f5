"""The profile's bookkeeping (Spark's side is joined in tests/e2e/test_profile.py)."""

from __future__ import annotations

import time

from lakeshift import profiling


def test_without_a_profile_a_phase_records_nothing() -> None:
    assert profiling.active() is None
    with profiling.phase("inspect"):
        pass
    assert profiling.active() is None


def test_nested_phases_add_up_and_own_time_excludes_children() -> None:
    with profiling.profiled("unit") as profile:
        for _ in range(2):
            with profiling.phase("batch"):
                time.sleep(0.02)
                with profiling.phase("write"):
                    time.sleep(0.05)
        with profiling.phase("finish"):
            pass
    assert profiling.active() is None
    data = profile.to_json()
    rows = {r["phase"]: r for r in data["phases"]}
    assert set(rows) == {"batch", "batch/write", "finish"}
    assert rows["batch"]["calls"] == 2 and rows["batch/write"]["calls"] == 2
    assert rows["batch/write"]["seconds"] >= 0.1
    # each figure is rounded to the millisecond, so two of them may lose 1 ms between them
    assert rows["batch"]["seconds"] >= rows["batch/write"]["seconds"] + 0.04 - 0.001
    # own time is the phase less its children; without Spark it is all driver time
    own = rows["batch"]["seconds"] - rows["batch/write"]["seconds"]
    assert abs(rows["batch"]["own_seconds"] - own) < 0.002
    assert rows["batch"]["driver_seconds"] == rows["batch"]["own_seconds"]
    # sleeping is not CPU: the driver's CPU time is far below its wall time
    assert rows["batch/write"]["driver_cpu_seconds"] < rows["batch/write"]["seconds"] / 2
    # the top-level phases make the wall time: nothing ran outside them, nothing twice
    top = rows["batch"]["seconds"] + rows["finish"]["seconds"]
    assert top <= data["wall_seconds"] and data["outside_phases_seconds"] < 0.005
    # a child sorts under its parent, the slower sibling first
    assert [r["phase"] for r in data["phases"]] == ["batch", "batch/write", "finish"]


def test_markdown_names_every_phase_indented_under_its_parent() -> None:
    with (
        profiling.profiled("unit md") as profile,
        profiling.phase("validate"),
        profiling.phase("target scan"),
    ):
        pass
    text = profiling.render_markdown(profile.to_json())
    assert text.startswith("Profile of unit md (started 20")
    assert "| validate |" in text and "| &nbsp;&nbsp;target scan |" in text


def test_a_failing_phase_is_recorded_and_leaves_the_stack_clean() -> None:
    with profiling.profiled("unit raise") as profile:
        try:
            with profiling.phase("write"):
                raise RuntimeError("boom")
        except RuntimeError:
            pass
        with profiling.phase("journal"):
            pass
    rows = {r["phase"]: r for r in profile.to_json()["phases"]}
    assert set(rows) == {"write", "journal"}  # "journal" is not nested under the failed phase


def test_overlapping_jobs_count_once_in_a_phase() -> None:
    assert profiling._covered([(0.0, 2.0), (1.0, 3.0), (5.0, 6.0)]) == 4.0
    assert profiling._covered([(1.0, 2.0), (1.2, 1.5)]) == 1.0
    assert profiling._covered([]) == 0.0


PLAN = """== Physical Plan ==
OverwritePartitionsDynamic (12)
+- AdaptiveSparkPlan (11)
   +- == Final Plan ==
      * Sort (7)
      +- AQEShuffleRead (6)
         +- ShuffleQueryStage (5), Statistics(sizeInBytes=45.8 MiB)
            +- Exchange (4)
               +- CollectMetrics (3)
                  +- * ColumnarToRow (2)
                     +- Scan orc  (1)
   +- == Initial Plan ==
      Sort (10)
      +- Exchange (9)
         +- Scan orc  (8)


(1) Scan orc
Output [2]: [id#1, name#2]
"""


def test_plan_operators_are_the_final_plan_leaves_first() -> None:
    assert profiling.plan_operators(PLAN) == (
        "Scan orc",
        "ColumnarToRow",
        "CollectMetrics",
        "Exchange",
        "ShuffleQueryStage",
        "AQEShuffleRead",
        "Sort",
        "OverwritePartitionsDynamic",
    )
    assert profiling.plan_operators("== Physical Plan ==\nLocalTableScan (1)\n") == (
        "LocalTableScan",
    )

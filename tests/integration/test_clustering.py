"""A batch of few partitions is shuffled so that each partition has a task of its own (the
Iceberg writer then needs no sort by partition), whatever Spark's hash of its name: checked
against Spark's own hash and shuffle."""

from __future__ import annotations

from typing import Any

from lakeshift.formats.base import TargetFormat
from lakeshift.formats.spark_hash import spark_hash_int


def test_spark_hashes_ints_as_lakeshift_computes(spark: Any) -> None:
    values = [0, 1, -1, 12345, 2**31 - 1, -(2**31), *range(100, 140)]
    row = spark.sql("SELECT " + ", ".join(f"hash(CAST({v} AS INT))" for v in values)).first()
    assert list(row) == [spark_hash_int(v) for v in values]


def test_each_partition_gets_a_task_of_its_own(spark: Any) -> None:
    probe = _probe(spark)
    cap = 4 * spark.sparkContext.defaultParallelism
    for names in (["p=a", "p=b", "p=c", "p=d"], [f"p={i}" for i in range(cap)]):
        rows = [(n, i) for n in names for i in range(50)]
        frame = spark.createDataFrame(rows, "partitionpath STRING, i INT")
        assert probe.one_task_each(len(names))
        tasks = probe.clustered(frame, "partitionpath", names).rdd.glom().collect()
        assert sorted(len({r[0] for r in task}) for task in tasks) == [1] * len(names)
    # more partitions than tasks: hashed by name, every row kept
    names = [f"p={i}" for i in range(cap + 3)]
    frame = spark.createDataFrame([(n, 0) for n in names], "partitionpath STRING, i INT")
    assert not probe.one_task_each(len(names))
    tasks = probe.clustered(frame, "partitionpath", names).rdd.glom().collect()
    assert len(tasks) == cap and sum(map(len, tasks)) == len(names)


def test_a_window_by_partition_after_it_needs_the_plain_clustering(spark: Any) -> None:
    """Deterministic keys rank rows in a window by partition: clustered by the name itself,
    the window needs no shuffle of its own; by the numbered keys it would (two shuffles)."""
    from pyspark.sql import Window
    from pyspark.sql import functions as F

    probe = _probe(spark)
    names = ["p=a", "p=b", "p=c"]
    frame = spark.createDataFrame([(n, 1) for n in names], "partitionpath STRING, i INT")
    window = Window.partitionBy("partitionpath", "i").orderBy("i")
    # deterministic keys: by the name; random keys: the numbered keys (no window follows)
    for key_mode, shuffles in (("deterministic", 1), ("uuid", 2)):
        ranked = probe.clustered(frame, "partitionpath", names, key_mode).withColumn(
            "n", F.row_number().over(window)
        )
        plan = ranked._jdf.queryExecution().executedPlan().toString()
        assert plan.count("Exchange hashpartitioning") == shuffles, (key_mode, plan)
    assert probe.one_task_each(len(names)) and not probe.one_task_each(len(names), "deterministic")


def _probe(spark: Any) -> Any:
    """An object with only what ``clustered`` asks of a format."""

    class Probe:
        cluster_tasks = TargetFormat.cluster_tasks
        one_task_each = TargetFormat.one_task_each
        clustered = TargetFormat.clustered

        def __init__(self) -> None:
            self.spark = spark

    return Probe()

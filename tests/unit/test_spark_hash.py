"""Spark's hash partitioning of ints, computed here to give each partition of a batch a task
of its own (values from Spark 3.5's ``SELECT hash(CAST(v AS INT))``)."""

from __future__ import annotations

from lakeshift.formats.spark_hash import keys_for_tasks, spark_hash_int


def test_the_hash_is_sparks_murmur3_with_seed_42() -> None:
    assert [spark_hash_int(v) for v in (0, 1, 2)] == [933211791, -559580957, 1765031574]


def test_each_task_gets_one_key_and_the_keys_are_the_smallest() -> None:
    for tasks in (1, 2, 4, 8, 13):
        keys = keys_for_tasks(tasks)
        assert sorted(spark_hash_int(k) % tasks for k in keys) == list(range(tasks))
        # no smaller int reaches a task first
        for task, key in enumerate(keys):
            assert all(spark_hash_int(k) % tasks != task for k in range(key))
    assert keys_for_tasks(4) == (12, 6, 2, 0)

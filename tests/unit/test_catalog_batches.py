"""Batches fetched several at once: handed on in order, a bounded number ahead, failures where
they happened."""

from __future__ import annotations

import threading

import pytest

from lakeshift.metastore.batches import in_order, ramped


def test_answers_come_in_the_chunks_order_whichever_finishes_first() -> None:
    later_done = threading.Event()

    def fetch(chunk: int) -> list[str]:
        if chunk == 0:  # the first answer only after the second has been given
            assert later_done.wait(10)
        if chunk == 1:
            later_done.set()
        return [f"{chunk}a", f"{chunk}b"]

    got = list(in_order(fetch, range(4), calls=2))
    assert got == ["0a", "0b", "1a", "1b", "2a", "2b", "3a", "3b"]


@pytest.mark.parametrize("calls", [1, 2, 3])
def test_no_more_than_calls_batches_are_fetched_ahead_of_the_one_handed_on(calls: int) -> None:
    started: list[int] = []
    lock = threading.Lock()
    running = 0
    most_running = 0

    def fetch(chunk: int) -> list[int]:
        nonlocal running, most_running
        with lock:
            started.append(chunk)
            running += 1
            most_running = max(most_running, running)
        with lock:
            running -= 1
        return [chunk]

    for chunk in in_order(fetch, range(20), calls):
        with lock:
            ahead = max(started) - chunk
        assert ahead <= calls
    assert sorted(started) == list(range(20))
    assert most_running <= calls


def test_a_failed_fetch_raises_after_the_batches_before_it() -> None:
    def fetch(chunk: int) -> list[int]:
        if chunk == 2:
            raise LookupError("batch 2 is gone")
        return [chunk]

    got: list[int] = []
    with pytest.raises(LookupError, match="batch 2 is gone"):
        for item in in_order(fetch, range(6), calls=3):
            got.append(item)
    assert got == [0, 1]


def test_a_consumer_that_stops_leaves_no_fetch_queued() -> None:
    started: list[int] = []

    def fetch(chunk: int) -> list[int]:
        started.append(chunk)
        return [chunk]

    answers = in_order(fetch, range(100), calls=2)
    assert next(answers) == 0
    answers.close()
    assert len(started) <= 3  # the first, and at most two ahead of it


def test_batches_grow_from_a_small_first_one_to_the_batch_and_keep_every_item_once() -> None:
    items = list(range(5_000))
    batches = ramped(items, 2_000)
    assert [len(b) for b in batches] == [250, 500, 1000, 2000, 1250]
    assert [i for b in batches for i in b] == items
    assert [len(b) for b in ramped(items[:100], 2_000)] == [100]
    assert [len(b) for b in ramped(items[:10], 3)] == [3, 3, 3, 1]  # a batch below the first
    assert ramped([], 2_000) == []

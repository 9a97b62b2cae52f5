"""Batches of a catalog's answers fetched several at once and handed on in order.

A metastore answers one call at a time per connection, and between two calls it waits while
the caller decodes and uses the last answer. With more calls in flight the catalog works on
the next batches meanwhile (and on as many cores as it has). Both catalogs fetch partitions
this way (``partitions_by_names``): the Hive Metastore with one connection per call in flight,
Glue with concurrent requests on its one thread-safe client.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from typing import TypeVar

C = TypeVar("C")
R = TypeVar("R")
T = TypeVar("T")

#: The first batch of a fetch, at most: its caller waits for it with nothing to do.
FIRST_BATCH = 250


def ramped(items: Sequence[T], batch: int, first: int = FIRST_BATCH) -> list[list[T]]:
    """``items`` in consecutive batches growing from ``first`` (doubling) to ``batch``.

    Large batches cost a catalog less per item (the Hive Metastore compiles a call's
    statements anew, whatever its size), while the caller waits for the first one with
    nothing to do: 2,000 partitions took the embedded metastore 0.2-0.3 s, 250 about 0.05 s.
    """
    out: list[list[T]] = []
    size = max(1, min(first, batch))
    start = 0
    while start < len(items):
        out.append(list(items[start : start + size]))
        start += size
        size = min(batch, size * 2)
    return out


def in_order(fetch: Callable[[C], list[R]], chunks: Iterable[C], calls: int) -> Iterator[R]:
    """``fetch(chunk)`` for every chunk, the answers' items yielded in the chunks' order.

    At most ``calls`` fetches run at once, and no more than ``calls`` answers wait beside the
    one being yielded, so memory stays that of a few batches however many there are. A failed
    fetch raises where its answer would have been yielded (the batches before it are all
    yielded first, as when fetched one by one); ``calls`` of 1 fetches on the caller's thread.
    """
    if calls <= 1:
        for chunk in chunks:
            yield from fetch(chunk)
        return
    pool = ThreadPoolExecutor(max_workers=calls, thread_name_prefix="catalog-fetch")
    pending: deque[Future[list[R]]] = deque()
    remaining = iter(chunks)

    def submit_next() -> None:
        for chunk in remaining:
            pending.append(pool.submit(fetch, chunk))
            return

    try:
        for _ in range(calls):
            submit_next()
        while pending:
            answer = pending.popleft().result()
            submit_next()  # the next fetch runs while this answer is used
            yield from answer
    finally:
        # A consumer that stops early (or a failure) leaves no fetch queued; the ones already
        # running finish on their own connection.
        pool.shutdown(wait=True, cancel_futures=True)

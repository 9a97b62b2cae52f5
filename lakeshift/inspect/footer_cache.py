"""Footer facts kept between inspections of one process, by file identity.

``lakeshift follow`` inspects a table every pass, and ``migrate``, ``validate`` and ``switch``
each inspect it again; most files are the same every time. Inside ``with reusing(cache):`` an
inspection reads the footer only of a file it has not seen with this path, size and
modification time (and, for text files, the same reading parameters); the listing, which alone
shows what changed, is never skipped. Outside such a block nothing is kept.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Hashable, Iterable, Iterator
from contextlib import contextmanager
from contextvars import ContextVar

from lakeshift.inspect.model import FileInfo

#: Files remembered at most (about 1 KB each): past it the least recently used go first.
DEFAULT_ENTRIES = 500_000

Key = tuple[str, int, int, Hashable]


class FooterCache:
    """A bounded, thread-safe map from file identity to what its footer said."""

    def __init__(self, entries: int = DEFAULT_ENTRIES) -> None:
        self.entries = entries
        self._files: OrderedDict[Key, FileInfo] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.reads = 0

    def get(self, key: Key, read: Callable[[], FileInfo]) -> FileInfo:
        """The cached facts for ``key``, else ``read()`` (kept unless it failed: a file that
        could not be read is tried again next time)."""
        with self._lock:
            found = self._files.get(key)
            if found is not None:
                self._files.move_to_end(key)
                self.hits += 1
                return found
        info = read()
        with self._lock:
            self.reads += 1
        if info.error is None:
            self.put(key, info)
        return info

    def put(self, key: Key, info: FileInfo) -> None:
        """Remember ``info`` for ``key`` (facts saved by an earlier process)."""
        with self._lock:
            self._files[key] = info
            while len(self._files) > self.entries:
                self._files.popitem(last=False)

    def items(self) -> list[tuple[Key, FileInfo]]:
        """What the cache holds now, least recently used first (a copy)."""
        with self._lock:
            return list(self._files.items())

    def absorb(self, found: Iterable[tuple[Key, FileInfo]], hits: int, reads: int) -> None:
        """Take in what an inspection elsewhere (a Spark task) read and counted with a copy of
        part of this cache, as if it had used this one."""
        for key, info in found:
            self.put(key, info)
        with self._lock:
            self.hits += hits
            self.reads += reads


_active: ContextVar[FooterCache | None] = ContextVar("lakeshift_footer_cache", default=None)


def active() -> FooterCache | None:
    """The cache of the enclosing ``reusing`` block, if any."""
    return _active.get()


@contextmanager
def reusing(cache: FooterCache) -> Iterator[FooterCache]:
    """Let every inspection in the block reuse ``cache``."""
    token = _active.set(cache)
    try:
        yield cache
    finally:
        _active.reset(token)

"""``--partitions FILTER``: which partitions a command works on.

A filter is a comma-separated list of terms, each matched against the partition name
(``yyyymmdd=20220401``, multi-key names joined with ``/``):

* a glob: ``yyyymmdd=202204*``;
* an inclusive range on the last key's value: ``yyyymmdd=20220401..20220410``
  (compared as integers when both ends are integers, else as strings);
* ``NULL`` matches partitions with a NULL (default-name) value.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Iterable
from dataclasses import dataclass

from lakeshift.errors import UsageError
from lakeshift.metastore.partition_names import DEFAULT_PARTITION_NAME, parse_partition_name


@dataclass(frozen=True)
class PartitionFilter:
    """Glob/range/NULL ``terms``; or, when ``names`` is set, exactly those partition names."""

    terms: tuple[str, ...]
    names: frozenset[str] | None = None

    @classmethod
    def exactly(cls, names: Iterable[str]) -> PartitionFilter:
        """A filter for these partition names, taken literally (no glob, range or NULL)."""
        return cls((), frozenset(names))

    @classmethod
    def parse(cls, text: str | None) -> PartitionFilter:
        if text is None or not text.strip():
            return cls(())
        terms = tuple(t.strip() for t in text.split(",") if t.strip())
        for term in terms:
            if ".." in term and "=" not in term.split("..")[0]:
                raise UsageError(f"partition range {term!r} must look like key=FROM..TO")
        return cls(terms)

    def matches(self, name: str) -> bool:
        if self.names is not None:
            return name in self.names
        if not self.terms:
            return True
        return any(_term_matches(term, name) for term in self.terms)

    @property
    def is_everything(self) -> bool:
        return self.names is None and not self.terms

    def select(self, names: Iterable[str]) -> list[str]:
        return [n for n in names if self.matches(n)]


def _term_matches(term: str, name: str) -> bool:
    if term.upper() == "NULL":
        return DEFAULT_PARTITION_NAME in name
    if ".." in term:
        head, _, high = term.rpartition("..")
        prefix, _, low = head.rpartition("=")
        pairs = parse_partition_name(name)
        leading = "/".join(f"{k}={v}" for k, v in pairs[:-1])
        key, value = pairs[-1]
        expected_prefix = f"{leading}/{key}" if leading else key
        if prefix != expected_prefix or value is None:
            return False
        return _between(value, low, high)
    return fnmatch.fnmatchcase(name, term)


def _between(value: str, low: str, high: str) -> bool:
    try:
        return int(low) <= int(value) <= int(high)
    except ValueError:
        return low <= value <= high

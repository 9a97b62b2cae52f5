"""A Hive table being written while ``lakeshift follow`` runs, and a reader of its view.

The writer changes the table as real writers do and records, per partition, every row set
Hive shows after each change (with the time). The sampler reads the routing view again and
again, as a reader would. ``check_samples`` then holds each sample against the issue's two
rules: every sample of a partition is a state Hive showed for it, and a sample taken more
than ``tolerance`` seconds after a partition's last change equals Hive's rows at that moment.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc

from lakeshift.metastore.client import MetastoreClient
from tests.helpers.hive_tables import HiveTableBuilder

Rows = Counter[tuple[Any, ...]]
COLUMNS = (("id", "bigint"), ("name", "string"))


def rows(start: int, count: int) -> pa.Table:
    return pa.table(
        {
            "id": pa.array(range(start, start + count), pa.int64()),
            "name": pa.array([f"n{i}" for i in range(start, start + count)]),
        }
    )


def _multiset(table: pa.Table) -> Rows:
    return Counter(zip(table.column("id").to_pylist(), table.column("name").to_pylist()))


@dataclass
class LiveTable:
    """The table, and what Hive showed of each partition since it was built."""

    builder: HiveTableBuilder
    #: partition -> [(time, rows)]; None rows: the partition does not exist
    history: dict[str, list[tuple[float, Rows | None]]] = field(default_factory=dict)
    contents: dict[str, Rows] = field(default_factory=dict)
    _counter: int = 0

    @classmethod
    def create(
        cls, client: MetastoreClient, root: Path, db: str, name: str, days: int
    ) -> LiveTable:
        live = cls(HiveTableBuilder(client, root, db, name, COLUMNS))
        for day in range(1, days + 1):
            live.add(f"2024-03-{day:02d}", 20)
        return live

    @staticmethod
    def partition(day: str) -> str:
        return f"dt={day}"

    def _state(self, day: str, rows_now: Rows | None) -> None:
        self.history.setdefault(self.partition(day), []).append((time.time(), rows_now))

    def _next(self, count: int) -> pa.Table:
        self._counter += 1
        return rows(self._counter * 1000, count)

    def add(self, day: str, count: int) -> None:
        """A partition added through the metastore with one file."""
        data = self._next(count)
        self.builder.add_partition([day], {"000000_0": data})
        self.contents[day] = _multiset(data)
        self._state(day, Counter(self.contents[day]))

    def upload(self, day: str, count: int) -> None:
        """An ORC file dropped into the partition's directory, the metastore not told (an
        upload pipeline): written beside, then renamed in, as such tools publish."""
        data = self._next(count)
        directory = self.builder.partition_dir([day])
        staging = directory / f".upload_{self._counter}.tmp"
        orc.write_table(data, str(staging))
        staging.rename(directory / f"upload_{self._counter}.orc")
        self.contents[day] = self.contents[day] + _multiset(data)
        self._state(day, Counter(self.contents[day]))

    def overwrite(self, day: str, count: int) -> None:
        """``INSERT OVERWRITE``: new files in, the old ones out."""
        data = self._next(count)
        directory = self.builder.partition_dir([day])
        old = [p for p in directory.iterdir() if p.is_file()]
        orc.write_table(data, str(directory / f"000000_0_copy_{self._counter}"))
        for path in old:
            path.unlink()
        self.contents[day] = _multiset(data)
        self._state(day, Counter(self.contents[day]))

    def drop(self, day: str) -> None:
        """``ALTER TABLE DROP PARTITION`` of an external table: the entry goes, files stay."""
        self.builder.client.drop_partition(self.builder.db, self.builder.name, [day])
        del self.contents[day]
        self._state(day, None)


@dataclass
class Sample:
    at: float  # when the read started
    done: float  # when it ended
    partitions: dict[str, Rows]


class Sampler(threading.Thread):
    """Reads the routing view in a loop (Spark's caches refreshed each time) until stopped."""

    def __init__(self, spark: Any, view: str, source: str, pause: float = 0.5) -> None:
        super().__init__(name="view-reader", daemon=True)
        self.spark, self.view, self.source, self.pause = spark, view, source, pause
        self.samples: list[Sample] = []
        self.errors: list[str] = []
        self._halt = threading.Event()

    def run(self) -> None:
        while not self._halt.is_set():
            started = time.time()
            try:
                self.spark.sql(f"REFRESH TABLE {self.source}")
                self.spark.sql(f"REFRESH TABLE {self.view}")
                got = self.spark.sql(f"SELECT id, name, dt FROM {self.view}").collect()
            except Exception as e:  # a view replaced mid-read is read again; kept to report
                self.errors.append(repr(e)[:300])
                continue
            found: dict[str, Rows] = {}
            for r in got:
                found.setdefault(f"dt={r['dt']}", Counter())[(r["id"], r["name"])] += 1
            self.samples.append(Sample(started, time.time(), found))
            self._halt.wait(self.pause)

    def wait_for(self, count: int, *, after: float, timeout: float = 180) -> None:
        """Until ``count`` samples started after ``after`` (or ``timeout`` seconds)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and self.is_alive():
            if sum(1 for s in self.samples if s.at > after) >= count:
                return
            time.sleep(0.2)

    def stop(self) -> None:
        self._halt.set()
        self.join(timeout=120)


def check_samples(live: LiveTable, samples: list[Sample], tolerance: float) -> dict[str, int]:
    """Assert the two rules over every sample; returns how many samples each rule checked."""
    checked = {"states": 0, "current": 0}
    for sample in samples:
        for partition, states in live.history.items():
            seen = sample.partitions.get(partition)
            shown = [rows_then for at, rows_then in states if at <= sample.done]
            # A state this sample may show: any Hive showed up to its end, and the one
            # before the first change during it (for a partition added during the sample:
            # none at all, as Hive showed before the add).
            allowed = [r or None for r in shown]
            if not shown or states[0][0] > sample.at:
                allowed.append(None)
            got = seen if seen else None
            assert got in allowed, (
                f"{partition} at {sample.at:.2f}: the view served {_brief(got)}, never Hive's "
                f"(Hive showed {[_brief(r) for r in allowed]})"
            )
            checked["states"] += 1
            last_change = max(at for at, _ in states)
            if sample.at > last_change + tolerance:
                assert got == (shown[-1] or None), (
                    f"{partition} at {sample.at:.2f}, {sample.at - last_change:.1f}s after its "
                    f"last change: the view served {_brief(got)}, Hive {_brief(shown[-1])}"
                )
                checked["current"] += 1
    return checked


def _brief(found: Rows | None) -> str:
    if not found:
        return "no rows"
    return f"{sum(found.values())} rows ({min(found)[0]}..{max(found)[0]})"

"""Deterministic rows and ORC files for ``sample.click_log``.

Every value comes from a seeded generator, so the files are byte-for-byte reproducible and the
rows Hive shows for each partition can be stated independently of lakeshift's own reader.
"""

from __future__ import annotations

import datetime as dt
import random
import zlib
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc

from lakeshift.hive.types import parse_hive_type, to_arrow
from lakeshift.sample.click_log_spec import (
    SCHEMA_VERSIONS,
    TABLE_COLUMNS,
    FileSpec,
    PartitionSpec,
)

# Logical columns: `price` and `bid_price` are one column renamed.
LOGICAL = [name for name, _ in TABLE_COLUMNS]
_RENAMES = {"price": "bid_price"}
_TAGS = ["sports", "news", "retail", "travel", "games", "финансы", "食品", ""]
_COUNTRIES = ["US", "DE", "FR", "BR", "JP", "Côte d'Ivoire", "", None]
_OS = ["android", "ios", "windows", None]


def logical_name(name: str) -> str:
    return _RENAMES.get(name, name)


def _seed(partition: PartitionSpec, file: FileSpec) -> int:
    return zlib.crc32(f"{partition.value}/{file.subdir}/{file.name}".encode())


def logical_rows(partition: PartitionSpec, file: FileSpec) -> list[dict[str, Any]]:
    """All logical column values of one file's rows, whatever the file physically holds."""
    rng = random.Random(_seed(partition, file))
    day = dt.date(2022, 4, int(partition.value[-2:])) if partition.value else dt.date(2022, 3, 31)
    file_tag = f"{file.subdir[-1:] or 'r'}{file.name}"
    rows = []
    for i in range(file.rows):
        ts = dt.datetime.combine(day, dt.time()) + dt.timedelta(
            seconds=rng.randrange(86400), microseconds=rng.randrange(1_000_000)
        )
        tags: list[str | None] | None = [rng.choice(_TAGS) for _ in range(rng.randrange(4))]
        if rng.random() < 0.03 and tags is not None:
            tags.append(None)
        attrs: list[tuple[str, str | None]] | None = [
            (f"k{j}", rng.choice(["a", "b", None])) for j in range(rng.randrange(3))
        ]
        rows.append(
            {
                "event_id": f"{partition.value or 'null'}-{file_tag}-{i:05d}",
                "user_id": None if rng.random() < 0.02 else rng.randrange(1, 10**12),
                "ad_id": rng.randrange(1, 50_000),
                "bid_price": None if rng.random() < 0.02 else round(rng.uniform(0.01, 5.0), 4),
                "cost": Decimal(rng.randrange(0, 2_000_000)).scaleb(-4),
                "is_click": None if rng.random() < 0.01 else rng.random() < 0.1,
                "event_date": ts.date(),
                "event_ts": ts,
                "tags": None if rng.random() < 0.05 else tags,
                "attrs": None if rng.random() < 0.05 else attrs,
                "device": None
                if rng.random() < 0.03
                else {
                    "os": rng.choice(_OS),
                    "model": f"m{rng.randrange(40)}",
                    "app_version": f"{rng.randrange(1, 6)}.{rng.randrange(10)}",
                },
                "country": rng.choice(_COUNTRIES),
                "dwell_ms": None if rng.random() < 0.1 else rng.randrange(0, 600_000),
            }
        )
    return rows


def file_table(partition: PartitionSpec, file: FileSpec) -> pa.Table:
    """The Arrow table physically written to one ORC file."""
    columns = SCHEMA_VERSIONS[file.version]
    rows = logical_rows(partition, file)
    arrays, names = [], []
    for position, (name, hive_type) in enumerate(columns):
        arrow_type = to_arrow(parse_hive_type(hive_type))
        arrays.append(pa.array([r[logical_name(name)] for r in rows], type=arrow_type))
        names.append(f"_col{position}" if file.positional else name)
    return pa.Table.from_arrays(arrays, names=names)


def hive_view_rows(
    partition: PartitionSpec, file: FileSpec, *, into_table: bool = True
) -> list[dict[str, Any]]:
    """The rows Hive shows for one file, in the table's current columns.

    Stated from how the sample was built, independently of lakeshift's reader. Hive 2.1+
    (``into_table``, schema evolution, the default) reads the ORC file with the table's
    columns: a column shows its value where the file holds a column of that name (``_colN``
    files: of that position); a renamed column's old files show NULL. Hive 1.2 reads with the
    partition's own columns, then converts by position: a column shows its value only if
    both the partition's columns and the file's hold it.
    """
    file_columns = SCHEMA_VERSIONS[file.version]
    if into_table and file.positional:
        visible = set(LOGICAL[: len(file_columns)])
    elif into_table:
        visible = {name for name, _ in file_columns} & set(LOGICAL)
    else:
        partition_cols = {logical_name(n) for n, _ in SCHEMA_VERSIONS[partition.version]}
        visible = partition_cols & {logical_name(n) for n, _ in file_columns}
    result = []
    for row in logical_rows(partition, file):
        view = {name: (row[name] if name in visible else None) for name in LOGICAL}
        view["yyyymmdd"] = partition.value
        result.append(view)
    return result


def write_file(partition: PartitionSpec, file: FileSpec, path: Path) -> int:
    """Write one ORC file; returns its row count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    table = file_table(partition, file)
    orc.write_table(table, str(path), compression="zlib", stripe_size=64 * 1024 * 1024)
    return table.num_rows

"""Generate a Hive external ORC table of your own size to try lakeshift on (``sample generate``).

The table looks like an ordinary daily-partitioned fact table: ``orders(order_id bigint,
customer string, amount decimal(12,2), status string, created_at timestamp)`` partitioned by
``dt string`` (``2024-01-01``, ``2024-01-02``, ...). With ``drift`` the later half of the
partitions was written after ``ALTER TABLE ... ADD COLUMNS (channel string)`` without CASCADE:
the table has the column, the older partitions' metastore entries and files do not, so Hive
shows NULL there, which is what the migration must reproduce. With ``text_partitions`` the
oldest partitions are kept as Hive text files (LazySimpleSerDe, ``|`` between fields, ``\\N`` for
NULL), as tables converted to ORC often keep them. Values come from a seeded generator, so the
same arguments always give the same rows.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path

import pyarrow as pa
import pyarrow.orc as orc

from lakeshift.errors import RefusedInput
from lakeshift.inspect.inspector import split_table_name
from lakeshift.metastore import ddl
from lakeshift.metastore.catalog import CatalogClient

BASE_COLUMNS = (
    ("order_id", "bigint"),
    ("customer", "string"),
    ("amount", "decimal(12,2)"),
    ("status", "string"),
    ("created_at", "timestamp"),
)
DRIFT_COLUMN = ("channel", "string")
PARTITION_KEY = ("dt", "string")
FIRST_DAY = date(2024, 1, 1)
_STATUSES = ("new", "paid", "shipped", "returned", None)
_CHANNELS = ("web", "app", "store", None)


@dataclass(frozen=True)
class GeneratedTable:
    table: str
    location: Path
    partitions: int
    files: int
    rows: int
    drift_from: str | None


def _rows(rng: random.Random, day: date, index: int, count: int, drift: bool) -> pa.Table:
    start = datetime(day.year, day.month, day.day)
    data: dict[str, pa.Array] = {
        "order_id": pa.array([index * 10_000_000 + i for i in range(count)], pa.int64()),
        "customer": pa.array([f"c{rng.randrange(50_000):05d}" for _ in range(count)]),
        "amount": pa.array(
            [Decimal(rng.randrange(-5_000, 5_000_000)).scaleb(-2) for _ in range(count)],
            pa.decimal128(12, 2),
        ),
        "status": pa.array([rng.choice(_STATUSES) for _ in range(count)], pa.string()),
        "created_at": pa.array(
            [start + timedelta(seconds=rng.randrange(86_400)) for _ in range(count)],
            pa.timestamp("ms"),
        ),
    }
    if drift:
        data["channel"] = pa.array([rng.choice(_CHANNELS) for _ in range(count)], pa.string())
    return pa.table(data)


TEXT_DELIMITER = "|"


def _text_lines(table: pa.Table) -> str:
    """Rows as Hive's text SerDe writes them: ``|`` between fields, ``\\N`` for NULL."""
    lines = []
    for row in table.to_pylist():
        fields = []
        for value in row.values():
            if value is None:
                fields.append("\\N")
            elif isinstance(value, datetime):
                fields.append(value.strftime("%Y-%m-%d %H:%M:%S.%f")[:-3])
            else:
                fields.append(str(value))
        lines.append(TEXT_DELIMITER.join(fields))
    return "\n".join(lines) + "\n"


def generate_table(
    client: CatalogClient,
    qualified: str,
    location: Path,
    *,
    partitions: int,
    rows_per_partition: int,
    files_per_partition: int = 2,
    drift: bool = False,
    seed: int = 7,
    text_partitions: int = 0,
) -> GeneratedTable:
    """Write the ORC files under ``location`` and register the external table and partitions."""
    db, name = split_table_name(qualified)
    if client.table_exists(db, name):
        raise RefusedInput(
            f"table {db}.{name} already exists; lakeshift will not overwrite it.",
            hint="Pick another name, or drop the table first if it is a generated one.",
        )
    if location.exists() and any(location.iterdir()):
        raise RefusedInput(
            f"{location} is not empty; generated tables need a directory of their own.",
            hint="Pass --location with a new directory.",
        )
    rng = random.Random(seed)
    drift_from = partitions // 2 if drift else partitions
    columns = (*BASE_COLUMNS, DRIFT_COLUMN) if drift else BASE_COLUMNS
    location.mkdir(parents=True, exist_ok=True)
    registered = []
    total = files = 0
    for index in range(partitions):
        day = FIRST_DAY + timedelta(days=index)
        directory = location / f"dt={day.isoformat()}"
        directory.mkdir()
        has_drift = index >= drift_from
        # Partition sizes vary around the asked-for size, like real daily partitions.
        spread = rows_per_partition // 4
        count = max(1, rows_per_partition + rng.randint(-spread, spread))
        table = _rows(rng, day, index, count, has_drift)
        per_file = -(-count // max(1, files_per_partition))
        text = index < text_partitions
        for part, offset in enumerate(range(0, count, per_file)):
            piece = table.slice(offset, per_file)
            if text:
                (directory / f"{part:06d}_0").write_text(_text_lines(piece))
            else:
                orc.write_table(piece, str(directory / f"{part:06d}_0"))
            files += 1
        total += count
        own_columns = columns if has_drift else BASE_COLUMNS
        registered.append(
            ddl.partition(
                db,
                name,
                [day.isoformat()],
                own_columns,
                ddl.location_uri(directory),
                "text" if text else "orc",
                serde_parameters={"field.delim": TEXT_DELIMITER} if text else None,
            )
        )
    ddl.ensure_database(client, db)
    client.create_table(
        ddl.external_table(db, name, columns, (PARTITION_KEY,), ddl.location_uri(location))
    )
    for start in range(0, len(registered), 500):
        client.add_partitions(registered[start : start + 500])
    first_drift = (FIRST_DAY + timedelta(days=drift_from)).isoformat() if drift else None
    return GeneratedTable(f"{db}.{name}", location, partitions, files, total, first_drift)

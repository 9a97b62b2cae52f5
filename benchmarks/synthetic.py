"""Synthetic Hive ORC tables of configurable size, registered in a real metastore."""

from __future__ import annotations

import contextlib
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import pyarrow as pa
import pyarrow.orc as orc

from lakeshift.errors import NotFound
from lakeshift.metastore import ddl
from lakeshift.metastore.client import MetastoreClient

COLUMNS = (("id", "bigint"), ("name", "string"), ("amount", "double"), ("ts", "timestamp"))


@dataclass(frozen=True)
class SyntheticTable:
    qualified_name: str
    partitions: int
    files_per_partition: int
    rows_per_file: int
    location: Path
    seconds_to_build: float

    bytes: int = 0

    @property
    def rows(self) -> int:
        return self.partitions * self.files_per_partition * self.rows_per_file


def _template(path: Path, rows: int) -> None:
    table = pa.table(
        {
            "id": pa.array(range(rows), pa.int64()),
            "name": [f"n{i % 977}" for i in range(rows)],
            "amount": [i * 0.25 for i in range(rows)],
            "ts": pa.array([i * 1_000_000 for i in range(rows)], pa.timestamp("us")),
        }
    )
    orc.write_table(table, str(path))


def build_table(
    client: MetastoreClient,
    root: Path,
    name: str,
    *,
    partitions: int,
    files_per_partition: int,
    rows_per_file: int,
    db: str = "bench",
) -> SyntheticTable:
    """Write ``partitions x files`` ORC files (copies of one template) and register them."""
    started = time.monotonic()
    location = root / db / name
    if client.table_exists(db, name):
        # a drop that outlasted the socket's timeout is retried, and finds it done
        with contextlib.suppress(NotFound):
            client.drop_table(db, name)
    shutil.rmtree(location, ignore_errors=True)
    location.mkdir(parents=True)
    template = root / f"{name}.template.orc"
    _template(template, rows_per_file)
    ddl.ensure_database(client, db)
    client.create_table(
        ddl.external_table(db, name, COLUMNS, (("p", "int"),), ddl.location_uri(location))
    )
    batch = []
    for index in range(partitions):
        directory = location / f"p={index}"
        directory.mkdir()
        for file_index in range(files_per_partition):
            shutil.copyfile(template, directory / f"{file_index:06d}_0")
        batch.append(ddl.partition(db, name, [str(index)], COLUMNS, ddl.location_uri(directory)))
        if len(batch) == 500:
            client.add_partitions(batch)
            batch = []
    client.add_partitions(batch)
    return SyntheticTable(
        f"{db}.{name}",
        partitions,
        files_per_partition,
        rows_per_file,
        location,
        round(time.monotonic() - started, 2),
        template.stat().st_size * partitions * files_per_partition,
    )


def drop_lake_table(client: MetastoreClient, target: str, journal: Path) -> None:
    """Forget a lakeshift target of an earlier run (its entry, its routing table, its files and
    its journal), so that a re-run of the benchmark times a fresh migration, not a re-backfill."""
    from lakeshift.storage import Store

    db, _, name = target.partition(".")
    for table in (name, f"{name}_current"):
        if client.table_exists(db, table):
            location = client.get_table(db, table).sd.location
            client.drop_table(db, table)
            if table == name and location:
                Store(location).delete_dir("")
    journal.unlink(missing_ok=True)

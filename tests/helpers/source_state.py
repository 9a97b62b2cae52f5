"""Snapshot a Hive table's metastore entry and files, to prove lakeshift never changed them."""

from __future__ import annotations

from pathlib import Path

from lakeshift.metastore.client import MetastoreClient
from lakeshift.storage import filesystem_for


def source_snapshot(client: MetastoreClient, db: str, table: str) -> tuple[object, ...]:
    entry = client.get_table(db, table)
    names = client.partition_names(db, table)
    partitions = list(client.partitions_by_names(db, table, names))
    files = []
    roots = {filesystem_for(p.sd.location)[1] for p in partitions} | {
        filesystem_for(entry.sd.location)[1]
    }
    for root in sorted(roots):
        for path in sorted(Path(root).rglob("*")):
            if path.is_file():
                stat = path.stat()
                files.append((str(path), stat.st_size, stat.st_mtime_ns, path.read_bytes()))
    entry.parameters.pop("transient_lastDdlTime", None)
    return repr(entry), sorted(repr(p) for p in partitions), files

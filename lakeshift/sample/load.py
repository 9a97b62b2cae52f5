"""Register ``sample.click_log`` with partition-level descriptors as Hive has them."""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lakeshift.metastore import ddl
from lakeshift.metastore.client import MetastoreClient
from lakeshift.sample.click_log_spec import NULL_PARTITION
from lakeshift.sample.generate import MANIFEST, generate

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class LoadResult:
    table: str
    location: str
    partitions: int
    unregistered_dirs: int
    rows: int
    created: bool


def bundled_sample_dir() -> Path | None:
    """``sample_data/click_log`` of a source checkout, when lakeshift runs from one."""
    candidate = Path(__file__).resolve().parents[2] / "sample_data" / "click_log"
    return candidate if (candidate / MANIFEST).is_file() else None


def stage_files(dest: Path, source: Path | None = None) -> dict[str, Any]:
    """Put the sample's files under ``dest`` (copied from ``source`` or generated)."""
    if (dest / MANIFEST).is_file():
        manifest: dict[str, Any] = json.loads((dest / MANIFEST).read_text())
        return manifest
    source = source or bundled_sample_dir()
    if source is not None:
        shutil.copytree(source, dest, dirs_exist_ok=True)
        return json.loads((dest / MANIFEST).read_text())  # type: ignore[no-any-return]
    return generate(dest)


def load_sample(
    client: MetastoreClient, home: Path, *, replace: bool = False, source: Path | None = None
) -> LoadResult:
    """Load ``sample.click_log``: files under ``home/data``, table and partitions registered."""
    root = home / "data" / "click_log"
    if replace and root.exists():
        shutil.rmtree(root)
    manifest = stage_files(root, source)
    db, name = str(manifest["database"]), str(manifest["table"])
    ddl.ensure_database(client, db, ddl.location_uri(home / "warehouse" / f"{db}.db"))
    exists = client.table_exists(db, name)
    if exists and replace:
        client.drop_table(db, name, delete_data=False)
    created = not exists or replace
    partitions = manifest["partitions"]
    assert isinstance(partitions, list)
    if created:
        table_location = ddl.location_uri(root / str(manifest["table_location"]))
        client.create_table(
            ddl.external_table(
                db,
                name,
                _columns(manifest["columns"]),
                _columns(manifest["partition_keys"]),
                table_location,
                parameters={"comment": "ad click log (lakeshift sample)"},
            )
        )
        client.add_partitions(
            [
                ddl.partition(
                    db,
                    name,
                    [p["value"] if p["value"] is not None else NULL_PARTITION],
                    _columns(p["columns"]),
                    ddl.location_uri(root / p["location"]),
                    parameters=_stats(p, root),
                )
                for p in partitions
                if p["registered"]
            ]
        )
        log.info("loaded %s.%s", db, name)
    registered = [p for p in partitions if p["registered"]]
    return LoadResult(
        table=f"{db}.{name}",
        location=str(root / str(manifest["table_location"])),
        partitions=len(registered),
        unregistered_dirs=len(partitions) - len(registered),
        rows=sum(int(p["rows"]) for p in registered),
        created=created,
    )


def _columns(raw: object) -> list[tuple[str, str]]:
    assert isinstance(raw, list)
    return [(str(n), str(t)) for n, t in raw]


def _stats(entry: dict[str, object], root: Path) -> dict[str, str]:
    """Basic statistics the way Hive's stats autogather records them."""
    directory = root / str(entry["location"])
    files = entry["files"]
    assert isinstance(files, list)
    sizes = [(directory / f["path"]).stat().st_size for f in files]
    return {
        "numFiles": str(len(sizes)),
        "totalSize": str(sum(sizes)),
        "numRows": str(entry["num_rows_stat"]),
        "COLUMN_STATS_ACCURATE": '{"BASIC_STATS":"true"}',
    }

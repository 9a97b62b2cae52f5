"""Register ``sample.click_log`` with partition-level descriptors as Hive has them."""

from __future__ import annotations

import json
import logging
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lakeshift.metastore import ddl
from lakeshift.metastore.catalog import CatalogClient
from lakeshift.sample.click_log_spec import NULL_PARTITION
from lakeshift.sample.generate import MANIFEST, generate
from lakeshift.storage import StorageOptions, Store

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
    client: CatalogClient,
    home: Path,
    *,
    replace: bool = False,
    source: Path | None = None,
    location: str | None = None,
    database: str | None = None,
    warehouse: str | None = None,
    storage: StorageOptions | None = None,
) -> LoadResult:
    """Load ``sample.click_log``: files under ``home/data``, table and partitions registered.

    Args:
        location: put the files there instead (any store: ``s3a://bucket/prefix``...).
        database: register the table in this database instead of the manifest's.
        warehouse: where a new database's own location goes (default ``home/warehouse``).
        storage: how to reach ``location``'s store (default: this process's options).
    """
    root = home / "data" / "click_log"
    if replace and root.exists():
        shutil.rmtree(root)
    manifest = stage_files(root, source)
    root_uri = ddl.location_uri(root)
    if location is not None:
        root_uri = location.rstrip("/")
        _upload(root, Store(root_uri, storage))
    db, name = database or str(manifest["database"]), str(manifest["table"])
    base = warehouse.rstrip("/") if warehouse else ddl.location_uri(home / "warehouse")
    ddl.ensure_database(client, db, f"{base}/{db}.db")
    exists = client.table_exists(db, name)
    if exists and replace:
        client.drop_table(db, name, delete_data=False)
    created = not exists or replace
    partitions = manifest["partitions"]
    assert isinstance(partitions, list)
    if created:
        table_location = f"{root_uri}/{manifest['table_location']}"
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
                    f"{root_uri}/{p['location']}",
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
        location=f"{root_uri}/{manifest['table_location']}"
        if location is not None
        else str(root / str(manifest["table_location"])),
        partitions=len(registered),
        unregistered_dirs=len(partitions) - len(registered),
        rows=sum(int(p["rows"]) for p in registered),
        created=created,
    )


def _upload(root: Path, store: Store) -> None:
    """Copy the staged files to ``store`` (each once: a re-run skips what is there)."""
    present = {f.path for f in store.list_files()}
    for path in sorted(p for p in root.rglob("*") if p.is_file()):
        relative = path.relative_to(root).as_posix()
        if relative not in present:
            store.write(relative, path.read_bytes())


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

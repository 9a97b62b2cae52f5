"""Build the :class:`TableInventory` of one Hive table."""

from __future__ import annotations

import gc
import json
import logging
import os
import re
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from concurrent.futures import Future, ThreadPoolExecutor
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

import pyarrow.fs as pafs

from lakeshift.config import Settings
from lakeshift.errors import NotFound, UsageError
from lakeshift.inspect import footer_cache, spread
from lakeshift.inspect.anomalies import Rules, many_small_files, schema_drift
from lakeshift.inspect.files import TableTree, is_hidden, list_table_tree
from lakeshift.inspect.footer_cache import FooterCache
from lakeshift.inspect.key_values import key_anomalies
from lakeshift.inspect.model import (
    SEVERITY_WARNING,
    Anomaly,
    Column,
    PartitionInfo,
    TableInventory,
    partition_json,
)
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.inspect.partition_job import (
    PartitionJob,
    TableFacts,
    columns_of,
    footer_key,
    inspect_partition,
    partition_job,
)
from lakeshift.inspect.table_checks import check_supported, storage_format, table_warnings
from lakeshift.metastore.catalog import CatalogClient
from lakeshift.metastore.partition_names import DEFAULT_PARTITION_NAME, partition_name
from lakeshift.storage import filesystem_for
from lakeshift.storage.location import parse
from lakeshift.storage.store import StorageUnavailable, translate, unreachable
from lakeshift.text.layout import read_as_text

if TYPE_CHECKING:
    from hive_metastore.ttypes import Partition, Table
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)
Progress = Callable[[int, int, str], None]


#: What Hive's metastore accepts as a database or table name (MetaStoreUtils.validateName).
_HIVE_NAME = re.compile(r"[A-Za-z0-9_]+")


def split_table_name(qualified: str) -> tuple[str, str]:
    db, sep, table = qualified.partition(".")
    if not sep or not db or not table or "." in table:
        raise UsageError(
            f"table name {qualified!r} must be DATABASE.TABLE",
            hint="Name the database too, e.g. sales.orders.",
        )
    if not (_HIVE_NAME.fullmatch(db) and _HIVE_NAME.fullmatch(table)):
        raise UsageError(
            f"{qualified!r} is not a Hive table name: Hive names hold only letters, digits and "
            "underscores.",
            hint="Check the name (no quotes, spaces or punctuation), e.g. sales.orders.",
        )
    return db.lower(), table.lower()


def source_table(client: CatalogClient, qualified_name: str) -> Table:
    """The metastore entry of a table lakeshift can migrate (metastore only: fast, no files).

    Commands call it before starting Spark, so a missing or unsupported table is reported at
    once instead of after Spark's start-up.

    Raises:
        UsageError: the name is not ``DB.TABLE``.
        NotFound: the database or table does not exist.
        UnsupportedTable: views, ACID, bucketed or non-ORC tables.
    """
    db, name = split_table_name(qualified_name)
    table: Table = client.get_table(db, name)
    check_supported(table)
    return table


def seed_footers(cache: FooterCache, inventory: TableInventory) -> int:
    """Put the footer facts of a saved inventory's ORC and Parquet files into ``cache`` (a new
    process then reads only the footers of files changed since); returns how many."""
    seeded = 0
    for p in inventory.partitions:
        if read_as_text(p.format, p.serde) or not p.location:
            continue
        fs, root = filesystem_for(p.location)
        for f in p.files:
            if f.error is None and f.format in ("orc", "parquet"):
                cache.put(footer_key(fs, root, f.path, f.size, f.mtime_ns, None), f)
                seeded += 1
    return seeded


_CHUNK = 32  # partitions a thread inspects per task
_CHUNKS_WAITING = 4  # chunks submitted per thread and not yet collected, at most


def _partition_values(p: Partition) -> tuple[str | None, ...]:
    return tuple(None if v == DEFAULT_PARTITION_NAME else v for v in p.values)


def _unregistered_dirs(
    table_root: str, depth: int, registered: set[str], tree: TableTree | None = None
) -> list[str]:
    """Partition-like directories (``k=v`` at each level) under the root that are not registered."""
    if depth == 0:
        return []
    fs, root = filesystem_for(table_root)
    if tree is not None:  # the table's one listing already holds every directory
        base = tree.root + "/"
        return sorted(
            d[len(base) :]
            for d in tree.directories
            if d not in registered
            and all("=" in part and not is_hidden(part) for part in d[len(base) :].split("/"))
        )
    base = root.rstrip("/")
    level = [base]
    for remaining in range(depth - 1, -1, -1):
        children: list[str] = []
        for directory in level:
            for child in _partition_like_children(fs, directory):
                # the last level keeps only what is not registered: a table's whole listing
                # held at once was most of inspect's peak memory (100,000 partitions: 43 MB)
                if remaining or child not in registered:
                    children.append(child)
        level = children
    return sorted(d[len(base) + 1 :] for d in level)


def _partition_like_children(fs: pafs.FileSystem, directory: str) -> Iterator[str]:
    """The ``k=v`` directories in ``directory``, not hidden. A local directory is read entry
    by entry (``os.scandir``): pyarrow's listing builds every entry's record at once."""
    try:
        if isinstance(fs, pafs.LocalFileSystem):
            with os.scandir(directory) as entries:
                for entry in entries:
                    name = entry.name
                    if "=" in name and not is_hidden(name) and entry.is_dir():
                        yield f"{directory}/{name}"
            return
        infos = fs.get_file_info(pafs.FileSelector(directory, allow_not_found=True))
    except FileNotFoundError:  # as pyarrow's listing allows: nothing there
        return
    except OSError as e:
        log.warning("cannot list %s: %s", directory, e)
        return
    for info in infos:
        name = info.base_name
        if info.type == pafs.FileType.Directory and "=" in name and not is_hidden(name):
            yield info.path.rstrip("/")


#: Partitions from which the table root is listed at once on an object store (fewer: each alone).
TREE_MIN_PARTITIONS = 3


def _listings(partitions: Sequence[PartitionInfo], tree: TableTree | None) -> int:
    if tree is None:
        return len(partitions)
    alone = sum(1 for p in partitions if not tree.holds(*filesystem_for(p.location)))
    return 1 + alone


def _table_tree(fs: pafs.FileSystem, root: str, depth: int) -> TableTree | None:
    """The table root listed once, on an object store (where each listing is a request); on a
    local disk listing each partition costs the same and holds less in memory."""
    if isinstance(fs, pafs.LocalFileSystem):
        return None
    try:
        return list_table_tree(fs, root, depth)
    except OSError as e:
        if not isinstance(e, PermissionError) and unreachable(e):
            # The store is down: listing each partition would wait out the retries again
            # for every one of them.
            raise translate(e) or StorageUnavailable(str(e)) from e
        # Refused at the root (a policy scoped to prefixes): each partition is listed alone
        # and reports its own result.
        log.warning("cannot list the table root %s at once (%s): listing each partition", root, e)
        return None


@contextmanager
def _collector_paused() -> Iterator[None]:
    """Python's cycle collector paused while the inventory's records are built, and resumed
    after (as it was). The records live as long as the inventory and form no cycles, yet
    every full collection walks them all again, with whatever else the process holds: with
    a million objects held, 0.2-0.4 s of a 10,000-partition inspection's 2.3 s."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _inspect_on_driver(
    jobs: Iterator[PartitionJob],
    facts: TableFacts,
    cache: FooterCache | None,
    workers: int,
    progress: Progress | None,
) -> list[PartitionInfo]:
    def inspect_chunk(chunk: list[PartitionJob]) -> list[PartitionInfo]:
        return [inspect_partition(job, facts, cache) for job in chunk]

    results: list[PartitionInfo] = []
    if workers == 1:
        # One thread: the partitions are inspected on this one, as the catalog's answers
        # arrive (its fetches run beside it, ``partitions_by_names``). A pool of one thread
        # only handed each chunk over, and the two threads took turns at the interpreter.
        for done, chunk in enumerate(spread.chunked(jobs, _CHUNK), start=1):
            results.extend(inspect_chunk(chunk))
            if progress:
                progress(done, done, results[-1].name if results else "")
        return results
    # Submitted as metastore batches arrive, so file work overlaps the metastore's calls; in
    # chunks, since a future per partition cost more than a small partition's footers. At
    # most a few chunks per thread wait, so a metastore faster than the files does not pile
    # the table's jobs up in the pool's queue (``partitions_by_names`` fetches a bounded
    # number of batches ahead while this waits).
    waiting: deque[Future[list[PartitionInfo]]] = deque()
    submitted = done = 0

    def collect() -> None:
        nonlocal done
        results.extend(waiting.popleft().result())
        done += 1
        if progress:
            progress(done, submitted, results[-1].name if results else "")

    with ThreadPoolExecutor(max_workers=workers) as pool:
        for chunk in spread.chunked(jobs, _CHUNK):
            waiting.append(pool.submit(inspect_chunk, chunk))
            submitted += 1
            if len(waiting) > _CHUNKS_WAITING * workers:
                collect()
        while waiting:
            collect()
    return results


def inspect_table(
    client: CatalogClient,
    qualified_name: str,
    settings: Settings,
    *,
    partition_filter: PartitionFilter | None = None,
    progress: Progress | None = None,
    spark: Callable[[], SparkSession] | None = None,
) -> TableInventory:
    """Inspect ``db.table``: metastore entries, files, footers, fingerprints and anomalies.

    Reads only; nothing is written anywhere (the caller may save the inventory).

    Args:
        spark: the command's Spark session (called only when the inspection is spread over
            its executors: ``inspect_on``); None inspects on the driver.

    Raises:
        NotFound: the database or table does not exist.
        UnsupportedTable: views, ACID, bucketed or non-ORC tables.
    """
    started = time.monotonic()
    db, name = split_table_name(qualified_name)
    table = source_table(client, qualified_name)
    keys = tuple(Column(k.name, k.type) for k in (table.partitionKeys or []))
    table_fs, table_root = filesystem_for(table.sd.location)
    facts = TableFacts(
        root=table_root,
        columns=columns_of(table.sd),
        format=storage_format(table.sd.inputFormat, table.sd.serdeInfo.serializationLib),
        rules=Rules(
            hive=settings.hive,
            small_file_bytes=settings.small_file_bytes,
            zone_chosen=settings.hive_time_zone is not None,
            archived_objects=settings.archived_objects,
        ),
        parameters=dict(table.parameters or {}),
    )
    rules = facts.rules
    wanted = partition_filter or PartitionFilter(())

    names = wanted.select(client.partition_names(db, name)) if keys else []
    # The whole table listed at once pays when most of what is under the root is read: every
    # partition wanted, and enough of them that one listing each would cost more.
    listed_at_once = keys and wanted.is_everything and len(names) >= TREE_MIN_PARTITIONS
    tree = _table_tree(table_fs, table_root, len(keys)) if listed_at_once else None

    def jobs() -> Iterator[PartitionJob]:
        if not keys:
            yield partition_job("", (), table.sd, dict(table.parameters or {}))
            return
        key_names = [k.name for k in keys]
        seen: dict[tuple[tuple[str, str], ...], tuple[Column, ...]] = {}
        batches = client.partitions_by_names(
            db, name, names, settings.partition_batch, calls=settings.partition_calls
        )
        for p in batches:
            values = _partition_values(p)
            yield partition_job(
                partition_name(key_names, values),
                values,
                p.sd,
                dict(p.parameters or {}),
                tree,
                columns_seen=seen,
            )

    cache = footer_cache.active()  # read here: the pool's threads do not see the context
    count = len(names) if keys else 1
    session = spread.spark_for(settings.inspect_on, spark, count, settings.spark_master)
    # Threads hide a store's latency; reading ORC or Parquet footers from a local disk has none
    # to hide, and there Python threads only contend for the interpreter (10,000 partitions:
    # 2.9 s on one, 4.1 s on eight). Text tables keep them: their records are counted by
    # decompressing whole files, which runs outside the interpreter's lock. Spark's tasks
    # take the same number each.
    local = isinstance(table_fs, pafs.LocalFileSystem)
    footers_only = local and facts.format in ("orc", "parquet")
    workers = 1 if footers_only else max(1, settings.inspect_workers)
    with _collector_paused():
        if session is not None:
            log.info("inspecting %s.%s in Spark tasks", db, name)
            results = spread.inspect_on_spark(session, jobs(), facts, cache, progress, workers)
        else:
            results = _inspect_on_driver(jobs(), facts, cache, workers, progress)
    results.sort(key=lambda p: p.name)

    table_anomalies = [*table_warnings(table), *schema_drift(results)]
    table_anomalies += many_small_files(results, rules)
    table_anomalies += key_anomalies(results, keys, rules.hive.version, rules.hive.jvm_zone)
    if keys and wanted.is_everything:
        # the paths alone: opening a file system per partition cost more than the set
        registered = {parse(p.location).path.rstrip("/") for p in results}
        for directory in _unregistered_dirs(table.sd.location, len(keys), registered, tree):
            table_anomalies.append(
                Anomaly(
                    code="unregistered-directory",
                    severity=SEVERITY_WARNING,
                    message=f"directory {directory} under the table root is not a registered "
                    "partition; Hive does not show it and lakeshift does not migrate it.",
                    action="Register it (MSCK REPAIR TABLE) before migrating, or delete it.",
                    partition=None,
                    details={"directory": directory},
                )
            )
    inventory = TableInventory(
        database=db,
        table=name,
        location=table.sd.location,
        table_type=table.tableType or "",
        format=facts.format,
        input_format=table.sd.inputFormat or "",
        serde=table.sd.serdeInfo.serializationLib or "",
        columns=facts.columns,
        partition_keys=keys,
        parameters=dict(table.parameters or {}),
        partitions=tuple(results),
        unregistered_dirs=tuple(
            a.details["directory"] for a in table_anomalies if a.code == "unregistered-directory"
        ),
        anomalies=tuple(table_anomalies),
        metastore_uri=client.uri,
        inspected_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        seconds=round(time.monotonic() - started, 3),
        listings=_listings(results, tree),
    )
    log.info("inspected %s: %s", inventory.qualified_name, inventory.summary())
    return inventory


def inventory_path(home: Path, qualified_name: str) -> Path:
    return home / "inventory" / f"{qualified_name}.json"


def save_inventory(inventory: TableInventory, home: Path) -> Path:
    """Write the inventory JSON under the state directory (atomically), one partition at a
    time: the whole inventory as JSON values at once took 465 MB more of the driver's memory
    than the inventory itself (312 MB) at 100,000 partitions."""
    path = inventory_path(home, inventory.qualified_name)
    path.parent.mkdir(parents=True, exist_ok=True)
    head = inventory.head_json()
    head["partitions"] = _PARTITIONS_HERE
    before, after = json.dumps(head, ensure_ascii=False, default=str).split(
        json.dumps(_PARTITIONS_HERE), 1
    )
    tmp = path.with_suffix(path.suffix + ".tmp")
    with tmp.open("w", encoding="utf-8") as out:
        out.write(before + "[")
        for index, partition in enumerate(inventory.partitions):
            out.write(
                ("," if index else "")
                + json.dumps(partition_json(partition), ensure_ascii=False, default=str)
            )
        out.write("]" + after)
    tmp.replace(path)
    return path


#: Stands for the partitions list while the rest of the inventory is encoded (no table, column
#: or anomaly text can be this exact JSON string).
_PARTITIONS_HERE = "\u0000lakeshift-partitions\u0000"


def load_inventory(home: Path, qualified_name: str) -> TableInventory:
    path = inventory_path(home, qualified_name)
    if not path.is_file():
        raise NotFound(
            f"no saved inventory for {qualified_name} under {home}.",
            hint=f"Run `lakeshift inspect {qualified_name}` first.",
        )
    return TableInventory.from_json(json.loads(path.read_text()))

"""Text partitions (LazySimpleSerDe) against ORC partitions holding the same rows.

Two tables with the same rows: the synthetic ORC table, and a text twin (Hive's default
delimiters, one text file per partition). Timed in the same run: (a) ``lakeshift migrate`` of
the ORC table, (b) ``lakeshift migrate`` of the text twin, (a) again (the faster of the two
ORC runs is the baseline, so warm-up does not favour text), (c) the bare Spark copy of the text
files (``spark.read.csv`` with ``^A`` as separator, written as Parquet: the ceiling for reading
text, with none of Hive's rules). Reported as ratios, never asserted.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pyarrow.orc as orc

from benchmarks.measure import timed
from benchmarks.synthetic import COLUMNS, SyntheticTable
from lakeshift.config import Settings
from lakeshift.metastore import ddl
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal


def text_twin(ctx: Any, table: SyntheticTable) -> tuple[str, list[str], int]:
    """The table's rows as Hive text files in a text table; (name, file paths, bytes)."""
    db, name = table.qualified_name.split(".")
    twin = f"{name}_text"
    location = table.location.parent / twin
    if ctx.metastore.table_exists(db, twin):
        ctx.metastore.drop_table(db, twin)
    shutil.rmtree(location, ignore_errors=True)
    client = ctx.metastore
    client.create_table(
        ddl.external_table(
            db, twin, COLUMNS, (("p", "int"),), ddl.location_uri(location), fmt="text"
        )
    )
    paths, size, batch = [], 0, []
    for directory in sorted(table.location.glob("p=*")):
        rows = orc.read_table(str(next(directory.iterdir()))).to_pylist()
        lines = "".join(
            f"{r['id']}\x01{r['name']}\x01{r['amount']}\x01{r['ts']:%Y-%m-%d %H:%M:%S}\n"
            for r in rows
        )
        target = location / directory.name
        target.mkdir(parents=True)
        path = target / "000000_0"
        path.write_text(lines)
        paths.append(str(path))
        size += path.stat().st_size
        value = directory.name.split("=", 1)[1]
        batch.append(ddl.partition(db, twin, [value], COLUMNS, ddl.location_uri(target), "text"))
    client.add_partitions(batch)
    return f"{db}.{twin}", paths, size


def run(
    spark: Any, ctx: Any, settings: Settings, table: SyntheticTable, scratch: Path
) -> dict[str, Any]:
    source, rows = table.qualified_name, table.rows
    twin, paths, text_bytes = text_twin(ctx, table)
    journal_path = scratch / "text-journal.sqlite"
    journal_path.unlink(missing_ok=True)
    journal = Journal(journal_path)

    def backfill(name: str) -> None:
        target = f"{name}_lake"
        spark.sql(f"DROP TABLE IF EXISTS {target} PURGE")
        result = migrate(
            spark, ctx.metastore, ctx.catalog, settings, journal, name, MigrateOptions(target)
        )
        assert not result.failed and len(result.backfilled) == table.partitions, result

    copy_dir = scratch / "text-bare-copy"
    shutil.rmtree(copy_dir, ignore_errors=True)
    orc_run = timed("a_migrate_orc", rows, table.bytes, lambda: backfill(source))
    text_run = timed("b_migrate_text", rows, text_bytes, lambda: backfill(twin))
    orc_again = timed("a_migrate_orc_again", rows, table.bytes, lambda: backfill(source))
    orc_seconds = min(orc_run.seconds, orc_again.seconds)
    bare = timed(
        "c_bare_text_copy",
        rows,
        text_bytes,
        lambda: spark.read.option("sep", "\x01").csv(paths).write.parquet(str(copy_dir)),
    )
    journal.close()
    return {
        "scenario": "text",
        "partitions": table.partitions,
        "rows": rows,
        "text_bytes": text_bytes,
        "a_migrate_orc": orc_run.to_json(),
        "a_migrate_orc_again": orc_again.to_json(),
        "b_migrate_text": text_run.to_json(),
        "c_bare_text_copy": bare.to_json(),
        "ratio_text_over_orc": round(text_run.seconds / orc_seconds, 2),
        "ratio_text_over_bare_text_copy": round(text_run.seconds / bare.seconds, 2),
    }

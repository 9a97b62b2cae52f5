"""The Arrow write path (``write_path = "arrow"``, Iceberg and Delta): batches whose ORC files
Hive reads as written go through pyarrow in Spark tasks and the format's own commit (Iceberg's
Java API, lakeshift's Delta log commit); the rows equal what the Spark path writes (each format's
own reader reads both), validation proves them by rescanning the source with the Spark reader,
and any batch that needs a conversion takes the Spark path."""

from __future__ import annotations

import datetime as dt
from collections import Counter
from dataclasses import replace
from decimal import Decimal
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.config import Settings
from lakeshift.formats import FormatServices
from lakeshift.formats.registry import format_of
from lakeshift.inspect.inspector import inspect_table
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate, plan_migration
from lakeshift.migrate.journal import Journal
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import delta_root, local_path, read_lake
from tests.helpers.source_state import source_snapshot

pytestmark = pytest.mark.slow

COLUMNS = [("id", "bigint"), ("small", "tinyint"), ("name", "string"), ("price", "decimal(9,2)"),
           ("ratio", "float"), ("day", "date"), ("at", "timestamp"), ("ok", "boolean"),
           ("blob", "binary")]  # fmt: skip


def _rows(start: int, count: int) -> pa.Table:
    ids = list(range(start, start + count))
    return pa.table(
        {
            "id": pa.array(ids, pa.int64()),
            "small": pa.array([i % 100 - 50 for i in ids], pa.int8()),
            "name": pa.array([None if i % 7 == 0 else f"n{i}é" for i in ids]),
            "price": pa.array([Decimal(i) / 100 for i in ids], pa.decimal128(9, 2)),
            "ratio": pa.array([i / 3 for i in ids], pa.float32()),
            "day": pa.array([dt.date(2020, 1, 1) + dt.timedelta(days=i) for i in ids]),
            "at": pa.array(
                [
                    dt.datetime(2021, 5, 1, 12) + dt.timedelta(seconds=i, microseconds=7)
                    for i in ids
                ],
                pa.timestamp("us"),
            ),
            "ok": pa.array([i % 3 == 0 for i in ids]),
            "blob": pa.array([bytes([i % 256, 0, 255]) for i in ids], pa.binary()),
        }
    )


@pytest.fixture(scope="module")
def source(client: MetastoreClient, tables_root: Path) -> str:
    b = HiveTableBuilder(client, tables_root, "arrowpath", unique_name("t"), COLUMNS)
    b.add_partition(["2024-01-01"], {"000000_0": _rows(0, 300), "000001_0": _rows(300, 200)})
    # a file without the later columns: Hive shows them NULL (still the Arrow path)
    b.add_partition(["2024-01-02"], {"000000_0": _rows(500, 100).select(["id", "small", "name"])})
    # the file holds id as int where the table says bigint: a conversion, so the Spark path
    drifted = _rows(600, 50).set_column(0, "id", pa.array(range(600, 650), pa.int32()))
    b.add_partition(["2024-01-03"], {"000000_0": drifted}, columns=[("id", "int"), *COLUMNS[1:]])
    b.add_partition([None], {"000000_0": _rows(700, 10)})  # the NULL partition
    return f"{b.db}.{b.name}"


def _files(client: MetastoreClient, catalog: HiveCatalog, target: str) -> dict[str, list[str]]:
    """Data file names per partition value of the target's current snapshot or version."""
    if format_of(client, target) == "iceberg":
        files = catalog.load_table(target).inspect.files()
        paths = files.column("file_path").to_pylist()
        values = [str(p["dt"]) for p in files.column("partition").to_pylist()]
    else:
        from deltalake import DeltaTable

        actions = DeltaTable(delta_root(client, target)).get_add_actions(flatten=True)
        paths = actions.column("path").to_pylist()
        values = [str(v) for v in actions.column("partition.dt").to_pylist()]
    out: dict[str, list[str]] = {}
    for path, value in zip(paths, values):
        out.setdefault(value, []).append(path.rsplit("/", 1)[1])
    return out


def _hudi_file_layout(client: MetastoreClient, target: str) -> set[tuple[Any, ...]]:
    """Each base file's Parquet schema, codec and footer keys (and the Avro schema footer)."""
    import pyarrow.parquet as pq

    db, _, name = target.partition(".")
    root = local_path(client.get_table(db, name).sd.serdeInfo.parameters["path"])
    out = set()
    for path in root.glob("dt=*/*.parquet"):
        meta = pq.read_metadata(path)
        footer = {k: v for k, v in (meta.metadata or {}).items() if not k.startswith(b"hoodie_m")}
        out.add(
            (
                str(meta.schema.to_arrow_schema().remove_metadata()),
                meta.row_group(0).column(0).compression,
                footer[b"parquet.avro.schema"].replace(name.encode(), b"TABLE"),
                tuple(sorted(footer)),
            )
        )
    assert out, f"no base files under {root}"
    return out


def _content(client: MetastoreClient, target: str) -> Counter[tuple[Any, ...]]:
    """The rows, less what differs between two writes of them: keys, Hudi's meta columns."""
    rows = read_lake(client, target)
    rows = rows.drop_columns([c for c in rows.column_names if c == "uuid" or c[:8] == "_hoodie_"])
    return Counter(tuple(sorted(r.items())) for r in rows.to_pylist())


def _observed_by(journal: Journal, source: str) -> dict[str, str]:
    """Which path wrote each partition's latest batch, as the journal says."""
    out = {}
    for name, record in journal.partitions(source).items():
        batch = journal.batch(str((record.checksum or {}).get("batch")))
        out[name] = str(batch["checksum"].get("observed_by")) if batch else "none"
    return out


@pytest.mark.parametrize(
    "fmt",
    ["iceberg", pytest.param("delta", marks=pytest.mark.extended), "hudi"],  # (make extended)
)
def test_arrow_path_writes_what_the_spark_path_writes_and_validates(
    fmt: str,
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    metastore_uri: str,
    lakeshift_home: Path,
    source: str,
) -> None:
    catalog = HiveCatalog("arrowpath", uri=metastore_uri)
    # a journal per format: lakeshift refuses a second format for a source it journaled
    journal = Journal(lakeshift_home / f"journal-arrow-{fmt}.sqlite")
    before = source_snapshot(client, *source.split("."))
    arrow = replace(settings, write_path="arrow")
    targets = {"spark": f"{source}_{fmt}_spark", "arrow": f"{source}_{fmt}_arrow"}

    # The dry run says which batches will take the Arrow path, and why one will not
    dry = plan_migration(
        {},
        FormatServices(spark, client, arrow, catalog),
        inspect_table(client, source, arrow),
        arrow,
        MigrateOptions(target=targets["arrow"], batch_rows=1, format=fmt),
        journal,
    )
    assert [n for n in dry.notes if n.startswith("write_path")] == [
        "write_path = arrow: 3 of 4 batches can take the Arrow path; 1 takes the Spark path "
        "(batch 3, partition dt=2024-01-03 column id is converted (int))."
    ]
    for path, target in targets.items():
        result = migrate(
            spark,
            client,
            catalog,
            arrow if path == "arrow" else replace(settings, write_path="spark"),
            journal,
            source,
            MigrateOptions(target=target, batch_rows=1, format=fmt),  # a partition a batch
        )
        assert result.ok
        if path == "arrow":
            # The Arrow path wrote the eligible partitions; the drifted one took the Spark path
            taken = _observed_by(journal, source)
            assert taken["dt=2024-01-03"] != "arrow", taken
            assert {n for n, by in taken.items() if by == "arrow"} == {
                "dt=2024-01-01", "dt=2024-01-02", "dt=__HIVE_DEFAULT_PARTITION__"
            }  # fmt: skip
    assert source_snapshot(client, *source.split(".")) == before  # the source is untouched
    if fmt == "hudi":  # (its files are named as Hudi's writers name them, whichever path)
        # Both paths write the same base files: columns, types, Hudi's footers
        assert _hudi_file_layout(client, targets["arrow"]) == _hudi_file_layout(
            client, targets["spark"]
        )
        _check_rows_and_proofs(spark, client, catalog, arrow, journal, source, targets)
        return

    files = _files(client, catalog, targets["arrow"])
    assert all(n.startswith("arrow-") for n in files["2024-01-01"] + files["2024-01-02"])
    assert all(n.startswith("arrow-") for n in files["None"])
    assert not any(n.startswith("arrow-") for n in files["2024-01-03"])
    assert not any(n.startswith("arrow-")
                   for ns in _files(client, catalog, targets["spark"]).values()
                   for n in ns)  # fmt: skip

    _check_rows_and_proofs(spark, client, catalog, arrow, journal, source, targets)


def _check_rows_and_proofs(
    spark: Any,
    client: MetastoreClient,
    catalog: HiveCatalog,
    arrow: Settings,
    journal: Journal,
    source: str,
    targets: dict[str, str],
) -> None:
    # The format's own reader reads the same rows (uuid aside) from both, every uuid unique
    assert _content(client, targets["arrow"]) == _content(client, targets["spark"])
    keys = read_lake(client, targets["arrow"]).column("uuid").to_pylist()
    assert len(set(keys)) == len(keys) == 660 and all(len(k) == 36 and k[14] == "4" for k in keys)

    # Validation proves it without scanning the source again: the Arrow path's tasks observed
    # the checksum of what they wrote, as the Spark path observes its rows
    reports = {
        level: validate_table(
            spark, client, catalog, arrow, journal, source, targets["arrow"], level=level
        )
        for level in ("checksum", "independent")
    }
    for report in reports.values():
        assert [p.status for p in report.partitions] == ["equal"] * 4, report.partitions
    assert not any(p.source_rescanned for p in reports["checksum"].partitions)
    # The independent level's second reader is pyarrow: the batches pyarrow wrote are read
    # again by the Spark reader there, so no decoder vouches for itself alone
    rescanned = {p.partition for p in reports["independent"].partitions if p.source_rescanned}
    assert {"dt=2024-01-01", "dt=2024-01-02"} <= rescanned

    # A forced re-run replaces the partitions: no row twice
    again = migrate(
        spark,
        client,
        catalog,
        arrow,
        journal,
        source,
        MigrateOptions(
            target=targets["arrow"], batch_rows=1, force=True,
            partitions=PartitionFilter.exactly(["dt=2024-01-01"]),
        ),
    )  # fmt: skip
    assert again.ok and again.backfilled == ["dt=2024-01-01"]
    assert _content(client, targets["arrow"]) == _content(client, targets["spark"])

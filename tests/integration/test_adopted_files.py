"""An Iceberg table holding files adopted from its Hive source (zero-copy): maintenance and
erasure never delete, rewrite or expire them. Compaction leaves their partition alone and says
so, expiry and orphan removal delete only the lake table's own unreachable files (and do delete
them), an erasure drops an adopted file from the table after rewriting its other rows into the
lake location and names it as still holding the erased rows; the source's files stay
byte-identical throughout, and pyiceberg and Spark read the Hive rows (less the erased ones)."""

from __future__ import annotations

import json
import os
import time
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from click.testing import CliRunner
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.cli.main import cli
from lakeshift.config import Settings
from lakeshift.formats.iceberg import spark_identifier
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.storage import Store
from tests.helpers.adopted import tree_digest
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.lake import local_path, read_lake

pytestmark = pytest.mark.slow
VICTIM = "cust-17"
MIB = 1024 * 1024
COLUMNS = ("id", "customer", "amount", "dt")
#: The partition whose files the lake table adopts.
ADOPTED = "1"


def _file(ids: list[int]) -> pa.Table:
    # The victim is never a file's lowest or highest customer: manifests keep each file's
    # bounds, and the audit would rightly find the value there.
    customers = [VICTIM if i % 4 == 1 else f"cust-{i % 4 // 2 * 2}" for i in ids]
    return pa.table(
        {"id": pa.array(ids, pa.int64()), "customer": customers, "amount": [i * 1.5 for i in ids]}
    )


def _hive_table(client: MetastoreClient, root: Path) -> tuple[HiveTableBuilder, Counter[Any]]:
    hive = HiveTableBuilder(
        client,
        root,
        "adopted_cases",
        unique_name("t"),
        [("id", "bigint"), ("customer", "string"), ("amount", "double")],
    )
    rows: Counter[Any] = Counter()
    for p in range(3):
        # In the adopted partition only the first file holds the victim's rows.
        files = {
            "000000_0": _file([p * 100 + i for i in range(4)]),
            "000001_0": _file([p * 100 + i for i in (10, 12, 14, 16)]),
        }
        hive.add_partition([str(p)], files)
        for table in files.values():
            for r in table.to_pylist():
                rows[(r["id"], r["customer"], r["amount"], str(p))] += 1
    return hive, rows


def _lake_rows(client: MetastoreClient, target: str) -> Counter[Any]:
    lake = read_lake(client, target)
    return Counter(zip(*(lake.column(c).to_pylist() for c in COLUMNS)))


def _spark_rows(spark: Any, target: str) -> Counter[Any]:
    ident = spark_identifier(target)
    spark.sql(f"REFRESH TABLE {ident}")
    return Counter(tuple(r) for r in spark.table(ident).select(*COLUMNS).collect())


def _data_files(client: MetastoreClient, target: str) -> list[str]:
    table = HiveCatalog("t", uri=client.uri).load_table(target)
    return sorted(r["file_path"] for r in table.inspect.data_files().to_pylist())


def _cli(home: Path, client: MetastoreClient, *args: str) -> dict[str, Any]:
    result = CliRunner().invoke(
        cli, ["--home", str(home), "--metastore-uri", client.uri, "--output", "json", *args]
    )
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.output)
    return document


def _fragment(spark: Any, target: str) -> None:
    """The same rows as several small files per partition (other writers' small appends)."""
    ident = spark_identifier(target)
    spark.sql(f"ALTER TABLE {ident} SET TBLPROPERTIES ('write.distribution-mode'='none')")
    spark.table(ident).repartition(3).sortWithinPartitions("dt").writeTo(
        ident
    ).overwritePartitions()


def test_maintain_and_erase_leave_adopted_files_to_the_hive_table(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    tables_root: Path,
    tmp_path: Path,
) -> None:
    settings = replace(settings, home=tmp_path)
    hive, hive_rows = _hive_table(client, tables_root)
    source, target = f"{hive.db}.{hive.name}", f"{hive.db}.{hive.name}_iceberg"
    journal = Journal(tmp_path / "journal.sqlite")
    migrate(spark, client, None, settings, journal, source, MigrateOptions(target))
    _fragment(spark, target)
    # The partition adopted by lakeshift's own adoption, in place of its copy
    result = migrate(
        spark, client, None, settings, journal, source,
        MigrateOptions(
            target, adopt_files="auto", force=True,
            partitions=PartitionFilter.exactly([f"dt={ADOPTED}"]),
            accept_foreign_commits=True,  # the fragmenting writes above
        ),
    )  # fmt: skip
    assert result.adoption is not None and result.adoption.proven == [f"dt={ADOPTED}"]
    source_files = sorted(hive.partition_dir([ADOPTED]).glob("0*"))
    adopted = [f for f in _data_files(client, target) if f"/dt={ADOPTED}/" in f]
    assert sorted(local_path(f) for f in adopted) == source_files
    digest = tree_digest(hive.location)
    location = str(HiveCatalog("t", uri=client.uri).load_table(target).location())
    own = Store(location)
    root = local_path(location)
    assert set(adopted) <= set(_data_files(client, target))
    assert not any(own.relative(p) for p in adopted)  # outside the lake location
    assert _lake_rows(client, target) == hive_rows == _spark_rows(spark, target)
    copied = [p for p in _data_files(client, target) if own.relative(p) is not None]
    assert len(copied) >= 4  # dt=0 and dt=2 in small files: compaction has work

    # An old unreferenced file under the lake location goes; nothing else of the Hive table's.
    orphan = root / "data" / "orphan-old.parquet"
    pq.write_table(pa.table({"x": [1]}), orphan)
    old = time.time() - 2 * 86_400
    os.utime(orphan, (old, old))
    done = _cli(
        tmp_path,
        client,
        *("maintain", source, "--compact", "--target-file-size", str(MIB)),
        *("--expire", "0", "--orphans", "1"),
    )
    assert done["compacted"] == ["dt=0", "dt=2"]
    assert list(done["not_compacted"]) == [f"dt={ADOPTED}"]
    assert any("adopted" in n for n in done["notes"])
    files = {p["partition"]: p["files"] for p in done["after"]["partitions"]}
    assert files == {"dt=0": 1, f"dt={ADOPTED}": 2, "dt=2": 1}
    # Expiry deleted what only older snapshots reached (the small files compaction replaced,
    # their manifests and manifest lists), all of it the lake table's own.
    assert done["after"]["versions"] == 1 and done["expired"]
    assert all(own.relative(p) is not None for p in done["expired"] + done["orphans"])
    assert set(copied) <= set(done["expired"])
    assert not any(Path(local_path(p)).exists() for p in copied)
    assert [Path(local_path(p)).name for p in done["orphans"]] == [orphan.name]
    assert tree_digest(hive.location) == digest
    assert _lake_rows(client, target) == hive_rows == _spark_rows(spark, target)

    # Erasure: the victim's rows go from a lake file and from an adopted one.
    before_erase = _data_files(client, target)
    erased = _cli(
        tmp_path, client, "erase", source, "--where", f"customer = '{VICTIM}'", "--lake-only"
    )
    assert erased["step"] == "audited" and erased["audit"]["passed"], erased["audit"]
    assert erased["matched"] == {"dt=0": 1, f"dt={ADOPTED}": 1, "dt=2": 1}
    assert erased["keyless"] == 1
    holding = f"{adopted[0]}"  # the adopted file holding a victim's row
    assert erased["legacy_files"] == {holding: 1}
    assert erased["audit"]["legacy_files"] == [holding]
    assert any("retire --delete-files" in n for n in erased["audit"]["notes"])
    assert tree_digest(hive.location) == digest and Path(local_path(holding)).exists()
    expected = Counter({r: n for r, n in hive_rows.items() if r[1] != VICTIM})
    assert _lake_rows(client, target) == expected == _spark_rows(spark, target)
    after_erase = _data_files(client, target)
    # The adopted file left the table; its other rows are in a new file under the location.
    assert holding not in after_erase and adopted[1] in after_erase
    assert all(own.relative(p) is not None for p in set(after_erase) - set(before_erase))
    # The lake files that held the victim's rows were purged from the disk.
    replaced = [p for p in set(before_erase) - set(after_erase) if p != holding]
    assert len(replaced) == 2 and not any(Path(local_path(p)).exists() for p in replaced)
    assert all(own.relative(p) is not None for p in erased["purged"])
    table = HiveCatalog("t", uri=client.uri).load_table(target)
    assert len(table.metadata.snapshots) == 1

    # A keys file cannot name the adopted rows: the result says which partition holds them.
    lake = read_lake(client, target).to_pylist()
    key = next(r["uuid"] for r in lake if r["dt"] == "2" and r["uuid"])
    keys = tmp_path / "keys.txt"
    keys.write_text(f"{key}\n")
    by_key = _cli(tmp_path, client, "erase", source, "--keys", str(keys), "--lake-only")
    assert by_key["matched"] == {"dt=2": 1} and by_key["audit"]["passed"]
    assert len(by_key["notes"]) == 1 and f"dt={ADOPTED}" in by_key["notes"][0]
    assert tree_digest(hive.location) == digest
    assert sum(_lake_rows(client, target).values()) == sum(expected.values()) - 1

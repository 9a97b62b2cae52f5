"""Retiring the legacy Hive table, for every format: refused before cutover, during probation
and when the legacy table differs (nothing dropped); otherwise the metastore entry goes, the
public name still serves the lake table (read with pyiceberg / delta-rs), the files stay, and
with --delete-files exactly the files in the manifest are deleted."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from click.testing import CliRunner

from lakeshift.cli.main import cli
from lakeshift.config import Settings
from lakeshift.errors import RefusedInput, ValidationMismatch
from lakeshift.formats import FormatServices, format_of, load_format
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.route.cutover import cutover, names_for
from lakeshift.route.retire import DAY, prepare_retire, retire
from lakeshift.route.router import switch
from lakeshift.storage import filesystem_for
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, unique_name, write_orc
from tests.helpers.lake import read_lake

pytestmark = pytest.mark.slow


def _table(client: MetastoreClient, root: Path) -> HiveTableBuilder:
    hive = HiveTableBuilder(
        client, root, "retire_cases", unique_name("t"), [("id", "bigint"), ("v", "string")]
    )
    for p in range(3):
        ids = list(range(p * 10, p * 10 + 4))
        hive.add_partition(
            [str(p)],
            {"000000_0": pa.table({"id": pa.array(ids, pa.int64()), "v": [f"v{i}" for i in ids]})},
        )
    return hive


def _rows(client: MetastoreClient, table: str) -> Counter[tuple[Any, ...]]:
    lake = read_lake(client, table)
    return Counter(zip(lake.column("id").to_pylist(), lake.column("v").to_pylist()))


def _exists(path: str) -> bool:
    return Path(filesystem_for(path)[1]).is_file()


def _cli(home: Path, client: MetastoreClient, *args: str) -> Any:
    return CliRunner().invoke(
        cli, ["--home", str(home), "--metastore-uri", client.uri, "--output", "json", *args]
    )


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_retire_refusals_then_drop_then_delete_files(
    fmt: str,
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    tables_root: Path,
    tmp_path: Path,
) -> None:
    settings = replace(settings, home=tmp_path)  # manifests and reports under this test's home
    journal = Journal(tmp_path / "journal.sqlite")
    services = FormatServices(spark, client, settings)
    hive = _table(client, tables_root)
    source, target = f"{hive.db}.{hive.name}", f"{hive.db}.{hive.name}_{fmt}"
    migrate(spark, client, None, settings, journal, source, MigrateOptions(target, format=fmt))
    assert validate_table(spark, client, None, settings, journal, source, target).ok
    switch(services, settings, journal, source, target, partitions=None, all_validated=True)

    # Before the cutover: refused (exit 7), nothing dropped.
    with pytest.raises(RefusedInput, match="not cut over") as refused:
        prepare_retire(services, settings, journal, source, probation_days=0)
    assert refused.value.exit_code == 7
    names = names_for(journal, source, target, None, None)
    cutover(services, settings, journal, names)
    route = journal.route(source)
    assert route is not None and route["cutover_at"] is not None
    before = _rows(client, source)

    # During the probation period (default 7 days): refused, saying when it ends.
    with pytest.raises(RefusedInput, match="probation period of 7 days ends"):
        prepare_retire(services, settings, journal, source)
    prepare_retire(services, settings, journal, source, now=route["cutover_at"] + 7 * DAY + 1)

    # The legacy table changed after the cutover (a file written to Hive): validation finds a
    # difference, nothing is dropped (exit 4).
    plan = prepare_retire(services, settings, journal, source, probation_days=0)
    late = write_orc(
        hive.partition_dir(["1"]) / "000001_0",
        pa.table({"id": pa.array([99], pa.int64()), "v": ["late"]}),
    )
    with pytest.raises(ValidationMismatch, match="dt=1") as mismatch:
        retire(services, settings, journal, plan)
    assert mismatch.value.exit_code == 4 and format_of(client, names.legacy) == "hive"
    late.unlink()
    if fmt == "iceberg":
        # A row written to the lake table only: the checksums differ, nothing is dropped.
        lake = load_format(fmt, services).frame(source).where("id = 0")
        lake.selectExpr("99 AS id", *[c for c in lake.columns if c != "id"]).select(
            *lake.columns
        ).writeTo(source).append()
        with pytest.raises(ValidationMismatch, match="dt=0"):
            retire(services, settings, journal, plan)
        spark.sql(f"DELETE FROM {source} WHERE id = 99")
        assert format_of(client, names.legacy) == "hive"

    # Retire: every partition validated afresh (the source scanned again), entry dropped,
    # files kept, the public name still the lake table with the same rows, the view reads.
    done = retire(services, settings, journal, plan)
    assert done.dropped and done.validation is not None
    assert all(p.status == "equal" and p.source_rescanned for p in done.validation.partitions)
    assert len(done.validation.partitions) == 3
    assert format_of(client, names.legacy) is None and format_of(client, source) == fmt
    assert _rows(client, source) == before
    spark.sql(f"REFRESH TABLE {names.view}")
    assert spark.table(names.view).count() == sum(before.values())
    manifest = json.loads(Path(str(done.manifest)).read_text())
    listed = [f["path"] for f in manifest["files"]]
    assert len(listed) == 3 and all(_exists(p) for p in listed) and not done.deleted

    # Deleting the files needs the name typed: --yes or a wrong --confirm is not enough.
    assert _cli(tmp_path, client, "retire", source, "--delete-files", "--yes").exit_code == 2
    wrong = _cli(tmp_path, client, "retire", source, "--delete-files", "--confirm", "x.y")
    assert wrong.exit_code == 2 and all(_exists(p) for p in listed)
    deleted = _cli(tmp_path, client, "retire", source, "--delete-files", "--confirm", source)
    assert deleted.exit_code == 0, deleted.output
    document = json.loads(deleted.output)
    assert document["already_retired"] and sorted(document["deleted"]) == sorted(listed)
    assert not any(_exists(p) for p in listed)
    manifest = json.loads(Path(str(done.manifest)).read_text())
    assert manifest["status"] == "deleted" and sorted(manifest["deleted"]) == sorted(listed)
    # The lake table is untouched by all of it.
    assert _rows(client, source) == before

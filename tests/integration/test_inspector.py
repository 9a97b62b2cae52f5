"""The inspector against real metastore entries and real ORC files, one case per anomaly class."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.errors import NotFound, UnsupportedTable
from lakeshift.inspect import TableInventory, inspect_table
from lakeshift.metastore import ddl
from lakeshift.metastore.client import MetastoreClient
from lakeshift.sample.load import LoadResult
from tests.helpers.hive_tables import HiveTableBuilder, unique_name

REPO = Path(__file__).resolve().parents[2]
COLUMNS = (("id", "bigint"), ("name", "string"))


def _rows(n: int, names: tuple[str, str] = ("id", "name")) -> pa.Table:
    return pa.table(
        {names[0]: pa.array(range(n), pa.int64()), names[1]: [f"r{i}" for i in range(n)]}
    )


@pytest.fixture
def builder(client: MetastoreClient, tables_root: Path) -> HiveTableBuilder:
    return HiveTableBuilder(client, tables_root, "inspect_cases", unique_name("t"), COLUMNS)


def _codes(inventory: TableInventory, partition: str) -> set[str]:
    return {a.code for a in inventory.partition(partition).anomalies}


def _inspect(
    client: MetastoreClient, builder: HiveTableBuilder, settings: Settings
) -> TableInventory:
    return inspect_table(client, f"{builder.db}.{builder.name}", settings)


def test_sample_table_shows_every_planted_case(
    client: MetastoreClient, settings: Settings, sample_table: LoadResult
) -> None:
    manifest = json.loads((REPO / "sample_data/click_log/manifest.json").read_text())
    inventory = inspect_table(client, "sample.click_log", settings)
    for entry in (p for p in manifest["partitions"] if p["registered"]):
        name = f"yyyymmdd={entry['value'] or '__HIVE_DEFAULT_PARTITION__'}"
        assert inventory.partition(name).rows == entry["rows"], name
    table_codes = {a.code for a in inventory.anomalies}
    assert table_codes == {"schema-drift", "unregistered-directory"}
    assert inventory.unregistered_dirs == ("yyyymmdd=20220429",)
    # Hive 2.1+ (the default): ORC files read with the table's columns; the partitions'
    # own older declarations are ignored (and named), files compared with the table.
    expectations = {
        "yyyymmdd=20220401": {"positional-files", "partition-columns-ignored"},
        "yyyymmdd=20220405": {
            "file-extra-columns",  # `price`: the table says bid_price
            "file-missing-columns",
            "stats-mismatch",
            "partition-columns-ignored",
            "hive-version-sensitive",  # Hive 1.2 keeps price's values by position
        },
        "yyyymmdd=20220412": {"skipped-files", "partition-columns-ignored"},
        "yyyymmdd=20220416": {"partition-columns-ignored", "file-missing-columns"},
        "yyyymmdd=20220422": set(),
        "yyyymmdd=20220427": {"outside-table-root"},
        "yyyymmdd=20220428": {"empty-partition", "skipped-files"},
        "yyyymmdd=__HIVE_DEFAULT_PARTITION__": {"null-partition"},
    }
    for name, expected in expectations.items():
        assert expected <= _codes(inventory, name), name
    assert _codes(inventory, "yyyymmdd=20220422") == set()
    # Hive 1.2: each partition's own columns, then the table's by position.
    hive12 = inspect_table(client, "sample.click_log", replace(settings, hive_version="1.2"))
    for name, expected in {
        "yyyymmdd=20220401": {"positional-files", "partition-behind-table"},
        "yyyymmdd=20220405": {"file-extra-columns", "stats-mismatch", "partition-behind-table"},
        "yyyymmdd=20220412": {
            "skipped-files",
            "partition-behind-table",
            "partition-column-renamed",
        },
        "yyyymmdd=20220416": {"partition-behind-table"},
    }.items():
        assert expected <= _codes(hive12, name), name
    assert [f.path for f in inventory.partition("yyyymmdd=20220424").files] == [
        "HIVE_UNION_SUBDIR_1/000000_0",
        "HIVE_UNION_SUBDIR_2/000000_0",
    ]


def test_inspection_changes_nothing_in_the_source(
    client: MetastoreClient, settings: Settings, sample_table: LoadResult
) -> None:
    def snapshot() -> tuple[object, ...]:
        table = client.get_table("sample", "click_log")
        names = client.partition_names("sample", "click_log")
        parts = sorted(repr(p) for p in client.partitions_by_names("sample", "click_log", names))
        root = Path(sample_table.location).parent
        files = sorted((str(p), p.stat().st_size, p.stat().st_mtime_ns) for p in root.rglob("*"))
        return repr(table), parts, files

    before = snapshot()
    inspect_table(client, "sample.click_log", settings)
    assert snapshot() == before


def test_positional_files_wider_than_partition(
    client: MetastoreClient, settings: Settings, builder: HiveTableBuilder
) -> None:
    wide = pa.table({"_col0": pa.array([1], pa.int64()), "_col1": ["a"], "_col2": [1.5]})
    builder.add_partition(["1"], {"000000_0": wide})
    assert _codes(_inspect(client, builder, settings), "dt=1") == {
        "positional-files",
        "file-extra-columns",
    }


def test_renamed_physical_columns_by_name(
    client: MetastoreClient, settings: Settings, builder: HiveTableBuilder
) -> None:
    builder.add_partition(["1"], {"000000_0": _rows(3, ("id", "full_name"))})
    inventory = _inspect(client, builder, settings)
    assert _codes(inventory, "dt=1") == {
        "file-extra-columns",
        "file-missing-columns",
        "hive-version-sensitive",  # Hive 1.2 and 4 read full_name as name, by position
    }
    assert inventory.partition("dt=1").rows == 3


def test_missing_directory_and_empty_partition(
    client: MetastoreClient, settings: Settings, builder: HiveTableBuilder
) -> None:
    builder.add_partition(["gone"], create_dir=False)
    builder.add_partition(["empty"], {})
    inventory = _inspect(client, builder, settings)
    assert _codes(inventory, "dt=gone") == {"missing-directory"}
    assert _codes(inventory, "dt=empty") == {"empty-partition"}


def test_corrupt_orc_is_an_anomaly_and_inspection_goes_on(
    client: MetastoreClient, settings: Settings, builder: HiveTableBuilder
) -> None:
    directory = builder.add_partition(["bad"], {"000000_0": _rows(2)})
    (directory / "000001_0").write_bytes(b"ORC" + b"\x00garbage" * 20)
    builder.add_partition(["good"], {"000000_0": _rows(4)})
    inventory = _inspect(client, builder, settings)
    assert "corrupt-file" in _codes(inventory, "dt=bad")
    assert not inventory.partition("dt=bad").migratable
    assert inventory.partition("dt=good").rows == 4


def test_parquet_partition_and_odd_values(
    client: MetastoreClient, settings: Settings, builder: HiveTableBuilder
) -> None:
    builder.add_partition(["p"], {"part-0.parquet": _rows(5)}, fmt="parquet")
    odd = "it's a/b=c %x"
    builder.add_partition([odd], {"000000_0": _rows(1)})
    builder.add_partition([None], {"000000_0": _rows(2)})
    inventory = _inspect(client, builder, settings)
    assert _codes(inventory, "dt=p") == {"partition-format-differs"}
    assert inventory.partition("dt=p").rows == 5
    odd_partition = inventory.partition("dt=it%27s a%2Fb%3Dc %25x")
    assert odd_partition.values == (odd,) and odd_partition.rows == 1
    assert inventory.partition("dt=__HIVE_DEFAULT_PARTITION__").values == (None,)


def test_outside_root_small_files_and_unregistered_dirs(
    client: MetastoreClient, settings: Settings, builder: HiveTableBuilder, tables_root: Path
) -> None:
    builder.add_partition(
        ["far"], {"000000_0": _rows(1)}, location=tables_root / "elsewhere" / builder.name
    )
    builder.add_partition(["many"], {f"{i:06d}_0": _rows(1) for i in range(16)})
    (builder.location / "dt=stray").mkdir()
    inventory = _inspect(client, builder, settings)
    assert _codes(inventory, "dt=far") == {"outside-table-root"}
    assert _codes(inventory, "dt=many") == {"small-files"}
    assert inventory.unregistered_dirs == ("dt=stray",)


def test_metastore_refusals_become_lakeshift_errors(
    client: MetastoreClient, tables_root: Path
) -> None:
    from lakeshift.errors import MetastoreRefused

    table = ddl.external_table(
        "inspect_cases", unique_name("dup"), COLUMNS, (), ddl.location_uri(tables_root / "dup")
    )
    ddl.ensure_database(client, "inspect_cases")
    client.create_table(table)
    with pytest.raises(MetastoreRefused, match=table.tableName):
        client.create_table(table)


def test_missing_table_and_database(client: MetastoreClient, settings: Settings) -> None:
    with pytest.raises(NotFound, match="nope"):
        inspect_table(client, "sample.nope", settings)
    with pytest.raises(NotFound, match="no_such_db"):
        inspect_table(client, "no_such_db.t", settings)


@pytest.mark.parametrize(
    ("change", "reason"),
    [
        ({"tableType": "VIRTUAL_VIEW"}, "view"),
        ({"parameters": {"transactional": "true"}, "bucketed": True}, "transactional"),
        ({"bucketed": True}, "bucketed"),
        ({"fmt": "parquet"}, "parquet"),
    ],
)
def test_unsupported_tables_are_refused(
    client: MetastoreClient,
    settings: Settings,
    tables_root: Path,
    change: dict[str, object],
    reason: str,
) -> None:
    name = unique_name("refused")
    ddl.ensure_database(client, "inspect_cases")
    table = ddl.external_table(
        "inspect_cases",
        name,
        COLUMNS,
        (("dt", "string"),),
        ddl.location_uri(tables_root / name),
        fmt=str(change.get("fmt", "orc")),
    )
    if "tableType" in change:
        table.tableType = change["tableType"]
    if "parameters" in change:
        # Hive 2.3 only accepts managed, bucketed ORC tables as transactional.
        table.tableType = "MANAGED_TABLE"
        del table.parameters["EXTERNAL"]
        table.parameters.update(change["parameters"])  # type: ignore[arg-type]
    if change.get("bucketed"):
        table.sd.numBuckets, table.sd.bucketCols = 4, ["id"]
    client.create_table(table)
    with pytest.raises(UnsupportedTable, match=reason):
        inspect_table(client, f"inspect_cases.{name}", settings)

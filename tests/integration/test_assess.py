"""`lakeshift assess DB`: every table classified from the metastore and footers, no Spark, and
a bulk file that `lakeshift bulk` accepts."""

from __future__ import annotations

import json
from pathlib import Path

import pyarrow as pa
from click.testing import CliRunner

from lakeshift.bulk.spec import load_bulk_spec
from lakeshift.cli.main import cli
from lakeshift.errors import EXIT_NOT_FOUND
from lakeshift.metastore.client import MetastoreClient
from tests.helpers.hive_tables import HiveTableBuilder, unique_name


def _rows(n: int) -> pa.Table:
    return pa.table({"id": pa.array(range(n), pa.int64()), "v": [f"v{i}" for i in range(n)]})


def _builder(
    client: MetastoreClient, root: Path, db: str, name: str, **kw: object
) -> HiveTableBuilder:
    return HiveTableBuilder(client, root, db, name, [("id", "bigint"), ("v", "string")], **kw)  # type: ignore[arg-type]


def test_assess_classifies_every_table_and_writes_a_bulk_file(
    client: MetastoreClient, metastore_uri: str, tables_root: Path, tmp_path: Path
) -> None:
    db = unique_name("assess")
    ready = _builder(client, tables_root, db, "ready")
    for p in range(3):
        ready.add_partition([str(p)], {"000000_0": _rows(100)})
    managed = _builder(client, tables_root, db, "managed")
    managed.add_partition(["0"], {"000000_0": _rows(10)})
    entry = client.get_table(db, "managed")
    entry.tableType, entry.parameters["EXTERNAL"] = "MANAGED_TABLE", "FALSE"
    client.alter_table(db, "managed", entry)
    partial = _builder(client, tables_root, db, "partial")
    partial.add_partition(["0"], {"000000_0": _rows(10)})
    bad = partial.add_partition(["1"], {"000000_0": _rows(10)})
    (bad / "000001_0").write_bytes(b"ORC" + b"\x00broken" * 10)
    text = _builder(client, tables_root, db, "texty", table_format="text")
    text.add_partition(["0"], fmt="text")
    entry = client.get_table(db, "texty")  # a CSV SerDe table: not read by lakeshift
    entry.sd.serdeInfo.serializationLib = "org.apache.hadoop.hive.serde2.OpenCSVSerde"
    client.alter_table(db, "texty", entry)

    result = CliRunner().invoke(
        cli,
        [
            *("--home", str(tmp_path), "--metastore-uri", metastore_uri, "--output", "json"),
            *("assess", db, "--format", "delta"),
        ],
    )
    assert result.exit_code == 0, result.output
    document = json.loads(result.output)
    verdicts = {t["table"].split(".")[1]: t for t in document["tables"]}
    assert verdicts["ready"]["verdict"] == "ready" and verdicts["ready"]["rows"] == 300
    assert verdicts["ready"]["estimated_seconds"] is not None
    assert verdicts["managed"]["verdict"] == "attention"
    assert any("managed-table" in r for r in verdicts["managed"]["reasons"])
    assert verdicts["partial"]["verdict"] == "partial"
    assert verdicts["partial"]["refused_partitions"] == 1
    assert verdicts["texty"]["verdict"] == "refused"
    assert document["rate_measured"] is False

    spec = load_bulk_spec(Path(document["bulk_file"]))
    assert sorted(t.source.split(".")[1] for t in spec.tables) == ["managed", "partial", "ready"]
    assert {t.format for t in spec.tables} == {"delta"}

    missing = CliRunner().invoke(
        cli, ["--home", str(tmp_path), "--metastore-uri", metastore_uri, "assess", "no_such_db"]
    )
    assert missing.exit_code == EXIT_NOT_FOUND and "no_such_db" in missing.output

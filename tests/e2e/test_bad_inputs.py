"""The catalog of bad inputs (README "Bad inputs"): each case through the real CLI, checked for
its documented exit code, a message naming the object and the fix, the Hive source unchanged and
nothing half-done visible (no target table, or only the healthy partitions committed).

Cases already tested elsewhere are listed in README with their test; this file holds the rest
and the cases that need the CLI's own handling (exit codes, messages, no traceback).
"""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest
from click.testing import CliRunner

from lakeshift.cli.main import cli
from lakeshift.errors import (
    EXIT_ENVIRONMENT,
    EXIT_NOT_FOUND,
    EXIT_PARTIAL,
    EXIT_REFUSED,
    EXIT_USAGE,
)
from lakeshift.formats import format_of
from lakeshift.metastore import ddl
from lakeshift.metastore.client import MetastoreClient
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.source_state import source_snapshot

pytestmark = pytest.mark.slow
DB = "bad_inputs"
COLUMNS = [("id", "bigint"), ("name", "string")]


def _rows(ids: range) -> pa.Table:
    return pa.table({"id": pa.array(list(ids), pa.int64()), "name": [f"n{i}" for i in ids]})


@dataclass
class Case:
    """What to run and what must come out."""

    args: list[str]
    code: int
    says: list[str]
    table: str | None = None  # the Hive source whose files and entry must not change
    target: str | None = None  # must not exist afterwards (None: not checked)
    committed: set[str] | None = None  # the target's partitions afterwards, when one exists
    env: dict[str, str] = field(default_factory=dict)
    home: Path | None = None


@dataclass
class Env:
    client: MetastoreClient
    uri: str
    root: Path
    tmp: Path

    def table(self, **kwargs: Any) -> HiveTableBuilder:
        return HiveTableBuilder(self.client, self.root, DB, unique_name("t"), COLUMNS, **kwargs)

    def good(self, partitions: int = 2) -> HiveTableBuilder:
        b = self.table()
        for p in range(partitions):
            b.add_partition([str(p)], {"000000_0": _rows(range(p * 10, p * 10 + 10))})
        return b

    def raw_table(self, change: Callable[[Any], None]) -> str:
        """A table created over Thrift with one change to its entry (views, ACID, ...)."""
        name = unique_name("raw")
        ddl.ensure_database(self.client, DB)
        entry = ddl.external_table(
            DB, name, COLUMNS, (("dt", "string"),), ddl.location_uri(self.root / DB / name)
        )
        change(entry)
        self.client.create_table(entry)
        return f"{DB}.{name}"


def _migrate(table: str, *extra: str) -> list[str]:
    return ["migrate", table, "--target", f"{table}_lake", *extra]


# -- the cases -------------------------------------------------------------------------------


def missing_database(env: Env) -> Case:
    return Case(["inspect", "no_such_db.t"], EXIT_NOT_FOUND, ["no_such_db"])


def missing_table(env: Env) -> Case:
    env.good(1)
    return Case(_migrate(f"{DB}.no_such_table"), EXIT_NOT_FOUND, [f"{DB}.no_such_table"])


def partition_filter_matches_nothing(env: Env) -> Case:
    b = env.good()
    t = f"{b.db}.{b.name}"
    return Case(
        _migrate(t, "--partitions", "dt=99"),
        EXIT_NOT_FOUND,
        ["dt=99", t],
        table=t,
        target=f"{t}_lake",
    )


def malformed_partition_filter(env: Env) -> Case:
    b = env.good()
    t = f"{b.db}.{b.name}"
    return Case(
        _migrate(t, "--partitions", "dt"), EXIT_NOT_FOUND, ["'dt'", t], table=t, target=f"{t}_lake"
    )


def table_name_without_database(env: Env) -> Case:
    return Case(["inspect", "orders"], EXIT_USAGE, ["orders", "DATABASE.TABLE"])


def hostile_table_name(env: Env) -> Case:
    return Case(["inspect", "db.t; DROP TABLE x"], EXIT_USAGE, ["DROP TABLE x", "Hive table name"])


def view(env: Env) -> Case:
    def make_view(entry: Any) -> None:
        entry.tableType = "VIRTUAL_VIEW"
        entry.viewOriginalText = entry.viewExpandedText = "SELECT 1"

    t = env.raw_table(make_view)
    return Case(_migrate(t), EXIT_REFUSED, [t, "view", "tables it reads"], target=f"{t}_lake")


def acid_table(env: Env) -> Case:
    def make_acid(entry: Any) -> None:
        entry.tableType = "MANAGED_TABLE"
        del entry.parameters["EXTERNAL"]
        entry.parameters["transactional"] = "true"
        entry.sd.numBuckets, entry.sd.bucketCols = 2, ["id"]

    t = env.raw_table(make_acid)
    return Case(_migrate(t), EXIT_REFUSED, [t, "ACID", "compaction"], target=f"{t}_lake")


def bucketed_table(env: Env) -> Case:
    def make_bucketed(entry: Any) -> None:
        entry.sd.numBuckets, entry.sd.bucketCols = 4, ["id"]

    t = env.raw_table(make_bucketed)
    return Case(
        _migrate(t), EXIT_REFUSED, [t, "bucketed by id", "non-bucketed"], target=f"{t}_lake"
    )


def parquet_table(env: Env) -> Case:
    b = env.table(table_format="parquet")
    t = f"{b.db}.{b.name}"
    return Case(_migrate(t), EXIT_REFUSED, [t, "parquet", "ORC"], table=t, target=f"{t}_lake")


def csv_serde_table(env: Env) -> Case:
    """A text table read by a SerDe other than LazySimpleSerDe is refused whole."""

    def csv(entry: Any) -> None:
        entry.sd.inputFormat = ddl.TEXT_INPUT
        entry.sd.serdeInfo.serializationLib = "org.apache.hadoop.hive.serde2.OpenCSVSerde"

    t = env.raw_table(csv)
    return Case(_migrate(t), EXIT_REFUSED, [t, "OpenCSVSerde", "ORC"], target=f"{t}_lake")


def text_file_with_unreadable_codec(env: Env) -> Case:
    """A text partition whose file uses a Hadoop codec lakeshift cannot read (Snappy framing)
    is refused, naming the file and the codec; the other partitions migrate."""
    b = env.good()
    b.add_partition(["8"], {"000000_0.snappy": b"\x00\x00\x00\x05garbage"}, fmt="text")
    t = f"{b.db}.{b.name}"
    return Case(
        _migrate(t),
        EXIT_PARTIAL,
        ["dt=8", "000000_0.snappy", "Snappy"],
        table=t,
        committed={"dt=0", "dt=1"},
    )


def managed_table_cutover(env: Env) -> Case:
    """Managed tables migrate (validate and switch too); their cutover is refused at once
    (renaming a managed table moves its files)."""
    b = env.good(1)
    t = f"{b.db}.{b.name}"
    entry = env.client.get_table(b.db, b.name)
    entry.tableType = "MANAGED_TABLE"
    del entry.parameters["EXTERNAL"]
    env.client.alter_table(b.db, b.name, entry)
    base = ["--home", str(env.tmp / "home"), "--metastore-uri", env.uri]
    migrated = CliRunner().invoke(cli, [*base, *_migrate(t)])
    assert migrated.exit_code == 0, migrated.output
    return Case(
        ["cutover", t, "--target", f"{t}_lake", "--yes"],
        EXIT_REFUSED,
        [t, "managed table", "EXTERNAL"],
        table=t,
    )


def _with_bad_file(env: Env, payload: Callable[[bytes], bytes]) -> Case:
    b = env.good()
    good = (b.partition_dir(["0"]) / "000000_0").read_bytes()
    bad = b.partition_dir(["9"])
    bad.mkdir(parents=True)
    (bad / "000000_0").write_bytes(payload(good))
    b.add_partition(["9"], {})
    t = f"{b.db}.{b.name}"
    return Case(
        _migrate(t), EXIT_PARTIAL, ["dt=9", "000000_0"], table=t, committed={"dt=0", "dt=1"}
    )


def garbage_orc_file(env: Env) -> Case:
    return _with_bad_file(env, lambda good: b"ORC" + b"\x00garbage" * 40)


def truncated_orc_file(env: Env) -> Case:
    return _with_bad_file(env, lambda good: good[: len(good) // 2])


def zero_length_orc_file(env: Env) -> Case:
    """Hive skips zero-length files; so does lakeshift, and everything migrates."""
    b = env.good()
    (b.partition_dir(["1"]) / "000001_0").write_bytes(b"")
    t = f"{b.db}.{b.name}"
    return Case(_migrate(t), 0, [], table=t, committed={"dt=0", "dt=1"})


def schema_that_cannot_map(env: Env) -> Case:
    """A partition whose file cannot be read as the table's columns is refused, named with the
    column and file; the other partitions migrate (exit 3: partial)."""
    b = env.good()
    struct = pa.table({"id": pa.array([{"a": 1}], pa.struct([("a", pa.int32())])), "name": ["x"]})
    b.add_partition(["7"], {"000000_0": struct})
    t = f"{b.db}.{b.name}"
    return Case(
        _migrate(t),
        EXIT_PARTIAL,
        ["dt=7", "struct<a:int> cannot be read as bigint", "000000_0"],
        table=t,
        committed={"dt=0", "dt=1"},
    )


def hostile_partition_values(env: Env) -> Case:
    """Quotes, spaces, `/`, `=`, `%`, unicode and Hive's NULL partition migrate as values."""
    b = env.table()
    values = ["it's", "a b", "x/y", "k=v", "50%", "ünï", None]
    for i, value in enumerate(values):
        b.add_partition([value], {"000000_0": _rows(range(i, i + 1))})
    t = f"{b.db}.{b.name}"
    names = set(env.client.partition_names(b.db, b.name))
    return Case(_migrate(t), 0, [], table=t, committed=names)


def unreachable_metastore(env: Env) -> Case:
    from lakeshift.platform.ports import free_port

    uri = f"thrift://127.0.0.1:{free_port()}"
    return Case(
        ["--metastore-uri", uri, "inspect", "a.b"],
        EXIT_ENVIRONMENT,
        [uri, "does not answer"],
        env={"LAKESHIFT_METASTORE_TIMEOUT": "1"},
    )


def _garbage_server() -> int:
    """A TCP server on 127.0.0.1 that answers every connection with bytes that are not Thrift."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(8)

    def serve() -> None:
        while True:
            conn, _ = server.accept()
            with conn:
                conn.sendall(b"HTTP/1.1 400 Bad Request\r\n\r\n" * 4)

    threading.Thread(target=serve, daemon=True).start()
    return int(server.getsockname()[1])


def not_a_metastore(env: Env) -> Case:
    uri = f"thrift://127.0.0.1:{_garbage_server()}"
    return Case(
        ["--metastore-uri", uri, "inspect", "a.b"],
        EXIT_ENVIRONMENT,
        [uri, "not as a Hive Metastore"],
        env={"LAKESHIFT_METASTORE_TIMEOUT": "2"},
    )


def malformed_metastore_uri(env: Env) -> Case:
    return Case(
        ["--metastore-uri", "http://127.0.0.1:9083", "inspect", "a.b"],
        EXIT_USAGE,
        ["http://127.0.0.1:9083", "thrift://HOST:PORT"],
    )


def foreign_table_at_the_target_name(env: Env) -> Case:
    b = env.good()
    other = env.good(1)
    t = f"{b.db}.{b.name}"
    return Case(
        ["migrate", t, "--target", f"{other.db}.{other.name}"],
        EXIT_REFUSED,
        [f"{other.db}.{other.name}", "--target"],
        table=f"{other.db}.{other.name}",
    )


def state_directory_not_writable(env: Env) -> Case:
    """The state directory cannot be created (its parent is a file; chmod does not stop root)."""
    b = env.good(1)
    blocker = env.tmp / "a-file"
    blocker.write_text("not a directory")
    t = f"{b.db}.{b.name}"
    return Case(_migrate(t), EXIT_ENVIRONMENT, [str(blocker)], table=t, home=blocker / "home")


def config_syntax_error(env: Env) -> Case:
    home = env.tmp / "home-syntax"
    home.mkdir()
    (home / "lakeshift.toml").write_text("batch_rows = = 5\n")
    return Case(["inspect", "a.b"], EXIT_USAGE, ["lakeshift.toml"], home=home)


def config_unknown_key(env: Env) -> Case:
    home = env.tmp / "home-unknown"
    home.mkdir()
    (home / "lakeshift.toml").write_text("bacth_rows = 5\n")
    return Case(["inspect", "a.b"], EXIT_USAGE, ["bacth_rows"], home=home)


def config_bad_value(env: Env) -> Case:
    home = env.tmp / "home-value"
    home.mkdir()
    (home / "lakeshift.toml").write_text('mapping_mode = "sideways"\n')
    return Case(["inspect", "a.b"], EXIT_USAGE, ["mapping_mode", "sideways"], home=home)


def bulk_file_missing(env: Env) -> Case:
    path = env.tmp / "nowhere.toml"
    return Case(["bulk", str(path)], EXIT_USAGE, ["nowhere.toml"])


def bulk_file_bad_format(env: Env) -> Case:
    path = env.tmp / "bad-format.toml"
    path.write_text('[[tables]]\nsource = "a.b"\nformat = "orc"\n')
    return Case(["bulk", str(path), "--dry-run"], EXIT_USAGE, ["format", "orc"])


def bad_flag_value(env: Env) -> Case:
    b = env.good(1)
    t = f"{b.db}.{b.name}"
    return Case(_migrate(t, "--batch-rows", "-5"), EXIT_USAGE, ["-5"], table=t, target=f"{t}_lake")


CASES = [
    missing_database,
    missing_table,
    partition_filter_matches_nothing,
    malformed_partition_filter,
    table_name_without_database,
    hostile_table_name,
    view,
    acid_table,
    bucketed_table,
    parquet_table,
    csv_serde_table,
    text_file_with_unreadable_codec,
    managed_table_cutover,
    garbage_orc_file,
    truncated_orc_file,
    zero_length_orc_file,
    schema_that_cannot_map,
    hostile_partition_values,
    unreachable_metastore,
    not_a_metastore,
    malformed_metastore_uri,
    foreign_table_at_the_target_name,
    state_directory_not_writable,
    config_syntax_error,
    config_unknown_key,
    config_bad_value,
    bulk_file_missing,
    bulk_file_bad_format,
    bad_flag_value,
]


@pytest.fixture
def env(
    client: MetastoreClient, metastore_uri: str, tables_root: Path, tmp_path: Path
) -> Iterator[Env]:
    yield Env(client, metastore_uri, tables_root, tmp_path)


def _partitions(client: MetastoreClient, target: str) -> set[str]:
    from tests.helpers.lake import read_lake

    return set(read_lake(client, target).column("partitionpath").to_pylist())


@pytest.mark.parametrize("make", CASES, ids=[c.__name__ for c in CASES])
def test_bad_input(make: Callable[[Env], Case], env: Env, spark: Any) -> None:
    case = make(env)
    before = source_snapshot(env.client, *case.table.split(".")) if case.table else None
    home = case.home or env.tmp / "home"
    args = ["--home", str(home), "--output", "json"]
    if "--metastore-uri" not in case.args:
        args += ["--metastore-uri", env.uri]
    result = CliRunner().invoke(cli, [*args, *case.args], env=case.env)
    assert result.exit_code == case.code, result.output
    assert "Traceback" not in result.output
    try:
        document = json.loads(result.output)
    except json.JSONDecodeError:
        # click's own usage errors (bad flag values) print its usage text, exit 2
        assert case.code == EXIT_USAGE and "Error:" in result.output, result.output
        document = {"error": {"message": result.output, "hint": "see --help"}}
    text = json.dumps(document, ensure_ascii=False)
    if case.code:
        error = document["error"]
        assert error["message"] and error["hint"], error  # the object, and what to do
    for fragment in case.says:
        assert fragment.lower() in text.lower(), (fragment, document)
    if before is not None:
        assert source_snapshot(env.client, *str(case.table).split(".")) == before
    if case.target is not None:
        assert format_of(env.client, case.target) is None, "a target was left behind"
    if case.committed is not None and case.table is not None:
        assert _partitions(env.client, f"{case.table}_lake") == case.committed


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_a_target_database_that_does_not_exist_is_created_in_every_format(
    fmt: str, env: Env, spark: Any
) -> None:
    b = env.good(1)
    database = unique_name(f"new_{fmt}")
    assert database not in env.client.get_all_databases()
    target = f"{database}.t"
    args = ["--home", str(env.tmp / "home"), "--metastore-uri", env.uri, "--output", "json"]
    result = CliRunner().invoke(
        cli, [*args, "migrate", f"{b.db}.{b.name}", "--target", target, "--format", fmt]
    )
    assert result.exit_code == 0, result.output
    assert database in env.client.get_all_databases()
    assert format_of(env.client, target) == fmt
    assert _partitions(env.client, target) == {"dt=0"}

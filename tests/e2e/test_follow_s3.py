"""``lakeshift follow --once`` on moto's S3, catalogued in the Hive Metastore and in Glue.

As a cron job would run it: passes from the CLI (JSON output, exit codes), writers putting
objects into partitions the metastore is not told of, adding and dropping partitions through
the catalog; the lake table read back by its format's own reader over S3 after every pass.
"""

from __future__ import annotations

import json
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc
import pytest
from click.testing import CliRunner

from lakeshift.cli.main import cli
from lakeshift.config import load_settings
from lakeshift.context import Context
from lakeshift.errors import EXIT_BEHIND, EXIT_ENVIRONMENT, EXIT_NOT_FOUND, EXIT_OK
from lakeshift.metastore import ddl
from lakeshift.metastore.catalog import CatalogClient
from lakeshift.storage import StorageOptions
from tests.helpers import glue, s3
from tests.helpers.lake import read_lake
from tests.helpers.s3 import MotoServer
from tests.helpers.tcp_gate import TcpGate

pytestmark = pytest.mark.slow
QUIET = 1.0


@pytest.fixture(scope="module")
def rules(moto: MotoServer) -> Iterator[glue.GlueRules]:
    found, session = glue.install_rules(moto.endpoint)
    yield found
    found.uninstall(session)


def _home(root: Path, conf: dict[str, str], metastore_uri: str | None, moto: MotoServer) -> Path:
    """A state directory whose lakeshift.toml reaches moto's S3 (and Glue without a
    metastore URI), as a user's would."""
    root.mkdir(parents=True, exist_ok=True)
    keys = (
        {"metastore_uri": metastore_uri}
        if metastore_uri
        else {"catalog": "glue", "glue_endpoint": moto.endpoint, "glue_region": glue.REGION}
    )
    lines = [f'{k} = "{v}"' for k, v in keys.items()] + ["[spark_conf]"]
    lines += [f'"{k}" = "{v}"' for k, v in conf.items()]
    (root / "lakeshift.toml").write_text("\n".join(lines) + "\n")
    return root


def _put(moto: MotoServer, key: str, ids: range) -> None:
    sink = pa.BufferOutputStream()
    orc.write_table(pa.table({"id": pa.array(list(ids), pa.int64())}), sink)
    moto.client().put_object(Bucket=s3.BUCKET, Key=key, Body=sink.getvalue().to_pybytes())


def _endpoint_down_for_a_pass(home: Path, moto: MotoServer, args: tuple[str, ...]) -> None:
    """A pass while the S3 endpoint refuses connections fails as unreachable (exit 5) before
    it acts: nothing is withdrawn, copied or recorded as a pass."""
    gate = TcpGate("127.0.0.1", int(moto.endpoint.rsplit(":", 1)[1])).open()
    gate.shut()
    settings_file = home / "lakeshift.toml"
    reachable = settings_file.read_text()
    settings_file.write_text(reachable.replace(moto.endpoint, f"http://127.0.0.1:{gate.port}"))
    try:
        code, down = _follow(home, *args)
    finally:
        settings_file.write_text(reachable)
    message = down["error"]["message"]
    assert code == EXIT_ENVIRONMENT and "did not answer" in message, down
    assert f"listing s3://{s3.BUCKET}/" in message, down  # the source's listing, first of all


def _follow(home: Path, *args: str) -> tuple[int, dict[str, Any]]:
    result = CliRunner().invoke(
        cli,
        ["--home", str(home), "--output", "json", "follow", *args, "--once"],
        catch_exceptions=False,
    )
    return result.exit_code, json.loads(result.output)


@pytest.mark.parametrize(
    ("catalog", "fmt"),
    [
        # make test: the two formats its every-command S3 and Glue flows leave to make extended
        pytest.param("hive", "hudi", id="hive-hudi"),
        pytest.param("glue", "delta", id="glue-delta"),
        pytest.param("hive", "iceberg", id="hive-iceberg", marks=pytest.mark.extended),
        pytest.param("hive", "delta", id="hive-delta", marks=pytest.mark.extended),
        pytest.param("glue", "iceberg", id="glue-iceberg", marks=pytest.mark.extended),
        pytest.param("glue", "hudi", id="glue-hudi", marks=pytest.mark.extended),
    ],
)
def test_follow_once_on_s3_keeps_the_lake_in_step(
    catalog: str,
    fmt: str,
    tmp_path: Path,
    metastore_uri: str,
    moto: MotoServer,
    object_store_conf: dict[str, str],
    rules: glue.GlueRules,
) -> None:
    if not object_store_conf:
        pytest.fail("the S3A connector jars are missing: run `make test` (it fetches them)")
    uri = metastore_uri if catalog == "hive" else None
    home = _home(tmp_path / "home", object_store_conf, uri, moto)
    ctx = Context(load_settings({"home": home}, env={}))
    client: CatalogClient = ctx.metastore
    db, name = f"follow_{catalog}", f"orders_{fmt}"
    prefix = f"follow/{catalog}/{fmt}/orders"
    location = f"s3a://{s3.BUCKET}/{prefix}"
    ddl.ensure_database(client, db, f"s3a://{s3.BUCKET}/warehouse/{db}.db")
    if client.table_exists(db, name):
        client.drop_table(db, name)
    client.create_table(ddl.external_table(db, name, [("id", "bigint")], [("dt", "int")], location))
    rows = {1: range(0, 10), 2: range(100, 105), 3: range(200, 220)}
    for day, ids in rows.items():
        _put(moto, f"{prefix}/dt={day}/000000_0", ids)
    client.add_partitions(
        [ddl.partition(db, name, [str(d)], [("id", "bigint")], f"{location}/dt={d}") for d in rows]
    )
    source, target = f"{db}.{name}", f"{db}.{name}_lake"
    args = (source, "--target", target, "--format", fmt, "--quiet-seconds", str(QUIET))
    storage = StorageOptions.from_spark_conf(object_store_conf)

    def lake() -> Counter[tuple[int, int]]:
        return Counter(
            (r["id"], int(r["dt"])) for r in read_lake(client, target, storage).to_pylist()
        )

    def expected() -> Counter[tuple[int, int]]:
        return Counter((i, d) for d, ids in rows.items() for i in ids)

    time.sleep(QUIET + 0.2)
    code, first = _follow(home, *args)
    assert code == EXIT_OK, first
    assert first["in_step"] and len(first["last"]["switched"]) == 3
    assert lake() == expected()

    # An upload into a switched partition (the metastore not told), a new partition, a drop.
    _put(moto, f"{prefix}/dt=1/upload_1.orc", range(10, 14))
    rows[1] = range(0, 14)
    _put(moto, f"{prefix}/dt=4/000000_0", range(400, 403))
    client.add_partitions([ddl.partition(db, name, ["4"], [("id", "bigint")], f"{location}/dt=4")])
    rows[4] = range(400, 403)
    client.drop_partition(db, name, ["2"])
    del rows[2]
    code, second = _follow(home, *args)
    assert code == EXIT_BEHIND, second  # the upload and the new partition are still settling
    last = second["last"]
    assert {"dt=1", "dt=2"} <= set(last["withdrawn"]) and last["deleted"] == ["dt=2"]
    assert set(last["changes"]["changed"]) == {"dt=1"} and last["changes"]["added"] == ["dt=4"]
    assert not last["backfilled"] and {"dt=1", "dt=4"} <= set(last["behind"])
    assert 2 not in {d for _, d in lake()}, "a dropped partition left the lake table"

    time.sleep(QUIET + 0.2)
    code, third = _follow(home, *args)
    assert code == EXIT_OK, third
    assert set(third["last"]["backfilled"]) == {"dt=1", "dt=4"}
    assert set(third["last"]["switched"]) == {"dt=1", "dt=4"}
    assert third["last"]["requests"]["footer_reads"] <= 2  # the two new objects only
    assert lake() == expected()

    # Nothing changed: the source is listed in one request, not one per partition.
    listings = moto.requests("list-type=2", f"prefix={prefix}")
    code, fourth = _follow(home, *args)
    assert code == EXIT_OK and not fourth["last"]["backfilled"], fourth
    assert fourth["last"]["requests"]["directory_listings"] == 1
    assert moto.requests("list-type=2", f"prefix={prefix}") - listings == 1
    if catalog == "hive":  # (with Glue the catalog is the same endpoint: that is the metastore's)
        _endpoint_down_for_a_pass(home, moto, args)
        assert lake() == expected()
    status = CliRunner().invoke(cli, ["--home", str(home), "--output", "json", "status", source])
    document = json.loads(status.output)
    assert document["follow"]["in_step"] and document["follow"]["passes"] == 4
    assert {r["partition"]: r["served_from"] for r in document["rows"]} == {
        "dt=1": "lake",
        "dt=3": "lake",
        "dt=4": "lake",
    }

    # The Hive table dropped while followed: exit 6 naming it, the lake table keeps its rows.
    client.drop_table(db, name)
    code, gone = _follow(home, *args)
    assert code == EXIT_NOT_FOUND and source in gone["error"]["message"], gone
    assert lake() == expected()
    ctx.close()

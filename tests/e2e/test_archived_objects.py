"""Objects in an archive storage class on S3 (moto's server), for every format.

Lifecycle rules move old partitions' objects to S3 Glacier Flexible Retrieval or Deep Archive,
where every GET fails until they are restored. The listing names the class, so an archived
object is never read: its partition is refused as ``archived`` by default, migrated without it
under ``archived_objects = "skip"`` (what was left out counted in every report), and a restored
object is read like any other. The server's own log shows that no GET reached the object.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import pyarrow as pa
import pyarrow.orc as orc
import pytest
from click.testing import CliRunner

from lakeshift.cli.main import cli
from lakeshift.errors import EXIT_PARTIAL
from lakeshift.metastore import ddl
from lakeshift.metastore.client import MetastoreClient
from lakeshift.storage import StorageOptions
from tests.helpers import s3
from tests.helpers.lake import read_lake
from tests.helpers.migration import EACH_FORMAT_EXTENDED
from tests.helpers.s3 import MotoServer

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def home(tmp_path_factory: pytest.TempPathFactory, object_store_conf: dict[str, str]) -> Path:
    if not object_store_conf:
        pytest.fail("the S3A connector jars are missing: run `make test` (it fetches them)")
    home = tmp_path_factory.mktemp("archived-home")
    lines = ["[spark_conf]", *(f'"{k}" = "{v}"' for k, v in object_store_conf.items())]
    (home / "lakeshift.toml").write_text("\n".join(lines) + "\n")
    return home


def _run(home: Path, uri: str, *args: str) -> tuple[int, Any]:
    result = CliRunner().invoke(
        cli, ["--home", str(home), "--metastore-uri", uri, "--output", "json", *args]
    )
    try:
        return result.exit_code, json.loads(result.output)
    except json.JSONDecodeError:
        return result.exit_code, result.output


def _orc(ids: range) -> bytes:
    sink = pa.BufferOutputStream()
    orc.write_table(pa.table({"id": pa.array(ids, pa.int64())}), sink)
    return bytes(sink.getvalue().to_pybytes())


#: One request in the server's access log: ``"GET /bucket/key HTTP/1.1"`` (werkzeug colours some
#: lines: escape codes before the method).
_REQUEST = re.compile(r'"(?:\x1b\[[0-9;]*m)*([A-Z]+) (\S+) HTTP')


def _gets(log: Path, name: str) -> int:
    """GET requests of objects whose key holds ``name`` (listings are GETs of the bucket,
    their prefix in the query)."""
    found = (_REQUEST.search(line) for line in log.read_text(errors="replace").splitlines())
    paths = [unquote(m.group(2)).split("?", 1)[0] for m in found if m and m.group(1) == "GET"]
    return sum(1 for path in paths if name in path)


def _table(moto: MotoServer, client: MetastoreClient, fmt: str) -> tuple[str, str, int]:
    """dt=1 plain; dt=2 one plain file and one in GLACIER (numRows counts both); dt=3 one
    DEEP_ARCHIVE file, restored. Returns the table, the archived file's name and its size."""
    s3c, prefix, glacier = moto.client(), f"archived/{fmt}/events", f"{fmt}_glacier_0"
    body = _orc(range(20, 25))
    s3c.put_object(Bucket=s3.BUCKET, Key=f"{prefix}/dt=1/000000_0", Body=_orc(range(0, 3)))
    s3c.put_object(Bucket=s3.BUCKET, Key=f"{prefix}/dt=2/000000_0", Body=_orc(range(10, 13)))
    s3c.put_object(
        Bucket=s3.BUCKET, Key=f"{prefix}/dt=2/{glacier}", Body=body, StorageClass="GLACIER"
    )
    deep = f"{prefix}/dt=3/000000_0"
    s3c.put_object(
        Bucket=s3.BUCKET, Key=deep, Body=_orc(range(30, 32)), StorageClass="DEEP_ARCHIVE"
    )
    s3c.restore_object(Bucket=s3.BUCKET, Key=deep, RestoreRequest={"Days": 1})
    assert 'ongoing-request="false"' in s3c.head_object(Bucket=s3.BUCKET, Key=deep)["Restore"]
    db, name, location = f"arch_{fmt}", "events", f"s3a://{s3.BUCKET}/{prefix}"
    ddl.ensure_database(client, db, f"s3a://{s3.BUCKET}/warehouse/{db}.db")
    if client.table_exists(db, name):
        client.drop_table(db, name, delete_data=False)
    columns, keys = [("id", "bigint")], [("dt", "int")]
    client.create_table(ddl.external_table(db, name, columns, keys, location))
    stats = {"2": {"numRows": "8"}}  # 3 readable rows + the 5 archived ones
    client.add_partitions(
        [
            ddl.partition(db, name, [d], columns, f"{location}/dt={d}", parameters=stats.get(d))
            for d in ("1", "2", "3")
        ]
    )
    return f"{db}.{name}", glacier, len(body)


@EACH_FORMAT_EXTENDED
def test_archived_objects_are_refused_or_skipped_never_read_and_restored_ones_read(
    fmt: str,
    home: Path,
    lakeshift_home: Path,
    metastore_uri: str,
    moto: MotoServer,
    client: MetastoreClient,
    object_store_conf: dict[str, str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    log = lakeshift_home.parent / "moto.log"  # the session server's access log (conftest)
    table, glacier, size = _table(moto, client, fmt)
    target = f"{table}_lake"

    # Refused by default, at inspect and plan, naming the object and both ways out.
    code, inventory = _run(home, metastore_uri, "inspect", table)
    assert code == 0, inventory
    parts = {p["name"]: p for p in inventory["partitions"]}
    (archived,) = [a for a in parts["dt=2"]["anomalies"] if a["code"] == "archived"]
    assert archived["severity"] == "error"
    assert f"dt=2/{glacier} (GLACIER)" in archived["message"], archived
    assert "restore" in archived["action"] and 'archived_objects = "skip"' in archived["action"]
    assert [f["path"] for f in parts["dt=3"]["files"]] == ["000000_0"]  # restored: read
    assert parts["dt=3"]["rows"] == 2 and not parts["dt=3"]["anomalies"]
    code, plan = _run(home, metastore_uri, "plan", table, "--target", target, "--format", fmt)
    assert code == 0, plan
    states = {p["name"]: (p["state"], p["reason"]) for p in plan["partitions"]}
    assert states["dt=2"][0] == "refused" and states["dt=2"][1].startswith("archived: ")
    code, out = _run(home, metastore_uri, "migrate", table, "--target", target, "--format", fmt)
    assert code == EXIT_PARTIAL, out
    assert sorted(out["backfilled"]) == ["dt=1", "dt=3"], out
    assert str(out["refused"]["dt=2"]).startswith("archived: "), out["refused"]

    # Skipped on request, as Athena does: counted and named in plan, migrate and validate.
    monkeypatch.setenv("LAKESHIFT_ARCHIVED_OBJECTS", "skip")
    left_out = {"partitions": 1, "objects": 1, "bytes": size, "rows": 5}
    code, plan = _run(home, metastore_uri, "plan", table, "--target", target)
    assert code == 0, plan
    assert plan["archived_skipped_totals"] == left_out, plan["archived_skipped_totals"]
    assert any(glacier in note and "5 row(s)" in note for note in plan["notes"]), plan["notes"]
    code, out = _run(home, metastore_uri, "migrate", table, "--target", target)
    assert code == 0, out
    assert out["backfilled"] == ["dt=2"] and out["archived_skipped_totals"] == left_out, out
    assert out["archived_skipped"][0]["paths"] == [glacier]
    code, report = _run(home, metastore_uri, "validate", table, "--target", target)
    assert code == 0, report
    assert report["totals"]["equal"] == 3 and report["archived_skipped_totals"] == left_out
    code, html = _run(home, metastore_uri, "report", table)
    assert code == 0, html
    assert glacier in Path(html["html"]).read_text()  # the report names it too

    lake = read_lake(client, target, StorageOptions.from_spark_conf(object_store_conf))
    assert sorted(lake.column("id").to_pylist()) == [0, 1, 2, 10, 11, 12, 30, 31]
    # Not one GET reached the archived object; the restored one was read.
    assert _gets(log, glacier) == 0
    assert _gets(log, f"archived/{fmt}/events/dt=3/000000_0") > 0

"""Inspection on S3 (moto's server on 127.0.0.1): requests and seconds per partition.

On an object store requests are the cost: each listing, HEAD and ranged read is one. The same
partitioned ORC table is built at two sizes and inspected; the requests lakeshift makes are
counted from the server's access log (one line per request), so "flat as partitions grow"
reads directly as requests per partition at both sizes. Needs the S3A jars `make test` fetches
(the embedded metastore resolves every s3a:// location it registers).
"""

from __future__ import annotations

import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.orc as orc

from lakeshift.config import load_settings
from lakeshift.context import Context
from lakeshift.inspect import inspect_table
from lakeshift.metastore import ddl
from tests.helpers import s3

COLUMNS = [("id", "bigint"), ("name", "string")]


def _requests(log: Path) -> int:
    return sum(1 for line in log.read_text(errors="replace").splitlines() if '"' in line)


def _build(moto: s3.MotoServer, ctx: Context, partitions: int) -> str:
    rows = pa.table({"id": pa.array(range(50), pa.int64()), "name": [f"n{i}" for i in range(50)]})
    sink = pa.BufferOutputStream()
    orc.write_table(rows, sink)
    body = sink.getvalue().to_pybytes()
    client = moto.client()
    prefix = f"bench/t{partitions}"
    with ThreadPoolExecutor(8) as pool:
        list(
            pool.map(
                lambda p: client.put_object(
                    Bucket=s3.BUCKET, Key=f"{prefix}/p={p}/000000_0", Body=body
                ),
                range(partitions),
            )
        )
    db, name = "s3bench", f"t{partitions}"
    metastore = ctx.metastore
    ddl.ensure_database(metastore, db, f"s3a://{s3.BUCKET}/warehouse/{db}.db")
    if metastore.table_exists(db, name):
        metastore.drop_table(db, name, delete_data=False)
    location = f"s3a://{s3.BUCKET}/{prefix}"
    metastore.create_table(ddl.external_table(db, name, COLUMNS, [("p", "int")], location))
    for start in range(0, partitions, 500):
        metastore.add_partitions(
            [
                ddl.partition(db, name, [str(p)], COLUMNS, f"{location}/p={p}")
                for p in range(start, min(start + 500, partitions))
            ]
        )
    return f"{db}.{name}"


def run(home: Path, sizes: tuple[int, ...] = (100, 1000)) -> dict[str, Any]:
    jars = s3.connector_jars()
    if jars is None:
        raise SystemExit("the S3A jars are missing: run `make test` once (it fetches them)")
    log = home / "moto.log"
    home.mkdir(parents=True, exist_ok=True)
    log.unlink(missing_ok=True)
    moto = s3.MotoServer.start(log)
    try:
        moto.client().create_bucket(Bucket=s3.BUCKET)
        conf = s3.spark_conf(moto.endpoint, jars)
        settings = load_settings({"home": home, "spark_conf": conf}, env={})
        ctx = Context(settings)
        result: dict[str, Any] = {"scenario": "s3inspect"}
        for partitions in sizes:
            table = _build(moto, ctx, partitions)
            before = _requests(log)
            started = time.monotonic()
            inventory = inspect_table(ctx.metastore, table, settings)
            seconds = time.monotonic() - started
            requests = _requests(log) - before
            assert inventory.summary()["rows"] == partitions * 50
            result[f"p{partitions}"] = {
                "partitions": partitions,
                "seconds": round(seconds, 2),
                "requests": requests,
                "requests_per_partition": round(requests / partitions, 2),
                "ms_per_partition": round(seconds * 1000 / partitions, 2),
            }
        small, large = (result[f"p{n}"] for n in (sizes[0], sizes[-1]))
        result["ratio_requests_per_partition_large_over_small"] = round(
            large["requests_per_partition"] / small["requests_per_partition"], 2
        )
        ctx.close()
        ctx.embedded_metastore.stop()
        return result
    finally:
        moto.stop()

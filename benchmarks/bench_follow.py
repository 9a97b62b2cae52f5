"""``follow`` passes over a large table of which 1% changes: seconds per pass, lag, requests.

At each size the table is migrated and switched by follow's own first passes (untimed), then:
a pass with nothing changed; 1% of the partitions get a file appended (an upload pipeline);
the pass that serves them from Hive again; after the quiet period the pass that copies, proves
and switches them. The lag is the time from the change to the end of that pass; the stale
window is what the withdrawing pass measured. On S3 (``s3follow``, moto's server) the requests
of each pass are counted from the server's access log, as ``bench_s3`` does.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.synthetic import SyntheticTable, build_table
from lakeshift.context import Context
from lakeshift.follow.passes import FollowOptions, PassReport, run_pass
from lakeshift.follow.state import FollowState
from lakeshift.inspect.footer_cache import FooterCache

QUIET = 2.0


def _passes(ctx: Context, table: str, quiet: float) -> tuple[FollowState, FooterCache, Any]:
    state = FollowState(ctx.journal.path)
    cache = FooterCache()
    options = FollowOptions(f"{table}_follow", quiet_seconds=quiet, batch_rows=1_000_000)

    def one() -> tuple[PassReport, float]:
        started = time.monotonic()
        report = run_pass(ctx, table, options, state, cache)
        return report, time.monotonic() - started

    return state, cache, one


def _append(table: SyntheticTable, every: int) -> list[int]:
    changed = list(range(0, table.partitions, every))
    template = next((table.location / "p=0").iterdir())
    for index in changed:
        shutil.copyfile(template, table.location / f"p={index}" / "upload_1.orc")
    return changed


def run_local(ctx: Context, root: Path, sizes: list[int]) -> dict[str, Any]:
    result: dict[str, Any] = {"scenario": "follow", "quiet_seconds": QUIET}
    for size in sizes:
        table = build_table(
            ctx.metastore, root, f"follow_{size}", partitions=size, files_per_partition=1,
            rows_per_file=20,
        )  # fmt: skip
        time.sleep(QUIET)
        state, _, one = _passes(ctx, table.qualified_name, QUIET)
        first, first_seconds = one()  # migrates, validates and switches everything
        assert first.in_step, first.behind
        idle, idle_seconds = one()
        changed_at = time.monotonic()
        changed = _append(table, 100)
        withdrawing, withdraw_seconds = one()
        assert set(withdrawing.withdrawn) == {f"p={i}" for i in changed}
        # A change is copied once a later listing finds it unchanged for the quiet period
        # (counted from the listing that first saw it, the withdrawing pass's).
        time.sleep(QUIET)
        catching_up, catch_up_seconds = one()
        lag = time.monotonic() - changed_at
        assert catching_up.in_step, catching_up.behind
        assert len(catching_up.backfilled) == len(changed), catching_up.backfilled
        result[f"p{size}"] = {
            "partitions": size,
            "changed": len(changed),
            "first_pass_seconds": round(first_seconds, 2),
            "unchanged_pass_seconds": round(idle_seconds, 2),
            "withdrawing_pass_seconds": round(withdraw_seconds, 2),
            "catch_up_pass_seconds": round(catch_up_seconds, 2),
            "lag_seconds": round(lag, 2),
            "stale_window_seconds": round(withdrawing.stale_seconds, 2),
            "footer_reads_unchanged_pass": idle.requests["footer_reads"],
            "footer_reads_catch_up_pass": catching_up.requests["footer_reads"],
        }
        state.close()
    small, large = (result[f"p{n}"] for n in (sizes[0], sizes[-1]))
    result["ratio_unchanged_pass_large_over_small_per_partition"] = round(
        (large["unchanged_pass_seconds"] / large["partitions"])
        / (small["unchanged_pass_seconds"] / small["partitions"]),
        2,
    )
    return result


def run_s3(home: Path, sizes: list[int]) -> dict[str, Any]:
    """Requests per pass on moto's S3: a pass with nothing changed, and the two passes after
    1% of the partitions got an object (counted from the server's access log)."""
    from benchmarks.bench_s3 import _build, _requests
    from lakeshift.config import load_settings
    from tests.helpers import s3

    jars = s3.connector_jars()
    if jars is None:
        raise SystemExit("the S3A jars are missing: run `make test` once (it fetches them)")
    log = home / "moto.log"
    home.mkdir(parents=True, exist_ok=True)
    log.unlink(missing_ok=True)
    moto = s3.MotoServer.start(log)
    result: dict[str, Any] = {"scenario": "s3follow", "quiet_seconds": QUIET}
    try:
        moto.client().create_bucket(Bucket=s3.BUCKET)
        conf = s3.spark_conf(moto.endpoint, jars)
        settings = load_settings(
            {"home": home, "spark_conf": conf, "spark_master": "local[2]", "shuffle_partitions": 4},
            env={},
        )
        ctx = Context(settings)
        for size in sizes:
            table = _build(moto, ctx, size)
            time.sleep(QUIET)
            state, _, one = _passes(ctx, table, QUIET)
            assert one()[0].in_step
            before = _requests(log)
            one()
            idle = _requests(log) - before
            changed = list(range(0, size, 100))
            body = moto.client().get_object(Bucket=s3.BUCKET, Key=f"bench/t{size}/p=0/000000_0")
            data = body["Body"].read()
            for index in changed:
                moto.client().put_object(
                    Bucket=s3.BUCKET, Key=f"bench/t{size}/p={index}/upload_1", Body=data
                )
            before = _requests(log)
            withdrawing, _ = one()
            after_withdraw = _requests(log) - before
            time.sleep(QUIET)
            before = _requests(log)
            catching_up, _ = one()
            after_catch_up = _requests(log) - before
            assert catching_up.in_step and len(withdrawing.withdrawn) == len(changed)
            result[f"p{size}"] = {
                "partitions": size,
                "changed": len(changed),
                "requests_unchanged_pass": idle,
                "requests_withdrawing_pass": after_withdraw,
                "requests_catch_up_pass": after_catch_up,
                "unchanged_pass_requests_per_partition": round(idle / size, 2),
            }
            state.close()
        ctx.close()
        ctx.embedded_metastore.stop()
    finally:
        moto.stop()
    return result


def run_s3_process(home: Path, sizes: list[int]) -> dict[str, Any]:
    """:func:`run_s3` in a process of its own: its Spark session needs the S3A connector and its
    own metastore, and the bench's session (started without them) is the process's only one."""
    out = home.with_name(home.name + ".json")
    out.unlink(missing_ok=True)
    command = [sys.executable, "-m", "benchmarks.bench_follow", str(home), str(out)]
    subprocess.run([*command, *map(str, sizes)], check=True)
    result: dict[str, Any] = json.loads(out.read_text())
    return result


if __name__ == "__main__":
    _home, _out, *_sizes = sys.argv[1:]
    Path(_out).write_text(json.dumps(run_s3(Path(_home), [int(n) for n in _sizes])))

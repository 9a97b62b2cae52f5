"""The metastore stops while a batch is being written, or while a switch updates the routing
view: the command fails with a clear error naming the metastore, nothing half-done is visible,
and a re-run (metastore back) finishes with exactly the source's rows.

These tests have their own metastore (stopping the session's would break every other test)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from lakeshift.errors import EXIT_ENVIRONMENT, PortInUse
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.faults import ENV, SIGNAL_ENV
from lakeshift.platform.metastore_server import EmbeddedMetastore
from lakeshift.platform.ports import free_port
from lakeshift.route.view_entry import current_digest, digest
from tests.faults._tables import assert_exact, small_table, wait_until_stopped
from tests.helpers.cli import lakeshift_command
from tests.helpers.lake import read_lake

pytestmark = [pytest.mark.slow, pytest.mark.faults]


@pytest.fixture
def own_metastore(tmp_path: Path) -> Iterator[EmbeddedMetastore]:
    server = EmbeddedMetastore(tmp_path / "hms", port=free_port())
    server.ensure_running()
    yield server
    server.stop()


def _restart(server: EmbeddedMetastore) -> None:
    """Start it again on its port, once the stopped one's sockets let go of it."""
    deadline = time.monotonic() + 120
    while True:
        try:
            server.ensure_running()
            return
        except PortInUse:
            if time.monotonic() > deadline:
                raise
            time.sleep(1)


def _env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("LAKESHIFT_")}
    env["LAKESHIFT_METASTORE_TIMEOUT"] = "3"
    return env


def _run(cmd: list[str]) -> None:
    done = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]


def _fails_when_stopped_at(
    cmd: list[str],
    point: str,
    server: EmbeddedMetastore,
    while_frozen: Callable[[], None] = lambda: None,
) -> None:
    """Run ``cmd`` frozen at ``point`` (then ``while_frozen()``), stop the metastore, let the
    command go on: it must exit 5 naming the metastore within a bounded time. The metastore is
    started again afterwards."""
    uri = server.status().uri
    process = subprocess.Popen(
        cmd,
        env={**_env(), ENV: point, SIGNAL_ENV: "SIGSTOP"},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert wait_until_stopped(process), f"the run never reached {point}"
        while_frozen()
        assert server.stop()
        started = time.monotonic()
        process.send_signal(signal.SIGCONT)
        out, err = process.communicate(timeout=600)
    finally:
        if process.poll() is None:
            process.kill()
            process.send_signal(signal.SIGCONT)
            process.wait(timeout=30)
    assert process.returncode == EXIT_ENVIRONMENT, out[-2000:] + err[-2000:]
    assert f"the Hive Metastore at {uri} does not answer" in err, err[-3000:]
    assert time.monotonic() - started < 120  # a bounded wait (metastore_timeout), not a hang
    _restart(server)


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
def test_metastore_stopped_during_a_batch(
    fmt: str, own_metastore: EmbeddedMetastore, tmp_path: Path
) -> None:
    uri = own_metastore.ensure_running()
    client = MetastoreClient(uri).connect()
    b, expected = small_table(client, tmp_path / "tables", "hms_down")
    source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_{fmt}"
    args = ["migrate", source, "--target", target, "--format", fmt, "--batch-rows", "90"]
    cmd = [*lakeshift_command(tmp_path / "home", uri), *args]
    frozen: list[int] = []

    def count_landed() -> None:  # frozen before the 2nd batch's commit: the 1st batch is in
        frozen.append(read_lake(client, target).num_rows)
        client.close()

    _fails_when_stopped_at(cmd, "before-commit:2", own_metastore, count_landed)
    client = MetastoreClient(uri).connect()
    try:
        # Nothing of the failed batch is visible: exactly what the first batch committed.
        assert 0 < frozen[0] == read_lake(client, target).num_rows
        _run(cmd)
        assert_exact(client, target, expected)
    finally:
        client.close()


def test_metastore_stopped_during_a_switch(
    own_metastore: EmbeddedMetastore, tmp_path: Path
) -> None:
    uri = own_metastore.ensure_running()
    client = MetastoreClient(uri).connect()
    b, expected = small_table(client, tmp_path / "tables", "hms_switch")
    source, view = f"{b.db}.{b.name}", f"{b.db}.{b.name}_routed"
    home = tmp_path / "home"
    _run([*lakeshift_command(home, uri), "migrate", source])
    _run([*lakeshift_command(home, uri), "validate", source])
    _run([*lakeshift_command(home, uri), "switch", source, "--partitions", "dt=0"])
    assert current_digest(client, view) == digest(["dt=0"])
    client.close()

    switch_all = [*lakeshift_command(home, uri), "switch", source, "--all-validated"]
    _fails_when_stopped_at(switch_all, "before-view-update", own_metastore)
    client = MetastoreClient(uri).connect()
    try:
        # The view still routes what it did before: no half-done switch is visible.
        assert current_digest(client, view) == digest(["dt=0"])
        _run(switch_all)
        assert current_digest(client, view) == digest([f"dt={p}" for p in range(4)])
        assert_exact(client, f"{source}_iceberg", expected)
    finally:
        client.close()

"""The metastore stops while a batch is being written: the run fails with a clear error that
names the metastore, no row of the failed batch is visible, and a re-run (metastore back) ends
with exactly the source's rows.

This test has its own metastore (stopping the session's would break every other test)."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

import pytest

from lakeshift.errors import EXIT_ENVIRONMENT, PortInUse
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.faults import ENV, SIGNAL_ENV
from lakeshift.platform.metastore_server import EmbeddedMetastore
from lakeshift.platform.ports import free_port
from tests.faults._tables import assert_exact, small_table
from tests.faults.test_two_processes import _stopped
from tests.helpers.cli import lakeshift_command
from tests.helpers.lake import read_lake

pytestmark = [pytest.mark.slow, pytest.mark.faults]


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


@pytest.mark.parametrize("fmt", ["iceberg", "delta"])
def test_metastore_stopped_during_a_batch(fmt: str, tmp_path: Path) -> None:
    server = EmbeddedMetastore(tmp_path / "hms", port=free_port())
    uri = server.ensure_running()
    client = MetastoreClient(uri).connect()
    try:
        b, expected = small_table(client, tmp_path / "tables", "hms_down")
        source, target = f"{b.db}.{b.name}", f"{b.db}.{b.name}_{fmt}"
        args = ["migrate", source, "--target", target, "--format", fmt, "--batch-rows", "90"]
        cmd = [*lakeshift_command(tmp_path / "home", uri), *args]
        env = {k: v for k, v in os.environ.items() if not k.startswith("LAKESHIFT_")}
        env["LAKESHIFT_METASTORE_TIMEOUT"] = "3"
        run = subprocess.Popen(
            cmd,
            env={**env, ENV: "before-commit:2", SIGNAL_ENV: "SIGSTOP"},
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        try:
            deadline = time.monotonic() + 240
            while not _stopped(run.pid) and run.poll() is None and time.monotonic() < deadline:
                time.sleep(0.2)
            assert _stopped(run.pid), "the run never reached its second batch"
            landed = read_lake(client, target).num_rows
            client.close()
            assert server.stop()
            started = time.monotonic()
            run.send_signal(signal.SIGCONT)
            out, err = run.communicate(timeout=600)
            failed_after = time.monotonic() - started
        finally:
            if run.poll() is None:
                run.kill()
                run.send_signal(signal.SIGCONT)
                run.wait(timeout=30)
        assert run.returncode == EXIT_ENVIRONMENT, out[-2000:] + err[-2000:]
        assert f"the Hive Metastore at {uri} does not answer" in err, err[-3000:]
        assert failed_after < 120  # a bounded wait (metastore_timeout), not a hang

        _restart(server)
        client = MetastoreClient(uri).connect()
        # Nothing of the failed batch is visible: exactly what the first batch committed.
        assert read_lake(client, target).num_rows == landed
        resumed = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=300)
        assert resumed.returncode == 0, resumed.stdout[-2000:] + resumed.stderr[-2000:]
        assert_exact(client, target, expected)
    finally:
        client.close()
        server.stop()

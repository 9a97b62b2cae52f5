"""The embedded Hive Metastore: a real standalone Hive 2.3.9 metastore over Thrift.

It runs from the Hive jars PySpark bundles, keeps its Derby database under the state directory,
and outlives the command that started it (pid file, log file, health check, clean stop), so that
its 10-15 s start-up is paid once. Note: Hive 2.3's metastore binds every interface.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from lakeshift.errors import JavaNotFound, LakeshiftError, MetastoreStartError, PortInUse
from lakeshift.metastore.client import MetastoreClient
from lakeshift.platform.hive_site import metastore_properties, render_hive_site
from lakeshift.platform.jars import spark_jars_glob
from lakeshift.platform.java import JavaRuntime, find_java
from lakeshift.platform.ports import free_port, port_is_free
from lakeshift.platform.processes import (
    log_tail,
    pid_alive,
    read_pid,
    spawn_detached,
    terminate,
)
from lakeshift.platform.state_dir import ensure_writable_dir

log = logging.getLogger(__name__)
MAIN_CLASS = "org.apache.hadoop.hive.metastore.HiveMetaStore"
_PREP_SCRIPT = """\
org.apache.hadoop.hive.conf.HiveConf conf = new org.apache.hadoop.hive.conf.HiveConf();
org.apache.hadoop.hive.metastore.txn.TxnDbUtil.prepDb(conf);
System.out.println("LAKESHIFT-PREPDB-OK");
/exit
"""


@dataclass(frozen=True)
class MetastoreStatus:
    running: bool
    pid: int | None
    port: int | None
    uri: str | None
    home: str
    log_file: str
    stale_pid_removed: bool = False

    def to_json(self) -> dict[str, object]:
        return asdict(self)


class EmbeddedMetastore:
    """Start, find, health-check and stop the embedded metastore under ``home/metastore``."""

    def __init__(
        self,
        home: Path,
        *,
        port: int = 0,
        start_timeout: float = 120.0,
        extra_jars: Sequence[str] = (),
        hadoop_properties: Mapping[str, str] | None = None,
        environment: Mapping[str, str] | None = None,
    ) -> None:
        self.home = home
        # Object-store connectors (the user's spark.jars), their fs.* settings and credentials
        # (as environment variables, never written to a file): the metastore resolves every
        # database and table location through a Hadoop file system.
        self.extra_jars = tuple(extra_jars)
        self.hadoop_properties = dict(hadoop_properties or {})
        self.environment = dict(environment or {})
        self.dir = home / "metastore"
        self.conf_dir = self.dir / "conf"
        self.db_dir = self.dir / "metastore_db"
        self.pid_file = self.dir / "metastore.pid"
        self.state_file = self.dir / "metastore.json"
        self.log_file = self.dir / "metastore.log"
        self.warehouse = home / "warehouse"
        self.requested_port = port
        self.start_timeout = start_timeout

    # status ------------------------------------------------------------------------------
    def _recorded_port(self) -> int | None:
        try:
            return int(json.loads(self.state_file.read_text())["port"])
        except (OSError, ValueError, KeyError):
            return None

    def status(self) -> MetastoreStatus:
        pid = read_pid(self.pid_file)
        stale = False
        if pid is not None and not pid_alive(pid, MAIN_CLASS):
            self.pid_file.unlink(missing_ok=True)
            log.warning("removed stale metastore pid file (pid %s is gone)", pid)
            pid, stale = None, True
        port = self._recorded_port() if pid is not None else None
        return MetastoreStatus(
            running=pid is not None,
            pid=pid,
            port=port,
            uri=f"thrift://127.0.0.1:{port}" if port else None,
            home=str(self.home),
            log_file=str(self.log_file),
            stale_pid_removed=stale,
        )

    # start -------------------------------------------------------------------------------
    @contextmanager
    def _start_lock(self) -> Iterator[None]:
        with (self.dir / "start.lock").open("w") as handle:
            fcntl.flock(handle, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(handle, fcntl.LOCK_UN)

    def ensure_running(self) -> str:
        """Return the Thrift URI of the embedded metastore, starting it when needed."""
        ensure_writable_dir(self.home)
        self.dir.mkdir(parents=True, exist_ok=True)
        with self._start_lock():
            current = self.status()
            if current.running and current.uri:
                MetastoreClient(current.uri, timeout=self.start_timeout).connect().close()
                return current.uri
            return self._start()

    def _start(self) -> str:
        java = find_java()
        self.conf_dir.mkdir(parents=True, exist_ok=True)
        self.warehouse.mkdir(parents=True, exist_ok=True)
        (self.conf_dir / "hive-site.xml").write_text(
            render_hive_site(
                {**metastore_properties(self.db_dir, self.warehouse), **self.hadoop_properties}
            )
        )
        port = self.requested_port or free_port()
        if not port_is_free(port):
            raise PortInUse(
                f"port {port} for the embedded metastore is already in use.",
                hint="Stop what listens there, or pass --metastore-port with a free port "
                "(0 picks one).",
            )
        if not (self.dir / ".txn-tables-ready").exists():
            self._prepare_transaction_tables(java)
        cmd = [
            str(java.java),
            "-Xmx768m",
            f"-Dderby.system.home={self.dir}",
            "-cp",
            self._classpath(),
            MAIN_CLASS,
            "-p",
            str(port),
        ]
        log.info("starting embedded metastore: %s", " ".join(cmd))
        proc = spawn_detached(
            cmd,
            cwd=self.dir,
            log_file=self.log_file,
            pid_file=self.pid_file,
            env={**os.environ, **self.environment} if self.environment else None,
        )
        self.state_file.write_text(json.dumps({"port": port, "pid": proc.pid}))
        uri = f"thrift://127.0.0.1:{port}"
        self._wait_until_answering(proc, uri)
        log.info("embedded metastore up at %s (pid %s)", uri, proc.pid)
        return uri

    def _classpath(self) -> str:
        return ":".join([str(self.conf_dir), spark_jars_glob(), *self.extra_jars])

    def _wait_until_answering(self, proc: subprocess.Popen[bytes], uri: str) -> None:
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                self.pid_file.unlink(missing_ok=True)
                tail = log_tail(self.log_file)
                error_cls = PortInUse if "Address already in use" in tail else MetastoreStartError
                raise error_cls(
                    f"the embedded metastore exited during start-up (code {proc.returncode}).\n"
                    f"Last lines of {self.log_file}:\n{tail}",
                    hint="Fix the cause shown above, then run `lakeshift metastore start` again.",
                )
            try:
                MetastoreClient(uri, timeout=1.0, call_timeout=10.0).connect().close()
                return
            except LakeshiftError:
                time.sleep(0.5)
        terminate(proc.pid, MAIN_CLASS)
        self.pid_file.unlink(missing_ok=True)
        raise MetastoreStartError(
            f"the embedded metastore did not answer within {self.start_timeout:.0f}s.\n"
            f"Last lines of {self.log_file}:\n{log_tail(self.log_file)}",
            hint="Check the log above; `lakeshift metastore stop` then start again.",
        )

    def _prepare_transaction_tables(self, java: JavaRuntime) -> None:
        """Create Hive's transaction tables once (Iceberg's HiveCatalog locks need them).

        Runs ``TxnDbUtil.prepDb`` in jshell before the metastore first opens the Derby database:
        embedded Derby admits one JVM at a time.
        """
        jshell = java.tool("jshell")
        if jshell is None:
            raise JavaNotFound(
                f"jshell was not found next to {java.java}; the embedded metastore needs a full "
                "JDK to prepare its database once.",
                hint="Install a JDK (Debian: `apt-get install openjdk-17-jdk-headless`).",
            )
        script = self.dir / "prepdb.jsh"
        script.write_text(_PREP_SCRIPT)
        with self.log_file.open("ab") as out:
            result = subprocess.run(
                [
                    str(jshell),
                    "--class-path",
                    self._classpath(),
                    "-R-Dderby.system.home=" + str(self.dir),
                    str(script),
                ],
                cwd=self.dir,
                stdout=subprocess.PIPE,
                stderr=out,
                timeout=300,
                check=False,
            )
            out.write(result.stdout)
        if b"LAKESHIFT-PREPDB-OK" not in result.stdout:
            raise MetastoreStartError(
                "could not prepare the embedded metastore's transaction tables.\n"
                f"Last lines of {self.log_file}:\n{log_tail(self.log_file)}",
                hint=f"Remove {self.db_dir} and try again.",
            )
        (self.dir / ".txn-tables-ready").write_text("ok")

    # stop --------------------------------------------------------------------------------
    def stop(self) -> bool:
        """Stop the metastore; True when one was running."""
        current = self.status()
        if not current.running or current.pid is None:
            return False
        stopped = terminate(current.pid, MAIN_CLASS)
        self.pid_file.unlink(missing_ok=True)
        return stopped

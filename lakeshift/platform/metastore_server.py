"""The embedded Hive Metastore: a real standalone Hive 2.3.9 metastore over Thrift.

It runs from the Hive jars PySpark bundles, keeps its Derby database under the state directory,
and outlives the command that started it (pid file, log file, health check, clean stop), so that
its 10-15 s start-up is paid once.

It listens on 127.0.0.1 unless told otherwise (``metastore_bind_host``; ``0.0.0.0`` is every
interface): its Thrift port has no authentication, so anyone who reaches it may drop or alter
tables. Hive 2.3's own ``HiveMetaStore`` main binds every interface and has no setting for it,
so the JVM runs ``HiveMetaStoreOnHost`` (``metastore_launcher``), which builds the server
``startMetaStore`` builds from Hive's own handler, processor and Thrift classes, on that host.
"""

from __future__ import annotations

import fcntl
import json
import logging
import os
import subprocess
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import asdict, dataclass
from pathlib import Path

from lakeshift.errors import (
    ConfigError,
    JavaNotFound,
    LakeshiftError,
    MetastoreStartError,
    PortInUse,
)
from lakeshift.metastore.client import MetastoreClient
from lakeshift.platform.hive_site import metastore_properties, render_hive_site
from lakeshift.platform.jars import spark_jars_glob
from lakeshift.platform.java import JavaRuntime, find_java
from lakeshift.platform.metastore_launcher import LAUNCHER_CLASS, compile_launcher
from lakeshift.platform.ports import (
    EVERY_INTERFACE,
    LOOPBACK,
    free_port,
    port_is_free,
    reachable_host,
)
from lakeshift.platform.processes import (
    log_tail,
    pid_alive,
    read_pid,
    spawn_detached,
    terminate,
)
from lakeshift.platform.state_dir import ensure_writable_dir

log = logging.getLogger(__name__)
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
    #: The address the running metastore listens on (``0.0.0.0``: every interface).
    bind_host: str | None = None

    def to_json(self) -> dict[str, object]:
        return asdict(self)


def thrift_uri(bind_host: str, port: int) -> str:
    """The URI clients on this machine use for a metastore bound to ``bind_host``."""
    return f"thrift://{reachable_host(bind_host)}:{port}"


class EmbeddedMetastore:
    """Start, find, health-check and stop the embedded metastore under ``home/metastore``.

    Args:
        home: the state directory.
        port: the port to listen on; 0 picks a free one.
        bind_host: the IPv4 address to listen on: 127.0.0.1 (this machine only), 0.0.0.0
            (every interface) or one interface's address.
    """

    def __init__(
        self,
        home: Path,
        *,
        port: int = 0,
        bind_host: str = LOOPBACK,
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
        self.bind_host = bind_host
        self.start_timeout = start_timeout
        self._derby_home = f"-Dderby.system.home={self.dir}"
        # Names this home's metastore on its command line (guards pid reuse): it is on the
        # launcher's and on that of Hive's own main, which lakeshift ran before the launcher,
        # so a metastore started then is still found and stopped. The space ends the path.
        self._marker = self._derby_home + " "

    # status ------------------------------------------------------------------------------
    def _recorded_address(self) -> tuple[str, int] | None:
        """The host and port the running metastore was started with (state file)."""
        try:
            state = json.loads(self.state_file.read_text())
            # A state file without a host is from a lakeshift that ran Hive's own main, which
            # binds every interface.
            return str(state.get("bind_host", EVERY_INTERFACE)), int(state["port"])
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            return None

    def status(self) -> MetastoreStatus:
        pid = read_pid(self.pid_file)
        stale = False
        if pid is not None and not pid_alive(pid, self._marker):
            self.pid_file.unlink(missing_ok=True)
            log.warning("removed stale metastore pid file (pid %s is gone)", pid)
            pid, stale = None, True
        address = self._recorded_address() if pid is not None else None
        host, port = address if address else (None, None)
        return MetastoreStatus(
            running=pid is not None,
            pid=pid,
            port=port,
            uri=thrift_uri(host, port) if host and port else None,
            home=str(self.home),
            log_file=str(self.log_file),
            stale_pid_removed=stale,
            bind_host=host,
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
                if current.bind_host != self.bind_host:
                    log.warning(
                        "the running embedded metastore listens on %s, not on %s "
                        "(metastore_bind_host): `lakeshift metastore stop`, then start it "
                        "again to move it",
                        current.bind_host,
                        self.bind_host,
                    )
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
        port = self._choose_port()
        launcher = self._prepare_first_start(java)
        cmd = [
            str(java.java),
            "-Xmx768m",
            self._derby_home,
            "-cp",
            f"{launcher}:{self._classpath()}",
            LAUNCHER_CLASS,
            self.bind_host,
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
        self.state_file.write_text(
            json.dumps({"port": port, "pid": proc.pid, "bind_host": self.bind_host})
        )
        uri = thrift_uri(self.bind_host, port)
        self._wait_until_answering(proc, uri)
        log.info(
            "embedded metastore up at %s, listening on %s (pid %s)", uri, self.bind_host, proc.pid
        )
        return uri

    def _choose_port(self) -> int:
        try:
            port = self.requested_port or free_port(self.bind_host)
            free = port_is_free(port, self.bind_host)
        except OSError as e:  # EADDRNOTAVAIL: no interface of this machine has that address
            raise ConfigError(
                f"metastore_bind_host {self.bind_host} is not an address of this machine "
                f"({e.strerror}).",
                hint="Set it to 127.0.0.1 (the default), 0.0.0.0 (every interface) or the "
                "address of one of this machine's interfaces.",
            ) from e
        if not free:
            raise PortInUse(
                f"port {port} on {self.bind_host} for the embedded metastore is already in use.",
                hint="Stop what listens there, or pass --metastore-port with a free port "
                "(0 picks one).",
            )
        return port

    def _classpath(self) -> str:
        return ":".join([str(self.conf_dir), spark_jars_glob(), *self.extra_jars])

    def _prepare_first_start(self, java: JavaRuntime) -> Path:
        """Compile the launcher and create the transaction tables, each once; return the
        launcher's class directory.

        javac runs beside jshell's database preparation: both are the first start's alone, and
        together they cost little more than the longer one.
        """
        with ThreadPoolExecutor(max_workers=1) as pool:
            compiled = pool.submit(
                compile_launcher, java, self._classpath(), self.dir / "launcher", self.log_file
            )
            if not (self.dir / ".txn-tables-ready").exists():
                self._prepare_transaction_tables(java)
            return compiled.result()

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
        terminate(proc.pid, self._marker)
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
        stopped = terminate(current.pid, self._marker)
        self.pid_file.unlink(missing_ok=True)
        return stopped

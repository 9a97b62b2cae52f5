"""HiveServer2 for pyhive access: the Spark Thrift Server that PySpark bundles, on loopback."""

from __future__ import annotations

import json
import logging
import os
import time
from dataclasses import dataclass
from pathlib import Path

from lakeshift.errors import MetastoreStartError, PortInUse
from lakeshift.platform.jars import spark_home
from lakeshift.platform.java import find_java
from lakeshift.platform.ports import free_port, port_answers, port_is_free
from lakeshift.platform.processes import (
    log_tail,
    pid_alive,
    read_pid,
    spawn_detached,
    terminate,
)

log = logging.getLogger(__name__)
MAIN_CLASS = "org.apache.spark.sql.hive.thriftserver.HiveThriftServer2"


@dataclass(frozen=True)
class HiveServer2Status:
    running: bool
    pid: int | None
    port: int | None


class HiveServer2:
    """Start and stop a HiveServer2-protocol server bound to 127.0.0.1."""

    def __init__(
        self, home: Path, metastore_uri: str, *, port: int = 0, start_timeout: float = 180.0
    ) -> None:
        self.dir = home / "hiveserver2"
        self.pid_file = self.dir / "hiveserver2.pid"
        self.state_file = self.dir / "hiveserver2.json"
        self.log_file = self.dir / "hiveserver2.log"
        self.metastore_uri = metastore_uri
        self.requested_port = port
        self.start_timeout = start_timeout

    def status(self) -> HiveServer2Status:
        pid = read_pid(self.pid_file)
        if pid is None or not pid_alive(pid, MAIN_CLASS):
            return HiveServer2Status(False, None, None)
        port = json.loads(self.state_file.read_text())["port"]
        return HiveServer2Status(True, pid, int(port))

    def start(self) -> int:
        """Start the server (or reuse a running one) and return its port."""
        current = self.status()
        if current.running and current.port:
            return current.port
        find_java()
        self.dir.mkdir(parents=True, exist_ok=True)
        port = self.requested_port or free_port()
        if not port_is_free(port):
            raise PortInUse(
                f"port {port} for HiveServer2 is already in use.",
                hint="Pick another port or stop what listens there.",
            )
        home = spark_home()
        cmd = [
            str(home / "bin" / "spark-submit"),
            "--master",
            "local[1]",
            "--conf",
            "spark.ui.enabled=false",
            "--conf",
            f"spark.hadoop.hive.metastore.uris={self.metastore_uri}",
            "--conf",
            "spark.sql.session.timeZone=UTC",
            "--conf",
            "spark.sql.hive.caseSensitiveInferenceMode=NEVER_INFER",
            "--conf",
            "spark.driver.memory=1g",
            "--conf",
            f"spark.sql.warehouse.dir={(self.dir / 'warehouse').resolve().as_uri()}",
            "--class",
            MAIN_CLASS,
            "spark-internal",
            "--hiveconf",
            f"hive.server2.thrift.port={port}",
            "--hiveconf",
            "hive.server2.thrift.bind.host=127.0.0.1",
        ]
        proc = spawn_detached(
            cmd,
            cwd=self.dir,
            log_file=self.log_file,
            pid_file=self.pid_file,
            env={**os.environ, "SPARK_HOME": str(home)},
        )
        self.state_file.write_text(json.dumps({"port": port}))
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise MetastoreStartError(
                    f"HiveServer2 exited during start-up.\n{log_tail(self.log_file)}",
                    hint=f"See {self.log_file}.",
                )
            if port_answers("127.0.0.1", port):
                log.info("HiveServer2 up on 127.0.0.1:%s", port)
                return port
            time.sleep(0.5)
        self.stop()
        raise MetastoreStartError(
            f"HiveServer2 did not listen within {self.start_timeout:.0f}s.\n"
            f"{log_tail(self.log_file)}",
            hint=f"See {self.log_file}.",
        )

    def stop(self) -> bool:
        pid = read_pid(self.pid_file)
        self.pid_file.unlink(missing_ok=True)
        # spark-submit execs java, so the recorded pid is the server JVM itself.
        return pid is not None and terminate(pid, MAIN_CLASS)

"""A Spark standalone cluster (one master, one or more workers) on 127.0.0.1, from PySpark's
own jars.

The worker's executors are separate JVMs with their own Python workers, so nothing reaches them
unless lakeshift ships it (jars through ``spark.jars``, its Python code through
``spark.submit.pyFiles``), the way it must on YARN or Kubernetes.
"""

from __future__ import annotations

import os
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from lakeshift.platform.jars import spark_home
from lakeshift.platform.ports import free_port

HOST = "127.0.0.1"
#: Spark logs these once the process is ready (Master.scala, Worker.scala).
_MASTER_READY = re.compile(r"I have been elected leader|Starting Spark master at")
_WORKER_READY = re.compile(r"Successfully registered with master")


@dataclass
class StandaloneCluster:
    """Start with :meth:`start`, stop with :meth:`stop`; logs stay under ``root``."""

    root: Path
    worker_cores: int = 1
    worker_memory: str = "1g"
    workers: int = 1
    port: int = 0
    processes: list[subprocess.Popen[bytes]] = field(default_factory=list)

    @property
    def master_url(self) -> str:
        return f"spark://{HOST}:{self.port}"

    @property
    def master_log(self) -> Path:
        return self.root / "master.log"

    @property
    def worker_log(self) -> Path:
        return self.worker_logs[0]

    @property
    def worker_logs(self) -> list[Path]:
        return [
            self.root / ("worker.log" if i == 0 else f"worker-{i}.log") for i in range(self.workers)
        ]

    @property
    def work_dir(self) -> Path:
        """Where the worker runs executors (each application's stderr is under it)."""
        return self.root / "work"

    def _env(self) -> dict[str, str]:
        env = dict(os.environ)
        env.update(
            SPARK_HOME=str(spark_home()),
            SPARK_LOCAL_IP=HOST,
            SPARK_LOCAL_HOSTNAME="localhost",
            SPARK_DAEMON_MEMORY="256m",
            SPARK_LOG_DIR=str(self.root),
            SPARK_WORKER_DIR=str(self.work_dir),
            # Executors' scratch space (shuffle, fetched jars and zips) stays under root too.
            SPARK_LOCAL_DIRS=str(self.root / "local"),
        )
        return env

    def _spawn(self, log: Path, *args: str) -> None:
        command = [str(spark_home() / "bin" / "spark-class"), *args]
        with log.open("ab") as out:
            self.processes.append(
                subprocess.Popen(
                    command,
                    stdout=out,
                    stderr=subprocess.STDOUT,
                    stdin=subprocess.DEVNULL,
                    env=self._env(),
                    start_new_session=True,
                )
            )

    def _wait_for(self, log: Path, ready: re.Pattern[str], timeout: float) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if log.exists() and ready.search(log.read_text(errors="replace")):
                return
            if any(p.poll() is not None for p in self.processes):
                break
            time.sleep(0.2)
        raise RuntimeError(f"Spark standalone did not start; {log}:\n{self.logs()}")

    def start(self, timeout: float = 90.0) -> StandaloneCluster:
        self.root.mkdir(parents=True, exist_ok=True)
        self.work_dir.mkdir(exist_ok=True)
        self.port = free_port(HOST)
        self._spawn(
            self.master_log,
            "org.apache.spark.deploy.master.Master",
            "--host",
            HOST,
            "--port",
            str(self.port),
            "--webui-port",
            str(free_port(HOST)),
        )
        self._wait_for(self.master_log, _MASTER_READY, timeout)
        for log in self.worker_logs:
            self._spawn(
                log,
                "org.apache.spark.deploy.worker.Worker",
                self.master_url,
                "--host",
                HOST,
                "--port",
                str(free_port(HOST)),
                "--webui-port",
                str(free_port(HOST)),
                "--cores",
                str(self.worker_cores),
                "--memory",
                self.worker_memory,
                "--work-dir",
                str(self.work_dir),
            )
        for log in self.worker_logs:
            self._wait_for(log, _WORKER_READY, timeout)
        return self

    def stop(self) -> None:
        """Worker first (it kills its executors), then the master."""
        for process in reversed(self.processes):
            if process.poll() is None:
                process.terminate()
                try:
                    process.wait(timeout=30)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait(timeout=10)
        self.processes.clear()

    def executor_logs(self) -> list[Path]:
        return sorted(self.work_dir.glob("app-*/*/stderr"))

    def logs(self, lines: int = 40) -> str:
        """The tail of every log the cluster wrote (master, worker, each executor)."""
        parts = []
        for path in (self.master_log, *self.worker_logs, *self.executor_logs()):
            text = path.read_text(errors="replace").splitlines() if path.exists() else []
            parts.append(f"--- {path} ---\n" + "\n".join(text[-lines:]))
        return "\n".join(parts)

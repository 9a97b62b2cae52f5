"""A real S3 API for tests: moto's server on 127.0.0.1, and the settings that reach it.

One server per test session serves every format's object-store tests (and, later, Glue).
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lakeshift.platform.ports import free_port
from tests.helpers.s3a_jars import jar_paths

REPO = Path(__file__).resolve().parents[2]
JAR_DIR = REPO / ".venv" / "test-jars"
#: The test's credentials: moto accepts any pair. The secret is distinctive so a test can grep
#: everything lakeshift wrote for it.
ACCESS_KEY = "AKIALAKESHIFTTEST"
SECRET_KEY = "lakeshift-test-secret-5f0c9a1e7d"
BUCKET = "lake"


@dataclass
class MotoServer:
    endpoint: str
    process: subprocess.Popen[bytes]
    log_file: Path | None = None

    @classmethod
    def start(cls, log_file: Path) -> MotoServer:
        port = free_port()
        moto = Path(sys.executable).with_name("moto_server")
        with log_file.open("ab") as out:
            process = subprocess.Popen(
                [str(moto), "-H", "127.0.0.1", "-p", str(port)],
                stdout=out,
                stderr=subprocess.STDOUT,
                stdin=subprocess.DEVNULL,
            )
        endpoint = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"moto_server exited ({process.returncode}); see {log_file}")
            try:
                urllib.request.urlopen(endpoint + "/moto-api/", timeout=1).close()
                return cls(endpoint, process, log_file)
            except OSError:
                time.sleep(0.2)
        process.kill()
        raise RuntimeError(f"moto_server did not answer within 60 s; see {log_file}")

    def requests(self, *words: str) -> int:
        """Requests the server has answered so far whose log line holds every word."""
        if self.log_file is None:
            return 0
        lines = self.log_file.read_text(errors="replace").splitlines()
        return sum(1 for line in lines if '"' in line and all(w in line for w in words))

    def stop(self) -> None:
        self.process.terminate()
        try:
            self.process.wait(10)
        except subprocess.TimeoutExpired:
            self.process.kill()

    def client(self, service: str = "s3") -> Any:
        import boto3

        return boto3.client(
            service,
            endpoint_url=self.endpoint,
            aws_access_key_id=ACCESS_KEY,
            aws_secret_access_key=SECRET_KEY,
            region_name="us-east-1",
        )


def connector_jars() -> list[Path] | None:
    """The S3A jars `make test` fetched, or None when they are not there."""
    paths = jar_paths(JAR_DIR)
    return paths if all(p.is_file() for p in paths) else None


def spark_conf(endpoint: str, jars: list[Path]) -> dict[str, str]:
    """What a user puts in ``[spark_conf]`` to run on this S3: Hadoop's S3A keys."""
    return {
        "spark.jars": ",".join(str(j) for j in jars),
        "spark.hadoop.fs.s3a.endpoint": endpoint,
        "spark.hadoop.fs.s3a.path.style.access": "true",
        "spark.hadoop.fs.s3a.connection.ssl.enabled": "false",
        "spark.hadoop.fs.s3a.endpoint.region": "us-east-1",
        "spark.hadoop.fs.s3a.access.key": ACCESS_KEY,
        "spark.hadoop.fs.s3a.secret.key": SECRET_KEY,
        # Catalogs hold every scheme clusters wrote for one bucket; outside EMR all are S3A.
        "spark.hadoop.fs.s3.impl": "org.apache.hadoop.fs.s3a.S3AFileSystem",
        "spark.hadoop.fs.s3n.impl": "org.apache.hadoop.fs.s3a.S3AFileSystem",
        # moto's server answers one request at a time quickly; keep S3A from waiting long on it.
        "spark.hadoop.fs.s3a.attempts.maximum": "3",
        "spark.hadoop.fs.s3a.retry.limit": "3",
    }

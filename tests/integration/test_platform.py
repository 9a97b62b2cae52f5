"""The real services: embedded metastore over Thrift, Spark, and their failure modes."""

from __future__ import annotations

import fcntl
import json
import socket
import struct
import sys
import time
from pathlib import Path

import pytest

from lakeshift.errors import JavaNotFound, MetastoreUnreachable, PortInUse, StateDirError
from lakeshift.metastore.client import MetastoreClient
from lakeshift.platform.java import find_java
from lakeshift.platform.metastore_server import EmbeddedMetastore
from lakeshift.platform.ports import free_port
from lakeshift.platform.state_dir import ensure_writable_dir
from lakeshift.sample.load import LoadResult

REPO = Path(__file__).resolve().parents[2]
MANIFEST = json.loads((REPO / "sample_data/click_log/manifest.json").read_text())


def test_sample_partitions_listed_through_thrift(
    client: MetastoreClient, sample_table: LoadResult
) -> None:
    names = client.partition_names("sample", "click_log")
    expected = [p for p in MANIFEST["partitions"] if p["registered"]]
    assert len(names) == len(expected) == sample_table.partitions
    fetched = {
        tuple(p.values): p for p in client.partitions_by_names("sample", "click_log", names, 7)
    }
    for entry in expected:
        value = entry["value"] or "__HIVE_DEFAULT_PARTITION__"
        partition = fetched[(value,)]
        assert partition.sd.location.endswith(entry["location"])
        assert [[c.name, c.type] for c in partition.sd.cols] == entry["columns"]
        assert partition.parameters["numRows"] == str(entry["num_rows_stat"])


def test_partitions_fetched_over_several_connections_come_in_the_order_of_the_names(
    client: MetastoreClient, sample_table: LoadResult
) -> None:
    names = client.partition_names("sample", "click_log")
    one_by_one = list(client.partitions_by_names("sample", "click_log", names, 3))
    at_once = list(client.partitions_by_names("sample", "click_log", names, 3, calls=4))
    assert [p.values for p in one_by_one] == [p.values for p in at_once]
    assert [repr(p) for p in at_once] == [repr(p) for p in one_by_one]
    assert client.get_table("sample", "click_log").sd.location  # this connection still works


def test_sample_rows_read_back_with_spark(spark, sample_table: LoadResult) -> None:  # type: ignore[no-untyped-def]
    entry = next(p for p in MANIFEST["partitions"] if p["value"] == "20220410")
    root = Path(sample_table.location).parent / entry["location"]
    frame = spark.read.orc([str(root / f["path"]) for f in entry["files"]])
    assert frame.count() == entry["rows"]
    first = frame.orderBy("event_id").first()
    assert first["event_id"].startswith("20220410-")
    assert frame.schema.names == [c for c, _ in entry["columns"]]


def test_second_start_reuses_the_running_metastore(embedded_metastore: EmbeddedMetastore) -> None:
    before = embedded_metastore.status()
    started = time.monotonic()
    uri = embedded_metastore.ensure_running()
    assert uri == before.uri
    assert embedded_metastore.status().pid == before.pid
    assert time.monotonic() - started < 5


def _non_loopback_ipv4() -> str | None:
    """An IPv4 address of one of this machine's own interfaces besides loopback, or None.

    Asked of the kernel interface by interface (Linux's SIOCGIFADDR ioctl): nothing is sent
    anywhere, and the test below only ever connects to this machine's own addresses.
    """
    siocgifaddr = 0x8915
    for _, name in socket.if_nameindex():
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            try:
                request = struct.pack("256s", name.encode()[:15])
                answer = fcntl.ioctl(sock.fileno(), siocgifaddr, request)
            except OSError:  # the interface has no IPv4 address
                continue
        address = socket.inet_ntoa(answer[20:24])
        if not address.startswith("127."):
            return address
    return None


def test_metastore_answers_on_loopback_only(
    embedded_metastore: EmbeddedMetastore, metastore_uri: str
) -> None:
    """The Thrift port has no authentication: by default no other interface reaches it."""
    address = _non_loopback_ipv4()
    if address is None:
        pytest.skip("this machine has no IPv4 address besides loopback to try the port on")
    port = int(metastore_uri.rsplit(":", 1)[1])
    assert embedded_metastore.status().bind_host == "127.0.0.1"
    with pytest.raises(ConnectionRefusedError):
        socket.create_connection((address, port), timeout=5).close()
    socket.create_connection(("127.0.0.1", port), timeout=5).close()
    with MetastoreClient(f"thrift://127.0.0.1:{port}", timeout=5) as client:
        assert "default" in client.get_all_databases()


def test_stale_pid_file_is_removed(tmp_path: Path) -> None:
    server = EmbeddedMetastore(tmp_path)
    server.dir.mkdir(parents=True)
    server.pid_file.write_text("999999")
    status = server.status()
    assert not status.running and status.stale_pid_removed
    assert not server.pid_file.exists()


def test_taken_port_is_a_clear_error(tmp_path: Path, metastore_uri: str) -> None:
    taken = int(metastore_uri.rsplit(":", 1)[1])
    with pytest.raises(PortInUse, match=str(taken)):
        EmbeddedMetastore(tmp_path, port=taken).ensure_running()


def test_unreachable_metastore_times_out_with_a_clear_error() -> None:
    uri = f"thrift://127.0.0.1:{free_port()}"
    started = time.monotonic()
    with pytest.raises(MetastoreUnreachable, match="does not answer") as caught:
        MetastoreClient(uri, timeout=1.5).connect()
    assert time.monotonic() - started < 10
    assert uri in str(caught.value)


def test_state_dir_that_cannot_be_written(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    with pytest.raises(StateDirError, match="--home"):
        ensure_writable_dir(blocker / "state")


def test_missing_java_names_the_package(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("JAVA_HOME", raising=False)
    monkeypatch.setenv("PATH", "/nonexistent")
    with pytest.raises(JavaNotFound, match="openjdk-17"):
        find_java()


def test_the_jvm_and_its_python_workers_write_to_the_log_not_the_terminal(spark) -> None:  # type: ignore[no-untyped-def]
    """A cancelled job's workers print PySpark's tracebacks on their stderr, which Spark copies
    to the JVM's: that must reach the log directory, never the user's terminal."""
    from pyspark import SparkContext

    marker = f"lakeshift-worker-stderr-{time.time_ns()}"

    def shout(rows):  # type: ignore[no-untyped-def]
        print(marker, file=sys.stderr, flush=True)
        return rows

    spark.sparkContext.parallelize([1], 1).mapPartitions(shout).collect()
    process = SparkContext._gateway.proc  # type: ignore[union-attr]
    output = Path(f"/proc/{process.pid}/fd/2").resolve()
    assert output.name == "spark-jvm.log" and output.parent.name == "logs"
    assert Path(f"/proc/{process.pid}/fd/1").resolve() == output
    deadline = time.monotonic() + 10  # Spark copies the workers' stderr from a thread
    while marker not in output.read_text() and time.monotonic() < deadline:
        time.sleep(0.1)
    assert marker in output.read_text()


def test_python_workers_import_the_standard_librarys_distutils(spark) -> None:  # type: ignore[no-untyped-def]
    """PySpark's Arrow tasks import ``distutils.version``; setuptools' copy costs each new
    worker 0.19 s (``spark_conf``). Python 3.12 has no standard one: the shim stays there."""
    if sys.version_info >= (3, 12):
        pytest.skip("Python 3.12 has no distutils of its own")

    def where(rows):  # type: ignore[no-untyped-def]
        import distutils.version

        yield distutils.version.__file__

    found = spark.sparkContext.parallelize([1], 1).mapPartitions(where).collect()
    assert len(found) == 1 and "setuptools" not in found[0]
    assert Path(found[0]).parent.name == "distutils"

"""HiveServer2 (the Spark Thrift Server PySpark ships) answers pyhive on loopback."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from lakeshift.platform.hiveserver2 import HiveServer2
from lakeshift.sample.load import LoadResult

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def hiveserver2(lakeshift_home: Path, metastore_uri: str) -> Iterator[int]:
    server = HiveServer2(lakeshift_home, metastore_uri)
    port = server.start()
    yield port
    server.stop()
    assert not server.status().running


@pytest.mark.slow
def test_pyhive_counts_a_partition(hiveserver2: int, sample_table: LoadResult) -> None:
    from pyhive import hive

    manifest = json.loads((REPO / "sample_data/click_log/manifest.json").read_text())
    expected = next(p["rows"] for p in manifest["partitions"] if p["value"] == "20220412")
    connection = hive.connect(host="127.0.0.1", port=hiveserver2, username="lakeshift")
    try:
        cursor = connection.cursor()
        cursor.execute("SELECT count(*) FROM sample.click_log WHERE yyyymmdd = '20220412'")
        assert cursor.fetchone()[0] == expected
    finally:
        connection.close()

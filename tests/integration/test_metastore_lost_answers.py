"""A call that changes the metastore, whose answer is lost on the way back (the metastore made
the change; the connection dropped before the client heard): the client's retry finds the
change made and reports it done, where a blind retry reported AlreadyExists or NotFound for
work that succeeded. A change that was not made is still made by the retry."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from urllib.parse import urlsplit

import pytest
from hive_metastore.ttypes import Database, Table

from lakeshift.errors import MetastoreRefused
from lakeshift.metastore import ddl
from lakeshift.metastore.client import MetastoreClient
from tests.helpers.hive_tables import unique_name
from tests.helpers.tcp_gate import TcpGate

pytestmark = pytest.mark.integration


@pytest.fixture
def gated(metastore_uri: str) -> Iterator[tuple[MetastoreClient, TcpGate]]:
    address = urlsplit(metastore_uri)
    gate = TcpGate(address.hostname or "127.0.0.1", address.port or 9083).open()
    with MetastoreClient(f"thrift://127.0.0.1:{gate.port}", timeout=10) as lossy:
        yield lossy, gate
    gate.shut()


def _table(db: str, name: str, root: Path) -> Table:
    return ddl.external_table(
        db, name, [("id", "int")], [("dt", "string")], ddl.location_uri(root / name)
    )


def test_changes_whose_answers_are_lost_are_made_once_and_reported_done(
    gated: tuple[MetastoreClient, TcpGate], client: MetastoreClient, tmp_path: Path
) -> None:
    lossy, gate = gated
    db, name = unique_name("lost_answers"), unique_name("t")

    gate.lose_answers(1)
    lossy.create_database(Database(name=db, description=None, locationUri=None, parameters={}))
    assert db in client.get_all_databases()

    gate.lose_answers(1)
    lossy.create_table(_table(db, name, tmp_path))
    assert client.table_exists(db, name)

    partition = ddl.partition(db, name, ["1"], [("id", "int")], ddl.location_uri(tmp_path / "1"))
    gate.lose_answers(1)
    assert lossy.add_partitions([partition]) == 1
    assert client.partition_names(db, name) == ["dt=1"]

    gate.lose_answers(1)
    lossy.drop_partition(db, name, ["1"])
    assert client.partition_names(db, name) == []

    renamed = client.get_table(db, name)
    renamed.tableName = f"{name}_renamed"
    gate.lose_answers(1)
    lossy.alter_table(db, name, renamed)
    assert not client.table_exists(db, name) and client.table_exists(db, f"{name}_renamed")

    gate.lose_answers(1)
    lossy.drop_table(db, f"{name}_renamed")
    assert not client.table_exists(db, f"{name}_renamed")
    assert gate.lost == 6  # every answer above was lost once, and the calls still succeeded


def test_a_table_another_client_created_is_still_refused(
    gated: tuple[MetastoreClient, TcpGate], client: MetastoreClient, tmp_path: Path
) -> None:
    """The retry takes a table at the name for its own only if it is the table it asked
    for: one at another location is another client's, and the create is refused."""
    lossy, gate = gated
    db, name = unique_name("lost_answers"), unique_name("t")
    ddl.ensure_database(client, db)
    client.create_table(_table(db, name, tmp_path / "theirs"))
    with pytest.raises(MetastoreRefused, match=r"already exists|AlreadyExists"):
        lossy.create_table(_table(db, name, tmp_path / "ours"))
    gate.lose_answers(1)
    with pytest.raises(MetastoreRefused, match=r"already exists|AlreadyExists"):
        lossy.create_table(_table(db, name, tmp_path / "ours"))
    assert gate.lost == 1
    assert client.get_table(db, name).sd.location.endswith("theirs/" + name)

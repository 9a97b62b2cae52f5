"""A target's location is read from its entry once while the catalog client changes no entry,
and read again after it made, replaced or dropped one (a cutover swaps what a name holds)."""

from __future__ import annotations

from typing import cast

from hive_metastore.ttypes import Database, StorageDescriptor, Table

from lakeshift.formats.base import EntryLocations
from lakeshift.metastore.catalog import CatalogClient


class _Entries:
    """Just what EntryLocations asks of a catalog client (pure logic: a fake is enough)."""

    def __init__(self) -> None:
        self.entry_changes = 0
        self.locations: dict[str, str] = {}
        self.reads = 0

    def entry(self, target: str) -> Table | None:
        self.reads += 1
        where = self.locations.get(target)
        return None if where is None else Table(sd=StorageDescriptor(location=where))

    def get_database(self, name: str) -> Database:
        return Database(name=name, locationUri=f"file:/warehouse/{name}.db")


def test_a_location_is_read_once_until_an_entry_changes() -> None:
    client = _Entries()
    locations = EntryLocations(cast(CatalogClient, client))

    def of(target: str) -> str:
        return locations.of(target, lambda: client.entry(target))

    # No entry yet: where it would be made, asked again each time.
    assert of("db.t") == "file:/warehouse/db.db/t" and of("db.t") == "file:/warehouse/db.db/t"
    assert client.reads == 2
    client.locations["db.t"] = "file:/lake/t"
    client.entry_changes += 1  # created
    assert [of("db.t") for _ in range(5)] == ["file:/lake/t"] * 5
    assert client.reads == 3
    client.locations["db.t"] = "file:/hive/t"  # the name now holds another table's entry
    client.entry_changes += 1
    assert of("db.t") == "file:/hive/t" and client.reads == 4

"""The catalog seam: what lakeshift asks of a table catalog, whichever service holds it.

Two implementations: :class:`~lakeshift.metastore.client.MetastoreClient` (a Hive Metastore over
Thrift) and :class:`~lakeshift.metastore.glue.GlueCatalog` (the AWS Glue Data Catalog). Tables,
partitions and databases travel as the Hive Metastore's Thrift value types (``Table``,
``Partition``, ``StorageDescriptor``, ``Database``): they hold everything Glue's ``TableInput``
and ``PartitionInput`` hold, so the rest of lakeshift builds and reads one shape.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

if TYPE_CHECKING:
    from hive_metastore.ttypes import Database, Partition, Table

#: The two catalogs lakeshift reads and writes (setting ``catalog``).
CATALOG_KINDS = ("hive", "glue")


@dataclass(frozen=True)
class Notification:
    """One entry of the metastore's notification log (``ADD_PARTITION``, ``ALTER_TABLE``...)."""

    event_id: int
    event_time: int
    event_type: str
    database: str | None
    table: str | None


@dataclass(frozen=True)
class NotificationBatch:
    """Events after a cursor, with the log's current id (events are read in order)."""

    current_id: int
    events: tuple[Notification, ...]


@runtime_checkable
class CatalogClient(Protocol):
    """One connection to a table catalog.

    Writes are whole-object replacements (a table's or partition's definition); an
    ``alter_table`` that finds the table changed since this client last read it raises
    :class:`~lakeshift.errors.ConcurrentChange` instead of overwriting (Glue's ``VersionId``;
    the Hive Metastore has no such check and replaces).
    """

    uri: str
    kind: str
    #: How many times this client changed a database or table entry (made, replaced, dropped,
    #: renamed), attempted or done: what an entry said holds while it stands still.
    entry_changes: int

    def connect(self) -> CatalogClient: ...

    def close(self) -> None: ...

    def get_all_databases(self) -> list[str]: ...

    def get_database(self, name: str) -> Database: ...

    def create_database(self, database: Database) -> None: ...

    def get_tables(self, db: str, pattern: str = "*") -> list[str]: ...

    def table_exists(self, db: str, table: str) -> bool: ...

    def get_table(self, db: str, table: str) -> Table: ...

    def create_table(self, table: Table) -> None: ...

    def alter_table(self, db: str, name: str, table: Table) -> None:
        """Replace the definition of ``db.name`` with ``table`` in one update; a different
        name in ``table`` renames (the entry only, never a file)."""

    def drop_table(self, db: str, table: str, *, delete_data: bool = False) -> None: ...

    def partition_names(self, db: str, table: str) -> list[str]: ...

    def partitions_by_names(
        self, db: str, table: str, names: Sequence[str], batch: int = 500, *, calls: int = 1
    ) -> Iterator[Partition]:
        """The partitions of ``names``, in their order, ``batch`` names per call to the
        catalog and ``calls`` calls in flight at once (``metastore.batches.in_order``)."""

    def add_partitions(self, partitions: Sequence[Partition]) -> int: ...

    def alter_partitions(self, db: str, table: str, partitions: Sequence[Partition]) -> None: ...

    def drop_partition(self, db: str, table: str, values: Sequence[str]) -> None: ...

    def notifications(self, after: int, limit: int = 1000) -> NotificationBatch | None:
        """Change events after id ``after``, or None where the catalog keeps no durable log
        (a Hive Metastore without ``DbNotificationListener``; Glue)."""

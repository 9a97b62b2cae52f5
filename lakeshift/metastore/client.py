"""A thin, typed Hive Metastore Thrift client.

Uses the generated ``hive_metastore`` bindings that ``pyiceberg[hive]`` ships; they speak to Hive
2.3+ metastores. Thrift and transport errors are translated here into lakeshift errors that name
the object and say what to do.
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal, TypeVar
from urllib.parse import urlparse

from thrift.protocol import TBinaryProtocol
from thrift.Thrift import TException
from thrift.transport import TSocket, TTransport

from lakeshift.errors import (
    MetastoreRefused,
    MetastoreUnreachable,
    NotFound,
    UsageError,
    causes,
    first_line,
)
from lakeshift.metastore.batches import in_order, ramped
from lakeshift.metastore.catalog import Notification, NotificationBatch

if TYPE_CHECKING:
    from hive_metastore.ttypes import Database, Partition, Table

log = logging.getLogger(__name__)
# TSocket logs every refused connection at ERROR; we retry and raise our own error instead.
logging.getLogger("thrift.transport.TSocket").setLevel(logging.CRITICAL)
T = TypeVar("T")


def _detached(error: Exception) -> Exception:
    """A plain copy of a generated Thrift exception.

    The generated exception classes are immutable, so Python cannot attach a traceback to them
    when they propagate (``TypeError: can't modify immutable instance``).
    """
    return RuntimeError(f"{type(error).__name__}: {getattr(error, 'message', None) or error!r}")


def parse_thrift_uri(uri: str) -> tuple[str, int]:
    """Split ``thrift://host:port`` into host and port."""
    parsed = urlparse(uri)
    if parsed.scheme != "thrift" or not parsed.hostname:
        raise UsageError(f"metastore URI {uri!r} is not of the form thrift://host:9083")
    return parsed.hostname, parsed.port or 9083


class MetastoreClient:
    """Connection to one Hive Metastore.

    Calls are serialised with a lock (a Thrift connection is not thread-safe) and a dropped
    connection is reopened once per call.
    """

    kind = "hive"

    def __init__(self, uri: str, *, timeout: float = 20.0, call_timeout: float = 120.0) -> None:
        self.uri = uri
        self.host, self.port = parse_thrift_uri(uri)
        self.timeout = timeout
        self.call_timeout = call_timeout
        self._lock = threading.RLock()
        self._transport: TTransport.TTransportBase | None = None
        self._client: Any = None
        self.entry_changes = 0

    # connection -------------------------------------------------------------------------
    def _open(self) -> None:
        from hive_metastore import ThriftHiveMetastore

        socket = TSocket.TSocket(self.host, self.port)
        socket.setTimeout(int(self.call_timeout * 1000))
        transport = TTransport.TBufferedTransport(socket)
        transport.open()
        self._transport = transport
        # The accelerated protocol decodes in C (fastbinary); ~5x faster on big partition lists.
        protocol = TBinaryProtocol.TBinaryProtocolAccelerated(transport)
        self._client = ThriftHiveMetastore.Client(protocol)

    def connect(self) -> MetastoreClient:
        """Open the connection, retrying with backoff for up to ``timeout`` seconds."""
        deadline = time.monotonic() + self.timeout
        delay = 0.25
        while True:
            try:
                with self._lock:
                    self._open()
                    self._client.get_all_databases()
                return self
            except (TException, OSError) as e:
                # Connected, then the Thrift call failed: something listens, but not a Hive
                # Metastore speaking plain Thrift (or one that requires SASL/Kerberos).
                answered = self._transport is not None and isinstance(e, TException)
                self.close()
                if time.monotonic() + delay > deadline:
                    if answered:
                        raise MetastoreUnreachable(
                            f"something answers at {self.uri}, but not as a Hive Metastore "
                            f"speaking plain Thrift ({e}).",
                            hint="Check the host and port (9083 is the metastore's usual "
                            "port); a metastore that requires SASL/Kerberos is not supported.",
                        ) from e
                    raise MetastoreUnreachable(
                        f"the Hive Metastore at {self.uri} does not answer ({e}).",
                        hint="Check that it is running and reachable from here, or omit "
                        "--metastore-uri to use the embedded metastore.",
                    ) from e
                log.info("metastore %s not answering (%s); retrying in %.1fs", self.uri, e, delay)
                time.sleep(delay)
                delay = min(delay * 2, 4.0)

    def close(self) -> None:
        with self._lock:
            if self._transport is not None:
                try:
                    self._transport.close()
                except (TException, OSError):  # closing a broken socket: nothing to save
                    log.debug("ignoring error while closing %s", self.uri)
            self._transport = None
            self._client = None

    def __enter__(self) -> MetastoreClient:
        return self.connect() if self._client is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(
        self, what: str, fn: Callable[[Any], T], *, settled: Callable[[], T | None] | None = None
    ) -> T:
        """``fn`` on the connection, once more on a new one if the connection is lost.

        ``settled``, for a call that changes the metastore: a connection lost during it hides
        whether the change was made, so before repeating it the retry asks ``settled``, which
        returns the call's result when the change is in place and None when it is not. (A
        blind retry of a create that was made fails as AlreadyExists, of a drop as NotFound:
        work done, reported as refused.)"""
        from hive_metastore.ttypes import NoSuchObjectException

        with self._lock:
            for attempt in (1, 2):
                try:
                    if self._client is None:
                        self.connect()
                    if attempt == 2 and settled is not None:
                        done = settled()
                        if done is not None:
                            log.info("%s: the change was made before the connection was lost", what)
                            return done
                    return fn(self._client)
                except NoSuchObjectException as e:
                    raise NotFound(
                        f"{what} does not exist in the metastore at {self.uri}.",
                        hint="Check the name (database.table) and try again.",
                    ) from _detached(e)
                except (TTransport.TTransportException, OSError, EOFError) as e:
                    self.close()
                    if attempt == 2:
                        raise MetastoreUnreachable(
                            f"lost the Hive Metastore at {self.uri} while working on {what} ({e}).",
                            hint="Check the metastore and re-run; lakeshift resumes safely.",
                        ) from e
                except TException as e:
                    # MetaException, AlreadyExists, InvalidObject, InvalidOperation, ...
                    raise MetastoreRefused(
                        f"the metastore at {self.uri} refused an operation on {what}: "
                        f"{getattr(e, 'message', None) or e!r}",
                        hint="Read the metastore's reason above; nothing was changed by lakeshift.",
                    ) from _detached(e)
            raise AssertionError("unreachable")

    # databases and tables ---------------------------------------------------------------
    def get_all_databases(self) -> list[str]:
        return self._call("database list", lambda c: list(c.get_all_databases()))

    def get_database(self, name: str) -> Database:
        return self._call(f"database {name!r}", lambda c: c.get_database(name))

    def create_database(self, database: Database) -> None:
        self.entry_changes += 1
        self._call(
            f"database {database.name!r}",
            lambda c: c.create_database(database),
            settled=lambda: _made(database.name in self.get_all_databases()),
        )

    def get_tables(self, db: str, pattern: str = "*") -> list[str]:
        return self._call(f"database {db!r}", lambda c: list(c.get_tables(db, pattern)))

    def table_exists(self, db: str, table: str) -> bool:
        try:
            self.get_table(db, table)
        except NotFound:
            return False
        return True

    def get_table(self, db: str, table: str) -> Table:
        from hive_metastore.ttypes import MetaException

        def fetch(c: Any) -> Table:
            try:
                return c.get_table(db, table)
            except MetaException as e:
                # Hive 2.3 raises MetaException, not NoSuchObject, for a missing database.
                if "does not exist" in str(e.message) or "not exist" in str(e):
                    raise NotFound(
                        f"database {db!r} does not exist in {self.uri}.",
                        hint="Check the database name.",
                    ) from _detached(e)
                raise

        return self._call(f"table {db}.{table}", fetch)

    def create_table(self, table: Table) -> None:
        self.entry_changes += 1

        def settled() -> Literal[True] | None:
            try:
                found = self.get_table(table.dbName, table.tableName)
            except NotFound:
                return None
            # made by this call, not by another client under the same name
            return _made(table.sd is None or found.sd.location == table.sd.location)

        self._call(
            f"table {table.dbName}.{table.tableName}",
            lambda c: c.create_table(table),
            settled=settled,
        )

    def alter_table(self, db: str, name: str, table: Table) -> None:
        """Replace a table's entry (a repeat of the same replacement changes nothing); a
        rename is made once."""
        renamed = (table.dbName.lower(), table.tableName.lower()) != (db.lower(), name.lower())
        self.entry_changes += 1

        def moved() -> Literal[True] | None:
            old, new = self.table_exists(db, name), self.table_exists(table.dbName, table.tableName)
            return _made(not old and new)

        self._call(
            f"table {db}.{name}",
            lambda c: c.alter_table(db, name, table),
            settled=moved if renamed else None,
        )

    def drop_table(self, db: str, table: str, *, delete_data: bool = False) -> None:
        self.entry_changes += 1
        self._call(
            f"table {db}.{table}",
            lambda c: c.drop_table(db, table, delete_data),
            settled=lambda: _made(not self.table_exists(db, table)),
        )

    # partitions -------------------------------------------------------------------------
    def partition_names(self, db: str, table: str) -> list[str]:
        return self._call(
            f"partitions of {db}.{table}", lambda c: list(c.get_partition_names(db, table, -1))
        )

    def partitions_by_names(
        self, db: str, table: str, names: Sequence[str], batch: int = 500, *, calls: int = 1
    ) -> Iterator[Partition]:
        """Yield partitions in batches of up to ``batch`` names per Thrift call (the first
        ones smaller: ``ramped``), in the order of ``names``; ``calls`` calls at once, each
        on a connection of its own (this client's, and ``calls - 1`` opened for the fetch and
        closed after it)."""
        what = f"partitions of {db}.{table}"

        def get(client: Any, chunk: list[str]) -> list[Partition]:
            return list(client.get_partitions_by_names(db, table, chunk))

        chunks = ramped(names, batch)
        calls = max(1, min(calls, len(chunks)))
        extra = [
            MetastoreClient(self.uri, timeout=self.timeout, call_timeout=self.call_timeout)
            for _ in range(calls - 1)
        ]
        free: queue.SimpleQueue[MetastoreClient] = queue.SimpleQueue()
        for client in (self, *extra):
            free.put(client)

        def fetch(chunk: list[str]) -> list[Partition]:
            client = free.get()  # one is always free: there are as many as calls at once
            try:
                return client._call(what, lambda c: get(c, chunk))
            finally:
                free.put(client)

        try:
            yield from in_order(fetch, chunks, calls)
        finally:
            for client in extra:
                client.close()

    def add_partitions(self, partitions: Sequence[Partition]) -> int:
        if not partitions:
            return 0
        first = partitions[0]
        # Hive adds a call's partitions in one transaction: all of them are there, or none.
        return int(
            self._call(
                f"partitions of {first.dbName}.{first.tableName}",
                lambda c: c.add_partitions(list(partitions)),
                settled=lambda: (
                    len(partitions)
                    if self._has_partition(first.dbName, first.tableName, first.values)
                    else None
                ),
            )
        )

    def _has_partition(self, db: str, table: str, values: Sequence[str]) -> bool:
        try:
            self._call(
                f"partition {values} of {db}.{table}",
                lambda c: c.get_partition(db, table, list(values)),
            )
        except NotFound:
            return False
        return True

    def alter_partitions(self, db: str, table: str, partitions: Sequence[Partition]) -> None:
        """Replace the storage descriptors of existing partitions (one call)."""
        if partitions:
            self._call(
                f"partitions of {db}.{table}",
                lambda c: c.alter_partitions(db, table, list(partitions)),
            )

    # notification log -------------------------------------------------------------------
    def notifications(self, after: int, limit: int = 1000) -> NotificationBatch | None:
        """Events after ``after`` from the metastore's notification log (``DbNotification
        Listener``), or None when the server keeps none (its current id is 0)."""
        from hive_metastore.ttypes import NotificationEventRequest

        current = self._call(
            "the notification log", lambda c: int(c.get_current_notificationEventId().eventId)
        )
        if current == 0:
            return None
        request = NotificationEventRequest(lastEvent=after, maxEvents=limit)
        response = self._call("the notification log", lambda c: c.get_next_notification(request))
        events = tuple(
            Notification(int(e.eventId), int(e.eventTime), str(e.eventType), e.dbName, e.tableName)
            for e in (response.events or [])
        )
        return NotificationBatch(current, events)

    def drop_partition(self, db: str, table: str, values: Sequence[str]) -> None:
        """Drop one partition's entry; never its files."""
        self._call(
            f"partition {values} of {db}.{table}",
            lambda c: c.drop_partition(db, table, list(values), False),
            settled=lambda: _made(not self._has_partition(db, table, values)),
        )


def _made(condition: bool) -> Literal[True] | None:
    """A ``settled`` answer for a call whose result is nothing: True if the change is in
    place, else None (make it)."""
    return True if condition else None


#: How a lost metastore reads when another client met it (pyiceberg's and Spark's Hive clients
#: reach the same metastore without this module): Thrift's transport errors in Python, and
#: Hive's own client's words in Java (``HiveMetaStoreClient``, ``RetryingMetaStoreClient``).
_LOST_IN_JAVA = (
    "org.apache.thrift.transport.TTransportException",
    "Could not connect to meta store using any of the URIs",
)


def lost_metastore(error: BaseException) -> MetastoreUnreachable | None:
    """``error``, or one of its causes, as the metastore gone away (None: something else).

    This module's own calls already raise :class:`MetastoreUnreachable`; this finds the same
    fault where pyiceberg's catalog or Spark's session met it first.
    """
    for current in causes(error):
        if isinstance(current, MetastoreUnreachable):
            return current
        if isinstance(current, TTransport.TTransportException) or any(
            words in str(current) for words in _LOST_IN_JAVA
        ):
            return MetastoreUnreachable(
                f"lost the Hive Metastore ({first_line(current, 300)}).",
                hint="Check the metastore and re-run; lakeshift resumes safely.",
            )
    return None

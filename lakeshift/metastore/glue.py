"""The AWS Glue Data Catalog behind lakeshift's catalog seam (boto3's ``glue`` client).

Glue as Glue is (limits from the Glue API model, botocore ``glue/*/service-2.json``):

- all partitions are read with ``GetPartitions`` in up to 10 disjoint ``Segment``s, in
  parallel, each paged with ``NextToken`` (at most 1,000 per page), column schemas left out;
- ``BatchGetPartition`` asks for at most 1,000 partitions and asks again for what comes back in
  ``UnprocessedKeys``; ``BatchCreatePartition`` and ``BatchUpdatePartition`` send at most 100,
  ``BatchDeletePartition`` 25, and their per-item ``Errors`` are errors;
- ``UpdateTable`` carries the ``VersionId`` this client read with the table, so a change by
  anyone else in between fails (``ConcurrentModificationException``) instead of being
  overwritten; ``SkipArchive`` keeps Glue's table-version quota for real changes;
- Glue has no rename: ``alter_table`` to another name creates the new entry (with a marker
  naming the old one and every partition copied), then deletes the old entry, and a re-run
  finishes a rename that was interrupted in between.

Values cross the seam as the Hive Metastore's Thrift types; the conversion is hand-written
(boto3 has dictionaries, Thrift has classes, and no library maps one onto the other).
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor
from typing import TYPE_CHECKING, Any, TypeVar

from lakeshift.errors import (
    ConcurrentChange,
    MetastoreRefused,
    MetastoreUnreachable,
    NotFound,
)
from lakeshift.metastore.batches import in_order, ramped
from lakeshift.metastore.catalog import NotificationBatch
from lakeshift.metastore.partition_names import partition_name, unescape_path_name

if TYPE_CHECKING:
    from hive_metastore.ttypes import (
        Database,
        FieldSchema,
        Partition,
        StorageDescriptor,
        Table,
    )

log = logging.getLogger(__name__)
T = TypeVar("T")

#: Glue's limits (botocore's model; boto3 does not enforce them, so lakeshift does).
MAX_SEGMENTS = 10
MAX_PAGE = 1000
MAX_GET = 1000
MAX_CREATE = 100
MAX_UPDATE = 100
MAX_DELETE = 25
#: Attempts at the keys ``BatchGetPartition`` leaves unprocessed before giving up.
UNPROCESSED_ATTEMPTS = 8
#: Glue's error codes of a failing or throttling service (retryable by re-running).
_REFUSED = (
    "AccessDeniedException",
    "UnrecognizedClientException",
    "InvalidClientTokenId",
    "InvalidSignatureException",
    "SignatureDoesNotMatch",
    "ExpiredTokenException",
    "IncompleteSignature",
    "MissingAuthenticationToken",
)
_TRANSIENT = ("InternalServiceException", "ThrottlingException", "OperationTimeoutException")
#: Parameters on an entry lakeshift copied from another (an emulated rename, a cutover's
#: legacy copy): the entry it was copied from, and that entry's VersionId when copied.
RENAMED_FROM = "lakeshift.renamed-from"
COPIED_VERSION = "lakeshift.copied-version"
_MARKS = (RENAMED_FROM, COPIED_VERSION)
#: Attribute of a Table this client returned: the Glue entry it was read from.
_READ = "_lakeshift_glue_read"


def glue_client(
    region: str | None,
    endpoint: str | None,
    credentials: Mapping[str, str] | None = None,
) -> Any:
    """boto3's Glue client for ``region`` (and a private ``endpoint``, e.g. a VPC endpoint or a
    test server); credentials from the arguments or AWS's default chain."""
    import boto3
    from botocore.config import Config

    kwargs: dict[str, Any] = {"region_name": region, "config": Config(retries={"mode": "standard"})}
    if endpoint:
        kwargs["endpoint_url"] = endpoint
    kwargs.update(credentials or {})
    try:
        return boto3.client("glue", **kwargs)
    except Exception as e:  # botocore: NoRegionError, InvalidRegionError, bad endpoint URL
        raise MetastoreUnreachable(
            f"cannot open the AWS Glue Data Catalog (region {region!r}, endpoint "
            f"{endpoint or 'AWS default'}): {e}",
            hint="Set glue_region (or AWS_REGION) to the catalog's region, e.g. us-east-1; "
            "glue_endpoint only for a private endpoint.",
        ) from e


def _chunks(items: Sequence[T], size: int) -> Iterator[list[T]]:
    for start in range(0, len(items), size):
        yield list(items[start : start + size])


class GlueCatalog:
    """A :class:`~lakeshift.metastore.catalog.CatalogClient` on one Glue Data Catalog.

    Args:
        client: boto3's Glue client (thread-safe; calls in segments run in parallel).
        catalog_id: the catalog's id (an AWS account id); None is the caller's own account.
        region: shown in messages.
        segments: ``GetPartitions`` segments read in parallel (1..10).
    """

    kind = "glue"

    def __init__(
        self,
        client: Any,
        *,
        catalog_id: str | None = None,
        region: str | None = None,
        segments: int = 4,
    ) -> None:
        self.glue = client
        self.catalog_id = catalog_id
        self.region = region or client.meta.region_name
        self.segments = max(1, min(MAX_SEGMENTS, segments))
        self.uri = f"glue://{self.region}/{catalog_id or 'default'}"
        self.entry_changes = 0
        # Each table's entry as last read by name (a fallback: a Table this client returned
        # carries its own read, see ``_READ``), for updates of objects built by the caller.
        self._read: dict[tuple[str, str], Mapping[str, Any]] = {}
        self._databases: set[str] = set()
        # Each partition name's values as Glue holds them, from the last listing.
        self._values: dict[tuple[str, str], dict[str, list[str]]] = {}
        self._lock = threading.Lock()

    # connection -------------------------------------------------------------------------
    def connect(self) -> GlueCatalog:
        self._call("the catalog", "GetDatabases", MaxResults=1)
        return self

    def close(self) -> None:
        """Nothing to close (boto3 keeps a connection pool per client)."""

    def __enter__(self) -> GlueCatalog:
        return self.connect()

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _call(self, what: str, operation: str, **params: Any) -> Any:
        """One Glue API call, its failures as lakeshift's errors naming ``what``."""
        from botocore.exceptions import (
            BotoCoreError,
            ClientError,
            NoCredentialsError,
            ParamValidationError,
        )

        if self.catalog_id is not None:
            params.setdefault("CatalogId", self.catalog_id)
        method = getattr(self.glue, _snake(operation))
        if operation in _ENTRY_CHANGES:
            self.entry_changes += 1
        try:
            return method(**params)
        except ClientError as e:
            raise self._translate(what, e) from e
        except ParamValidationError as e:  # a request Glue's model refuses: a bug or bad data
            raise MetastoreRefused(
                f"a request to the Glue Data Catalog {self.uri} about {what} is not valid: {e}",
                hint="Report it with the log; nothing was sent.",
            ) from e
        except NoCredentialsError as e:
            raise MetastoreUnreachable(
                f"no AWS credentials for the Glue Data Catalog {self.uri} ({what}).",
                hint="Provide credentials as for any AWS tool (AWS_PROFILE, AWS_ACCESS_KEY_ID/"
                "AWS_SECRET_ACCESS_KEY, an instance role); nothing was changed.",
            ) from e
        except BotoCoreError as e:
            raise MetastoreUnreachable(
                f"the Glue Data Catalog {self.uri} did not answer ({what}): {e}",
                hint="Check glue_region (and glue_endpoint if set) and the network; re-run, "
                "lakeshift resumes safely.",
            ) from e

    def _translate(self, what: str, error: Any) -> Exception:
        code = error.response.get("Error", {}).get("Code", "")
        reason = error.response.get("Error", {}).get("Message", "") or str(error)
        if code == "EntityNotFoundException":
            return NotFound(
                f"{what} does not exist in the Glue Data Catalog {self.uri} ({reason}).",
                hint="Check the name (database.table), glue_region and glue_catalog_id.",
            )
        if code == "ConcurrentModificationException":
            return ConcurrentChange(
                f"{what} was changed in the Glue Data Catalog {self.uri} by someone else "
                "between lakeshift's read and its update; lakeshift did not overwrite it.",
                hint="Re-run the same command: it reads the entry again and resumes.",
            )
        status = error.response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        if status in (401, 403) or code in _REFUSED:
            reason = _first_error(reason)
            return MetastoreUnreachable(
                f"the Glue Data Catalog {self.uri} refused access to {what}: {reason}",
                hint="Check the credentials and the identity's Glue (and Lake Formation) "
                "permissions, glue_region and glue_catalog_id; nothing was changed.",
            )
        if (status or 0) >= 500 or code in _TRANSIENT:
            return MetastoreUnreachable(
                f"the Glue Data Catalog {self.uri} did not answer properly ({what}): "
                f"{code}: {reason}",
                hint="Glue is failing or throttling; re-run the same command (it resumes from "
                "where it stopped).",
            )
        return MetastoreRefused(
            f"the Glue Data Catalog {self.uri} refused an operation on {what}: {code}: {reason}",
            hint="Read Glue's reason above; lakeshift changed nothing by this call.",
        )

    # databases --------------------------------------------------------------------------
    def get_all_databases(self) -> list[str]:
        names: list[str] = []
        token: str | None = None
        while True:
            page = self._call("database list", "GetDatabases", **_token(token))
            names += [d["Name"] for d in page.get("DatabaseList", [])]
            token = page.get("NextToken")
            if not token:
                return names

    def get_database(self, name: str) -> Database:
        from hive_metastore.ttypes import Database

        found = self._call(f"database {name!r}", "GetDatabase", Name=name)["Database"]
        return Database(
            name=found["Name"],
            description=found.get("Description"),
            locationUri=found.get("LocationUri"),
            parameters=dict(found.get("Parameters") or {}),
        )

    def create_database(self, database: Database) -> None:
        entry: dict[str, Any] = {"Name": database.name, "Parameters": database.parameters or {}}
        if database.locationUri:
            entry["LocationUri"] = database.locationUri
        if database.description:
            entry["Description"] = database.description
        self._call(f"database {database.name!r}", "CreateDatabase", DatabaseInput=entry)

    # tables -----------------------------------------------------------------------------
    def get_tables(self, db: str, pattern: str = "*") -> list[str]:
        names: list[str] = []
        token: str | None = None
        extra = {} if pattern == "*" else {"Expression": pattern}
        while True:
            page = self._call(
                f"database {db!r}", "GetTables", DatabaseName=db, **extra, **_token(token)
            )
            names += [t["Name"] for t in page.get("TableList", [])]
            token = page.get("NextToken")
            if not token:
                return names

    def table_exists(self, db: str, table: str) -> bool:
        try:
            self._entry(db, table)
        except NotFound:
            return False
        return True

    def _entry(self, db: str, table: str) -> Mapping[str, Any]:
        """The table's Glue entry, without remembering its version (an update after this
        read must still be checked against the caller's own read)."""
        self._require_database(db)
        found = self._call(f"table {db}.{table}", "GetTable", DatabaseName=db, Name=table)
        entry: Mapping[str, Any] = found["Table"]
        return entry

    def get_table(self, db: str, table: str) -> Table:
        entry = self._entry(db, table)
        with self._lock:
            self._read[(db, table.lower())] = entry
        found = table_from_glue(db, entry)
        # The read travels with the object: an update of it is checked against this version,
        # whatever else was read in between.
        setattr(found, _READ, entry)
        return found

    def _require_database(self, db: str) -> None:
        """Glue says EntityNotFound for a missing database and table alike; say which."""
        with self._lock:
            if db in self._databases:
                return
        self.get_database(db)
        with self._lock:
            self._databases.add(db)

    def create_table(self, table: Table) -> None:
        self._call(
            f"table {table.dbName}.{table.tableName}",
            "CreateTable",
            DatabaseName=table.dbName,
            TableInput=table_input(table),
        )

    def alter_table(self, db: str, name: str, table: Table) -> None:
        if (table.dbName, table.tableName.lower()) != (db, name.lower()):
            self._rename(db, name, table)
            return
        read = getattr(table, _READ, None)
        if read is None:  # built by the caller, not read: the last read of the name is its base
            with self._lock:
                read = self._read.get((db, name.lower()))
        if read is None:
            read = self._entry(db, name)
        self._update(db, name, table, read)

    def _update(self, db: str, name: str, table: Table, read: Mapping[str, Any]) -> None:
        """``UpdateTable`` checked against the version of ``read`` (the entry as read)."""
        self._call(
            f"table {db}.{name}",
            "UpdateTable",
            DatabaseName=db,
            TableInput=table_input(table, read),
            VersionId=read["VersionId"],
            SkipArchive=True,
        )
        with self._lock:  # the next update must read again
            self._read.pop((db, name.lower()), None)
        if hasattr(table, _READ):
            delattr(table, _READ)

    def _rename(self, db: str, name: str, table: Table) -> None:
        """Glue has no rename: create the new entry marked with the old name, copy every
        partition, delete the old entry. Each step is skipped when already done."""
        self._create_copy(f"{db}.{name}", table)
        if self.table_exists(db, name):
            self.match_partitions(table.dbName, table.tableName, f"{db}.{name}")
            self.drop_table(db, name)
        log.info("renamed %s.%s -> %s.%s", db, name, table.dbName, table.tableName)

    def _create_copy(self, source: str, table: Table) -> None:
        """Create ``table`` (read from ``source``) under its own name, marked as a copy of
        ``source`` at the version read; an entry already there must carry that mark (an
        interrupted copy), and is brought up to the version read when it is older."""
        new_db, new_name = table.dbName, table.tableName
        read: Mapping[str, Any] = getattr(table, _READ, None) or {}
        marks = {RENAMED_FROM: source, COPIED_VERSION: str(read.get("VersionId", ""))}
        table.parameters = {**(table.parameters or {}), **marks}
        if not self.table_exists(new_db, new_name):
            self._call(
                f"table {new_db}.{new_name}",
                "CreateTable",
                DatabaseName=new_db,
                TableInput=table_input(table, read),
            )
            return
        current = self.get_table(new_db, new_name)
        parameters = current.parameters or {}
        if parameters.get(RENAMED_FROM) != source:
            raise MetastoreRefused(
                f"cannot copy {source} to {new_db}.{new_name}: that name is taken.",
                hint="Drop or rename the other table first.",
            )
        if parameters.get(COPIED_VERSION) != marks[COPIED_VERSION]:
            self._update(new_db, new_name, table, {**read, "VersionId": _version(current)})

    def copy_table(self, source: str, copy: str, *, under: str | None = None) -> str:
        """Create ``copy`` (``db.table``) as ``source``'s definition and partitions (entries
        only), or finish or refresh an interrupted copy; returns the ``VersionId`` of
        ``source`` that the copy holds. With ``under``, only partitions located under it are
        copied, and nothing is dropped from the copy."""
        db, _, name = source.partition(".")
        table = self.get_table(db, name)
        version = _version(table)
        table.dbName, _, table.tableName = copy.partition(".")
        self._create_copy(source, table)
        self.match_partitions(table.dbName, table.tableName, source, under=under)
        return version

    def replace_table(
        self,
        public: str,
        definition_of: str,
        *,
        expected_version: str | None = None,
        keep_keys: bool = False,
    ) -> None:
        """One ``UpdateTable``: the entry ``public`` takes ``definition_of``'s whole definition
        (Glue's update replaces it), checked against ``expected_version`` of ``public`` (else
        the version read here). ``keep_keys`` keeps ``public``'s partition keys, so that its
        partitions stay valid until :meth:`repartition` moves them."""
        db, _, name = public.partition(".")
        other_db, _, other = definition_of.partition(".")
        definition = self.get_table(other_db, other)
        base: Mapping[str, Any] = getattr(definition, _READ)
        current = self.get_table(db, name)
        read: Mapping[str, Any] = getattr(current, _READ)
        if keep_keys:
            definition.partitionKeys = current.partitionKeys
            base = {**base, "PartitionKeys": read.get("PartitionKeys", [])}
        definition.dbName, definition.tableName = db, name
        parameters = definition.parameters or {}
        definition.parameters = {k: v for k, v in parameters.items() if k not in _MARKS}
        version = expected_version or read["VersionId"]
        self._update(db, name, definition, {**base, "VersionId": version})

    def repartition(self, public: str, like: str) -> None:
        """Give ``public`` the partition keys and partitions of ``like``, keeping the rest of
        its definition: its partitions that ``like`` lacks are dropped first (while its keys
        still describe them: Glue refuses values that do not match the keys), then the keys
        change, then ``like``'s partitions are added or updated."""
        db, _, name = public.partition(".")
        like_db, _, like_name = like.partition(".")
        current = self.get_table(db, name)
        wanted_keys = self.get_table(like_db, like_name).partitionKeys or []
        same_keys = [(k.name, k.type) for k in current.partitionKeys or []] == [
            (k.name, k.type) for k in wanted_keys
        ]
        wanted = set(self._scan(like_db, like_name)) if same_keys else set()
        self.drop_partitions(db, name, [list(v) for v in self._scan(db, name) if v not in wanted])
        if not same_keys:
            current.partitionKeys = wanted_keys
            self.alter_table(db, name, current)
        self.match_partitions(db, name, like)

    def match_partitions(self, db: str, table: str, like: str, *, under: str | None = None) -> int:
        """Make ``db.table``'s partitions those of ``like`` (same values and storage
        descriptors): missing ones created, differing ones updated, extra ones dropped, in
        Glue's batches. With ``under``, only ``like``'s partitions located under it are
        wanted and none is dropped. Returns the partitions created or updated."""
        like_db, _, like_name = like.partition(".")
        wanted = {
            v: partition_from_glue(like_db, like_name, p)
            for v, p in self._scan(like_db, like_name, columns=True).items()
            if under is None or _located_under(p, under)
        }
        have = {
            v: partition_from_glue(db, table, p)
            for v, p in self._scan(db, table, columns=True).items()
        }
        new = [_moved(p, db, table) for v, p in wanted.items() if v not in have]
        changed = [
            _moved(p, db, table)
            for v, p in wanted.items()
            if v in have and partition_input(p) != partition_input(have[v])
        ]
        self.add_partitions(new)
        self.alter_partitions(db, table, changed)
        if under is None:
            self.drop_partitions(db, table, [list(v) for v in have if v not in wanted])
        return len(new) + len(changed)

    def drop_table(self, db: str, table: str, *, delete_data: bool = False) -> None:
        # Glue never touches data files; ``delete_data`` has nothing to do here.
        self._call(f"table {db}.{table}", "DeleteTable", DatabaseName=db, Name=table)
        with self._lock:
            self._values.pop((db, table.lower()), None)
            self._read.pop((db, table.lower()), None)

    # partitions -------------------------------------------------------------------------
    def _segment(self, db: str, table: str, number: int, columns: bool) -> list[Mapping[str, Any]]:
        found: list[Mapping[str, Any]] = []
        token: str | None = None
        while True:
            page = self._call(
                f"partitions of {db}.{table}",
                "GetPartitions",
                DatabaseName=db,
                TableName=table,
                Segment={"SegmentNumber": number, "TotalSegments": self.segments},
                ExcludeColumnSchema=not columns,
                MaxResults=MAX_PAGE,
                **_token(token),
            )
            found += page.get("Partitions", [])
            token = page.get("NextToken")
            if not token:
                return found

    def _scan(self, db: str, table: str, columns: bool = False) -> dict[tuple[str, ...], Any]:
        """Every partition entry of ``db.table`` by its values: all segments in parallel."""
        with ThreadPoolExecutor(self.segments, thread_name_prefix="glue-segment") as pool:
            parts = list(
                pool.map(lambda n: self._segment(db, table, n, columns), range(self.segments))
            )
        by_values = {tuple(p["Values"]): p for segment in parts for p in segment}
        if sum(map(len, parts)) != len(by_values):
            log.warning("Glue segments of %s.%s overlapped; duplicates dropped", db, table)
        return by_values

    def partition_names(self, db: str, table: str) -> list[str]:
        keys = [k["Name"] for k in self._entry(db, table).get("PartitionKeys") or []]
        by_name: dict[str, list[str]] = {}
        for values in self._scan(db, table):
            if len(values) != len(keys):
                raise MetastoreRefused(
                    f"partition {list(values)} of {db}.{table} in the Glue Data Catalog "
                    f"{self.uri} has {len(values)} values for {len(keys)} partition keys.",
                    hint="Drop or repair that partition entry; lakeshift reads only "
                    "partitions that match their table's keys.",
                )
            by_name[partition_name(keys, list(values))] = list(values)
        with self._lock:
            self._values[(db, table.lower())] = by_name
        return sorted(by_name)

    def _values_of(self, db: str, table: str, name: str) -> list[str]:
        with self._lock:
            known = self._values.get((db, table.lower()), {}).get(name)
        if known is not None:
            return known
        # Glue stores the NULL partition's value as Hive writes it: the default name itself.
        return [unescape_path_name(part.partition("=")[2]) for part in name.split("/")]

    def partitions_by_names(
        self, db: str, table: str, names: Sequence[str], batch: int = 500, *, calls: int = 1
    ) -> Iterator[Partition]:
        """Yield partitions in the order of ``names``, up to ``min(batch, 1000)`` per
        ``BatchGetPartition`` (the first ones smaller: ``ramped``) and ``calls`` requests at
        once (the client is thread-safe), asking again for the keys Glue leaves unprocessed."""

        def fetch(chunk: list[str]) -> list[Partition]:
            found: list[Partition] = []
            pending = [{"Values": self._values_of(db, table, n)} for n in chunk]
            for attempt in range(UNPROCESSED_ATTEMPTS):
                answer = self._call(
                    f"partitions of {db}.{table}",
                    "BatchGetPartition",
                    DatabaseName=db,
                    TableName=table,
                    PartitionsToGet=pending,
                )
                found += (partition_from_glue(db, table, p) for p in answer.get("Partitions", []))
                pending = list(answer.get("UnprocessedKeys") or [])
                if not pending:
                    return found
                time.sleep(min(2.0, 0.05 * 2**attempt) * (0.5 + random.random()))
            raise MetastoreUnreachable(
                f"the Glue Data Catalog {self.uri} left {len(pending)} partitions of "
                f"{db}.{table} unprocessed after {UNPROCESSED_ATTEMPTS} attempts.",
                hint="Glue is throttling; re-run later (lakeshift resumes safely).",
            )

        return in_order(fetch, ramped(names, max(1, min(batch, MAX_GET))), calls)

    def _batched(
        self, db: str, table: str, operation: str, field: str, cap: int, items: list[Any]
    ) -> None:
        """``operation`` on ``items`` in batches of at most ``cap``; a per-item error fails."""
        what = f"partitions of {db}.{table}"
        for chunk in _chunks(items, cap):
            answer = self._call(what, operation, DatabaseName=db, TableName=table, **{field: chunk})
            _raise_item_errors(self, what, answer.get("Errors"))

    def add_partitions(self, partitions: Sequence[Partition]) -> int:
        if partitions:
            db, table = partitions[0].dbName, partitions[0].tableName
            inputs = [partition_input(p) for p in partitions]
            self._batched(
                db, table, "BatchCreatePartition", "PartitionInputList", MAX_CREATE, inputs
            )
        return len(partitions)

    def alter_partitions(self, db: str, table: str, partitions: Sequence[Partition]) -> None:
        entries = [
            {"PartitionValueList": list(p.values), "PartitionInput": partition_input(p)}
            for p in partitions
        ]
        self._batched(db, table, "BatchUpdatePartition", "Entries", MAX_UPDATE, entries)

    def drop_partition(self, db: str, table: str, values: Sequence[str]) -> None:
        self.drop_partitions(db, table, [values])

    def drop_partitions(self, db: str, table: str, values: Sequence[Sequence[str]]) -> None:
        """Drop partition entries (never files), 25 per ``BatchDeletePartition``."""
        keys = [{"Values": list(v)} for v in values]
        self._batched(db, table, "BatchDeletePartition", "PartitionsToDelete", MAX_DELETE, keys)

    def notifications(self, after: int, limit: int = 1000) -> NotificationBatch | None:
        """None: Glue keeps no durable change log (EventBridge delivers its events at best
        effort, with no cursor to resume from), so the sweep and the listing are the truth."""
        return None


def _present(parameters: Mapping[str, Any] | None) -> dict[str, str]:
    """Parameters without None values (Glue's model refuses them)."""
    return {k: v for k, v in (parameters or {}).items() if v is not None}


def _version(table: Table) -> str:
    read: Mapping[str, Any] = getattr(table, _READ)
    return str(read["VersionId"])


def _located_under(partition: Mapping[str, Any], root: str) -> bool:
    location = str((partition.get("StorageDescriptor") or {}).get("Location", ""))
    return location.startswith(root.rstrip("/") + "/")


def _raise_item_errors(catalog: GlueCatalog, what: str, errors: Any) -> None:
    if not errors:
        return
    first = errors[0]
    detail = first.get("ErrorDetail", {})
    raise MetastoreRefused(
        f"the Glue Data Catalog {catalog.uri} refused {len(errors)} of the {what} "
        f"(e.g. {first.get('PartitionValues')}: {detail.get('ErrorCode')}: "
        f"{detail.get('ErrorMessage')}).",
        hint="Read Glue's reason above; the other partitions of the batch were applied, and a "
        "re-run resumes.",
    )


def _first_error(reason: str) -> str:
    """The code and message of an XML error body (some endpoints answer so), else ``reason``."""
    import re

    found = re.search(r"<Code>(.*?)</Code>.*?<Message>(.*?)</Message>", reason, re.S)
    return f"{found.group(1)}: {found.group(2)}" if found else reason


#: The calls that change a database or table entry (``CatalogClient.entry_changes``).
_ENTRY_CHANGES = frozenset({"CreateDatabase", "CreateTable", "UpdateTable", "DeleteTable"})


def _snake(operation: str) -> str:
    return "".join(f"_{c.lower()}" if c.isupper() else c for c in operation).lstrip("_")


def _token(token: str | None) -> dict[str, str]:
    return {"NextToken": token} if token else {}


def _moved(partition: Partition, db: str, table: str) -> Partition:
    partition.dbName, partition.tableName = db, table
    return partition


# conversion: Thrift value types <-> Glue dictionaries ----------------------------------


def _columns_in(cols: Sequence[FieldSchema] | None) -> list[dict[str, Any]]:
    out = []
    for c in cols or []:
        column: dict[str, Any] = {"Name": c.name}
        if c.type is not None:  # Glue's Type is optional
            column["Type"] = c.type
        if c.comment:
            column["Comment"] = c.comment
        out.append(column)
    return out


def _columns_out(cols: Sequence[Mapping[str, Any]] | None) -> list[FieldSchema]:
    from hive_metastore.ttypes import FieldSchema

    return [FieldSchema(c["Name"], c.get("Type"), c.get("Comment")) for c in cols or []]


def _sd_in(sd: StorageDescriptor | None) -> dict[str, Any]:
    if sd is None:
        return {}
    out: dict[str, Any] = {"Columns": _columns_in(sd.cols)}
    for key, value in (
        ("Location", sd.location),
        ("InputFormat", sd.inputFormat),
        ("OutputFormat", sd.outputFormat),
    ):
        if value:
            out[key] = value
    out["Compressed"] = bool(sd.compressed)
    out["NumberOfBuckets"] = -1 if sd.numBuckets is None else int(sd.numBuckets)
    serde = sd.serdeInfo
    if serde is not None:
        info: dict[str, Any] = {"Parameters": _present(serde.parameters)}
        if serde.name:
            info["Name"] = serde.name
        if serde.serializationLib:
            info["SerializationLibrary"] = serde.serializationLib
        out["SerdeInfo"] = info
    out["BucketColumns"] = list(sd.bucketCols or [])
    out["SortColumns"] = [{"Column": s.col, "SortOrder": s.order} for s in sd.sortCols or []]
    out["Parameters"] = _present(sd.parameters)
    out["StoredAsSubDirectories"] = bool(sd.storedAsSubDirectories)
    return out


def _sd_out(sd: Mapping[str, Any] | None) -> StorageDescriptor:
    from hive_metastore.ttypes import Order, SerDeInfo, StorageDescriptor

    sd = sd or {}
    serde = sd.get("SerdeInfo") or {}
    return StorageDescriptor(
        cols=_columns_out(sd.get("Columns")),
        location=sd.get("Location"),
        inputFormat=sd.get("InputFormat"),
        outputFormat=sd.get("OutputFormat"),
        compressed=bool(sd.get("Compressed", False)),
        numBuckets=int(sd.get("NumberOfBuckets", -1)),
        serdeInfo=SerDeInfo(
            serde.get("Name"),
            serde.get("SerializationLibrary"),
            dict(serde.get("Parameters") or {}),
        ),
        bucketCols=list(sd.get("BucketColumns") or []),
        sortCols=[Order(s["Column"], int(s["SortOrder"])) for s in sd.get("SortColumns") or []],
        parameters=dict(sd.get("Parameters") or {}),
        storedAsSubDirectories=bool(sd.get("StoredAsSubDirectories", False)),
    )


def _keep_column_parameters(columns: list[dict[str, Any]], base: Any) -> None:
    known = {c["Name"]: c.get("Parameters") for c in base or [] if c.get("Parameters")}
    for column in columns:
        if column["Name"] in known:
            column["Parameters"] = dict(known[column["Name"]])


def table_input(table: Table, base: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """Glue's ``TableInput`` for a Thrift ``Table`` (the whole definition); ``base``, the entry
    as read, gives back what Thrift's types do not hold (column parameters, description)."""
    out: dict[str, Any] = {
        "Name": table.tableName,
        "TableType": table.tableType or "EXTERNAL_TABLE",
        "Parameters": _present(table.parameters),
        "PartitionKeys": _columns_in(table.partitionKeys),
    }
    # An entry Glue holds without a storage descriptor keeps none (unless one was given).
    bare = base is not None and not base.get("StorageDescriptor")
    if table.sd is not None and not (bare and not table.sd.location and not table.sd.cols):
        out["StorageDescriptor"] = _sd_in(table.sd)
    if table.owner:
        out["Owner"] = table.owner
    if table.retention:
        out["Retention"] = int(table.retention)
    if table.viewOriginalText:
        out["ViewOriginalText"] = table.viewOriginalText
    if table.viewExpandedText:
        out["ViewExpandedText"] = table.viewExpandedText
    if base is not None:
        _keep_column_parameters(out["PartitionKeys"], base.get("PartitionKeys"))
        if "StorageDescriptor" in out:
            read_sd = base.get("StorageDescriptor") or {}
            _keep_column_parameters(out["StorageDescriptor"]["Columns"], read_sd.get("Columns"))
            # Glue-only parts of a storage descriptor (list bucketing, a schema registry
            # reference, Iceberg's additional locations) as read.
            for key in ("SkewedInfo", "SchemaReference", "AdditionalLocations"):
                if read_sd.get(key):
                    out["StorageDescriptor"][key] = read_sd[key]
        for key in ("Description", "TargetTable", "ViewDefinition"):
            if base.get(key):
                out[key] = base[key]
    return out


def table_from_glue(db: str, entry: Mapping[str, Any]) -> Table:
    """A Thrift ``Table`` for a Glue table. A Glue entry may lack a storage descriptor (an
    Iceberg table, some views); ``sd`` is then empty, never None."""
    from hive_metastore.ttypes import Table

    created: Any = entry.get("CreateTime")
    return Table(
        tableName=entry["Name"],
        dbName=entry.get("DatabaseName", db),
        owner=entry.get("Owner"),
        createTime=int(created.timestamp()) if hasattr(created, "timestamp") else 0,
        lastAccessTime=0,
        retention=int(entry.get("Retention", 0) or 0),
        sd=_sd_out(entry.get("StorageDescriptor")),
        partitionKeys=_columns_out(entry.get("PartitionKeys")),
        parameters=dict(entry.get("Parameters") or {}),
        viewOriginalText=entry.get("ViewOriginalText"),
        viewExpandedText=entry.get("ViewExpandedText"),
        tableType=entry.get("TableType"),
    )


def partition_input(partition: Partition) -> dict[str, Any]:
    out: dict[str, Any] = {
        "Values": list(partition.values),
        "Parameters": _present(partition.parameters),
    }
    if partition.sd is not None:
        out["StorageDescriptor"] = _sd_in(partition.sd)
    return out


def partition_from_glue(db: str, table: str, entry: Mapping[str, Any]) -> Partition:
    from hive_metastore.ttypes import Partition

    created: Any = entry.get("CreationTime")
    return Partition(
        values=list(entry["Values"]),
        dbName=entry.get("DatabaseName", db),
        tableName=entry.get("TableName", table),
        createTime=int(created.timestamp()) if hasattr(created, "timestamp") else 0,
        lastAccessTime=0,
        sd=_sd_out(entry.get("StorageDescriptor")),
        parameters=dict(entry.get("Parameters") or {}),
    )


def open_glue(
    *,
    region: str | None,
    endpoint: str | None,
    catalog_id: str | None,
    credentials: Mapping[str, str] | None = None,
    factory: Callable[..., Any] = glue_client,
) -> GlueCatalog:
    """A connected :class:`GlueCatalog` (one call proves region, endpoint and credentials)."""
    return GlueCatalog(
        factory(region, endpoint, credentials), catalog_id=catalog_id, region=region
    ).connect()

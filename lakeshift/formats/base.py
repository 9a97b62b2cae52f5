"""The contract every target format implements; the rest of lakeshift knows only this.

``migrate``, ``validate``, ``route`` and the CLI call these methods and never branch on a
format's name. Adding a format is adding a module that implements :class:`TargetFormat` and a
line in :data:`lakeshift.formats.FORMATS`.
"""

from __future__ import annotations

import uuid
from abc import ABC, abstractmethod
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from lakeshift.config import Settings
from lakeshift.hive.semantics import HiveSemantics
from lakeshift.hive.types import HiveType
from lakeshift.inspect.model import TableInventory
from lakeshift.metastore.catalog import CatalogClient
from lakeshift.schema_map.model import FieldMapping
from lakeshift.validate.canonical import Fingerprint

if TYPE_CHECKING:
    from hive_metastore.ttypes import Table
    from pyiceberg.catalog import Catalog
    from pyspark.sql import DataFrame, SparkSession

    from lakeshift.migrate.adoption import AdoptionDecision


#: Spark never splits a file this small between tasks: a split holds at least
#: ``spark.sql.files.openCostInBytes`` (4 MB unless lowered; a lower setting only makes a
#: partition of one such file two files, never changes its rows).
UNSPLIT_BYTES = 4 * 1024**2


class FormatServices:
    """The services a format may use, built once by the caller's ``Context``.

    ``spark`` and ``client`` may be functions that build them on first use: switching, cutover
    and count validation need no Spark, and a command that fails earlier needs no metastore.
    """

    def __init__(
        self,
        spark: SparkSession | Callable[[], SparkSession],
        client: CatalogClient | Callable[[], CatalogClient],
        settings: Settings,
        catalog: Catalog | None = None,
    ) -> None:
        self._spark = spark
        self._client = client
        self.settings = settings
        self.catalog = catalog

    @property
    def spark(self) -> SparkSession:
        if callable(self._spark):
            self._spark = self._spark()
        return self._spark

    @property
    def client(self) -> CatalogClient:
        if not isinstance(self._client, CatalogClient):
            self._client = self._client()
        assert isinstance(self._client, CatalogClient)
        return self._client


@dataclass(frozen=True)
class Backfilled:
    """One partition's most recent lakeshift commit in the target's current history."""

    partition: str
    fingerprint: str
    rows: int
    commit_id: int
    run_id: str

    @property
    def snapshot_id(self) -> int:
        """Iceberg's word for the commit (kept for callers and reports that say snapshot)."""
        return self.commit_id


@dataclass(frozen=True)
class BatchResult:
    """A batch's source checksum (observed while writing; every row hash includes its
    partition keys, so equal batch sums mean equal multisets per partition; None when the
    write observed none, and ``validate`` rescans the source) and whether anything was
    committed, with the commit's id when known."""

    checksum: Fingerprint | None
    committed: bool
    commit_id: int | None = None
    #: whose reading of the source the checksum is: ``spark`` (lakeshift's Hive-faithful
    #: reader) or ``arrow`` (the Arrow path's tasks, pyarrow's ORC decoder): the independent
    #: level proves an ``arrow`` batch with the Spark reader too, never with pyarrow alone
    observed_by: str = "spark"
    #: partition -> its source timestamps with digits past a microsecond, counted while
    #: writing (the Arrow path's tasks); None: not counted, and ``validate`` counts them
    finer: dict[str, int] | None = None


@dataclass(frozen=True)
class SyncResult:
    """The target brought in line with the source's mapping."""

    mapping: FieldMapping
    created: bool
    evolved: bool


@dataclass(frozen=True)
class LakeSide:
    """What the routing view's lake branch selects from.

    ``table`` is a two-part metastore name that Spark without any lake connector can read;
    ``columns`` maps a Hive column name to the column that holds it there (when they differ).
    """

    table: str
    columns: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class CommitRecord:
    """What each batch commit carries (known before the write): run, batch, source and each
    partition's source fingerprint and footer row count."""

    run_id: str
    batch: int
    source: str
    partitions: dict[str, tuple[str, int]]


def catalog_entry(client: CatalogClient, target: str) -> Table | None:
    """The metastore's entry for ``target`` (``db.table``), or None when there is none: one
    call (asking first whether it exists was a second)."""
    from lakeshift.errors import NotFound

    db, _, name = target.partition(".")
    try:
        return client.get_table(db, name)
    except NotFound:
        return None


def entry_location(client: CatalogClient, target: str, entry: Table | None) -> str:
    """Where a table whose entry is ``entry`` lives (or would): the entry's location, else
    its database's location and its name (a path table lakeshift has yet to create)."""
    if entry is not None and entry.sd is not None and entry.sd.location:
        return str(entry.sd.location)
    db, _, name = target.partition(".")
    return f"{client.get_database(db).locationUri.rstrip('/')}/{name}"


class EntryLocations:
    """Each target's location, read from its catalog entry once while the client changes no
    entry (a command asked for it dozens of times: 29 of a Hudi migration's 61 metastore
    calls). A location is kept only once an entry names it (a table yet to be created is
    asked again), and only until the client makes, replaces, renames or drops an entry
    (``CatalogClient.entry_changes``): a cutover swaps what a name holds."""

    def __init__(self, client: CatalogClient) -> None:
        self.client = client
        self._known: dict[str, tuple[int, str]] = {}

    def of(self, target: str, entry: Callable[[], Table | None]) -> str:
        changes = self.client.entry_changes
        known = self._known.get(target)
        if known is not None and known[0] == changes:
            return known[1]
        found = entry()
        location = entry_location(self.client, target, found)
        if found is not None and found.sd is not None and found.sd.location:
            self._known[target] = (changes, location)
        return location


class TargetFormat(ABC):
    """One lake table format lakeshift writes.

    Every method takes the target's two-part name (``db.table``). Implementations must keep
    these promises, which ``migrate``, ``validate`` and ``route`` rely on:

    - :meth:`write_batch` is one atomic commit that replaces exactly the batch's partitions and
      records the :class:`CommitRecord`; re-running it after a crash never duplicates rows.
    - :meth:`backfilled` is read from the target's own commit metadata (the ground truth).
    - :meth:`frame` reads exactly the current snapshot, with Hive's column names.
    - Nothing here writes to the source table or its files.
    """

    name: ClassVar[str]
    #: A short label used in messages ("Iceberg table", "Delta table").
    label: ClassVar[str]
    #: Whether data files hold the partition columns (else only the metadata does).
    files_hold_partition_columns: ClassVar[bool] = True
    #: Whether data files carry Parquet field IDs (Iceberg, Delta column mapping); else their
    #: columns are found by name (Hudi: lakeshift applies added columns only, names are stable).
    files_hold_field_ids: ClassVar[bool] = True
    #: Whether ``write_path = "arrow"`` gives its backfill an Arrow path (``arrow_path``).
    has_arrow_path: ClassVar[bool] = False
    #: Why the format cannot hold the source's own files (``adopt_files``), or ``""`` when
    #: it implements ``adopt_partitions``.
    adoption_refusal: ClassVar[str] = "it cannot hold ORC data files"

    def __init__(self, services: FormatServices) -> None:
        self.services = services

    @property
    def spark(self) -> SparkSession:
        return self.services.spark

    @property
    def client(self) -> CatalogClient:
        return self.services.client

    # -- identity and schema ------------------------------------------------------------

    @abstractmethod
    def exists(self, target: str) -> bool:
        """Whether the target table exists (as a table of this format)."""

    def describe(self, target: str) -> str:
        """What the target is, or will be when it does not exist yet, in a few words for plans
        (its format version and layout, e.g. "Iceberg format v2")."""
        return self.label

    @abstractmethod
    def owner(self, target: str) -> str | None:
        """The source table the target was created for by lakeshift (None if not lakeshift's)."""

    @abstractmethod
    def stored_mapping(self, target: str) -> FieldMapping | None:
        """The field mapping stored with the target (the ground truth of its field IDs)."""

    def key_reading(self, target: str) -> HiveSemantics:
        """How the Hive the target's partition values were typed for reads them: its stored
        mapping's version and zone (``partition_values.typed_value``), else the settings'."""
        stored = self.stored_mapping(target)
        return stored.semantics if stored else self.services.settings.hive

    @abstractmethod
    def target_type(self, hive: HiveType) -> HiveType:
        """The Hive type as the target holds it (what the source frame is cast to)."""

    @abstractmethod
    def sync(self, target: str, inventory: TableInventory, *, source: str) -> SyncResult:
        """Create the target from a fresh mapping, or evolve it keeping its field IDs."""

    # -- commits --------------------------------------------------------------------------

    @abstractmethod
    def backfilled(self, target: str) -> dict[str, Backfilled]:
        """Each partition's latest lakeshift backfill, from the target's commit metadata."""

    @abstractmethod
    def write_batch(
        self,
        target: str,
        inventory: TableInventory,
        mapping: FieldMapping,
        partitions: list[str],
        *,
        key_mode: str,
        record: CommitRecord,
    ) -> BatchResult:
        """Backfill ``partitions`` in one Spark job and one atomic commit."""

    def adopt_partitions(
        self,
        target: str,
        inventory: TableInventory,
        decisions: Sequence[AdoptionDecision],
        *,
        record: CommitRecord,
    ) -> BatchResult:
        """Register the decided partitions' own source files, copying nothing, in one atomic
        commit that replaces what those partitions held (``migrate.adoption``)."""
        raise NotImplementedError(f"{self.label}s do not adopt files: {self.adoption_refusal}")

    def release_files(self, target: str, files: Sequence[Mapping[str, Any]]) -> list[str]:
        """Make ``target`` independent of the legacy table's ``files`` (``path``,
        ``partition``) before ``retire`` deletes them; the partitions rewritten. Only a format
        that adopts files can hold them."""
        return []

    @abstractmethod
    def delete_partitions(
        self, target: str, inventory: TableInventory, partitions: Sequence[str]
    ) -> None:
        """Remove partitions whose source became empty (one commit)."""

    def foreign_commits(self, target: str) -> list[str]:
        """Every commit (described, oldest first) that another writer made to the target since
        lakeshift's newest commit there, read from the target's own commit metadata; for Hudi
        also pending instants lakeshift did not start. Empty for a table lakeshift has not
        committed to yet but did not create either (an adopted one is taken as found) and
        for a target taken as it stood by :meth:`accept_foreign_commits`.

        :meth:`sync`, :meth:`write_batch` and :meth:`delete_partitions` refuse to commit on
        top of them (:class:`~lakeshift.errors.ConcurrentCommit`, exit 8), and so does a
        switch before it points readers at the lake table."""
        return []

    def check_no_foreign_commits(self, target: str) -> None:
        """Raise :class:`~lakeshift.errors.ConcurrentCommit` naming :meth:`foreign_commits`."""
        from lakeshift.formats.foreign import foreign_commit_error

        found = self.foreign_commits(target) if self.exists(target) else []
        if found:
            raise foreign_commit_error(f"{self.label} {target}", found)

    def accept_foreign_commits(self, target: str) -> list[str]:
        """Take the target as it stands, other writers' commits included, as the base of
        lakeshift's next commit, and record that in the target; returns what was accepted.
        Pending writes of others (Hudi) are never accepted: they are refused still."""
        return []

    # -- validation -----------------------------------------------------------------------

    @abstractmethod
    def row_counts(self, target: str, inventory: TableInventory) -> dict[str, int]:
        """Rows per Hive partition name from the target's metadata (no data scan)."""

    @abstractmethod
    def frame(self, target: str, inventory: TableInventory | None = None) -> DataFrame:
        """The current snapshot as a Spark frame: Hive column names, plus uuid and
        partitionpath (``inventory`` may help a format; none needs the Hive table to exist)."""

    # -- routing and cutover --------------------------------------------------------------

    @abstractmethod
    def lake_side(self, target: str) -> LakeSide:
        """What the routing view reads for switched partitions."""

    @abstractmethod
    def rename(self, old: str, new: str) -> None:
        """Give the target another metastore name (cutover and revert)."""

    def location(self, target: str) -> str | None:
        """Where the table's files live (for reports); None when unknown."""
        return None

    # -- after cutover: erasure and table services ----------------------------------------

    @abstractmethod
    def delete_rows(
        self,
        target: str,
        partitions: list[str],
        keys: DataFrame,
        *,
        keyless_where: str | None = None,
    ) -> int:
        """Delete the rows of ``partitions`` whose ``uuid`` is in ``keys`` (a one-column
        frame) in one commit, rewriting the files that held them; returns the commit id.

        ``keyless_where`` (a SQL predicate) also deletes the rows that carry no record key
        (``uuid`` NULL: a source file's own rows where the table adopted the file) and match
        it, in a commit of its own; a file outside the table's location is dropped from the
        table's metadata only, never deleted. Formats whose tables hold no such rows refuse it.
        A re-run after a crash deletes what is left (both deletes are idempotent)."""

    def keyless_refusal(self, target: str) -> Exception:
        """What ``delete_rows`` raises for ``keyless_where`` where the format deletes by key
        only (its tables hold no adopted files; a keyless row is another writer's)."""
        from lakeshift.errors import RefusedInput

        return RefusedInput(
            f"rows of {self.label} {target} that match the erasure carry no record key (uuid, "
            f"another writer left it empty); lakeshift deletes the rows of {self.label}s by key.",
            hint="Delete those rows with the table's own tools, then run the same erase again: "
            "it deletes the keyed rows, purges and audits.",
        )

    @abstractmethod
    def expire(self, target: str, older_than: datetime) -> list[str]:
        """Drop snapshots (versions) older than ``older_than``, keeping the current one, and
        delete the files and metadata only they referenced; returns the removed paths.

        What lakeshift backfilled is remembered beside the table first (the commits that say so
        may be among those expired)."""

    @abstractmethod
    def remove_orphans(self, target: str, older_than: datetime) -> list[str]:
        """Delete files under the table location that no snapshot references and that are
        older than ``older_than`` (e.g. from a crashed write); returns the removed paths."""

    # -- shared by the writers ------------------------------------------------------------

    def rows_per_file(self, rows: int, size: int, target_bytes: int | None = None) -> int:
        """Rows that make a file of about ``target_bytes`` (default: ``target_file_bytes``),
        from a known rows/bytes ratio (ORC and Parquet compress alike enough for sizing); 0 when
        the ratio is unknown."""
        target_bytes = target_bytes or self.services.settings.target_file_bytes
        return max(1, target_bytes * rows // size) if rows and size else 0

    def cluster_by_partition(self, partitions: int, size: int) -> bool:
        """Whether a batch's rows should be gathered per partition before writing: yes when
        its partitions are smaller than a target file on average (one file each instead of one
        per task), no for large ones (gathering would limit the write to one task per
        partition; each task's files are cut at the target size anyway)."""
        target = self.services.settings.target_file_bytes
        return partitions > 0 and size / partitions < target

    def batch_clustering(
        self, inventory: TableInventory, partitions: list[str], key_mode: str = "uuid"
    ) -> bool:
        """Whether a batch's rows must be gathered per partition before writing: when its
        partitions are small (:meth:`cluster_by_partition`) and some partition would otherwise
        be read, and so written, by more than one task. A partition of one file no larger than
        ``UNSPLIT_BYTES`` is read by one task whole, so its rows already meet there; a batch
        of such partitions needs no shuffle (the small benchmark's 1,000 one-file partitions
        were shuffled for nothing). Deterministic keys rank rows in a window, whose shuffle
        would spread them again unless they are gathered first."""
        wanted = set(partitions)
        chosen = [p for p in inventory.partitions if p.name in wanted]
        if not self.cluster_by_partition(len(chosen), sum(p.bytes for p in chosen)):
            return False
        if key_mode != "uuid":
            return True
        return any(len(p.files) > 1 or any(f.size > UNSPLIT_BYTES for f in p.files) for p in chosen)

    def cluster_tasks(self, partitions: int) -> int:
        """The tasks :meth:`clustered` spreads ``partitions`` partitions over: up to four per
        core. The count is explicit: adaptive execution coalesces a small shuffle by its
        bytes, and a batch of 2,000 five-row partitions was written by one task in 25.5 s, one
        file after another (file count, not bytes, is the work there)."""
        return max(min(partitions, 4 * self.spark.sparkContext.defaultParallelism), 1)

    def one_task_each(self, partitions: int, key_mode: str = "uuid") -> bool:
        """Whether :meth:`clustered` gives each of ``partitions`` partitions a task of its own
        (no task then writes more than one partition: a writer needs no sort by partition):
        where there are tasks enough, unless keys are deterministic (they rank rows in a
        window by partition, which needs the rows hashed by the name itself, or Spark
        shuffles again)."""
        return key_mode == "uuid" and partitions == self.cluster_tasks(partitions)

    def clustered(
        self, frame: DataFrame, column: str, values: Sequence[str] | range, key_mode: str = "uuid"
    ) -> DataFrame:
        """``frame`` with the rows of each value of ``column`` (a partition: ``values`` lists
        them) in one task (:meth:`cluster_tasks`). Where :meth:`one_task_each`, each value
        gets its own: hashing the values themselves would put two in one task about as often
        as not (4 partitions into 4 tasks: 1 in 10 ways keeps them apart), leaving a task idle
        and another writing twice as much; each value is given a number Spark's hash sends to
        a task no other value's goes to (``spark_hash.keys_for_tasks``). Otherwise by the
        column itself."""
        from pyspark.sql import functions as F

        from lakeshift.formats.spark_hash import keys_for_tasks
        from lakeshift.hive.spark_sql import quote, string_literal

        tasks = self.cluster_tasks(len(values))
        if not self.one_task_each(len(values), key_mode):
            return frame.repartition(tasks, F.col(column))
        keys = keys_for_tasks(tasks)
        cases = " ".join(
            f"WHEN {string_literal(v) if isinstance(v, str) else v} THEN {k}"
            for v, k in zip(values, keys)
        )
        return frame.repartition(tasks, F.expr(f"CASE {quote(column)} {cases} END"))

    def batch_frame(
        self,
        inventory: TableInventory,
        mapping: FieldMapping,
        partitions: list[str],
        key_mode: str,
        *,
        cluster: bool = False,
    ) -> tuple[DataFrame, Callable[[], Fingerprint]]:
        """The batch's rows as this format holds them, with ``uuid`` and ``partitionpath``, and
        a function returning the source checksum observed while the frame is written.

        ``cluster`` gathers each partition's rows in one task (:meth:`clustered`) before the
        record key is made, so the shuffle does not carry the keys (36 of a row's bytes: the
        large benchmark's shuffle went from 116 MB to 40 MB)."""
        from pyspark.sql import Observation
        from pyspark.sql import functions as F

        from lakeshift.hive.source_frame import source_frame
        from lakeshift.migrate import faults
        from lakeshift.migrate.keys import add_record_key
        from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN
        from lakeshift.validate.canonical import aggregate_sql, checksum_fields, from_metrics

        data_columns = [c.name for c in (*inventory.columns, *inventory.partition_keys)]
        frame = source_frame(self.spark, inventory, mapping, partitions, self.target_type, key_mode)
        frame = faults.with_task_fault(frame, PARTITIONPATH_COLUMN)
        fields = checksum_fields(frame.schema.fields, data_columns)
        # Unique per batch: bulk runs observe several tables' batches at once in one session.
        observation = Observation(f"lakeshift_batch_{uuid.uuid4().hex}")
        frame = frame.observe(observation, *[F.expr(e) for e in aggregate_sql(fields)])
        if cluster:
            frame = self.clustered(frame, PARTITIONPATH_COLUMN, partitions, key_mode)
        frame = add_record_key(frame, key_mode, data_columns)

        def checksum() -> Fingerprint:
            return from_metrics(observation.get)

        return frame, checksum

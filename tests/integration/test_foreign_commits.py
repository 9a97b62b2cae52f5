"""Another writer's commit at any point of a run (after the target's creation, between batches,
during validation, during switch) stops lakeshift with exit 8, and nothing of that commit is
lost or overwritten: each format's own writer makes the commit, each format's own reader
finds its rows afterwards, and lakeshift's last commit is still the one before it.

The target's commit metadata is the ground truth of who wrote what: a re-run (a new format
object, as in a new process) refuses the same commit again, until told to accept it."""

from __future__ import annotations

import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any

import pyarrow as pa
import pytest

from lakeshift.config import Settings
from lakeshift.errors import EXIT_CONFLICT, ConcurrentCommit
from lakeshift.formats import FormatServices, load_format
from lakeshift.formats.delta.format import DeltaFormat
from lakeshift.formats.hudi.format import HudiFormat
from lakeshift.formats.iceberg import IcebergFormat
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.route import router
from lakeshift.route.router import switch
from lakeshift.validate.validator import validate_table
from tests.helpers.hive_tables import HiveTableBuilder, unique_name
from tests.helpers.hudi_build import foreign_commit
from tests.helpers.lake import delta_root, local_path, read_lake

pytestmark = pytest.mark.slow

FORMAT_CLASSES = {"iceberg": IcebergFormat, "delta": DeltaFormat, "hudi": HudiFormat}


def _formats(*default: str) -> list[Any]:
    """Every format; those not in ``default`` run with ``make extended`` (the default run
    covers Delta at every point and Iceberg where its commit path differs, keeping this
    module near a minute; Hudi's runs are the slowest: bloom filters, the timeline)."""
    return [
        pytest.param(f, id=f, marks=() if f in default else pytest.mark.extended)
        for f in ("iceberg", "delta", "hudi")
    ]


#: Ids of the other writer's rows (the source's are 0..12).
FOREIGN_IDS = [1000, 1001]


class _Run:
    """A three-partition source (two rows each) in ``batches`` batches, and its target."""

    def __init__(
        self, client: MetastoreClient, tables_root: Path, tmp_path: Path, fmt: str, batches: int = 3
    ) -> None:
        hive = HiveTableBuilder(client, tables_root, "foreign", unique_name("t"), [("id", "int")])
        for p in range(3):
            hive.add_partition(
                [str(p)], {"000000_0": pa.table({"id": pa.array([p, p + 10], pa.int32())})}
            )
        self.client, self.format = client, fmt
        self.source = f"{hive.db}.{hive.name}"
        self.target = f"{self.source}_{fmt}"
        self.journal = Journal(tmp_path / "journal.sqlite")
        self.options = MigrateOptions(target=self.target, batch_rows=6 // batches, format=fmt)

    def foreign_write(self, partition: str) -> None:
        """Two rows in ``partition`` (a ``dt`` value), committed by the format's own writer."""
        values = {
            "id": FOREIGN_IDS,
            "dt": [partition] * 2,
            "uuid": [str(uuid.uuid4()) for _ in FOREIGN_IDS],
            "partitionpath": [f"dt={partition}"] * 2,
        }
        if self.format == "delta":
            from deltalake import DeltaTable, write_deltalake

            root = delta_root(self.client, self.target)
            schema = pa.schema(DeltaTable(root).schema().to_arrow())
            write_deltalake(root, pa.table(values).cast(schema), mode="append")
        elif self.format == "iceberg":
            from pyiceberg.catalog.hive import HiveCatalog

            table = HiveCatalog("other", uri=self.client.uri).load_table(self.target)
            table.append(pa.table(values).cast(table.schema().as_arrow()))
        else:
            foreign_commit(self.hudi_root(), f"dt={partition}", values)

    def fmt_exists(self) -> bool:
        """Whether the target has been created (and so can take another writer's commit)."""
        db, _, name = self.target.partition(".")
        return self.client.table_exists(db, name)

    def hudi_root(self) -> Path:
        db, _, name = self.target.partition(".")
        return local_path(self.client.get_table(db, name).sd.serdeInfo.parameters["path"])

    def foreign_rows(self) -> list[tuple[int, str]]:
        """The other writer's rows as the format's own reader sees them."""
        rows = read_lake(self.client, self.target).select(["id", "dt"]).to_pylist()
        return sorted((r["id"], r["dt"]) for r in rows if r["id"] in FOREIGN_IDS)

    def newest_commit_is_foreign(self) -> bool:
        """Whether the target's newest commit is the other writer's (lakeshift wrote nothing
        after it), read with the format's own library."""
        if self.format == "delta":
            from deltalake import DeltaTable

            newest = DeltaTable(delta_root(self.client, self.target)).history(1)[0]
            return not any(k.startswith("lakeshift.") for k in newest)
        if self.format == "iceberg":
            from pyiceberg.catalog.hive import HiveCatalog

            table = HiveCatalog("other", uri=self.client.uri).load_table(self.target)
            summary = table.current_snapshot().summary  # type: ignore[union-attr]
            return not any(k.startswith("lakeshift.") for k in summary.additional_properties)
        timeline = self.hudi_root() / ".hoodie"
        completed = [p.name for p in timeline.iterdir() if re.fullmatch(r"\d{17}\.commit", p.name)]
        newest = max(completed)[:17]
        # The other writer's instant is the newest completed one, and not marked lakeshift's.
        return not (timeline / ".lakeshift" / "instants" / newest).exists()

    def migrate(self, spark: Any, settings: Settings, **kwargs: Any) -> Any:
        return migrate(
            spark, self.client, None, settings, self.journal, self.source, self.options, **kwargs
        )


@contextmanager
def _after(cls: type, method: str, then: Callable[[], None]) -> Iterator[None]:
    """``cls.method`` runs as before, then ``then`` (once)."""
    original = getattr(cls, method)
    done: list[bool] = []

    def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        result = original(self, *args, **kwargs)
        if not done:
            done.append(True)
            then()
        return result

    setattr(cls, method, wrapped)
    try:
        yield
    finally:
        setattr(cls, method, original)


def _refused(caught: pytest.ExceptionInfo[ConcurrentCommit]) -> None:
    assert caught.value.exit_code == EXIT_CONFLICT
    assert "another writer committed" in caught.value.message
    assert "--accept-foreign-commits" in (caught.value.hint or "")


@pytest.mark.parametrize("fmt", _formats("delta"))
def test_a_commit_right_after_creation_is_refused_in_this_run_and_the_next(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    tables_root: Path,
    tmp_path: Path,
    fmt: str,
) -> None:
    run = _Run(client, tables_root, tmp_path, fmt)
    with (
        _after(FORMAT_CLASSES[fmt], "sync", lambda: run.foreign_write("9")),
        pytest.raises(ConcurrentCommit) as caught,
    ):
        run.migrate(spark, settings)
    _refused(caught)
    assert run.foreign_rows() == [(1000, "9"), (1001, "9")] and run.newest_commit_is_foreign()

    # A re-run (a new format object, as a new process has) reads the same from the target.
    with pytest.raises(ConcurrentCommit):
        run.migrate(spark, settings)
    assert run.newest_commit_is_foreign()

    # Told to accept it, lakeshift goes on on top of it; the other writer's rows stay.
    run.options = replace(run.options, batch_rows=6, accept_foreign_commits=True)
    result = run.migrate(spark, settings)
    assert sorted(result.backfilled) == ["dt=0", "dt=1", "dt=2"]
    assert run.foreign_rows() == [(1000, "9"), (1001, "9")]
    ids = sorted(read_lake(client, run.target).column("id").to_pylist())
    assert ids == [0, 1, 2, 10, 11, 12, *FOREIGN_IDS]


@pytest.mark.parametrize("fmt", _formats("delta"))
def test_a_commit_between_batches_stops_the_run_before_it_replaces_that_partition(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    tables_root: Path,
    tmp_path: Path,
    fmt: str,
) -> None:
    run = _Run(client, tables_root, tmp_path, fmt)

    def other_writer(done: int, total: int, note: str = "") -> None:
        if done == 1:  # batch 1 (dt=0) committed; dt=2 is still to come
            run.foreign_write("2")

    with pytest.raises(ConcurrentCommit) as caught:
        run.migrate(spark, settings, progress=other_writer)
    _refused(caught)
    assert run.foreign_rows() == [(1000, "2"), (1001, "2")] and run.newest_commit_is_foreign()
    fmt_object = load_format(fmt, FormatServices(spark, client, settings))
    assert sorted(fmt_object.backfilled(run.target)) == ["dt=0"]


@pytest.mark.parametrize("fmt", _formats("delta"))
def test_a_commit_during_validation_keeps_the_switch_from_serving_it(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    tables_root: Path,
    tmp_path: Path,
    fmt: str,
) -> None:
    run = _Run(client, tables_root, tmp_path, fmt, batches=1)
    assert run.migrate(spark, settings).ok
    with _after(FORMAT_CLASSES[fmt], "row_counts", lambda: run.foreign_write("9")):
        validate_table(spark, client, None, settings, run.journal, run.source, run.target)
    services = FormatServices(spark, client, settings)
    with pytest.raises(ConcurrentCommit) as caught:
        switch(
            services,
            settings,
            run.journal,
            run.source,
            run.target,
            partitions=None,
            all_validated=True,
        )
    _refused(caught)
    db, _, name = router.default_view(run.source).partition(".")
    assert not client.table_exists(db, name)  # no reader was pointed at the lake table
    assert run.foreign_rows() == [(1000, "9"), (1001, "9")] and run.newest_commit_is_foreign()


@pytest.mark.parametrize("fmt", _formats("iceberg"))
def test_a_commit_during_switch_is_refused_before_the_view_changes(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    tables_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fmt: str,
) -> None:
    run = _Run(client, tables_root, tmp_path, fmt, batches=1)
    assert run.migrate(spark, settings).ok
    report = validate_table(spark, client, None, settings, run.journal, run.source, run.target)
    assert report.ok
    services = FormatServices(spark, client, settings)
    # The lake side is in line with the target, the view not updated yet: the other writer
    # commits into a partition about to be switched.
    crash_point = router.faults.crash_point

    def commit_there(point: str, batch: int) -> None:
        if point == "before-view-update":
            run.foreign_write("1")
        crash_point(point, batch)

    monkeypatch.setattr(router.faults, "crash_point", commit_there)
    with pytest.raises(ConcurrentCommit) as caught:
        switch(
            services,
            settings,
            run.journal,
            run.source,
            run.target,
            partitions=None,
            all_validated=True,
        )
    _refused(caught)
    db, _, name = router.default_view(run.source).partition(".")
    assert not client.table_exists(db, name)
    assert (run.journal.route(run.source) or {}).get("switched", []) == []
    assert run.foreign_rows() == [(1000, "1"), (1001, "1")] and run.newest_commit_is_foreign()


@pytest.mark.parametrize("fmt", _formats("iceberg"))
def test_a_commit_landing_between_the_check_and_the_commit_is_not_replaced(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    tables_root: Path,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    fmt: str,
) -> None:
    """The race inside a batch: the other writer commits into the batch's own partition after
    lakeshift found no foreign commit and before its commit lands. Delta's commit goes to the
    next version only, Iceberg's is serializable from the snapshot checked, Hudi checks the
    timeline again before completing: each refuses, and the other writer's rows stay."""
    from lakeshift.formats.delta import log as delta_log

    run = _Run(client, tables_root, tmp_path, fmt, batches=1)
    # The hook each format's batch passes after its check, before its commit.
    where: tuple[Any, str] = {
        "delta": (delta_log, "refuse_foreign_commits"),
        "iceberg": (IcebergFormat, "_base_snapshot"),
        "hudi": (HudiFormat, "_rollback_pending"),
    }[fmt]
    checked = getattr(*where)
    done: list[bool] = []

    def then_another_writer(*args: Any, **kwargs: Any) -> Any:
        result = checked(*args, **kwargs)
        if not done and run.fmt_exists():
            done.append(True)
            run.foreign_write("0")
        return result

    monkeypatch.setattr(*where, then_another_writer)
    with pytest.raises(ConcurrentCommit) as caught:
        run.migrate(spark, settings)
    assert caught.value.exit_code == EXIT_CONFLICT and done
    assert run.foreign_rows() == [(1000, "0"), (1001, "0")] and run.newest_commit_is_foreign()
    fmt_object = load_format(fmt, FormatServices(spark, client, settings))
    assert fmt_object.backfilled(run.target) == {}


@pytest.mark.parametrize("fmt", _formats("delta"))
def test_lakeshifts_own_removal_of_an_emptied_partition_is_not_taken_for_another_writers(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    tables_root: Path,
    tmp_path: Path,
    fmt: str,
) -> None:
    run = _Run(client, tables_root, tmp_path, fmt, batches=1)
    assert run.migrate(spark, settings).ok
    db, _, name = run.source.partition(".")
    partitions = local_path(client.get_table(db, name).sd.location)
    (partitions / "dt=1" / "000000_0").unlink()  # the source partition is empty now
    run.migrate(spark, settings)  # its rows leave the target in a commit of lakeshift's
    assert sorted(read_lake(client, run.target).column("id").to_pylist()) == [0, 2, 10, 12]
    fmt_object = load_format(fmt, FormatServices(spark, client, settings))
    assert fmt_object.foreign_commits(run.target) == []
    # The next commit (guarded) stands on that one.
    (partitions / "dt=2" / "000000_0").unlink()
    run.migrate(spark, settings)
    assert sorted(read_lake(client, run.target).column("id").to_pylist()) == [0, 10]

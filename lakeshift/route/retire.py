"""Retire the legacy Hive table after cutover: the one step that may touch source data.

``prepare_retire`` checks what needs no Spark (the cutover finished, its probation period is
over, the legacy table is still there); ``retire`` then validates every partition of the
legacy Hive table against the lake table afresh (the source side is scanned again, never taken
from the backfill's observations) and only when all are equal drops the legacy table's
metastore entry, never its files. Deleting the files is a separate, explicit request
(``delete_files``): a manifest of every file is written under ``HOME/retired/`` first, and only
files whose size and modification time still match it are deleted.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import Any

from lakeshift.config import Settings
from lakeshift.errors import RefusedInput, ValidationMismatch
from lakeshift.formats import FormatServices, TargetFormat, format_of, load_format
from lakeshift.inspect.inspector import inspect_table, split_table_name
from lakeshift.migrate.journal import Journal
from lakeshift.route import retire_files
from lakeshift.route.cutover import is_cut_over
from lakeshift.route.router import default_legacy
from lakeshift.validate.model import EQUAL, EXTRA, ValidationReport
from lakeshift.validate.validator import validate_table

log = logging.getLogger(__name__)
Progress = Callable[[str], None]
DAY = 86_400.0


@dataclass(frozen=True)
class RetirePlan:
    """A retirement whose cheap checks passed (no Spark needed for them).

    Attributes:
        source: the public name (now the lake table's).
        legacy: the legacy Hive table's name, or None when it was already dropped.
        format: the lake table's format.
        cutover_at: when the cutover finished (epoch seconds).
        probation_days: the probation period that applied.
    """

    source: str
    legacy: str | None
    format: str
    cutover_at: float
    probation_days: float


@dataclass(frozen=True)
class RetireResult:
    """What ``retire`` did.

    Attributes:
        dropped: the legacy metastore entry was dropped by this call.
        already_retired: it was dropped before (by an earlier run).
        validation: the fresh validation (None when already retired).
        extra_partitions: lake partitions the legacy table never had (written after cutover).
        manifest: the manifest of the legacy table's files (None when already retired and none
            was written).
        deleted: files deleted by this call; ``kept_changed``: files left because they changed
            since the manifest; ``absent``: files already gone.
    """

    source: str
    legacy: str
    format: str
    dropped: bool
    already_retired: bool = False
    validation: ValidationReport | None = None
    extra_partitions: list[str] = field(default_factory=list)
    manifest: str | None = None
    files: int = 0
    bytes: int = 0
    deleted: list[str] = field(default_factory=list)
    kept_changed: list[str] = field(default_factory=list)
    absent: list[str] = field(default_factory=list)
    removed_dirs: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        validation = self.validation
        return {
            "source": self.source,
            "legacy": self.legacy,
            "format": self.format,
            "dropped": self.dropped,
            "already_retired": self.already_retired,
            "validation": None
            if validation is None
            else {
                "level": validation.level,
                "totals": validation.to_json()["totals"],
                "rescanned": sum(p.source_rescanned for p in validation.partitions),
            },
            "extra_partitions": self.extra_partitions,
            "manifest": self.manifest,
            "files": self.files,
            "bytes": self.bytes,
            "deleted": self.deleted,
            "kept_changed": self.kept_changed,
            "absent": self.absent,
            "removed_dirs": self.removed_dirs,
        }


def _stamp(epoch: float) -> str:
    return datetime.fromtimestamp(epoch, timezone.utc).isoformat(timespec="seconds")


def _days(seconds: float) -> str:
    return f"{seconds / DAY:.1f} days" if seconds >= DAY else f"{seconds / 3600:.1f} hours"


def prepare_retire(
    services: FormatServices,
    settings: Settings,
    journal: Journal,
    table: str,
    *,
    probation_days: float | None = None,
    now: float | None = None,
) -> RetirePlan:
    """Check that ``table`` may be retired now; raises :class:`RefusedInput` (exit 7) if not.

    Refused: before the cutover finished, and before ``probation_days`` (default: the
    ``retire_probation_days`` setting) have passed since it.
    """
    db, name = split_table_name(table)
    source = f"{db}.{name}"
    route = journal.route(source)
    if not is_cut_over(route):
        state = (route or {}).get("cutover") or "not started"
        raise RefusedInput(
            f"{source} is not cut over (cutover: {state}); retire drops the legacy Hive table "
            "only after a finished cutover.",
            hint=f"Switch every partition and run `lakeshift cutover {source}` first.",
        )
    kind = format_of(services.client, source)
    if kind in (None, "hive"):
        raise RefusedInput(
            f"{source} should be the lake table after its cutover, but it is "
            f"{'missing' if kind is None else 'a Hive table'}.",
            hint=f"Run `lakeshift cutover {source}` again to finish it, then retire.",
        )
    legacy = str(route.get("legacy") or default_legacy(source))
    legacy_kind = format_of(services.client, legacy)
    if legacy_kind not in (None, "hive"):
        raise RefusedInput(f"{legacy} is a {legacy_kind} table, not the legacy Hive table.")
    days = settings.retire_probation_days if probation_days is None else probation_days
    cutover_at = float(route.get("cutover_at") or route.get("updated_at") or 0.0)
    moment = time.time() if now is None else now
    due = cutover_at + days * DAY
    if legacy_kind == "hive" and moment < due:
        raise RefusedInput(
            f"{source} was cut over at {_stamp(cutover_at)}; its probation period of "
            f"{days:g} days ends at {_stamp(due)} ({_days(due - moment)} from now). The legacy "
            f"table {legacy} stays until then.",
            hint="Run retire again then, or shorten the period with --probation-days N "
            "(setting retire_probation_days).",
        )
    return RetirePlan(source, legacy if legacy_kind == "hive" else None, kind, cutover_at, days)


def retire(
    services: FormatServices,
    settings: Settings,
    journal: Journal,
    plan: RetirePlan,
    *,
    delete_files: bool = False,
    progress: Progress | None = None,
) -> RetireResult:
    """Validate afresh, drop the legacy metastore entry, and (on request) delete its files.

    Raises :class:`ValidationMismatch` (exit 4) with nothing dropped when any partition of the
    legacy table is not equal to the lake table's. Re-running after a kill finishes the job: a
    dropped entry is not dropped again, and the manifest's remaining files are deleted.
    """
    say = progress or (lambda _: None)
    source = plan.source
    if plan.legacy is None:
        return _already_retired(services, settings, journal, plan, delete_files, say)
    fmt = load_format(plan.format, services)
    journal.acquire_lease(source, "lakeshift retire")
    try:
        inventory = inspect_table(services.client, plan.legacy, settings)
        if inventory.table_type != "EXTERNAL_TABLE":
            raise RefusedInput(
                f"{plan.legacy} is a managed table: dropping its entry may delete its files.",
                hint="Make it external (ALTER TABLE ... SET TBLPROPERTIES('EXTERNAL'='TRUE')) "
                "first.",
            )
        say(f"validating every partition of {plan.legacy} against {source} (checksums)")
        report = validate_table(
            services.spark,
            services.client,
            services.catalog,
            settings,
            journal,
            plan.legacy,
            source,
            level="checksum",
        )
        _require_equal(report, plan)
        listed = retire_files.listed_files(inventory)
        if delete_files:
            retire_files.check_outside(listed, fmt.location(source))
            _release(fmt, source, listed, say)
            _check_deletable(fmt, source, listed)
        manifest = retire_files.write_manifest(
            settings.home,
            source,
            plan.legacy,
            inventory,
            listed,
            fmt.label,
            report.to_json()["totals"],
        )
        db, name = split_table_name(plan.legacy)
        say(f"dropping the metastore entry of {plan.legacy} (its files are kept)")
        services.client.drop_table(db, name, delete_data=False)
        journal.event(source, "retired", f"dropped {plan.legacy}; manifest {manifest}")
        log.info("retired %s (legacy %s); manifest %s", source, plan.legacy, manifest)
        result = RetireResult(
            source,
            plan.legacy,
            plan.format,
            dropped=True,
            validation=report,
            extra_partitions=[p.partition for p in report.partitions if p.status == EXTRA],
            manifest=str(manifest),
            files=len(listed),
            bytes=sum(f["size"] for f in listed),
        )
        if delete_files:
            result = _delete(result, manifest, say)
            journal.event(source, "retired-files-deleted", f"{len(result.deleted)} files")
        return result
    finally:
        journal.release_lease(source)


def _check_deletable(fmt: TargetFormat, lake: str, files: list[dict[str, Any]]) -> None:
    """Refuse ``--delete-files`` for files the lake table holds: under its location, or the
    legacy table's own that it adopted and still reads."""
    from lakeshift.maintain.layout import layout_for

    retire_files.check_outside(files, fmt.location(lake))
    adopted = [f.path for f in layout_for(fmt).foreign_files(lake)]
    retire_files.check_not_read(files, adopted, f"{fmt.label} {lake}")


def _require_equal(report: ValidationReport, plan: RetirePlan) -> None:
    # Lake partitions the legacy table never had were written after the cutover: not a loss.
    bad = [p for p in report.partitions if p.status not in (EQUAL, EXTRA)]
    if not bad and not report.table_problems:
        return
    shown = "; ".join(f"{p.partition}: {p.status} ({p.detail})" for p in bad[:5])
    more = f" and {len(bad) - 5} more" if len(bad) > 5 else ""
    problems = "; ".join(report.table_problems)
    raise ValidationMismatch(
        f"{len(bad)} partition(s) of {plan.legacy} differ from {plan.source}: "
        f"{shown}{more}{'; ' + problems if problems else ''}. Nothing was dropped.",
        hint="The legacy table still holds data the lake table does not show as it is (rows "
        "written to either side after the cutover, or erased from the lake table, also count). "
        "Keep it until you have decided, or repair the lake table and run retire again.",
    )


def _already_retired(
    services: FormatServices,
    settings: Settings,
    journal: Journal,
    plan: RetirePlan,
    delete_files: bool,
    say: Progress,
) -> RetireResult:
    """The legacy entry is gone already: finish deleting files when asked (from the manifest)."""
    route = journal.route(plan.source) or {}
    legacy = str(route.get("legacy") or default_legacy(plan.source))
    manifest = retire_files.latest_manifest(settings.home, plan.source)
    result = RetireResult(plan.source, legacy, plan.format, dropped=False, already_retired=True)
    if manifest is None:
        if delete_files:
            raise RefusedInput(
                f"{legacy} was dropped without a manifest of its files here; lakeshift no "
                "longer knows which files were its own and deletes nothing.",
                hint=f"Its last inventory is under {settings.home / 'inventory'}.",
            )
        return result
    document = retire_files.read_manifest(manifest)
    result = RetireResult(
        plan.source,
        legacy,
        plan.format,
        dropped=False,
        already_retired=True,
        manifest=str(manifest),
        files=len(document["files"]),
        bytes=sum(f["size"] for f in document["files"]),
    )
    if delete_files and document.get("status") != retire_files.DELETED:
        fmt: TargetFormat = load_format(plan.format, services)
        retire_files.check_outside(document["files"], fmt.location(plan.source))
        journal.acquire_lease(plan.source, "lakeshift retire")
        try:
            _release(fmt, plan.source, document["files"], say)
            _check_deletable(fmt, plan.source, document["files"])
            result = _delete(result, manifest, say)
        finally:
            journal.release_lease(plan.source)
        journal.event(plan.source, "retired-files-deleted", f"{len(result.deleted)} files")
    return result


def _release(fmt: TargetFormat, target: str, files: list[dict[str, Any]], say: Progress) -> None:
    """An Iceberg table holding the legacy table's own files (``adopt_files``) gets its own
    copies of those partitions first: the files are about to go."""
    rewritten = fmt.release_files(target, files)
    if rewritten:
        say(f"rewrote {len(rewritten)} adopted partition(s) into {target}'s own location")


def _delete(result: RetireResult, manifest: Any, say: Progress) -> RetireResult:
    from dataclasses import replace

    say(f"deleting the legacy table's data files listed in {manifest}")
    outcome = retire_files.delete_listed(manifest)
    return replace(
        result,
        deleted=outcome.deleted,
        kept_changed=outcome.changed,
        absent=outcome.absent,
        removed_dirs=outcome.removed_dirs,
    )

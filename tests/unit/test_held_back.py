"""Nothing is skipped silently: every partition not acted on is listed with its reason, and a
fact that the source has since made stale is never shown as current (no metastore, no Spark)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lakeshift.cli import base, route_cmd
from lakeshift.cli.main import cli
from lakeshift.cli.validate_cmd import _raise_unless_ok
from lakeshift.errors import EXIT_PARTIAL, EXIT_VALIDATION, LakeshiftError
from lakeshift.formats.base import Backfilled
from lakeshift.inspect.model import Anomaly, Column, FileInfo, PartitionInfo, TableInventory
from lakeshift.migrate.journal import BACKFILLED, VALIDATED, Journal
from lakeshift.report.collect import collect_report
from lakeshift.route.router import RouteChange, eligibility
from lakeshift.validate.model import (
    EQUAL,
    MISMATCH,
    NOT_MIGRATED,
    PartitionValidation,
    ValidationReport,
)
from lakeshift.validate.validator import _first_pass

SOURCE, TARGET = "db.t", "db.t_iceberg"
CORRUPT = Anomaly(
    "corrupt-file", "error", "1 file(s) cannot be read: bad: ArrowInvalid: x", "Repair it."
)


def _orc(rows: int | None, path: str = "f") -> FileInfo:
    return FileInfo(path=path, size=100, mtime_ns=1, format="orc", rows=rows)


def _partition(
    name: str, fingerprint: str, files: tuple[FileInfo, ...], *anomalies: Anomaly
) -> PartitionInfo:
    return PartitionInfo(
        name=name,
        values=(name.split("=")[1],),
        location=f"file:/t/{name}",
        location_exists=True,
        outside_table_root=False,
        format="orc",
        input_format="",
        serde="",
        columns=(Column("id", "bigint"),),
        parameters={},
        files=files,
        skipped_files=0,
        fingerprint=fingerprint,
        anomalies=anomalies,
    )


def _inventory(*partitions: PartitionInfo) -> TableInventory:
    return TableInventory(
        database="db",
        table="t",
        location="file:/t",
        table_type="EXTERNAL_TABLE",
        format="orc",
        input_format="",
        serde="",
        columns=(Column("id", "bigint"),),
        partition_keys=(Column("dt", "string"),),
        parameters={},
        partitions=partitions,
        unregistered_dirs=(),
        anomalies=(),
        metastore_uri="",
        inspected_at="",
        seconds=0.0,
    )


class _Format:
    def __init__(self, done: dict[str, str]) -> None:
        self.done = {n: Backfilled(n, fp, 100, 1, "run") for n, fp in done.items()}

    def backfilled(self, target: str) -> dict[str, Backfilled]:
        return self.done


def _validated(journal: Journal, name: str, fingerprint: str, status: str = EQUAL) -> None:
    journal.record_validation(
        SOURCE,
        name,
        TARGET,
        "checksum",
        status,
        source_fingerprint=fingerprint,
        source_checksum=None,
        target_checksum={"rows": 100, "sum1": "1", "sum2": "2"},
        detail="row count differs" if status != EQUAL else "",
    )


def test_every_partition_not_switchable_has_its_own_reason(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite")
    inventory = _inventory(
        _partition("dt=ok", "a", (_orc(100),)),
        _partition("dt=unvalidated", "a", (_orc(100),)),
        _partition("dt=revalidate", "b", (_orc(110),)),  # re-backfilled after validation
        _partition("dt=changed", "b", (_orc(110),)),  # changed after backfill and validation
        _partition("dt=unmigrated", "a", (_orc(100),)),
        _partition("dt=mismatch", "a", (_orc(100),)),
        _partition("dt=corrupt", "a", (_orc(None),), CORRUPT),
    )
    fmt = _Format(
        {
            "dt=ok": "a",
            "dt=unvalidated": "a",
            "dt=revalidate": "b",
            "dt=changed": "a",
            "dt=mismatch": "a",
        }
    )
    for name in ("dt=ok", "dt=revalidate", "dt=changed"):
        _validated(journal, name, "a")
    _validated(journal, "dt=mismatch", "a", MISMATCH)
    reasons = eligibility(inventory, fmt, TARGET, journal)  # type: ignore[arg-type]
    assert reasons["dt=ok"] is None
    assert "not validated yet" in str(reasons["dt=unvalidated"])
    assert str(reasons["dt=revalidate"]).startswith("source changed since its validation")
    assert str(reasons["dt=changed"]).startswith("source changed since its backfill and validation")
    assert "not backfilled yet" in str(reasons["dt=unmigrated"])
    assert "mismatch: row count differs" in str(reasons["dt=mismatch"])
    assert str(reasons["dt=corrupt"]).startswith("not migrated: corrupt-file: 1 file(s)")


def test_switch_all_validated_lists_what_it_held_back_and_exits_3(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held = {"dt=1": "not validated yet; run `lakeshift validate`"}

    def fake_switch(*args: Any, **kwargs: Any) -> RouteChange:
        assert kwargs["all_validated"]
        return RouteChange(SOURCE, "db.t_routed", [], [], held)

    monkeypatch.setattr(route_cmd, "switch", fake_switch)
    monkeypatch.setattr(base.CliState, "html_report", lambda self, table: None)
    result = CliRunner().invoke(
        cli,
        ["--home", str(tmp_path), "--output", "json", "switch", SOURCE, "--all-validated"],
    )
    assert result.exit_code == EXIT_PARTIAL, result.output
    document = json.loads(result.output)
    assert document["refused"] == held and document["error"]["exit_code"] == EXIT_PARTIAL
    text = CliRunner().invoke(cli, ["--home", str(tmp_path), "switch", SOURCE, "--all-validated"])
    assert "1 held back" in text.output and "not validated yet" in text.output


def test_a_corrupt_partition_shows_unknown_rows_and_its_cause_never_zero() -> None:
    corrupt = _partition("dt=bad", "a", (_orc(None, "bad"),), CORRUPT)
    result = _first_pass(corrupt, None, 0, "checksum", "Iceberg")
    assert result.status == NOT_MIGRATED and result.source_rows is None
    assert "corrupt-file" in result.detail and "bad: ArrowInvalid" in result.detail
    healthy = _partition("dt=ok", "a", (_orc(20_000),))
    assert healthy.footer_rows == 20_000 and corrupt.footer_rows is None


def _report(*statuses: str) -> ValidationReport:
    return ValidationReport(
        SOURCE,
        TARGET,
        "checksum",
        tuple(PartitionValidation(f"dt={i}", s, "checksum", 1, 1) for i, s in enumerate(statuses)),
    )


def test_validate_does_not_pass_with_a_partition_not_migrated() -> None:
    assert not _report(EQUAL, NOT_MIGRATED).ok
    with pytest.raises(LakeshiftError) as held:
        _raise_unless_ok(_report(EQUAL, NOT_MIGRATED))
    assert held.value.exit_code == EXIT_PARTIAL and "dt=1" in str(held.value)
    with pytest.raises(LakeshiftError) as differs:
        _raise_unless_ok(_report(MISMATCH, NOT_MIGRATED))
    assert differs.value.exit_code == EXIT_VALIDATION
    assert "dt=0" in str(differs.value) and "1 partition(s) not migrated" in str(differs.value)
    _raise_unless_ok(_report(EQUAL, EQUAL))


def test_report_shows_a_partition_whose_source_changed_as_stale(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite")
    for name in ("dt=1", "dt=2"):
        journal.record(SOURCE, name, TARGET, BACKFILLED, fingerprint="a", rows=100)
        journal.set_status(SOURCE, name, VALIDATED)
        _validated(journal, name, "a")
    inventory = _inventory(
        _partition("dt=1", "b", (_orc(110),)),  # 10 rows appended since the validation
        _partition("dt=2", "a", (_orc(100),)),
    )
    rows = {r.name: r for r in collect_report(inventory, journal).partitions}
    changed = rows["dt=1"]
    assert (changed.source_rows, changed.target_rows) == (110, 100)
    assert changed.validation == "stale" and changed.status == "stale"
    assert (rows["dt=2"].validation, rows["dt=2"].status) == (EQUAL, VALIDATED)

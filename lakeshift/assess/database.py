"""Assess every table of a database without Spark: inspect each (metastore and file footers
only, in parallel), classify it, estimate its size and backfill time, and write a bulk file.

Verdicts: ``ready`` (no anomaly above info), ``attention`` (migrates, but warnings say what to
look at, e.g. schema drift, small files, a managed table that cutover will refuse), ``partial``
(some partitions are refused and the rest migrate), ``refused`` (lakeshift will not migrate the
table: a view, ACID, bucketed, not ORC), ``failed`` (could not be inspected: the error says why).
"""

from __future__ import annotations

import fnmatch
import logging
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from typing import Any

from lakeshift.config import Settings
from lakeshift.errors import LakeshiftError, NotFound, UnsupportedTable
from lakeshift.inspect.inspector import inspect_table
from lakeshift.inspect.model import SEVERITY_ERROR, SEVERITY_WARNING, TableInventory
from lakeshift.metastore.catalog import CatalogClient

log = logging.getLogger(__name__)
READY, ATTENTION, PARTIAL, REFUSED, FAILED = "ready", "attention", "partial", "refused", "failed"
#: Backfill rate assumed before lakeshift measured one here (rows per second per core, from
#: this project's benchmarks on small rows; the journal's measured rate replaces it).
DEFAULT_ROWS_PER_SECOND = 20_000


@dataclass(frozen=True)
class TableAssessment:
    table: str
    verdict: str
    partitions: int = 0
    refused_partitions: int = 0
    files: int = 0
    rows: int = 0
    bytes: int = 0
    estimated_seconds: float | None = None
    reasons: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Assessment:
    database: str
    tables: list[TableAssessment]
    rows_per_second: float
    rate_measured: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "database": self.database,
            "rows_per_second": self.rows_per_second,
            "rate_measured": self.rate_measured,
            "totals": dict(Counter(t.verdict for t in self.tables)),
            "tables": [asdict(t) for t in self.tables],
        }


def _verdict(inventory: TableInventory) -> tuple[str, list[str], int]:
    refused = [p for p in inventory.partitions if not p.migratable]
    codes = Counter(
        a.code for a in inventory.all_anomalies if a.severity in (SEVERITY_ERROR, SEVERITY_WARNING)
    )
    reasons = [f"{code} ({n})" for code, n in sorted(codes.items())]
    if refused and len(refused) == len(inventory.partitions):
        return REFUSED, reasons, len(refused)
    if refused:
        return PARTIAL, reasons, len(refused)
    return (ATTENTION if reasons else READY), reasons, 0


def _assess_one(
    client_factory: Callable[[], CatalogClient], name: str, settings: Settings, rate: float
) -> TableAssessment:
    client = client_factory()
    try:
        inventory = inspect_table(client, name, settings)
    except UnsupportedTable as e:
        return TableAssessment(name, REFUSED, reasons=[e.message])
    except LakeshiftError as e:
        return TableAssessment(name, FAILED, reasons=[e.message])
    finally:
        client.close()
    verdict, reasons, refused = _verdict(inventory)
    summary = inventory.summary()
    return TableAssessment(
        name,
        verdict,
        partitions=summary["partitions"],
        refused_partitions=refused,
        files=summary["files"],
        rows=summary["rows"],
        bytes=summary["bytes"],
        estimated_seconds=round(summary["rows"] / rate, 1) if verdict != REFUSED else None,
        reasons=reasons,
    )


def assess_database(
    client: CatalogClient,
    client_factory: Callable[[], CatalogClient],
    settings: Settings,
    database: str,
    *,
    tables_glob: str = "*",
    measured_rate: float | None = None,
    workers: int = 4,
) -> Assessment:
    """Assess the tables of ``database`` matching ``tables_glob`` (metastore and footers only).

    ``client_factory`` gives each worker its own metastore connection (Thrift clients are not
    thread-safe).
    """
    database = database.lower()
    if database not in client.get_all_databases():
        raise NotFound(
            f"database {database} does not exist in the metastore.",
            hint="List databases with your Hive tooling; names are case-insensitive.",
        )
    names = sorted(
        f"{database}.{t}"
        for t in client.get_tables(database)
        if fnmatch.fnmatchcase(t.lower(), tables_glob.lower())
    )
    rate = measured_rate or DEFAULT_ROWS_PER_SECOND
    with ThreadPoolExecutor(max_workers=max(1, workers)) as pool:
        results = list(pool.map(lambda n: _assess_one(client_factory, n, settings, rate), names))
    return Assessment(database, results, rate, measured_rate is not None)


def bulk_toml(assessment: Assessment, target_format: str) -> str:
    """A bulk file for every table that can be migrated (refused and failed ones commented)."""
    lines = [
        f"# Written by `lakeshift assess {assessment.database}`: tables that can be migrated.",
        "# Review, then run `lakeshift bulk THIS_FILE --dry-run`.",
        "",
        "[bulk]",
        "parallel = 2",
        f'format = "{target_format}"',
        'validate = "checksum"',
        'switch = "validated"',
        "",
    ]
    for t in assessment.tables:
        if t.verdict in (REFUSED, FAILED):
            lines.append(f"# {t.table}: {t.verdict}: {'; '.join(t.reasons)}")
            continue
        lines += ["[[tables]]", f'source = "{t.table}"']
        if t.reasons:
            lines.append(f"# {t.verdict}: {'; '.join(t.reasons)}")
        lines.append("")
    return "\n".join(lines) + "\n"

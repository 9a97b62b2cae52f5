"""The cost of ``validate --level independent`` against ``checksum`` on the same migrated table.

The table is migrated once (untimed); then ``checksum`` (the observed checksum and one target
scan) and ``independent`` (the same, plus the second reader over every source file in Spark
tasks) are timed back to back in the same Spark application, checksum first and again last so
that a warm-up effect shows. Reported as ratios, never asserted.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.measure import timed
from benchmarks.synthetic import SyntheticTable
from lakeshift.config import Settings
from lakeshift.migrate.backfill import MigrateOptions, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.validate.validator import validate_table


def run(
    spark: Any, ctx: Any, settings: Settings, table: SyntheticTable, scratch: Path
) -> dict[str, Any]:
    source, size, rows = table.qualified_name, table.bytes, table.rows
    target = f"{source}_independent"
    spark.sql(f"DROP TABLE IF EXISTS {target} PURGE")
    journal_path = scratch / "independent-journal.sqlite"
    journal_path.unlink(missing_ok=True)
    journal = Journal(journal_path)
    migrate(spark, ctx.metastore, ctx.catalog, settings, journal, source, MigrateOptions(target))
    reports: dict[str, Any] = {}

    def validate(level: str, label: str) -> None:
        reports[label] = validate_table(
            spark, ctx.metastore, ctx.catalog, settings, journal, source, target, level=level
        )

    first = timed("checksum", rows, size, lambda: validate("checksum", "checksum"))
    independent = timed("independent", rows, size, lambda: validate("independent", "independent"))
    again = timed("checksum_again", rows, size, lambda: validate("checksum", "checksum_again"))
    journal.close()
    checksum_seconds = min(first.seconds, again.seconds)
    report = reports["independent"]
    return {
        "scenario": "independent",
        "partitions": table.partitions,
        "rows": rows,
        "bytes": size,
        "checksum": first.to_json(),
        "checksum_again": again.to_json(),
        "independent": independent.to_json(),
        "independent_reader_seconds": report.independent_seconds,
        "independent_ok": report.ok,
        "ratio_independent_over_checksum": round(independent.seconds / checksum_seconds, 2),
    }

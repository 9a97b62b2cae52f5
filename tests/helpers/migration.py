"""Migrate a source into one format and validate it, in-process, as the integration tests do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from pyiceberg.catalog.hive import HiveCatalog

from lakeshift.config import Settings
from lakeshift.metastore.client import MetastoreClient
from lakeshift.migrate.backfill import MigrateOptions, MigrateResult, migrate
from lakeshift.migrate.journal import Journal
from lakeshift.validate.model import ValidationReport
from lakeshift.validate.validator import validate_table

#: ``fmt`` for a flow Iceberg proves in ``make test`` and Delta and Hudi in ``make extended``
EACH_FORMAT_EXTENDED = pytest.mark.parametrize(
    "fmt",
    [
        "iceberg",
        pytest.param("delta", marks=pytest.mark.extended),
        pytest.param("hudi", marks=pytest.mark.extended),
    ],
)


def migrate_and_validate(
    spark: Any,
    client: MetastoreClient,
    settings: Settings,
    journal_path: Path,
    source: str,
    target: str,
    fmt: str,
    level: str = "independent",
) -> tuple[MigrateResult, ValidationReport]:
    """``migrate`` ``source`` into a new ``fmt`` ``target``, then ``validate`` it at ``level``,
    with one journal at ``journal_path``."""
    catalog = HiveCatalog("t", uri=client.uri)
    journal = Journal(journal_path)
    try:
        result = migrate(
            spark, client, catalog, settings, journal, source, MigrateOptions(target, format=fmt)
        )
        report = validate_table(
            spark, client, catalog, settings, journal, source, target, level=level
        )
    finally:
        journal.close()
    return result, report


def both_levels(
    spark: Any, client: MetastoreClient, settings: Settings, journal_path: Path, source: str,
    target: str, fmt: str,
) -> tuple[MigrateResult, dict[str, ValidationReport]]:  # fmt: skip
    """Migrate ``source`` into ``fmt``, then validate it at the checksum and independent
    levels (one migration for both)."""
    result, checksum = migrate_and_validate(
        spark, client, settings, journal_path, source, target, fmt, level="checksum"
    )
    journal = Journal(journal_path)
    try:
        catalog = HiveCatalog("t", uri=client.uri)
        independent = validate_table(
            spark, client, catalog, settings, journal, source, target, level="independent"
        )
    finally:
        journal.close()
    return result, {"checksum": checksum, "independent": independent}

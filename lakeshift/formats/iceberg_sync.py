"""Bring an Iceberg target in line with the source's current mapping, keeping field IDs."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from lakeshift.formats.iceberg_schema import create_table, evolve_table, stored_mapping
from lakeshift.hive.semantics import HiveSemantics
from lakeshift.inspect.model import TableInventory
from lakeshift.schema_map.mapping import build_mapping, save_mapping
from lakeshift.schema_map.model import FieldMapping

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyiceberg.table import Table

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class SyncResult:
    mapping: FieldMapping
    table: Table
    created: bool
    evolved: bool


def sync_iceberg_target(
    catalog: Catalog,
    identifier: str,
    inventory: TableInventory,
    *,
    home: Path,
    semantics: HiveSemantics,
    properties: Mapping[str, str] | None = None,
) -> SyncResult:
    """Create the target from a fresh mapping, or evolve it from the mapping it stores.

    The mapping stored in the target's properties is the ground truth for IDs; the copy under
    ``home/mappings`` is for people and reports.
    """
    from pyiceberg.exceptions import NoSuchTableError

    try:
        table = catalog.load_table(identifier)
    except NoSuchTableError:
        table = None
    previous = stored_mapping(table) if table is not None else None
    mapping = build_mapping(
        inventory,
        previous,
        semantics,
    )
    created = evolved = False
    if table is None:
        table = create_table(catalog, identifier, mapping, properties)
        created = True
        log.info("created Iceberg table %s with %d fields", identifier, mapping.last_id)
    elif previous != mapping:
        table = evolve_table(table, mapping, identifier)
        evolved = True
        log.info("evolved Iceberg table %s to the current Hive schema", identifier)
    save_mapping(mapping, home)
    return SyncResult(mapping, table, created, evolved)

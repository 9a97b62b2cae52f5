"""The format registry: :func:`load_format`, :func:`format_of`, :func:`target_format`.

Callers hold a :class:`TargetFormat` and never branch on a format's name.
"""

from __future__ import annotations

from importlib import import_module

from lakeshift.errors import RefusedInput, UsageError
from lakeshift.formats.base import FormatServices, TargetFormat
from lakeshift.metastore.catalog import CatalogClient

#: Format name -> "module:class" (imported on first use: each pulls in its own libraries).
FORMATS = {
    "iceberg": "lakeshift.formats.iceberg:IcebergFormat",
    "delta": "lakeshift.formats.delta.format:DeltaFormat",
    "hudi": "lakeshift.formats.hudi.format:HudiFormat",
}
DEFAULT_FORMAT = "iceberg"


def load_format(name: str, services: FormatServices) -> TargetFormat:
    """The implementation of format ``name``."""
    if name not in FORMATS:
        raise UsageError(
            f"unknown target format {name!r}.", hint=f"Choose one of: {', '.join(FORMATS)}."
        )
    module, _, cls = FORMATS[name].partition(":")
    implementation: type[TargetFormat] = getattr(import_module(module), cls)
    return implementation(services)


def format_of(client: CatalogClient, target: str) -> str | None:
    """Which format the metastore entry ``target`` holds: a format name, ``hive`` for any
    other table or view, or None when no such table exists."""
    db, _, name = target.partition(".")
    if not client.table_exists(db, name):
        return None
    table = client.get_table(db, name)
    params = {k.lower(): v for k, v in (table.parameters or {}).items()}
    if params.get("table_type", "").upper() == "ICEBERG":
        return "iceberg"
    provider = params.get("spark.sql.sources.provider", "").lower()
    if provider in FORMATS:
        return provider
    return "hive"


def target_format(services: FormatServices, target: str, requested: str | None) -> TargetFormat:
    """The format of an existing ``target`` (checked against ``requested``), or ``requested``
    (default Iceberg) for a target that does not exist yet."""
    found = format_of(services.client, target)
    if found == "hive":
        raise RefusedInput(
            f"target {target} is a Hive table or view, not a lake table lakeshift can write.",
            hint="Pick another --target (lakeshift never writes into a Hive table).",
        )
    if found is not None and requested is not None and found != requested:
        raise RefusedInput(
            f"target {target} is a {found} table; it cannot be migrated to {requested}.",
            hint=f"Use --format {found}, or pick another --target for the {requested} copy.",
        )
    return load_format(found or requested or DEFAULT_FORMAT, services)


def require_target(services: FormatServices, target: str, source: str) -> TargetFormat:
    """The format of the existing ``target``, or :class:`NotFound` saying to migrate first."""
    from lakeshift.errors import NotFound

    if format_of(services.client, target) is None:
        raise NotFound(
            f"target {target} does not exist.",
            hint=f"Run `lakeshift migrate {source} --target {target}` first.",
        )
    return target_format(services, target, None)

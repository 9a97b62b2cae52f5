"""The bulk migration file: which tables to migrate, and how, in one TOML document.

::

    [bulk]                      # defaults for every table; each key can be set per table
    parallel = 2                # tables migrated at once (one Spark application)
    validate = "checksum"

    [[tables]]
    source = "sample.click_log"
    target = "sample.click_log_iceberg"     # default DB.TABLE_<format>
    partitions = "yyyymmdd=202204*"         # default: all
    switch = "cutover"
    adopt_files = "auto"                    # Iceberg: hold proven source files, copy the rest

    [[tables]]
    source = "sales.orders"                 # still written during the migration:
    follow = true                           # follow passes until the run is stopped
    follow_interval = 300                   # (default: the follow_interval setting)

    [catalog]                   # optional: where these tables are catalogued, for this run
    kind = "glue"               # "hive" or "glue" (default: the configuration's catalog)
    region = "eu-west-1"
    catalog_id = "123456789012"

    [maintain]                  # optional: maintenance after each table's steps
    compact = true              # (skip a table with maintain = false in its section)
    expire_days = 7
    orphan_hours = 72

The whole file is checked before any table is touched, so a typo fails the run at once
(exit 2) instead of after an hour of backfilling.
"""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import tomllib

from lakeshift.config import (
    CALENDARS,
    FORMAT_CHOICES,
    HUDI_TABLE_VERSIONS,
    MAPPING_MODES,
    ORC_DATE_PARSERS,
    Settings,
    check_time_zone,
)
from lakeshift.errors import BulkFileError, ConfigError, LakeshiftError
from lakeshift.hive.semantics import normalise_version
from lakeshift.inspect.inspector import split_table_name
from lakeshift.inspect.partition_filter import PartitionFilter
from lakeshift.maintain import MaintainOptions
from lakeshift.migrate.adoption import ADOPT_FILES, ADOPT_NEVER
from lakeshift.migrate.backfill import DEFAULT_BATCH_ROWS
from lakeshift.migrate.keys import KEY_MODES
from lakeshift.validate.model import LEVELS

FORMATS = FORMAT_CHOICES
SWITCH_NONE, SWITCH_VALIDATED, SWITCH_CUTOVER = "none", "validated", "cutover"
SWITCH_POLICIES = (SWITCH_NONE, SWITCH_VALIDATED, SWITCH_CUTOVER)
DEFAULT_PARALLEL = 2
#: Per-table keys that choose how the user's Hive reads the table (Settings of the same names).
HIVE_KEYS = (
    "hive_version",
    "hive_site",
    "schema_evolution",
    "name_case_sensitive",
    "mapping_mode",
    "calendar",
    "orc_date_parser",
    "hive_time_zone",
)


@dataclass(frozen=True)
class TableSpec:
    """One table of a bulk run.

    Attributes:
        source: the Hive table ``DB.TABLE``.
        target: the lake table (default ``DB.TABLE_<format>``).
        format: target format, ``iceberg``, ``delta`` or ``hudi``.
        hive_version: whose Hive reading to reproduce (``1.2``, ``2.3``, ``3.1``, ``4``);
            ``None`` keeps the global setting. So do the switches below when ``None``.
        hive_site: that cluster's ``hive-site.xml`` (its schema evolution switches).
        schema_evolution: ``hive.exec.schema.evolution``.
        name_case_sensitive: ``orc.schema.evolution.case.sensitive``.
        mapping_mode: ``auto``/``position``/``name``; ``None`` keeps the global setting.
        calendar: ``proleptic``/``hive3``/``hive2`` (dates before 1582); ``None`` keeps the
            global setting.
        orc_date_parser: ``java.sql``/``exact`` (the ORC release's conversions).
        hive_time_zone: the zone that cluster's Hive runs in (ORC files without a writer zone,
            and conversions between timestamps and numbers, text or dates).
        hudi_table_version: 6 or 8 for a new Hudi target; ``None`` keeps the global setting.
        partitions: partition filter (docs/reference/commands.md, "Partition filters");
            ``None`` = all.
        batch_rows: rows per batch (one Spark job, one commit).
        key: ``uuid`` or ``deterministic`` record keys.
        validate: ``count``, ``checksum``, ``deep`` or ``independent``.
        switch: ``none`` (migrate and validate only), ``validated`` (switch every validated
            partition) or ``cutover`` (then cut over once every partition is switched).
        quarantine: skip source files that cannot be read (``--quarantine-unreadable``);
            their partitions are reported partial and never switched.
        adopt_files: ``never``, ``auto`` or ``require`` (``migrate --adopt-files``: Iceberg
            holds the source's own ORC files where proven to read the same).
        maintain: run the file's ``[maintain]`` section after this table's steps.
        follow: keep the table in step with ``lakeshift follow``'s passes (copy, validate,
            switch) until the run is stopped (``bulk --once``: one pass); never cut over, as
            writers must move first (``lakeshift cutover`` then runs a last catch-up).
        follow_interval: seconds between passes (default: the ``follow_interval`` setting).
        follow_quiet_seconds: the quiet period (default: ``follow_quiet_seconds``).
    """

    source: str
    target: str = ""
    format: str = "iceberg"
    hive_version: str | None = None
    hive_site: str | None = None
    schema_evolution: bool | None = None
    name_case_sensitive: bool | None = None
    mapping_mode: str | None = None
    calendar: str | None = None
    orc_date_parser: str | None = None
    hive_time_zone: str | None = None
    hudi_table_version: int | None = None
    partitions: str | None = None
    batch_rows: int = DEFAULT_BATCH_ROWS
    key: str = "uuid"
    validate: str = "checksum"
    switch: str = SWITCH_VALIDATED
    quarantine: bool = False
    adopt_files: str = ADOPT_NEVER
    maintain: bool = True
    follow: bool = False
    follow_interval: float | None = None
    follow_quiet_seconds: float | None = None

    @property
    def partition_filter(self) -> PartitionFilter:
        return PartitionFilter.parse(self.partitions)


@dataclass(frozen=True)
class BulkSpec:
    path: Path
    tables: tuple[TableSpec, ...]
    parallel: int = DEFAULT_PARALLEL
    maintain: MaintainOptions | None = None
    #: Settings of the run's catalog from ``[catalog]`` (``Settings`` field -> value).
    catalog: dict[str, str] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return self.path.stem


_TABLE_KEYS = {f.name: f.type for f in fields(TableSpec)}
#: Keys whose value is checked by a function raising ConfigError (named in the bulk error).
_CHECKED = {"hive_time_zone": check_time_zone}
_DEFAULT_KEYS = set(_TABLE_KEYS) - {"source", "target"}
_CHOICES: dict[str, tuple[str, ...]] = {
    "format": FORMATS,
    "mapping_mode": MAPPING_MODES,
    "calendar": CALENDARS,
    "orc_date_parser": ORC_DATE_PARSERS,
    "key": KEY_MODES,
    "validate": LEVELS,
    "switch": SWITCH_POLICIES,
    "adopt_files": ADOPT_FILES,
}


def load_bulk_spec(path: Path) -> BulkSpec:
    """Read and check ``path``; raises :class:`BulkFileError` naming the file, table and key."""
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except FileNotFoundError as e:
        raise BulkFileError(f"bulk file {path} does not exist.") from e
    except OSError as e:
        raise BulkFileError(f"cannot read bulk file {path}: {e.strerror}") from e
    except tomllib.TOMLDecodeError as e:
        raise BulkFileError(f"bulk file {path} is not valid TOML: {e}") from e
    return parse_bulk_spec(data, path)


def parse_bulk_spec(data: dict[str, Any], path: Path) -> BulkSpec:
    _check_unknown_keys(data, path)
    defaults = dict(data.get("bulk") or {})
    parallel = defaults.pop("parallel", DEFAULT_PARALLEL)
    if not isinstance(parallel, int) or isinstance(parallel, bool) or parallel < 1:
        raise BulkFileError(f"bulk file {path}: [bulk] parallel must be an integer >= 1")
    entries = data.get("tables")
    if not isinstance(entries, list) or not entries:
        raise BulkFileError(
            f"bulk file {path} lists no tables.",
            hint='Add one [[tables]] section per table with source = "DB.TABLE".',
        )
    tables = []
    for index, entry in enumerate(entries, start=1):
        where = f"bulk file {path}, table #{index}"
        if not isinstance(entry, dict) or "source" not in entry:
            raise BulkFileError(f'{where} has no source = "DB.TABLE".')
        tables.append(_table(where, {**defaults, **entry}))
    for attribute in ("source", "target"):
        seen: set[str] = set()
        for table in tables:
            value = getattr(table, attribute)
            if value in seen:
                raise BulkFileError(f"bulk file {path}: {attribute} {value} is listed twice.")
            seen.add(value)
    maintain = _maintain(data.get("maintain"), path)
    return BulkSpec(path, tuple(tables), parallel, maintain, _catalog(data.get("catalog"), path))


#: ``[catalog]`` keys and the settings they set.
_CATALOG_KEYS = {
    "kind": "catalog",
    "region": "glue_region",
    "catalog_id": "glue_catalog_id",
    "endpoint": "glue_endpoint",
}


def _catalog(section: Any, path: Path) -> dict[str, str]:
    """The ``[catalog]`` section as settings, checked as the configuration checks them."""
    if section is None:
        return {}
    where = f"bulk file {path}, [catalog]"
    if not isinstance(section, dict):
        raise BulkFileError(f"{where} must be a table.")
    unknown = sorted(set(section) - set(_CATALOG_KEYS))
    if unknown:
        raise BulkFileError(
            f"{where} has unknown keys: {', '.join(unknown)}.",
            hint=f"[catalog] takes {', '.join(sorted(_CATALOG_KEYS))}.",
        )
    chosen = {_CATALOG_KEYS[k]: str(v) for k, v in section.items()}
    try:
        Settings(**chosen)  # type: ignore[arg-type]
    except ConfigError as e:
        raise BulkFileError(f"{where}: {e.message}", hint=e.hint) from e
    return chosen


#: ``[maintain]`` keys and their TOML types (``MaintainOptions`` field names).
_MAINTAIN_KEYS: dict[str, tuple[type, ...]] = {
    "compact": (bool,),
    "target_file_size": (int,),
    "expire_days": (int, float),
    "orphan_hours": (int, float),
}


def _maintain(section: Any, path: Path) -> MaintainOptions | None:
    """The ``[maintain]`` section as options, checked like ``lakeshift maintain``'s flags."""
    if section is None:
        return None
    where = f"bulk file {path}, [maintain]"
    if not isinstance(section, dict):
        raise BulkFileError(f"{where} must be a table of keys.")
    unknown = set(section) - set(_MAINTAIN_KEYS)
    if unknown:
        raise BulkFileError(
            f"{where} has unknown keys: {', '.join(sorted(unknown))}.",
            hint=f"It takes {', '.join(_MAINTAIN_KEYS)}.",
        )
    for key, value in section.items():
        types = _MAINTAIN_KEYS[key]
        if not isinstance(value, types) or (isinstance(value, bool) and bool not in types):
            kind = " or ".join(t.__name__ for t in types)
            raise BulkFileError(f"{where}: {key} must be a {kind}, got {value!r}")
    options = MaintainOptions(**section)
    try:
        options.check(names={key: key for key in _MAINTAIN_KEYS})
    except LakeshiftError as e:
        raise BulkFileError(f"{where}: {e.message}") from e
    return options


def _check_unknown_keys(data: dict[str, Any], path: Path) -> None:
    """Refuse the file naming every unknown key in it, not just the first one found."""
    found = [("the top level", set(data) - {"bulk", "tables", "maintain", "catalog"})]
    defaults = data.get("bulk")
    if isinstance(defaults, dict):
        found.append(("[bulk]", set(defaults) - _DEFAULT_KEYS - {"parallel"}))
    entries = data.get("tables")
    for index, entry in enumerate(entries if isinstance(entries, list) else [], start=1):
        if isinstance(entry, dict):
            found.append((f"table #{index}", set(entry) - set(_TABLE_KEYS)))
    places = [
        f"{where} has unknown keys: {', '.join(sorted(keys))}" for where, keys in found if keys
    ]
    if places:
        raise BulkFileError(
            f"bulk file {path}: {'; '.join(places)}.",
            hint="[bulk] takes parallel and defaults for every table; each [[tables]] section "
            f"takes {', '.join(sorted(_TABLE_KEYS))}.",
        )


def _table(where: str, values: dict[str, Any]) -> TableSpec:
    version = values.get("hive_version")
    if isinstance(version, int | float) and not isinstance(version, bool):
        values = {**values, "hive_version": str(version)}  # hive_version = 3.1, unquoted
    for key, value in values.items():
        if key in ("follow_interval", "follow_quiet_seconds"):
            if not isinstance(value, int | float) or isinstance(value, bool) or value <= 0:
                raise BulkFileError(f"{where}: {key} must be a number of seconds > 0")
            continue
        expected = {
            "batch_rows": int,
            "hudi_table_version": int,
            "quarantine": bool,
            "maintain": bool,
            "schema_evolution": bool,
            "name_case_sensitive": bool,
            "follow": bool,
        }.get(key, str)
        if not isinstance(value, expected) or (isinstance(value, bool) and expected is not bool):
            raise BulkFileError(f"{where}: {key} must be a {expected.__name__}, got {value!r}")
    for key, choices in _CHOICES.items():
        if key in values and values[key] not in choices:
            raise BulkFileError(
                f"{where}: {key} must be one of {', '.join(choices)}, got {values[key]!r}"
            )
    if "hive_version" in values:
        try:
            values = {**values, "hive_version": normalise_version(values["hive_version"])}
        except ConfigError as e:
            raise BulkFileError(f"{where}: {e.message}", hint=e.hint) from e
    for key, check in _CHECKED.items():
        if values.get(key) is not None:
            try:
                check(values[key])
            except ConfigError as e:
                raise BulkFileError(f"{where}: {e.message}", hint=e.hint) from e
    if values.get("hudi_table_version", HUDI_TABLE_VERSIONS[0]) not in HUDI_TABLE_VERSIONS:
        raise BulkFileError(
            f"{where}: hudi_table_version must be one of "
            f"{', '.join(map(str, HUDI_TABLE_VERSIONS))}, got {values['hudi_table_version']!r}"
        )
    if values.get("batch_rows", 1) < 1:
        raise BulkFileError(f"{where}: batch_rows must be >= 1")
    try:
        db, name = split_table_name(values["source"])
        if values.get("target"):
            split_table_name(values["target"])
        PartitionFilter.parse(values.get("partitions"))
    except LakeshiftError as e:
        raise BulkFileError(f"{where}: {e.message}") from e
    spec = TableSpec(**values)
    return replace(
        spec,
        source=f"{db}.{name}",
        target=(spec.target or f"{db}.{name}_{spec.format}").lower(),
    )

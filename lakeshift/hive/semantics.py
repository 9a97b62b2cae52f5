"""Which Hive's reading of a table lakeshift reproduces: the version and the switches it implies.

Hive versions read the same files differently (``docs/DESIGN-NOTES.md``, "Which Hive"):

- **Model A** (Hive 1.2 for every partition; every version for text, Parquet and Avro
  partitions): the partition's own declared columns read the file, then Hive's ObjectInspector
  converters turn the row into the table's columns **by position**. Hive 1.2 reads an ORC file's
  columns by position too.
- **Model B** (Hive 2.1+ for ORC partitions, ``hive.exec.schema.evolution=true``, the default):
  the partition's declared columns are ignored; ORC's own schema evolution reads the file straight
  into the **table's** columns, matching them by name (case-sensitively:
  ``orc.schema.evolution.case.sensitive``) or by position (``_colN`` files, or
  ``orc.force.positional.evolution``, on by default in Hive 4), and converting types by ORC's rules.

Partition key values and string-to-boolean conversions follow each version's converters (Hive 3.0
changed booleans, HIVE-15939). The switches come from the version, then from the user's
``hive-site.xml``, then from explicit settings, each overriding the one before.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ElementTree
from dataclasses import dataclass
from pathlib import Path

from lakeshift.errors import ConfigError
from lakeshift.hive.java_zones import JAVA_ZONE_IDS

#: The Hive versions whose reading lakeshift reproduces (normalised labels).
HIVE_VERSIONS = ("1.2", "2.3", "3.1", "4")
DEFAULT_HIVE_VERSION = "3.1"
#: hive-site.xml properties lakeshift takes switches from.
SITE_SCHEMA_EVOLUTION = "hive.exec.schema.evolution"
SITE_FORCE_POSITIONAL = "orc.force.positional.evolution"
SITE_CASE_SENSITIVE = "orc.schema.evolution.case.sensitive"

#: Zone names that are UTC at every instant (and in both Java's and Python's databases).
UTC_ZONES = frozenset({"UTC", "Etc/UTC", "UCT", "Etc/UCT", "Zulu", "Etc/Zulu", "GMT", "Etc/GMT",
                       "Universal", "Etc/Universal", "Etc/GMT0", "Etc/GMT+0", "Etc/GMT-0",
                       "Etc/Greenwich", "Greenwich", "GMT0"})  # fmt: skip
_ALIASES = re.compile(r"(\d+)(?:\.(\d+))?(?:\.\d+)*(?:[.-].*)?")


def normalise_version(text: str) -> str:
    """``"2.3.9"``, ``"2.1"``, ``"3"``, ``"4.0.1"``... as one of :data:`HIVE_VERSIONS`.

    Hive 2.1 to 2.3 read alike, as do 3.0 and 3.1; 2.0 is refused (its schema evolution default
    is unclear: say ``2.3`` with ``schema_evolution`` set as the cluster has it).
    """
    match = _ALIASES.fullmatch(str(text).strip().lower().removeprefix("hive"))
    major, minor = (int(match.group(1)), int(match.group(2) or -1)) if match else (0, 0)
    if major == 1 and minor in (-1, 1, 2):
        return "1.2"
    if major == 2 and minor in (-1, 1, 2, 3):
        return "2.3"
    if major == 3 and minor in (-1, 0, 1):
        return "3.1"
    if major == 4:
        return "4"
    raise ConfigError(
        f"hive_version {text!r} is not one lakeshift knows.",
        hint=f"Use one of {', '.join(HIVE_VERSIONS)} (2.1-2.3 read alike, as do 3.0 and 3.1); "
        "for Hive 2.0 say 2.3 and set schema_evolution as your cluster has it.",
    )


@dataclass(frozen=True)
class HiveSemantics:
    """How the user's Hive reads a table (one table's choice, recorded in its mapping).

    Attributes:
        version: one of :data:`HIVE_VERSIONS`.
        schema_evolution: ``hive.exec.schema.evolution``: ORC partitions are read into the
            table's columns (model B). Always off for Hive 1.2, which has no such setting.
        orc_positional: ``orc.force.positional.evolution``: model B matches ORC columns by
            position (top level; nested struct fields stay by name, as ORC does).
        case_sensitive: ``orc.schema.evolution.case.sensitive``: model B's name match.
        calendar: ``hive2`` (every day counted in the hybrid calendar), ``hive3`` (each ORC
            file's calendar) or ``proleptic`` (every ORC file's days as stored).
        orc_sql_dates: model B reads a string as a date or timestamp by java.sql's
            ``Date.valueOf``/``Timestamp.valueOf`` (ORC 1.3-1.5's ``parseDateFromString`` and
            ``parseTimestampFromString``: Hive 2.3 ships ORC 1.3.4, Hive 3.1 ORC 1.5.8) rather
            than by ORC 1.6+'s exact ``yyyy-MM-dd[ HH:mm:ss[.f]]`` forms (Hive 4); with it
            go ORC 1.3-1.5's other conversions (a timestamp as text by java.sql's
            ``toString``, a float as a double through its text, an integer as a timestamp
            in milliseconds, a float's text by ``Float.toString``, a text or integer as a
            float rounded once).
        time_zone: the time zone Hive's JVMs run in (``user.timezone``): ORC files of writers
            before Hive 1.0 name no writer zone, and every ORC reader counts their timestamps
            from its own JVM's zone (``TimestampTreeReader``); Hive 1.2/2.x show numbers read
            as timestamps (and count timestamps read as numbers) as instants there, and ORC
            1.5 under Hive 3.1 reads text and dates as timestamps and timestamps as text and
            dates there (``hive.types.zone_rule``); Hive 1.2/2.x parse timestamp partition
            keys there (``hive.key_values``); Parquet INT96 instants are shown there
            (``int96_reading``).
    """

    version: str = DEFAULT_HIVE_VERSION
    schema_evolution: bool = True
    orc_positional: bool = False
    case_sensitive: bool = True
    calendar: str = "proleptic"  # Apache Hive 3.1's (version_defaults)
    orc_sql_dates: bool = True
    time_zone: str = "UTC"

    @property
    def hive3_converters(self) -> bool:
        """Whether Hive's converters follow Hive 3.0+'s rules: strings read as booleans
        ('false', 'off', 'no', '0' and '' are false; HIVE-15939) rather than Hive 2's (every
        non-empty string is true), and as dates and timestamps by java.time in the proleptic
        calendar rather than by java.sql's parsers in the hybrid one."""
        return self.version in ("3.1", "4")

    @property
    def jvm_zone(self) -> str | None:
        """``time_zone`` where it is not UTC: the zone in which Hive 1.2/2.x's timestamps and
        ORC 1.3-1.5's conversions count instants (``hive.types.zone_rule``)."""
        return None if self.time_zone in UTC_ZONES else self.time_zone

    @property
    def hive1_decimals(self) -> bool:
        """Whether text is read as a decimal by Hive 1.2's ``HiveDecimal.create`` (Java's
        ``BigDecimal`` of the trimmed text) rather than Hive 2.2+'s (``hive.decimals``)."""
        return self.version == "1.2"

    @property
    def hive4_dates(self) -> bool:
        """Whether text is read as dates and timestamps by Hive 4's strict ``java.time``
        classes (``hive.datetimes.hive4_date``/``hive4_timestamp``) rather than Hive 3's."""
        return self.version == "4"

    @property
    def label(self) -> str:
        """One line for plans and reports."""
        switches = [
            f"schema evolution {'on' if self.schema_evolution else 'off'}",
            f"ORC columns by {'position' if self.orc_positional else 'name'}"
            + (
                ""
                if self.orc_positional
                else f" ({'' if self.case_sensitive else 'not '}case-sensitive)"
            ),
            f"calendar {self.calendar}",
            f"ORC strings as dates by {'java.sql' if self.orc_sql_dates else 'exact forms'}",
        ]
        if self.time_zone != "UTC":
            switches.append(f"time zone {self.time_zone}")
        return f"Hive {self.version} ({', '.join(switches)})"

    def reads_into_table(self, file_format: str) -> bool:
        """Model B: files of this format are read straight into the table's columns."""
        return self.schema_evolution and file_format == "orc"


def version_defaults(version: str) -> HiveSemantics:
    """The switches a Hive version has with its own defaults."""
    version = normalise_version(version)
    return HiveSemantics(
        version=version,
        schema_evolution=version != "1.2",
        orc_positional=version == "4",
        case_sensitive=True,
        # Apache Hive 3.1's ORC reader shows day numbers as stored (LocalDate.ofEpochDay)
        calendar={"1.2": "hive2", "2.3": "hive2", "3.1": "proleptic"}.get(version, "hive3"),
        orc_sql_dates=version != "4",
    )


def read_hive_site(path: Path) -> dict[str, bool]:
    """The switches a ``hive-site.xml`` sets (only those present; values true/false)."""
    try:
        root = ElementTree.parse(path).getroot()
    except OSError as e:
        raise ConfigError(
            f"cannot read hive_site {path}: {e.strerror}",
            hint="Point hive_site at your cluster's hive-site.xml, or leave it unset.",
        ) from e
    except ElementTree.ParseError as e:
        raise ConfigError(f"hive_site {path} is not valid XML: {e}") from e
    wanted = (SITE_SCHEMA_EVOLUTION, SITE_FORCE_POSITIONAL, SITE_CASE_SENSITIVE)
    found: dict[str, bool] = {}
    for prop in root.iter("property"):
        name = (prop.findtext("name") or "").strip()
        if name not in wanted:
            continue
        value = (prop.findtext("value") or "").strip().lower()
        if value not in ("true", "false"):
            raise ConfigError(
                f"hive_site {path}: {name} is {value!r}, expected true or false.",
            )
        found[name] = value == "true"
    return found


def resolve(
    version: str,
    *,
    hive_site: Path | None = None,
    schema_evolution: bool | None = None,
    mapping_mode: str = "auto",
    case_sensitive: bool | None = None,
    calendar: str | None = None,
    orc_sql_dates: bool | None = None,
    time_zone: str = "UTC",
) -> HiveSemantics:
    """The version's defaults, then ``hive_site``'s switches, then explicit settings.

    ``mapping_mode`` ``position``/``name`` sets ``orc_positional``; ``auto`` keeps the
    version's (or hive-site's) choice.
    """
    base = version_defaults(version)
    site = read_hive_site(hive_site) if hive_site else {}
    evolution = site.get(SITE_SCHEMA_EVOLUTION, base.schema_evolution)
    positional = site.get(SITE_FORCE_POSITIONAL, base.orc_positional)
    sensitive = site.get(SITE_CASE_SENSITIVE, base.case_sensitive)
    if base.version == "1.2":
        evolution = False  # no such setting: Hive 1.2 always reads with the partition's columns
    elif schema_evolution is not None:
        evolution = schema_evolution
    if mapping_mode == "position":
        positional = True
    elif mapping_mode == "name":
        positional = False
    return HiveSemantics(
        version=base.version,
        schema_evolution=evolution,
        orc_positional=positional,
        case_sensitive=sensitive if case_sensitive is None else case_sensitive,
        calendar=calendar or base.calendar,
        orc_sql_dates=base.orc_sql_dates if orc_sql_dates is None else orc_sql_dates,
        time_zone=time_zone,
    )


@dataclass(frozen=True)
class Int96Reading:
    """How Hive shows a Parquet file's INT96 timestamps (UTC instants): as the wall clock in
    ``zone``, by java.util's zones (``java_util``: the raw offset before 1900) or java.time's
    (local mean time before a zone's first change)."""

    zone: str
    java_util: bool


def int96_reading(
    jvm_zone: str | None,
    version: str,
    writer: str | None,
    writer_zone: str | None,
    legacy: bool | None = None,
) -> Int96Reading | None:
    """How Hive ``version`` whose JVMs run in ``jvm_zone`` (None: UTC) shows a Parquet file's
    INT96 timestamps, or ``None`` where it shows them as stored (``writer``: the footer's
    ``created_by``; ``writer_zone``, ``legacy``: its ``writer.time.zone`` and
    ``writer.zone.conversion.legacy``). ``parquet-mr`` (Hive's and Spark's writer) stores UTC
    instants, which Hive converts (``ParquetRecordReaderBase``, ``NanoTimeUtils``):

    - Hive 1.2/2.x: to the JVM's zone, through a GMT calendar into ``java.sql.Timestamp``
      (java.util); other writers' files as stored (``hive.parquet.timestamp.skip.conversion``
      is true and checks ``created_by``).
    - Hive 3.1: every writer's file (that setting is false until HIVE-21888, Hive 4) to the
      file's ``writer.time.zone`` (HIVE-21290: Hive 3.1 writers record it), else the JVM's,
      by java.time (``TimestampTZUtil``).
    - Hive 4: ``parquet-mr`` files only, to the same zone; by java.util where the file says
      ``writer.zone.conversion.legacy = true`` or, without that key, names no writer zone
      (``hive.parquet.timestamp.legacy.conversion.enabled``, true; HIVE-24074, HIVE-25104),
      else by java.time.
    """
    parquet_mr = (writer or "").startswith("parquet-mr")
    if not parquet_mr and version != "3.1":
        return None
    hive3 = version in ("3.1", "4")
    zone = writer_zone if hive3 and writer_zone in JAVA_ZONE_IDS else jvm_zone
    if zone is None or zone in UTC_ZONES:
        return None
    if not hive3:
        return Int96Reading(zone, java_util=True)
    if version == "3.1":
        return Int96Reading(zone, java_util=False)
    return Int96Reading(zone, java_util=legacy if legacy is not None else writer_zone is None)

"""Typed, frozen settings merged in one place: defaults < config file < environment < flags.

Every key is a named constant below and documented in the manual (docs/reference/configuration.md;
its generated settings page is read from ``Settings`` and its docstring).
The config file is TOML: top-level keys of the same names, plus a ``[spark_conf]`` table.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from functools import cached_property
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import tomllib

from lakeshift.errors import ConfigError
from lakeshift.hive.semantics import (
    DEFAULT_HIVE_VERSION,
    HiveSemantics,
    normalise_version,
    resolve,
)
from lakeshift.metastore.catalog import CATALOG_KINDS
from lakeshift.platform.ports import LOOPBACK
from lakeshift.storage.options import StorageOptions

ENV_PREFIX = "LAKESHIFT_"
CONFIG_FILE_NAME = "lakeshift.toml"

KEY_HOME = "home"
KEY_CONFIG = "config"
KEY_METASTORE_URI = "metastore_uri"
KEY_METASTORE_PORT = "metastore_port"
KEY_METASTORE_BIND_HOST = "metastore_bind_host"
KEY_METASTORE_TIMEOUT = "metastore_timeout"
KEY_SPARK_MASTER = "spark_master"
KEY_SPARK_DRIVER_MEMORY = "spark_driver_memory"
KEY_SHUFFLE_PARTITIONS = "shuffle_partitions"
KEY_SPARK_CONF = "spark_conf"
KEY_OUTPUT = "output"
KEY_HIVE_VERSION = "hive_version"
KEY_HIVE_SITE = "hive_site"
KEY_SCHEMA_EVOLUTION = "schema_evolution"
KEY_MAPPING_MODE = "mapping_mode"
KEY_CALENDAR = "calendar"
KEY_NAME_CASE_SENSITIVE = "name_case_sensitive"
KEY_ORC_DATE_PARSER = "orc_date_parser"
KEY_INSPECT_WORKERS = "inspect_workers"
KEY_INSPECT_ON = "inspect_on"
KEY_SMALL_FILE_BYTES = "small_file_bytes"
KEY_PARTITION_BATCH = "partition_batch"
KEY_PARTITION_CALLS = "partition_calls"
KEY_FORMAT = "format"
KEY_HUDI_TABLE_VERSION = "hudi_table_version"
KEY_HUDI_PARQUET_CODEC = "hudi_parquet_codec"
KEY_TARGET_FILE_BYTES = "target_file_bytes"
KEY_RETIRE_PROBATION_DAYS = "retire_probation_days"
KEY_TIMESTAMP_PRECISION = "timestamp_precision"
KEY_ARCHIVED_OBJECTS = "archived_objects"
KEY_WRITE_PATH = "write_path"
KEY_CATALOG = "catalog"
KEY_GLUE_REGION = "glue_region"
KEY_GLUE_CATALOG_ID = "glue_catalog_id"
KEY_GLUE_ENDPOINT = "glue_endpoint"
KEY_FOLLOW_INTERVAL = "follow_interval"
KEY_FOLLOW_QUIET_SECONDS = "follow_quiet_seconds"

OUTPUT_CHOICES = ("text", "json")
MAPPING_MODES = ("auto", "position", "name")
#: Whose reading of dates before 1582-10-15 to reproduce: Hive 4 and Spark (each ORC file's
#: own calendar), Hive 1.2/2.x (every day number counted in the hybrid calendar) or Apache Hive
#: 3.1 (every ORC file's day numbers counted in the proleptic one, as written).
CALENDARS = ("hive3", "hive2", "proleptic")
#: Whose reading each calendar setting copies, for plans and anomalies.
CALENDAR_RULES = {
    "hive3": "Hive 4 and Spark (each file's calendar)",
    "hive2": "Hive 2.x (every file's days counted as hybrid)",
    "proleptic": "Apache Hive 3.1 (every ORC file's days as stored, counted proleptic)",
}
#: How ORC's schema evolution reads strings as dates and timestamps: java.sql's parsers (ORC
#: 1.3-1.5, shipped with Hive 2.x and 3.1) or ORC 1.6+'s exact forms (Hive 4).
ORC_DATE_PARSERS = ("java.sql", "exact")
#: Target formats lakeshift writes (``lakeshift.formats.FORMATS`` holds their code).
FORMAT_CHOICES = ("iceberg", "delta", "hudi")
#: Hudi table versions lakeshift writes: 6 (Hudi 0.14/0.15 readers) and 8 (Hudi 1.0+ only).
HUDI_TABLE_VERSIONS = (6, 8)
#: What validation makes of source timestamps finer than the microseconds targets keep.
TIMESTAMP_PRECISIONS = ("refuse", "truncate")
#: What becomes of a partition holding objects in an archive storage class (S3 Glacier, Deep
#: Archive), which no reader can open until they are restored: refused (Hive and Spark fail
#: on it), or migrated without them, as Athena reads it (the skipped objects are reported).
ARCHIVED_OBJECTS = ("refuse", "skip")
#: How the backfill writes Iceberg data files: Spark's writer, or Spark tasks writing Parquet
#: through Arrow where reading the files is Hive's reading (``lakeshift.formats.arrow_path``).
WRITE_PATHS = ("spark", "arrow")
#: Where partitions are listed and footers read: the driver's threads, Spark's executors, or
#: the executors of a cluster from ``inspect.spread.SPREAD_MIN_PARTITIONS`` partitions.
INSPECT_ON = ("auto", "driver", "spark")
#: Codecs of Hudi base files (Hudi's ``hoodie.parquet.compression.codec``; GZIP is its default).
HUDI_PARQUET_CODECS = ("gzip", "snappy", "zstd")


@dataclass(frozen=True)
class Settings:
    """Everything a lakeshift run can be configured with.

    Attributes:
        home: state directory (journal, logs, embedded metastore, reports).
        metastore_uri: ``thrift://host:port`` of an existing metastore; ``None`` starts the
            embedded one under ``home``.
        metastore_port: port for the embedded metastore; 0 picks a free one.
        metastore_bind_host: the IPv4 address the embedded metastore listens on: 127.0.0.1
            (this machine only), 0.0.0.0 (every interface: anyone who reaches the port may
            drop or alter tables) or one interface's address.
        metastore_timeout: seconds to keep retrying an unreachable metastore.
        spark_master: Spark master URL (``local[*]``, ``yarn``, ``k8s://...``, ``spark://...``).
        spark_driver_memory: ``spark.driver.memory`` for sessions lakeshift creates.
        shuffle_partitions: ``spark.sql.shuffle.partitions``.
        spark_conf: extra Spark configuration, applied last.
        output: ``text`` (rich terminal) or ``json`` (machine-readable, no decoration).
        hive_version: whose reading of the tables to reproduce: ``1.2``, ``2.3`` (2.1-2.3),
            ``3.1`` (3.0-3.1) or ``4``; the switches below default to that version's.
        hive_site: the cluster's ``hive-site.xml``; its ``hive.exec.schema.evolution``,
            ``orc.force.positional.evolution`` and ``orc.schema.evolution.case.sensitive``
            override the version's defaults.
        schema_evolution: ``hive.exec.schema.evolution`` (ORC partitions read into the table's
            columns); ``None``: the version's (or hive-site's) value.
        mapping_mode: ``orc.force.positional.evolution``: ``position`` or ``name``; ``auto``
            keeps the version's (or hive-site's) choice. ``_colN`` files map by position always.
        name_case_sensitive: ``orc.schema.evolution.case.sensitive``; ``None``: the version's.
        orc_date_parser: the ORC release whose schema evolution converts ORC partitions'
            columns (strings as dates, timestamps as text, floats as doubles, integers as
            timestamps...): ``java.sql`` (ORC 1.3-1.5: Hive 2.x, 3.1) or ``exact`` (ORC
            1.6+: Hive 4); ``None``: the version's.
        hive_time_zone: the time zone Hive's JVMs run in, by its IANA name: the zone ORC
            files of writers before Hive 1.0 (no writer zone in them) are read in, and the
            one Hive 1.2/2.x (numbers as timestamps and back, text as timestamps, timestamp
            partition keys) and ORC 1.5 under Hive 3.1 (text and dates as timestamps and
            back) convert in, and Parquet INT96 instants are shown in; ``None`` (not set):
            UTC, with ``inspect`` warning of the columns a zone would change.
        calendar: whose reading of dates and timestamps before 1582-10-15 to reproduce:
            ``hive3`` (Hive 4, Spark, Hive 3.1 builds with HIVE-22589: each ORC file's
            calendar field, hybrid when absent), ``hive2`` (Hive 1.2/2.x: every file's day
            numbers counted in the hybrid calendar) or ``proleptic`` (Apache Hive 3.1: every
            ORC file's day numbers counted in the proleptic calendar, whatever wrote them);
            ``None``: the version's.
        inspect_workers: threads listing directories and reading ORC footers.
        inspect_on: where a command that has a Spark session lists partitions and reads
            footers: ``driver`` (its threads), ``spark`` (Spark tasks, on the executors) or
            ``auto`` (the default: Spark tasks when the master is a cluster, not
            ``local[...]``, and the table has at least 2,000 partitions to inspect; else the
            driver). The inventory is the same either way.
        small_file_bytes: files below this size count as small in anomaly reports.
        partition_batch: partitions fetched per metastore call (Glue caps it at 1,000).
        partition_calls: metastore calls fetching partitions at once while a table is
            inspected (the Hive Metastore: a connection each; Glue: concurrent requests), so
            the catalog prepares the next batches while the driver reads the files of the
            last.
        format: target format of new migrations (``iceberg``, ``delta`` or ``hudi``); an
            existing target keeps its own.
        hudi_table_version: table version of new Hudi targets: 6 (read by Hudi 0.14 and
            later) or 8 (Hudi 1.0 and later); an existing table keeps its own.
        hudi_parquet_codec: compression of the Hudi base files lakeshift writes: ``gzip``
            (Hudi's default), ``snappy`` or ``zstd``.
        hudi_gzip_level: zlib level of ``gzip`` base files, 1 (fastest) to 9. The level is
            not stored in the file: every Parquet reader reads any of them. Hudi's own
            writers use parquet-mr's ``zlib.compress.level``, 6 unless set.
        target_file_bytes: size the backfill aims its data files at (one file per partition
            below it), instead of one file per Spark task.
        retire_probation_days: days after the cutover before ``retire`` may drop the legacy
            Hive table.
        timestamp_precision: ``refuse`` (a partition whose ORC timestamps are finer than a
            microsecond, which targets cannot keep, validates as differing) or ``truncate``
            (accept the truncation; validation says so).
        archived_objects: a partition with data files in an archive storage class (S3
            Glacier Flexible Retrieval, Deep Archive) that are not restored: ``refuse`` (not
            migrated, naming them: Hive's and Spark's queries fail on it) or ``skip``
            (migrated without them, as Athena reads it; ``plan``, ``migrate``, ``validate``
            and the report count and name what was left out). Restored objects are read.
        write_path: ``arrow`` (the default; Iceberg and Delta targets: batches whose ORC
            files Hive reads as they are written by Spark tasks through Arrow, which observe
            their checksum as they write; other batches take the Spark path) or ``spark``
            (Spark's writer for every batch).
        catalog: where the tables are catalogued: ``hive`` (a Hive Metastore over Thrift,
            ``metastore_uri`` or the embedded one) or ``glue`` (the AWS Glue Data Catalog).
        glue_region: the Glue catalog's AWS region (default: the AWS environment's, then the
            object-store region).
        glue_catalog_id: the Glue catalog's id (the owning AWS account id; default: the
            caller's own account).
        glue_endpoint: a private Glue endpoint URL (a VPC endpoint, a test server).
        profile: write where ``migrate`` and ``validate`` spend their time (driver phases and
            the Spark jobs each ran) as a ``profile`` report, as ``--profile`` does.
        follow_interval: seconds between the starts of two ``follow`` passes.
        follow_quiet_seconds: ``follow`` copies and switches a partition only once nothing in
            it has changed for this long (writers still touching it keep it on Hive).
    """

    home: Path = Path(".lakeshift")
    metastore_uri: str | None = None
    metastore_port: int = 0
    metastore_bind_host: str = LOOPBACK
    metastore_timeout: float = 20.0
    spark_master: str = "local[*]"
    spark_driver_memory: str = "2g"
    shuffle_partitions: int = 8
    spark_conf: Mapping[str, str] = field(default_factory=dict)
    output: str = "text"
    hive_version: str = DEFAULT_HIVE_VERSION
    hive_site: str | None = None
    schema_evolution: bool | None = None
    mapping_mode: str = "auto"
    name_case_sensitive: bool | None = None
    orc_date_parser: str | None = None
    calendar: str | None = None
    hive_time_zone: str | None = None
    inspect_workers: int = 8
    inspect_on: str = "auto"
    small_file_bytes: int = 8 * 1024 * 1024
    partition_batch: int = 2000
    partition_calls: int = 2
    format: str = "iceberg"
    hudi_table_version: int = 6
    hudi_parquet_codec: str = "gzip"
    hudi_gzip_level: int = 1
    target_file_bytes: int = 128 * 1024 * 1024
    retire_probation_days: int = 7
    timestamp_precision: str = "refuse"
    archived_objects: str = "refuse"
    write_path: str = "arrow"
    catalog: str = "hive"
    glue_region: str | None = None
    glue_catalog_id: str | None = None
    glue_endpoint: str | None = None
    profile: bool = False
    follow_interval: float = 60.0
    follow_quiet_seconds: float = 300.0

    def __post_init__(self) -> None:
        if self.output not in OUTPUT_CHOICES:
            raise ConfigError(f"output must be one of {OUTPUT_CHOICES}, got {self.output!r}")
        if self.format not in FORMAT_CHOICES:
            raise ConfigError(f"format must be one of {FORMAT_CHOICES}, got {self.format!r}")
        if self.hudi_table_version not in HUDI_TABLE_VERSIONS:
            raise ConfigError(
                f"hudi_table_version must be one of {HUDI_TABLE_VERSIONS}, "
                f"got {self.hudi_table_version!r}"
            )
        if self.hudi_parquet_codec not in HUDI_PARQUET_CODECS:
            raise ConfigError(
                f"hudi_parquet_codec must be one of {HUDI_PARQUET_CODECS}, "
                f"got {self.hudi_parquet_codec!r}"
            )
        if not 1 <= self.hudi_gzip_level <= 9:
            raise ConfigError(f"hudi_gzip_level must be 1 to 9, got {self.hudi_gzip_level}")
        if self.partition_calls < 1:
            raise ConfigError(f"partition_calls must be 1 or more, got {self.partition_calls}")
        if self.retire_probation_days < 0:
            raise ConfigError(
                f"retire_probation_days must be 0 or more, got {self.retire_probation_days}"
            )
        if self.follow_interval <= 0 or self.follow_quiet_seconds <= 0:
            raise ConfigError(
                "follow_interval and follow_quiet_seconds must be more than 0 seconds, got "
                f"{self.follow_interval} and {self.follow_quiet_seconds}",
                hint="A partition is copied only after two listings agree: give it a quiet "
                "period of at least a second.",
            )
        if self.inspect_on not in INSPECT_ON:
            raise ConfigError(f"inspect_on must be one of {INSPECT_ON}, got {self.inspect_on!r}")
        if self.write_path not in WRITE_PATHS:
            raise ConfigError(f"write_path must be one of {WRITE_PATHS}, got {self.write_path!r}")
        if self.timestamp_precision not in TIMESTAMP_PRECISIONS:
            raise ConfigError(
                f"timestamp_precision must be one of {TIMESTAMP_PRECISIONS}, "
                f"got {self.timestamp_precision!r}"
            )
        if self.archived_objects not in ARCHIVED_OBJECTS:
            raise ConfigError(
                f"archived_objects must be one of {ARCHIVED_OBJECTS}, "
                f"got {self.archived_objects!r}",
                hint='"refuse" (restore the objects first) or "skip" (migrate without them).',
            )
        if self.mapping_mode not in MAPPING_MODES:
            raise ConfigError(
                f"mapping_mode must be one of {MAPPING_MODES}, got {self.mapping_mode!r}"
            )
        object.__setattr__(self, "hive_version", normalise_version(self.hive_version))
        if self.calendar is not None and self.calendar not in CALENDARS:
            raise ConfigError(f"calendar must be one of {CALENDARS}, got {self.calendar!r}")
        if self.orc_date_parser is not None and self.orc_date_parser not in ORC_DATE_PARSERS:
            raise ConfigError(
                f"orc_date_parser must be one of {ORC_DATE_PARSERS}, got {self.orc_date_parser!r}"
            )
        if self.hive_time_zone is not None:
            check_time_zone(self.hive_time_zone)
        if self.metastore_uri is not None:
            check_metastore_uri(self.metastore_uri)
        check_bind_host(self.metastore_bind_host)
        if self.catalog not in CATALOG_KINDS:
            raise ConfigError(f"catalog must be one of {CATALOG_KINDS}, got {self.catalog!r}")
        if self.glue_catalog_id is not None and not re.fullmatch(r"\d{12}", self.glue_catalog_id):
            raise ConfigError(
                f"glue_catalog_id {self.glue_catalog_id!r} is not an AWS account id.",
                hint="A Glue Data Catalog's id is the 12-digit id of the account that owns it.",
            )
        if self.hive_site:
            self.hive  # noqa: B018 - a hive-site.xml that cannot be read fails here, at load

    @cached_property
    def hive(self) -> HiveSemantics:
        """How the user's Hive reads tables: the version's switches, then hive-site's, then
        the explicit settings (``hive-site.xml`` read once per settings object)."""
        return resolve(
            self.hive_version,
            hive_site=Path(self.hive_site).expanduser() if self.hive_site else None,
            schema_evolution=self.schema_evolution,
            mapping_mode=self.mapping_mode,
            case_sensitive=self.name_case_sensitive,
            calendar=self.calendar,
            orc_sql_dates=None
            if self.orc_date_parser is None
            else self.orc_date_parser == "java.sql",
            time_zone=self.hive_time_zone or "UTC",
        )

    @property
    def storage(self) -> StorageOptions:
        """Object-store options from the ``spark.hadoop.fs.s3a.*`` keys of ``spark_conf``
        (the AWS environment and profile fill the rest)."""
        return StorageOptions.from_spark_conf(self.spark_conf)

    @property
    def glue_region_or_default(self) -> str | None:
        """The Glue region: ``glue_region``, else the AWS environment's, else the object
        store's (``fs.s3a.endpoint.region``)."""
        return (
            self.glue_region
            or os.environ.get("AWS_REGION")
            or os.environ.get("AWS_DEFAULT_REGION")
            or self.storage.s3_region
        )

    @property
    def user_jars(self) -> tuple[str, ...]:
        """The jars the user ships to Spark (``spark.jars``): object-store connectors among
        them, which the embedded metastore needs too."""
        jars = self.spark_conf.get("spark.jars", "")
        return tuple(j.strip() for j in jars.split(",") if j.strip())

    @property
    def log_dir(self) -> Path:
        return self.home / "logs"

    @property
    def log_file(self) -> Path:
        return self.log_dir / "lakeshift.log"


_FIELD_TYPES: dict[str, Any] = {f.name: f.type for f in fields(Settings)}


def check_time_zone(name: str) -> None:
    """Refuse a time zone Java and Python do not both know by that IANA name (Java's ids:
    ``java_zones.JAVA_ZONE_IDS``)."""
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    from lakeshift.hive.java_zones import JAVA_ZONE_IDS

    try:
        ZoneInfo(name)
        if name not in JAVA_ZONE_IDS:
            raise ValueError(name)  # Java's region ids (``ZoneId.getAvailableZoneIds``)
    except (ZoneInfoNotFoundError, ValueError) as e:
        raise ConfigError(
            f"hive_time_zone {name!r} is not a time zone name.",
            hint="Give the IANA name your Hive's JVMs run in (user.timezone), e.g. "
            "America/New_York or UTC.",
        ) from e
    import pyarrow as pa
    import pyarrow.compute as pc

    try:  # Arrow's zone kernels (the independent level) read the OS's zone files, not Python's
        pc.assume_timezone(pa.array([0], pa.timestamp("us")), name)
    except pa.ArrowInvalid as e:
        raise ConfigError(
            f"hive_time_zone {name!r}: this host's time-zone database, which the independent "
            f"validation level reads through Arrow, does not hold it ({e}).",
            hint="Install the operating system's time-zone files (Debian/Ubuntu: "
            "apt-get install tzdata), then run the command again.",
        ) from e


def check_metastore_uri(uri: str) -> None:
    """Raise :class:`ConfigError` unless ``uri`` is one ``thrift://HOST:PORT``.

    The port is required: Spark's and pyiceberg's Hive clients have no default port, so a URI
    without one would only fail later, deep inside a Spark job.
    """
    try:
        parts = urlsplit(uri)
        port = parts.port
        problem = None
    except ValueError as e:  # a port that is not a number, or out of 0..65535
        parts, port, problem = None, None, f"bad port ({e})"
    if parts is not None:
        if parts.scheme != "thrift":
            problem = "the scheme must be thrift://"
        elif not parts.hostname:
            problem = "the host is missing"
        elif port is None:
            problem = "the port is missing"
        elif not 1 <= port <= 65535:
            problem = "the port must be between 1 and 65535"
        elif parts.username or parts.path not in ("", "/") or parts.query or parts.fragment:
            problem = "only thrift://HOST:PORT is accepted (no user, path or query)"
    if problem:
        raise ConfigError(
            f"metastore URI {uri!r} is not valid: {problem}.",
            hint="Expected thrift://HOST:PORT, e.g. --metastore-uri thrift://hms.example:9083.",
        )


def check_bind_host(host: str) -> None:
    """Raise :class:`ConfigError` unless ``host`` is an IPv4 address (``metastore_bind_host``).

    A name is refused rather than resolved: ``localhost`` may resolve to an IPv6 address or to
    more than one, and what the metastore listens on should be plain from the setting.
    """
    try:
        ipaddress.IPv4Address(host)
    except ValueError as e:
        raise ConfigError(
            f"metastore_bind_host {host!r} is not an IPv4 address.",
            hint="Give 127.0.0.1 (this machine only, the default), 0.0.0.0 (every interface) "
            "or the address of one of this machine's interfaces.",
        ) from e


def _coerce(key: str, value: Any) -> Any:
    """Turn a string (from env or flags) or TOML value into the field's type."""
    kind = _FIELD_TYPES[key]
    try:
        if key == KEY_HOME:
            return Path(value).expanduser()
        kind = kind.removesuffix(" | None")
        if value in (None, "") and _FIELD_TYPES[key].endswith("| None"):
            return None
        if kind == "int":
            return int(value)
        if kind == "float":
            return float(value)
        if kind == "bool":
            if isinstance(value, bool):
                return value
            text = str(value).strip().lower()
            if text in ("1", "true", "yes", "on"):
                return True
            if text in ("0", "false", "no", "off"):
                return False
            raise ValueError(value)
        if key == KEY_SPARK_CONF:
            if isinstance(value, Mapping):
                return {str(k): str(v) for k, v in value.items()}
            return parse_conf_pairs(str(value).split(","))
        return None if value in (None, "") else str(value)
    except (TypeError, ValueError) as e:
        raise ConfigError(f"configuration key {key!r} has a bad value {value!r}") from e


def parse_conf_pairs(pairs: list[str] | tuple[str, ...]) -> dict[str, str]:
    """Parse ``k=v`` strings (``--conf`` flags) into a dict."""
    result: dict[str, str] = {}
    for pair in pairs:
        if not pair.strip():
            continue
        key, sep, value = pair.partition("=")
        if not sep or not key.strip():
            raise ConfigError(f"--conf expects key=value, got {pair!r}")
        result[key.strip()] = value.strip()
    return result


def _read_config_file(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as handle:
            data = tomllib.load(handle)
    except OSError as e:
        raise ConfigError(f"cannot read config file {path}: {e.strerror}") from e
    except tomllib.TOMLDecodeError as e:
        raise ConfigError(f"config file {path} is not valid TOML: {e}") from e
    section = data.get("lakeshift", data)
    # Every unknown key at once (top level and [lakeshift]), so one edit fixes the file.
    ignored = {"tables", "bulk", "lakeshift"}
    unknown = sorted(set(data) - set(_FIELD_TYPES) - ignored)
    if section is not data:
        if not isinstance(section, dict):
            raise ConfigError(f"config file {path}: lakeshift must be a table ([lakeshift])")
        unknown += sorted(f"lakeshift.{k}" for k in set(section) - set(_FIELD_TYPES))
    if unknown:
        raise ConfigError(
            f"config file {path} has {len(unknown)} unknown key(s): {', '.join(unknown)}",
            hint=f"Known keys: {', '.join(sorted(_FIELD_TYPES))}.",
        )
    # Keys may sit at the top level or under [lakeshift] (which wins); neither is ignored.
    values = {k: v for k, v in data.items() if k in _FIELD_TYPES}
    values.update((k, v) for k, v in section.items() if k in _FIELD_TYPES)
    return values


def load_settings(
    flags: Mapping[str, Any] | None = None,
    env: Mapping[str, str] | None = None,
    config_file: Path | None = None,
) -> Settings:
    """Merge settings: defaults < config file < ``LAKESHIFT_*`` environment < flags.

    Args:
        flags: values given on the command line; ``None`` values are ignored.
        env: the environment (defaults to ``os.environ``).
        config_file: explicit TOML file; otherwise ``LAKESHIFT_CONFIG`` or ``HOME/lakeshift.toml``.
    """
    env = os.environ if env is None else env
    flags = {k: v for k, v in (flags or {}).items() if v is not None}
    env_values = {
        key: env[ENV_PREFIX + key.upper()]
        for key in _FIELD_TYPES
        if env.get(ENV_PREFIX + key.upper()) not in (None, "")
    }
    home = Path(flags.get(KEY_HOME) or env_values.get(KEY_HOME) or Settings.home)
    path = config_file or (
        Path(env[ENV_PREFIX + "CONFIG"]) if env.get(ENV_PREFIX + "CONFIG") else None
    )
    if path is None and (home / CONFIG_FILE_NAME).is_file():
        path = home / CONFIG_FILE_NAME
    file_values = _read_config_file(path) if path else {}

    merged: dict[str, Any] = {}
    for source in (file_values, env_values, flags):
        for key, value in source.items():
            if key not in _FIELD_TYPES:
                continue
            value = _coerce(key, value)
            if key == KEY_SPARK_CONF:
                value = {**merged.get(KEY_SPARK_CONF, {}), **value}
            merged[key] = value
    return replace(Settings(), **merged)

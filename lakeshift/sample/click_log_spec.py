"""What ``sample.click_log`` holds: schema history and partition layout (pure data).

The history mirrors how real tables drift (see sample_data/README.md):

* v1  (2022-04-01..09): 11 columns, ``price``; days 01-03 written by an old Hive writer whose
  ORC files name columns ``_col0.._col10`` (Hive maps them by position).
* ``ALTER TABLE ADD COLUMNS (country string)`` (no CASCADE)                 -> v2 (10..15)
* ``ALTER TABLE CHANGE price bid_price double`` (no CASCADE)                -> v3 (16..21)
* ``ALTER TABLE ADD COLUMNS (dwell_ms bigint)`` (no CASCADE)                -> v4 (22..28, NULL)
"""

from __future__ import annotations

from dataclasses import dataclass

DATABASE = "sample"
TABLE = "click_log"
PARTITION_KEY = "yyyymmdd"
NULL_PARTITION = "__HIVE_DEFAULT_PARTITION__"

_V1 = (
    ("event_id", "string"),
    ("user_id", "bigint"),
    ("ad_id", "int"),
    ("price", "double"),
    ("cost", "decimal(10,4)"),
    ("is_click", "boolean"),
    ("event_date", "date"),
    ("event_ts", "timestamp"),
    ("tags", "array<string>"),
    ("attrs", "map<string,string>"),
    ("device", "struct<os:string,model:string,app_version:string>"),
)
_V2 = (*_V1, ("country", "string"))
_V3 = tuple(("bid_price", t) if n == "price" else (n, t) for n, t in _V2)
_V4 = (*_V3, ("dwell_ms", "bigint"))
SCHEMA_VERSIONS: dict[int, tuple[tuple[str, str], ...]] = {1: _V1, 2: _V2, 3: _V3, 4: _V4}
TABLE_COLUMNS = _V4


@dataclass(frozen=True)
class FileSpec:
    """One ORC file: its vintage (schema version it was written with) and layout."""

    name: str
    rows: int
    version: int
    positional: bool = False  # old Hive writer: top-level columns named _col0.._colN
    subdir: str = ""
    hand_copied: bool = False  # put there without a metastore stats update


@dataclass(frozen=True)
class PartitionSpec:
    value: str | None  # None is the NULL partition
    version: int  # schema version of the partition's own storage descriptor
    files: tuple[FileSpec, ...]
    location: str = "table"  # "table" (under the table root) or "archive" (outside it)
    junk: bool = False  # _SUCCESS, .hive-staging dir, _tmp file, zero-length file
    registered: bool = True

    @property
    def dir_name(self) -> str:
        return f"{PARTITION_KEY}={self.value if self.value is not None else NULL_PARTITION}"


def _day(d: int) -> str:
    return f"202204{d:02d}"


def _rows(d: int, k: int = 0) -> int:
    return 1500 + (d * 7919 + k * 104729) % 2500


def partitions() -> list[PartitionSpec]:
    """The partitions of ``sample.click_log`` in load order."""
    specs: list[PartitionSpec] = []
    for d in range(1, 29):
        version = 1 if d <= 9 else 2 if d <= 15 else 3 if d <= 21 else 4
        files = [FileSpec("000000_0", _rows(d), version, positional=d <= 3)]
        if d % 4 == 0:
            files.append(FileSpec("000001_0", _rows(d, 1) // 3, version))
        if d == 5:
            # Appended after ADD COLUMNS by a newer writer: the file holds `country`, but the
            # partition's columns do not, so Hive shows NULL for it.
            files.append(FileSpec("000000_0_copy_1", 777, 2, hand_copied=True))
        if d == 24:
            files = [
                FileSpec("000000_0", _rows(d), 4, subdir="HIVE_UNION_SUBDIR_1"),
                FileSpec("000000_0", _rows(d, 2) // 2, 4, subdir="HIVE_UNION_SUBDIR_2"),
            ]
        if d == 28:
            files = []
        specs.append(
            PartitionSpec(
                value=_day(d),
                version=version,
                files=tuple(files),
                location="archive" if d == 27 else "table",
                junk=d in (12, 28),
            )
        )
    specs.append(PartitionSpec(value=None, version=4, files=(FileSpec("000000_0", 321, 4),)))
    specs.append(
        PartitionSpec(
            value=_day(29), version=4, files=(FileSpec("000000_0", 400, 4),), registered=False
        )
    )
    return specs

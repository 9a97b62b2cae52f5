"""``.hoodie/hoodie.properties`` and the table's directory skeleton, as Hudi writes them.

Hand-written: Java's ``Properties`` text format (escaping ``:``, ``=``, ``#``, ``!`` and
backslashes; ``\\uXXXX`` outside Latin-1) has no maintained Python writer, and Java Hudi
refuses a file whose ``hoodie.table.checksum`` does not match.
"""

from __future__ import annotations

import json
import os
import time
import zlib
from typing import Any

from lakeshift.config import HUDI_TABLE_VERSIONS
from lakeshift.schema_map.mapping import PARTITIONPATH_COLUMN, UUID_COLUMN
from lakeshift.storage import Store

PROPERTIES = "hoodie.properties"
PARTITION_METADATA = ".hoodie_partition_metadata"
#: Where a Hudi file lives: a Store, or a location string or local path to open one on.
Location = Store | str | os.PathLike[str]
HOODIE = ".hoodie"
#: Table versions lakeshift writes (the setting's choices): 6 (Hudi 0.14/0.15), the default,
#: and 8 (Hudi 1.0).
TABLE_VERSIONS = HUDI_TABLE_VERSIONS
TABLE_VERSION = TABLE_VERSIONS[0]
#: Empty directories Hudi creates under ``.hoodie``, per table version (v8: the timeline and
#: its history, no ``archived``).
_AUX = (".aux/.bootstrap/.partitions", ".aux/.bootstrap/.fileids", ".schema", ".temp")
SKELETON = {6: (*_AUX, "archived"), 8: (*_AUX, "timeline/history")}
CHECKSUM_KEY = "hoodie.table.checksum"
VERSION_KEY = "hoodie.table.version"
TIMELINE_PATH_KEY = "hoodie.timeline.path"
#: Hudi 1.0's record merge strategy id for event-time ordering (``HoodieRecordMerger``'s
#: ``EVENT_TIME_BASED_MERGE_STRATEGY_UUID``), written with the merge mode from version 8.
EVENT_TIME_MERGE_STRATEGY = "eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"


def table_checksum(database: str, table: str) -> int:
    """CRC32 of ``"<database>.<table>"`` (Hudi's ``HoodieTableConfig.generateChecksum``)."""
    return zlib.crc32(f"{database}.{table}".encode())


def table_properties(
    database: str, table: str, create_schema: dict[str, Any], version: int = TABLE_VERSION
) -> dict[str, str]:
    """What a Hudi ``bulk_insert`` into a new copy-on-write table writes (Hudi 0.14+ for
    version 6, 1.0 for version 8), for the recipe lakeshift follows: record key ``uuid``,
    partition path ``partitionpath`` (its values are the Hive partition names, so directories
    are not hive-style), SimpleKeyGenerator."""
    if version not in TABLE_VERSIONS:
        raise ValueError(f"Hudi table version {version} is not one of {TABLE_VERSIONS}")
    if version >= 8:
        # Hudi 1.0 names the key generator by type and states the merge rule it applies.
        layout = {
            "hoodie.timeline.layout.version": "2",
            "hoodie.table.initial.version": str(version),
            "hoodie.timeline.path": "timeline",
            "hoodie.timeline.history.path": "history",
            "hoodie.table.keygenerator.type": "SIMPLE",
            "hoodie.record.merge.mode": "EVENT_TIME_ORDERING",
            "hoodie.record.merge.strategy.id": EVENT_TIME_MERGE_STRATEGY,
            "hoodie.compaction.payload.class": (
                "org.apache.hudi.common.model.DefaultHoodieRecordPayload"
            ),
        }
    else:
        layout = {
            "hoodie.timeline.layout.version": "1",
            "hoodie.table.keygenerator.class": "org.apache.hudi.keygen.SimpleKeyGenerator",
        }
    return {
        "hoodie.table.name": table,
        "hoodie.database.name": database,
        "hoodie.table.type": "COPY_ON_WRITE",
        VERSION_KEY: str(version),
        **layout,
        "hoodie.table.recordkey.fields": UUID_COLUMN,
        "hoodie.table.partition.fields": PARTITIONPATH_COLUMN,
        "hoodie.table.precombine.field": UUID_COLUMN,
        "hoodie.archivelog.folder": "archived",
        "hoodie.datasource.write.hive_style_partitioning": "false",
        "hoodie.datasource.write.partitionpath.urlencode": "false",
        "hoodie.datasource.write.drop.partition.columns": "false",
        "hoodie.table.base.file.format": "PARQUET",
        "hoodie.populate.meta.fields": "true",
        "hoodie.table.timeline.timezone": "UTC",
        "hoodie.table.create.schema": json.dumps(create_schema, separators=(",", ":")),
        CHECKSUM_KEY: str(table_checksum(database, table)),
    }


def _escape(text: str, key: bool) -> str:
    out = []
    for i, ch in enumerate(text):
        if ch == "\\":
            out.append("\\\\")
        elif ch in ":=#!":
            out.append("\\" + ch)
        elif ch == " " and (key or i == 0):
            out.append("\\ ")
        elif ch == "\t":
            out.append("\\t")
        elif ch == "\n":
            out.append("\\n")
        elif ch == "\r":
            out.append("\\r")
        elif ord(ch) < 0x20 or ord(ch) > 0x7E:
            out.extend(f"\\u{unit:04x}" for unit in _utf16(ch))
        else:
            out.append(ch)
    return "".join(out)


def _utf16(ch: str) -> list[int]:
    raw = ch.encode("utf-16-be")
    return [int.from_bytes(raw[i : i + 2], "big") for i in range(0, len(raw), 2)]


def render_properties(props: dict[str, str]) -> str:
    stamp = time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime())
    saved = time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime())
    lines = [f"#Properties saved on {saved}", "#" + stamp]
    lines += [f"{_escape(k, True)}={_escape(v, False)}" for k, v in props.items()]
    return "\n".join(lines) + "\n"


def write_properties(hoodie_dir: Location, props: dict[str, str]) -> None:
    """Write ``hoodie.properties`` whole (a reader sees the old file or the new one)."""
    Store.of(hoodie_dir).write(PROPERTIES, render_properties(props).encode("latin-1"))


def read_properties(hoodie_dir: Location) -> dict[str, str]:
    """Parse ``hoodie.properties`` (Java ``Properties.load`` rules for what Hudi writes)."""
    props: dict[str, str] = {}
    text = Store.of(hoodie_dir).read_bytes(PROPERTIES).decode("latin-1")
    for raw in text.splitlines():
        line = raw.lstrip()
        if not line or line[0] in "#!":
            continue
        key, value = _split(line)
        props[_unescape(key)] = _unescape(value)
    return props


def _split(line: str) -> tuple[str, str]:
    i = 0
    while i < len(line):
        if line[i] == "\\":
            i += 2
            continue
        if line[i] in "=: \t":
            rest = line[i + 1 :].lstrip(" \t") if line[i] in " \t" else line[i + 1 :]
            if line[i] in " \t" and rest[:1] in ("=", ":"):
                rest = rest[1:]
            return line[:i], rest.lstrip(" \t")
        i += 1
    return line, ""


def _unescape(text: str) -> str:
    out = []
    i = 0
    while i < len(text):
        ch = text[i]
        if ch != "\\" or i + 1 == len(text):
            out.append(ch)
            i += 1
            continue
        nxt = text[i + 1]
        if nxt == "u":
            out.append(chr(int(text[i + 2 : i + 6], 16)))
            i += 6
            continue
        out.append({"t": "\t", "n": "\n", "r": "\r", "f": "\f"}.get(nxt, nxt))
        i += 2
    return "".join(out).encode("utf-16", "surrogatepass").decode("utf-16")


def layout_of(hoodie_dir: Location) -> tuple[int, str]:
    """A table's version and its timeline directory relative to ``.hoodie`` ("" before
    version 8), from ``hoodie.properties`` (version 6 while it does not exist yet)."""
    if not Store.of(hoodie_dir).is_file(PROPERTIES):
        return TABLE_VERSION, ""
    props = read_properties(hoodie_dir)
    version = int(props.get(VERSION_KEY, TABLE_VERSION))
    return version, props.get(TIMELINE_PATH_KEY, "timeline") if version >= 8 else ""


def init_table(base: Location, props: dict[str, str]) -> None:
    """Create ``.hoodie`` with its empty directories (where a store has directories) and
    ``hoodie.properties`` (last, so a table whose properties exist is complete)."""
    hoodie = Store.of(base).child(HOODIE)
    for relative in SKELETON[int(props[VERSION_KEY])]:
        hoodie.make_dirs(relative)
    write_properties(hoodie, props)


def write_partition_metadata(partition_dir: Location, instant: str, depth: int) -> None:
    """``.hoodie_partition_metadata`` (how Java Hudi finds partitions without a metadata
    table), written once per partition directory, whole."""
    partition = Store.of(partition_dir)
    if partition.is_file(PARTITION_METADATA):
        return
    stamp = time.strftime("%a %b %d %H:%M:%S UTC %Y", time.gmtime())
    partition.write(
        PARTITION_METADATA,
        f"#partition metadata\n#{stamp}\ncommitTime={instant}\npartitionDepth={depth}\n",
    )

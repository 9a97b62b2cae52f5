"""Build real Hive external tables from ORC (or other) files written with pyarrow.

Any physical column names, any partition layout, partition-level columns and formats.
"""

from __future__ import annotations

import itertools
import shutil
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import pyarrow as pa
import pyarrow.orc as orc
import pyarrow.parquet as pq

from lakeshift.metastore import ddl
from lakeshift.metastore.client import MetastoreClient
from lakeshift.metastore.partition_names import DEFAULT_PARTITION_NAME, partition_name

Columns = Sequence[tuple[str, str]]
_counter = itertools.count()


def write_orc(path: Path, table: pa.Table) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    orc.write_table(table, str(path))
    return path


@dataclass
class HiveTableBuilder:
    """Create ``db.name`` under ``root`` and add partitions to it, Hive style."""

    client: MetastoreClient
    root: Path
    db: str
    name: str
    columns: Columns
    partition_keys: Columns = (("dt", "string"),)
    table_format: str = "orc"
    table_parameters: dict[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        ddl.ensure_database(self.client, self.db)
        self.location = self.root / self.db / self.name
        self.location.mkdir(parents=True, exist_ok=True)
        if self.client.table_exists(self.db, self.name):
            self.client.drop_table(self.db, self.name)
        self.client.create_table(
            ddl.external_table(
                self.db,
                self.name,
                self.columns,
                self.partition_keys,
                ddl.location_uri(self.location),
                fmt=self.table_format,
                parameters=self.table_parameters,
            )
        )

    def partition_dir(self, values: Sequence[str | None]) -> Path:
        keys = [k for k, _ in self.partition_keys]
        return self.location / partition_name(keys, list(values))

    def add_partition(
        self,
        values: Sequence[str | None],
        files: dict[str, pa.Table | bytes] | None = None,
        *,
        columns: Columns | None = None,
        location: Path | None = None,
        fmt: str = "orc",
        parameters: dict[str, str] | None = None,
        create_dir: bool = True,
        serde_parameters: dict[str, str] | None = None,
    ) -> Path:
        """Write ``files`` (relative name -> Arrow table) and register the partition.

        ``create_dir=False`` leaves the registered partition without a directory; a file
        given as bytes is written as they are (text partitions).
        """
        directory = location or self.partition_dir(values)
        if create_dir:
            directory.mkdir(parents=True, exist_ok=True)
        for relative, table in (files or {}).items():
            target = directory / relative
            target.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(table, bytes):
                target.write_bytes(table)
            elif fmt == "parquet":
                pq.write_table(table, str(target))
            else:
                orc.write_table(table, str(target))
        raw_values = [DEFAULT_PARTITION_NAME if v is None else v for v in values]
        self.client.add_partitions(
            [
                ddl.partition(
                    self.db,
                    self.name,
                    raw_values,
                    columns or self.columns,
                    ddl.location_uri(directory),
                    fmt=fmt,
                    parameters=parameters,
                    serde_parameters=serde_parameters,
                )
            ]
        )
        if not create_dir and directory.exists():
            # The metastore creates a missing partition directory on add; undo that.
            shutil.rmtree(directory)
        return directory


def unique_name(prefix: str) -> str:
    return f"{prefix}_{next(_counter)}"


def mark_proleptic(path: Path, calendar: int = 2) -> Path:
    """Give an uncompressed ORC file's footer the calendar field (11) set to proleptic (2), as
    Hive 4 and ORC 1.6+ writers do (pyarrow's writer leaves it out), or to hybrid (1, ORC
    1.6+ Java writers' default): test data for calendar rules."""
    from lakeshift.inspect.orc_tail import _fields

    data = path.read_bytes()
    ps_length = data[-1]
    postscript = data[-1 - ps_length : -1]
    fields = _fields(postscript)
    assert fields.get(2, [0])[0] == 0, "only uncompressed files"
    footer_length = int(fields[1][0])  # type: ignore[arg-type]
    start = len(data) - 1 - ps_length - footer_length
    footer = data[start : start + footer_length] + b"\x58" + bytes([calendar])  # field 11
    assert postscript[0] == 0x08  # field 1 (footerLength) comes first
    _, rest = _varint_split(postscript[1:])
    new_postscript = b"\x08" + varint(len(footer)) + rest
    path.write_bytes(data[:start] + footer + new_postscript + bytes([len(new_postscript)]))
    return path


def varint(value: int) -> bytes:
    """``value`` as a protobuf varint."""
    out = bytearray()
    while True:
        byte, value = value & 0x7F, value >> 7
        out.append(byte | (0x80 if value else 0))
        if not value:
            return bytes(out)


def _varint_split(data: bytes) -> tuple[int, bytes]:
    value = shift = position = 0
    while True:
        byte = data[position]
        position += 1
        value |= (byte & 0x7F) << shift
        shift += 7
        if byte < 0x80:
            return value, data[position:]


def drop_writer_zone(path: Path, writer_version: int = 2) -> Path:
    """Make an uncompressed ORC file look written by Hive before 1.0 (HIVE-8746): its stripe
    footers' writerTimezone (field 3) becomes an unknown field of the same length (readers
    skip it), the PostScript's writerVersion (field 6) ``HIVE_4243`` (2) and the footer's
    writer (field 9) Java's (0: Java readers refuse that version from another writer)."""
    from lakeshift.inspect.orc_tail import _fields

    data = bytearray(path.read_bytes())
    footer_start, ps_start = _footer_span(data)
    postscript = bytes(data[ps_start:-1])
    footer = _fields(bytes(data[footer_start:ps_start]))
    for offset, number, _ in _keys(bytes(data[footer_start:ps_start])):
        if number == 9:  # writer: a one-byte varint
            data[footer_start + offset + 1] = 0
    for stripe in footer[3]:
        info = {k: int(v[0]) for k, v in _fields(stripe).items()}  # type: ignore[arg-type]
        start = info.get(1, 0) + info.get(2, 0) + info.get(3, 0)
        for offset, number, wire in _keys(bytes(data[start : start + info[4]])):
            if number == 3 and wire == 2:
                data[start + offset] = 15 << 3 | 2
    for offset, number, _ in _keys(postscript):
        if number == 6:
            assert data[ps_start + offset + 1] < 0x80 and writer_version < 0x80
            data[ps_start + offset + 1] = writer_version
    path.write_bytes(bytes(data))
    return path


def set_writer(path: Path, writer: int) -> Path:
    """Make an uncompressed ORC file's footer name another writer id (field 9, one byte)."""
    data = bytearray(path.read_bytes())
    footer_start, ps_start = _footer_span(data)
    found = [o for o, n, _ in _keys(bytes(data[footer_start:ps_start])) if n == 9]
    assert found and writer < 0x80, "a one-byte writer field"
    data[footer_start + found[0] + 1] = writer
    path.write_bytes(bytes(data))
    return path


def _footer_span(data: bytearray) -> tuple[int, int]:
    """Where an uncompressed ORC file's footer starts and its PostScript starts."""
    from lakeshift.inspect.orc_tail import _fields

    ps_start = len(data) - 1 - data[-1]
    fields = _fields(bytes(data[ps_start:-1]))
    assert fields.get(2, [0])[0] == 0, "only uncompressed files"
    return ps_start - int(fields[1][0]), ps_start  # type: ignore[arg-type]


def _keys(message: bytes) -> list[tuple[int, int, int]]:
    """(offset of the key byte, field number, wire type) of each field of a protobuf message
    whose keys are one byte."""
    out = []
    position = 0
    while position < len(message):
        key = message[position]
        wire = key & 7
        out.append((position, key >> 3, wire))
        position += 1
        if wire in (0, 2):
            value, rest = _varint_split(message[position:])
            position = len(message) - len(rest) + (value if wire == 2 else 0)
        else:
            position += 8 if wire == 1 else 4
    return out


def alone_partition(client: MetastoreClient, table: str, partition: str) -> str:
    """A table like ``table`` holding only its ``partition`` (the same files), to ask Hive of
    one partition: a ``where`` on the key would send Hive's expression to the metastore,
    whose Java 17 refuses to deserialize it."""
    db, name = table.split(".")
    alone = unique_name(f"{name}_{partition}")
    copy = client.get_table(db, name)
    copy.tableName = alone
    client.create_table(copy)
    (part,) = client.partitions_by_names(db, name, [f"dt={partition}"])
    part.tableName = alone
    client.add_partitions([part])
    return f"{db}.{alone}"


def with_rids(**columns: pa.Array) -> pa.Table:
    """A file's table of ``columns`` behind an ``rid`` int column numbering its rows from 0."""
    rows = len(next(iter(columns.values())))
    return pa.table({"rid": pa.array(range(rows), pa.int32()), **columns})

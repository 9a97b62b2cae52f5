"""An ORC file's footer facts: the schema's are looked up by the footer's type bytes, and a
file gets its own schema's facts whichever files were read before it."""

from __future__ import annotations

from pathlib import Path

import pyarrow as pa
import pyarrow.fs as pafs
import pyarrow.orc as orc
import pytest

from lakeshift.inspect import footers
from lakeshift.inspect.files import ListedFile
from lakeshift.inspect.footers import read_footer
from lakeshift.inspect.model import Column
from lakeshift.inspect.orc_tail import read_orc_footer

SCHEMAS = {
    "ints": pa.table({"a": pa.array([1, 2], pa.int64()), "b": pa.array([1, 2], pa.int32())}),
    "text": pa.table({"a": pa.array(["x", "y"]), "b": pa.array([1, 2], pa.int32())}),
    "named": pa.table({"b": pa.array([1, 2], pa.int64()), "a": pa.array([1, 2], pa.int32())}),
    # a day before 1582-10-15: found only where the schema is known to hold a date
    "dates": pa.table(
        {"a": pa.array([1, 2], pa.int64()), "b": pa.array([-150_000, 1], pa.date32())}
    ),
}
COLUMNS = {
    "ints": (Column("a", "bigint"), Column("b", "int")),
    "text": (Column("a", "string"), Column("b", "int")),
    "named": (Column("b", "bigint"), Column("a", "int")),
    "dates": (Column("a", "bigint"), Column("b", "date")),
}


def _write(path: Path, table: pa.Table, compression: str = "zlib") -> ListedFile:
    # columns enough for the footer to be compressed (a small one is stored as it is), so
    # that the footer's bytes are decompressed
    for i in range(40):
        table = table.append_column(f"padding_column_{i}", pa.array([i] * len(table), pa.int8()))
    orc.write_table(table, str(path), compression=compression)
    return ListedFile(path.name, path.stat().st_size, 0)


def test_equal_schemas_have_equal_footer_types_and_others_do_not(tmp_path: Path) -> None:
    types = {}
    for name, table in [*SCHEMAS.items(), ("ints again", SCHEMAS["ints"].slice(1))]:
        listed = _write(tmp_path / name, table)
        with pa.OSFile(str(tmp_path / name)) as handle:
            footer = read_orc_footer(handle, listed.size)
        assert footer is not None
        types[name] = footer.types
    assert types["ints again"] == types["ints"]
    assert len({types[name] for name in SCHEMAS}) == len(SCHEMAS)


@pytest.mark.parametrize("decoded", [True, False])
@pytest.mark.parametrize("compression", ["zlib", "snappy", "zstd"])
def test_each_file_gets_its_own_schemas_facts_whatever_was_read_before(
    tmp_path: Path, compression: str, decoded: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    # room for fewer schemas than there are: some are forgotten and met again
    monkeypatch.setattr(footers, "_orc_schemas", footers._SchemaFacts(size=2))
    if not decoded:  # as for a codec read by pyarrow only (LZO, LZ4 writers other than its own)
        monkeypatch.setattr(footers, "read_orc_footer", lambda *_, **__: None)
    fs = pafs.LocalFileSystem()
    order = ["ints", "text", "ints", "named", "dates", "text", "ints", "dates"]
    for index, name in enumerate(order):
        listed = _write(tmp_path / f"{index}-{name}", SCHEMAS[name], compression)
        info = read_footer(fs, str(tmp_path), listed)
        assert info.error is None
        assert info.columns[:2] == COLUMNS[name], (index, name)
        early = name == "dates" if decoded else None  # the statistics unread
        assert info.pre_gregorian is early, (index, name)
        assert info.rows == 2

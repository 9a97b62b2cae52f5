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
from tests.helpers.hive_tables import drop_writer_zone, set_writer

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
    monkeypatch.setattr(footers, "_orc_readers", footers._ReaderFacts(size=2))
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


ANSWERS = ("rows", "stripes", "compression", "writer", "writer_version", "software_version")


def _pyarrow_answers(path: Path) -> dict[str, object]:
    reader = orc.ORCFile(str(path))
    return {
        "rows": reader.nrows,
        "stripes": reader.nstripes,
        "compression": str(reader.compression),
        "writer": str(reader.writer),
        "writer_version": str(reader.writer_version),
        "software_version": str(reader.software_version),
    }


def _answers(info: footers.FileInfo) -> dict[str, object]:
    return {name: getattr(info, name) for name in ANSWERS}


@pytest.mark.parametrize("compression", ["uncompressed", "zlib", "snappy", "zstd"])
def test_a_file_described_from_its_footer_alone_gets_pyarrows_answers(
    tmp_path: Path, compression: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(footers, "_orc_readers", footers._ReaderFacts())
    opened: list[object] = []
    real = footers.orc.ORCFile

    def counted(source: object) -> orc.ORCFile:
        if not isinstance(source, str):  # lakeshift's (this test opens its files by path)
            opened.append(source)
        return real(source)

    monkeypatch.setattr(footers.orc, "ORCFile", counted)
    fs = pafs.LocalFileSystem()
    # the same schema and writer: the first file is read by pyarrow, the others from their
    # footers, with their own rows and stripes (small stripes: several in the big one)
    sizes = [2, 5_000, 120_000]
    for index, rows in enumerate(sizes):
        values = [
            f"{i * 7919 % 1_000_003:030d}" for i in range(rows)
        ]  # distinct: not compressed away
        table = pa.table({"a": pa.array(range(rows), pa.int64()), "b": values})
        path = tmp_path / f"{index}.orc"
        orc.write_table(table, str(path), compression=compression, stripe_size=64 << 10)
        info = read_footer(fs, str(tmp_path), ListedFile(path.name, path.stat().st_size, 0))
        assert info.error is None
        assert _answers(info) == _pyarrow_answers(path), index
        assert info.columns == (Column("a", "bigint"), Column("b", "string"))
    assert len(opened) == 1  # only the first file needed pyarrow's reader
    assert orc.ORCFile(str(tmp_path / "2.orc")).nstripes > 1


def test_a_file_of_another_writer_version_is_read_by_pyarrow(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # the names follow the footer's bytes: a file that looks written by Hive before 1.0 is
    # not given the names of a newer writer's file of the same schema
    monkeypatch.setattr(footers, "_orc_readers", footers._ReaderFacts())
    fs = pafs.LocalFileSystem()
    infos = {}
    for name in ("new", "old"):
        table = pa.table(
            {"a": pa.array([1, 2], pa.int64()), "t": pa.array([0, 1], pa.timestamp("us"))}
        )
        path = tmp_path / f"{name}.orc"
        orc.write_table(table, str(path), compression="uncompressed")
        if name == "old":
            drop_writer_zone(path)
        infos[name] = read_footer(fs, str(tmp_path), ListedFile(path.name, path.stat().st_size, 0))
        assert _answers(infos[name]) == _pyarrow_answers(path)
    assert infos["old"].writer_version == "HIVE_4243"
    assert infos["old"].zoneless is True
    assert infos["new"].writer_version != "HIVE_4243"


@pytest.mark.parametrize(("writer", "named"), [(5, "CUDF"), (42, "UNKNOWN_WRITER_42")])
def test_a_writer_pyarrow_does_not_name_is_named_not_taken_for_corruption(
    tmp_path: Path, writer: int, named: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # pyarrow raises on the writer ids it does not know (cuDF's: Spark RAPIDS' files), though
    # it reads their files
    monkeypatch.setattr(footers, "_orc_readers", footers._ReaderFacts())
    path = tmp_path / "gpu.orc"
    orc.write_table(
        pa.table({"a": pa.array([1, 2, 3], pa.int64())}), str(path), compression="uncompressed"
    )
    set_writer(path, writer)
    with pytest.raises(ValueError):
        _ = orc.ORCFile(str(path)).writer
    assert orc.read_table(str(path)).num_rows == 3
    listed = ListedFile(path.name, path.stat().st_size, 0)
    for _ in range(2):  # read by pyarrow, then from its footer alone
        info = read_footer(pafs.LocalFileSystem(), str(tmp_path), listed)
        assert info.error is None and info.writer == named and info.rows == 3

from __future__ import annotations

import itertools
import os
import re
from pathlib import Path

import pyarrow.fs as pafs

from lakeshift.inspect.files import (
    _group,
    fingerprint,
    in_progress,
    is_hidden,
    list_partition,
    list_table_tree,
)
from lakeshift.storage.objects import StoredObject


def _touch(path: Path, data: bytes = b"x") -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_listing_follows_hive_skip_rules(tmp_path: Path) -> None:
    _touch(tmp_path / "000000_0")
    _touch(tmp_path / "HIVE_UNION_SUBDIR_1" / "000000_0")
    _touch(tmp_path / "_SUCCESS", b"")
    _touch(tmp_path / "_tmp.000001_0")
    _touch(tmp_path / ".hive-staging_1" / "-ext-10000" / "000000_0")
    _touch(tmp_path / ".000002_0.crc")
    _touch(tmp_path / "000003_0", b"")  # zero length
    listing = list_partition(pafs.LocalFileSystem(), str(tmp_path))
    assert [f.path for f in listing.files] == ["000000_0", "HIVE_UNION_SUBDIR_1/000000_0"]
    assert listing.skipped == 5
    assert listing.exists


def test_missing_directory_is_reported_not_raised(tmp_path: Path) -> None:
    listing = list_partition(pafs.LocalFileSystem(), str(tmp_path / "nope"))
    assert not listing.exists and listing.files == ()


def test_hidden_rule_applies_to_every_component() -> None:
    assert is_hidden("_tmp/000000_0") and is_hidden("a/.b") and not is_hidden("a/b_c")


#: The names of a write under way, one component at a time: the rule ``in_progress`` applies
#: to a whole relative path at once.
WRITING = re.compile(
    r"^(_temporary|\.hive-staging.*|_tmp.*|\.spark-staging.*|\.distcp\.tmp.*|.*\._COPYING_"
    r"|.*\.inprogress.*)$"
)
NAMES = [
    "000000_0",
    "_temporary",
    "_temporary2",
    "x_temporary",
    ".hive-staging_hive_1",
    "_tmp.0",
    "_tmp",
    ".spark-staging-1",
    ".distcp.tmp.a",
    "a._COPYING_",
    "a._COPYING_.b",
    "p.inprogress.1",
    "inprogress",
    "_SUCCESS",
    ".crc",
    "a.b",
    "",
]


def test_the_whole_path_rules_are_the_rules_of_each_component() -> None:
    for parts in itertools.chain(
        ((a,) for a in NAMES),
        itertools.product(NAMES, repeat=2),
        itertools.product(NAMES[:6], repeat=3),
    ):
        path = "/".join(parts)
        components = [part for part in path.split("/") if part]
        assert in_progress(path) is any(WRITING.match(part) for part in components), path
        assert is_hidden(path) is any(part.startswith(("_", ".")) for part in path.split("/")), path


def test_fingerprint_changes_with_name_size_and_mtime(tmp_path: Path) -> None:
    _touch(tmp_path / "a", b"12")
    _touch(tmp_path / "b", b"3")
    fs = pafs.LocalFileSystem()
    first = fingerprint(list_partition(fs, str(tmp_path)).files)
    assert first == fingerprint(list_partition(fs, str(tmp_path)).files)
    os.utime(tmp_path / "a", ns=(1, 1_000_000_000))
    touched = fingerprint(list_partition(fs, str(tmp_path)).files)
    assert touched != first
    (tmp_path / "b").write_bytes(b"34")
    os.utime(tmp_path / "b", ns=(1, 2_000_000_000))
    assert fingerprint(list_partition(fs, str(tmp_path)).files) != touched


def test_locations_are_hadoop_paths_never_percent_decoded() -> None:
    from lakeshift.storage import filesystem_for

    fs, path = filesystem_for("file:/data/t/dt=it%27s a%2Fb")
    assert isinstance(fs, pafs.LocalFileSystem)
    assert path == "/data/t/dt=it%27s a%2Fb"
    assert filesystem_for("file:///data/x")[1] == "/data/x"
    assert filesystem_for("/plain/path")[1] == "/plain/path"


def test_a_table_listed_once_gives_each_partition_what_its_own_listing_gives(
    tmp_path: Path,
) -> None:
    _touch(tmp_path / "d=1" / "h=0" / "000000_0")
    _touch(tmp_path / "d=1" / "h=0" / "_SUCCESS", b"")
    _touch(tmp_path / "d=1" / "h=1" / "HIVE_UNION_SUBDIR_1" / "000000_0", b"12")
    _touch(tmp_path / "d=1" / "h=1" / "_temporary" / "0" / "part-0")
    _touch(tmp_path / "d=2" / "h=0" / "000000_0", b"")
    _touch(tmp_path / "stray_file")  # in the root: in no partition
    (tmp_path / "d=3" / "h=0").mkdir(parents=True)  # empty: listed alone
    fs = pafs.LocalFileSystem()
    tree = list_table_tree(fs, str(tmp_path), 2)
    # Every directory at partition depth, the empty one too (unregistered directories).
    assert sorted(Path(d).relative_to(tmp_path).as_posix() for d in tree.directories) == [
        "d=1/h=0",
        "d=1/h=1",
        "d=2/h=0",
        "d=3/h=0",
    ]
    for partition in ("d=1/h=0", "d=1/h=1", "d=2/h=0"):
        root = str(tmp_path / partition)
        assert list_partition(fs, root, tree.entries(fs, root)) == list_partition(fs, root)
    assert tree.entries(fs, str(tmp_path / "d=3" / "h=0")) is None  # empty: listed alone
    assert tree.entries(fs, str(tmp_path / "d=1")) is None  # a location at another depth
    other = pafs.SubTreeFileSystem("/", fs)  # another kind of store: never from this tree
    assert tree.entries(other, str(tmp_path / "d=1" / "h=0")) is None


def test_a_partition_s_own_marker_key_is_left_out_of_the_table_listing() -> None:
    def obj(key: str, size: int = 1) -> StoredObject:
        return StoredObject(f"b/t/{key}", size, 0)

    groups = _group(
        [obj("p=1/"), obj("p=1/000000_0"), obj("p=2/", 0), obj("p=3/sub/"), obj("x")],
        "b/t",
        1,
    )
    assert groups == {
        "b/t/p=1": (obj("p=1/000000_0"),),
        "b/t/p=2": (),
        "b/t/p=3": (obj("p=3/sub/"),),
    }

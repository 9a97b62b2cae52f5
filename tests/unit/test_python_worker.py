"""The worker's archives are read once: after ``keep_archives``, the per-task
``importlib.invalidate_caches()`` of PySpark's worker no longer re-reads a zip on the path,
and what the zip held stays importable."""

from __future__ import annotations

import importlib
import sys
import zipfile
import zipimport
from collections.abc import Iterator
from pathlib import Path

import pytest

from lakeshift.platform.python_worker import keep_archives


@pytest.fixture
def archive(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "code.zip"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("kept_first.py", "VALUE = 1\n")
    sys.path.insert(0, str(path))
    try:
        yield path
    finally:
        sys.path.remove(str(path))
        sys.path_importer_cache.pop(str(path), None)
        for name in ("kept_first", "kept_second"):
            sys.modules.pop(name, None)


def _add_module(path: Path, name: str) -> None:
    with zipfile.ZipFile(path, "a") as z:
        z.writestr(f"{name}.py", "VALUE = 2\n")


def test_a_plain_importer_rereads_its_archive_at_every_invalidation(archive: Path) -> None:
    """What PySpark's worker pays per task: the archive's directory read again (seen here as
    a module added since being found)."""
    assert importlib.import_module("kept_first").VALUE == 1
    assert type(sys.path_importer_cache[str(archive)]) is zipimport.zipimporter
    _add_module(archive, "kept_second")
    importlib.invalidate_caches()
    assert importlib.import_module("kept_second").VALUE == 2


def test_kept_archives_are_not_read_again_and_still_import(archive: Path) -> None:
    assert importlib.import_module("kept_first").VALUE == 1
    keep_archives()
    finder = sys.path_importer_cache[str(archive)]
    assert isinstance(finder, zipimport.zipimporter)
    assert type(finder) is not zipimport.zipimporter
    _add_module(archive, "kept_second")
    importlib.invalidate_caches()
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module("kept_second")  # the directory read before is kept
    sys.modules.pop("kept_first")
    assert importlib.import_module("kept_first").VALUE == 1  # and still serves imports
    keep_archives()  # a second call leaves the kept importer as it is
    assert sys.path_importer_cache[str(archive)] is finder

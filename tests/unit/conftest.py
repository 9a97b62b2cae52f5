"""Fixtures of the unit tests: the real Hudi tables of ../shared, unzipped once."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

HUDI_REFERENCES = Path(__file__).resolve().parents[3] / "shared" / "reference-tables" / "hudi"


@pytest.fixture(scope="session")
def references(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Every reference table, extracted (never copied into the repo): one directory each."""
    root = tmp_path_factory.mktemp("hudi-reference")
    for archive in sorted(HUDI_REFERENCES.glob("*.zip")):
        with zipfile.ZipFile(archive) as z:
            z.extractall(root, [n for n in z.namelist() if not n.startswith("__MACOSX")])
    return root

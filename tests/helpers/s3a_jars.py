"""Fetch the two S3A connector jars the tests give Spark and the embedded metastore.

``python -m tests.helpers.s3a_jars DIR``: downloads the hash-pinned sdist named in
``tests/requirements-s3a.txt`` with pip (PyPI only, no install) and extracts the jars into DIR.
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

REQUIREMENTS = Path(__file__).resolve().parents[1] / "requirements-s3a.txt"
JARS = ("hadoop-aws-3.3.1.jar", "aws-java-sdk-bundle-1.11.901.jar")


def jar_paths(directory: Path) -> list[Path]:
    return [directory / name for name in JARS]


def fetch(directory: Path) -> list[Path]:
    directory.mkdir(parents=True, exist_ok=True)
    wanted = jar_paths(directory)
    if all(p.is_file() for p in wanted):
        return wanted
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(
            [
                sys.executable, "-m", "pip", "download", "--quiet", "--disable-pip-version-check",
                "--no-deps", "--no-binary", ":all:", "--require-hashes",
                "-r", str(REQUIREMENTS), "-d", tmp,
            ],
            check=True,
        )  # fmt: skip
        (sdist,) = Path(tmp).glob("*.tar.gz")
        with tarfile.open(sdist) as archive:
            for member in archive.getmembers():
                name = Path(member.name).name
                if name in JARS and member.isfile():
                    source = archive.extractfile(member)
                    assert source is not None
                    partial = directory / f".{name}.partial"
                    partial.write_bytes(source.read())
                    partial.rename(directory / name)
    missing = [p.name for p in wanted if not p.is_file()]
    if missing:
        raise SystemExit(f"{', '.join(missing)} not found in the sdist of {REQUIREMENTS}")
    return wanted


if __name__ == "__main__":
    for path in fetch(Path(sys.argv[1])):
        print(path)

"""lakeshift's own Python code as one zip for ``spark.submit.pyFiles``.

On a cluster, executors run in other processes (other machines on YARN or Kubernetes) whose
Python has no lakeshift installed; whatever lakeshift code a task runs (a Python function
pickled by reference, such as the task fault hook) must be shipped. Spark ships files listed in
``spark.submit.pyFiles`` with the application and puts them on every Python worker's path.
"""

from __future__ import annotations

import hashlib
import os
import zipfile
from pathlib import Path

#: A fixed timestamp, so the same code always gives the same zip bytes.
_EPOCH = (1980, 1, 1, 0, 0, 0)


def package_dir() -> Path:
    import lakeshift

    return Path(lakeshift.__file__).resolve().parent


def _sources(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if "__pycache__" not in p.parts)


def package_zip_path(directory: Path) -> Path:
    """Where the zip of the current code lives: named by a digest of the code, so processes
    running different versions never overwrite a zip another one's executors are reading."""
    root = package_dir()
    digest = hashlib.sha256()
    for path in _sources(root):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes())
    return directory.resolve() / f"lakeshift-{digest.hexdigest()[:16]}.zip"


def build_package_zip(target: Path) -> Path:
    """Write the zip at ``target`` (from :func:`package_zip_path`) unless it is there already.

    Written under a temporary name and renamed, so a concurrent reader sees no partial zip.
    """
    if target.is_file():
        return target
    target.parent.mkdir(parents=True, exist_ok=True)
    root = package_dir()
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    with zipfile.ZipFile(partial, "w", zipfile.ZIP_DEFLATED) as archive:
        for path in _sources(root):
            name = (Path(root.name) / path.relative_to(root)).as_posix()
            info = zipfile.ZipInfo(name, date_time=_EPOCH)
            info.compress_type = zipfile.ZIP_DEFLATED
            archive.writestr(info, path.read_bytes())
    os.replace(partial, target)
    return target

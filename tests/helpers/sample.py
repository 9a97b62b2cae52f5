"""A smaller copy of the bundled sample, for the tests that run every command through a slow
store (moto's S3 and Glue serve each request in Python, on the same two cores as Spark).

The copy keeps the first partition that shows each feature of the sample, read from the
manifest, not chosen by value: each schema version, positional (``_colN``) files, several files,
a file of another vintage than its partition, files in subdirectories, a location outside the
table's directory, an empty partition, the NULL partition and a directory the metastore does
not list. 10 of the 29 registered partitions, 27,471 of the 76,330 rows.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from lakeshift.sample.generate import MANIFEST
from lakeshift.sample.load import bundled_sample_dir


def _features(partition: dict[str, Any], table_location: str) -> set[str]:
    files = partition["files"]
    version = partition["schema_version"]
    found = {
        f"schema version {version}": True,
        "not registered": not partition["registered"],
        "NULL value": partition["value"] is None,
        "outside the table's directory": not partition["location"].startswith(f"{table_location}/"),
        "empty": not files,
        "several files": len(files) > 1,
        "files in subdirectories": any("/" in f["path"] for f in files),
        "a file of another vintage": any(f["vintage"] != version for f in files),
        "positional files": any(f["positional"] for f in files),
    }
    return {name for name, present in found.items() if present}


def one_partition_per_feature(dest: Path) -> Path:
    """Write the reduced sample (files and manifest) to ``dest``, once, and return it."""
    if (dest / MANIFEST).is_file():
        return dest
    source = bundled_sample_dir()
    assert source is not None, "the tests run from a source checkout (sample_data/)"
    manifest = json.loads((source / MANIFEST).read_text())
    seen: set[str] = set()
    kept = []
    for partition in manifest["partitions"]:  # the first partition that shows each feature
        features = _features(partition, manifest["table_location"])
        if not features <= seen:
            seen |= features
            kept.append(partition)
    for partition in kept:
        for f in partition["files"]:
            target = dest / partition["location"] / f["path"]
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source / partition["location"] / f["path"], target)
        (dest / partition["location"]).mkdir(parents=True, exist_ok=True)
    (dest / MANIFEST).write_text(json.dumps({**manifest, "partitions": kept}, indent=1))
    return dest

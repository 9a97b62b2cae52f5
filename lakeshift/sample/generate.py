"""Write the ``sample.click_log`` files and manifest into a directory (deterministic)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from lakeshift.sample.click_log_data import write_file
from lakeshift.sample.click_log_spec import (
    DATABASE,
    PARTITION_KEY,
    SCHEMA_VERSIONS,
    TABLE,
    TABLE_COLUMNS,
    PartitionSpec,
    partitions,
)

MANIFEST = "manifest.json"


def partition_dir(root: Path, spec: PartitionSpec) -> Path:
    if spec.location == "archive":
        return root / "archive" / f"click_log_{spec.value}"
    return root / "table" / spec.dir_name


def _write_junk(directory: Path) -> None:
    """What Hive jobs leave behind and Hive readers skip."""
    directory.mkdir(parents=True, exist_ok=True)
    (directory / "_SUCCESS").write_bytes(b"")
    (directory / "000099_0").write_bytes(b"")  # zero-length file from an empty task
    (directory / "_tmp.000002_0").write_bytes(b"partial output of a failed task")
    staging = directory / ".hive-staging_hive_2022-04-12_03-00-00_000_1"
    (staging / "-ext-10000").mkdir(parents=True, exist_ok=True)
    (staging / "-ext-10000" / "000000_0").write_bytes(b"ORC staging data Hive ignores")


def generate(root: Path) -> dict[str, Any]:
    """Write every file of the sample under ``root`` and return the manifest."""
    entries = []
    for spec in partitions():
        directory = partition_dir(root, spec)
        directory.mkdir(parents=True, exist_ok=True)
        if spec.junk:
            _write_junk(directory)
        files, rows_registered, rows_total = [], 0, 0
        for file in spec.files:
            path = directory / file.subdir / file.name
            rows = write_file(spec, file, path)
            rows_total += rows
            rows_registered += 0 if file.hand_copied else rows
            files.append(
                {
                    "path": str(path.relative_to(directory)),
                    "rows": rows,
                    "vintage": file.version,
                    "positional": file.positional,
                }
            )
        entries.append(
            {
                "value": spec.value,
                "registered": spec.registered,
                "location": str(directory.relative_to(root)),
                "schema_version": spec.version,
                "columns": [list(c) for c in SCHEMA_VERSIONS[spec.version]],
                "files": files,
                "rows": rows_total,
                # Hive's stats as the metastore holds them; a hand-copied file left them stale.
                "num_rows_stat": rows_registered,
            }
        )
    manifest = {
        "database": DATABASE,
        "table": TABLE,
        "table_location": "table",
        "partition_keys": [[PARTITION_KEY, "string"]],
        "columns": [list(c) for c in TABLE_COLUMNS],
        "partitions": entries,
    }
    (root / MANIFEST).write_text(json.dumps(manifest, indent=1, ensure_ascii=False) + "\n")
    return manifest


if __name__ == "__main__":
    import sys

    target = Path(sys.argv[1] if len(sys.argv) > 1 else "sample_data/click_log")
    generate(target)
    print(f"wrote {target}")

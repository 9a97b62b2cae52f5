"""What was backfilled, kept beside the table before its history is expired.

The target's commit metadata is the ground truth of what lakeshift backfilled, but expiring old
snapshots (Iceberg) or cleaning old log entries (Delta) removes exactly those commits. Before any
expiry the format writes the current answer to ``_lakeshift/backfills.json`` under the table
location (a hidden path: table readers, Delta's VACUUM and Iceberg's orphan removal skip it), and
reads it back under whatever commits remain. It holds partition names and source fingerprints,
never row data.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from lakeshift.formats.base import Backfilled

RECORD = Path("_lakeshift") / "backfills.json"


def remember(root: Path, backfills: dict[str, Backfilled]) -> None:
    """Write ``backfills`` atomically (a crash leaves the previous record or the new one)."""
    path = root / RECORD
    path.parent.mkdir(parents=True, exist_ok=True)
    data = {name: [b.fingerprint, b.rows, b.commit_id, b.run_id] for name, b in backfills.items()}
    temporary = path.with_suffix(".tmp")
    temporary.write_text(json.dumps(data, ensure_ascii=False, sort_keys=True))
    os.replace(temporary, path)


def merged(root: Path, from_commits: dict[str, Backfilled]) -> dict[str, Backfilled]:
    """The remembered backfills, overridden by any partition the remaining commits name."""
    path = root / RECORD
    if not path.exists():
        return from_commits
    remembered = {
        name: Backfilled(name, fp, int(rows), int(commit), run)
        for name, (fp, rows, commit, run) in json.loads(path.read_text()).items()
    }
    return {**remembered, **from_commits}

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

from lakeshift.formats.base import Backfilled
from lakeshift.storage import Store

RECORD = "_lakeshift/backfills.json"


def remember(table: Store, backfills: dict[str, Backfilled]) -> None:
    """Write ``backfills`` whole (a crash leaves the previous record or the new one)."""
    data = {name: [b.fingerprint, b.rows, b.commit_id, b.run_id] for name, b in backfills.items()}
    table.write(RECORD, json.dumps(data, ensure_ascii=False, sort_keys=True))


def merged(table: Store, from_commits: dict[str, Backfilled]) -> dict[str, Backfilled]:
    """The remembered backfills, overridden by any partition the remaining commits name."""
    text = table.read_text_if_exists(RECORD)
    if text is None:
        return from_commits
    remembered = {
        name: Backfilled(name, fp, int(rows), int(commit), run)
        for name, (fp, rows, commit, run) in json.loads(text).items()
    }
    return {**remembered, **from_commits}

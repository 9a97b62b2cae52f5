"""Commits other writers made to a target: how each format's refusal reads.

Until cutover lakeshift is a target's only writer: each format finds, from the target's own
commit metadata (the ground truth, whichever process asks), the commits after lakeshift's
newest one that lakeshift did not write, and refuses to commit on top of them (exit 8).
"""

from __future__ import annotations

from collections.abc import Sequence

from lakeshift.errors import ConcurrentCommit

#: The flag that takes a target as it stands, other writers' commits included.
ACCEPT_FLAG = "--accept-foreign-commits"


def foreign_commit_error(what: str, commits: Sequence[str]) -> ConcurrentCommit:
    """The refusal for ``commits`` (described) that another writer made to ``what``."""
    shown = "; ".join(commits[:5]) + (f" and {len(commits) - 5} more" if len(commits) > 5 else "")
    return ConcurrentCommit(
        f"another writer committed to {what} since lakeshift's last commit there: {shown}. "
        "lakeshift wrote nothing on top of it.",
        hint="Stop the other writer: until cutover lakeshift must be the table's only writer. "
        f"Then migrate into a new --target, or, once you have checked those commits may stay, "
        f"re-run `lakeshift migrate` with {ACCEPT_FLAG} (rows they wrote into source partitions "
        "stay until those are backfilled again, e.g. by --rebackfill-invalid).",
    )

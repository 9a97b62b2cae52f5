"""Record-level erasure after (or during) a migration: delete, purge, audit.

``erase_records`` deletes the matching rows by record key in one commit, purges every file and
log entry that still holds them (expiry and orphan removal), then audits every file under the
table location with readers independent of the write path. Each step is recorded before the next
starts, so a killed erasure is finished by running the same command again.
"""

from lakeshift.erase.run import EraseRequest, erase_records

__all__ = ["EraseRequest", "erase_records"]

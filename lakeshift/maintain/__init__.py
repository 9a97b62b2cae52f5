"""Table maintenance after (or during) a migration: compaction, expiry, orphan removal."""

from lakeshift.maintain.report import maintenance_markdown
from lakeshift.maintain.run import (
    MaintainOptions,
    MaintainResult,
    TableStats,
    maintain_table,
    table_stats,
)

__all__ = [
    "MaintainOptions",
    "MaintainResult",
    "TableStats",
    "maintain_table",
    "maintenance_markdown",
    "table_stats",
]

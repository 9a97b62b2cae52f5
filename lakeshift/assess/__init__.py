"""``assess``: which tables of a database can be migrated, what needs attention, how big."""

from lakeshift.assess.database import Assessment, TableAssessment, assess_database, bulk_toml

__all__ = ["Assessment", "TableAssessment", "assess_database", "bulk_toml"]

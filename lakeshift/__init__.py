"""lakeshift: migrate Hive ORC tables into lake tables, one validated partition at a time."""

from __future__ import annotations

__version__ = "0.1.0"

"""Inventory of a Hive table: partitions, files, ORC footers, fingerprints, anomalies.

Names are loaded on first use (see ``lakeshift.formats``): Spark tasks import the file readers
here without the inspector's metastore client.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lakeshift.inspect.inspector import inspect_table
    from lakeshift.inspect.model import Anomaly, Column, FileInfo, PartitionInfo, TableInventory

__all__ = ["Anomaly", "Column", "FileInfo", "PartitionInfo", "TableInventory", "inspect_table"]
_HOME = {"inspect_table": "lakeshift.inspect.inspector"}


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(import_module(_HOME.get(name, "lakeshift.inspect.model")), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

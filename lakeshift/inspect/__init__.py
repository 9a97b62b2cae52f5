"""Inventory of a Hive table: partitions, files, ORC footers, fingerprints, anomalies."""

from lakeshift.inspect.inspector import inspect_table
from lakeshift.inspect.model import Anomaly, Column, FileInfo, PartitionInfo, TableInventory

__all__ = ["Anomaly", "Column", "FileInfo", "PartitionInfo", "TableInventory", "inspect_table"]

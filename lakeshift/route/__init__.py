"""Catalog routing: a metastore view serving switched partitions from the lake table."""

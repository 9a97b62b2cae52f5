"""Hive Metastore access over Thrift."""

from lakeshift.metastore.client import MetastoreClient, parse_thrift_uri

__all__ = ["MetastoreClient", "parse_thrift_uri"]

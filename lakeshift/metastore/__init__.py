"""Hive Metastore access over Thrift (names loaded on first use: Spark tasks import
``lakeshift.metastore.partition_names`` without the Thrift client)."""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lakeshift.metastore.client import MetastoreClient, parse_thrift_uri

__all__ = ["MetastoreClient", "parse_thrift_uri"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        return getattr(import_module("lakeshift.metastore.client"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

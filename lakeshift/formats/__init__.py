"""Target formats behind one seam: :func:`load_format` and :func:`format_of`
(:mod:`.registry`). Callers hold a :class:`TargetFormat` and never branch on a format's name.

The names are loaded on first use, so code that runs in Spark tasks (e.g. the Hudi base-file
writer) imports ``lakeshift.formats.<format>.<module>`` without the driver's libraries (Thrift
metastore client, pyiceberg, deltalake).
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from lakeshift.formats.base import (
        Backfilled,
        BatchResult,
        CommitRecord,
        FormatServices,
        LakeSide,
        SyncResult,
        TargetFormat,
    )
    from lakeshift.formats.registry import (
        FORMATS,
        format_of,
        load_format,
        require_target,
        target_format,
    )

__all__ = [
    "FORMATS",
    "Backfilled",
    "BatchResult",
    "CommitRecord",
    "FormatServices",
    "LakeSide",
    "SyncResult",
    "TargetFormat",
    "format_of",
    "load_format",
    "require_target",
    "target_format",
]


_REGISTRY = {"FORMATS", "format_of", "load_format", "require_target", "target_format"}


def __getattr__(name: str) -> Any:
    if name in __all__:
        home = "registry" if name in _REGISTRY else "base"
        return getattr(import_module(f"lakeshift.formats.{home}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")

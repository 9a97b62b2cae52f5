"""Partition key values Hive shows differently from the metastore's text (pure).

Hive converts each partition's text to the key's type with Java's parsers
(``lakeshift.hive.key_values``), so two partitions can show one value (``05`` and
``5`` of an int key, ``1.004`` and ``1.001`` of a decimal(3,2), ``abc`` of an int key and the
NULL partition), and a timestamp key can hold digits below the microsecond the targets keep.
The target holds what Hive shows: one value for both partitions, microseconds. People must
know before they migrate.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from lakeshift.hive.key_values import lost_precision
from lakeshift.hive.partition_values import typed_value
from lakeshift.hive.types import parse_hive_type
from lakeshift.inspect.model import SEVERITY_WARNING, Anomaly, Column, PartitionInfo
from lakeshift.listing import first_few


def _shown(values: tuple[object, ...], keys: Sequence[Column]) -> str:
    return "/".join(f"{k.name}={'NULL' if v is None else v}" for k, v in zip(keys, values))


def key_anomalies(
    partitions: Sequence[PartitionInfo],
    keys: Sequence[Column],
    version: str,
    zone: str | None = None,
) -> list[Anomaly]:
    """``partition-values-collide`` for partitions Hive ``version`` (its JVMs in ``zone``:
    ``HiveSemantics.jvm_zone``) shows with one key value; ``key-precision-lost`` for
    timestamp keys finer than a microsecond."""
    if not keys:
        return []
    found: list[Anomaly] = []
    groups: dict[tuple[Any, ...], list[str]] = defaultdict(list)
    finer: list[str] = []
    # each key's type parsed once for the precision check, not once a partition
    types = [parse_hive_type(k.type) for k in keys]
    stamps = any(t.kind == "timestamp" for t in types)  # only their text can be finer
    for p in partitions:
        typed = tuple(typed_value(v, k.type, version, zone) for v, k in zip(p.values, keys))
        groups[typed].append(p.name)
        if stamps and any(v is not None and lost_precision(v, t) for v, t in zip(p.values, types)):
            finer.append(p.name)
    for typed, names in groups.items():
        if len(names) < 2:
            continue
        shown = _shown(typed, keys)
        found.append(
            Anomaly(
                code="partition-values-collide",
                severity=SEVERITY_WARNING,
                message=f"{len(names)} partitions show one key value in Hive {version}"
                f"{f' running in {zone}' if zone else ''} ({shown}): {first_few(names)}; the "
                "target holds their rows under that one value.",
                action="Migrate and switch them together; rename the partitions in Hive if "
                "they are meant to differ.",
                partition=None,
                details={"partitions": names, "value": shown},
            )
        )
    found += _version_sensitive(partitions, keys, zone)
    if finer:
        found.append(
            Anomaly(
                code="key-precision-lost",
                severity=SEVERITY_WARNING,
                message=f"{len(finer)} partition(s) hold a timestamp key finer than a "
                f"microsecond, which the targets cannot keep: {first_few(finer)}.",
                action="Their key is migrated truncated to microseconds; use a string key "
                "in Hive if the nanoseconds matter.",
                partition=None,
                details={"partitions": finer},
            )
        )
    return found


#: Key types whose text Hive 1.2/2.x, 3.x and 4 convert by different rules (booleans by
#: HIVE-15939, dates and timestamps by java.sql, lenient or strict java.time:
#: ``hive.datetimes``).
_SENSITIVE_KEYS = ("boolean", "date", "timestamp")
#: The readings compared: (label, the hive_version that reads so).
_GENERATIONS = (("1.2/2.x", "2.3"), ("3.1", "3.1"), ("4", "4"))


def _version_sensitive(
    partitions: Sequence[PartitionInfo], keys: Sequence[Column], zone: str | None = None
) -> list[Anomaly]:
    """``key-version-sensitive`` when Hive 1.2/2.x, 3.1 and 4 show some partitions' key values
    differently (``yes`` of a boolean key, ``2020-01-01 10:00`` of a timestamp key under 2.x
    and 3.1, ``2020-02-30`` of a date key under 3.1 and 4)."""
    if not any(parse_hive_type(k.type).kind in _SENSITIVE_KEYS for k in keys):
        return []
    differ: list[tuple[str, dict[str, str]]] = []
    for p in partitions:
        readings = {
            label: tuple(typed_value(v, k.type, version, zone) for v, k in zip(p.values, keys))
            for label, version in _GENERATIONS
        }
        if len(set(readings.values())) > 1:
            differ.append((p.name, {label: _shown(r, keys) for label, r in readings.items()}))
    if not differ:
        return []
    name, first = differ[0]
    shown = ", ".join(f"{value} in Hive {label}" for label, value in first.items())
    return [
        Anomaly(
            code="key-version-sensitive",
            severity=SEVERITY_WARNING,
            message=f"{len(differ)} partition(s) show their key differently in Hive 1.2/2.x, "
            f"3.1 and 4, e.g. {name}: {shown}; {first_few([d[0] for d in differ])}.",
            action="Check hive_version matches your Hive (docs/guide/hive-versions.md).",
            partition=None,
            details={
                "partitions": [d[0] for d in differ],
                "readings": dict(differ[:100]),
            },
        )
    ]

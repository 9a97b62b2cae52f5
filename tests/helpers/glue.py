"""Glue as Glue is, around moto's Glue (which ignores most of Glue's limits).

moto accepts any ``VersionId``, returns every partition to every ``Segment`` in one page, never
leaves keys unprocessed and takes batches of any size (``../shared/GLUE.md`` section 6). The
:class:`GlueRules` here sit on boto3's event hooks of every Glue client the process creates,
lakeshift's included, and make the server behave as Glue's API model says:

- a batch above Glue's cap, a ``TotalSegments`` above 10 or an ``UpdateTable`` without a
  ``VersionId`` fails the test (``GlueRuleBroken``);
- ``GetPartitions`` answers only its segment's share (a stable hash of the values), in pages of
  ``page`` partitions with a ``NextToken``;
- ``BatchGetPartition`` leaves every other key it has not left before in ``UnprocessedKeys``;
- ``UpdateTable`` with a ``VersionId`` other than the table's current one fails with
  ``ConcurrentModificationException``, as Glue does.

Every call is counted per operation and table, so a test can say "one update".
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import boto3

LIMITS = {
    "BatchCreatePartition": ("PartitionInputList", 100),
    "BatchUpdatePartition": ("Entries", 100),
    "BatchDeletePartition": ("PartitionsToDelete", 25),
    "BatchGetPartition": ("PartitionsToGet", 1000),
}
REGION = "us-east-1"


class GlueRuleBroken(AssertionError):
    """lakeshift sent Glue something real Glue would refuse."""


@functools.cache
def raw_client(endpoint: str) -> Any:
    """A Glue client outside the rules (the test's own view of the server)."""
    return boto3.session.Session().client(
        "glue",
        endpoint_url=endpoint,
        region_name=REGION,
        aws_access_key_id="testing",
        aws_secret_access_key="testing",
    )


def _segment_of(values: list[str], total: int) -> int:
    return int(hashlib.sha256(json.dumps(values).encode()).hexdigest(), 16) % total


@dataclass
class _Status:
    status_code: int = 400
    headers: dict[str, str] = field(default_factory=dict)
    content: bytes = b""


@dataclass
class GlueRules:
    endpoint: str
    page: int = 7
    calls: Counter[tuple[str, str]] = field(default_factory=Counter)
    unprocessed_once: set[str] = field(default_factory=set)
    #: Called before an UpdateTable is sent (operation params): a test's concurrent writer.
    before_update: Callable[[dict[str, Any]], None] | None = None
    #: (operation, db.table) -> calls still to fail with Glue's 500 (a crash at that step).
    failing: Counter[tuple[str, str]] = field(default_factory=Counter)

    def install(self, session: Any) -> None:
        events = session.events
        events.register("before-parameter-build.glue", self._params)
        events.register("before-call.glue", self._before)
        events.register("after-call.glue", self._after)

    def uninstall(self, session: Any) -> None:
        events = session.events
        events.unregister("before-parameter-build.glue", self._params)
        events.unregister("before-call.glue", self._before)
        events.unregister("after-call.glue", self._after)

    def updates(self, table: str) -> int:
        return self.calls[("UpdateTable", table)]

    # hooks --------------------------------------------------------------------------------
    def _params(
        self, params: dict[str, Any], model: Any, context: dict[str, Any], **_: Any
    ) -> None:
        name = model.name
        context["rules_params"] = dict(params)
        table = params.get("TableName") or params.get("Name") or ""
        if name in ("UpdateTable", "CreateTable"):
            table = params["TableInput"]["Name"]
        context["rules_call"] = (name, f"{params.get('DatabaseName', '')}.{table}")
        self.calls[context["rules_call"]] += 1
        if name in LIMITS:
            key, cap = LIMITS[name]
            if len(params.get(key, [])) > cap:
                raise GlueRuleBroken(f"{name} with {len(params[key])} {key} (Glue's cap: {cap})")
            self._check_key_count(name, params)
        if name == "GetPartitions":
            segment = params.get("Segment")
            if segment and not 1 <= segment["TotalSegments"] <= 10:
                raise GlueRuleBroken(f"GetPartitions with {segment['TotalSegments']} segments")
            if params.get("MaxResults", 1000) > 1000:
                raise GlueRuleBroken("GetPartitions MaxResults above 1000")
        if name == "UpdateTable" and not params.get("VersionId"):
            raise GlueRuleBroken("UpdateTable without the VersionId read before it")

    def _check_key_count(self, name: str, params: dict[str, Any]) -> None:
        """Glue refuses partitions whose values do not match the table's partition keys
        ("The number of partition keys do not match the number of partition values")."""
        table = raw_client(self.endpoint).get_table(
            DatabaseName=params["DatabaseName"], Name=params["TableName"]
        )["Table"]
        keys = len(table.get("PartitionKeys") or [])
        key, _ = LIMITS[name]
        for item in params.get(key, []):
            values = item.get("Values") or item.get("PartitionValueList") or []
            if len(values) != keys:
                raise GlueRuleBroken(
                    f"{name} on {params['TableName']}: {len(values)} values for {keys} keys"
                )

    def _before(self, model: Any, context: dict[str, Any], **_: Any) -> Any:
        call = context.get("rules_call")
        if call is not None and self.failing[call] > 0:
            self.failing[call] -= 1
            error = {
                "Error": {"Code": "InternalServiceException", "Message": "injected failure"},
                "ResponseMetadata": {"HTTPStatusCode": 500},
            }
            return _Status(500), error
        if model.name != "UpdateTable":
            return None
        params = context["rules_params"]
        if self.before_update is not None:
            self.before_update(params)
        current = raw_client(self.endpoint).get_table(
            DatabaseName=params["DatabaseName"], Name=params["TableInput"]["Name"]
        )["Table"]["VersionId"]
        if params["VersionId"] == current:
            return None
        error = {
            "Error": {
                "Code": "ConcurrentModificationException",
                "Message": f"Update table failed due to concurrent modifications "
                f"(version {params['VersionId']} is not {current}).",
            },
            "ResponseMetadata": {"HTTPStatusCode": 400},
        }
        return _Status(), error

    def _after(self, parsed: dict[str, Any], model: Any, context: dict[str, Any], **_: Any) -> None:
        params = context.get("rules_params", {})
        if model.name == "GetPartitions" and "Partitions" in parsed:
            found = parsed["Partitions"]
            segment = params.get("Segment")
            if segment:
                total, number = segment["TotalSegments"], segment["SegmentNumber"]
                found = [p for p in found if _segment_of(p["Values"], total) == number]
            start = int(params.get("NextToken") or 0)
            size = min(self.page, params.get("MaxResults", 1000))
            parsed["Partitions"] = found[start : start + size]
            parsed.pop("NextToken", None)
            if start + size < len(found):
                parsed["NextToken"] = str(start + size)
        if model.name == "BatchGetPartition" and parsed.get("Partitions"):
            kept, left = [], []
            for i, partition in enumerate(parsed["Partitions"]):
                key = json.dumps([params.get("TableName"), partition["Values"]])
                if i % 2 and key not in self.unprocessed_once:
                    self.unprocessed_once.add(key)
                    left.append({"Values": partition["Values"]})
                else:
                    kept.append(partition)
            parsed["Partitions"] = kept
            parsed["UnprocessedKeys"] = left


def install_rules(endpoint: str) -> tuple[GlueRules, Any]:
    """Rules on boto3's default session (every client created after this call has them)."""
    boto3.setup_default_session()
    session = boto3.DEFAULT_SESSION
    rules = GlueRules(endpoint)
    rules.install(session)
    return rules, session

"""Gather what a table's report shows from its inventory and the journal."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from lakeshift.follow.state import FollowState
from lakeshift.inspect.archived import skipped_archives
from lakeshift.inspect.model import TableInventory
from lakeshift.migrate.journal import BACKFILLED, VALIDATED, Journal, PartitionRecord
from lakeshift.report.files import report_dir, write_html
from lakeshift.report.html_report import PartitionRow, ReportData, render_html
from lakeshift.validate.model import STALE


def _status(record: PartitionRecord | None, fingerprint: str) -> str:
    """The journal status, except that a backfill of files since changed is ``stale``."""
    if record is None:
        return "planned"
    if record.status in (BACKFILLED, VALIDATED) and record.source_fingerprint != fingerprint:
        return STALE
    return record.status


def _validation(check: dict[str, Any] | None, fingerprint: str) -> str | None:
    """The last validation's status, or ``stale`` once the source changed since it was taken."""
    if check is None:
        return None
    return STALE if check["source_fingerprint"] != fingerprint else str(check["status"])


def collect_report(inventory: TableInventory, journal: Journal) -> ReportData:
    name = inventory.qualified_name
    records = journal.partitions(name)
    validations = journal.validations(name)
    route = journal.route(name)
    switched = set(route["switched"]) if route else set()
    rows = []
    left_out = {
        s.partition: f"{s.objects} archived object(s) left out"
        + (f" ({s.rows:,} rows)" if s.rows is not None else "")
        + f": {', '.join(s.paths)}"
        for s in skipped_archives(inventory.partitions)
    }
    for p in inventory.partitions:
        record, check = records.get(p.name), validations.get(p.name)
        target = (check or {}).get("target_checksum") or {}
        rows.append(
            PartitionRow(
                name=p.name,
                source_rows=p.rows,
                target_rows=int(target["rows"]) if "rows" in target else None,
                status=_status(record, p.fingerprint),
                validation=_validation(check, p.fingerprint),
                served_from="lake" if p.name in switched else "hive",
                bytes=p.bytes,
                detail=((record.error or "") if record else "") or left_out.get(p.name, ""),
            )
        )
    anomalies = Counter((a.code, a.severity) for a in inventory.all_anomalies)
    target = (route or {}).get("target") or next((r.target for r in records.values()), None)
    runs = [r for r in journal.runs(name) if r.get("command") == "migrate"]
    formats = [r["format"] for r in runs if r.get("format") and r.get("target") == target]
    followed = FollowState(journal.path)
    try:
        follow = followed.summary(name)
    finally:
        followed.close()
    return ReportData(
        source=name,
        target=target,
        generated_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        partitions=rows,
        anomalies=[(code, severity, n) for (code, severity), n in sorted(anomalies.items())],
        runs=runs,
        format=formats[-1] if formats else None,
        cutover=(route or {}).get("cutover"),
        legacy=(route or {}).get("legacy"),
        follow=follow,
        skipped=inventory.skipped_kinds(),
    )


def write_table_report(home: Path, inventory: TableInventory, journal: Journal) -> Path:
    """Render the table's HTML report from its inventory and the journal; returns its path."""
    data = collect_report(inventory, journal)
    profile = report_dir(home, inventory.qualified_name) / "profile-latest.json"
    if profile.is_file():
        data = replace(data, profile=json.loads(profile.read_text()))
    return write_html(home, inventory.qualified_name, render_html(data))

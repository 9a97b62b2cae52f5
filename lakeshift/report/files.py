"""Write report files under ``HOME/reports/DB.TABLE/``, keeping a ``latest`` copy of each kind."""

from __future__ import annotations

import json
import time
from pathlib import Path
from typing import Any


def report_dir(home: Path, table: str) -> Path:
    path = home / "reports" / table
    path.mkdir(parents=True, exist_ok=True)
    return path


def write_report(
    home: Path, table: str, kind: str, payload: dict[str, Any], markdown: str
) -> tuple[Path, Path]:
    """Write ``kind-<time>.json``/``.md`` and ``kind-latest.*``; returns the JSON and MD paths."""
    directory = report_dir(home, table)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    text = json.dumps(payload, indent=1, ensure_ascii=False, default=str)
    paths = []
    for suffix, content in ((".json", text), (".md", markdown)):
        path = directory / f"{kind}-{stamp}{suffix}"
        path.write_text(content)
        (directory / f"{kind}-latest{suffix}").write_text(content)
        paths.append(path)
    return paths[0], paths[1]


def write_html(home: Path, table: str, text: str) -> Path:
    """Write ``report-<time>.html`` and ``report-latest.html``; returns the timestamped path."""
    directory = report_dir(home, table)
    path = directory / f"report-{time.strftime('%Y%m%dT%H%M%S')}.html"
    path.write_text(text)
    (directory / "report-latest.html").write_text(text)
    return path

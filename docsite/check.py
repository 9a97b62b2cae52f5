"""Read a built site back and name what the code defines that its reference lacks.

The check compares the *built* HTML of the generated pages with the code as it is when the
check runs: a command, option, setting, exit code or anomaly code added since the build (or
left out by a faulty page) is reported missing.
"""

from __future__ import annotations

import dataclasses
from html.parser import HTMLParser
from pathlib import Path

from docsite import anomaly_codes, cli_reference, exit_codes, settings_reference


@dataclasses.dataclass
class Section:
    """The text under one heading of a page, and its table rows (cells' text)."""

    anchor: str
    text: list[str] = dataclasses.field(default_factory=list)
    rows: list[list[str]] = dataclasses.field(default_factory=list)


class _Page(HTMLParser):
    """Sections of an article by heading id (``h1``..``h3``), each with its table rows."""

    def __init__(self) -> None:
        super().__init__()
        self.sections: dict[str, Section] = {"": Section("")}
        self._current = self.sections[""]
        self._in_article = False
        self._row: list[str] | None = None
        self._cell: list[str] | None = None
        self._skip = 0  # inside a heading's permalink

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        values = dict(attrs)
        if tag == "article":
            self._in_article = True
        if not self._in_article:
            return
        if tag in ("h1", "h2", "h3") and values.get("id"):
            anchor = values["id"] or ""
            self._current = self.sections.setdefault(anchor, Section(anchor))
        elif tag == "tr":
            self._row = []
        elif tag in ("td", "th") and self._row is not None:
            self._cell = []
        elif tag == "a" and "headerlink" in (values.get("class") or ""):
            self._skip += 1

    def handle_endtag(self, tag: str) -> None:
        if tag == "article":
            self._in_article = False
        elif tag in ("td", "th") and self._row is not None and self._cell is not None:
            self._row.append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tr" and self._row is not None:
            self._current.rows.append(self._row)
            self._row = None
        elif tag == "a" and self._skip:
            self._skip -= 1

    def handle_data(self, data: str) -> None:
        if not self._in_article or self._skip:
            return
        self._current.text.append(data)
        if self._cell is not None:
            self._cell.append(data)


def read_page(path: Path) -> dict[str, Section]:
    """The sections of one built page."""
    parser = _Page()
    parser.feed(path.read_text(encoding="utf-8"))
    return parser.sections


def _built(site: Path, page: str) -> dict[str, Section] | None:
    html = site / page.replace(".md", ".html")
    return read_page(html) if html.is_file() else None


def _rows(sections: dict[str, Section]) -> list[list[str]]:
    return [row for s in sections.values() for row in s.rows]


def missing_commands(site: Path) -> list[str]:
    """Commands without their section, and parameters without their row in it."""
    page = _built(site, "reference/generated/cli.md")
    if page is None:
        return ["the page reference/generated/cli.md"]
    missing = []
    for command in cli_reference.commands():
        section = page.get(command.anchor)
        if section is None:
            missing.append(f"command {command.name}")
            continue
        firsts = [row[0].split() for row in section.rows if row]
        for parameter in command.parameters:
            if not any(set(parameter.names) <= set(first) for first in firsts):
                missing.append(f"{command.name}: {' '.join(parameter.names)}")
    return missing


def missing_settings(site: Path) -> list[str]:
    """Settings without a row naming their environment variable and default."""
    page = _built(site, "reference/generated/settings.md")
    if page is None:
        return ["the page reference/generated/settings.md"]
    rows = {row[0]: row for row in _rows(page) if len(row) >= 3}
    missing = []
    for setting in settings_reference.settings():
        row = rows.get(setting.key)
        if row is None or row[1] != setting.env or row[2] != setting.default:
            missing.append(f"setting {setting.key} ({setting.env}, default {setting.default})")
    return missing


def missing_exit_codes(site: Path) -> list[str]:
    """Exit codes without a row naming their constant."""
    page = _built(site, "reference/generated/exit-codes.md")
    if page is None:
        return ["the page reference/generated/exit-codes.md"]
    rows = {(row[0], row[1]) for row in _rows(page) if len(row) >= 2}
    return [
        f"exit code {e.number} ({e.constant})"
        for e in exit_codes.exit_codes()
        if (str(e.number), e.constant) not in rows
    ]


def missing_anomalies(site: Path) -> list[str]:
    """Anomaly codes without a row in the summary and a section of their own."""
    page = _built(site, "reference/generated/anomalies.md")
    if page is None:
        return ["the page reference/generated/anomalies.md"]
    listed = {row[0] for row in _rows(page) if row}
    return [
        f"anomaly {a.code}"
        for a in anomaly_codes.anomaly_codes()
        if a.code not in listed or f"anomaly-{a.code}" not in page
    ]


def missing(site: Path) -> list[str]:
    """Everything the code defines that the built reference under ``site`` lacks."""
    return [
        *missing_commands(site),
        *missing_settings(site),
        *missing_exit_codes(site),
        *missing_anomalies(site),
    ]

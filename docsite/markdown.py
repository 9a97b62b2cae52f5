"""Small Markdown helpers shared by the generated pages."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

_SPECIAL = re.compile(r"([\\|*\[\]])")
_ENTITIES = {"<": "&lt;", ">": "&gt;"}  # Markdown has no backslash escape for "<"


def cell(text: str) -> str:
    """``text`` safe inside one Markdown table cell (one line, no table or HTML syntax; code
    spans in backquotes still render)."""
    flat = " ".join(text.split()).replace("``", "`")  # docstrings' reST literals
    parts = flat.split("`")
    # Outside code spans escape Markdown's specials; inside, only the table's pipe matters.
    return "`".join(
        _escape(part) if i % 2 == 0 else part.replace("|", "\\|") for i, part in enumerate(parts)
    )


def _escape(text: str) -> str:
    text = _SPECIAL.sub(r"\\\1", text)
    return re.sub("[<>]", lambda m: _ENTITIES[m.group(0)], text)


def code(text: str) -> str:
    """``text`` as one code span."""
    fence = "``" if "`" in text else "`"
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    """A Markdown table; cells are taken as already escaped."""
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return lines


def slug(*parts: str) -> str:
    """An explicit heading id, stable whatever the heading's text."""
    return "-".join(re.sub(r"[^a-z0-9]+", "-", p.lower()).strip("-") for p in parts if p)


_CODE_SPAN = re.compile(r"(`+)(.+?)\1")


def table_code_pipes(markdown: str) -> str:
    """GitHub's tables want ``\\|`` for a pipe even inside a code span (and show ``|``);
    Python-Markdown's show the backslash. Table rows' code spans lose it, so ``docs/`` reads
    right in both (fenced code blocks are left alone)."""
    out, fenced = [], False
    for line in markdown.split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
        if not fenced and line.lstrip().startswith("|") and "\\|" in line:
            line = _CODE_SPAN.sub(lambda m: m.group(0).replace("\\|", "|"), line)
        out.append(line)
    return "\n".join(out)

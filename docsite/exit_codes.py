"""Every exit code, from ``lakeshift.errors``: the ``EXIT_*`` constants, what the module's
docstring says each means, and the error classes that carry it (with their docstrings)."""

from __future__ import annotations

import inspect
import re
from dataclasses import dataclass
from types import ModuleType

from docsite.markdown import cell, code, table


@dataclass(frozen=True)
class ExitCode:
    """One process exit code."""

    number: int
    constant: str
    meaning: str  # from the module docstring's table ("" when it has no row)
    errors: tuple[tuple[str, str], ...]  # (class name, first docstring line) carrying it


def _errors_module() -> ModuleType:
    import lakeshift.cli.main  # noqa: F401 - loads every module, so every error class
    from lakeshift import errors

    return errors


def docstring_meanings(doc: str) -> dict[int, str]:
    """The module docstring's table (reST simple table: code, then meaning, continued on
    indented lines)."""
    found: dict[int, str] = {}
    current: int | None = None
    for line in doc.splitlines():
        row = re.match(r"^(\d+)\s+(.*)$", line)
        if row:
            current = int(row.group(1))
            found[current] = row.group(2).strip()
        elif current is not None and re.match(r"^\s+\S", line):
            found[current] += " " + line.strip()
        else:
            current = None
    return found


def error_classes() -> list[type]:
    """``LakeshiftError`` and every subclass, base first, then by name."""
    errors = _errors_module()
    seen: list[type] = []
    pending = [errors.LakeshiftError]
    while pending:
        cls = pending.pop(0)
        if cls not in seen:
            seen.append(cls)
            pending += sorted(cls.__subclasses__(), key=lambda c: c.__name__)
    return seen


def exit_codes() -> list[ExitCode]:
    """Every ``EXIT_*`` constant of ``lakeshift.errors``, by number."""
    errors = _errors_module()
    meanings = docstring_meanings(inspect.getdoc(errors) or "")
    classes = error_classes()
    found = []
    for name, value in sorted(vars(errors).items(), key=lambda kv: str(kv[1])):
        if not name.startswith("EXIT_") or not isinstance(value, int):
            continue
        carriers = tuple(
            (f"{cls.__module__}.{cls.__name__}", (inspect.getdoc(cls) or "").split("\n\n")[0])
            for cls in classes
            if getattr(cls, "exit_code", None) == value
        )
        found.append(ExitCode(value, name, meanings.get(value, ""), carriers))
    return sorted(found, key=lambda e: e.number)


def render(found: list[ExitCode] | None = None) -> str:
    """The exit codes reference page."""
    found = exit_codes() if found is None else found
    lines = [
        "# Exit codes",
        "",
        "Generated from `lakeshift.errors` when the site is built (`docsite/exit_codes.py`): "
        "each `EXIT_*` constant, its meaning from the module's docstring, and every error "
        "class that exits with it (a subclass exits with its base's code unless it sets its "
        "own). The cases behind each code, tested one by one: "
        "[Exit codes](../exit-codes.md) and [Bad inputs](../bad-inputs.md).",
        "",
    ]
    lines += table(
        ["code", "constant", "meaning", "raised as"],
        (
            [
                str(e.number),
                code(e.constant),
                cell(e.meaning),
                "<br>".join(f"{code(name)}: {cell(doc)}" for name, doc in e.errors),
            ]
            for e in found
        ),
    )
    return "\n".join(lines) + "\n"

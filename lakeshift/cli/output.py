"""One output interface, two implementations: rich terminal text, or JSON for scripts."""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import asdict, is_dataclass
from datetime import date, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
from rich.table import Table

ProgressCallback = Callable[[int, int, str], None]

#: Width of output that is not a terminal (a pipe, a file, a CI log) when COLUMNS is not set:
#: wide enough that tables keep their natural width instead of folding at rich's 80 columns.
PIPED_WIDTH = 200

_STYLE_WORDS = "bold|dim|italic|underline|red|green|yellow|blue|magenta|cyan|white"
#: The style tags lakeshift's own messages use: ``[bold]``, ``[bold red]``, ``[/bold]``, ``[/]``.
_STYLE_TAG = re.compile(rf"\[/?(?:(?:{_STYLE_WORDS})(?: (?:{_STYLE_WORDS}))*)?\]")


def safe_markup(text: str) -> str:
    """``text`` with every bracketed span escaped except lakeshift's own style tags.

    Messages mix those tags with names, paths and error texts; rich would take ``[bulk]`` or
    ``[dt=1]`` in the latter for markup and drop it. Only tags made of the style words above
    (``[dim]``, ``[bold red]``, ``[/]``) keep their meaning.
    """
    parts: list[str] = []
    last = 0
    for tag in _STYLE_TAG.finditer(text):
        parts += [escape(text[last : tag.start()]), tag.group(0)]
        last = tag.end()
    parts.append(escape(text[last:]))
    return "".join(parts)


def _console(*, stderr: bool) -> Console:
    console = Console(stderr=stderr, highlight=False)
    if not console.is_terminal and not os.environ.get("COLUMNS", "").isdigit():
        console.width = PIPED_WIDTH
    return console


def to_jsonable(value: Any) -> Any:
    """Records (dataclasses), paths, decimals and dates as JSON-friendly values."""
    if hasattr(value, "to_json"):
        return to_jsonable(value.to_json())
    if is_dataclass(value) and not isinstance(value, type):
        return to_jsonable(asdict(value))
    if isinstance(value, dict):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, list | tuple | set | frozenset):
        return [to_jsonable(v) for v in value]
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, Decimal):
        return str(value)
    if isinstance(value, datetime | date):
        return value.isoformat()
    return value


class Output:
    """What every command renders through."""

    json_mode = False

    def __init__(self) -> None:
        self.console = _console(stderr=False)
        self.err = _console(stderr=True)

    @property
    def _piped(self) -> bool:
        return not self.err.is_terminal

    def message(self, text: str) -> None:
        """Print ``text``; only lakeshift's style tags in it are markup (see ``safe_markup``)."""
        # soft_wrap: long paths and names stay on one line, so they can be copied.
        self.console.print(safe_markup(text), soft_wrap=True)

    def table(self, title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        if not rows:
            return
        cells = [[safe_markup("" if v is None else str(v)) for v in row] for row in rows]
        table = Table(title=escape(title), title_justify="left", show_lines=False)
        for index, column in enumerate(columns):
            # The first column names the row (a table, a partition): never folded. The others
            # wrap between words; rich folds a word only when the width leaves no other way.
            table.add_column(escape(column), overflow="fold", no_wrap=index == 0)
        for row in cells:
            table.add_row(*row)
        self.console.print(table)

    def result(self, payload: Any) -> None:
        """The command's machine-readable result (printed only in JSON mode)."""

    def flush(self) -> None:
        """Print what is pending (JSON mode prints its one document when the command ends)."""

    def error(
        self, text: str, *, code: int, log_file: Path | None, hint: str | None = None
    ) -> None:
        # Error texts are plain: names, paths and values in them are never markup.
        self.err.print(f"[bold red]error:[/] {escape(text)}", highlight=False, soft_wrap=True)
        if log_file is not None:
            self.err.print(f"[dim]log: {escape(str(log_file))}[/]")

    @contextmanager
    def progress(self, description: str, total: int) -> Iterator[ProgressCallback]:
        columns = (
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        # Bars only on a terminal: in a pipe or a CI log they are noise (and a stray newline).
        with Progress(*columns, console=self.err, transient=True, disable=self._piped) as bar:
            task = bar.add_task(description, total=total)

            def advance(done: int, total_now: int, note: str = "") -> None:
                bar.update(
                    task,
                    completed=done,
                    total=total_now,
                    description=f"{description} {note}".strip(),
                )

            yield advance

    @contextmanager
    def task_board(self, keys: Sequence[str]) -> Iterator[Callable[[str, str, int, int], None]]:
        """One progress line per key (a bulk run's tables); the callback is thread-safe."""
        columns = (
            TextColumn("{task.fields[key]}", style="bold", markup=False),
            TextColumn("{task.description}", markup=False),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
        )
        with Progress(*columns, console=self.err, transient=True, disable=self._piped) as bar:
            tasks = {key: bar.add_task("waiting", total=None, key=key) for key in keys}

            def update(key: str, step: str, done: int, total: int) -> None:
                bar.update(tasks[key], description=step, completed=done, total=total or None)

            yield update


class JsonOutput(Output):
    """Prints exactly one JSON document on stdout; nothing else.

    The result is held until the command ends: a command that fails after producing a result
    (a partial migration, a validation mismatch) prints that result with an ``error`` key.
    """

    json_mode = True

    def __init__(self) -> None:
        super().__init__()
        self._pending: Any = None

    def message(self, text: str) -> None:
        return

    def table(self, title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
        return

    def result(self, payload: Any) -> None:
        self._pending = to_jsonable(payload)

    def flush(self) -> None:
        if self._pending is not None:
            self._write(self._pending)
            self._pending = None

    def error(
        self, text: str, *, code: int, log_file: Path | None, hint: str | None = None
    ) -> None:
        pending, self._pending = self._pending, None
        if pending is None:
            document: dict[str, Any] = {}
        elif isinstance(pending, dict):
            document = dict(pending)
        else:
            document = {"result": pending}
        document["error"] = {
            "message": text,  # the hint included, as the terminal shows it
            "hint": hint,
            "exit_code": code,
            "log_file": str(log_file) if log_file else None,
        }
        self._write(document)

    @staticmethod
    def _write(document: Any) -> None:
        sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")

    @contextmanager
    def progress(self, description: str, total: int) -> Iterator[ProgressCallback]:
        def ignore(done: int, total_now: int, note: str = "") -> None:
            return None

        yield ignore

    @contextmanager
    def task_board(self, keys: Sequence[str]) -> Iterator[Callable[[str, str, int, int], None]]:
        def ignore(key: str, step: str, done: int, total: int) -> None:
            return None

        yield ignore


def make_output(kind: str) -> Output:
    return JsonOutput() if kind == "json" else Output()

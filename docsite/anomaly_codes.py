"""Every anomaly code, read from the source of the modules that raise them.

An anomaly is built in one of three ways, and each is found in the syntax tree of every module
under ``lakeshift/`` (so a code moved to another module is still found):

* ``Anomaly(code=..., severity=..., message=..., action=..., partition=...)``;
* ``_anomaly(p, CODE, SEVERITY, message, action, ...)``, a partition's helper;
* a table of codes a loop raises: a dict ``{CODE: (SEVERITY, message, action)}``, or a tuple of
  tuples ``((CODE, ...), ...)`` whose loop variable is the code of an ``_anomaly`` call.

A code is a string literal or a module constant holding one. A call whose code cannot be
resolved raises :class:`UnresolvedCode`, so a new way of raising anomalies fails the build
instead of leaving its codes out. Messages and actions are the source's text, each value
interpolated at run time shown as ``…``.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from docsite.markdown import cell, code, table

CODE_SHAPE = re.compile(r"^[a-z][a-z0-9]*(-[a-z0-9]+)+$|^[a-z]+$")
SEVERITIES = {"SEVERITY_INFO": "info", "SEVERITY_WARNING": "warning", "SEVERITY_ERROR": "error"}
HOLE = "…"
#: The partition-level helper: ``_anomaly(p, code, severity, message, action, **details)``.
HELPER = "_anomaly"


class UnresolvedCode(Exception):
    """An anomaly is built with a code the extractor cannot name."""


@dataclass(frozen=True)
class Site:
    """One place in the source that raises an anomaly code."""

    module: str  # lakeshift/inspect/anomalies.py
    line: int
    severity: str
    scope: str  # "partition" or "table"
    message: str
    action: str


@dataclass
class AnomalyCode:
    """A code and every place that raises it."""

    code: str
    sites: list[Site] = field(default_factory=list)

    @property
    def severities(self) -> list[str]:
        order = ["info", "warning", "error"]
        seen = {s for site in self.sites for s in site.severity.split(" / ")}
        return [s for s in order if s in seen]

    @property
    def scopes(self) -> list[str]:
        return sorted({site.scope for site in self.sites})


def package_root() -> Path:
    import lakeshift

    return Path(lakeshift.__file__).resolve().parent


def source_files() -> list[Path]:
    """Every module of the ``lakeshift`` package."""
    return sorted(package_root().rglob("*.py"))


def _constants(tree: ast.Module) -> dict[str, str]:
    """Module-level ``NAME = "text"`` (and ``NAME = "a" "b"``) assignments."""
    found: dict[str, str] = {}
    for node in tree.body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if isinstance(target, ast.Name) and value is not None:
            text = _literal(value, {})
            if text is not None:
                found[target.id] = text
    return found


def _literal(node: ast.AST, constants: dict[str, str]) -> str | None:
    """The text of a string expression with nothing interpolated, else None."""
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.Name) and node.id in constants:
        return constants[node.id]
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        left, right = _literal(node.left, constants), _literal(node.right, constants)
        return None if left is None or right is None else left + right
    return None


def text_of(node: ast.AST | None, constants: dict[str, str]) -> str:
    """The source's text of a message expression, ``…`` for each value filled in at run
    time; a conditional shows both texts."""
    if node is None:
        return ""
    literal = _literal(node, constants)
    if literal is not None:
        return literal
    if isinstance(node, ast.JoinedStr):
        return "".join(str(v.value) if isinstance(v, ast.Constant) else HOLE for v in node.values)
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
        return text_of(node.left, constants) + text_of(node.right, constants)
    if isinstance(node, ast.IfExp):
        return f"{text_of(node.body, constants)} (otherwise: {text_of(node.orelse, constants)})"
    return HOLE


def _severity(node: ast.AST | None) -> str:
    if isinstance(node, ast.Name) and node.id in SEVERITIES:
        return SEVERITIES[node.id]
    if isinstance(node, ast.IfExp):
        return f"{_severity(node.body)} / {_severity(node.orelse)}"
    return "?"


def _called(node: ast.Call) -> str:
    func = node.func
    return func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")


def _code(node: ast.AST, constants: dict[str, str]) -> str | None:
    text = _literal(node, constants)
    return text if text is not None and CODE_SHAPE.match(text) else None


def _code_tables(
    function: ast.AST, constants: dict[str, str]
) -> Iterator[tuple[ast.expr, str, ast.expr | None, ast.expr | None, ast.expr | None]]:
    """``{CODE: (SEVERITY, message, action)}`` dicts: (node, code, severity, message, action)."""
    for node in ast.walk(function):
        if not isinstance(node, ast.Dict) or not node.values:
            continue
        rows = [v for v in node.values if isinstance(v, ast.Tuple) and v.elts]
        if len(rows) != len(node.values) or not all(
            isinstance(r.elts[0], ast.Name) and r.elts[0].id in SEVERITIES for r in rows
        ):
            continue
        for key, row in zip(node.keys, rows):
            name = _code(key, constants) if key is not None else None
            if name is None:
                raise UnresolvedCode(f"a code table's key at line {node.lineno}")
            parts: list[ast.expr | None] = [*row.elts, None, None][:3]
            yield row, name, parts[0], parts[1], parts[2]


def _loop_codes(
    function: ast.AST, call: ast.Call, variable: str, constants: dict[str, str]
) -> list[str] | None:
    """The codes of the ``for variable, ... in TABLE`` loop around ``call``, TABLE a tuple of
    tuples bound in the same function; None when that loop iterates something else."""
    tables: dict[str, ast.Tuple] = {}
    for node in ast.walk(function):
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Tuple):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    tables[target.id] = node.value
    for node in ast.walk(function):
        if not isinstance(node, ast.For) or not isinstance(node.target, ast.Tuple):
            continue
        first = node.target.elts[0] if node.target.elts else None
        if not (isinstance(first, ast.Name) and first.id == variable):
            continue
        if not any(inner is call for inner in ast.walk(node)):
            continue
        source = node.iter
        if isinstance(source, ast.Name) and source.id in tables:
            codes = [
                _code(row.elts[0], constants)
                for row in tables[source.id].elts
                if isinstance(row, ast.Tuple) and row.elts
            ]
            if all(codes):
                return [c for c in codes if c]
        return None
    return None


def _bound(function: ast.AST, node: ast.AST | None) -> ast.AST | None:
    """A local name's value where the function binds it once (``severity = ...``)."""
    if not isinstance(node, ast.Name):
        return node
    values = [
        n.value
        for n in ast.walk(function)
        if isinstance(n, ast.Assign)
        and any(isinstance(t, ast.Name) and t.id == node.id for t in n.targets)
    ]
    return values[0] if len(values) == 1 else node


def _sites_in(path: Path, relative: str) -> Iterator[tuple[str, Site]]:
    source = path.read_text()
    if not any(mark in source for mark in ("Anomaly(", f"{HELPER}(", "SEVERITY_")):
        return  # raises none (parsing only the modules that may keeps the check fast)
    tree = ast.parse(source, filename=str(path))
    constants = _constants(tree)
    functions = [n for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.Module))]
    seen_tables: set[int] = set()
    for function in functions:
        tables = list(_code_tables(function, constants)) if function is not tree else []
        for row, name, severity, message, action in tables:
            if id(row) in seen_tables:
                continue
            seen_tables.add(id(row))
            yield (
                name,
                Site(
                    relative,
                    row.lineno,
                    _severity(severity),
                    "partition",
                    text_of(message, constants),
                    text_of(action, constants),
                ),
            )
        if function is tree:
            continue
        for node in ast.walk(function):
            if not isinstance(node, ast.Call):
                continue
            called = _called(node)
            if called == "Anomaly":
                keywords = {k.arg: k.value for k in node.keywords if k.arg}
                if "code" not in keywords:
                    continue  # rebuilt from JSON (``Anomaly(**raw)``), not raised
                args: list[ast.expr | None] = [
                    keywords["code"],
                    keywords.get("severity"),
                    keywords.get("message"),
                    keywords.get("action"),
                ]
                partition = keywords.get("partition")
                table_level = partition is None or (
                    isinstance(partition, ast.Constant) and partition.value is None
                )
                scope = "table" if table_level else "partition"
            elif called == HELPER and len(node.args) >= 5:
                args = list(node.args[1:5])
                scope = "partition"
            else:
                continue
            if isinstance(function, ast.FunctionDef) and function.name == HELPER:
                continue  # the helper passes on its callers' codes, found at each call
            first = args[0]
            if first is None:
                continue
            codes = [c] if (c := _code(first, constants)) else None
            if codes is None and isinstance(first, ast.Name):
                codes = _loop_codes(function, node, first.id, constants)
                if codes is None and tables:
                    continue  # the code comes from this function's code table (above)
            if not codes:
                raise UnresolvedCode(
                    f"{relative}:{node.lineno}: an anomaly whose code is not a literal, a "
                    "module constant or a code table's entry"
                )
            for name in codes:
                yield (
                    name,
                    Site(
                        relative,
                        node.lineno,
                        _severity(_bound(function, args[1])),
                        scope,
                        text_of(args[2], constants),
                        text_of(args[3], constants),
                    ),
                )


def anomaly_codes(files: Iterable[Path] | None = None) -> list[AnomalyCode]:
    """Every anomaly code raised in ``files`` (default: the whole package), by code."""
    root = package_root().parent
    found: dict[str, AnomalyCode] = {}
    for path in source_files() if files is None else files:
        try:
            relative = path.resolve().relative_to(root).as_posix()
        except ValueError:
            relative = path.name
        for name, site in _sites_in(path, relative):
            sites = found.setdefault(name, AnomalyCode(name)).sites
            if site not in sites:  # a nested function is walked with its parent too
                sites.append(site)
    return [found[k] for k in sorted(found)]


def render(found: list[AnomalyCode] | None = None) -> str:
    """The anomaly codes reference page."""
    found = anomaly_codes() if found is None else found
    lines = [
        "# Anomaly codes",
        "",
        "Generated from the source when the site is built (`docsite/anomaly_codes.py` reads "
        "every module that raises an anomaly): each code `inspect` can report, its severity, "
        "whether it concerns one partition or the whole table, and the message and action it "
        f"prints, as the source words them ({HOLE} where a value is filled in). `error` means "
        "the partition is not migrated until fixed. What each code means in practice: "
        "[Anomalies](../anomalies.md).",
        "",
    ]
    lines += table(
        ["code", "severity", "scope", "raised in"],
        (
            [
                f"[{code(a.code)}](#{_anchor(a.code)})",
                " / ".join(a.severities),
                " / ".join(a.scopes),
                "<br>".join(sorted({code(s.module) for s in a.sites})),
            ]
            for a in found
        ),
    )
    for a in found:
        lines += ["", f"## {a.code} {{#{_anchor(a.code)}}}", ""]
        for site in a.sites:
            lines += [
                f"- **{site.severity}**, {site.scope} level (`{site.module}`, line {site.line})",
                f"    - message: {cell(site.message)}",
                f"    - action: {cell(site.action)}",
            ]
    return "\n".join(lines) + "\n"


def _anchor(name: str) -> str:
    return "anomaly-" + name

"""Every command and option, from the click definitions (``lakeshift.cli.main.cli``, walked
recursively): the ``--help`` text each command prints, and one row per parameter."""

from __future__ import annotations

from dataclasses import dataclass

import click

from docsite.markdown import cell, code, slug, table

#: Columns of the ``--help`` texts shown (fixed, so a build does not depend on the terminal).
WIDTH = 100


@dataclass(frozen=True)
class Parameter:
    """One option or argument as click defines it."""

    names: tuple[str, ...]  # ``--format`` (and ``-f``), or an argument's metavar (``TABLE``)
    kind: str  # "option" or "argument"
    value: str  # what it takes: a type, choices, a range, or "flag"
    default: str  # "" when there is none to show
    required: bool
    help: str


@dataclass(frozen=True)
class Command:
    """One command or group: its path under ``lakeshift``, its help and parameters."""

    path: tuple[str, ...]  # () for the ``lakeshift`` group itself
    is_group: bool
    summary: str
    help_text: str  # exactly what ``lakeshift PATH --help`` prints
    parameters: tuple[Parameter, ...]

    @property
    def name(self) -> str:
        return " ".join(("lakeshift", *self.path))

    @property
    def anchor(self) -> str:
        return slug("cmd", "lakeshift", *self.path)


def root() -> click.Group:
    """The ``lakeshift`` group with every command registered."""
    from lakeshift.cli.main import cli

    return cli


def commands(group: click.Group | None = None) -> list[Command]:
    """``group`` (default: ``lakeshift``) and every command below it, depth first, each
    group's commands in name order."""
    group = group or root()
    found: list[Command] = []

    def walk(command: click.Command, path: tuple[str, ...], parent: click.Context | None) -> None:
        ctx = click.Context(
            command,
            info_name=path[-1] if path else "lakeshift",
            parent=parent,
            terminal_width=WIDTH,
            max_content_width=WIDTH,
        )
        found.append(_describe(command, path, ctx))
        if isinstance(command, click.Group):
            for name in sorted(command.commands):
                walk(command.commands[name], (*path, name), ctx)

    walk(group, (), None)
    return found


def _describe(command: click.Command, path: tuple[str, ...], ctx: click.Context) -> Command:
    return Command(
        path=path,
        is_group=isinstance(command, click.Group),
        summary=command.get_short_help_str(limit=200),
        help_text=command.get_help(ctx),
        parameters=tuple(_parameter(p, ctx) for p in command.params),
    )


def parameter_names(param: click.Parameter, ctx: click.Context) -> tuple[str, ...]:
    """How the reference names a parameter: an option's flags, an argument's metavar."""
    if isinstance(param, click.Option):
        return (*param.opts, *param.secondary_opts)
    return (param.make_metavar(ctx),)


def _parameter(param: click.Parameter, ctx: click.Context) -> Parameter:
    is_option = isinstance(param, click.Option)
    flag = isinstance(param, click.Option) and param.is_flag
    default = param.default
    shown = (
        ""
        if default is None or callable(default) or flag or default == ()
        else (",".join(map(str, default)) if isinstance(default, (tuple, list)) else str(default))
    )
    if isinstance(param.type, click.Choice):
        value = "|".join(map(str, param.type.choices))
    elif flag:
        value = "flag"
    else:
        value = _describe_type(param.type)
    if getattr(param, "multiple", False):
        value += ", repeatable"
    return Parameter(
        names=parameter_names(param, ctx),
        kind="option" if is_option else "argument",
        value=value,
        default=shown,
        required=param.required,
        help=getattr(param, "help", None) or "",
    )


def _describe_type(kind: click.ParamType) -> str:
    """A type by name; a range as its bounds (``integer 1<=x<=100000``)."""
    if isinstance(kind, (click.IntRange, click.FloatRange)):
        low = "" if kind.min is None else f"{kind.min}{'<' if kind.min_open else '<='}"
        high = "" if kind.max is None else f"{'<' if kind.max_open else '<='}{kind.max}"
        return f"{kind.name} {low}x{high}"
    return kind.name


def render(found: list[Command] | None = None) -> str:
    """The CLI reference page."""
    found = commands() if found is None else found
    lines = [
        "# Commands and options",
        "",
        "Generated from the click definitions when the site is built (`docsite/cli_reference.py`"
        " walks the `lakeshift` group): every command, its `--help` as the command prints it, and "
        "every option and argument. Global options come before the command "
        "(`lakeshift [GLOBAL OPTIONS] COMMAND ...`). The guide to what each command does is "
        "[Commands](../commands.md).",
        "",
    ]
    lines += table(["command", "what it does"], ([_link(c), cell(c.summary)] for c in found))
    for command in found:
        level = "##" if len(command.path) <= 1 else "###"
        lines += ["", f"{level} {command.name} {{#{command.anchor}}}", ""]
        lines += ["```text", command.help_text, "```", ""]
        if not command.parameters:
            lines += ["No options of its own."]
            continue
        lines += table(
            ["parameter", "kind", "takes", "default", "help"],
            (
                [
                    " ".join(code(n) for n in p.names),
                    p.kind + (", required" if p.required and p.kind == "option" else ""),
                    cell(p.value),
                    code(p.default) if p.default else "",
                    cell(p.help),
                ]
                for p in command.parameters
            ),
        )
    return "\n".join(lines) + "\n"


def _link(command: Command) -> str:
    return f"[{command.name}](#{command.anchor})"

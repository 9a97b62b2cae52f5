"""Every command's --help carries examples, and every example names a real command."""

from __future__ import annotations

import shlex

import click
from click.testing import CliRunner

from lakeshift.cli.main import cli


def _commands(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    found = []
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found += _commands(command, (*path, name))
        else:
            found.append((*path, name))
    return found


def test_every_command_has_help_with_runnable_examples() -> None:
    commands = _commands(cli)
    assert ("bulk",) in commands and ("interactive",) in commands
    assert ("sample", "generate") in commands
    for path in commands:
        result = CliRunner().invoke(cli, [*path, "--help"])
        assert result.exit_code == 0, path
        assert "Example" in result.output, f"{' '.join(path)} --help has no example"
        examples = [
            line.strip()
            for line in result.output.split("Example", 1)[1].splitlines()
            if line.strip().startswith("lakeshift ")
        ]
        assert examples, path
        for example in examples:
            assert _command_words(example, len(path)) == path, f"{example!r} is not {path}"


def _command_words(example: str, count: int) -> tuple[str, ...]:
    """The command named by ``lakeshift [global options] COMMAND ...``."""
    takes_value = {
        opt for p in cli.params if isinstance(p, click.Option) and not p.is_flag for opt in p.opts
    }
    tokens = example.split()[1:]
    while tokens and tokens[0].startswith("-"):
        tokens = tokens[2:] if tokens[0] in takes_value else tokens[1:]
    return tuple(tokens[:count])


def _all_paths(group: click.Group, path: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command's path, groups (and the root) included: they show examples too."""
    found = [path]
    for name, command in group.commands.items():
        if isinstance(command, click.Group):
            found += _all_paths(command, (*path, name))
        else:
            found.append((*path, name))
    return found


def _example_lines(help_text: str) -> list[str]:
    """Each example's ``lakeshift ...`` part (after a pipe too), up to a redirection."""
    lines = []
    for line in help_text.split("Example", 1)[-1].splitlines():
        command = line.strip()
        if "| lakeshift " in command:
            command = command.split("| ", 1)[1]
        if command.startswith("lakeshift "):
            lines.append(command.split(" > ", 1)[0].split(" | ", 1)[0])
    return lines


def _parse(tokens: list[str]) -> tuple[click.Command, int]:
    """Parse ``tokens`` as click does before running them (options, choices, ranges).

    Returns the command named and the index of its first word among ``tokens``.
    """
    context = cli.make_context("lakeshift", list(tokens))
    command: click.Command = cli
    args = [*context._protected_args, *context.args]
    first = len(tokens) - len(args)
    while isinstance(command, click.Group) and args:
        _, found, args = command.resolve_command(context, args)
        assert found is not None
        command = found
        context = command.make_context(command.name or "", args, parent=context)
        args = [*context._protected_args, *context.args]
    return command, first


def test_help_examples_parse_with_global_options_before_the_command() -> None:
    """`lakeshift migrate T --output json` is refused by click, so no example may show it."""
    global_options = {opt for p in cli.params if isinstance(p, click.Option) for opt in p.opts}
    checked = 0
    for path in _all_paths(cli):
        help_text = CliRunner().invoke(cli, [*path, "--help"]).output
        for example in _example_lines(help_text):
            tokens = shlex.split(example)[1:]
            try:
                command, first = _parse(tokens)
            except click.UsageError as e:
                raise AssertionError(f"{example!r} is refused: {e.format_message()}") from e
            own = {opt for p in command.params for opt in p.opts}
            late = [t for t in tokens[first:] if t in global_options and t not in own]
            assert not late, f"{example!r}: {', '.join(late)} must come before the command"
            checked += 1
    assert checked > 40

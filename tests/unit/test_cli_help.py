"""Every command's --help carries examples, and every example names a real command."""

from __future__ import annotations

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

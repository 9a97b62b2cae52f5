"""Every setting, from ``lakeshift.config.Settings``: its key, the environment variable the
loader reads for it (``ENV_PREFIX`` + the key in capitals, as ``load_settings`` derives it), its
default, the global flag that sets it, and its description from the class's docstring."""

from __future__ import annotations

import dataclasses
import inspect
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import click

from docsite.markdown import cell, code, table

NOT_SET = "not set"


@dataclass(frozen=True)
class Setting:
    """One configuration key."""

    key: str
    env: str
    default: str
    type: str
    flag: str  # the global option that sets it, "" if none
    description: str


def settings_class() -> type:
    """``Settings`` as the config module holds it now (looked up on each call)."""
    from lakeshift import config

    return config.Settings


def env_var(key: str) -> str:
    """The environment variable ``load_settings`` reads for ``key``."""
    from lakeshift import config

    return config.ENV_PREFIX + key.upper()


def describe_default(value: Any) -> str:
    """A default as a user writes it in ``lakeshift.toml`` (sizes also in MiB)."""
    if value is None:
        return NOT_SET
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, dict):
        return "{}" if not value else ", ".join(f"{k}={v}" for k, v in value.items())
    if isinstance(value, int) and value >= 1024 * 1024 and value % (1024 * 1024) == 0:
        return f"{value} ({value // (1024 * 1024)} MiB)"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def attribute_docs(cls: type) -> dict[str, str]:
    """The ``Attributes:`` section of a Google-style class docstring, by attribute name."""
    doc = inspect.getdoc(cls) or ""
    _, _, section = doc.partition("Attributes:\n")
    found: dict[str, str] = {}
    current = ""
    for line in section.splitlines():
        entry = re.match(r"^    (\w+): (.*)$", line)
        if entry:
            current = entry.group(1)
            found[current] = entry.group(2)
        elif line.startswith("        ") and current:
            found[current] += " " + line.strip()
        elif line.strip():
            break  # the section ended
    return found


def _flags() -> dict[str, str]:
    """Global options of ``lakeshift`` by the setting they set (their parameter name)."""
    from docsite.cli_reference import root

    return {
        p.name: " / ".join(p.opts) for p in root().params if isinstance(p, click.Option) and p.name
    }


def settings() -> list[Setting]:
    """Every field of ``Settings``, in declaration order."""
    cls = settings_class()
    docs = attribute_docs(cls)
    flags = _flags()
    found = []
    for f in dataclasses.fields(cls):
        if f.default is not dataclasses.MISSING:
            default = f.default
        elif f.default_factory is not dataclasses.MISSING:
            default = f.default_factory()
        else:
            default = None
        found.append(
            Setting(
                key=f.name,
                env=env_var(f.name),
                default=describe_default(default),
                type=str(f.type),
                flag=flags.get(f.name, ""),
                description=docs.get(f.name, ""),
            )
        )
    return found


def render(found: list[Setting] | None = None) -> str:
    """The settings reference page."""
    from lakeshift import config

    found = settings() if found is None else found
    lines = [
        "# Settings",
        "",
        "Generated from `lakeshift.config.Settings` when the site is built "
        "(`docsite/settings_reference.py`). "
        + cell(inspect.getdoc(config.load_settings) or "").split(" Args:")[0]
        + f" The config file is `--config FILE`, else `${config.ENV_PREFIX}CONFIG`, else "
        f"`HOME/{config.CONFIG_FILE_NAME}`; each key's environment variable is "
        f"`{config.ENV_PREFIX}` followed by the key in capitals. What the settings mean in "
        "practice, with examples: [Configuration](../configuration.md).",
        "",
    ]
    lines += table(
        ["key", "environment variable", "default", "type", "flag", "description"],
        (
            [
                code(s.key),
                code(s.env),
                code(s.default) if s.default != NOT_SET else NOT_SET,
                cell(s.type),
                " ".join(code(o) for o in s.flag.split(" / ")) if s.flag else "",
                cell(s.description),
            ]
            for s in found
        ),
    )
    return "\n".join(lines) + "\n"

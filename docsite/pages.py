"""The generated reference pages: where each goes in the site, and what renders it."""

from __future__ import annotations

from collections.abc import Callable

from docsite import anomaly_codes, cli_reference, exit_codes, settings_reference

#: Site path (under ``docs/``) -> the function that writes the page from the code.
GENERATED: dict[str, Callable[[], str]] = {
    "reference/generated/cli.md": cli_reference.render,
    "reference/generated/settings.md": settings_reference.render,
    "reference/generated/exit-codes.md": exit_codes.render,
    "reference/generated/anomalies.md": anomaly_codes.render,
}


def generate() -> dict[str, str]:
    """Every generated page's Markdown, by site path."""
    return {path: render() for path, render in GENERATED.items()}

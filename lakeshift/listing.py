"""Short lists in messages: the first few names, then how many more."""

from __future__ import annotations

from collections.abc import Sequence


def first_few(names: Sequence[str], show: int = 5) -> str:
    """``a, b, c (+N more)``: at most ``show`` names, then the count of the rest."""
    head = ", ".join(names[:show])
    return head + (f" (+{len(names) - show} more)" if len(names) > show else "")

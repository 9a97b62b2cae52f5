"""The bytes of a Hive table's files, to prove that nothing done to a lake table holding its
adopted files changed one of them."""

from __future__ import annotations

import hashlib
from pathlib import Path


def tree_digest(root: Path) -> dict[str, str]:
    """sha256 of every file below ``root`` (relative path -> hex digest)."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(root.rglob("*"))
        if path.is_file()
    }

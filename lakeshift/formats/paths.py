"""Table locations as local paths, and the files under them."""

from __future__ import annotations

from pathlib import Path

from lakeshift.errors import EnvironmentProblem


def local_path(location: str) -> Path:
    """A Hadoop ``file:`` location as a local path (other file systems are not written yet)."""
    scheme, sep, rest = location.partition(":")
    if not sep or len(scheme) == 1:
        return Path(location)
    if scheme.lower() != "file":
        raise EnvironmentProblem(
            f"lake tables on {scheme}:// locations are not supported here yet ({location}).",
            hint="Put the target database on a local or mounted file system.",
        )
    return Path("/" + rest.lstrip("/"))


def files_under(root: Path) -> set[str]:
    """Every regular file below ``root`` (hidden ones included), as absolute paths."""
    return {str(p) for p in root.rglob("*") if p.is_file()} if root.exists() else set()

"""MkDocs hook (``hooks:`` in ``mkdocs.yml``): adds the reference generated from the code.

The pages exist only in the build (nothing generated is committed), so they cannot drift from
the code they describe. MkDocs loads this file by its path, so the repository root is put on
``sys.path`` for the ``docsite`` and ``lakeshift`` imports.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from mkdocs.structure.files import File, Files  # noqa: E402

from docsite.markdown import table_code_pipes  # noqa: E402
from docsite.pages import generate  # noqa: E402


def on_files(files: Files, config: Any) -> Files:
    """Add every generated page before the navigation is built, so the nav can name them."""
    for path, markdown in generate().items():
        existing = files.get_file_from_path(path)
        if existing is not None:
            files.remove(existing)
        files.append(File.generated(config, path, content=markdown))
    return files


def on_page_markdown(markdown: str, page: Any, config: Any, files: Files) -> str:
    """Pipes in table cells' code spans as GitHub writes them (``\\|``) read as ``|``."""
    return table_code_pipes(markdown)

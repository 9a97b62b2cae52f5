"""Logging: everything to a file under the state directory; the terminal shows what matters."""

from __future__ import annotations

import logging
from pathlib import Path

_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


def configure_file_logging(log_file: Path, level: int = logging.INFO) -> Path:
    """Send lakeshift's log records to ``log_file`` (appending); returns the path."""
    log_file.parent.mkdir(parents=True, exist_ok=True)
    root = logging.getLogger("lakeshift")
    for handler in list(root.handlers):
        if (
            isinstance(handler, logging.FileHandler)
            and Path(handler.baseFilename) == log_file.resolve()
        ):
            return log_file
    handler = logging.FileHandler(log_file, encoding="utf-8")
    handler.setFormatter(logging.Formatter(_FORMAT))
    root.addHandler(handler)
    root.setLevel(level)
    # py4j logs every gateway call at INFO; keep it out of our log.
    logging.getLogger("py4j").setLevel(logging.WARNING)
    return log_file

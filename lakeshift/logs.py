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


def keep_records_off_the_terminal() -> None:
    """Never let log records reach the terminal through logging's last-resort handler.

    With no handler anywhere (before the log file is configured: a bad config or bulk file, an
    unreachable metastore), logging prints WARNING and above, tracebacks included, on stderr
    ahead of the CLI's own message. The CLI renders errors itself; records go to the log file.
    """
    root = logging.getLogger()
    if not any(isinstance(handler, logging.NullHandler) for handler in root.handlers):
        root.addHandler(logging.NullHandler())

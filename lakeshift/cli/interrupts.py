"""Ctrl-C during a long command: ask the work to stop at its next safe point.

Python raises ``KeyboardInterrupt`` wherever the main thread happens to be, usually inside a
py4j socket read; py4j then fails on its half-read reply ("reentrant call") and the run goes
on. Instead, the handler only sets a flag the library checks before each batch, and cancels
the running Spark jobs from a thread of its own (py4j gives each thread its own connection),
never from inside the interrupted call. A second Ctrl-C interrupts at once.
"""

from __future__ import annotations

import logging
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

log = logging.getLogger(__name__)


@contextmanager
def stop_on_interrupt(cancel: Callable[[], None]) -> Iterator[threading.Event]:
    """Yields an event set by the first SIGINT, which also runs ``cancel`` in a thread."""
    stopping = threading.Event()
    if threading.current_thread() is not threading.main_thread():
        yield stopping  # signal handlers can only be installed by the main thread
        return

    def cancel_quietly() -> None:
        try:
            cancel()
        except Exception:  # the run stops at its next check anyway
            log.exception("could not cancel the running Spark jobs")

    def handler(signum: int, frame: FrameType | None) -> None:
        if stopping.is_set():
            raise KeyboardInterrupt
        stopping.set()
        threading.Thread(target=cancel_quietly, name="lakeshift-cancel", daemon=True).start()

    previous = signal.signal(signal.SIGINT, handler)
    try:
        yield stopping
    finally:
        signal.signal(signal.SIGINT, previous)

"""``follow``: one pass every interval until stopped, until the table is cut over, or once.

One ``follow`` per table at a time (a lease of its own beside ``migrate``'s). A pass that
fails because the metastore or the store is unreachable for a while is logged and tried again
at the next interval: each pass starts from what Hive and the target hold, so nothing is lost
or done twice. A dropped source table, another writer on the target, or a bad input ends it.
"""

from __future__ import annotations

import logging
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from lakeshift.errors import MetastoreUnreachable, NotFound
from lakeshift.follow.passes import FollowOptions, PassReport, run_pass
from lakeshift.follow.state import FollowState
from lakeshift.formats import format_of
from lakeshift.inspect.footer_cache import FooterCache
from lakeshift.inspect.inspector import load_inventory, seed_footers, split_table_name
from lakeshift.metastore.client import lost_metastore
from lakeshift.storage.store import StorageUnavailable, translate, unreachable

if TYPE_CHECKING:
    from lakeshift.context import Context

log = logging.getLogger(__name__)
#: Failures a later pass can get past by itself: the service is back by then.
TRANSIENT = (MetastoreUnreachable, StorageUnavailable)
_TICK = 0.2  # seconds between looks at ``stop`` while waiting


def _transient(error: BaseException) -> Exception | None:
    """A failure another client met (pyiceberg's catalog, Spark's Hive client, an object-store
    SDK) as the transient lakeshift error it is, or None."""
    if isinstance(error, TRANSIENT):
        return error
    lost = lost_metastore(error)
    if lost is not None:
        return lost
    stored = translate(error)
    return stored if isinstance(stored, StorageUnavailable) and unreachable(error) else None


@dataclass
class FollowResult:
    """How a ``follow`` run ended.

    Attributes:
        passes: passes that finished.
        failed: passes that failed on an unreachable service (retried).
        last: the last finished pass.
        last_failed: the run's last pass failed (``last``, if any, is older than that).
        ended: ``once``, ``stopped``, ``cut over`` or ``passes`` (the ``max_passes`` bound).
    """

    passes: int = 0
    failed: int = 0
    last: PassReport | None = None
    last_failed: bool = False
    ended: str = "stopped"
    errors: list[str] = field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return {
            "passes": self.passes,
            "failed": self.failed,
            "ended": self.ended,
            "errors": self.errors[-5:],
            "last": self.last.to_json() if self.last else None,
            "in_step": bool(self.last and self.last.in_step),
        }


def lease_name(source: str) -> str:
    return f"follow:{source}"


def follow(
    ctx: Context,
    source: str,
    options: FollowOptions,
    *,
    interval: float,
    once: bool = False,
    stop: Callable[[], bool] = lambda: False,
    on_pass: Callable[[PassReport], None] | None = None,
    on_error: Callable[[Exception], None] | None = None,
    max_passes: int | None = None,
    break_lease: bool = False,
) -> FollowResult:
    """Keep ``options.target`` in step with ``source``; see the module's docstring."""
    db, table = split_table_name(source)
    name = f"{db}.{table}"
    journal = ctx.journal
    journal.acquire_lease(
        lease_name(name), f"lakeshift follow (pid {os.getpid()})", break_lease=break_lease
    )
    state = FollowState(journal.path)
    cache = _seeded_cache(ctx, name)
    result = FollowResult()
    try:
        while True:
            began = time.monotonic()
            if _cut_over(ctx, name):
                result.ended = "cut over"
                break
            try:
                report = run_pass(ctx, name, options, state, cache)
            except Exception as e:
                problem = _transient(e)
                if problem is None:
                    raise
                if once:
                    if problem is e:
                        raise
                    raise problem from e
                result.failed += 1
                result.last_failed = True
                result.errors.append(str(problem))
                log.warning("follow %s: pass failed, trying again next interval: %s", name, problem)
                if on_error:
                    on_error(problem)
            else:
                result.passes += 1
                result.last = report
                result.last_failed = False
                if on_pass:
                    on_pass(report)
            if once:
                result.ended = "once"
                break
            if max_passes is not None and result.passes >= max_passes:
                result.ended = "passes"
                break
            while time.monotonic() - began < interval and not stop():
                time.sleep(_TICK)
                journal.heartbeat(lease_name(name))
            if stop():
                result.ended = "stopped"
                break
    finally:
        state.close()
        journal.release_lease(lease_name(name))
    return result


def _seeded_cache(ctx: Context, name: str) -> FooterCache:
    """A footer cache holding what the last saved inventory of ``name`` read (each pass saves
    it), so that ``--once`` from cron reads only the footers of files new since."""
    cache = FooterCache()
    try:
        seeded = seed_footers(cache, load_inventory(ctx.home, name))
    except (NotFound, ValueError, KeyError, TypeError) as e:  # none yet, or an older shape
        log.info("follow %s: no saved inventory to reuse (%s)", name, e)
    else:
        log.info("follow %s: %d footers known from the saved inventory", name, seeded)
    return cache


def _cut_over(ctx: Context, name: str) -> bool:
    route = ctx.journal.route(name) or {}
    return route.get("cutover") == "done"


def catch_up(ctx: Context, source: str, target: str) -> PassReport | None:
    """A last pass before a cutover of a followed table (None: the table is not followed, or
    a ``follow`` process holds it and keeps passing).

    The cutover that follows checks every partition again right before it renames, so a
    write landing after this pass still stops it.
    """
    from lakeshift.errors import LeaseHeld

    db, table = split_table_name(source)
    name = f"{db}.{table}"
    state = FollowState(ctx.journal.path)
    try:
        if state.table(name) is None or _cut_over(ctx, name):
            return None
        if format_of(ctx.metastore, name) != "hive":  # an interrupted cutover renamed it
            return None
        try:
            ctx.journal.acquire_lease(lease_name(name), f"lakeshift cutover (pid {os.getpid()})")
        except LeaseHeld:
            log.info("cutover of %s: a running follow keeps it in step", name)
            return None
        try:
            options = FollowOptions(target, quiet_seconds=ctx.settings.follow_quiet_seconds)
            return run_pass(ctx, name, options, state, _seeded_cache(ctx, name))
        finally:
            ctx.journal.release_lease(lease_name(name))
    finally:
        state.close()

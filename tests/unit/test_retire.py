"""Retire's pure parts: the journal keeps the cutover's time, the probation setting."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from lakeshift.config import load_settings
from lakeshift.errors import ConfigError
from lakeshift.migrate.journal import Journal


def test_cutover_time_is_kept_while_the_cutover_stays_done(tmp_path: Path) -> None:
    journal = Journal(tmp_path / "journal.sqlite")
    journal.set_route("db.t", "db.t_routed", "db.t_iceberg", switched=["a"], pending=None)
    assert journal.route("db.t")["cutover_at"] is None  # type: ignore[index]
    journal.set_route(
        "db.t", "db.t_routed", "db.t_iceberg", switched=["a"], pending=None, cutover="done"
    )
    first = journal.route("db.t")["cutover_at"]  # type: ignore[index]
    assert first is not None and abs(first - time.time()) < 60
    time.sleep(0.01)
    # A re-run of the cutover does not restart the probation period.
    journal.set_route(
        "db.t", "db.t_routed", "db.t_iceberg", switched=["a"], pending=None, cutover="done"
    )
    assert journal.route("db.t")["cutover_at"] == first  # type: ignore[index]
    journal.set_route(
        "db.t", "db.t_routed", "db.t_iceberg", switched=["a"], pending=None, cutover="reverted"
    )
    assert journal.route("db.t")["cutover_at"] is None  # type: ignore[index]
    journal.set_route(
        "db.t", "db.t_routed", "db.t_iceberg", switched=["a"], pending=None, cutover="done"
    )
    assert journal.route("db.t")["cutover_at"] > first  # type: ignore[index]


def test_retire_probation_days_setting(tmp_path: Path) -> None:
    assert load_settings({"home": tmp_path}, env={}).retire_probation_days == 7
    env = {"LAKESHIFT_RETIRE_PROBATION_DAYS": "0"}
    assert load_settings({"home": tmp_path}, env=env).retire_probation_days == 0
    with pytest.raises(ConfigError, match="retire_probation_days"):
        load_settings({"home": tmp_path}, env={"LAKESHIFT_RETIRE_PROBATION_DAYS": "-1"})

"""``follow`` killed with SIGKILL in the middle of a pass, or cut off from the metastore for a
while, as writers keep writing: the next pass finishes the job, readers of the view never saw
a row set Hive never showed, and the lake table ends equal to the source (every format's own
reader, both validation levels)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from lakeshift.metastore.client import MetastoreClient
from tests.integration.test_follow import run_live

pytestmark = pytest.mark.faults


@pytest.mark.parametrize("fmt", ["iceberg", "delta", "hudi"])
@pytest.mark.parametrize("fault", ["kill", "outage"])
def test_follow_outlives_a_fault_mid_run_with_nothing_lost(
    spark: Any,
    client: MetastoreClient,
    metastore_uri: str,
    tables_root: Path,
    tmp_path: Path,
    fmt: str,
    fault: str,
) -> None:
    """``kill``: follow killed with SIGKILL mid-pass and started again. ``outage``: the
    metastore unreachable for follow for three intervals while changes wait (passes fail and
    are retried). Either way nothing is lost or duplicated and the view is in step after."""
    run_live(
        spark, client, metastore_uri, tables_root, tmp_path / "home", fmt,
        kill_mid_pass=fault == "kill", outage_seconds=10.0 if fault == "outage" else 0.0,
    )  # fmt: skip

"""`cutover` and `revert` write the table's HTML report again (issue 13, item 10).

The cutover itself is replaced by a fake that records the route as the real one does, and the
inspector by one that returns a fixed inventory: no metastore, no Spark.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lakeshift.cli import route_cmd
from lakeshift.cli.main import cli
from lakeshift.context import Context
from lakeshift.inspect import inspector
from lakeshift.inspect.model import Column, FileInfo, PartitionInfo, TableInventory
from lakeshift.migrate.journal import SWITCHED, Journal
from lakeshift.route.cutover import DONE, REVERTED, Names

SOURCE, TARGET, LEGACY = "db.t", "db.t_iceberg", "db.t_hive_legacy"


def _inventory(qualified: str) -> TableInventory:
    database, table = qualified.split(".")
    partition = PartitionInfo(
        name="dt=1",
        values=("1",),
        location="file:/t/dt=1",
        location_exists=True,
        outside_table_root=False,
        format="orc",
        input_format="",
        serde="",
        columns=(Column("id", "bigint"),),
        parameters={},
        files=(FileInfo(path="000000_0", size=600, mtime_ns=1, format="orc", rows=5),),
        skipped_files=0,
        fingerprint="a",
    )
    return TableInventory(
        database=database,
        table=table,
        location="file:/t",
        table_type="EXTERNAL_TABLE",
        format="orc",
        input_format="",
        serde="",
        columns=(Column("id", "bigint"),),
        partition_keys=(Column("dt", "string"),),
        parameters={},
        partitions=(partition,),
        unregistered_dirs=(),
        anomalies=(),
        metastore_uri="",
        inspected_at="",
        seconds=0.0,
    )


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    def inspect_table(client: Any, name: str, settings: Any) -> TableInventory:
        return _inventory(name)

    def route_change(status: str) -> Any:
        def change(services: Any, settings: Any, journal: Journal, names: Names) -> list[str]:
            legacy = names.legacy if status == DONE else None
            journal.set_route(
                names.source, names.view, names.target, switched=["dt=1"], pending=None,
                cutover=status, legacy=legacy,
            )  # fmt: skip
            return [f"fake {status}"]

        return change

    monkeypatch.setattr(inspector, "inspect_table", inspect_table)
    monkeypatch.setattr(route_cmd, "cutover", route_change(DONE))
    monkeypatch.setattr(route_cmd, "revert", route_change(REVERTED))
    monkeypatch.setattr(Context, "metastore", None)
    monkeypatch.setattr(Context, "formats", None)
    journal = Journal(tmp_path / "journal.sqlite")
    journal.record(SOURCE, "dt=1", TARGET, SWITCHED, fingerprint="a", rows=5)
    journal.close()
    return tmp_path


def _report(home: Path) -> str:
    return (home / "reports" / SOURCE / "report-latest.html").read_text()


def test_cutover_and_revert_write_the_report_again(home: Path) -> None:
    base = ["--home", str(home)]
    result = CliRunner().invoke(cli, [*base, "cutover", SOURCE, "--yes"])
    assert result.exit_code == 0, result.output
    page = _report(home)
    # Read from the Hive table under its legacy name, reported under the source's name.
    assert f"{SOURCE} is now the lake table; the Hive table is {LEGACY}" in page
    assert "dt=1" in page
    result = CliRunner().invoke(cli, [*base, "revert", SOURCE])
    assert result.exit_code == 0, result.output
    page = _report(home)
    assert "Cutover reverted" in page and "is now the lake table" not in page

"""The example bulk file in the repository is a valid one, maintenance section included."""

from __future__ import annotations

from pathlib import Path

from lakeshift.bulk.spec import load_bulk_spec
from lakeshift.maintain import MaintainOptions

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "migration.toml"


def test_the_example_bulk_file_loads_with_its_defaults_and_maintenance() -> None:
    spec = load_bulk_spec(EXAMPLE)
    assert [t.source for t in spec.tables] == ["sales.orders", "sales.returns", "sales.refunds"]
    assert spec.tables[1].target == "sales.returns_lake"
    assert spec.tables[0].target == "sales.orders_iceberg"
    assert spec.tables[2].validate == "count" and spec.tables[0].validate == "checksum"
    assert spec.maintain == MaintainOptions(compact=True, expire_days=7, orphan_hours=72)
    assert all(t.maintain for t in spec.tables)


def test_a_table_chooses_its_calendar_and_a_wrong_one_is_named(tmp_path: Path) -> None:
    import pytest

    from lakeshift.errors import BulkFileError

    good = tmp_path / "good.toml"
    good.write_text('[[tables]]\nsource = "a.b"\ncalendar = "hive2"\n[[tables]]\nsource = "a.c"\n')
    spec = load_bulk_spec(good)
    assert [t.calendar for t in spec.tables] == ["hive2", None]
    bad = tmp_path / "bad.toml"
    bad.write_text('[[tables]]\nsource = "a.b"\ncalendar = "julian"\n')
    with pytest.raises(BulkFileError, match="calendar"):
        load_bulk_spec(bad)


def test_a_table_chooses_its_hudi_table_version_and_a_wrong_one_is_named(tmp_path: Path) -> None:
    import pytest

    from lakeshift.errors import BulkFileError

    good = tmp_path / "good.toml"
    good.write_text(
        '[bulk]\nformat = "hudi"\n[[tables]]\nsource = "a.b"\nhudi_table_version = 8\n'
        '[[tables]]\nsource = "a.c"\n'
    )
    assert [t.hudi_table_version for t in load_bulk_spec(good).tables] == [8, None]
    for value, problem in (("9", "must be one of 6, 8"), ('"8"', "must be a int")):
        bad = tmp_path / "bad.toml"
        bad.write_text(f'[[tables]]\nsource = "a.b"\nhudi_table_version = {value}\n')
        with pytest.raises(BulkFileError, match=f"table #1: hudi_table_version {problem}"):
            load_bulk_spec(bad)


def test_a_table_chooses_its_hive_time_zone_and_a_wrong_one_is_named(tmp_path: Path) -> None:
    import pytest

    from lakeshift.errors import BulkFileError

    good = tmp_path / "good.toml"
    good.write_text(
        '[[tables]]\nsource = "a.b"\nhive_time_zone = "America/New_York"\n'
        '[[tables]]\nsource = "a.c"\n'
    )
    assert [t.hive_time_zone for t in load_bulk_spec(good).tables] == ["America/New_York", None]
    bad = tmp_path / "bad.toml"
    bad.write_text('[[tables]]\nsource = "a.b"\nhive_time_zone = "America/NewYork"\n')
    # refused when the file loads, not when that table's turn comes in the run
    with pytest.raises(BulkFileError, match="hive_time_zone 'America/NewYork'"):
        load_bulk_spec(bad)

"""The inventory's records share what repeats across partitions and stay what they were: equal,
copied, pickled and saved as JSON alike (``inspect.model``)."""

from __future__ import annotations

import json
import pickle
from dataclasses import replace

from lakeshift.inspect import model
from lakeshift.inspect.model import Column, FileInfo, PartitionInfo, TableInventory


def fresh(text: str) -> str:
    """An equal string that is another object (as each Thrift or footer read makes one)."""
    return "".join(list(text))


def _file(name: str = "000000_0") -> FileInfo:
    return FileInfo(
        path=fresh(name),
        size=1000,
        mtime_ns=1,
        format=fresh("orc"),
        columns=(Column(fresh("id"), fresh("bigint")),),
        rows=10,
        compression=fresh("ZLIB"),
        writer=fresh("ORC_JAVA"),
        software_version=fresh("1.5.8"),
        error=fresh("footer unreadable: truncated"),
    )


def _partition(index: int, **kw: object) -> PartitionInfo:
    base = PartitionInfo(
        name=f"p={index}",
        values=(str(index),),
        location=f"file:/t/p={index}",
        location_exists=True,
        outside_table_root=False,
        format=fresh("orc"),
        input_format=fresh("org.apache.hadoop.hive.ql.io.orc.OrcInputFormat"),
        serde=fresh("org.apache.hadoop.hive.ql.io.orc.OrcSerde"),
        columns=(Column("id", "bigint"),),
        parameters={fresh("numRows"): str(10 * index), fresh("transient_lastDdlTime"): "17"},
        files=(_file(),),
        skipped_files=0,
        fingerprint=f"sha256:{index}",
        serde_parameters={fresh("serialization.format"): fresh("1")},
    )
    return replace(base, **kw)  # type: ignore[arg-type]


def test_partitions_share_their_formats_serde_and_parameter_names() -> None:
    a, b = _partition(1), _partition(2)
    assert a.input_format is b.input_format and a.serde is b.serde and a.format is b.format
    assert [k for k in a.parameters] == ["numRows", "transient_lastDdlTime"]  # order kept
    assert all(x is y for x, y in zip(a.parameters, b.parameters))
    assert a.parameters["transient_lastDdlTime"] is b.parameters["transient_lastDdlTime"]
    # each partition's own values stay its own
    assert (a.parameters["numRows"], b.parameters["numRows"]) == ("10", "20")
    assert a.parameters is not b.parameters


def test_equal_serde_parameters_are_one_mapping_and_unequal_ones_are_not() -> None:
    a, b = _partition(1), _partition(2)
    assert a.serde_parameters is b.serde_parameters
    c = _partition(3, serde_parameters={"serialization.format": "1", "field.delim": ","})
    assert c.serde_parameters == {"serialization.format": "1", "field.delim": ","}
    assert c.serde_parameters is not a.serde_parameters
    # the same pairs in another order are another mapping: the order is what JSON shows
    d = _partition(4, serde_parameters={"field.delim": ",", "serialization.format": "1"})
    assert list(d.serde_parameters) == ["field.delim", "serialization.format"]


def test_files_share_their_names_and_writer_texts_not_their_errors() -> None:
    a, b = _file(), _file()
    assert a == b
    for name in ("path", "format", "compression", "writer", "software_version"):
        assert getattr(a, name) is getattr(b, name), name
    assert a.columns[0].name is b.columns[0].name and a.columns[0].type is b.columns[0].type
    assert a.error is not b.error  # an error names its file: nothing to share


def test_the_shared_mappings_are_bounded() -> None:
    for index in range(model._SHARED_LIMIT + 10):
        _partition(index, serde_parameters={"field.delim": str(index)})
    assert 0 < len(model._SHARED) <= model._SHARED_LIMIT
    assert _partition(1).serde_parameters == {"serialization.format": "1"}


def test_records_are_slotted() -> None:
    for record in (_partition(1), _file(), Column("id", "bigint")):
        assert not hasattr(record, "__dict__"), type(record).__name__


def test_a_pickled_partition_comes_back_equal_and_sharing() -> None:
    # (inspect_on = "spark": the tasks' partitions reach the driver pickled)
    original = _partition(1)
    back = pickle.loads(pickle.dumps(original))
    assert back == original
    assert back.input_format is _partition(2).input_format
    assert back.serde_parameters is original.serde_parameters
    assert back.files[0].path is original.files[0].path


def _inventory(*partitions: PartitionInfo) -> TableInventory:
    return TableInventory(
        database="db",
        table="t",
        location="file:/t",
        table_type="EXTERNAL_TABLE",
        format="orc",
        input_format="org.apache.hadoop.hive.ql.io.orc.OrcInputFormat",
        serde="org.apache.hadoop.hive.ql.io.orc.OrcSerde",
        columns=(Column("id", "bigint"),),
        partition_keys=(Column("p", "int"),),
        parameters={"EXTERNAL": "TRUE"},
        partitions=partitions,
        unregistered_dirs=(),
        anomalies=(),
        metastore_uri="thrift://h:9083",
        inspected_at="2026-12-02T00:00:00+00:00",
        seconds=1.0,
    )


def test_the_inventory_json_round_trips_to_an_equal_inventory() -> None:
    inventory = _inventory(_partition(1), _partition(2))
    text = json.dumps(inventory.to_json())
    back = TableInventory.from_json(json.loads(text))
    assert back == inventory
    assert json.dumps(back.to_json()) == text
    first = json.loads(text)["partitions"][0]
    assert first["parameters"] == {"numRows": "10", "transient_lastDdlTime": "17"}
    assert first["serde_parameters"] == {"serialization.format": "1"}
    assert first["files"][0]["path"] == "000000_0" and first["rows"] == 10

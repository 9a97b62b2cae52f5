"""The Glue catalog's own logic: batches within Glue's caps, unprocessed keys asked again,
errors named, definitions converted without loss (a scripted client stands in for Glue; the
same code against moto's Glue is in tests/e2e/test_glue.py)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from botocore.exceptions import ClientError

from lakeshift.bulk.spec import parse_bulk_spec
from lakeshift.config import Settings
from lakeshift.errors import (
    BulkFileError,
    ConcurrentChange,
    ConfigError,
    MetastoreRefused,
    MetastoreUnreachable,
    NotFound,
)
from lakeshift.metastore import ddl
from lakeshift.metastore.glue import GlueCatalog, table_from_glue, table_input


class ScriptedGlue:
    """Records every call; answers from ``answers`` (operation -> list of replies or errors)."""

    class meta:
        region_name = "eu-west-1"

    def __init__(self, **answers: list[Any]) -> None:
        self.answers = answers
        self.calls: list[tuple[str, dict[str, Any]]] = []

    def __getattr__(self, operation: str) -> Any:
        def call(**params: Any) -> Any:
            self.calls.append((operation, params))
            replies = self.answers.get(operation)
            reply = replies.pop(0) if replies else {}
            if isinstance(reply, Exception):
                raise reply
            return reply

        return call


def _error(code: str, status: int = 400, message: str = "no") -> ClientError:
    return ClientError(
        {
            "Error": {"Code": code, "Message": message},
            "ResponseMetadata": {"HTTPStatusCode": status},
        },
        "Op",
    )


def _partitions(n: int) -> list[Any]:
    return [
        ddl.partition("db", "t", [str(i)], [("id", "bigint")], f"s3://b/t/dt={i}") for i in range(n)
    ]


def test_batches_stay_within_glue_caps() -> None:
    glue = ScriptedGlue()
    catalog = GlueCatalog(glue)
    assert catalog.add_partitions(_partitions(250)) == 250
    catalog.alter_partitions("db", "t", _partitions(101))
    catalog.drop_partitions("db", "t", [[str(i)] for i in range(60)])
    sizes = {
        op: []
        for op in ("batch_create_partition", "batch_update_partition", "batch_delete_partition")
    }
    for op, params in glue.calls:
        key = {
            "batch_create_partition": "PartitionInputList",
            "batch_update_partition": "Entries",
        }.get(op, "PartitionsToDelete")
        sizes[op].append(len(params[key]))
    assert sizes == {
        "batch_create_partition": [100, 100, 50],
        "batch_update_partition": [100, 1],
        "batch_delete_partition": [25, 25, 10],
    }


def test_per_item_errors_of_a_batch_are_errors() -> None:
    failed = {
        "Errors": [
            {
                "PartitionValues": ["3"],
                "ErrorDetail": {"ErrorCode": "AlreadyExistsException", "ErrorMessage": "exists"},
            }
        ]
    }
    catalog = GlueCatalog(ScriptedGlue(batch_create_partition=[failed]))
    with pytest.raises(MetastoreRefused, match="AlreadyExistsException"):
        catalog.add_partitions(_partitions(5))


def test_unprocessed_keys_are_asked_for_again_until_none_is_left() -> None:
    def found(*values: str) -> dict[str, Any]:
        return {"Values": list(values), "StorageDescriptor": {"Location": f"s3://b/{values[0]}"}}

    glue = ScriptedGlue(
        batch_get_partition=[
            {"Partitions": [found("1")], "UnprocessedKeys": [{"Values": ["2"]}, {"Values": ["3"]}]},
            {"Partitions": [found("2")], "UnprocessedKeys": [{"Values": ["3"]}]},
            {"Partitions": [found("3")], "UnprocessedKeys": []},
        ]
    )
    got = list(GlueCatalog(glue).partitions_by_names("db", "t", ["dt=1", "dt=2", "dt=3"]))
    assert sorted(p.values[0] for p in got) == ["1", "2", "3"]
    asked = [[k["Values"] for k in params["PartitionsToGet"]] for _, params in glue.calls]
    assert asked == [[["1"], ["2"], ["3"]], [["2"], ["3"]], [["3"]]]


def test_a_get_asks_for_at_most_1000_partitions() -> None:
    glue = ScriptedGlue()
    names = [f"dt={i}" for i in range(2500)]
    list(GlueCatalog(glue).partitions_by_names("db", "t", names, batch=5000))
    # growing to the cap from a small first request (``batches.ramped``)
    assert [len(p["PartitionsToGet"]) for _, p in glue.calls] == [250, 500, 1000, 750]


def test_partitions_are_read_in_disjoint_segments_page_by_page() -> None:
    pages = {
        0: [
            {"Partitions": [{"Values": ["1"]}], "NextToken": "a"},
            {"Partitions": [{"Values": ["2"]}]},
        ],
        1: [{"Partitions": [{"Values": ["3"]}]}],
    }

    class Segmented(ScriptedGlue):
        def get_partitions(self, **params: Any) -> Any:
            self.calls.append(("get_partitions", params))
            return pages[params["Segment"]["SegmentNumber"]].pop(0)

    glue = Segmented(
        get_table=[{"Table": {"Name": "t", "PartitionKeys": [{"Name": "dt", "Type": "int"}]}}]
    )
    glue.answers["get_database"] = [{"Database": {"Name": "db"}}]
    catalog = GlueCatalog(glue, segments=2)
    assert catalog.partition_names("db", "t") == ["dt=1", "dt=2", "dt=3"]
    asked = [p for op, p in glue.calls if op == "get_partitions"]
    assert all(p["Segment"]["TotalSegments"] == 2 and p["MaxResults"] == 1000 for p in asked)
    assert sorted((p["Segment"]["SegmentNumber"], p.get("NextToken", "")) for p in asked) == [
        (0, ""),
        (0, "a"),
        (1, ""),
    ]


def test_an_update_carries_the_version_read_and_a_conflict_is_not_overwritten() -> None:
    entry = {"Name": "t", "VersionId": "7", "TableType": "EXTERNAL_TABLE", "Parameters": {}}
    glue = ScriptedGlue(
        get_database=[{"Database": {"Name": "db"}}],
        get_table=[{"Table": entry}],
        update_table=[_error("ConcurrentModificationException")],
    )
    catalog = GlueCatalog(glue)
    table = catalog.get_table("db", "t")
    with pytest.raises(ConcurrentChange, match="someone else"):
        catalog.alter_table("db", "t", table)
    update = next(p for op, p in glue.calls if op == "update_table")
    assert update["VersionId"] == "7" and update["SkipArchive"] is True


@pytest.mark.parametrize(
    ("error", "expected", "words"),
    [
        (_error("EntityNotFoundException"), NotFound, "does not exist"),
        (_error("AccessDeniedException", 400), MetastoreUnreachable, "refused access"),
        (
            _error("403", 403, "<Code>InvalidClientTokenId</Code><Message>bad token</Message>"),
            MetastoreUnreachable,
            "InvalidClientTokenId: bad token",
        ),
        (_error("InvalidInputException"), MetastoreRefused, "InvalidInputException"),
    ],
)
def test_glue_errors_name_the_object_and_say_what_to_do(
    error: ClientError, expected: type[Exception], words: str
) -> None:
    catalog = GlueCatalog(ScriptedGlue(get_database=[error]), catalog_id="123456789012")
    with pytest.raises(expected) as raised:
        catalog.get_database("sales")
    assert words in str(raised.value) and "sales" in str(raised.value)
    assert raised.value.hint  # type: ignore[attr-defined]


def test_a_definition_round_trips_and_keeps_what_thrift_cannot_hold() -> None:
    table = ddl.external_table(
        "db", "t", [("id", "bigint"), ("v", "string")], [("dt", "int")], "s3://b/t"
    )
    read = {
        **table_input(table),
        "Description": "clicks",
        "StorageDescriptor": {
            **table_input(table)["StorageDescriptor"],
            "Columns": [
                {"Name": "id", "Type": "bigint", "Parameters": {"iceberg.field.id": "1"}},
                {"Name": "v", "Type": "string"},
            ],
        },
    }
    back = table_from_glue("db", read)
    assert (back.sd.location, back.sd.inputFormat, back.partitionKeys[0].name) == (
        "s3://b/t",
        ddl.ORC_INPUT,
        "dt",
    )
    again = table_input(back, read)
    assert again["Description"] == "clicks"
    assert again["StorageDescriptor"]["Columns"][0]["Parameters"] == {"iceberg.field.id": "1"}
    assert again["StorageDescriptor"]["SerdeInfo"]["SerializationLibrary"] == ddl.ORC_SERDE
    # A Glue entry without a storage descriptor becomes an empty one, never None, and is
    # written back without one.
    bare = table_from_glue("db", {"Name": "x"})
    assert bare.sd is not None and bare.sd.location is None
    assert "StorageDescriptor" not in table_input(bare, {"Name": "x"})
    # Glue-only parts of a storage descriptor survive; None parameters are never sent.
    skewed = {"SkewedColumnNames": ["v"], "SkewedColumnValues": ["a"]}
    read_sd = {**read["StorageDescriptor"], "SkewedInfo": skewed}
    back.sd.parameters = {"kept": "1", "dropped": None}
    again = table_input(back, {**read, "StorageDescriptor": read_sd})
    assert again["StorageDescriptor"]["SkewedInfo"] == skewed
    assert again["StorageDescriptor"]["Parameters"] == {"kept": "1"}


def test_catalog_settings_are_checked() -> None:
    with pytest.raises(ConfigError, match="catalog must be one of"):
        Settings(catalog="hms")
    with pytest.raises(ConfigError, match="not an AWS account id"):
        Settings(catalog="glue", glue_catalog_id="lake")
    assert Settings(catalog="glue", glue_catalog_id="123456789012").glue_catalog_id


def test_a_bulk_file_chooses_its_catalog(tmp_path: Path) -> None:
    data: dict[str, Any] = {
        "catalog": {"kind": "glue", "region": "eu-west-1", "catalog_id": "123456789012"},
        "tables": [{"source": "db.t"}],
    }
    spec = parse_bulk_spec(data, tmp_path / "run.toml")
    assert spec.catalog == {
        "catalog": "glue",
        "glue_region": "eu-west-1",
        "glue_catalog_id": "123456789012",
    }
    with pytest.raises(BulkFileError, match="unknown keys: regoin"):
        parse_bulk_spec({**data, "catalog": {"regoin": "x"}}, tmp_path / "run.toml")
    with pytest.raises(BulkFileError, match=r"\[catalog\]: catalog must be one of"):
        parse_bulk_spec({**data, "catalog": {"kind": "hms"}}, tmp_path / "run.toml")


def test_concurrent_gets_yield_the_partitions_in_the_order_of_the_names() -> None:
    class EchoGlue(ScriptedGlue):
        """Answers each get with the partitions it asks for (from any thread)."""

        def batch_get_partition(self, **params: Any) -> dict[str, Any]:
            self.calls.append(("BatchGetPartition", params))
            asked = [k["Values"] for k in params["PartitionsToGet"]]
            return {"Partitions": [{"Values": v, "StorageDescriptor": {}} for v in asked]}

    glue = EchoGlue()
    names = [f"dt={i}" for i in range(2500)]
    got = GlueCatalog(glue).partitions_by_names("db", "t", names, batch=400, calls=3)
    assert [p.values[0] for p in got] == [str(i) for i in range(2500)]
    assert sorted(len(p["PartitionsToGet"]) for _, p in glue.calls) == [250, 250] + [400] * 5

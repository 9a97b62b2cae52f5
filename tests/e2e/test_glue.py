"""The AWS Glue Data Catalog as the catalog, on moto's Glue and S3, for every format.

The sample table is catalogued in Glue (no Hive Metastore holds it) with its files on moto's
S3; every command runs through the CLI with a ``lakeshift.toml`` a user would write
(``catalog = "glue"``). moto ignores Glue's limits, so :class:`tests.helpers.glue.GlueRules`
enforce them on every Glue call lakeshift makes: caps, segments, pages, unprocessed keys and
the ``VersionId`` of every ``UpdateTable``.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lakeshift.cli.main import cli
from lakeshift.config import load_settings
from lakeshift.context import Context
from lakeshift.errors import (
    EXIT_CONFLICT,
    EXIT_ENVIRONMENT,
    EXIT_NOT_FOUND,
    EXIT_REFUSED,
    EXIT_USAGE,
    ConcurrentChange,
)
from lakeshift.metastore.glue import GlueCatalog
from lakeshift.sample.load import LoadResult, load_sample
from lakeshift.storage import StorageOptions
from tests.helpers import glue, s3
from tests.helpers.lake import read_lake, unique_keys
from tests.helpers.s3 import MotoServer
from tests.helpers.sample import one_partition_per_feature

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def rules(moto: MotoServer) -> Iterator[glue.GlueRules]:
    found, session = glue.install_rules(moto.endpoint)
    yield found
    found.uninstall(session)


def _toml(home: Path, conf: dict[str, str], **keys: str) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    lines = [f'{k} = "{v}"' for k, v in keys.items()]
    lines += ["retire_probation_days = 0", "[spark_conf]"]
    lines += [f'"{k}" = "{v}"' for k, v in conf.items()]
    (home / "lakeshift.toml").write_text("\n".join(lines) + "\n")
    return home


@pytest.fixture(scope="module")
def glue_home(
    tmp_path_factory: pytest.TempPathFactory,
    object_store_conf: dict[str, str],
    moto: MotoServer,
    rules: glue.GlueRules,
) -> Path:
    if not object_store_conf:
        pytest.fail("the S3A connector jars are missing: run `make test` (it fetches them)")
    home = tmp_path_factory.mktemp("glue-home")
    return _toml(
        home,
        object_store_conf,
        catalog="glue",
        glue_endpoint=moto.endpoint,
        glue_region=glue.REGION,
    )


@pytest.fixture(scope="module")
def catalog(glue_home: Path) -> GlueCatalog:
    found = Context(load_settings({"home": glue_home}, env={})).metastore
    assert isinstance(found, GlueCatalog)
    return found


def _run(home: Path, *args: str) -> tuple[int, Any]:
    result = CliRunner().invoke(cli, ["--home", str(home), "--output", "json", *args])
    try:
        return result.exit_code, json.loads(result.output)
    except json.JSONDecodeError:
        return result.exit_code, result.output


def _objects(moto: MotoServer, prefix: str) -> dict[str, tuple[str, int]]:
    """Every object under ``prefix``: key -> (ETag, size)."""
    pages = moto.client().get_paginator("list_objects_v2").paginate(Bucket=s3.BUCKET, Prefix=prefix)
    return {o["Key"]: (o["ETag"], o["Size"]) for page in pages for o in page.get("Contents", [])}


def _entry(endpoint: str, db: str, name: str) -> dict[str, Any]:
    table: dict[str, Any] = glue.raw_client(endpoint).get_table(DatabaseName=db, Name=name)["Table"]
    return table


def _is_hive(entry: dict[str, Any]) -> bool:
    """Whether a Glue entry is the Hive ORC table (not a lake table's entry)."""
    stored = entry.get("StorageDescriptor", {}).get("InputFormat", "")
    return bool(stored.endswith("OrcInputFormat") and "table_type" not in entry["Parameters"])


def _partitions(endpoint: str, db: str, name: str) -> list[dict[str, Any]]:
    pages = glue.raw_client(endpoint).get_paginator("get_partitions")
    return [
        p for page in pages.paginate(DatabaseName=db, TableName=name) for p in page["Partitions"]
    ]


def _catalog_state(endpoint: str) -> dict[str, Any]:
    """Every table and partition in the Glue catalog, for "nothing changed" checks."""
    raw = glue.raw_client(endpoint)
    state: dict[str, Any] = {}
    for db in raw.get_databases()["DatabaseList"]:
        for t in raw.get_tables(DatabaseName=db["Name"])["TableList"]:
            key = f"{db['Name']}.{t['Name']}"
            state[key] = (t.get("VersionId"), len(_partitions(endpoint, db["Name"], t["Name"])))
    return state


def _load(catalog: GlueCatalog, fmt: str, home: Path, storage: StorageOptions) -> LoadResult:
    return load_sample(
        catalog,
        home,
        source=one_partition_per_feature(home / "sample-source"),  # moto serves every request
        location=f"s3://{s3.BUCKET}/glue-source/{fmt}/click_log",
        database=f"glue_{fmt}",
        warehouse=f"s3://{s3.BUCKET}/glue-warehouse",
        storage=storage,
    )


def _check_registered(fmt: str, entry: dict[str, Any], endpoint: str) -> None:
    """The target's Glue entry as that format's engines read it (../shared/GLUE.md)."""
    params = entry["Parameters"]
    sd = entry.get("StorageDescriptor", {})
    if fmt == "iceberg":  # as pyiceberg's and Iceberg's own Glue catalogs write it
        assert params["table_type"] == "ICEBERG"
        assert params["metadata_location"].endswith(".metadata.json")
        assert all("iceberg.field.id" in c["Parameters"] for c in sd["Columns"])
    elif fmt == "delta":  # what delta-spark and Trino write; Athena reads it too
        assert params["spark.sql.sources.provider"] == "delta"
        assert sd["SerdeInfo"]["Parameters"]["path"] == sd["Location"]
        assert [(c["Name"], c["Type"]) for c in sd["Columns"]] == [("col", "array<string>")]
    else:  # as Hudi's own Glue sync writes it
        assert params["spark.sql.sources.provider"] == "hudi"
        assert sd["InputFormat"] == "org.apache.hudi.hadoop.HoodieParquetInputFormat"
        assert sd["SerdeInfo"]["Parameters"]["path"] == sd["Location"]
        assert params["last_commit_time_sync"]
        db, name = entry["DatabaseName"], entry["Name"]
        parts = _partitions(endpoint, db, name)
        assert parts and all(
            p["StorageDescriptor"]["Location"].startswith(sd["Location"]) for p in parts
        )


@pytest.mark.parametrize(
    "fmt",
    # make test: Iceberg here, Delta in test_follow_s3's Glue case; make extended: all three
    ["iceberg", *(pytest.param(f, marks=pytest.mark.extended) for f in ("delta", "hudi"))],
)
def test_every_command_on_glue(
    fmt: str,
    glue_home: Path,
    catalog: GlueCatalog,
    moto: MotoServer,
    rules: glue.GlueRules,
    object_store_conf: dict[str, str],
    spark: Any,  # the session's one Spark (the CLI runs in this process and shares it)
) -> None:
    storage = StorageOptions.from_spark_conf(object_store_conf)
    source = _load(catalog, fmt, glue_home, storage)
    db = f"glue_{fmt}"
    table, target = f"{db}.click_log", f"{db}.click_log_lake"
    before_objects = _objects(moto, f"glue-source/{fmt}/")
    assert len(before_objects) > source.partitions
    assert len(_partitions(moto.endpoint, db, "click_log")) == source.partitions

    code, inventory = _run(glue_home, "inspect", table)
    assert code == 0, inventory
    assert inventory["summary"]["rows"] == source.rows
    assert len(inventory["partitions"]) == source.partitions
    # Read as Glue is: segments, pages and unprocessed keys, all within Glue's limits.
    assert rules.calls[("GetPartitions", f"{db}.click_log")] > 1
    assert rules.unprocessed_once

    code, plan = _run(glue_home, "plan", table, "--target", target, "--format", fmt)
    assert code == 0, plan
    assert s3.SECRET_KEY not in json.dumps(plan)
    code, migrated = _run(glue_home, "migrate", table, "--target", target, "--format", fmt)
    assert code == 0, migrated
    _check_registered(fmt, _entry(moto.endpoint, db, "click_log_lake"), moto.endpoint)
    for level in ("checksum", "independent"):
        code, report = _run(glue_home, "validate", table, "--target", target, "--level", level)
        assert code == 0, report
        assert report["totals"]["equal"] == source.partitions, report["totals"]
    rows = read_lake(catalog, target, storage)
    assert rows.num_rows == source.rows and unique_keys(rows)

    # The routing view: one Glue view, each switch or rollback one UpdateTable of it.
    view = "click_log_routed"
    code, out = _run(glue_home, "switch", table, "--all-validated")
    assert code == 0, out
    entry = _entry(moto.endpoint, db, view)
    assert entry["TableType"] == "VIRTUAL_VIEW" and "`click_log_lake" in entry["ViewOriginalText"]
    updates = rules.updates(f"{db}.{view}")
    code, out = _run(glue_home, "rollback", table, "--partitions", "yyyymmdd=20220401")
    assert code == 0, out
    assert rules.updates(f"{db}.{view}") == updates + 1
    rolled = _entry(moto.endpoint, db, view)
    assert rolled["ViewOriginalText"] != entry["ViewOriginalText"]
    code, out = _run(glue_home, "switch", table, "--all-validated")
    assert code == 0, out
    assert rules.updates(f"{db}.{view}") == updates + 2

    # Readers of the public name see the cutover as one update: never a missing table. A
    # cutover that fails before that update leaves the Hive table public; one that fails after
    # it leaves the lake table public; a re-run finishes either.
    public = f"{db}.click_log"
    before = (rules.updates(public), rules.calls[("DeleteTable", public)])
    rules.failing[("UpdateTable", public)] = 1
    code, out = _run(glue_home, "cutover", table, "--yes")
    assert code == EXIT_ENVIRONMENT, out
    assert _is_hive(_entry(moto.endpoint, db, "click_log"))  # the Hive table, still
    rules.failing[("DeleteTable", target)] = 1
    code, out = _run(glue_home, "cutover", table, "--yes")
    assert code == EXIT_ENVIRONMENT, out
    _check_registered(fmt, _entry(moto.endpoint, db, "click_log"), moto.endpoint)
    code, out = _run(glue_home, "cutover", table, "--yes")
    assert code == 0, out
    assert rules.calls[("DeleteTable", public)] == before[1] == 0
    # One refused (injected); the one readers see (Hive -> lake definition, the Hive keys
    # kept); then the keys alone, once the Hive partitions left (Glue refuses partitions
    # whose values do not match the keys).
    assert rules.updates(public) == before[0] + 3
    assert read_lake(catalog, table, storage).num_rows == source.rows
    legacy = _entry(moto.endpoint, db, "click_log_hive_legacy")
    assert legacy["TableType"] == "EXTERNAL_TABLE"
    assert len(_partitions(moto.endpoint, db, "click_log_hive_legacy")) == source.partitions
    _check_registered(fmt, _entry(moto.endpoint, db, "click_log"), moto.endpoint)

    before = (rules.updates(public), rules.calls[("DeleteTable", public)])
    rules.failing[("UpdateTable", public)] = 1
    code, out = _run(glue_home, "revert", table)
    assert code == EXIT_ENVIRONMENT, out
    assert not _is_hive(_entry(moto.endpoint, db, "click_log"))  # the lake table, still
    code, out = _run(glue_home, "revert", table)
    assert code == 0, out
    # The keys first (refused once, injected, then made), then the one readers see.
    assert (rules.updates(public), rules.calls[("DeleteTable", public)]) == (before[0] + 3, 0)
    assert not catalog.table_exists(db, "click_log_hive_legacy")
    assert _is_hive(_entry(moto.endpoint, db, "click_log"))
    assert len(_partitions(moto.endpoint, db, "click_log")) == source.partitions
    assert read_lake(catalog, target, storage).num_rows == source.rows
    code, inventory = _run(glue_home, "inspect", table)
    assert code == 0 and inventory["summary"]["rows"] == source.rows

    # Someone changes the Hive entry between the legacy copy and the swap: the swap is
    # refused (exit 8), the Hive table stays public with their change; a re-run refreshes the
    # copy (their change is in the legacy table) and cuts over.
    def someone_else(params: dict[str, Any]) -> None:
        if params["TableInput"]["Name"] != "click_log":
            return
        rules.before_update = None
        raw = glue.raw_client(moto.endpoint)
        current = raw.get_table(DatabaseName=db, Name="click_log")["Table"]
        keys = ("Name", "StorageDescriptor", "PartitionKeys", "TableType")
        changed = {k: current[k] for k in keys}
        changed["Parameters"] = {**current["Parameters"], "owner.note": "theirs"}
        raw.update_table(DatabaseName=db, TableInput=changed)

    rules.before_update = someone_else
    code, out = _run(glue_home, "cutover", table, "--yes")
    assert code == EXIT_CONFLICT, out
    assert _is_hive(_entry(moto.endpoint, db, "click_log"))
    code, out = _run(glue_home, "cutover", table, "--yes")
    assert code == 0, out
    legacy = _entry(moto.endpoint, db, "click_log_hive_legacy")
    assert legacy["Parameters"]["owner.note"] == "theirs"
    code, out = _run(glue_home, "retire", table, "--yes")
    assert code == 0, out
    assert not catalog.table_exists(db, "click_log_hive_legacy")
    assert read_lake(catalog, table, storage).num_rows == source.rows

    # After cutover the table lives in Glue: erasure and maintenance commit there too.
    erased = rows.column("uuid")[0].as_py()
    keys = glue_home / f"keys-{fmt}.txt"
    keys.write_text(erased + "\n")
    code, out = _run(glue_home, "erase", table, "--keys", str(keys))
    assert code == 0, out
    code, out = _run(glue_home, "maintain", table, "--compact", "--expire", "0")
    assert code == 0, out
    after = read_lake(catalog, table, storage)
    assert after.num_rows == source.rows - 1
    assert erased not in set(after.column("uuid").to_pylist())
    # The source is sacred: every object as it was.
    assert _objects(moto, f"glue-source/{fmt}/") == before_objects


def test_adoption_under_glue_holds_the_sources_objects_and_copies_the_rest(
    glue_home: Path,
    catalog: GlueCatalog,
    moto: MotoServer,
    object_store_conf: dict[str, str],
    spark: Any,
) -> None:
    """``--adopt-files auto`` with the table catalogued in Glue: the sample's partitions of
    every kind are each adopted (the source's own objects) or copied with a reason, all
    proven, and the lake table reads exactly the source's rows; the objects are untouched."""
    storage = StorageOptions.from_spark_conf(object_store_conf)
    source = _load(catalog, "adopt", glue_home, storage)
    table, target = "glue_adopt.click_log", "glue_adopt.click_log_lake"
    before = _objects(moto, "glue-source/adopt/")
    code, migrated = _run(glue_home, "migrate", table, "--target", target, "--adopt-files", "auto")
    assert code == 0, migrated
    adoption = migrated["adoption"]
    assert adoption["adopted"] and set(adoption["adopted"]).isdisjoint(adoption["copied"])
    assert len(adoption["adopted"]) + len(adoption["copied"]) == source.partitions
    assert all(adoption["copied"].values())  # every copy says why
    code, report = _run(glue_home, "validate", table, "--target", target, "--level", "independent")
    assert code == 0 and report["totals"]["equal"] == source.partitions, report["totals"]
    assert read_lake(catalog, target, storage).num_rows == source.rows
    assert _objects(moto, "glue-source/adopt/") == before


def test_a_concurrent_update_is_detected_not_overwritten(
    glue_home: Path,
    catalog: GlueCatalog,
    moto: MotoServer,
    rules: glue.GlueRules,
    object_store_conf: dict[str, str],
) -> None:
    """Someone else updates the entry between lakeshift's read and its UpdateTable: lakeshift
    fails with exit 8 and the other writer's change stays."""
    storage = StorageOptions.from_spark_conf(object_store_conf)
    _load(catalog, "race", glue_home, storage)
    db, name = "glue_race", "click_log"
    entry = catalog.get_table(db, name)

    def someone_else(params: dict[str, Any]) -> None:
        current = glue.raw_client(moto.endpoint).get_table(DatabaseName=db, Name=name)["Table"]
        table_input = {k: current[k] for k in ("Name", "StorageDescriptor", "PartitionKeys")}
        table_input["TableType"] = current["TableType"]
        table_input["Parameters"] = {**current["Parameters"], "owner.note": "theirs"}
        glue.raw_client(moto.endpoint).update_table(DatabaseName=db, TableInput=table_input)

    rules.before_update = someone_else
    try:
        entry.parameters = {**entry.parameters, "owner.note": "lakeshift's"}
        with pytest.raises(ConcurrentChange) as raised:
            catalog.alter_table(db, name, entry)
    finally:
        rules.before_update = None
    assert raised.value.exit_code == EXIT_CONFLICT
    assert _entry(moto.endpoint, db, name)["Parameters"]["owner.note"] == "theirs"
    # Read again, then the update goes through.
    entry = catalog.get_table(db, name)
    entry.parameters = {**entry.parameters, "owner.note": "lakeshift's"}
    catalog.alter_table(db, name, entry)
    assert _entry(moto.endpoint, db, name)["Parameters"]["owner.note"] == "lakeshift's"


def test_bad_glue_inputs_are_named_and_change_nothing(
    glue_home: Path,
    catalog: GlueCatalog,
    moto: MotoServer,
    object_store_conf: dict[str, str],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    raw = glue.raw_client(moto.endpoint)
    raw.create_database(DatabaseInput={"Name": "glue_bad"})
    # A table catalogued without a storage descriptor (a failed crawler leaves such entries).
    raw.create_table(DatabaseName="glue_bad", TableInput={"Name": "no_sd", "PartitionKeys": []})
    before = _catalog_state(moto.endpoint)

    code, out = _run(glue_home, "inspect", "glue_nowhere.t")
    assert code == EXIT_NOT_FOUND, out
    assert "database 'glue_nowhere'" in out["error"]["message"]
    code, out = _run(glue_home, "migrate", "glue_bad.missing", "--target", "glue_bad.m2")
    assert code == EXIT_NOT_FOUND and "glue_bad.missing" in out["error"]["message"], out
    code, out = _run(glue_home, "migrate", "glue_bad.no_sd", "--target", "glue_bad.no_sd_lake")
    assert code == EXIT_REFUSED, out
    assert "no storage descriptor" in out["error"]["message"]

    home = _toml(tmp_path / "bad-id", object_store_conf, catalog="glue", glue_catalog_id="lake")
    code, out = _run(home, "inspect", "glue_bad.no_sd")
    assert code == EXIT_USAGE and "glue_catalog_id" in out["error"]["message"], out

    # A region with no Glue endpoint (nothing answers for it), then wrong and missing
    # credentials at a Glue that checks them.
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    monkeypatch.setenv("AWS_MAX_ATTEMPTS", "1")
    home = _toml(tmp_path / "region", {}, catalog="glue", glue_region="xx-nowhere-1")
    code, out = _run(home, "inspect", "glue_bad.no_sd")
    assert code == EXIT_ENVIRONMENT and "xx-nowhere-1" in out["error"]["message"], out
    monkeypatch.setenv("INITIAL_NO_AUTH_ACTION_COUNT", "0")  # moto checks signatures then
    denying = MotoServer.start(tmp_path / "denying-moto.log")
    try:
        for label, conf in (
            ("wrong credentials", object_store_conf),
            ("no credentials", {}),
        ):
            if not conf:
                for var in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"):
                    monkeypatch.delenv(var, raising=False)
                monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
                monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
            home = _toml(
                tmp_path / label.replace(" ", "-"),
                conf,
                catalog="glue",
                glue_endpoint=denying.endpoint,
                glue_region=glue.REGION,
            )
            code, out = _run(home, "migrate", "glue_bad.no_sd", "--target", "glue_bad.x")
            assert code == EXIT_ENVIRONMENT, (label, out)
            assert "Glue" in out["error"]["message"] and out["error"]["hint"], (label, out)
    finally:
        denying.stop()
    assert _catalog_state(moto.endpoint) == before


def _summary(inventory: dict[str, Any]) -> dict[str, Any]:
    """What a Hive user sees of each partition: rows, files, schema, anomalies."""
    return {
        p["name"]: (
            p["rows"],
            p["location"],
            sorted(f["path"] for f in p["files"]),
            sorted(a["code"] for a in p["anomalies"]),
            p.get("fingerprint"),
        )
        for p in inventory["partitions"]
    }


def test_an_inventory_from_glue_is_the_one_from_the_hive_metastore(
    glue_home: Path,
    catalog: GlueCatalog,
    client: Any,
    metastore_uri: str,
    object_store_conf: dict[str, str],
    tmp_path: Path,
) -> None:
    """The same files catalogued the same way in Glue and in a Hive Metastore (partition-level
    descriptors, ``_colN`` files, the NULL partition, a partition outside the table's root,
    unregistered directories) inspect to the same partitions, rows, files and anomalies; a
    bulk file's [catalog] section chooses Glue for its run."""
    storage = StorageOptions.from_spark_conf(object_store_conf)
    where = f"s3://{s3.BUCKET}/glue-inventory/click_log"
    common = {
        "location": where,
        "warehouse": f"s3://{s3.BUCKET}/glue-warehouse",
        "source": one_partition_per_feature(glue_home / "sample-source"),
    }
    source = load_sample(catalog, glue_home, database="glue_inv", storage=storage, **common)
    hive_home = _toml(tmp_path / "hive", object_store_conf)
    load_sample(client, hive_home, database="hms_inv", storage=storage, **common)

    code, from_glue = _run(glue_home, "inspect", "glue_inv.click_log")
    assert code == 0, from_glue
    hive = ["--home", str(hive_home), "--metastore-uri", metastore_uri, "--output", "json"]
    result = CliRunner().invoke(cli, [*hive, "inspect", "hms_inv.click_log"])
    from_hive = json.loads(result.output)
    assert _summary(from_glue) == _summary(from_hive)
    assert len(from_glue["partitions"]) == source.partitions
    codes = {code for p in _summary(from_glue).values() for code in p[3]}
    assert codes  # the sample's drift and oddities are seen through Glue too
    assert sorted(a["code"] for a in from_glue["anomalies"]) == sorted(
        a["code"] for a in from_hive["anomalies"]
    )

    bulk = tmp_path / "run.toml"
    endpoint = catalog.glue.meta.endpoint_url
    bulk.write_text(
        f'[catalog]\nkind = "glue"\nregion = "{glue.REGION}"\nendpoint = "{endpoint}"\n'
        '[[tables]]\nsource = "glue_inv.click_log"\nformat = "delta"\n'
    )
    plain = _toml(tmp_path / "plain", object_store_conf)  # no catalog setting: Hive by default
    code, planned = _run(plain, "bulk", str(bulk), "--dry-run")
    assert code == 0, planned
    (table,) = planned["tables"]
    assert table["status"] == "planned" and table["planned_rows"] == source.rows, table
    assert not (plain / "metastore").exists()  # no Hive Metastore was started for a Glue run

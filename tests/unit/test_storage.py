"""The storage seam: options from Spark's S3A keys, secrets masked, Store on a local disk, and a
contract that nothing but the seam touches a table location with local-only calls."""

from __future__ import annotations

import ast
import threading
from pathlib import Path

import pytest

from lakeshift.errors import NotFound
from lakeshift.storage import StorageOptions, Store, parse, redacted

LAKESHIFT = Path(__file__).resolve().parents[2] / "lakeshift"

CONF = {
    "spark.hadoop.fs.s3a.endpoint": "minio.internal:9000",
    "spark.hadoop.fs.s3a.connection.ssl.enabled": "false",
    "spark.hadoop.fs.s3a.path.style.access": "true",
    "spark.hadoop.fs.s3a.endpoint.region": "eu-west-1",
    "spark.hadoop.fs.s3a.access.key": "AKIAEXAMPLE",
    "spark.hadoop.fs.s3a.secret.key": "very-secret",
    "spark.hadoop.fs.s3.impl": "org.apache.hadoop.fs.s3a.S3AFileSystem",
    "spark.executor.memory": "4g",
}


def test_options_come_from_spark_s3a_keys_in_each_librarys_spelling() -> None:
    options = StorageOptions.from_spark_conf(CONF, env={})
    assert options.s3_endpoint == "http://minio.internal:9000"  # ssl off: http
    assert options.pyarrow_s3()["endpoint_override"] == "minio.internal:9000"
    assert options.pyarrow_s3()["scheme"] == "http"
    assert options.boto3_s3()["endpoint_url"] == "http://minio.internal:9000"
    rust = options.object_store()
    assert rust["AWS_ALLOW_HTTP"] == "true" and rust["AWS_REGION"] == "eu-west-1"
    assert rust["AWS_VIRTUAL_HOSTED_STYLE_REQUEST"] == "false"
    assert options.pyiceberg()["s3.secret-access-key"] == "very-secret"
    # The metastore gets the non-secret fs.* keys in its hive-site, credentials only in its
    # environment.
    hadoop = options.hadoop()
    assert hadoop["fs.s3.impl"] == "org.apache.hadoop.fs.s3a.S3AFileSystem"
    assert "very-secret" not in repr(hadoop) and "AKIAEXAMPLE" not in repr(hadoop)
    assert options.aws_environment()["AWS_SECRET_ACCESS_KEY"] == "very-secret"


def test_without_keys_each_library_keeps_its_default_chain() -> None:
    options = StorageOptions.from_spark_conf({}, env={"AWS_REGION": "us-west-2"})
    assert options.pyarrow_s3() == {"region": "us-west-2"}
    assert options.boto3_s3() == {"region_name": "us-west-2"}
    assert options.aws_environment() == {}


def test_secrets_never_show() -> None:
    options = StorageOptions.from_spark_conf(CONF, env={})
    for shown in (repr(options), str(redacted(CONF))):
        assert "very-secret" not in shown and "AKIAEXAMPLE" not in shown
    assert redacted(CONF)["spark.executor.memory"] == "4g"
    assert redacted({"spark.hadoop.fs.s3a.session.token": "t"}) == {
        "spark.hadoop.fs.s3a.session.token": "***"
    }


@pytest.mark.parametrize(
    ("location", "kind", "path"),
    [
        ("s3a://bucket/wh/t", "s3", "bucket/wh/t"),
        ("s3://bucket/wh/t", "s3", "bucket/wh/t"),
        ("s3n://bucket/wh/t", "s3", "bucket/wh/t"),
        ("gs://bucket/t", "gs", "bucket/t"),
        ("hdfs://nn:8020/wh/t", "hdfs", "/wh/t"),
        ("file:/data/t/dt=it%27s a%2Fb", "local", "/data/t/dt=it%27s a%2Fb"),
        ("file:///data/t", "local", "/data/t"),
        ("/data/t", "local", "/data/t"),
    ],
)
def test_every_scheme_names_one_store_and_paths_stay_undecoded(
    location: str, kind: str, path: str
) -> None:
    where = parse(location)
    assert (where.kind, where.path) == (kind, path)


def test_create_is_once_and_whole_even_when_writers_race(tmp_path: Path) -> None:
    store = Store(f"file:{tmp_path}")
    results: list[bool] = []

    def writer(i: int) -> None:
        results.append(store.create("_log/00000000000000000001.json", f"writer {i}\n" * 1000))

    threads = [threading.Thread(target=writer, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(results) == [False] * 7 + [True]
    text = store.read_text("_log/00000000000000000001.json")
    assert len(set(text.splitlines())) == 1 and len(text.splitlines()) == 1000
    assert [f.path for f in store.list_files()] == ["_log/00000000000000000001.json"]


def test_write_replaces_whole_copy_shares_and_missing_files_are_named(tmp_path: Path) -> None:
    store = Store(str(tmp_path))
    store.write("a/b.json", "1")
    store.write("a/b.json", "2")
    assert store.read_text("a/b.json") == "2"
    assert [f.path for f in store.list_files()] == ["a/b.json"]
    store.copy("a/b.json", "route/b.json")
    assert (tmp_path / "route" / "b.json").stat().st_ino == (
        tmp_path / "a" / "b.json"
    ).stat().st_ino
    assert store.read_text_if_exists("nope.json") is None
    with pytest.raises(NotFound, match=r"nope\.json"):
        store.read_text("nope.json")
    store.delete_dir("route")
    assert [f.path for f in store.list_files()] == ["a/b.json"]


#: Calls that only work on a local disk: outside the storage seam they must not touch a table.
_LOCAL_ONLY = {
    ("os", "link"),
    ("os", "replace"),
    ("os", "rename"),
    ("os", "unlink"),
    ("os", "remove"),
    ("os", "stat"),
    ("os", "listdir"),
    ("os", "scandir"),
    ("os", "walk"),
    ("os", "makedirs"),
    ("shutil", "rmtree"),
    ("shutil", "copytree"),
    ("shutil", "copyfile"),
    ("shutil", "move"),
}
#: Packages that work on table locations (targets, erasure audit, maintenance).
_TABLE_CODE = ("formats", "erase/audit.py", "maintain/layout.py")


def _local_calls(path: Path) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name):
                if (func.value.id, func.attr) in _LOCAL_ONLY:
                    found.append(f"{path.name}:{node.lineno} {func.value.id}.{func.attr}")
            elif isinstance(func, ast.Name) and func.id in ("open", "Path"):
                found.append(f"{path.name}:{node.lineno} {func.id}()")
    return found


def test_no_local_file_call_on_a_table_location_outside_the_storage_seam() -> None:
    files = [
        p
        for part in _TABLE_CODE
        for p in ([LAKESHIFT / part] if part.endswith(".py") else (LAKESHIFT / part).rglob("*.py"))
    ]
    assert len(files) > 20
    assert [call for f in files for call in _local_calls(f)] == []
    # Hard links exist only inside the seam (its local put-if-absent and copy).
    linked = [
        str(p.relative_to(LAKESHIFT))
        for p in LAKESHIFT.rglob("*.py")
        if "os.link(" in p.read_text() and "storage" not in p.parts
    ]
    assert linked == []


def test_object_store_failures_from_any_client_become_lakeshift_errors() -> None:
    from lakeshift.errors import EXIT_ENVIRONMENT, EXIT_NOT_FOUND
    from lakeshift.storage import translate

    denied = translate(
        OSError("When reading key 'src/t/000000_0' in bucket 'lake': AWS Error ACCESS_DENIED")
    )
    assert denied is not None and denied.exit_code == EXIT_ENVIRONMENT
    assert "bucket 'lake'" in denied.message and "credentials" in (denied.hint or "")
    missing = translate(RuntimeError("java.io.IOException: UnknownStoreException s3a://gone/t"))
    assert missing is not None and missing.exit_code == EXIT_NOT_FOUND
    assert "s3a://gone/t" in missing.message
    unreachable = translate(OSError("AWS Error NETWORK_CONNECTION during ListObjectsV2"))
    assert unreachable is not None and "endpoint" in (unreachable.hint or "")
    assert translate(ValueError("an ordinary bug")) is None

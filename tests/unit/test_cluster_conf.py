"""What a cluster's executors get through the Spark conf: the jar, lakeshift's code, the Python."""

from __future__ import annotations

import re
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from lakeshift.config import load_settings
from lakeshift.errors import ConfigError
from lakeshift.platform.jars import iceberg_runtime_jar
from lakeshift.platform.pyfiles import build_package_zip, package_zip_path
from lakeshift.platform.spark import (
    DRIVER_JAVA_OPTIONS,
    EXECUTOR_JAVA_OPTIONS,
    PYFILES,
    PYSPARK_PYTHON,
    SESSION_TIME_ZONE,
    WORKER_DISTUTILS,
    is_local_master,
    spark_conf,
)

URI = "thrift://127.0.0.1:9083"


@pytest.mark.parametrize(
    ("master", "local"),
    [
        ("local", True),
        ("local[2]", True),
        ("local[1,2]", True),
        ("local-cluster[1,1,512]", False),
        ("spark://h:7077", False),
        ("yarn", False),
        ("k8s://https://k:443", False),
    ],
)
def test_only_local_masters_run_executors_in_the_driver(master: str, local: bool) -> None:
    assert is_local_master(master) is local


def test_local_master_ships_no_zip(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    conf = spark_conf(load_settings({"home": tmp_path}, env={}), URI, None)
    assert PYFILES not in conf and conf[PYSPARK_PYTHON] == sys.executable


def test_cluster_master_ships_code_and_keeps_the_users_files(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("PYSPARK_PYTHON", raising=False)
    settings = load_settings(
        {
            "home": tmp_path,
            "spark_master": "yarn",
            "spark_conf": {
                "spark.jars": "/opt/extra.jar",
                PYFILES: "/opt/deps.zip",
                PYSPARK_PYTHON: "/usr/bin/python3",
            },
        },
        env={},
    )
    conf = spark_conf(settings, URI, None)
    ours = package_zip_path(tmp_path / "spark")
    assert conf[PYFILES] == f"{ours},/opt/deps.zip"
    assert conf["spark.jars"] == f"{iceberg_runtime_jar()},/opt/extra.jar"
    assert conf[PYSPARK_PYTHON] == "/usr/bin/python3"


def test_the_users_jvm_options_follow_lakeshifts_and_keep_utc(tmp_path: Path) -> None:
    users = {
        DRIVER_JAVA_OPTIONS: "-Dlog4j.configurationFile=file:/etc/mine.properties -Xss4m",
        EXECUTOR_JAVA_OPTIONS: " -XX:+UseG1GC ",
    }
    conf = spark_conf(load_settings({"home": tmp_path, "spark_conf": users}, env={}), URI, None)
    driver = conf[DRIVER_JAVA_OPTIONS].split()
    # lakeshift's first, the user's after: the JVM keeps the last -D, so their log4j file wins.
    assert driver[0] == "-Duser.timezone=UTC"
    assert driver[-2:] == ["-Dlog4j.configurationFile=file:/etc/mine.properties", "-Xss4m"]
    assert conf[EXECUTOR_JAVA_OPTIONS] == "-Duser.timezone=UTC -XX:+UseG1GC"


@pytest.mark.parametrize(("version", "stdlib"), [((3, 11, 9), True), ((3, 12, 1), False)])
def test_workers_take_the_standard_librarys_distutils_where_python_has_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, version: tuple[int, int, int], stdlib: bool
) -> None:
    monkeypatch.setattr(sys, "version_info", version)
    conf = spark_conf(load_settings({"home": tmp_path}, env={}), URI, None)
    assert (conf.get(WORKER_DISTUTILS) == "stdlib") is stdlib
    assert stdlib or WORKER_DISTUTILS not in conf
    users = {WORKER_DISTUTILS: "local"}
    conf = spark_conf(load_settings({"home": tmp_path, "spark_conf": users}, env={}), URI, None)
    assert conf[WORKER_DISTUTILS] == "local"


@pytest.mark.parametrize(
    ("key", "value"),
    [
        (DRIVER_JAVA_OPTIONS, "-Xss4m -Duser.timezone=Europe/Paris"),
        (EXECUTOR_JAVA_OPTIONS, "-Duser.timezone=America/New_York"),
        (SESSION_TIME_ZONE, "Asia/Tokyo"),
        (DRIVER_JAVA_OPTIONS, '-Dname="unclosed'),
    ],
)
def test_a_zone_other_than_utc_or_unreadable_options_are_refused_by_name(
    tmp_path: Path, key: str, value: str
) -> None:
    settings = load_settings({"home": tmp_path, "spark_conf": {key: value}}, env={})
    with pytest.raises(ConfigError, match=re.escape(key)):
        spark_conf(settings, URI, None)


def test_utc_by_another_name_is_accepted(tmp_path: Path) -> None:
    users = {DRIVER_JAVA_OPTIONS: "-Duser.timezone=Etc/UTC", SESSION_TIME_ZONE: "UTC"}
    conf = spark_conf(load_settings({"home": tmp_path, "spark_conf": users}, env={}), URI, None)
    assert conf[DRIVER_JAVA_OPTIONS].endswith("-Duser.timezone=Etc/UTC")


def test_the_zip_holds_the_package_and_imports_without_site_packages(tmp_path: Path) -> None:
    path = build_package_zip(package_zip_path(tmp_path))
    assert build_package_zip(package_zip_path(tmp_path)) == path  # same code, same zip
    names = zipfile.ZipFile(path).namelist()
    assert "lakeshift/migrate/faults.py" in names and not any("__pycache__" in n for n in names)
    # -S: no site-packages, and run elsewhere: lakeshift can come only from the zip.
    probe = "import lakeshift.migrate.faults as f; print(f.__file__)"
    out = subprocess.run(
        [sys.executable, "-S", "-c", probe],
        env={"PYTHONPATH": str(path)},
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=True,
    )
    assert out.stdout.strip().startswith(str(path))

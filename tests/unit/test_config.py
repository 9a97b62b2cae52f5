from __future__ import annotations

from pathlib import Path

import pytest

from lakeshift.config import Settings, load_settings, parse_conf_pairs
from lakeshift.errors import ConfigError


def test_defaults_when_nothing_is_given(tmp_path: Path) -> None:
    settings = load_settings({"home": tmp_path}, env={})
    assert settings.spark_master == Settings.spark_master
    assert settings.metastore_uri is None
    assert settings.mapping_mode == "auto"


def test_precedence_is_file_then_env_then_flags(tmp_path: Path) -> None:
    (tmp_path / "lakeshift.toml").write_text(
        'spark_master = "local[1]"\nshuffle_partitions = 3\nmapping_mode = "name"\n'
        '[spark_conf]\n"spark.a" = "file"\n"spark.b" = "file"\n'
    )
    env = {"LAKESHIFT_SHUFFLE_PARTITIONS": "5", "LAKESHIFT_MAPPING_MODE": "position"}
    flags = {"home": tmp_path, "mapping_mode": "auto", "spark_conf": {"spark.b": "flag"}}
    settings = load_settings(flags, env=env)
    assert settings.spark_master == "local[1]"  # file only
    assert settings.shuffle_partitions == 5  # env beats file
    assert settings.mapping_mode == "auto"  # flag beats env
    assert dict(settings.spark_conf) == {"spark.a": "file", "spark.b": "flag"}


def test_env_home_and_explicit_config_file(tmp_path: Path) -> None:
    config = tmp_path / "other.toml"
    config.write_text('[lakeshift]\nmetastore_uri = "thrift://hms:9083"\n')
    settings = load_settings({}, env={"LAKESHIFT_HOME": str(tmp_path)}, config_file=config)
    assert settings.home == tmp_path
    assert settings.metastore_uri == "thrift://hms:9083"


@pytest.mark.parametrize(
    ("flags", "fragment"),
    [
        ({"output": "xml"}, "output"),
        ({"mapping_mode": "guess"}, "mapping_mode"),
        ({"calendar": "julian"}, "calendar must be one of"),
        ({"hudi_table_version": "7"}, "hudi_table_version must be one of"),
        ({"hudi_parquet_codec": "lzo"}, "hudi_parquet_codec must be one of"),
        ({"hudi_gzip_level": "0"}, "hudi_gzip_level must be 1 to 9"),
        ({"metastore_uri": "http://hms:9083"}, "thrift://"),
        ({"metastore_port": "abc"}, "metastore_port"),
    ],
)
def test_bad_values_name_the_key(tmp_path: Path, flags: dict[str, str], fragment: str) -> None:
    with pytest.raises(ConfigError, match=fragment):
        load_settings({"home": tmp_path, **flags}, env={})


def test_hudi_table_version_from_the_environment(tmp_path: Path) -> None:
    settings = load_settings({"home": tmp_path}, env={"LAKESHIFT_HUDI_TABLE_VERSION": "8"})
    assert settings.hudi_table_version == 8
    assert load_settings({"home": tmp_path}, env={}).hudi_table_version == 6


def test_unknown_config_keys_are_refused(tmp_path: Path) -> None:
    (tmp_path / "lakeshift.toml").write_text('spark_mastr = "local"\n')
    with pytest.raises(ConfigError, match="spark_mastr"):
        load_settings({"home": tmp_path}, env={})


def test_conf_pairs() -> None:
    assert parse_conf_pairs(["a=1", "b = x=y"]) == {"a": "1", "b": "x=y"}
    with pytest.raises(ConfigError):
        parse_conf_pairs(["novalue"])


@pytest.mark.parametrize(
    ("uri", "problem"),
    [
        ("thrift://localhost:notaport", "bad port"),
        ("localhost:9083", "scheme"),
        ("http://hms:9083", "scheme"),
        ("thrift://:9083", "host is missing"),
        ("thrift://hms", "port is missing"),
        ("thrift://hms:70000", "bad port"),
        ("thrift://hms:0", "between 1 and 65535"),
        ("thrift://hms:9083/db?x=1", "no user, path or query"),
    ],
)
def test_malformed_metastore_uris_are_usage_errors(tmp_path: Path, uri: str, problem: str) -> None:
    with pytest.raises(ConfigError, match=problem) as caught:
        load_settings({"home": tmp_path, "metastore_uri": uri}, env={})
    assert caught.value.exit_code == 2
    assert repr(uri) in str(caught.value) and "thrift://HOST:PORT" in str(caught.value)


@pytest.mark.parametrize("uri", ["thrift://hms.example:9083", "thrift://[::1]:9083"])
def test_well_formed_metastore_uris_pass(tmp_path: Path, uri: str) -> None:
    settings = load_settings({"home": tmp_path}, env={"LAKESHIFT_METASTORE_URI": uri})
    assert settings.metastore_uri == uri


def test_metastore_bind_host_is_loopback_unless_an_ipv4_address_is_given(tmp_path: Path) -> None:
    assert load_settings({"home": tmp_path}, env={}).metastore_bind_host == "127.0.0.1"
    (tmp_path / "lakeshift.toml").write_text('metastore_bind_host = "192.0.2.7"\n')
    assert load_settings({"home": tmp_path}, env={}).metastore_bind_host == "192.0.2.7"
    env = {"LAKESHIFT_METASTORE_BIND_HOST": "0.0.0.0"}
    assert load_settings({"home": tmp_path}, env=env).metastore_bind_host == "0.0.0.0"


@pytest.mark.parametrize("host", ["localhost", "::1", "127.0.0", "300.1.1.1", "0.0.0.0:9083"])
def test_metastore_bind_host_that_is_no_ipv4_address_is_refused(tmp_path: Path, host: str) -> None:
    with pytest.raises(ConfigError, match=r"metastore_bind_host '.*' is not an IPv4") as caught:
        load_settings({"home": tmp_path}, env={"LAKESHIFT_METASTORE_BIND_HOST": host})
    assert caught.value.exit_code == 2
    assert "0.0.0.0 (every interface)" in (caught.value.hint or "")


def test_every_unknown_config_key_is_reported_at_once(tmp_path: Path) -> None:
    (tmp_path / "lakeshift.toml").write_text(
        'spark_mastr = "local"\noutptu = "json"\n[lakeshift]\nmaping_mode = "name"\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_settings({"home": tmp_path}, env={})
    message = str(caught.value)
    assert "3 unknown key(s)" in message
    assert all(key in message for key in ("spark_mastr", "outptu", "lakeshift.maping_mode"))


def test_top_level_keys_next_to_a_lakeshift_table_are_not_ignored(tmp_path: Path) -> None:
    (tmp_path / "lakeshift.toml").write_text(
        'spark_master = "local[1]"\n[lakeshift]\nmapping_mode = "name"\n'
    )
    settings = load_settings({"home": tmp_path}, env={})
    assert settings.spark_master == "local[1]" and settings.mapping_mode == "name"


def test_hive_time_zone_is_an_iana_name_and_reaches_the_semantics() -> None:
    with pytest.raises(ConfigError, match="hive_time_zone 'Mars/Olympus'"):
        Settings(hive_time_zone="Mars/Olympus")
    # Python's database knows it, Java's does not (its SQL would fail mid-migration)
    with pytest.raises(ConfigError, match="posix/America/New_York"):
        Settings(hive_time_zone="posix/America/New_York")
    chosen = load_settings(env={"LAKESHIFT_HIVE_TIME_ZONE": "America/New_York"}, config_file=None)
    assert chosen.hive.time_zone == "America/New_York"
    assert "time zone America/New_York" in chosen.hive.label
    assert "time zone" not in Settings().hive.label  # UTC, the default, goes unsaid


def test_hive_time_zone_needs_the_hosts_zone_files(monkeypatch: pytest.MonkeyPatch) -> None:
    """Arrow's zone kernels read /usr/share/zoneinfo: a host without it is told so at load,
    not mid-validation (a fake Arrow failure stands in for the missing files)."""
    import pyarrow as pa
    import pyarrow.compute as pc

    assert Settings(hive_time_zone="America/New_York").hive.jvm_zone == "America/New_York"

    def missing(*_: object) -> None:
        raise pa.ArrowInvalid("Cannot locate or parse timezone 'America/New_York'")

    monkeypatch.setattr(pc, "assume_timezone", missing)
    with pytest.raises(ConfigError, match="time-zone database") as raised:
        Settings(hive_time_zone="America/New_York")
    assert "tzdata" in (raised.value.hint or "")

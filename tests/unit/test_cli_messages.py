"""What the CLI prints and exits with when things go wrong (no metastore, no Spark)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from lakeshift.bulk import runner
from lakeshift.bulk.spec import load_bulk_spec
from lakeshift.cli import base
from lakeshift.cli.bulk_cmd import _markdown
from lakeshift.cli.main import cli
from lakeshift.cli.output import Output, safe_markup
from lakeshift.errors import EXIT_ENVIRONMENT, EXIT_NOT_FOUND, EXIT_USAGE, ConfigError, NotFound
from lakeshift.platform.ports import free_port


def _lakeshift(home: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "lakeshift.cli.main", "--home", str(home), *args],
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
        check=False,
    )


def test_malformed_metastore_uri_is_a_usage_error_naming_the_form(tmp_path: Path) -> None:
    uri = "thrift://localhost:notaport"
    result = CliRunner().invoke(
        cli, ["--home", str(tmp_path), "--metastore-uri", uri, "status", "a.b"]
    )
    assert result.exit_code == EXIT_USAGE
    assert uri in result.output and "thrift://HOST:PORT" in result.output
    assert "internal error" not in result.output


def test_no_traceback_before_the_message_for_a_bad_bulk_file(tmp_path: Path) -> None:
    bulk = tmp_path / "bad.toml"
    bulk.write_text('[[tables]]\nsource = "a.b"\nbatchrows = 5\n')
    done = _lakeshift(tmp_path / "fresh-home", "bulk", str(bulk))
    assert done.returncode == EXIT_USAGE
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("error: bulk file") and "batchrows" in done.stderr


def test_no_traceback_before_the_message_for_an_unreachable_metastore(tmp_path: Path) -> None:
    uri = f"thrift://127.0.0.1:{free_port()}"
    done = _lakeshift(
        tmp_path, "--metastore-uri", uri, "inspect", "a.b", LAKESHIFT_METASTORE_TIMEOUT="1"
    )
    assert done.returncode == EXIT_ENVIRONMENT
    assert "Traceback" not in done.stderr and done.stderr.startswith("error: the Hive Metastore")
    assert "Traceback" in (tmp_path / "logs" / "lakeshift.log").read_text()  # kept in the log


def test_bracketed_text_survives_in_messages_errors_and_tables(
    capsys: pytest.CaptureFixture[str],
) -> None:
    out = Output()
    out.message("[bold]bulk[/] x.toml: [bulk] parallel 3, partition [dt=1]")
    out.table("Problems", ["table", "what happened"], [("a.b", "[bulk] key [red] [/x]")])
    out.error("bulk file x.toml: [bulk] parallel must be an integer", code=2, log_file=None)
    captured = capsys.readouterr()
    assert "bulk x.toml: [bulk] parallel 3, partition [dt=1]" in captured.out
    assert "[bulk] key" in captured.out and "[/x]" in captured.out
    assert "[bulk] parallel must be an integer" in captured.err


def test_safe_markup_keeps_only_lakeshift_style_tags() -> None:
    assert safe_markup("[dim]a [b] c[/]") == "[dim]a \\[b] c[/]"
    assert safe_markup("[bold red]x[/bold red] [bulk]") == "[bold red]x[/bold red] \\[bulk]"


def test_bad_bulk_value_message_keeps_its_brackets(tmp_path: Path) -> None:
    bulk = tmp_path / "bad.toml"
    bulk.write_text('[bulk]\nparallel = 0\n[[tables]]\nsource = "a.b"\n')
    result = CliRunner().invoke(cli, ["--home", str(tmp_path), "bulk", str(bulk)])
    assert result.exit_code == EXIT_USAGE
    assert "[bulk] parallel must be an integer >= 1" in result.output


def test_every_unknown_bulk_key_is_reported_at_once(tmp_path: Path) -> None:
    bulk = tmp_path / "keys.toml"
    bulk.write_text(
        'extra = 1\n[bulk]\nparalel = 2\n[[tables]]\nsource = "a.b"\nbatchrows = 5\n'
        '[[tables]]\nsource = "a.c"\nswich = "none"\n'
    )
    with pytest.raises(ConfigError) as caught:
        load_bulk_spec(bulk)
    message = str(caught.value)
    for where, key in [
        ("the top level", "extra"),
        ("[bulk]", "paralel"),
        ("table #1", "batchrows"),
        ("table #2", "swich"),
    ]:
        assert f"{where} has unknown keys: {key}" in message


def test_piped_tables_keep_names_whole(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Output that is not a terminal is laid out wide, not at rich's 80 columns."""
    monkeypatch.delenv("COLUMNS", raising=False)
    codes = "file-reordered-columns, partition-behind-table, partition-column-renamed"
    name = "yyyymmdd=20220401/hour=23/region=eu-west-1"
    columns = ["partition", "rows", "files", "size", "format", "columns", "anomalies"]
    Output().table("Partitions", columns, [(name, "5,000", 3, "1.2 MiB", "orc", 12, codes)])
    (row,) = [line for line in capsys.readouterr().out.splitlines() if name in line]
    assert codes in row  # the whole row on one line


def test_columns_sets_the_width_of_piped_output(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "60")
    Output().table("T", ["table", "what happened"], [("a.b", "word " * 40)])
    assert max(len(line) for line in capsys.readouterr().out.splitlines()) == 60


def test_cutover_without_a_terminal_or_yes_is_a_usage_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(cli, ["--home", str(tmp_path), "cutover", "db.events"])
    assert result.exit_code == EXIT_USAGE
    assert "--yes" in result.output and "db.events" in result.output


def test_bulk_reports_the_parallelism_it_ran_with(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bulk = tmp_path / "three.toml"
    bulk.write_text(
        "[bulk]\nparallel = 2\n" + "".join(f'[[tables]]\nsource = "db.t{i}"\n' for i in range(3))
    )
    spec = load_bulk_spec(bulk)

    def fake_table(ctx: Any, table: Any, *args: Any) -> runner.TableOutcome:
        return runner.TableOutcome(table.source, table.target, status=runner.PLANNED)

    class FakeContext:
        metastore_uri = "thrift://unused:9083"
        uses_glue = False

    monkeypatch.setattr(runner, "_run_table", fake_table)
    result = runner.run_bulk(FakeContext(), spec, dry_run=True, parallel=3)  # type: ignore[arg-type]
    assert result.to_json()["parallel"] == 3
    assert "parallel 3" in _markdown(result)


class _MissingTableContext:
    """A context whose metastore has no tables and whose Spark must not be started."""

    def __init__(self, settings: Any) -> None:
        self.settings = settings
        self.metastore = self

    def get_table(self, db: str, table: str) -> Any:
        raise NotFound(f"table {db}.{table} does not exist.")

    @property
    def spark(self) -> Any:
        raise AssertionError("Spark started before the metastore was asked")

    def close(self) -> None:
        return None


@pytest.mark.parametrize("command", ["migrate", "validate"])
def test_missing_table_is_reported_before_spark_starts(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, command: str
) -> None:
    monkeypatch.setattr(base, "Context", _MissingTableContext)
    result = CliRunner().invoke(cli, ["--home", str(tmp_path), command, "db.nope"])
    assert result.exit_code == EXIT_NOT_FOUND, result.output
    assert "db.nope does not exist" in result.output

"""``lakeshift metastore start|stop|status`` and ``lakeshift hiveserver2 start|stop``."""

from __future__ import annotations

import click

from lakeshift.cli.base import CliState, pass_state
from lakeshift.platform.hiveserver2 import HiveServer2
from lakeshift.platform.metastore_server import MetastoreStatus
from lakeshift.platform.ports import EVERY_INTERFACE


@click.group()
def metastore() -> None:
    """Manage the embedded Hive Metastore under the state directory.

    \b
    It is a real Hive 2.3.9 metastore (Thrift, Derby) that keeps running between commands.
    Its Thrift port has no authentication, so by default it listens on 127.0.0.1 only; set
    metastore_bind_host (env LAKESHIFT_METASTORE_BIND_HOST) to 0.0.0.0 for every interface.
    \b
    Examples:
      lakeshift metastore start
      lakeshift --metastore-port 9083 metastore start
      LAKESHIFT_METASTORE_BIND_HOST=0.0.0.0 lakeshift metastore start
      lakeshift --output json metastore status
    """


@metastore.command()
@pass_state
def start(state: CliState) -> None:
    """Start the embedded metastore (or report the running one).

    \b
    Examples:
      lakeshift metastore start
      lakeshift --metastore-port 9083 metastore start
    """
    uri = state.context.embedded_metastore.ensure_running()
    status = state.context.embedded_metastore.status()
    state.output.message(
        f"metastore running at [bold]{uri}[/] (pid {status.pid}), {_listening(status)}"
    )
    state.output.result(status)


@metastore.command()
@pass_state
def stop(state: CliState) -> None:
    """Stop the embedded metastore.

    \b
    Example:
      lakeshift metastore stop
    """
    stopped = state.context.embedded_metastore.stop()
    state.output.message("metastore stopped" if stopped else "metastore was not running")
    state.output.result({"stopped": stopped})


@metastore.command()
@pass_state
def status(state: CliState) -> None:
    """Show whether the embedded metastore runs, its URI, pid and log file.

    \b
    Examples:
      lakeshift metastore status
      lakeshift --output json metastore status
    """
    current = state.context.embedded_metastore.status()
    if current.running:
        state.output.message(
            f"running at {current.uri} (pid {current.pid}), {_listening(current)}; "
            f"log {current.log_file}"
        )
    else:
        note = " (removed a stale pid file)" if current.stale_pid_removed else ""
        state.output.message(f"not running{note}; `lakeshift metastore start` starts it")
    state.output.result(current)


def _listening(status: MetastoreStatus) -> str:
    if status.bind_host == EVERY_INTERFACE:
        return "listening on every network interface"
    return f"listening on {status.bind_host}"


@click.group()
def hiveserver2() -> None:
    """Run a HiveServer2-protocol server on 127.0.0.1 (Spark Thrift Server) for pyhive.

    \b
    Examples:
      lakeshift hiveserver2 start
      lakeshift hiveserver2 stop
    """


@hiveserver2.command("start")
@pass_state
def hs2_start(state: CliState) -> None:
    """Start HiveServer2 against the configured (or embedded) metastore.

    \b
    Examples:
      lakeshift hiveserver2 start
      lakeshift --metastore-uri thrift://hms:9083 hiveserver2 start
    """
    server = HiveServer2(state.context.home, state.context.metastore_uri)
    port = server.start()
    state.output.message(f"HiveServer2 listening on 127.0.0.1:{port}")
    state.output.result({"host": "127.0.0.1", "port": port})


@hiveserver2.command("stop")
@pass_state
def hs2_stop(state: CliState) -> None:
    """Stop HiveServer2.

    \b
    Example:
      lakeshift hiveserver2 stop
    """
    server = HiveServer2(state.context.home, state.settings.metastore_uri or "thrift://unused:1")
    stopped = server.stop()
    state.output.message("HiveServer2 stopped" if stopped else "HiveServer2 was not running")
    state.output.result({"stopped": stopped})

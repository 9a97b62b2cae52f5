"""``lakeshift`` entry point: the command group with every command registered."""

from __future__ import annotations

import logging
import os
import sys

from lakeshift.cli import (
    assess_cmd,
    bulk_cmd,
    demo_cmd,
    erase_cmd,
    follow_cmd,
    inspect_cmd,
    interactive_cmd,
    maintain_cmd,
    metastore_cmd,
    migrate_cmd,
    report_cmd,
    retire_cmd,
    route_cmd,
    sample_cmd,
    schema_cmd,
    validate_cmd,
)
from lakeshift.cli.base import cli

cli.add_command(metastore_cmd.metastore)
cli.add_command(metastore_cmd.hiveserver2)
cli.add_command(sample_cmd.sample)
cli.add_command(inspect_cmd.inspect_command)
cli.add_command(assess_cmd.assess_command)
cli.add_command(schema_cmd.schema_command)
cli.add_command(migrate_cmd.plan_command)
cli.add_command(migrate_cmd.migrate_command)
cli.add_command(validate_cmd.validate_command)
cli.add_command(follow_cmd.follow_command)
for command in (
    route_cmd.switch_command,
    route_cmd.rollback_command,
    route_cmd.status_command,
    route_cmd.cutover_command,
    route_cmd.revert_command,
):
    cli.add_command(command)
cli.add_command(report_cmd.report_command)
cli.add_command(interactive_cmd.interactive_command)
cli.add_command(bulk_cmd.bulk_command)
cli.add_command(demo_cmd.demo)
cli.add_command(retire_cmd.retire_command)
cli.add_command(maintain_cmd.maintain_command)
cli.add_command(erase_cmd.erase_command)


def main() -> None:
    try:
        cli(prog_name="lakeshift")
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    if "deltalake" in sys.modules:
        # delta-rs sometimes aborts at interpreter exit ("terminate called without an active
        # exception", exit 134; ../shared/DELTA.md). Leave with lakeshift's own exit code.
        sys.stdout.flush()
        sys.stderr.flush()
        logging.shutdown()
        os._exit(code)
    sys.exit(code)


if __name__ == "__main__":
    main()

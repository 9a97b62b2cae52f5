"""``lakeshift`` entry point: the command group with every command registered."""

from __future__ import annotations

from lakeshift.cli import (
    bulk_cmd,
    demo_cmd,
    inspect_cmd,
    interactive_cmd,
    metastore_cmd,
    migrate_cmd,
    report_cmd,
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
cli.add_command(schema_cmd.schema_command)
cli.add_command(migrate_cmd.plan_command)
cli.add_command(migrate_cmd.migrate_command)
cli.add_command(validate_cmd.validate_command)
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


def main() -> None:
    cli(prog_name="lakeshift")


if __name__ == "__main__":
    main()

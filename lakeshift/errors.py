"""One exception tree for lakeshift; every error carries its process exit code.

Exit codes are part of the public interface (README "Exit codes"):

=====  ==========================================================================
0      success
1      internal error (a bug: please report it with the log file)
2      usage error (bad flags or arguments)
3      partial failure (some partitions or tables failed, the others finished)
4      validation mismatch (source and target differ)
5      environment problem (Java, ports, metastore unreachable, state directory)
6      not found (database, table or partition does not exist)
7      refused input (unsupported table, schema that cannot map, corrupt data)
8      conflict (another migrator holds the table's lease)
9      erasure audit failed (erased keys or values still found in a file of the table)
130    interrupted (Ctrl-C); re-run the same command to resume
=====  ==========================================================================
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_INTERNAL = 1
EXIT_USAGE = 2
EXIT_PARTIAL = 3
EXIT_VALIDATION = 4
EXIT_ENVIRONMENT = 5
EXIT_NOT_FOUND = 6
EXIT_REFUSED = 7
EXIT_CONFLICT = 8
EXIT_AUDIT = 9
EXIT_INTERRUPTED = 130


class LakeshiftError(Exception):
    """Base of every error lakeshift raises on purpose.

    The message names the object concerned and says what to do next.
    """

    exit_code = EXIT_INTERNAL

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message}\n{self.hint}" if self.hint else self.message


class UsageError(LakeshiftError):
    """The command line or configuration file is wrong."""

    exit_code = EXIT_USAGE


class ConfigError(UsageError):
    """A configuration file, environment variable or flag has a bad value."""

    default_hint = (
        'README "Configuration" lists every key, its values and where it can be set '
        "(HOME/lakeshift.toml, LAKESHIFT_* variables, flags)."
    )

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint or self.default_hint)


class BulkFileError(ConfigError):
    """A bulk file is missing, unreadable or holds bad sections, keys or values."""

    default_hint = 'README "Bulk files" lists the sections, keys and values a bulk file takes.'


class EnvironmentProblem(LakeshiftError):
    """Something outside lakeshift's data is missing or broken (Java, ports, disks)."""

    exit_code = EXIT_ENVIRONMENT


class JavaNotFound(EnvironmentProblem):
    """No usable Java 17+ runtime on PATH."""


class PortInUse(EnvironmentProblem):
    """A server could not bind its port."""


class StateDirError(EnvironmentProblem):
    """The state directory cannot be created or written."""


class MetastoreStartError(EnvironmentProblem):
    """The embedded metastore (or HiveServer2) did not come up."""


class MetastoreUnreachable(EnvironmentProblem):
    """A metastore URI does not answer Thrift calls."""


class NotFound(LakeshiftError):
    """A database, table or partition does not exist."""

    exit_code = EXIT_NOT_FOUND


class RefusedInput(LakeshiftError):
    """The input is of a kind lakeshift will not migrate, or cannot map safely."""

    exit_code = EXIT_REFUSED


class UnsupportedTable(RefusedInput):
    """The table is bucketed, transactional, a view, or not stored as ORC."""


class MetastoreRefused(RefusedInput):
    """The metastore refused an operation (already exists, invalid object, server error)."""


class SchemaMappingError(RefusedInput):
    """A Hive schema change cannot be represented in the target format."""


class CorruptFile(RefusedInput):
    """A data file cannot be read."""


class PartialFailure(LakeshiftError):
    """Some units of work failed while the others finished."""

    exit_code = EXIT_PARTIAL


class ValidationMismatch(LakeshiftError):
    """Source and target differ."""

    exit_code = EXIT_VALIDATION


class LeaseHeld(LakeshiftError):
    """Another migrator holds the table's lease."""

    exit_code = EXIT_CONFLICT


class AuditFailed(LakeshiftError):
    """An erasure's audit found erased keys or values in a file under the table location."""

    exit_code = EXIT_AUDIT


class Interrupted(LakeshiftError):
    """The user stopped the run (Ctrl-C); what was committed stays, a re-run resumes."""

    exit_code = EXIT_INTERRUPTED

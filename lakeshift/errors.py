"""One exception tree for lakeshift; every error carries its process exit code.

Exit codes are part of the public interface (the manual: docs/reference/exit-codes.md; its
generated exit-code page is read from the constants and classes below):

=====  ==========================================================================
0      success
1      internal error (a bug: please report it with the log file)
2      usage error (bad flags or arguments)
3      partial failure (some partitions or tables failed, the others finished)
4      validation mismatch (source and target differ)
5      environment problem (Java, ports, metastore unreachable, state directory)
6      not found (database, table or partition does not exist)
7      refused input (unsupported table, schema that cannot map, corrupt data)
8      conflict (another migrator holds the table's lease, another writer committed to the
       target, a catalog entry changed under lakeshift)
9      erasure audit failed (erased keys or values still found in a file of the table)
10     behind (``follow`` ended with partitions the lake table has not caught up with yet)
130    interrupted (Ctrl-C); re-run the same command to resume
=====  ==========================================================================
"""

from __future__ import annotations

import base64
import functools
import json
import re
from collections.abc import Callable, Iterable, Iterator
from typing import ParamSpec, TypeVar

P = ParamSpec("P")
T = TypeVar("T")

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
EXIT_BEHIND = 10
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
        "docs/reference/configuration.md (the manual) lists every key, its values and where "
        "it can be set "
        "(HOME/lakeshift.toml, LAKESHIFT_* variables, flags)."
    )

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint or self.default_hint)


class BulkFileError(ConfigError):
    """A bulk file is missing, unreadable or holds bad sections, keys or values."""

    default_hint = (
        "docs/guide/bulk.md (the manual) lists the sections, keys and values a bulk file takes."
    )


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


class ConcurrentChange(LakeshiftError):
    """A catalog entry changed between lakeshift's read and its update (not overwritten)."""

    exit_code = EXIT_CONFLICT


class Behind(LakeshiftError):
    """``follow`` ended with partitions the lake table has not caught up with yet."""

    exit_code = EXIT_BEHIND


class ConcurrentCommit(LeaseHeld):
    """Another writer committed to a lake target since lakeshift's own last commit there (or
    left a write pending in it); lakeshift wrote nothing on top of it."""


class AuditFailed(LakeshiftError):
    """An erasure's audit found erased keys or values in a file under the table location."""

    exit_code = EXIT_AUDIT


class Interrupted(LakeshiftError):
    """The user stopped the run (Ctrl-C); what was committed stays, a re-run resumes."""

    exit_code = EXIT_INTERRUPTED


# --- Errors raised in Spark task code -------------------------------------------------------
# Spark gives the driver only the text of a failed Python task's traceback (inside a
# PythonException, or a Py4JJavaError when a JVM action ran the task), so a LakeshiftError
# raised in task code would reach the CLI as an internal error. ``in_task`` writes the error's
# kind, exit code, message and hint into that text on one line; ``from_task`` finds it again on
# the driver. Hand-written: neither PySpark nor py4j carries a Python exception object back.
_TASK_MARK = "lakeshift-task-error:"
_TASK_PAYLOAD = re.compile(re.escape(_TASK_MARK) + r"([A-Za-z0-9+/=]+)")


class TaskError(RuntimeError):
    """The carrier of a LakeshiftError out of a Spark task (see ``from_task``)."""

    def __init__(self, error: LakeshiftError) -> None:
        payload = {
            "kind": type(error).__name__,
            "exit_code": error.exit_code,
            "message": error.message,
            "hint": error.hint,
        }
        encoded = base64.b64encode(json.dumps(payload).encode()).decode("ascii")
        super().__init__(f"{type(error).__name__}: {error.message} {_TASK_MARK}{encoded}")


def in_task(fn: Callable[P, Iterable[T]]) -> Callable[P, Iterator[T]]:
    """Wrap a Spark task function (``mapInArrow``'s): a LakeshiftError it raises leaves the
    task as a ``TaskError`` that ``from_task`` turns back into the same error on the driver.

    The driver's object-store options travel with the function (executors are other processes,
    often on other hosts), so the task's ``Store``s reach the same stores. The worker's
    archives are kept read for its next tasks (``platform.python_worker``).
    """
    # Imported here: the storage package itself imports this module.
    from lakeshift.platform.python_worker import keep_archives
    from lakeshift.storage import options as storage_options

    driver_options = storage_options.current()

    @functools.wraps(fn)
    def run(*args: P.args, **kwargs: P.kwargs) -> Iterator[T]:
        keep_archives()  # the worker's next tasks start sooner
        storage_options.configure(driver_options)
        try:
            yield from fn(*args, **kwargs)
        except LakeshiftError as e:
            raise TaskError(e) from e

    return run


def _error_class(kind: str) -> type[LakeshiftError] | None:
    pending: list[type[LakeshiftError]] = [LakeshiftError]
    while pending:
        cls = pending.pop()
        if cls.__name__ == kind:
            return cls
        pending.extend(cls.__subclasses__())
    return None


def causes(error: BaseException) -> Iterator[BaseException]:
    """``error``, then what it was raised from or during, each once (a chain may loop)."""
    current: BaseException | None = error
    seen: set[int] = set()
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        yield current
        current = current.__cause__ or current.__context__


def first_line(error: BaseException, limit: int) -> str:
    """The first line of ``error``'s message (at most ``limit`` characters), or its type's
    name when it has none: what a one-paragraph message quotes of a client's failure."""
    text = str(error).strip()
    return text.splitlines()[0][:limit] if text else type(error).__name__


def from_task(error: BaseException) -> LakeshiftError | None:
    """The LakeshiftError a Spark task raised, found in ``error`` or its causes (None when the
    failure did not come from one)."""
    for current in causes(error):
        if isinstance(current, LakeshiftError):
            return current
        match = _TASK_PAYLOAD.search(str(current))
        if match:
            payload = json.loads(base64.b64decode(match.group(1)))
            cls = _error_class(payload["kind"]) or LakeshiftError
            # Built without the subclass's own __init__ (some take other arguments).
            found = cls.__new__(cls)
            LakeshiftError.__init__(found, payload["message"], hint=payload["hint"])
            if found.exit_code != payload["exit_code"]:
                found.exit_code = payload["exit_code"]
            return found
    return None

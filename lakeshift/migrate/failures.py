"""Why a batch failed, in one line: the deepest cause, and the source file it names.

A failed Spark write surfaces as ``Py4JJavaError ... overwritePartitions`` wrapping a chain of
Java exceptions; the useful part (``Read past end of RLE integer`` and the ORC file it came
from) is at the bottom of that chain. This module finds it so the terminal, the JSON result,
the journal and the report can show it instead of the wrapper.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from urllib.parse import unquote

from lakeshift.errors import from_task
from lakeshift.inspect.model import TableInventory
from lakeshift.storage import filesystem_for

_CAUSED_BY = re.compile(r"^(?:Caused by: |: )?([\w$.]+(?:Exception|Error|Throwable)[\w$]*): ?(.*)$")
_FILE = re.compile(r"(?:file|hdfs|s3a?|abfss?|gs|viewfs):/[^\s,;'\"]+|(?<![\w:/])/[^\s,;'\":]+")
_MAX = 600


@dataclass(frozen=True)
class FailureCause:
    """The deepest exception of a failure and the source file it names (if any)."""

    exception: str
    message: str
    file: str | None = None
    partition: str | None = None

    def text(self) -> str:
        where = ""
        if self.file:
            where = f" reading {self.file}" + (
                f" (partition {self.partition})" if self.partition else ""
            )
        return f"{self.exception}: {self.message}{where}"[:_MAX]


def root_cause(error: BaseException, inventory: TableInventory | None = None) -> FailureCause:
    """The deepest cause of ``error`` (Java causes included) and the data file it names; a
    lakeshift error raised in a Spark task is the cause itself, as it was raised."""
    carried = from_task(error)
    if carried is not None:
        file = _named_file(carried.message, inventory)
        partition = _partition_of(file, inventory) if file else None
        return FailureCause(type(carried).__name__, carried.message, file, partition)
    chain: list[tuple[str, str]] = []
    current: BaseException | None = error
    while current is not None:
        chain.append((type(current).__name__, str(current)))
        current = current.__cause__ or (
            current.__context__ if not current.__suppress_context__ else None
        )
    causes: list[tuple[str, str]] = []
    for name, text in chain:
        found = _java_causes(text)
        causes.extend(found or [(name, text.strip().splitlines()[0] if text.strip() else "")])
    exception, message = next(((e, m) for e, m in reversed(causes) if m), causes[-1])
    file = _named_file(" ".join(m for _, m in causes), inventory)
    partition = _partition_of(file, inventory) if file else None
    return FailureCause(exception.rsplit(".", 1)[-1], message.strip(), file, partition)


def _java_causes(text: str) -> list[tuple[str, str]]:
    """(exception class, message) of each exception line of a Java stack trace, outer first."""
    out = []
    for line in text.splitlines():
        match = _CAUSED_BY.match(line.strip())
        if match and not line.startswith("\tat "):
            out.append((match.group(1), match.group(2)))
    return out


def _candidates(text: str) -> list[str]:
    return [unquote(m.rstrip(".)],:;")) for m in _FILE.findall(text)]


def _local(path: str) -> str:
    return re.sub(r"^file:(//)?", "", path)


def file_location(location: str, relative: str) -> str:
    """A partition file's location as Spark names it in errors (a plain path locally; the
    scheme kept on other stores: ``Path`` would fold ``s3a://`` into ``s3a:/``)."""
    return f"{_local(location).rstrip('/')}/{relative}"


def _named_file(text: str, inventory: TableInventory | None) -> str | None:
    """The first path in ``text`` that is a data file of ``inventory`` (else any path)."""
    paths = _candidates(text)
    if inventory is not None:
        known = {
            file_location(p.location, f.path): p.name for p in inventory.partitions for f in p.files
        }
        for path in paths:
            if _local(path) in known:
                return _local(path)
    return None


def _partition_of(file: str, inventory: TableInventory | None) -> str | None:
    if inventory is None:
        return None
    for p in inventory.partitions:
        for f in p.files:
            if file_location(p.location, f.path) == file:
                return p.name
    return None


def unreadable_files(location: str, files: list[tuple[str, str]]) -> dict[str, str]:
    """Which of a partition's ``(relative path, format)`` files cannot be read through,
    stripe by stripe (ORC) or row group by row group (Parquet), with pyarrow: path -> why."""
    import pyarrow.orc as orc
    import pyarrow.parquet as pq

    fs, root = filesystem_for(location)
    bad: dict[str, str] = {}
    for relative, kind in files:
        path = file_location(location, relative)
        try:
            with fs.open_input_file(f"{root.rstrip('/')}/{relative}") as handle:
                if kind == "orc":
                    reader = orc.ORCFile(handle)
                    for stripe in range(reader.nstripes):
                        reader.read_stripe(stripe)
                elif kind == "parquet":
                    parquet = pq.ParquetFile(handle)
                    for group in range(parquet.num_row_groups):
                        parquet.read_row_group(group)
        except Exception as e:  # any reader error means Hive cannot read the file either
            bad[path] = f"{type(e).__name__}: {str(e).splitlines()[0][:300] if str(e) else ''}"
    return bad

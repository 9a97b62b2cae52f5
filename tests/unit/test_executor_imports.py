"""Code that runs inside Spark tasks imports only what executors need (pyarrow, numpy,
lakeshift's own modules): not the driver's Thrift metastore client, table-format libraries or
terminal UI, which a cluster's executors need not have installed."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

DRIVER_ONLY = {
    "thrift",
    "hive_metastore",
    "pyiceberg",
    "deltalake",
    "hudi",
    "datafusion",
    "fastavro",
    "rich",
    "click",
}
EXECUTOR_MODULES = [
    "lakeshift.formats.hudi.task_writer",  # Hudi base files
    "lakeshift.text.scan",  # text and SequenceFile partitions
    "lakeshift.validate.independent.task",  # the independent reader
    "lakeshift.inspect.spread",  # inspection spread over Spark tasks
]


@pytest.mark.parametrize("module", EXECUTOR_MODULES)
def test_task_code_imports_no_driver_library(module: str) -> None:
    probe = (
        "import json, sys\n"
        f"import {module}\n"
        "print(json.dumps(sorted({m.split('.')[0] for m in sys.modules})))"
    )
    loaded = set(json.loads(subprocess.check_output([sys.executable, "-c", probe], text=True)))
    assert module.split(".")[0] in loaded  # the probe really imported it
    assert loaded & DRIVER_ONLY == set()

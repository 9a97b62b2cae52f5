"""The Java class that runs Hive 2.3.9's metastore on one address (``HiveMetaStoreOnHost.java``).

Hive 2.3's own ``HiveMetaStore`` main binds every interface; the launcher, shipped as source in
this package, takes the same steps with Hive's classes but binds the host it is given. It is
compiled once per source version into the state directory: Java's single-file source launcher
would compile it again (about 2 s) at every start.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
from pathlib import Path

from lakeshift.errors import JavaNotFound, MetastoreStartError
from lakeshift.platform.java import JavaRuntime
from lakeshift.platform.processes import log_tail

LAUNCHER_CLASS = "lakeshift.platform.HiveMetaStoreOnHost"
LAUNCHER_SOURCE = Path(__file__).with_name("HiveMetaStoreOnHost.java")
# One short compile: javac's JIT limited to C1 with the serial collector, and no search of the
# 250-odd jars for annotation processors, halve its CPU (measured: 3.8 -> 1.8 s).
_JAVAC_OPTIONS = ("-J-XX:TieredStopAtLevel=1", "-J-XX:+UseSerialGC", "-proc:none", "-nowarn")


def launcher_dir(root: Path) -> Path:
    """Where the launcher compiled from this package's source lives under ``root``.

    Named for the source's digest, so an upgraded lakeshift compiles its own version.
    """
    digest = hashlib.sha256(LAUNCHER_SOURCE.read_bytes()).hexdigest()[:16]
    return root / digest


def compile_launcher(java: JavaRuntime, classpath: str, root: Path, log_file: Path) -> Path:
    """Return the directory holding the compiled launcher, compiling it first if needed.

    Args:
        java: the runtime whose ``javac`` compiles it.
        classpath: the Hive, Thrift and Hadoop jars it is compiled against.
        root: the state directory's launcher directory.
        log_file: where javac's messages go.
    """
    target = launcher_dir(root)
    if target.is_dir():
        return target
    javac = java.tool("javac")
    if javac is None:
        raise JavaNotFound(
            f"javac was not found next to {java.java}; the embedded metastore needs a full "
            "JDK to compile its launcher once.",
            hint="Install a JDK (Debian: `apt-get install openjdk-17-jdk-headless`).",
        )
    # Compiled aside and renamed whole: an interrupted javac leaves no half directory behind.
    staging = target.with_name(target.name + f".{os.getpid()}.tmp")
    shutil.rmtree(staging, ignore_errors=True)
    with log_file.open("ab") as out:
        result = subprocess.run(
            [
                str(javac),
                *_JAVAC_OPTIONS,
                "-d",
                str(staging),
                "-cp",
                classpath,
                str(LAUNCHER_SOURCE),
            ],
            stdout=out,
            stderr=subprocess.STDOUT,
            timeout=300,
            check=False,
        )
    if result.returncode != 0:
        shutil.rmtree(staging, ignore_errors=True)
        raise MetastoreStartError(
            f"could not compile the embedded metastore's launcher {LAUNCHER_SOURCE.name}.\n"
            f"Last lines of {log_file}:\n{log_tail(log_file)}",
            hint="Check that the JDK is 17 or newer and pyspark's jars are intact.",
        )
    os.replace(staging, target)
    return target

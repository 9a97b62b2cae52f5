"""Find a Java 17+ runtime (Spark 3.5 and the Hive 2.3 metastore need one)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from lakeshift.errors import JavaNotFound

MIN_JAVA = 17
_INSTALL_HINT = (
    "Install a JDK 17 or newer (Debian/Ubuntu: `apt-get install openjdk-17-jdk-headless`) "
    "and make sure `java` is on PATH or JAVA_HOME points at it."
)


@dataclass(frozen=True)
class JavaRuntime:
    java: Path
    version: int

    @property
    def home(self) -> Path:
        return self.java.resolve().parent.parent

    def tool(self, name: str) -> Path | None:
        """Another JDK tool (``jshell``) next to this ``java``, if the JDK has it."""
        candidate = self.java.resolve().parent / name
        return candidate if candidate.exists() else None


def _version_of(java: Path) -> int:
    try:
        out = subprocess.run(
            [str(java), "-version"], capture_output=True, text=True, timeout=30, check=False
        )
    except OSError as e:
        raise JavaNotFound(f"cannot run {java}: {e.strerror}", hint=_INSTALL_HINT) from e
    match = re.search(r'version "(\d+)(?:\.(\d+))?', out.stderr + out.stdout)
    if not match:
        raise JavaNotFound(f"cannot tell the version of {java}", hint=_INSTALL_HINT)
    major = int(match.group(1))
    return int(match.group(2) or 0) if major == 1 else major


def find_java() -> JavaRuntime:
    """Return the Java runtime to use, or raise :class:`JavaNotFound` saying what to install."""
    java_home = os.environ.get("JAVA_HOME")
    candidate = Path(java_home) / "bin" / "java" if java_home else None
    if candidate is None or not candidate.exists():
        found = shutil.which("java")
        candidate = Path(found) if found else None
    if candidate is None:
        raise JavaNotFound("Java was not found on PATH.", hint=_INSTALL_HINT)
    version = _version_of(candidate)
    if version < MIN_JAVA:
        raise JavaNotFound(
            f"Java {version} at {candidate} is too old; lakeshift needs Java {MIN_JAVA}+.",
            hint=_INSTALL_HINT,
        )
    return JavaRuntime(java=candidate, version=version)

"""Spark's way to an Iceberg catalog it has no client for: Iceberg's REST catalog protocol,
served on 127.0.0.1 in the driver's process, in front of a pyiceberg catalog.

The Iceberg Spark runtime lakeshift ships (from PyPI) holds Iceberg's Glue catalog classes but
not the AWS SDK v2 they need, and no PyPI package carries that SDK. Its REST catalog client
needs nothing more, so Spark talks REST to this bridge, and the bridge loads tables and commits
through pyiceberg's ``GlueCatalog``: the commit is pyiceberg's (requirements checked against
the current metadata, a new metadata file, ``UpdateTable`` with the ``VersionId`` read before
it), so Glue stays the only place that says which metadata is current. Spark's executors never
call the bridge: they write data files through Hadoop's file system (``HadoopFileIO``).

Hand-written: pyiceberg has the protocol's request and response models but no server; only the
endpoints Spark uses for loading, writing, deleting and maintaining an existing table are
served (creating and dropping tables go through pyiceberg directly).
"""

from __future__ import annotations

import hashlib
import json
import logging
import secrets
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any
from urllib.parse import unquote, urlsplit

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyspark.sql import SparkSession

log = logging.getLogger(__name__)
PREFIX = "/v1/"


def _json(metadata: Any) -> Any:
    return json.loads(metadata.model_dump_json())


class _Handler(BaseHTTPRequestHandler):
    server: _Server

    def log_message(self, fmt: str, *args: Any) -> None:
        log.debug("iceberg rest: " + fmt, *args)

    def _reply(self, status: int, body: Any = None) -> None:
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def _error(self, status: int, kind: str, message: str) -> None:
        self._reply(status, {"error": {"message": message, "type": kind, "code": status}})

    def _route(self) -> list[str]:
        path = urlsplit(self.path).path
        if not path.startswith(PREFIX):
            return []
        return [unquote(p) for p in path[len(PREFIX) :].split("/") if p]

    def _handle(self, method: str) -> None:
        parts = self._route()
        if self.headers.get("Authorization") != f"Bearer {self.server.token}":
            self._error(401, "NotAuthorizedException", "lakeshift's REST bridge: bad token")
            return
        body = self._body()
        try:
            self._answer(method, parts, body)
        except (BrokenPipeError, ConnectionResetError):  # the client went away: nothing to do
            log.debug("iceberg rest: client gone during %s %s", method, self.path)

    def _answer(self, method: str, parts: list[str], body: bytes) -> None:
        from pydantic import ValidationError
        from pyiceberg.exceptions import (
            CommitFailedException,
            NoSuchNamespaceError,
            NoSuchTableError,
        )

        try:
            with self.server.lock:
                status, answer = self.server.dispatch(method, parts, body)
            self._reply(status, answer)
        except NoSuchTableError as e:
            self._error(404, "NoSuchTableException", str(e))
        except NoSuchNamespaceError as e:
            self._error(404, "NoSuchNamespaceException", str(e))
        except CommitFailedException as e:
            # Iceberg's client refreshes and retries its commit on 409.
            self._error(409, "CommitFailedException", str(e))
        except (ValidationError, ValueError) as e:
            # A request this bridge cannot apply: nothing was written, the commit failed.
            # (5xx would tell Iceberg's client the commit's state is unknown.)
            self._error(400, "BadRequestException", str(e))
        except (BrokenPipeError, ConnectionResetError):
            raise
        except Exception as e:  # the client must get an answer; the log keeps the details
            log.exception("iceberg rest bridge: %s %s failed", method, self.path)
            self._error(500, type(e).__name__, str(e))

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def do_GET(self) -> None:
        self._handle("GET")

    def do_HEAD(self) -> None:
        self._handle("HEAD")

    def do_POST(self) -> None:
        self._handle("POST")

    def do_DELETE(self) -> None:
        self._handle("DELETE")


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, catalog: Catalog) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.catalog = catalog
        self.lock = threading.Lock()
        # Only this process's Spark knows it: other local processes cannot use the bridge.
        self.token = secrets.token_urlsafe(24)

    def dispatch(self, method: str, parts: list[str], body: bytes) -> tuple[int, Any]:
        from pyiceberg.table import CommitTableRequest

        catalog = self.catalog
        route = (method, len(parts), parts[0] if parts else "", parts[2] if len(parts) > 2 else "")
        if method == "GET" and parts == ["config"]:
            return 200, {"defaults": {}, "overrides": {}}
        if method == "GET" and parts == ["namespaces"]:
            return 200, {"namespaces": [list(n) for n in catalog.list_namespaces()]}
        if route[:3] in (("GET", 2, "namespaces"), ("HEAD", 2, "namespaces")):
            catalog.load_namespace_properties(parts[1])
            return (204, None) if method == "HEAD" else (200, {"namespace": [parts[1]]})
        if route == ("GET", 3, "namespaces", "tables"):
            names = catalog.list_tables(parts[1])
            return 200, {"identifiers": [{"namespace": [n[0]], "name": n[-1]} for n in names]}
        if route == ("POST", 5, "namespaces", "tables") and parts[4] == "metrics":
            return 204, None  # scan metrics: nothing to keep
        if route[1:] == (4, "namespaces", "tables") and method in ("GET", "HEAD", "POST"):
            identifier = (parts[1], parts[3])
            table = catalog.load_table(identifier)
            if method == "HEAD":
                return 204, None
            if method == "GET":
                return 200, {
                    "metadata-location": table.metadata_location,
                    "metadata": _json(table.metadata),
                    "config": {},
                }
            payload = json.loads(body)
            # The identifier is optional on this route (it is in the path).
            payload.setdefault("identifier", {"namespace": [parts[1]], "name": parts[3]})
            request = CommitTableRequest.model_validate(payload)
            answer = catalog.commit_table(table, request.requirements, request.updates)
            return 200, {
                "metadata-location": answer.metadata_location,
                "metadata": _json(answer.metadata),
            }
        raise ValueError(
            f"lakeshift's REST bridge serves loading and committing existing tables only, not "
            f"{method} /v1/{'/'.join(parts)} (tables are created and dropped through pyiceberg)"
        )


_bridges: dict[str, tuple[_Server, str]] = {}
_bridges_lock = threading.Lock()


def spark_catalog_for(spark: SparkSession, key: str, catalog_factory: Callable[[], Catalog]) -> str:
    """The name of a Spark catalog that reads and commits through ``catalog_factory()``'s
    catalog, serving the bridge on first use (one per process and ``key``)."""
    name = "lakeshift_glue_" + hashlib.sha256(key.encode()).hexdigest()[:8]
    with _bridges_lock:
        if key not in _bridges:
            server = _Server(catalog_factory())
            threading.Thread(
                target=server.serve_forever, name="iceberg-rest-bridge", daemon=True
            ).start()
            uri = f"http://127.0.0.1:{server.server_address[1]}"
            _bridges[key] = (server, uri)
            log.info("Iceberg REST bridge for %s at %s (Spark catalog %s)", key, uri, name)
        server, uri = _bridges[key]
    prefix = f"spark.sql.catalog.{name}"
    # Spark builds a catalog on its first use from the session's settings, so setting them
    # now works in a running session (and again after this process's bridge moved).
    for suffix, value in (
        ("", "org.apache.iceberg.spark.SparkCatalog"),
        (".type", "rest"),
        (".uri", uri),
        (".token", server.token),
        # Scan metrics have no use here; reporting them would be one more call per scan.
        (".rest-metrics-reporting-enabled", "false"),
        (".io-impl", "org.apache.iceberg.hadoop.HadoopFileIO"),
        (".cache-enabled", "false"),
    ):
        if spark.conf.get(prefix + suffix, None) != value:
            spark.conf.set(prefix + suffix, value)
    return name

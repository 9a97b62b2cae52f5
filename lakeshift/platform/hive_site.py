"""Render the ``hive-site.xml`` for the embedded metastore."""

from __future__ import annotations

from pathlib import Path
from xml.sax.saxutils import escape


def metastore_properties(db_dir: Path, warehouse: Path) -> dict[str, str]:
    """Properties of the embedded Derby-backed metastore (see DESIGN.md for why each is set)."""
    return {
        "javax.jdo.option.ConnectionURL": f"jdbc:derby:;databaseName={db_dir};create=true",
        "javax.jdo.option.ConnectionDriverName": "org.apache.derby.jdbc.EmbeddedDriver",
        "datanucleus.schema.autoCreateAll": "true",
        "hive.metastore.schema.verification": "false",
        # Async logging needs a log4j class PySpark does not ship.
        "hive.async.log.enabled": "false",
        "hive.metastore.warehouse.dir": warehouse.as_uri(),
        # Iceberg's HiveCatalog takes metastore locks; they live in the transaction tables.
        "hive.txn.manager": "org.apache.hadoop.hive.ql.lockmgr.DbTxnManager",
        "hive.support.concurrency": "true",
        # Keep the metastore from rewriting statistics of tables it is handed.
        "hive.stats.autogather": "false",
        "hive.metastore.event.db.notification.api.auth": "false",
        # Iceberg's HiveCatalog mirrors schema changes into the metastore entry; Hive's
        # position-by-position type check would refuse nested changes and drops.
        "hive.metastore.disallow.incompatible.col.type.changes": "false",
    }


def render_hive_site(properties: dict[str, str]) -> str:
    body = "\n".join(
        f"  <property><name>{escape(k)}</name><value>{escape(v)}</value></property>"
        for k, v in properties.items()
    )
    return f'<?xml version="1.0"?>\n<configuration>\n{body}\n</configuration>\n'

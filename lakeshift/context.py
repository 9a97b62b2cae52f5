"""The composition root: builds each service once, lazily; tests replace parts of it."""

from __future__ import annotations

import logging
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from lakeshift import storage
from lakeshift.config import Settings
from lakeshift.logs import configure_file_logging
from lakeshift.metastore.catalog import CatalogClient
from lakeshift.metastore.client import MetastoreClient
from lakeshift.platform.metastore_server import EmbeddedMetastore
from lakeshift.platform.state_dir import ensure_writable_dir

if TYPE_CHECKING:
    from pyiceberg.catalog import Catalog
    from pyspark.sql import SparkSession

    from lakeshift.formats import FormatServices
    from lakeshift.migrate.journal import Journal

log = logging.getLogger(__name__)


class Context:
    """Everything a command needs, built on first use.

    Args:
        settings: merged configuration.
    """

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        # Every Store this process opens without explicit options reaches object stores so.
        storage.configure(settings.storage)

    @cached_property
    def home(self) -> Path:
        home = ensure_writable_dir(self.settings.home)
        configure_file_logging(self.settings.log_file)
        return home

    @cached_property
    def embedded_metastore(self) -> EmbeddedMetastore:
        storage = self.settings.storage
        return EmbeddedMetastore(
            self.home,
            port=self.settings.metastore_port,
            bind_host=self.settings.metastore_bind_host,
            extra_jars=self.settings.user_jars,
            hadoop_properties=storage.hadoop(),
            environment=storage.aws_environment(),
        )

    @property
    def uses_embedded_metastore(self) -> bool:
        return self.settings.metastore_uri is None and not self.uses_glue

    @cached_property
    def metastore_uri(self) -> str:
        """The configured metastore, or the embedded one (started on demand)."""
        if self.settings.metastore_uri:
            return self.settings.metastore_uri
        return self.embedded_metastore.ensure_running()

    @property
    def uses_glue(self) -> bool:
        return self.settings.catalog == "glue"

    @cached_property
    def metastore(self) -> CatalogClient:
        """The catalog the tables are in (the Hive Metastore or Glue), connected."""
        return self.open_catalog()

    def open_catalog(self) -> CatalogClient:
        """A new connection to the configured catalog (one per thread: a Thrift connection is
        not thread-safe)."""
        if self.uses_glue:
            from lakeshift.metastore.glue import open_glue

            s3 = self.settings.storage.boto3_s3()
            return open_glue(
                region=self.settings.glue_region_or_default,
                endpoint=self.settings.glue_endpoint,
                catalog_id=self.settings.glue_catalog_id,
                credentials={k: v for k, v in s3.items() if k.startswith("aws_")},
            )
        return MetastoreClient(
            self.metastore_uri, timeout=self.settings.metastore_timeout
        ).connect()

    @cached_property
    def warehouse(self) -> Path:
        return self.home / "warehouse"

    @cached_property
    def spark(self) -> SparkSession:
        from lakeshift.platform.spark import create_spark_session

        warehouse = self.warehouse if self.uses_embedded_metastore else None
        return create_spark_session(self.settings, self._spark_metastore_uri, warehouse)

    @property
    def _spark_metastore_uri(self) -> str | None:
        """The Hive Metastore Spark's session catalog uses; none on Glue (Spark reaches Glue
        through the Iceberg REST bridge only, and reads sources by their files)."""
        return None if self.uses_glue else self.metastore_uri

    @cached_property
    def catalog(self) -> Catalog:
        """pyiceberg's catalog on the same catalog service (creates and evolves targets)."""
        from lakeshift.formats.iceberg import glue_catalog, hive_catalog
        from lakeshift.metastore.glue import GlueCatalog

        if isinstance(self.metastore, GlueCatalog):
            return glue_catalog(self.metastore, self.settings.storage)
        return hive_catalog(self.metastore_uri, self.settings.storage)

    @cached_property
    def formats(self) -> FormatServices:
        """What the target formats use; Spark starts only when a format needs it."""
        from lakeshift.formats import FormatServices

        return FormatServices(lambda: self.spark, lambda: self.metastore, self.settings)

    @cached_property
    def journal(self) -> Journal:
        from lakeshift.migrate.journal import Journal

        return Journal(self.home / "journal.sqlite")

    def spark_conf(self) -> dict[str, str]:
        """The Spark configuration lakeshift runs with, secrets masked (plans, reports)."""
        from lakeshift.platform.spark import spark_conf

        warehouse = self.warehouse if self.uses_embedded_metastore else None
        # Plans and reports show it: credentials among fs.* keys are masked.
        return storage.redacted(spark_conf(self.settings, self._spark_metastore_uri, warehouse))

    def worker(self, settings: Settings | None = None) -> Context:
        """A context for another thread (a bulk run's table).

        It shares this one's Spark session and metastore server but opens its own metastore
        connection, Iceberg catalog and journal connection: none of those is thread-safe.
        ``settings`` may differ in per-table keys (e.g. ``mapping_mode``).
        """
        other = Context(settings or self.settings)
        other.__dict__["home"] = self.home
        if not self.uses_glue:
            other.__dict__["metastore_uri"] = self.metastore_uri
        other.__dict__["spark"] = self.spark
        return other

    def close(self) -> None:
        """Close connections (the Spark session and metastore server stay up for reuse)."""
        if "metastore" in self.__dict__:
            self.metastore.close()
        if "journal" in self.__dict__:
            self.journal.close()

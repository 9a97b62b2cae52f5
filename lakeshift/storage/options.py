"""How lakeshift reaches object stores: read from the settings the ecosystem already uses.

Spark users configure S3 for their cluster through Hadoop's ``fs.s3a.*`` keys (in
``spark_conf`` as ``spark.hadoop.fs.s3a.*``); everything else comes from the AWS environment
and profile, which pyarrow, boto3, delta-rs and hudi-rs each read on their own. lakeshift takes
the same keys once, here, and hands each library the options in its own spelling, so one
configuration drives Spark, the metastore and every Python-side reader and writer.

Credentials are kept out of ``repr`` and every rendering (``redacted``): they must never reach a
log, a report, the journal or an error message.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

#: Hadoop's S3A keys lakeshift understands, as they appear in Spark's configuration.
S3A = "spark.hadoop.fs.s3a."
#: Words that mark a configuration key as secret: its value is never shown.
SECRET_WORDS = ("secret", "access.key", "session.token", "password", "credential", "token")


def is_secret(key: str) -> bool:
    """True for configuration keys whose values must never be shown (keys, tokens)."""
    lowered = key.lower()
    return any(word in lowered for word in SECRET_WORDS)


def redacted(conf: Mapping[str, str]) -> dict[str, str]:
    """``conf`` with every secret value replaced, for plans, reports and logs."""
    return {k: ("***" if is_secret(k) else v) for k, v in conf.items()}


@dataclass(frozen=True)
class StorageOptions:
    """Connection options for object stores (``None``: the library's own default chain).

    Attributes:
        s3_endpoint: the S3 endpoint URL (``fs.s3a.endpoint``), e.g. a MinIO or test server;
            ``None``: AWS's (or ``AWS_ENDPOINT_URL``).
        s3_region: ``fs.s3a.endpoint.region`` (else ``AWS_REGION``/the profile's).
        s3_path_style: ``fs.s3a.path.style.access`` (``bucket`` in the path, not the host).
        s3_access_key, s3_secret_key, s3_session_token: explicit credentials from
            ``fs.s3a.access.key``/``secret.key``/``session.token``; ``None``: the AWS
            environment, profile or instance role.
    """

    s3_endpoint: str | None = None
    s3_region: str | None = None
    s3_path_style: bool = False
    s3_access_key: str | None = field(default=None, repr=False)
    s3_secret_key: str | None = field(default=None, repr=False)
    s3_session_token: str | None = field(default=None, repr=False)
    #: Every other non-secret ``fs.*`` Hadoop key of the Spark configuration (``fs.s3.impl``,
    #: ``fs.s3a.aws.credentials.provider``...), for the embedded metastore's Hadoop.
    hadoop_settings: tuple[tuple[str, str], ...] = ()

    @classmethod
    def from_spark_conf(
        cls, conf: Mapping[str, str], env: Mapping[str, str] | None = None
    ) -> StorageOptions:
        """The options Spark's ``fs.s3a.*`` keys describe (the AWS environment fills gaps)."""
        env = os.environ if env is None else env

        def s3a(key: str) -> str | None:
            value = conf.get(S3A + key)
            return value.strip() if value and value.strip() else None

        endpoint = s3a("endpoint")
        if endpoint and "://" not in endpoint:
            ssl = (s3a("connection.ssl.enabled") or "true").lower() != "false"
            endpoint = ("https://" if ssl else "http://") + endpoint
        return cls(
            s3_endpoint=endpoint,
            s3_region=s3a("endpoint.region") or env.get("AWS_REGION") or None,
            s3_path_style=(s3a("path.style.access") or "false").lower() == "true",
            s3_access_key=s3a("access.key"),
            s3_secret_key=s3a("secret.key"),
            s3_session_token=s3a("session.token"),
            hadoop_settings=tuple(
                sorted(
                    (k.removeprefix("spark.hadoop."), v)
                    for k, v in conf.items()
                    if k.startswith("spark.hadoop.fs.") and not is_secret(k)
                )
            ),
        )

    @property
    def s3_allows_http(self) -> bool:
        return bool(self.s3_endpoint and self.s3_endpoint.startswith("http://"))

    # -- each library's spelling ----------------------------------------------------------

    def pyarrow_s3(self) -> dict[str, Any]:
        """Keyword arguments of ``pyarrow.fs.S3FileSystem``."""
        kwargs: dict[str, Any] = {}
        if self.s3_endpoint:
            scheme, _, host = self.s3_endpoint.partition("://")
            kwargs["endpoint_override"] = host.rstrip("/")
            kwargs["scheme"] = scheme
        if self.s3_region:
            kwargs["region"] = self.s3_region
        if self.s3_path_style:
            kwargs["force_virtual_addressing"] = False
        if self.s3_access_key and self.s3_secret_key:
            kwargs["access_key"] = self.s3_access_key
            kwargs["secret_key"] = self.s3_secret_key
            if self.s3_session_token:
                kwargs["session_token"] = self.s3_session_token
        return kwargs

    def boto3_s3(self) -> dict[str, Any]:
        """Keyword arguments of ``boto3.client("s3", ...)``."""
        kwargs: dict[str, Any] = {}
        if self.s3_endpoint:
            kwargs["endpoint_url"] = self.s3_endpoint
        if self.s3_region:
            kwargs["region_name"] = self.s3_region
        if self.s3_access_key and self.s3_secret_key:
            kwargs["aws_access_key_id"] = self.s3_access_key
            kwargs["aws_secret_access_key"] = self.s3_secret_key
            if self.s3_session_token:
                kwargs["aws_session_token"] = self.s3_session_token
        return kwargs

    def object_store(self) -> dict[str, str]:
        """Storage options of delta-rs and hudi-rs (the Rust ``object_store`` crate's keys)."""
        options: dict[str, str] = {}
        if self.s3_endpoint:
            options["AWS_ENDPOINT_URL"] = self.s3_endpoint
        if self.s3_allows_http:
            options["AWS_ALLOW_HTTP"] = "true"
        if self.s3_region:
            options["AWS_REGION"] = self.s3_region
        if self.s3_path_style:
            options["AWS_VIRTUAL_HOSTED_STYLE_REQUEST"] = "false"
        if self.s3_access_key and self.s3_secret_key:
            options["AWS_ACCESS_KEY_ID"] = self.s3_access_key
            options["AWS_SECRET_ACCESS_KEY"] = self.s3_secret_key
            if self.s3_session_token:
                options["AWS_SESSION_TOKEN"] = self.s3_session_token
        # Delta's log needs put-if-absent; S3 has conditional writes (no external lock).
        options["conditional_put"] = "etag"
        return options

    def pyiceberg(self) -> dict[str, str]:
        """FileIO properties of a pyiceberg catalog."""
        props: dict[str, str] = {}
        if self.s3_endpoint:
            props["s3.endpoint"] = self.s3_endpoint
        if self.s3_region:
            props["s3.region"] = self.s3_region
        if self.s3_path_style:
            props["s3.force-virtual-addressing"] = "false"
        if self.s3_access_key and self.s3_secret_key:
            props["s3.access-key-id"] = self.s3_access_key
            props["s3.secret-access-key"] = self.s3_secret_key
            if self.s3_session_token:
                props["s3.session-token"] = self.s3_session_token
        return props

    def hadoop(self) -> dict[str, str]:
        """Non-secret ``fs.*`` properties for a Hadoop process (the embedded metastore)."""
        props: dict[str, str] = dict(self.hadoop_settings)
        if self.s3_endpoint:
            props["fs.s3a.endpoint"] = self.s3_endpoint
            props["fs.s3a.connection.ssl.enabled"] = str(not self.s3_allows_http).lower()
        if self.s3_region:
            props["fs.s3a.endpoint.region"] = self.s3_region
        if self.s3_path_style:
            props["fs.s3a.path.style.access"] = "true"
        return props

    def aws_environment(self) -> dict[str, str]:
        """Explicit credentials as AWS environment variables, for a child process: S3A's
        default credential chain reads them, and nothing is written to a file."""
        env: dict[str, str] = {}
        if self.s3_access_key and self.s3_secret_key:
            env["AWS_ACCESS_KEY_ID"] = self.s3_access_key
            env["AWS_SECRET_ACCESS_KEY"] = self.s3_secret_key
            if self.s3_session_token:
                env["AWS_SESSION_TOKEN"] = self.s3_session_token
        return env


_current = StorageOptions()


def configure(options: StorageOptions) -> None:
    """Make ``options`` this process's default (the driver does it once from its settings)."""
    global _current
    _current = options


def current() -> StorageOptions:
    """This process's options (tasks on executors receive theirs with the task)."""
    return _current

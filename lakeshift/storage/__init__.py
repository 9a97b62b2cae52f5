"""The storage seam: every file lakeshift touches under a table location goes through here.

A location's scheme chooses the file system (pyarrow's: local, S3, GCS, ADLS, HDFS); object-store
options come from Spark's ``fs.s3a.*`` settings and the AWS environment (``options``).
"""

from lakeshift.storage.location import Location, filesystem_for, parse, place, relative_to
from lakeshift.storage.options import StorageOptions, configure, current, is_secret, redacted
from lakeshift.storage.store import StorageUnavailable, Store, StoredFile, translate

__all__ = [
    "Location",
    "StorageOptions",
    "StorageUnavailable",
    "Store",
    "StoredFile",
    "configure",
    "current",
    "filesystem_for",
    "is_secret",
    "parse",
    "place",
    "redacted",
    "relative_to",
    "translate",
]

"""The independent second reader: Hive's read rules restated on Arrow, run in Spark tasks.

It shares no code with the Spark reader's projection and conversion (``hive.reader``,
``projection``, ``spark_sql``, ``source_frame``): it plans from the inventory, reads each data
file with pyarrow, converts with its own rules and hashes with its own implementation of the
canonical fingerprint, so a mistake in one reader shows up as a disagreement with the other.
"""

from __future__ import annotations

from lakeshift.validate.independent.runner import (
    IndependentReading,
    independent_fingerprints,
    independent_frame,
    independent_reading,
)

__all__ = [
    "IndependentReading",
    "independent_fingerprints",
    "independent_frame",
    "independent_reading",
]

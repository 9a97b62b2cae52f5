"""Test helpers for your own pipelines' test suites.

>>> from lakeshift.testing import assert_df_equal, assert_partition_equal, assert_table_migrated
"""

from lakeshift.testing.dataframes import assert_df_equal, canonical_frame
from lakeshift.testing.migration import assert_partition_equal, assert_table_migrated

__all__ = ["assert_df_equal", "assert_partition_equal", "assert_table_migrated", "canonical_frame"]

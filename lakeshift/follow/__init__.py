"""Live tables: keep a lake table in step with a Hive table that writers keep writing.

``run_pass`` does one pass (``passes``); ``follow`` repeats it until stopped or cut over
(``loop``). Change detection: the notification log (``events``), the partitions' storage
descriptors and listings compared pass to pass (``changes``); what a pass saw is kept in the
journal's file (``state``).
"""

from lakeshift.follow.loop import FollowResult, follow
from lakeshift.follow.passes import FollowOptions, PassReport, SourceGone, run_pass
from lakeshift.follow.state import FollowState

__all__ = [
    "FollowOptions",
    "FollowResult",
    "FollowState",
    "PassReport",
    "SourceGone",
    "follow",
    "run_pass",
]

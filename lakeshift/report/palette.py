"""Colours of states and series in reports, told apart with every common colour-vision deficiency.

Drawn from the Okabe-Ito and Paul Tol palettes, which are designed for colour-blind readers, and
assigned so that states shown side by side (migration, validation, run statuses) differ clearly
under protanopia, deuteranopia and tritanopia too (``tests/unit/test_html_report.py`` checks it).
Green is good, red failed, orange or yellow needs attention, grey not done yet.
"""

from __future__ import annotations

GREY = "#BBBBBB"
SKY = "#56B4E9"
GREEN = "#228833"
INDIGO = "#332288"
RED = "#EE6677"
YELLOW = "#F0E442"
PURPLE = "#AA3377"
ORANGE = "#E69F00"
BLACK = "#000000"
BLUE = "#0072B2"
TEAL = "#44AA99"
UNKNOWN = "#777777"

#: A followed table's lag and stale window per pass.
LAG = BLUE
STALE = ORANGE

#: Partition states of the journal (migration status).
MIGRATION = {
    "planned": GREY,
    "backfilled": SKY,
    "validated": GREEN,
    "switched": INDIGO,
    "failed": RED,
    "skipped": YELLOW,
    "rolled_back": PURPLE,
    "stale": ORANGE,
}
#: Validation outcomes of a partition.
VALIDATION = {
    "equal": GREEN,
    "mismatch": RED,
    "stale": ORANGE,
    "missing": BLACK,
    "extra": PURPLE,
    "not-migrated": YELLOW,
    "not-proven": SKY,  # held back, as not-migrated: nothing is known to differ
    "not validated": GREY,
}
#: Statuses of a run or of a table in a bulk run.
RUNS = {
    "ok": GREEN,
    "planned": GREY,
    "running": SKY,
    "partial": ORANGE,
    "mismatch": PURPLE,
    "failed": RED,
    "interrupted": YELLOW,
    "cut-over": INDIGO,
}
#: Data series: source against target rows, bytes on disk, time and throughput.
SOURCE_ROWS = BLUE
TARGET_ROWS = ORANGE
BYTES = TEAL
SECONDS = PURPLE
THROUGHPUT = PURPLE
#: A profile's split of each phase: time in Spark jobs, time on the driver around them.
SPARK_JOBS = BLUE
DRIVER = ORANGE


def state_color(state: str, group: dict[str, str]) -> str:
    """The colour of ``state`` among the states of ``group`` (MIGRATION, VALIDATION or RUNS)."""
    return group.get(state, UNKNOWN)


def text_color(background: str) -> str:
    """Black or white, whichever reads better on ``background`` (``#RRGGBB``)."""
    red, green, blue = (int(background[i : i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * red + 0.587 * green + 0.114 * blue > 150 else "#FFFFFF"

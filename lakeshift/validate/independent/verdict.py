"""Three opinions of a partition's rows, and what their agreement proves (pure).

The independent reader (Hive's rules restated on Arrow), the target scan, and a third: the
checksum the backfill observed while it wrote (per batch), or, where the journal holds no
observation that still speaks for the source, the Spark reader's rescan. A partition is proven
only when all three agree; otherwise the verdict names the two that agree, which says where the
fault lies.
"""

from __future__ import annotations

from dataclasses import dataclass

INDEPENDENT = "independent reader"
TARGET = "target scan"
OBSERVED = "observed checksum"
RESCAN = "Spark reader rescan"


@dataclass(frozen=True)
class Opinions:
    """Comparisons for one partition. ``third`` is OBSERVED or RESCAN; its comparisons are
    over the whole batch when the observation covers several partitions."""

    independent_matches_target: bool
    third: str
    third_matches_target: bool
    third_matches_independent: bool
    batch_partitions: int = 1


@dataclass(frozen=True)
class Verdict:
    ok: bool
    agree: tuple[str, ...]
    detail: str


def _third(opinions: Opinions) -> str:
    if opinions.third == OBSERVED:
        if opinions.batch_partitions > 1:
            return f"the backfill's observed checksum (its batch of {opinions.batch_partitions})"
        return "the backfill's observed checksum"
    return "the Spark reader's rescan"


def verdict(opinions: Opinions, rows: int) -> Verdict:
    third = _third(opinions)
    independent_ok = opinions.independent_matches_target
    if independent_ok and opinions.third_matches_target:
        return Verdict(
            True,
            (INDEPENDENT, opinions.third, TARGET),
            f"{rows:,} rows; the independent reader, {third} and the target scan agree",
        )
    if independent_ok:
        why = (
            "the journal's record of the backfill does not match what it wrote"
            if opinions.third == OBSERVED
            else "the Spark reader reads the source differently now"
        )
        return Verdict(
            False,
            (INDEPENDENT, TARGET),
            f"the independent reader and the target scan agree; {third} differs ({why})",
        )
    if opinions.third_matches_target:
        return Verdict(
            False,
            (opinions.third, TARGET),
            f"{third} and the target scan agree; the independent reader differs: the Spark "
            "reader and the independent reader read the source differently (rows below: "
            "'source' is the independent reader)",
        )
    if opinions.third_matches_independent:
        return Verdict(
            False,
            (INDEPENDENT, opinions.third),
            f"the independent reader and {third} agree; the target scan differs: the target "
            "changed after the backfill (rows below: 'source' is the independent reader)",
        )
    return Verdict(
        False,
        (),
        f"the independent reader, {third} and the target scan all differ",
    )

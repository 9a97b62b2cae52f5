"""Zero-copy adoption (issue 56) beside the bare copy (a) and the physical reference (p) of the
same run.

(v) ``lakeshift migrate --adopt-files auto`` of the scenario's table into a fresh Iceberg
target, timed whole: inspection, the adoption decisions, registration (one replace-partitions
commit per up to 5,000 files, each file's metrics read from its footer by Iceberg's
``OrcMetrics``) and the in-run proof (validation at the independent level, which includes the
checksum level, of every adopted partition); (w) the same on a table of as many partitions and
files, each file holding four times the rows (built untimed, before either is timed).

Registration and proof are also reported apart, from lakeshift's profile (its ``adopt`` and
``prove adopted`` phases): registration should grow with the files, the proof is a full read
of the source by two readers and grows with the bytes. Every partition must be adopted: a
partition copied instead would time a copy, so the benchmark stops with the reason.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmarks.measure import Timing, timed_profiled
from benchmarks.synthetic import SyntheticTable, build_table, drop_lake_table
from lakeshift.config import Settings
from lakeshift.migrate.backfill import MigrateOptions, MigrateResult, migrate
from lakeshift.migrate.journal import Journal

#: How many more rows each file of the second table (w) holds.
ROWS_FACTOR = 4
#: The profile's phases of adoption (under the phase ``timed_profiled`` opens).
REGISTRATION, PROOF = "adopt", "prove adopted"


def _adopt(
    ctx: Any, settings: Settings, table: SyntheticTable, scratch: Path, label: str
) -> tuple[Timing, dict[str, Any], MigrateResult]:
    source = table.qualified_name
    target = f"{source}_adopted"
    journal_path = scratch / f"{target}-journal.sqlite"
    # Never DROP ... PURGE: the adopted files are the source's (Iceberg refuses with gc off).
    drop_lake_table(ctx.metastore, target, journal_path)
    journal = Journal(journal_path)
    options = MigrateOptions(target=target, batch_rows=5_000_000, adopt_files="auto")
    results: list[MigrateResult] = []
    try:
        timing, profile = timed_profiled(
            label,
            table.rows,
            table.bytes,
            lambda: results.append(
                migrate(ctx.spark, ctx.metastore, ctx.catalog, settings, journal, source, options)
            ),
            ctx.spark,
        )
    finally:
        journal.close()
    _require_all_adopted(table, results[0])
    return timing, profile, results[0]


def _require_all_adopted(table: SyntheticTable, result: MigrateResult) -> None:
    """A row that copied any partition measures a copy, not adoption: stop, saying why."""
    adoption = result.adoption
    proven = set(adoption.proven) if adoption else set()
    if adoption is not None and len(proven) == table.partitions and not result.backfilled:
        return
    copied = adoption.copied if adoption else {}
    shown = "; ".join(f"{name}: {why}" for name, why in sorted(copied.items())[:5])
    raise RuntimeError(
        f"adoption of {table.qualified_name}: {len(proven)} of {table.partitions} partition(s) "
        f"adopted and proven, {len(result.backfilled)} copied ({shown or 'no reason given'}); "
        "the adoption row would time a copy"
    )


def _phases(profile: dict[str, Any], label: str) -> dict[str, float]:
    by_path = {row["phase"]: row for row in profile["phases"]}
    return {name: float(by_path[f"{label}/{name}"]["seconds"]) for name in (REGISTRATION, PROOF)}


def _figures(timing: Timing, phases: dict[str, float], table: SyntheticTable) -> dict[str, Any]:
    registration, proof = phases[REGISTRATION], phases[PROOF]
    return {
        **timing.to_json(),
        "partitions": table.partitions,
        "files": table.partitions * table.files_per_partition,
        "rows": table.rows,
        "bytes": table.bytes,
        "registration_seconds": round(registration, 2),
        "proof_seconds": round(proof, 2),
        # inspection, decisions, target creation, commit lookups, the journal
        "rest_seconds": round(timing.seconds - registration - proof, 2),
    }


def run(
    ctx: Any,
    settings: Settings,
    table: SyntheticTable,
    tables: Path,
    scratch: Path,
    scenario: str,
    bare_copy_seconds: float,
    physical_seconds: float,
) -> dict[str, Any]:
    name = table.qualified_name.partition(".")[2]
    larger = build_table(
        ctx.metastore,
        tables,
        f"{name}_x{ROWS_FACTOR}",
        partitions=table.partitions,
        files_per_partition=table.files_per_partition,
        rows_per_file=table.rows_per_file * ROWS_FACTOR,
    )
    print(f"built {larger.qualified_name}: {larger.rows:,} rows in {larger.seconds_to_build}s")
    v, v_profile, _ = _adopt(ctx, settings, table, scratch, "v_lakeshift_adopt")
    w, w_profile, _ = _adopt(ctx, settings, larger, scratch, "w_lakeshift_adopt_x4")
    v_phases = _phases(v_profile, "v_lakeshift_adopt")
    w_phases = _phases(w_profile, "w_lakeshift_adopt_x4")
    a, p = bare_copy_seconds, physical_seconds
    return {
        "v_lakeshift_adopt": _figures(v, v_phases, table),
        "w_lakeshift_adopt_x4": _figures(w, w_phases, larger),
        "ratio_v_over_a": round(v.seconds / a, 2),
        "ratio_v_over_p": round(v.seconds / p, 2),
        "ratio_w_over_v": round(w.seconds / v.seconds, 2),
        "ratio_v_registration_over_a": round(v_phases[REGISTRATION] / a, 3),
        "ratio_v_proof_over_a": round(v_phases[PROOF] / a, 2),
        "ratio_w_registration_over_v_registration": round(
            w_phases[REGISTRATION] / v_phases[REGISTRATION], 2
        ),
        "ratio_w_proof_over_v_proof": round(w_phases[PROOF] / v_phases[PROOF], 2),
        "profiles": {
            "v (adopt into Iceberg)": v_profile,
            f"w (adopt, {ROWS_FACTOR}x rows per file)": w_profile,
        },
    }

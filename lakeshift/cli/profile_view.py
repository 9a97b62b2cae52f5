"""``--profile``: where a command's time went, shown as a table and kept as a report."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from lakeshift import profiling
from lakeshift.cli.base import CliState
from lakeshift.report.files import write_report

#: Phases under this share of the run are left off the terminal (the report keeps them all).
_SHOWN_SHARE = 0.01


@contextmanager
def profile_run(state: CliState, enabled: bool, command: str, table: str) -> Iterator[None]:
    """Profile the block when ``enabled`` (the flag or the ``profile`` setting); the breakdown
    is written as ``profile-<time>.json``/``.md`` beside the table's other reports, also when
    the command fails."""
    if not (enabled or state.context.settings.profile):
        yield
        return
    source = table.lower()
    try:
        with profiling.profiled(f"lakeshift {command} {source}") as profile:
            yield
    finally:
        payload = profile.to_json()
        _, md_path = write_report(
            state.context.home, source, "profile", payload, profiling.render_markdown(payload)
        )
        _render(state, payload)
        state.output.message(f"[dim]profile saved to {md_path}[/]")


def _render(state: CliState, payload: dict[str, object]) -> None:
    wall = float(payload["wall_seconds"])  # type: ignore[arg-type]
    rows = [
        (
            "  " * str(row["phase"]).count("/") + str(row["phase"]).rsplit("/", 1)[-1],
            row["calls"],
            f"{row['seconds']:.2f}",
            f"{row['spark_seconds']:.2f}",
            f"{row['driver_seconds']:.2f}",
            row["spark_jobs"],
            row["tasks"],
            f"{row['task_cpu_seconds']:.2f}",
        )
        for row in payload["phases"]  # type: ignore[attr-defined]
        if float(row["seconds"]) >= wall * _SHOWN_SHARE
    ]
    if payload.get("spark_jobs_may_be_missing"):
        state.output.message(
            "[yellow]Spark kept only its latest jobs (spark.ui.retainedJobs): the profile may "
            "miss the oldest.[/]"
        )
    state.output.table(
        f"Where the time went ({wall:.2f} s; Spark jobs {payload['spark_seconds']} s)",
        ["phase", "calls", "seconds", "in Spark jobs", "driver", "jobs", "tasks", "task CPU s"],
        rows,
    )

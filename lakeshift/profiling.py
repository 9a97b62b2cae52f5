"""Where a run's time goes: driver phases timed here, Spark jobs as Spark recorded them.

A :class:`Profile` is active for one command (``--profile``, the ``profile`` setting, or a
benchmark). Code marks its phases with :func:`phase`; nested phases make paths such as
``batch/write``. Each phase records its wall time and the driver thread's CPU time, and while
it runs every Spark job it starts carries the phase in its job description, so the jobs can be
joined back to it afterwards from Spark's own status store (the figures its web UI shows: job
wall time, tasks, executor run and CPU time, GC, bytes read and written). Nothing here changes
what a run does; without an active profile :func:`phase` costs one global lookup.

Hand-written: Spark's listener interface needs a JVM class (none on PyPI does this) and
cProfile sees no Spark jobs; the status store is read through py4j.
"""

from __future__ import annotations

import logging
import re
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark import SparkContext

log = logging.getLogger(__name__)

_DESCRIPTION = "spark.job.description"
_PREFIX = "lakeshift-profile"

_active: Profile | None = None


@dataclass
class PhaseTotal:
    """One phase path's totals over a run (a phase entered per batch adds up)."""

    path: str
    calls: int = 0
    seconds: float = 0.0
    cpu_seconds: float = 0.0
    #: Wall time of the phase's direct children (its own time is ``seconds`` minus this).
    child_seconds: float = 0.0


@dataclass
class SparkJobs:
    """Spark jobs run while one phase path was innermost."""

    jobs: int = 0
    seconds: float = 0.0
    tasks: int = 0
    task_seconds: float = 0.0
    task_cpu_seconds: float = 0.0
    gc_seconds: float = 0.0
    input_bytes: int = 0
    output_bytes: int = 0
    shuffle_bytes: int = 0

    def add(self, other: SparkJobs) -> None:
        for name in self.__dataclass_fields__:
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class SparkJob:
    """One Spark job of a profile: what it did (its SQL plan's operators) and what it cost."""

    id: int
    phase: str
    totals: SparkJobs
    #: The physical plan's operators, leaves first (the query the job belongs to).
    operators: tuple[str, ...] = ()
    #: Submission and completion, epoch seconds (None while unknown).
    interval: tuple[float, float] | None = None

    def to_json(self) -> dict[str, Any]:
        t = self.totals
        return {
            "job": self.id,
            "phase": self.phase,
            "seconds": round(t.seconds, 3),
            "tasks": t.tasks,
            "task_seconds": round(t.task_seconds, 3),
            "task_cpu_seconds": round(t.task_cpu_seconds, 3),
            "input_mb": round(t.input_bytes / 1e6, 2),
            "output_mb": round(t.output_bytes / 1e6, 2),
            "shuffle_mb": round(t.shuffle_bytes / 1e6, 2),
            "operators": " > ".join(self.operators),
        }


@dataclass
class Profile:
    """The breakdown of one run; :meth:`to_json` is what reports and benchmarks keep."""

    label: str
    id: str = field(default_factory=lambda: uuid.uuid4().hex[:8])
    started: float = field(default_factory=time.monotonic)
    wall_seconds: float | None = None
    phases: dict[str, PhaseTotal] = field(default_factory=dict)
    spark: dict[str, SparkJobs] = field(default_factory=dict)
    jobs: list[SparkJob] = field(default_factory=list)
    #: (start, end, depth, path) of every phase entered, in epoch seconds: jobs that Spark
    #: describes itself (e.g. its parallel file listing) belong to the innermost one open.
    spans: list[tuple[float, float, int, str]] = field(default_factory=list)
    context: SparkContext | None = None
    #: Spark's status store keeps ``spark.ui.retainedJobs`` jobs (1,000): it held that many.
    jobs_may_be_missing: bool = False
    started_at: str = field(
        default_factory=lambda: time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    )
    _stack: threading.local = field(default_factory=threading.local)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def _path(self) -> list[str]:
        stack: list[str] | None = getattr(self._stack, "names", None)
        if stack is None:
            stack = self._stack.names = []
        return stack

    @property
    def tag(self) -> str:
        """The Spark job tag of this profile's jobs (tags add up: a caller's job group or
        tags stay as they are)."""
        return f"{_PREFIX}-{self.id}"

    def phase_at(self, epoch: float) -> str:
        """The innermost phase open at ``epoch`` ("" when none was)."""
        open_then = [s for s in self.spans if s[0] <= epoch <= s[1]]
        return max(open_then, key=lambda s: (s[2], s[0]))[3] if open_then else ""

    def _add(self, path: str, seconds: float, cpu: float, parent: str | None) -> None:
        with self._lock:
            total = self.phases.setdefault(path, PhaseTotal(path))
            total.calls += 1
            total.seconds += seconds
            total.cpu_seconds += cpu
            if parent is not None:
                self.phases.setdefault(parent, PhaseTotal(parent)).child_seconds += seconds

    def finish(self) -> Profile:
        """Stop the clock and join Spark's jobs to the phases (waits for Spark's listeners)."""
        self.wall_seconds = time.monotonic() - self.started
        if self.context is not None:
            try:
                self.jobs = spark_jobs(self.context, self)
            except Exception:  # a profile must never fail the run it describes
                self.jobs = []
            for job in self.jobs:
                self.spark.setdefault(job.phase, SparkJobs()).add(job.totals)
            # Jobs overlap (adaptive execution runs query stages and broadcasts at once): a
            # phase's time in jobs is the union of their intervals, not their sum.
            for phase_path, totals in self.spark.items():
                intervals = [j.interval for j in self.jobs if j.phase == phase_path and j.interval]
                totals.seconds = _covered(intervals)
        return self

    def to_json(self) -> dict[str, Any]:
        wall = self.wall_seconds if self.wall_seconds is not None else 0.0
        top = sum(t.seconds for t in self.phases.values() if "/" not in t.path)
        rows = []
        for path in sorted(self.phases, key=_order(self.phases)):
            total = self.phases[path]
            jobs = self.spark.get(path, SparkJobs())
            own = max(total.seconds - total.child_seconds, 0.0)
            rows.append(
                {
                    "phase": path,
                    "calls": total.calls,
                    "seconds": round(total.seconds, 3),
                    "own_seconds": round(own, 3),
                    "driver_cpu_seconds": round(total.cpu_seconds, 3),
                    "spark_jobs": jobs.jobs,
                    "spark_seconds": round(jobs.seconds, 3),
                    # own time outside Spark jobs: Python and catalog/storage calls on the driver
                    "driver_seconds": round(max(own - jobs.seconds, 0.0), 3),
                    "tasks": jobs.tasks,
                    "task_seconds": round(jobs.task_seconds, 3),
                    "task_cpu_seconds": round(jobs.task_cpu_seconds, 3),
                    "gc_seconds": round(jobs.gc_seconds, 3),
                    "input_mb": round(jobs.input_bytes / 1e6, 2),
                    "output_mb": round(jobs.output_bytes / 1e6, 2),
                    "shuffle_mb": round(jobs.shuffle_bytes / 1e6, 2),
                }
            )
        outside = self.spark.get("", SparkJobs())
        return {
            "label": self.label,
            "started_at": self.started_at,
            "wall_seconds": round(wall, 3),
            "spark_jobs_may_be_missing": self.jobs_may_be_missing,
            "outside_phases_seconds": round(max(wall - top, 0.0), 3),
            "spark_jobs_outside_phases": outside.jobs,
            "spark_seconds": round(sum(j.seconds for j in self.spark.values()), 3),
            "phases": rows,
            "jobs": [job.to_json() for job in self.jobs],
        }


def _order(phases: dict[str, PhaseTotal]) -> Any:
    """Phases in the order they first ran would need timestamps; a path sorts under its parent
    and siblings by time spent, which reads as well."""

    def key(path: str) -> tuple[Any, ...]:
        parts = path.split("/")
        return tuple(
            (-phases.get("/".join(parts[: i + 1]), PhaseTotal("")).seconds, parts[i])
            for i in range(len(parts))
        )

    return key


def start(label: str, context: SparkContext | None = None) -> Profile:
    """Make a new profile the active one (the caller :func:`stop` s it)."""
    global _active
    _active = Profile(label, context=context)
    return _active


def stop() -> Profile | None:
    """End the active profile and return it, finished."""
    global _active
    profile, _active = _active, None
    return profile.finish() if profile is not None else None


def active() -> Profile | None:
    return _active


def attach(context: SparkContext) -> None:
    """Let the active profile (if any) join Spark's jobs once Spark has started."""
    if _active is not None and _active.context is None:
        _active.context = context


@contextmanager
def profiled(label: str, context: SparkContext | None = None) -> Iterator[Profile]:
    """``with profiled("migrate db.t") as p:`` ... ``p.to_json()`` after the block."""
    profile = start(label, context)
    try:
        yield profile
    finally:
        stop()


@contextmanager
def phase(name: str) -> Iterator[None]:
    """Time the block as ``name`` under the enclosing phase (a no-op without a profile)."""
    profile = _active
    if profile is None:
        yield
        return
    stack = profile._path()
    parent = "/".join(stack) or None
    path = f"{parent}/{name}" if parent else name
    previous = _label_jobs(profile, path, parent is None)
    stack.append(name)
    wall, cpu, epoch = time.monotonic(), time.thread_time(), time.time()
    try:
        yield
    finally:
        stack.pop()
        profile._add(path, time.monotonic() - wall, time.thread_time() - cpu, parent)
        profile.spans.append((epoch, time.time(), len(stack) + 1, path))
        _restore_jobs(profile, previous, parent is None)


def _label_jobs(profile: Profile, path: str, outermost: bool) -> str | None:
    """Describe the thread's next Spark jobs as ``path`` (and tag them, for the outermost
    phase); returns the description it replaced. Never raises: a profile must not fail the
    run it measures (a failed call leaves those jobs unjoined, nothing else)."""
    context = profile.context
    if context is None:
        return None
    try:
        previous = context.getLocalProperty(_DESCRIPTION)
        context.setLocalProperty(_DESCRIPTION, f"{_PREFIX} {profile.id} {path}")
        if outermost:
            context.addJobTag(profile.tag)
        return previous
    except Exception:
        log.debug("profile: cannot label Spark jobs of %s", path, exc_info=True)
        return None


def _restore_jobs(profile: Profile, previous: str | None, outermost: bool) -> None:
    context = profile.context
    if context is None:
        return
    try:
        context.setLocalProperty(_DESCRIPTION, previous)  # type: ignore[arg-type]
        if outermost:
            context.removeJobTag(profile.tag)
    except Exception:
        log.debug("profile: cannot restore the Spark job description", exc_info=True)


def _covered(intervals: list[tuple[float, float]]) -> float:
    """Seconds covered by the union of ``intervals``."""
    total, end = 0.0, float("-inf")
    for start, stop in sorted(intervals):
        if stop > end:
            total += stop - max(start, end)
            end = stop
    return total


def _option(value: Any) -> Any:
    return value.get() if value.isDefined() else None


def _seq(value: Any) -> list[Any]:
    return [value.apply(i) for i in range(value.size())]


def spark_jobs(context: SparkContext, profile: Profile) -> list[SparkJob]:
    """The profile's Spark jobs from Spark's status store, oldest first: those carrying its
    tag (a job Spark describes itself is put in the phase open when it was submitted)."""
    jsc: Any = context._jsc
    sc = jsc.sc()
    try:
        sc.listenerBus().waitUntilEmpty()  # the store is fed asynchronously
    except Exception:
        time.sleep(0.5)
    store = sc.statusStore()
    marker = f"{_PREFIX} {profile.id} "
    out: list[SparkJob] = []
    counted: set[int] = set()  # a stage shows in every later job that reuses its output
    jobs = _seq(store.jobsList(None))
    retained = int(jsc.getConf().get("spark.ui.retainedJobs", "1000"))
    profile.jobs_may_be_missing = len(jobs) >= retained
    for job in jobs:
        description = _option(job.description()) or ""
        if not description.startswith(marker) and profile.tag not in _seq(job.jobTags()):
            continue
        total = SparkJobs(jobs=1)
        submitted, completed = _option(job.submissionTime()), _option(job.completionTime())
        interval = None
        if submitted is not None and completed is not None:
            interval = (submitted.getTime() / 1000, completed.getTime() / 1000)
        if description.startswith(marker):
            phase = description[len(marker) :]
        else:
            at = submitted.getTime() / 1000 if submitted is not None else 0.0
            phase = profile.phase_at(at)
        if interval is not None:
            total.seconds = interval[1] - interval[0]
        for stage_id in _seq(job.stageIds()):
            if int(stage_id) in counted:
                continue
            try:
                stage = store.lastStageAttempt(stage_id)
            except Exception:  # pruned from the store
                continue
            if str(stage.status().toString()) == "SKIPPED":  # its output was reused
                continue
            counted.add(int(stage_id))
            total.tasks += int(stage.numCompleteTasks())
            total.task_seconds += int(stage.executorRunTime()) / 1000
            total.task_cpu_seconds += int(stage.executorCpuTime()) / 1e9
            total.gc_seconds += int(stage.jvmGcTime()) / 1000
            total.input_bytes += int(stage.inputBytes())
            total.output_bytes += int(stage.outputBytes())
            total.shuffle_bytes += int(stage.shuffleWriteBytes())
        job_entry = SparkJob(int(job.jobId()), phase, total, interval=interval)
        if not description.startswith(marker):
            job_entry.operators = (description.split(":", 1)[0][:80],)
        out.append(job_entry)
    out.sort(key=lambda j: j.id)
    try:
        plans = _plans(context)
    except Exception:  # the plans only name what each job did
        plans = {}
    for job in out:
        job.operators = plans.get(job.id, job.operators)
    return out


def _plans(context: SparkContext) -> dict[int, tuple[str, ...]]:
    """Job id -> the operators of the SQL query it ran (from Spark SQL's status store)."""
    from pyspark.sql import SparkSession

    session = SparkSession.getActiveSession()
    if session is None:
        return {}
    jss: Any = session._jsparkSession
    executions = jss.sharedState().statusStore().executionsList()
    out: dict[int, tuple[str, ...]] = {}
    for execution in _seq(executions):
        jobs = execution.jobs()
        if jobs.isEmpty():
            continue
        operators = plan_operators(str(execution.physicalPlanDescription()))
        for job_id in _seq(jobs.keys().toSeq()):
            out[int(job_id)] = operators
    return out


_NODE = re.compile(r"^[\s:|+\-*]*([A-Z][A-Za-z]*(?: [a-z][A-Za-z]*)?) .*\(\d+\)")


def plan_operators(plan: str) -> tuple[str, ...]:
    """The operators of a physical plan's tree (its final plan under adaptive execution),
    leaves first, each once: e.g. ``Scan orc > Project > Exchange > Sort > AppendData``."""
    lines = plan.split("\n\n", 1)[0].splitlines()
    if any("== Final Plan ==" in line for line in lines):
        start = next(i for i, line in enumerate(lines) if "== Final Plan ==" in line)
        end = next((i for i, line in enumerate(lines) if "== Initial Plan ==" in line), len(lines))
        lines = lines[:start] + lines[start + 1 : end]
    names: list[str] = []
    for line in reversed(lines):
        match = _NODE.match(line)
        if match and match.group(1) not in names and match.group(1) != "AdaptiveSparkPlan":
            names.append(match.group(1))
    return tuple(names)


def render_markdown(profile: dict[str, Any]) -> str:
    """The breakdown as a Markdown table (reports, benchmark results)."""
    lines = [
        f"Profile of {profile['label']} (started {profile.get('started_at', '?')}): "
        f"{profile['wall_seconds']} s wall, {profile['spark_seconds']} s in Spark jobs, "
        f"{profile['outside_phases_seconds']} s outside named phases.",
        "",
        "| phase | calls | seconds | own | Spark jobs | in jobs | driver | tasks | task s "
        "| task CPU s | GC s | in MB | out MB |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for row in profile["phases"]:
        depth = row["phase"].count("/")
        name = "&nbsp;&nbsp;" * depth + row["phase"].rsplit("/", 1)[-1]
        lines.append(
            f"| {name} | {row['calls']} | {row['seconds']} | {row['own_seconds']} "
            f"| {row['spark_jobs']} | {row['spark_seconds']} | {row['driver_seconds']} "
            f"| {row['tasks']} | {row['task_seconds']} | {row['task_cpu_seconds']} "
            f"| {row['gc_seconds']} | {row['input_mb']} | {row['output_mb']} |"
        )
    if profile.get("spark_jobs_may_be_missing"):
        lines.insert(
            1,
            "Spark's status store was full (spark.ui.retainedJobs): the oldest jobs of this "
            "run may be missing from the figures.",
        )
    if profile.get("jobs"):
        lines += [
            "",
            "| Spark job | phase | seconds | tasks | task s | task CPU s | in MB | out MB "
            "| shuffle MB | operators |",
            "|---|---|---|---|---|---|---|---|---|---|",
        ]
        lines += [
            f"| {j['job']} | {j['phase']} | {j['seconds']} | {j['tasks']} | {j['task_seconds']} "
            f"| {j['task_cpu_seconds']} | {j['input_mb']} | {j['output_mb']} | {j['shuffle_mb']} "
            f"| {j['operators']} |"
            for j in profile["jobs"]
        ]
    return "\n".join(lines) + "\n"

"""Replay recorded trajectories through the environment and keep what the tab held, step by step.

``replay(trajectory)`` feeds every answered step to an :class:`~rtlab.environment.Environment` in order, as a
live agent's harness would, and returns a :class:`Replay`: the final tab, one :class:`StepRecord` per step
(counts and the status line the agent would have read), and the finish check. The tab at step N is
``replay(trajectory, until=N).tab``. ``replay_many`` does thousands, in worker processes, reporting a bad
trajectory and going on.
"""

from __future__ import annotations

import functools
import itertools
import posixpath
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, TypeVar, overload

from rtlab.environment import Environment, is_tab_call
from rtlab.model import Trajectory
from rtlab.tab import Tab, TabConfig

if TYPE_CHECKING:
    from rtlab.workspace import Workspace

RequirementSource = Literal["none", "rubric", "trajectory"]
T = TypeVar("T")
REQUIREMENT_SOURCES: tuple[str, ...] = ("none", "rubric", "trajectory")


@dataclass
class StepRecord:
    """What the environment did at one step, and what the tab held right after it."""

    step: int
    """``Step.index`` in the trajectory."""
    tool: str
    kind: Literal["observe", "tab_call", "skipped_tab_call", "unanswered"]
    n_requirements: int
    n_open: int
    n_entries: int
    n_files: int
    """Distinct files in the read log."""
    n_candidates: int
    status_line: str
    new_entries: list[str] = field(default_factory=list)
    """Read-log ids this step added."""
    reply: str | None = None
    """The environment's answer to a tab call."""


@dataclass
class Replay:
    """A trajectory replayed through the environment: the final tab and the per-step record."""

    trajectory_id: str
    requirements: str
    config: TabConfig
    tab: Tab
    records: list[StepRecord] = field(default_factory=list)
    finish_check: str | None = None
    model_kept: list[dict[str, Any]] = field(default_factory=list)
    """The agent's own plan / todo-list updates (e.g. Codex ``todo_list``), reported beside the tab."""
    trajectory: Trajectory | None = field(default=None, repr=False, compare=False)
    """The trajectory replayed (for analyses that need both); not kept when a replay is pickled."""

    def __getstate__(self) -> dict[str, Any]:
        return {**self.__dict__, "trajectory": None}  # a worker sends back the tab, not the whole run again


def task_text(trajectory: Trajectory) -> str:
    """What the tab ranks candidates against: the benchmark's task text, else the instruction the agent got."""
    if trajectory.task is not None and trajectory.task.instruction:
        return trajectory.task.instruction
    return trajectory.instruction or ""


def replay(
    trajectory: Trajectory,
    *,
    config: TabConfig | None = None,
    requirements: RequirementSource = "none",
    workspace: Workspace | None = None,
    until: int | None = None,
) -> Replay:
    """Replay one trajectory; ``until=N`` stops after the step with index N (the tab as it was then)."""
    if requirements not in REQUIREMENT_SOURCES:
        raise ValueError(f"requirements must be one of {REQUIREMENT_SOURCES}, got {requirements!r}")
    config = config or TabConfig()
    env = Environment(
        task_text(trajectory),
        config=config,
        cwd=trajectory.cwd,
        root=workspace.agent_root if workspace is not None and workspace.agent_root else trajectory.cwd,
        workspace=workspace,
    )
    if requirements == "rubric":
        if trajectory.task is None or not trajectory.task.rubric:
            raise ValueError(f"{trajectory.id}: requirements='rubric' needs a task with a rubric attached")
        for item in trajectory.task.rubric:
            env.tab.add(item.text)  # oracle requirements: stated by no step of the agent

    result = Replay(trajectory.id, requirements, config, env.tab, trajectory=trajectory)
    for step in trajectory.steps:
        if until is not None and step.index > until:
            break
        before = len(env.tab.read_log)
        reply: str | None = None
        if not step.answered:
            kind = "unanswered"
        elif is_tab_call(step):
            if requirements == "trajectory":
                kind, reply = "tab_call", env.call(step.tool, step.args, step=step.index)
            else:
                kind = "skipped_tab_call"
        else:
            kind = "observe"
            env.record(step)  # what observe does, less composing the text the model would read
        result.records.append(_record(step.index, step.tool, kind, env, before, reply))

    if until is None:
        result.finish_check = env.finish()
    result.model_kept = [
        {"seq": e.seq, "line": e.line, **e.data} for e in trajectory.events if e.kind == "plan"
    ]
    return result


def _record(index: int, tool: str, kind: str, env: Environment, before: int, reply: str | None) -> StepRecord:
    tab = env.tab
    new = [e.id for e in tab.read_log[before:]]  # the read log only grows
    return StepRecord(
        step=index,
        tool=tool,
        kind=kind,  # type: ignore[arg-type]
        n_requirements=len(tab.requirements),
        n_open=sum(1 for r in tab.requirements if r.status == "open"),
        n_entries=len(tab.read_log),
        n_files=tab.files_read,
        n_candidates=len(tab.candidates),
        status_line=tab.status_line(),
        new_entries=new,
        reply=reply,
    )


# ---------------------------------------------------------------------------------------------------------
# Summaries and tables


def replay_summary(r: Replay, *, redact: bool = False) -> dict[str, Any]:
    """The ``rtlab replay --json`` object: read log, candidates (score descending), requirements, finish check."""
    return {
        "id": r.trajectory_id,
        "requirements_source": r.requirements,
        "config": r.config.name,
        "read_log": [
            {"id": e.id, "step": e.step, "path": e.path, "command": e.command, "chars": len(e.excerpt)}
            for e in r.tab.read_log
        ],
        "candidates": [{"path": c.path, "score": c.score} for c in r.tab.candidates_ranked()],
        "requirements": [
            {
                "id": q.id,
                "text": redact_text(q.text) if redact else q.text,
                "status": q.status,
                "cite": q.cite,
            }
            for q in r.tab.requirements
        ],
        "finish_check": r.finish_check,
        "n_steps": len(r.records),
        "model_kept": len(r.model_kept),
    }


def redact_text(text: str) -> str:
    """Mask text but keep its shape: letters become ``x``, digits ``0``; spaces and punctuation stay.

    Lengths, line structure and where numbers stood survive, so sizes and positions can still be analysed
    and shared; the words and values cannot be read back.
    """
    return "".join("0" if ch.isdigit() else "x" if ch.isalpha() else ch for ch in text)


def read_log_frame(replays: Iterable[Replay], *, redact: bool = False):
    """One row per read-log entry: trajectory, id, step, path, command, chars, excerpt."""
    import pandas as pd

    rows = [
        {
            "trajectory": r.trajectory_id,
            "id": e.id,
            "step": e.step,
            "path": e.path,
            "command": e.command,
            "chars": len(e.excerpt),
            "excerpt": redact_text(e.excerpt) if redact else e.excerpt,
        }
        for r in replays
        for e in r.tab.read_log
    ]
    return pd.DataFrame(rows, columns=["trajectory", "id", "step", "path", "command", "chars", "excerpt"])


def candidates_frame(replays: Iterable[Replay]):
    """One row per remaining candidate: trajectory, rank (from 1), path, score, step listed."""
    import pandas as pd

    rows = [
        {
            "trajectory": r.trajectory_id,
            "rank": k,
            "path": c.path,
            "score": c.score,
            "step_listed": c.step_listed,
        }
        for r in replays
        for k, c in enumerate(r.tab.candidates_ranked(), 1)
    ]
    return pd.DataFrame(rows, columns=["trajectory", "rank", "path", "score", "step_listed"])


def requirements_frame(replays: Iterable[Replay], *, redact: bool = False):
    """One row per requirement: trajectory, id, text, status, cite, reason, steps added and resolved."""
    import pandas as pd

    rows = [
        {
            "trajectory": r.trajectory_id,
            "id": q.id,
            "text": redact_text(q.text) if redact else q.text,
            "status": q.status,
            "cite": q.cite,
            "reason": q.reason,
            "step_added": q.step_added,
            "step_resolved": q.step_resolved,
        }
        for r in replays
        for q in r.tab.requirements
    ]
    cols = ["trajectory", "id", "text", "status", "cite", "reason", "step_added", "step_resolved"]
    return pd.DataFrame(rows, columns=cols)


def steps_tab_frame(replays: Iterable[Replay]):
    """One row per step: what the tab held after it and the status line the agent read."""
    import pandas as pd

    cols = [
        "trajectory",
        "step",
        "tool",
        "kind",
        "n_requirements",
        "n_open",
        "n_entries",
        "n_files",
        "n_candidates",
        "n_new_entries",
        "status_line",
    ]
    rows = [
        {
            "trajectory": r.trajectory_id,
            "step": s.step,
            "tool": s.tool,
            "kind": s.kind,
            "n_requirements": s.n_requirements,
            "n_open": s.n_open,
            "n_entries": s.n_entries,
            "n_files": s.n_files,
            "n_candidates": s.n_candidates,
            "n_new_entries": len(s.new_entries),
            "status_line": s.status_line,
        }
        for r in replays
        for s in r.records
    ]
    return pd.DataFrame(rows, columns=cols)


TABLES = ("read_log", "candidates", "requirements", "steps")


def tables(replays: Sequence[Replay], *, redact: bool = False) -> dict[str, Any]:
    """All four tidy tables by name."""
    return {
        "read_log": read_log_frame(replays, redact=redact),
        "candidates": candidates_frame(replays),
        "requirements": requirements_frame(replays, redact=redact),
        "steps": steps_tab_frame(replays),
    }


def export_parquet(replays: Sequence[Replay], out_dir: str | Path, *, redact: bool = False) -> list[Path]:
    """Write the four tables as Parquet files in ``out_dir``, atomically and readable by the owner only.

    The read log holds excerpts of workspace files, which may be sensitive (the paper's own caution), so every
    file gets mode 0600 whether or not ``redact`` masks the excerpt text.
    """
    from rtlab._io import atomic_open

    out = Path(out_dir)
    written = []
    for name, frame in tables(replays, redact=redact).items():
        target = out / f"{name}.parquet"
        with atomic_open(target, "wb", private=True) as fh:
            frame.to_parquet(fh, index=False)
        written.append(target)
    return written


# ---------------------------------------------------------------------------------------------------------
# Many trajectories


@dataclass
class ReplayFailure:
    path: str
    trajectory: str | None
    error: str


@dataclass
class ReplayOptions:
    """Everything a worker needs to read and replay a unit (picklable)."""

    format: str | None = None
    clip: str | None = None
    config: TabConfig = field(default_factory=TabConfig)
    requirements: RequirementSource = "none"
    workspace: str | None = None
    agent_root: str | None = None
    join: bool = True
    """Join each trajectory with the benchmark files found beside it (tasks, rubrics, judge results)."""


def agent_root_for(trajectory: Trajectory) -> str | None:
    """Where the agent knew its workspace (``--agent-root auto``): the folder of sources a G2B run was given
    (``meta["sources_dir"]``, relative to its cwd), else the trajectory's cwd."""
    sources = trajectory.meta.get("sources_dir")
    if isinstance(sources, str) and sources:
        return posixpath.join(trajectory.cwd or "", sources) if trajectory.cwd else sources
    return trajectory.cwd


@functools.lru_cache(maxsize=4)
def _open_workspace(folder: str) -> Workspace:
    """One Workspace (and its line index) per folder per process, shared by every run replayed over it."""
    from rtlab.workspace import Workspace

    return Workspace(Path(folder))


def workspace_for(trajectory: Trajectory, folder: str | None, agent_root: str | None) -> Workspace | None:
    """The workspace a trajectory is replayed against: ``folder`` seen from ``agent_root`` (``"auto"``: from
    :func:`agent_root_for`); ``None`` without a folder."""
    if folder is None:
        return None
    root = agent_root_for(trajectory) if agent_root == "auto" else agent_root
    return _open_workspace(str(Path(folder).resolve())).rebased(root)


def _replay_unit(
    unit: str, fmt: str, options: ReplayOptions, each: Callable[[Replay], Any] | None = None
) -> tuple[list[Any], list[ReplayFailure]]:
    """Read one unit and replay each of its trajectories (then ``each`` of every replay, when given); failures
    are returned, not raised."""
    from rtlab.ingest import read_unit

    try:
        trajectories = read_unit(Path(unit), fmt, clip=options.clip, join=options.join)
    except Exception as exc:  # reported, and the batch goes on
        return [], [ReplayFailure(unit, None, _describe(exc))]
    done: list[Any] = []
    failed: list[ReplayFailure] = []
    for t in trajectories:
        try:
            workspace = workspace_for(t, options.workspace, options.agent_root)
            r = replay(t, config=options.config, requirements=options.requirements, workspace=workspace)
            r.tab.candidates_ranked()  # ranked where it was replayed (a worker), not by the reader of results
            done.append(r if each is None else each(r))
        except Exception as exc:
            failed.append(ReplayFailure(unit, t.id, _describe(exc)))
    return done, failed


def _describe(exc: BaseException) -> str:
    from rtlab.errors import RtlabError

    return str(exc) if isinstance(exc, RtlabError | OSError | ValueError) else f"{type(exc).__name__}: {exc}"


@overload
def replay_paths(
    paths: Iterable[str | Path],
    options: ReplayOptions | None = None,
    *,
    jobs: int = 1,
    progress: bool = False,
    strict: bool = False,
    each: None = None,
) -> Iterator[tuple[list[Replay], list[ReplayFailure]]]: ...


@overload
def replay_paths(
    paths: Iterable[str | Path],
    options: ReplayOptions | None = None,
    *,
    jobs: int = 1,
    progress: bool = False,
    strict: bool = False,
    each: Callable[[Replay], T],
) -> Iterator[tuple[list[T], list[ReplayFailure]]]: ...


def replay_paths(
    paths: Iterable[str | Path],
    options: ReplayOptions | None = None,
    *,
    jobs: int = 1,
    progress: bool = False,
    strict: bool = False,
    each: Callable[[Replay], Any] | None = None,
) -> Iterator[tuple[list[Any], list[ReplayFailure]]]:
    """Replay every trajectory under ``paths``, unit by unit, in ``jobs`` worker processes.

    Yields each unit's replays and failures as it finishes, in the units' order. ``each`` (a picklable
    function, e.g. :func:`replay_summary`) is applied to every replay in the worker, and its results are
    yielded instead: what comes back to this process is then only what the caller keeps. Workers start on the
    first units while the rest are still being found. With ``strict`` the first failure raises
    ``RuntimeError`` naming it.
    """
    from rtlab.ingest import iter_units

    options = options or ReplayOptions()
    units = ((str(u), f) for u, f in iter_units(paths, format=options.format))
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=None, desc="replay", unit="run")

    def counted(found: list[tuple[str, str]]) -> None:  # the bar's total, known once every unit is found
        if bar is not None:
            bar.total = len(found)
            bar.refresh()

    def results() -> Iterator[tuple[list[Any], list[ReplayFailure]]]:
        head = list(itertools.islice(units, 2))
        if jobs <= 1 or len(head) < 2:  # no pool for one unit
            found = head + list(units)
            counted(found)
            for u, f in found:
                yield _replay_unit(u, f, options, each)
            return
        from concurrent.futures import ProcessPoolExecutor

        with ProcessPoolExecutor(max_workers=jobs) as pool:
            found, futures = [], []
            for u, f in itertools.chain(head, units):  # submitted as found: the workers start meanwhile
                found.append((u, f))
                futures.append(pool.submit(_replay_unit, u, f, options, each))
            counted(found)
            for fut in futures:
                yield fut.result()

    try:
        for done, failed in results():
            if bar is not None:
                bar.update(1)
            if strict and failed:
                first = failed[0]
                raise RuntimeError(f"{first.path} ({first.trajectory or 'unit'}): {first.error}")
            yield done, failed
    finally:
        if bar is not None:
            bar.close()

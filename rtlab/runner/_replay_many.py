"""Replay many recorded runs: every unit under a set of paths read and replayed, in worker processes.

This is where the environment meets ingest: :func:`replay_paths` finds units (:func:`rtlab.ingest._batch.iter_units`),
reads and joins each one, and replays each of its trajectories through :func:`rtlab.environment._environment.replay`; a unit
that fails to read or replay is reported as a :class:`ReplayFailure` and the batch goes on.
"""

from __future__ import annotations

import functools
import itertools
import posixpath
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar, overload

from rtlab.environment import Replay, RequirementSource, TabConfig, replay
from rtlab.errors import UnitError
from rtlab.records import Trajectory

if TYPE_CHECKING:
    from rtlab.environment import Workspace
    from rtlab.ingest import RenamedId, Unclaimed

T = TypeVar("T")


@dataclass
class ReplayFailure:
    """A unit that could not be read, or one of its trajectories that could not be replayed, and why."""

    path: str
    """The unit (file or run folder)."""
    trajectory: str | None
    """The id of the trajectory whose replay failed; ``None`` when reading the unit failed."""
    error: str
    """The error's message, prefixed by its type unless it is an rtlab, OS or value error."""


@dataclass
class ReplayOptions:
    """Everything a worker needs to read and replay a unit (picklable)."""

    format: str | None = None
    """Find and read only units of this format; ``None``: every format, each unit detected."""
    clip: str | None = None
    """Clip policy name for the readers; ``None`` keeps each reader's default."""
    config: TabConfig = field(default_factory=TabConfig)
    """The tab's switches and sizes for every replay."""
    requirements: RequirementSource = "none"
    """Where the tab's requirements come from (see :func:`rtlab.environment.replay`)."""
    workspace: str | None = None
    """Folder of the runs' workspace files, to replay against; ``None`` replays without one."""
    agent_root: str | None = None
    """The path the agents knew that folder by (``"auto"``: see :func:`agent_root_for`); ``None``: their
    paths are taken relative to the folder."""
    join: bool = True
    """Join each trajectory with the benchmark files found beside it (tasks, rubrics, judge results)."""
    follow_links: bool = False
    """Scan linked folders outside the paths given too (by default only those a reader claims as a run)."""
    strict: bool = False
    """Refuse a log with any reading warning (``--strict``: :attr:`rtlab.ingest.ReadOptions.strict`);
    :func:`replay_paths` sets it with its own ``strict``."""


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
    from rtlab.environment import Workspace

    return Workspace(Path(folder))


def workspace_for(trajectory: Trajectory, folder: str | None, agent_root: str | None) -> Workspace | None:
    """The workspace a trajectory is replayed against: ``folder`` seen from ``agent_root`` (``"auto"``: from
    :func:`agent_root_for`); ``None`` without a folder."""
    if folder is None:
        return None
    root = agent_root_for(trajectory) if agent_root == "auto" else agent_root
    return _open_workspace(str(Path(folder).resolve())).rebased(root)


@dataclass
class _UnitDone:
    """What replaying one unit gives back to the process that asked."""

    done: list[Any]
    failed: list[ReplayFailure]
    ids: list[str]
    """The ids of the trajectories read, as replayed."""
    renamed: list[RenamedId]


def _replay_unit(
    unit: str,
    fmt: str,
    options: ReplayOptions,
    each: Callable[[Replay], Any] | None = None,
    taken: dict[str, str] | None = None,
) -> _UnitDone:
    """Read one unit and replay each of its trajectories (then ``each`` of every replay, when given); failures
    are returned, not raised. With ``taken`` (ids seen so far, updated), a trajectory whose id is taken is given
    a unique one (:func:`rtlab.ingest.unique_ids`) before it is replayed."""
    from rtlab.ingest import read_found_unit, unique_ids

    try:  # the unit as iter_units found it (in the form of unit_path): not resolved again
        trajectories = read_found_unit(
            Path(unit),
            fmt,
            clip=options.clip,
            join=options.join,
            strict=options.strict,
            detected=options.format is None,
        )
    except Exception as exc:  # reported, and the batch goes on
        return _UnitDone([], [ReplayFailure(unit, None, _describe(exc))], [], [])
    renamed = unique_ids(trajectories, taken) if taken is not None else []
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
    return _UnitDone(done, failed, [t.id for t in trajectories], renamed)


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
    unclaimed: list[Unclaimed] | None = None,
    renamed: list[RenamedId] | None = None,
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
    unclaimed: list[Unclaimed] | None = None,
    renamed: list[RenamedId] | None = None,
) -> Iterator[tuple[list[T], list[ReplayFailure]]]: ...


def replay_paths(
    paths: Iterable[str | Path],
    options: ReplayOptions | None = None,
    *,
    jobs: int = 1,
    progress: bool = False,
    strict: bool = False,
    each: Callable[[Replay], Any] | None = None,
    unclaimed: list[Unclaimed] | None = None,
    renamed: list[RenamedId] | None = None,
) -> Iterator[tuple[list[Any], list[ReplayFailure]]]:
    """Replay every trajectory under ``paths``, unit by unit, in ``jobs`` worker processes.

    Yields each unit's replays and failures as it finishes, in the units' order. ``each`` (a picklable
    function, e.g. :func:`replay_summary`) is applied to every replay in the worker, and its results are
    yielded instead: what comes back to this process is then only what the caller keeps. Workers start on the
    first units while the rest are still being found. With ``strict`` the first failure raises
    :class:`~rtlab.errors.UnitError` (a ``RuntimeError``) naming it. Files no reader claims are added to
    ``unclaimed``; a trajectory whose id an
    earlier one has is given a unique id before it is replayed (as :func:`rtlab.ingest.ingest` does; workers
    replay with the ids their unit gives, and a unit found to repeat an id is replayed again here, renamed),
    recorded in ``renamed``.
    """
    from rtlab.ingest import iter_units

    options = options or ReplayOptions()
    if strict and not options.strict:
        from dataclasses import replace

        options = replace(options, strict=True)
    units = (
        (str(u), f)
        for u, f in iter_units(
            paths, format=options.format, unclaimed=unclaimed, follow_links=options.follow_links
        )
    )
    taken: dict[str, str] = {}
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=None, desc="replay", unit="run")

    def counted(found: list[tuple[str, str]]) -> None:  # the bar's total, known once every unit is found
        if bar is not None:
            bar.total = len(found)
            bar.refresh()

    def results() -> Iterator[_UnitDone]:
        head = list(itertools.islice(units, 2))
        if jobs <= 1 or len(head) < 2:  # no pool for one unit
            found = head + list(units)
            counted(found)
            for u, f in found:
                yield _replay_unit(u, f, options, each, taken)
            return
        from rtlab._workers import process_pool

        with process_pool(jobs) as pool:  # workers die with this process, however it dies
            found, futures = [], []
            for u, f in itertools.chain(head, units):  # submitted as found: the workers start meanwhile
                found.append((u, f))
                futures.append(pool.submit(_replay_unit, u, f, options, each))
            counted(found)
            for (u, f), fut in zip(found, futures, strict=True):
                result = fut.result()
                if any(i in taken for i in result.ids) or len(set(result.ids)) < len(result.ids):
                    result = _replay_unit(u, f, options, each, taken)  # rare: replayed again, renamed
                else:
                    taken.update(dict.fromkeys(result.ids, u))
                yield result

    try:
        for result in results():
            if bar is not None:
                bar.update(1)
            if renamed is not None:
                renamed.extend(result.renamed)
            if strict and result.failed:
                first = result.failed[0]
                raise UnitError(f"{first.path} ({first.trajectory or 'unit'}): {first.error}")
            yield result.done, result.failed
    finally:
        if bar is not None:
            bar.close()

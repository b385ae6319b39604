"""Batch ingestion: find every trajectory under some paths, read it, join its benchmark, keep going on errors."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rtlab.errors import RtlabError
from rtlab.ingest._labels import apply_run_labels
from rtlab.ingest.readers import ReadOptions, discover, get_reader
from rtlab.records import Trajectory


@dataclass
class IngestFailure:
    """A unit (file or run folder) that could not be read, and why."""

    path: str
    """The unit (file or run folder)."""
    format: str | None
    """The format it was read as."""
    error: str
    """The error's message, prefixed by its type unless it is an rtlab or OS error."""


@dataclass
class IngestResult:
    """What :func:`ingest` read: every trajectory, and every unit that failed."""

    trajectories: list[Trajectory] = field(default_factory=list)
    """The trajectories read, unit by unit in the units' order."""
    failures: list[IngestFailure] = field(default_factory=list)
    """The units that failed, in the same order."""


def iter_units(paths: Iterable[str | Path], *, format: str | None = None) -> Iterator[tuple[Path, str]]:
    """Every ``(unit, format)`` under ``paths``, in a stable order."""
    for p in paths:
        yield from discover(p, format=format)


def read_unit(unit: Path, fmt: str, *, clip: str | None = None, join: bool = True) -> list[Trajectory]:
    """Read one unit with its reader, label it from its ``run.json`` (:mod:`rtlab.ingest._labels`) and join each
    trajectory with its benchmark files."""
    from rtlab.ingest.benchmarks import attach

    trajectories = get_reader(fmt).read(unit, ReadOptions(clip=clip))
    for t in trajectories:
        apply_run_labels(t, unit)
    if join:
        for t in trajectories:
            if t.task is None and t.judgement is None:
                attach(t)
    return trajectories


def ingest(
    paths: Iterable[str | Path],
    *,
    format: str | None = None,
    clip: str | None = None,
    strict: bool = False,
    join: bool = True,
    progress: bool = False,
) -> IngestResult:
    """Read every trajectory under ``paths``.

    A unit that fails is recorded in ``failures`` and the rest go on; with ``strict`` the first failure raises.
    Paths given that do not exist or are not recognised always raise: that is a mistake in the call, not data.
    """
    units = list(iter_units(paths, format=format))
    result = IngestResult()
    iterator: Iterable[tuple[Path, str]] = units
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(units, desc="ingest", unit="run")
    for unit, fmt in iterator:
        try:
            result.trajectories.extend(read_unit(unit, fmt, clip=clip, join=join))
        except Exception as exc:  # one bad run must not stop a batch of thousands
            if strict:
                raise
            message = str(exc) if isinstance(exc, RtlabError | OSError) else f"{type(exc).__name__}: {exc}"
            result.failures.append(IngestFailure(str(unit), fmt, message))
    return result

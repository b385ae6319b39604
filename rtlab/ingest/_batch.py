"""Batch ingestion: find every trajectory under some paths, read it, join its benchmark, keep going on errors."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from rtlab.errors import RtlabError, UnitError
from rtlab.ingest._labels import apply_labels_file, run_labels_path
from rtlab.ingest.readers import ReadOptions, Unclaimed, discover, get_reader
from rtlab.records import ReadWarning, Trajectory


@dataclass
class IngestFailure:
    """A unit (file or run folder) that could not be read, and why."""

    path: str
    """The unit (file or run folder)."""
    format: str | None
    """The format it was read as."""
    error: str
    """The error's message, prefixed by its type unless it is an rtlab or OS error."""


@dataclass(frozen=True)
class RenamedId:
    """A trajectory whose id another trajectory read earlier already had, and the id it was given instead."""

    path: str
    """The file or run folder of the renamed trajectory."""
    old: str
    """The id its reader gave it."""
    new: str
    """The id it carries now: ``<old>~<n>``, ``n`` from 2, the first free one."""
    first_path: str
    """The source of the trajectory that kept ``old``."""


@dataclass
class IngestResult:
    """What :func:`ingest` read: every trajectory, every unit that failed, every file no reader claimed."""

    trajectories: list[Trajectory] = field(default_factory=list)
    """The trajectories read, unit by unit in the units' order."""
    failures: list[IngestFailure] = field(default_factory=list)
    """The units that failed, in the same order."""
    unclaimed: list[Unclaimed] = field(default_factory=list)
    """Files met in the folders scanned that no reader claimed, each with what it holds."""
    renamed: list[RenamedId] = field(default_factory=list)
    """Trajectories whose id was already taken, and the unique id each was given."""


def unit_path(path: str | Path) -> Path:
    """The one form of a unit's path (a log file or a run folder), which every trajectory read from it carries
    as ``source_path``, whatever route reached it: absolute, with every symbolic link and ``..`` on the way to it
    resolved, so a link to a folder of runs, ``..``, a relative and an absolute path give the same string, which
    stays true when the working directory changes (a store outlives the one it was built from).

    The unit's own name is kept: a unit that is itself a link stays where it was found, not where the link
    leads, because what rtlab reads beside a unit is beside the link (its ``run.json``, a benchmark's task and
    judge files) and readers take ids from the unit's name. Dataset caches are built of such links: a file of a
    Hugging Face Hub snapshot is a link to a blob named by its hash, as are git-annex and DVC files.
    """
    p = path if isinstance(path, Path) else Path(path)
    if p.name in ("", ".", ".."):  # "." or "..": the folder has no name of its own in the path
        return p.resolve()
    return p.parent.resolve() / p.name


def iter_units(
    paths: Iterable[str | Path],
    *,
    format: str | None = None,
    unclaimed: list[Unclaimed] | None = None,
    follow_links: bool = False,
) -> Iterator[tuple[Path, str]]:
    """Every ``(unit, format)`` under ``paths``, in a stable order, each unit in the form of :func:`unit_path`;
    files no reader claims go to ``unclaimed``. A linked folder outside a path is scanned only when a reader
    claims it or with ``follow_links`` (see :func:`~rtlab.ingest.readers.discover`)."""
    for p in paths:
        for unit, fmt in discover(p, format=format, unclaimed=unclaimed, follow_links=follow_links):
            yield unit_path(unit), fmt


def unique_ids(trajectories: Iterable[Trajectory], taken: dict[str, str]) -> list[RenamedId]:
    """Give every trajectory an id no earlier one has, in order; ``taken`` maps the ids seen so far to their
    sources and is updated. A repeated id becomes ``<id>~2`` (``~3``, ... when that is taken too): the first
    keeps its id, so a batch's ids do not depend on what follows."""
    renamed = []
    for t in trajectories:
        if t.id in taken:
            n = 2
            while f"{t.id}~{n}" in taken:
                n += 1
            new = f"{t.id}~{n}"
            renamed.append(RenamedId(t.source_path, t.id, new, taken[t.id]))
            t.id = new
        taken[t.id] = t.source_path
    return renamed


def read_unit(
    unit: Path,
    fmt: str,
    *,
    clip: str | None = None,
    join: bool = True,
    strict: bool = False,
    detected: bool = False,
) -> list[Trajectory]:
    """Read one unit with its reader, label it from its ``run.json`` (:mod:`rtlab.ingest._labels`) and join each
    trajectory with its benchmark files. The reader is given the unit in the form of :func:`unit_path`, so the
    trajectories' ``source_path`` is the same whatever route the caller took to the unit.

    ``strict``: a reading warning is an error (:class:`~rtlab.errors.ReaderError` naming file and line).
    ``detected``: ``fmt`` was found by detection, not asked for; then a unit in which its reader finds no tool
    call while another reader finds some is read by the one that finds most, and each trajectory says so.
    """
    return read_found_unit(unit_path(unit), fmt, clip=clip, join=join, strict=strict, detected=detected)


def read_found_unit(
    unit: Path,
    fmt: str,
    *,
    clip: str | None = None,
    join: bool = True,
    strict: bool = False,
    detected: bool = False,
) -> list[Trajectory]:
    """:func:`read_unit` of a unit in the form of :func:`unit_path` already (as :func:`iter_units` gives it),
    which is not resolved again: the batches of this package read the units they found."""
    from rtlab.ingest.benchmarks import attach

    options = ReadOptions(clip=clip, strict=strict)
    trajectories = get_reader(fmt).read(unit, options)
    found = trajectories[0].meta.get("formats_with_steps") if detected and trajectories else None
    if isinstance(found, dict) and found:
        other = next(iter(found))
        trajectories = get_reader(other).read(unit, options)
        for t in trajectories:
            t.warnings.append(
                ReadWarning(
                    str(unit),
                    None,
                    f"detected as {fmt}, whose reader found no tool call in it; read as {other}, which finds "
                    f"{found[other]}",
                    "no-steps",
                )
            )
    labels = run_labels_path(unit) if trajectories else None  # one unit, one run.json: looked up once
    if labels is not None:
        for t in trajectories:
            apply_labels_file(t, labels)
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
    follow_links: bool = False,
) -> IngestResult:
    """Read every trajectory under ``paths``.

    A unit that fails is recorded in ``failures`` and the rest go on; with ``strict`` the first failure raises,
    and a log with any reading warning fails (:attr:`ReadOptions.strict`).
    Paths given that do not exist or are not recognised always raise: that is a mistake in the call, not data.
    Files met in folders that no reader claims are listed in ``unclaimed``; a trajectory whose id was taken
    by an earlier one is given a unique id (``renamed``). ``follow_links``: scan linked folders outside the
    paths too (see :func:`iter_units`).
    """
    result = IngestResult()
    units = list(iter_units(paths, format=format, unclaimed=result.unclaimed, follow_links=follow_links))
    taken: dict[str, str] = {}
    iterator: Iterable[tuple[Path, str]] = units
    if progress:
        from tqdm.auto import tqdm

        iterator = tqdm(units, desc="ingest", unit="run")
    for unit, fmt in iterator:
        try:
            found = read_found_unit(unit, fmt, clip=clip, join=join, strict=strict, detected=format is None)
            result.renamed += unique_ids(found, taken)
            result.trajectories.extend(found)
        except Exception as exc:  # one bad run must not stop a batch of thousands
            result.failures.append(unit_failure(exc, unit, fmt, strict=strict))
    return result


def unit_failure(exc: Exception, unit: Path, fmt: str, *, strict: bool) -> IngestFailure:
    """What a batch records of a unit whose reading raised ``exc`` (and goes on); with ``strict``, raised
    instead: an :class:`RtlabError` as it is, anything else as a :class:`UnitError` naming the unit. Must be
    called inside the ``except`` that caught ``exc``."""
    message = str(exc) if isinstance(exc, RtlabError | OSError) else f"{type(exc).__name__}: {exc}"
    if strict:
        if isinstance(exc, RtlabError):
            raise exc
        raise UnitError(f"{unit} ({fmt}): {message}") from exc
    return IngestFailure(str(unit), fmt, message)

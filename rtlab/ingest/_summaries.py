"""Summary reading: what a user needs per trajectory (ids, labels, task, model, scores, usage) read from a log's
own summary where its format keeps one (an Inspect ``.eval``'s header and ``summaries.json``), without decoding
its steps; every other unit is read whole, and each trajectory says which it was."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from rtlab.ingest._batch import (
    IngestFailure,
    RenamedId,
    iter_units,
    read_found_unit,
    unique_ids,
    unit_failure,
    unit_path,
)
from rtlab.ingest._labels import apply_run_labels
from rtlab.ingest.readers import NoSummary, ReadOptions, Unclaimed, get_summarizer
from rtlab.records import Trajectory

ReadKind = Literal["summary", "full"]
"""How a trajectory was read: from its log's summary (no steps), or whole."""


@dataclass
class Summarized:
    """One trajectory as summary reading got it."""

    trajectory: Trajectory
    """The trajectory: without steps or events when ``read`` is ``summary``."""
    read: ReadKind
    """``summary``: from the log's own summary; ``full``: read whole."""
    why_full: str | None = None
    """Why a unit whose format keeps a summary was read whole (``None`` otherwise)."""


@dataclass
class SummaryResult:
    """What :func:`read_summaries` read, as :class:`~rtlab.ingest.IngestResult` says it for whole readings."""

    summarized: list[Summarized] = field(default_factory=list)
    """The trajectories, unit by unit in the units' order (each unit's in its reader's order)."""
    failures: list[IngestFailure] = field(default_factory=list)
    """The units that failed, in the same order."""
    unclaimed: list[Unclaimed] = field(default_factory=list)
    """Files met in the folders scanned that no reader claimed."""
    renamed: list[RenamedId] = field(default_factory=list)
    """Trajectories whose id was already taken, and the unique id each was given."""


def summarize_unit(
    unit: Path, fmt: str, *, clip: str | None = None, join: bool = True, detected: bool = False
) -> list[Summarized]:
    """One unit's trajectories from its summary where its reader has one and it stands for the whole log
    (labelled from ``run.json`` and joined as :func:`~rtlab.ingest.read_unit` does), else read whole."""
    from rtlab.ingest.benchmarks import attach

    unit = unit_path(unit)
    summarize = get_summarizer(fmt)
    why: str | None = None
    if summarize is not None:
        try:
            found = summarize(unit, ReadOptions(clip=clip))
        except NoSummary as exc:
            why = str(exc)
        else:
            for t in found:
                apply_run_labels(t, unit)
                if join and t.task is None and t.judgement is None:
                    attach(t)
            return [Summarized(t, "summary") for t in found]
    found = read_found_unit(unit, fmt, clip=clip, join=join, detected=detected)  # unit_path'd above
    return [Summarized(t, "full", why) for t in found]


def read_summaries(
    paths: Iterable[str | Path],
    *,
    format: str | None = None,
    clip: str | None = None,
    join: bool = True,
    strict: bool = False,
    follow_links: bool = False,
) -> SummaryResult:
    """Every trajectory under ``paths``, each from its log's summary where the format keeps one
    (:func:`summarize_unit`), else read whole; units found, ids made unique and failures kept as
    :func:`~rtlab.ingest.ingest` does (``strict``: the first failure raises, and every unit is read whole, since
    only a whole reading sees every record's warnings)."""
    result = SummaryResult()
    taken: dict[str, str] = {}
    for unit, fmt in iter_units(paths, format=format, unclaimed=result.unclaimed, follow_links=follow_links):
        try:
            if strict:
                found = [
                    Summarized(t, "full", "--strict reads every record")
                    for t in read_found_unit(
                        unit, fmt, clip=clip, join=join, strict=True, detected=format is None
                    )
                ]
            else:
                found = summarize_unit(unit, fmt, clip=clip, join=join, detected=format is None)
            result.renamed += unique_ids([s.trajectory for s in found], taken)
            result.summarized.extend(found)
        except Exception as exc:  # one bad run must not stop a batch, as in ingest
            result.failures.append(unit_failure(exc, unit, fmt, strict=strict))
    return result

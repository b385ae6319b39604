"""The dataset a notebook draws from: read once, its unreadable units named, and whether it is simulated."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from rtlab.figures._plots import simulated_tag
from rtlab.ingest import IngestFailure, ingest
from rtlab.records import Trajectory


@dataclass(frozen=True)
class Dataset:
    """What :func:`open_dataset` read."""

    path: str
    """The run folder, log file or folder of them that was read."""
    trajectories: list[Trajectory]
    """Every trajectory read, in the order the units were found."""
    failures: list[IngestFailure]
    """The units that could not be read, each with its reader and why; the others were read."""
    simulated: bool
    """Whether the data is a simulated world: its figures say so in their title, note and file name."""

    @property
    def note(self) -> str:
        """The titles' tag: ``" (SIMULATED data)"`` for a simulated world, else ``""``."""
        return simulated_tag({"data": self.simulated})

    def summary(self) -> str:
        """How many trajectories were read and how many units were not (with the tag), then one line per
        unreadable unit: its path, reader and error."""
        head = f"{len(self.trajectories)} trajectories, {len(self.failures)} unreadable{self.note}"
        return "\n".join([head, *(f"  unreadable: {f.path} ({f.format}): {f.error}" for f in self.failures)])


def open_dataset(path: str | Path, *, simulated: bool, progress: bool = False) -> Dataset:
    """Read every trajectory under ``path`` as the notebooks do (autodetected formats, the harness's clipping,
    run labels and benchmark files joined); a unit that fails is recorded, not raised.

    ``simulated`` says whether ``path`` is a simulated world (``rtlab.synth.is_simulated(path)``: the world's
    marker belongs to the generator, which figure code does not import)."""
    result = ingest([path], progress=progress)
    return Dataset(str(path), result.trajectories, result.failures, simulated)

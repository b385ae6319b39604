"""The dataset a notebook draws from: its store (built once, ``rtlab build``), its unreadable units named, and
whether it is simulated."""

from __future__ import annotations

import shutil
import tempfile
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from rtlab.figures._plots import simulated_tag
from rtlab.ingest import IngestFailure
from rtlab.records import Trajectory

if TYPE_CHECKING:
    import pandas as pd

    from rtlab.store import Store


@dataclass(frozen=True)
class Dataset:
    """What :func:`open_dataset` opened."""

    path: str
    """The run folder, log file or folder of them (or the store) that was opened."""
    store: Store
    """The store holding its tables (:func:`rtlab.store.open_store`)."""
    failures: list[IngestFailure]
    """The units that could not be read, each with its reader and why; the others were read."""
    simulated: bool
    """Whether the data is a simulated world: its figures say so in their title, note and file name."""

    @cached_property
    def trajectories(self) -> list[Trajectory]:
        """Every trajectory read, in the order the units were found (from the store's records)."""
        return self.store.load_trajectories()

    @property
    def note(self) -> str:
        """The titles' tag: ``" (SIMULATED data)"`` for a simulated world, else ``""``."""
        return simulated_tag({"data": self.simulated})

    def summary(self) -> str:
        """How many trajectories were read and how many units were not (with the tag), then one line per
        unreadable unit: its path, reader and error."""
        n = sum(len(r.get("trajectories", [])) for r in self.store.runs.values())
        head = f"{n} trajectories, {len(self.failures)} unreadable{self.note}"
        return "\n".join([head, *(f"  unreadable: {f.path} ({f.format}): {f.error}" for f in self.failures)])

    @cached_property
    def runs(self) -> pd.DataFrame:
        """One row per trajectory (``rtlab.analysis.summary_frame``), from the store: no trajectory decoded."""
        return self.store.trajectories()

    def _of(self, table: str, runs: Iterable[Trajectory | str] | None) -> pd.DataFrame:
        if runs is None:
            return self.store.table(table)
        ids = [r if isinstance(r, str) else r.id for r in runs]
        return self.store.table(table, filters=[("trajectory", "in", ids)])

    def values(self, runs: Iterable[Trajectory | str] | None = None) -> pd.DataFrame:
        """``rtlab.analysis.values_frame`` of ``runs`` (trajectories or their ids; default: every run), from the
        store."""
        return self._of("values", runs)

    def labels(self, runs: Iterable[Trajectory | str] | None = None) -> pd.DataFrame:
        """``rtlab.analysis.diagnose_frame`` of ``runs`` (the rule labels), from the store."""
        labels = self._of("labels", runs)
        return labels[labels["annotator"] == "rules"].drop(columns="annotator").reset_index(drop=True)

    def scores(self) -> pd.DataFrame:
        """``rtlab.analysis.scores_frame`` of every run, from the store."""
        return self.store.scores()

    def tab_stats(self, runs: Iterable[Trajectory | str] | None = None) -> pd.DataFrame:
        """``rtlab.analysis.tab_stats_frame`` of the default replay of ``runs``, from the store."""
        return self._of("tab_stats", runs)


def store_beside(path: str | Path) -> Path:
    """Where ``make figures`` keeps the store of a dataset: ``<path>.store`` beside it."""
    p = Path(path)
    return p.with_name(p.name + ".store")


def open_dataset(path: str | Path, *, simulated: bool, progress: bool = False) -> Dataset:
    """Open the dataset at ``path`` through its store: ``path`` itself when it is a store, else the store
    beside it (:func:`store_beside`, built by ``make figures`` from ``path``), else one built now from
    ``path`` into a temporary folder that lasts as long as the dataset (autodetected formats, the harness's
    clipping, run labels and benchmark files joined); a unit that fails is recorded, not raised.

    ``simulated`` says whether ``path`` is a simulated world (``rtlab.synth.is_simulated(path)``: the world's
    marker belongs to the generator, which figure code does not import)."""
    from rtlab.store import build_store, is_store, open_store

    beside = store_beside(path)
    temporary = None
    if is_store(path):
        store = open_store(path)
    elif is_store(beside) and open_store(beside).sources == [str(Path(path).resolve())]:
        store = open_store(beside)
    else:
        temporary = tempfile.mkdtemp(prefix="rtlab-store-")
        build_store([path], temporary, progress=progress)
        store = open_store(temporary)
    failures = [
        IngestFailure(unit, entry.get("format", "?"), entry["error"])
        for unit, entry in store.manifest.get("skipped", {}).items()
    ]
    data = Dataset(str(path), store, failures, simulated)
    if temporary is not None:
        weakref.finalize(data, shutil.rmtree, temporary, True)
    return data

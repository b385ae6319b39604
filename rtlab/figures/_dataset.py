"""The dataset a notebook draws from: its store (built once, ``rtlab build``), its unreadable units named, and
whether it is simulated; and where a notebook's paths are, from whatever folder its kernel started in.

JupyterLab starts a notebook's kernel in the notebook's folder (``notebooks/``), ``make figures`` in the
repository's root, a user's script anywhere: :func:`locate` and :func:`embedded_dataset` are the one rule that
makes a notebook's ``DATA`` and ``FIGURES`` mean the same from all of them.
"""

from __future__ import annotations

import errno
import shlex
import shutil
import sys
import tempfile
import warnings
import weakref
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING

from rtlab.figures._paths import EMBEDDED, EMBEDDED_CONFIG, ROOT, _here, locate, repository
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
    """The run folder, log file or folder of them (or the store) that was opened, as :func:`locate` found it."""
    store: Store
    """The store holding its tables (:func:`rtlab.store.open_store`)."""
    failures: list[IngestFailure]
    """The units that could not be read, each with its reader and why; the others were read."""
    simulated: bool
    """Whether the data is a simulated world: its figures say so in their title, note and file name."""

    @property
    def sources(self) -> list[str]:
        """The folders or files the data was read from (those the store was built from), resolved."""
        return self.store.sources

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


@dataclass
class DatasetNotBuilt(FileNotFoundError):
    """The embedded simulated dataset, or its store, is not built yet: what is missing and the commands that
    build it (those of the Makefile's ``synth`` and ``store`` targets, which ``make store`` runs)."""

    missing: Path
    """The file whose absence says so: the dataset's marker, or its store's manifest."""
    root: Path
    """The repository the commands are run in."""
    commands: list[str]
    """Shell commands that build what is missing, run in :attr:`root` with the interpreter that raised this."""

    def __post_init__(self) -> None:  # an OSError's errno and file name, as any missing file's
        super().__init__(errno.ENOENT, "the embedded simulated dataset is not built yet", str(self.missing))

    def __reduce__(self) -> tuple[type[DatasetNotBuilt], tuple[Path, Path, list[str]]]:
        return type(self), (self.missing, self.root, self.commands)

    def __str__(self) -> str:
        steps = "\n".join(f"  {c}" for c in [f"cd {shlex.quote(str(self.root))}", *self.commands])
        return (
            f"{self.missing}: the embedded simulated dataset is not built yet. Build it once (a few minutes)"
            f" with `make store` in {self.root}, or without make:\n{steps}\n"
            "or point DATA at your own runs (a run folder, a log file, a folder of them, or a store)."
        )


def embedded_dataset(*, cwd: str | Path | None = None) -> Path:
    """The embedded simulated dataset, built, with its store beside it: :data:`EMBEDDED` of the repository
    holding ``cwd`` (:func:`repository`), else of the one rtlab is installed from (:data:`ROOT`, an editable
    install).

    It is never built here: a dataset that is missing, incomplete (no ``README_SIMULATED.md``, which
    ``rtlab synth`` writes last) or without its store (``build/simulated.store``, built from this very folder)
    raises :class:`DatasetNotBuilt` naming ``make store`` and the exact commands; a store built by other rtlab
    code than this one's is used with a warning naming the same. Building takes minutes and two
    worker processes, races any other notebook opened meanwhile (the store takes one builder at a time) and is
    brought up to date by make's rules (a changed configuration or generator regenerates the world, a changed
    rtlab rebuilds the store), which ``make store``, ``make figures`` and ``make lab`` apply first."""
    from rtlab.store import MANIFEST, BuildOptions, is_store, open_store
    from rtlab.synth.world import SIMULATED_MARKER

    root = repository(cwd)
    if root is None:
        if not (ROOT / EMBEDDED_CONFIG).is_file():
            raise FileNotFoundError(
                f"{_here(cwd)}: no rtlab repository here or above (none holds {EMBEDDED_CONFIG}), and rtlab is not"
                " installed from one: the embedded simulated dataset lives in a clone of the repository; point"
                " DATA at your own runs instead"
            )
        root = ROOT
    data, store = root / EMBEDDED, store_beside(root / EMBEDDED)
    python = shlex.quote(sys.executable)
    build = f"{python} -m rtlab build {EMBEDDED} -o {store.relative_to(root)} --jobs 2"
    if not (data / SIMULATED_MARKER).is_file():
        synth = f"{python} -m rtlab synth {EMBEDDED} --config {EMBEDDED_CONFIG} --jobs 2"
        commands = (
            [f"rm -rf {EMBEDDED} {EMBEDDED}.partial", synth, build] if data.exists() else [synth, build]
        )
        raise DatasetNotBuilt(data / SIMULATED_MARKER, root, commands)
    if not is_store(store) or open_store(store).sources != [str(data.resolve())]:
        raise DatasetNotBuilt(store / MANIFEST, root, [build])
    if open_store(store).manifest.get("options") != BuildOptions().key():
        warnings.warn(
            f"{store} was built by another version of rtlab (its code changed since): its tables may differ from"
            f" what this rtlab computes; `make store` in {root} (or: {build}) brings it up to date",
            stacklevel=3,
        )
    return data


def open_dataset(
    path: str | Path | None = None,
    *,
    simulated: bool | None = None,
    progress: bool = False,
    cwd: str | Path | None = None,
) -> Dataset:
    """Open the dataset at ``path`` through its store. ``path`` is ``None`` for the embedded simulated dataset
    (:func:`embedded_dataset`: built, or an error naming the command that builds it), else found by
    :func:`locate` from ``cwd`` (default: the working folder; a path found nowhere is a ``FileNotFoundError``
    naming where it was looked for).

    The store is ``path`` itself when it is a store, else the store beside it (:func:`store_beside`, built by
    ``make store`` from ``path``), else one built now from ``path`` into a temporary folder that lasts as long
    as the dataset (autodetected formats, the harness's clipping, run labels and benchmark files joined); a
    unit that fails is recorded, not raised.

    ``simulated`` says whether the data is a simulated world; ``None`` asks :func:`rtlab.synth.is_simulated`
    of the dataset (of the folders a store was built from, for a store)."""
    from rtlab.store import build_store, is_store, open_store
    from rtlab.synth import is_simulated

    if path is None:
        where = embedded_dataset(cwd=cwd)
    else:
        where = locate(path, cwd=cwd)
        if not where.exists():
            tried = list(dict.fromkeys([_here(cwd) / path, where]))
            raise FileNotFoundError(f"{path}: no such dataset (looked for {' and '.join(map(str, tried))})")
    beside = store_beside(where)
    temporary = None
    if is_store(where):
        store = open_store(where)
    elif is_store(beside) and open_store(beside).sources == [str(where.resolve())]:
        store = open_store(beside)
    else:
        temporary = tempfile.mkdtemp(prefix="rtlab-store-")
        build_store([where], temporary, progress=progress)
        store = open_store(temporary)
    if simulated is None:
        sources = store.sources if is_store(where) else [str(where)]
        simulated = bool(sources) and all(is_simulated(s) for s in sources)
    failures = [
        IngestFailure(unit, entry.get("format", "?"), entry["error"])
        for unit, entry in store.whole_manifest().get("skipped", {}).items()
    ]
    data = Dataset(str(where), store, failures, simulated)
    if temporary is not None:
        weakref.finalize(data, shutil.rmtree, temporary, True)
    return data

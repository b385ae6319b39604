"""Where a notebook's paths are, whatever folder its kernel started in: the repository rtlab is installed from,
the embedded dataset's place, and the one rule that finds a relative path (``locate``), used by the dataset and
by ``save_figure`` alike."""

from __future__ import annotations

from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
"""The folder rtlab is installed from: the repository's root for an editable install (``make install``)."""
EMBEDDED = "build/simulated"
"""The embedded simulated dataset, from the repository's root (the Makefile's ``SIM``)."""
EMBEDDED_CONFIG = "data/simulated/config.json"
"""Its configuration, from the repository's root (the Makefile's ``SIM_CONFIG``); a folder holding it is an rtlab
repository."""


def _here(cwd: str | Path | None) -> Path:
    """``cwd`` resolved; the working folder when ``None``."""
    return Path.cwd() if cwd is None else Path(cwd).resolve()


def repository(cwd: str | Path | None = None) -> Path | None:
    """The rtlab repository holding ``cwd`` (default: the working folder): the nearest of it and its ancestors
    that holds :data:`EMBEDDED_CONFIG`; ``None`` outside any."""
    here = _here(cwd)
    return next((folder for folder in [here, *here.parents] if (folder / EMBEDDED_CONFIG).is_file()), None)


def locate(path: str | Path, *, cwd: str | Path | None = None) -> Path:
    """Where a path a notebook names is, whatever folder its kernel started in (``cwd``, default the working
    folder): an absolute path is itself; a relative one is taken from ``cwd`` when it exists there, else from
    the root of the repository holding ``cwd`` (:func:`repository`), else (outside any repository) from ``cwd``.

    So ``"build/simulated"``, ``"figures"`` or ``"../shared/real"`` (all written from the root, as ``make
    figures`` runs) mean the same in JupyterLab, whose kernels start in ``notebooks/``, and ``"../runs"``
    (written from the notebook's folder) still means what it says. The returned path may not exist (an output
    folder is created where it points)."""
    p = Path(path).expanduser()
    if p.is_absolute():
        return p
    here = _here(cwd)
    if (here / p).exists():
        return here / p
    root = repository(here)
    return (root if root is not None else here) / p

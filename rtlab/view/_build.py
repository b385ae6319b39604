"""``rtlab view``: pages for runs already read.

:func:`view_run` is one run's page; :func:`view_runs` writes one page per run and, for several, an index of
them with their scores and labels (the run pages in a folder beside the index, named by trajectory id). A run
that cannot be shown is reported in the index and the result's ``failures``; the batch goes on unless
``strict``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtlab.view._page import index_page, run_page, write_page
from rtlab.view._payload import index_row, run_payload

if TYPE_CHECKING:
    from rtlab.environment import RequirementSource, TabConfig, Workspace
    from rtlab.records import Trajectory

_UNSAFE = re.compile(r"[^A-Za-z0-9._-]+")


def view_run(
    trajectory: Trajectory,
    *,
    config: TabConfig | None = None,
    requirements: RequirementSource = "none",
    workspace: Workspace | None = None,
    step: int | None = None,
) -> str:
    """One run's self-contained HTML page, opening at ``step`` (its first step when ``None``)."""
    if step is not None and step not in {s.index for s in trajectory.steps}:
        raise ValueError(f"{trajectory.id} has steps 0..{len(trajectory.steps) - 1}; no step {step}")
    payload = run_payload(
        trajectory, config=config, requirements=requirements, workspace=workspace, step=step
    )
    return run_page(payload)


def page_name(trajectory_id: str, taken: set[str]) -> str:
    """A file name for a run's page from its id (characters other than letters, digits, ``._-`` become
    ``_``), made unique among ``taken``, which it joins."""
    base = _UNSAFE.sub("_", trajectory_id).strip("._") or "run"
    name, n = f"{base}.html", 1
    while name in taken:
        n += 1
        name = f"{base}~{n}.html"
    taken.add(name)
    return name


@dataclass
class ViewResult:
    """What :func:`view_runs` wrote."""

    pages: list[Path] = field(default_factory=list)
    """The run pages, in the order of the runs."""
    index: Path | None = None
    """The index page; ``None`` for a single run."""
    failures: list[dict[str, str]] = field(default_factory=list)
    """Runs that could not be shown: ``{"path", "trajectory", "error"}``."""


def view_runs(
    trajectories: list[Trajectory],
    out: str | Path,
    *,
    config: TabConfig | None = None,
    requirements: RequirementSource = "none",
    workspaces: dict[str, Workspace | None] | None = None,
    step: int | None = None,
    strict: bool = False,
) -> ViewResult:
    """One run: its page at ``out``. Several: the index at ``out`` and each run's page in the folder
    ``<out stem>_runs/`` beside it, linked from the index."""
    out = Path(out)
    result = ViewResult()
    ws = workspaces or {}
    if len(trajectories) == 1:
        t = trajectories[0]
        result.pages.append(
            write_page(
                view_run(t, config=config, requirements=requirements, workspace=ws.get(t.id), step=step), out
            )
        )
        return result
    folder = out.parent / f"{out.stem}_runs"
    taken: set[str] = set()
    rows: list[dict[str, Any]] = []
    for t in trajectories:
        try:
            payload = run_payload(t, config=config, requirements=requirements, workspace=ws.get(t.id))
        except Exception as exc:  # one run that cannot be shown does not stop the others
            if strict:
                raise
            result.failures.append(
                {"path": t.source_path, "trajectory": t.id, "error": f"{type(exc).__name__}: {exc}"}
            )
            continue
        name = page_name(t.id, taken)
        result.pages.append(write_page(run_page(payload), folder / name))
        rows.append(index_row(payload, f"{folder.name}/{name}"))
    result.index = write_page(index_page(rows, failures=result.failures), out)
    return result

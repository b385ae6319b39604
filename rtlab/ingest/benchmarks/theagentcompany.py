"""TheAgentCompany: task folders (``task.md``, ``checkpoints.md``, ``dependencies.yml``) and grader results.

Layout (TheAgentCompany repo, ``workspaces/tasks/<task>/`` and ``evaluation/run_eval.py``): a run writes
``traj_<task>-image.json`` (the OpenHands event list) and its grader writes ``eval_<task>-image.json``
(``{"checkpoints": [{"total": .., "result": ..}, ...], "final_score": {"total": .., "result": ..}}``) into the
same outputs folder.

Search rule of :func:`attach`: the task name is ``trajectory.task_id``; its folder is ``tasks/<task>/`` (with a
``checkpoints.md``) inside the folder holding the trajectory file or one of its three nearest ancestors; the
grader result is ``eval_<image>.json`` beside the trajectory (``<image>`` = the trajectory file name without
``traj_``), else ``eval_<task>.json`` / ``eval_<task>-image*.json`` there. ``tasks_index.csv`` beside the
``tasks`` folder, when present, adds its columns to ``task.meta``.
"""

from __future__ import annotations

import csv
import re
from pathlib import Path
from typing import Any

import yaml

from rtlab.errors import ReaderError
from rtlab.io import field, load_json, read_text
from rtlab.records import ItemResult, Judgement, RubricItem, Task, Trajectory

NAME = "theagentcompany"
JUDGE = "theagentcompany-evaluator"
MAX_LEVELS_UP = 3

_NUMBER = r"\d+(?:\.\d+)?"
_UNIT = r"(?:pts?|points?)"
# "## Checkpoint 1 (1pts)", "## Final Checkpoint (3pt)", "## Checkpoint 4 (2 pt)", "# Checkpoint 5 (1pt)",
# "## Checkpoint 2: Update documentation (1pt)", "## Checkpint 1 (1pt)".
_HEADING = re.compile(rf"^#{{1,6}}\s+(?P<title>.*?)\s*\(\s*(?P<points>{_NUMBER})\s*{_UNIT}\s*\)\s*$", re.I)
# "1. [2pts] Check if all missing values ..." (ds-fix-table-values-and-missing-answers)
_LIST_ITEM = re.compile(rf"^\s*\d+\.\s*\[\s*(?P<points>{_NUMBER})\s*{_UNIT}\s*\]\s*(?P<text>.*)$", re.I)
_ANY_HEADING = re.compile(r"^#{1,6}\s")
_STATED_TOTAL = re.compile(rf"\b(?P<total>{_NUMBER})\s+points?\s+in\s+total\b", re.I)


def score(result: float, total: float) -> float:
    """TheAgentCompany's per-task score: ``0.5 * result / total + 0.5 * [result == total]``.

    A task with ``total == 0`` has nothing to earn and cannot succeed: its score is 0.0 (the official formula
    is undefined there).
    """
    if total == 0:
        return 0.0
    return 0.5 * result / total + 0.5 * float(result == total)


def success(result: float, total: float) -> bool:
    """Full completion: ``total > 0 and result == total``."""
    return total > 0 and result == total


def parse_checkpoints(text: str, path: Path | str = "checkpoints.md") -> list[RubricItem]:
    """Checkpoints from ``checkpoints.md``: point-scored headings, or ``N. [Kpts] ...`` list items.

    The text of a heading checkpoint is the text under it up to the next heading (the heading's own title when
    nothing is under it); ``type`` is ``"final"`` for a final checkpoint, else ``"checkpoint"``.
    """
    items: list[RubricItem] = []
    title: str | None = None
    points = 0.0
    body: list[str] = []

    def close() -> None:
        if title is not None:
            kind = "final" if "final" in title.lower() else "checkpoint"
            items.append(RubricItem(len(items), "\n".join(body).strip() or title, kind, points))

    for line in text.splitlines():
        heading = _HEADING.match(line)
        listed = _LIST_ITEM.match(line)
        if heading:
            close()
            title, points, body = heading["title"], float(heading["points"]), []
        elif listed:
            close()
            title = None
            items.append(
                RubricItem(len(items), listed["text"].strip(), "checkpoint", float(listed["points"]))
            )
        elif _ANY_HEADING.match(line):
            close()
            title = None
        elif title is not None:
            body.append(line)
    close()
    if not items:
        raise ReaderError(path, "no checkpoint with points found (expected '## Checkpoint 1 (1pt)' headings)")
    return items


def stated_total(text: str) -> float | None:
    """The ``This task has N points in total`` figure, where the file states one."""
    m = _STATED_TOTAL.search(text)
    return float(m["total"]) if m else None


def load_services(path: Path) -> list[str]:
    """The service names ``dependencies.yml`` lists (``[]`` for an empty or comment-only file)."""
    try:
        value = yaml.safe_load(read_text(path))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ReaderError(path, f"invalid YAML: {exc}", line=mark.line + 1 if mark else None) from None
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise ReaderError(path, "expected a YAML list of service names")
    return value


def load_task(task_dir: str | Path) -> Task:
    """A task folder as a :class:`Task`: instruction, checkpoints as rubric, services in ``meta``."""
    task_dir = Path(task_dir)
    cp_path = task_dir / "checkpoints.md"
    if not cp_path.is_file():
        raise ReaderError(task_dir, "no checkpoints.md in the task folder")
    cp_text = read_text(cp_path)
    rubric = parse_checkpoints(cp_text, cp_path)
    task_md = task_dir / "task.md"
    deps = task_dir / "dependencies.yml"
    meta: dict[str, Any] = {
        "services": load_services(deps) if deps.is_file() else [],
        "points_total": sum(item.points for item in rubric),
        "stated_points_total": stated_total(cp_text),
    }
    return Task(
        id=task_dir.name,
        benchmark=NAME,
        instruction=read_text(task_md) if task_md.is_file() else "",
        rubric=rubric,
        meta=meta,
    )


def load_tasks(tasks_dir: str | Path) -> list[Task]:
    """Every task folder (one holding a ``checkpoints.md``) under ``tasks_dir``, sorted by name."""
    tasks_dir = Path(tasks_dir)
    return [load_task(d) for d in sorted(tasks_dir.iterdir()) if (d / "checkpoints.md").is_file()]


def load_tasks_index(path: str | Path) -> dict[str, dict[str, Any]]:
    """``tasks_index.csv`` as ``{task: {"dependencies": [...], "owncloud_only": bool, ...}}``.

    Columns: ``task``, ``dependencies`` (``;``-separated), ``owncloud_only`` and ``no_services`` (0/1),
    ``total_points`` (blank where ``checkpoints.md`` states no total).
    """
    path = Path(path)
    rows = csv.DictReader(read_text(path).splitlines())
    out: dict[str, dict[str, Any]] = {}
    for lineno, row in enumerate(rows, 2):
        name = row.get("task")
        if not name:
            raise ReaderError(path, "missing task name", line=lineno, field="task")
        try:
            out[name] = {
                "dependencies": [d for d in (row.get("dependencies") or "").split(";") if d],
                "owncloud_only": _flag(row.get("owncloud_only")),
                "no_services": _flag(row.get("no_services")),
                "total_points": float(row["total_points"]) if row.get("total_points") else None,
            }
        except ValueError as exc:
            raise ReaderError(path, str(exc), line=lineno) from None
    return out


def _flag(value: str | None) -> bool | None:
    if value in (None, ""):
        return None
    if value not in ("0", "1"):
        raise ValueError(f"expected 0 or 1, got {value!r}")
    return value == "1"


def load_evaluation(path: str | Path) -> Judgement:
    """A grader result ``eval_*.json``: one item per checkpoint (passed when ``result == total``)."""
    path = Path(path)
    data = load_json(path)
    checkpoints = field(data, "checkpoints", list, path, None)
    items = []
    for i, cp in enumerate(checkpoints):
        where = f"checkpoints[{i}]"
        total = field(cp, "total", (int, float), path, None, where)
        result = field(cp, "result", (int, float), path, None, where)
        items.append(ItemResult(index=i, passed=result == total, score=result))
    final = field(data, "final_score", dict, path, None)
    field(final, "total", (int, float), path, None, "final_score")
    field(final, "result", (int, float), path, None, "final_score")
    return Judgement(items=items, judge=JUDGE, source_path=str(path), summary=dict(final))


def find_task_dir(source: Path, task: str) -> Path | None:
    """``tasks/<task>/`` in the folder holding ``source`` or one of its ``MAX_LEVELS_UP`` nearest ancestors."""
    if not task or task in (".", "..") or "/" in task or "\\" in task:
        return None
    start = source if source.is_dir() else source.parent
    for folder in [start, *start.parents][: MAX_LEVELS_UP + 1]:
        candidate = folder / "tasks" / task
        if (candidate / "checkpoints.md").is_file():
            return candidate
    return None


def find_evaluation(source: Path, task: str) -> Path | None:
    """The grader result beside the trajectory file (see the module docstring for the names tried)."""
    folder = source if source.is_dir() else source.parent
    if source.is_file() and source.name.startswith("traj_"):
        exact = folder / f"eval_{source.stem[len('traj_') :]}.json"
        if exact.is_file():
            return exact
    pattern = re.compile(rf"^eval_{re.escape(task)}(?:-image.*)?\.json$")
    found = sorted(p for p in folder.iterdir() if pattern.match(p.name) and p.is_file())
    return found[0] if found else None


def attach(trajectory: Trajectory) -> bool:
    """Join a trajectory with its TheAgentCompany task and grader result; ``False`` when none is found."""
    task_name = trajectory.task_id
    if not task_name or not trajectory.source_path:
        return False
    source = Path(trajectory.source_path)
    task_dir = find_task_dir(source, task_name)
    if task_dir is None:
        return False
    task = load_task(task_dir)
    index_path = task_dir.parent.parent / "tasks_index.csv"
    if index_path.is_file():
        row = load_tasks_index(index_path).get(task_name)
        if row is not None:
            task.meta["index"] = row
    trajectory.task = task
    eval_path = find_evaluation(source, task_name)
    if eval_path is not None:
        trajectory.judgement = load_evaluation(eval_path)
    trajectory.benchmark = NAME
    return True

"""Workspace-Bench(-Lite): tasks with rubrics, and the official rubric judge's verdicts, joined onto runs.

A run of the official runner keeps, in ``<run>/output/``, the task's ``metadata.json`` (task text, rubrics and
their types, output files, file dependency graph, data manifest) and one ``rubrics_judge--<judge>.json`` per
judge (per rubric ``index``, ``passed``, ``confidence``, ``evidence``; a ``summary`` with the totals; the judge
model under ``judge.model``). The Lite task table (``task_lite_clean_en_metadata_table.csv``) holds the same
fields for all 100 tasks, with list-valued columns serialised as JSON.

Search rule of :func:`attach`: from the trajectory's ``source_path`` (itself when a folder, else its folder)
and up to 3 parent folders, the first folder that holds a ``rubrics_judge--*.json`` or a Workspace-Bench
``metadata.json`` (one with ``rubrics`` and ``rubric_types``), looking in each folder and in its ``output/``.
"""

from __future__ import annotations

import csv
import json
import math
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest.readers._tolerant import read_warning
from rtlab.io import field, load_json, read_text
from rtlab.records import ItemResult, Judgement, RubricItem, Task, Trajectory

NAME = "workspace-bench"
METADATA = "metadata.json"
JUDGE_GLOB = "rubrics_judge--*.json"
MAX_LEVELS_UP = 3
TCR_P = 0.7
"""The default threshold of TCR@p (TCR@70): the share of a task's rubrics that must pass."""
_LIST_COLUMNS = (
    "output_files",
    "rubrics",
    "rubric_types",
    "file_dep_graph",
    "data_manifest",
    "tested_capabilities",
)


# ---------------------------------------------------------------------------------------------------------
# Tasks


def _strings(record: dict[str, Any], key: str, path: Path, line: int | None) -> list[str]:
    values = field(record, key, list, path, line)
    for i, v in enumerate(values):
        if not isinstance(v, str):
            raise ReaderError(
                path, f"expected a string, got {type(v).__name__}", line=line, field=f"{key}[{i}]"
            )
    return values


def _objects(record: dict[str, Any], key: str, path: Path, line: int | None) -> list[dict[str, Any]]:
    values = record.get(key) or []
    if not isinstance(values, list):
        raise ReaderError(path, f"expected list, got {type(values).__name__}", line=line, field=key)
    for i, v in enumerate(values):
        if not isinstance(v, dict):
            raise ReaderError(
                path, f"expected an object, got {type(v).__name__}", line=line, field=f"{key}[{i}]"
            )
    return values


def _task(record: dict[str, Any], path: Path, line: int | None = None) -> Task:
    """A :class:`Task` from one task record (a ``metadata.json`` or a parsed row of the Lite table)."""
    if "id" in record:
        task_id = str(field(record, "id", (str, int), path, line))
    else:
        task_id = str(field(record, "absolute_id", (str, int), path, line))
    rubrics = _strings(record, "rubrics", path, line)
    types = _strings(record, "rubric_types", path, line) if record.get("rubric_types") is not None else []
    warnings = []
    if types and len(types) != len(rubrics):
        warnings.append(f"{path}: {len(rubrics)} rubrics but {len(types)} rubric_types")
    manifest = _objects(record, "data_manifest", path, line)
    edges = _objects(record, "file_dep_graph", path, line)
    for key, where in (("filename", "data_manifest"), ("stored_relpath", "data_manifest")):
        for i, entry in enumerate(manifest):
            field(entry, key, str, path, line, f"{where}[{i}]")
    meta: dict[str, Any] = {
        key: record[key]
        for key in ("persona", "task_diff", "tested_capabilities", "job", "language")
        if key in record
    }
    meta["stored_relpaths"] = [entry["stored_relpath"] for entry in manifest]
    if warnings:
        meta["warnings"] = warnings
    return Task(
        id=task_id,
        benchmark=NAME,
        instruction=field(record, "task", str, path, line),
        rubric=[
            RubricItem(index=i, text=text, type=types[i] if i < len(types) else None)
            for i, text in enumerate(rubrics)
        ],
        expected_outputs=_strings(record, "output_files", path, line) if record.get("output_files") else [],
        source_files=[entry["filename"] for entry in manifest],
        dependency_graph=[
            (
                field(e, "from", str, path, line, f"file_dep_graph[{i}]"),
                field(e, "to", str, path, line, f"file_dep_graph[{i}]"),
            )
            for i, e in enumerate(edges)
        ],
        meta=meta,
    )


def task_record(task: Task) -> dict[str, Any]:
    """The ``metadata.json`` form of a task (what :func:`load_task` reads back to the same task): for a task
    from the Lite table put beside a run that has none."""
    relpaths = task.meta.get("stored_relpaths") or []
    record: dict[str, Any] = {
        "id": task.id,
        "task": task.instruction,
        "output_files": list(task.expected_outputs),
        "rubrics": [item.text for item in task.rubric],
        "rubric_types": [item.type or "" for item in task.rubric],
        "file_dep_graph": [{"from": a, "to": b} for a, b in task.dependency_graph],
        "data_manifest": [
            {"filename": name, "stored_relpath": relpaths[i] if i < len(relpaths) else name}
            for i, name in enumerate(task.source_files)
        ],
    }
    for key in ("persona", "task_diff", "tested_capabilities", "job", "language"):
        if key in task.meta:
            record[key] = task.meta[key]
    return record


def load_task(metadata_json_path: str | Path) -> Task:
    """The task of one run's ``metadata.json``."""
    path = Path(metadata_json_path)
    data = load_json(path)
    if not isinstance(data, dict):
        raise ReaderError(path, f"expected an object, got {type(data).__name__}")
    return _task(data, path)


def load_tasks(csv_path: str | Path) -> dict[str, Task]:
    """All tasks of the Lite metadata table, by task id; list-valued cells are parsed as JSON (never eval)."""
    path = Path(csv_path)
    text = read_text(path)
    if not text.strip():
        raise ReaderError(path, "file is empty")
    reader = csv.DictReader(text.splitlines(keepends=True))
    tasks: dict[str, Task] = {}
    for row in reader:
        line = reader.line_num
        record: dict[str, Any] = dict(row)
        for key in _LIST_COLUMNS:
            cell = record.get(key)
            if cell is None or not cell.strip():
                continue
            try:
                record[key] = json.loads(cell)
            except json.JSONDecodeError as exc:
                raise ReaderError(path, f"cell is not JSON: {exc.msg}", line=line, field=key) from None
        task = _task(record, path, line)
        if task.id in tasks:
            raise ReaderError(path, f"task id {task.id!r} appears twice", line=line, field="absolute_id")
        tasks[task.id] = task
    return tasks


# ---------------------------------------------------------------------------------------------------------
# Judge results


def load_judgement(judge_json_path: str | Path) -> Judgement:
    """The rubric judge's verdicts of one ``rubrics_judge--<judge>.json``."""
    path = Path(judge_json_path)
    data = load_json(path)
    if not isinstance(data, dict):
        raise ReaderError(path, f"expected an object, got {type(data).__name__}")
    items = []
    for i, entry in enumerate(field(data, "rubrics", list, path, None)):
        where = f"rubrics[{i}]"
        index = field(entry, "index", int, path, None, where)
        passed = field(entry, "passed", bool, path, None, where)
        confidence = entry.get("confidence")
        if confidence is not None and (
            isinstance(confidence, bool) or not isinstance(confidence, int | float)
        ):
            raise ReaderError(
                path, f"expected a number, got {type(confidence).__name__}", field=f"{where}.confidence"
            )
        evidence = entry.get("evidence")
        items.append(
            ItemResult(
                index=index,
                passed=passed,
                evidence=evidence if isinstance(evidence, str) else None,
                confidence=float(confidence) if confidence is not None else None,
            )
        )
    judge = data.get("judge")
    if not isinstance(judge, dict):
        judge = {}
    name = judge.get("model") or judge.get("modelName")
    summary = data.get("summary")
    if summary is not None and not isinstance(summary, dict):
        raise ReaderError(path, f"expected an object, got {type(summary).__name__}", field="summary")
    return Judgement(
        items=items,
        judge=name if isinstance(name, str) else None,
        source_path=str(path),
        summary=summary or {},
    )


# ---------------------------------------------------------------------------------------------------------
# Joining


def _looks_like_task(path: Path) -> bool:
    """A ``metadata.json`` with ``rubrics`` and ``rubric_types`` (unreadable ones are not claimed)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError):
        return False
    return isinstance(data, dict) and "rubrics" in data and "rubric_types" in data


def _find(source: Path) -> tuple[Path | None, list[Path]] | None:
    """The metadata file and sorted judge files of the nearest Workspace-Bench folder, or ``None``."""
    start = source if source.is_dir() else source.parent
    for folder in [start, *start.parents][: MAX_LEVELS_UP + 1]:
        for candidate in (folder, folder / "output"):
            if not candidate.is_dir():
                continue
            judges = sorted(candidate.glob(JUDGE_GLOB))
            metadata = candidate / METADATA
            if judges or (metadata.is_file() and _looks_like_task(metadata)):
                return (metadata if metadata.is_file() else None), judges
    return None


def task_folder(source: str | Path) -> Path | None:
    """The folder whose ``metadata.json`` and ``rubrics_judge--*.json`` :func:`attach` joins onto a run read
    from ``source`` (search rule in the module docstring), or ``None``: where a judge writes its file so that
    the run reads it back."""
    found = _find(Path(source))
    if found is None:
        return None
    metadata, judges = found
    return metadata.parent if metadata is not None else judges[0].parent


def attach(trajectory: Trajectory) -> bool:
    """Join a run with its Workspace-Bench task and judge result (search rule in the module docstring)."""
    if not trajectory.source_path:
        return False
    try:
        found = _find(Path(trajectory.source_path))
    except OSError:
        return False
    if found is None:
        return False
    metadata, judges = found
    warnings: list[str] = []
    task = load_task(metadata) if metadata is not None else None
    judgement = load_judgement(judges[0]) if judges else None
    if len(judges) > 1:
        trajectory.meta["workspace_bench_other_judges"] = [str(p) for p in judges[1:]]
    if task is None:
        warnings.append(f"{judges[0].parent}: judge results but no {METADATA}")
    if task is not None and judgement is not None and len(judgement.items) != len(task.rubric):
        warnings.append(
            f"{judgement.source_path}: judge rated {len(judgement.items)} rubrics, task {task.id} has {len(task.rubric)}"
        )
    if judgement is not None and isinstance(judgement.summary.get("passed"), int):
        if judgement.summary["passed"] != judgement.n_passed:
            warnings.append(
                f"{judgement.source_path}: summary says {judgement.summary['passed']} passed, items say {judgement.n_passed}"
            )
    if task is not None:
        if trajectory.task_id is None:
            trajectory.task_id = task.id
        elif trajectory.task_id != task.id:
            warnings.append(f"trajectory task_id {trajectory.task_id!r} but {metadata} is task {task.id!r}")
    trajectory.warnings += [read_warning(w, trajectory.source_path, kind="join") for w in warnings]
    trajectory.task = task
    trajectory.judgement = judgement
    trajectory.benchmark = NAME
    return True


# ---------------------------------------------------------------------------------------------------------
# Official metrics (Workspace-Bench: Rubric Pass Rate and TCR@p)


def task_completed(n_passed: int, n_rubrics: int, p: float = TCR_P) -> bool:
    """TCR's per-task rule: the fraction of passed rubrics is at least ``p``.

    A task with no rubrics has no fraction; it counts as not completed (it stays in TCR's denominator, as a
    task of the benchmark that was attempted, but nothing shows it was done).
    """
    if not 0 <= p <= 1:
        raise ValueError(f"p must be within [0, 1], got {p}")
    return n_rubrics > 0 and n_passed / n_rubrics >= p


def pass_rate(judgements: Iterable[Judgement]) -> float:
    """Rubric Pass Rate: passed rubrics / all rubrics over all tasks (micro-average); NaN with no rubrics."""
    passed = total = 0
    for judgement in judgements:
        passed += judgement.n_passed
        total += len(judgement.items)
    return passed / total if total else math.nan


def tcr(judgements: Iterable[Judgement], p: float = TCR_P) -> float:
    """TCR@p: the share of tasks (one judgement each) whose fraction of passed rubrics is >= ``p``; NaN with no
    tasks. Tasks without rubrics count as not completed (:func:`task_completed`)."""
    flags = [task_completed(j.n_passed, len(j.items), p) for j in judgements]
    return sum(flags) / len(flags) if flags else math.nan

"""The tasks ``rtlab run`` works: a simulated-world task, a Workspace-Bench(-Lite) task, an OfficeQA question.

A ``TASK`` argument names one task (:func:`load_task`); each becomes an :class:`AgentTask`: the benchmark's own
:class:`rtlab.records.Task` (read by the benchmark adapters of :mod:`rtlab.ingest`), the folder to copy as the
agent's workspace, where the deliverable goes, and the files written beside the run so that the same adapters
join the task back when the run is read (a Workspace-Bench ``metadata.json``, an OfficeQA task list).

- ``DATASET:TASK_ID`` where ``DATASET`` is a folder made by ``rtlab synth`` (it has ``world.json``): the task's
  ``metadata.json`` as the dataset wrote it for its runs, the role's workspace.
- ``FOLDER`` holding a Workspace-Bench ``metadata.json`` (``../shared/real/workspace-bench/task-3-files``): that
  task; the folder (less ``metadata.json`` and judge files) is the workspace.
- ``TABLE.csv:ID`` (the Lite metadata table) with ``files=`` the task's files folder.
- ``QUESTIONS.csv:UID`` (OfficeQA's questions) or ``g2b_officeqa_pro_dataset.json:oqa-N``, with ``files=`` the
  bulletins folder (default: ``treasury_bulletins_transformed_subset`` beside the questions' folder).
"""

from __future__ import annotations

import csv
import io
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rtlab.errors import RtlabError
from rtlab.ingest.benchmarks import officeqa, workspace_bench
from rtlab.io import read_text
from rtlab.records import Task

TaskKind = Literal["simulated", "workspace-bench", "officeqa"]
OUTPUT_DIR = "outputs"
"""Where the agent writes its deliverable, relative to its working directory."""
OFFICEQA_OUTPUT = "output.txt"
BULLETINS = "treasury_bulletins_transformed_subset"


class TaskError(RtlabError):
    """A ``TASK`` argument that names no task (the message says what was looked for)."""


@dataclass
class AgentTask:
    """One task ready to run."""

    task: Task
    """The benchmark's task record (instruction, rubric, expected outputs, answer)."""
    kind: TaskKind
    """Which kind of task it is."""
    workspace: Path
    """The folder copied as the agent's workspace."""
    deliverable: str
    """Where the agent is asked to write (relative to its working directory, under :data:`OUTPUT_DIR`)."""
    exclude: tuple[str, ...] = ()
    """Top-level names of :attr:`workspace` not copied (the task's rubric files)."""
    sidecars: dict[str, str] = field(default_factory=dict)
    """File name -> text written into the run folder (the benchmark files the adapters look for)."""
    dataset: Path | None = None
    """For a simulated-world task: the ``rtlab synth`` dataset it comes from (its judge can judge the run)."""

    @property
    def prompt(self) -> str:
        """The user message that starts the run: the task, then where the deliverable goes."""
        where = f"Write the deliverable to `{self.deliverable}`."
        if self.kind == "officeqa":
            where = f"Write the final answer (the value alone) to `{self.deliverable}`."
        return f"{self.task.instruction}\n\n{where}"


def _split(spec: str) -> tuple[Path, str | None]:
    path = Path(spec)
    if path.exists():
        return path, None
    head, sep, tail = spec.rpartition(":")
    if sep and Path(head).exists():
        return Path(head), tail
    raise TaskError(f"{spec}: no such file or folder (a task is PATH or PATH:ID)")


def load_task(spec: str, *, files: str | Path | None = None) -> AgentTask:
    """The task a ``TASK`` argument names (module docstring)."""
    path, ident = _split(spec)
    if path.is_dir() and (path / "world.json").is_file():
        return _simulated(path, ident)
    if path.is_dir() and (path / workspace_bench.METADATA).is_file():
        task = workspace_bench.load_task(path / workspace_bench.METADATA)
        return _workspace_bench(task, path, read_text(path / workspace_bench.METADATA))
    if path.is_file() and path.suffix == ".csv":
        header = read_text(path).split("\n", 1)[0]
        if header.startswith("uid,"):
            return _officeqa_csv(path, ident, files)
        if ident is None:
            raise TaskError(f"{spec}: name the task as {path}:ID")
        tasks = workspace_bench.load_tasks(path)
        if ident not in tasks:
            raise TaskError(f"{spec}: no task {ident!r} in {path} ({len(tasks)} tasks)")
        if files is None:
            raise TaskError(f"{spec}: give the task's files folder (--files DIR)")
        record = _lite_row(path, ident)
        return _workspace_bench(tasks[ident], Path(files), json.dumps(record, ensure_ascii=False, indent=2))
    if path.is_file() and path.name == officeqa.DATASET_FILE:
        tasks = officeqa.load_g2b_dataset(path)
        if ident not in tasks:
            raise TaskError(f"{spec}: no task {ident!r} in {path}")
        return _officeqa(tasks[ident], _bulletins(path.parent, files), _g2b_entry(path, ident))
    raise TaskError(
        f"{spec}: not a task: expected a rtlab synth dataset (DATASET:TASK_ID), a Workspace-Bench task folder "
        "(with metadata.json), a Lite table (TABLE.csv:ID), OfficeQA questions (QUESTIONS.csv:UID) or "
        f"{officeqa.DATASET_FILE}:oqa-N"
    )


def _simulated(dataset: Path, ident: str | None) -> AgentTask:
    world = json.loads(read_text(dataset / "world.json"))
    tasks = {t["id"]: t for t in world.get("tasks", [])}
    if ident is None or ident not in tasks:
        known = ", ".join(list(tasks)[:8]) + (" ..." if len(tasks) > 8 else "")
        raise TaskError(f"{dataset}: name a task as {dataset}:TASK_ID (tasks: {known})")
    entry = tasks[ident]
    roles = {r["name"]: r for r in world["roles"]}
    metadata = sorted((dataset / "runs" / ident).glob(f"*/*/run-*/{workspace_bench.METADATA}"))
    if not metadata:
        raise TaskError(f"{dataset}: no {workspace_bench.METADATA} of task {ident} under runs/{ident}/")
    text = read_text(metadata[0])
    task = workspace_bench.load_task(metadata[0])
    return AgentTask(
        task=task,
        kind="simulated",
        workspace=dataset / roles[entry["role"]]["root"],
        deliverable=f"{OUTPUT_DIR}/{entry['deliverable']}",
        sidecars={workspace_bench.METADATA: text},
        dataset=dataset,
    )


def _workspace_bench(task: Task, folder: Path, metadata_text: str) -> AgentTask:
    name = task.expected_outputs[0] if task.expected_outputs else "deliverable.md"
    judges = tuple(p.name for p in folder.glob(workspace_bench.JUDGE_GLOB))
    return AgentTask(
        task=task,
        kind="workspace-bench",
        workspace=folder,
        deliverable=f"{OUTPUT_DIR}/{name}",
        exclude=(workspace_bench.METADATA, *judges),
        sidecars={workspace_bench.METADATA: metadata_text},
    )


def _lite_row(path: Path, ident: str) -> dict[str, Any]:
    """One row of the Lite table as a ``metadata.json`` object (list cells parsed)."""
    for row in csv.DictReader(io.StringIO(read_text(path), newline="")):
        if row.get("absolute_id") == ident:
            record: dict[str, Any] = {"id": ident, **row}
            for key in (
                "output_files",
                "rubrics",
                "rubric_types",
                "file_dep_graph",
                "data_manifest",
                "tested_capabilities",
            ):
                if record.get(key):
                    record[key] = json.loads(record[key])
            return record
    raise TaskError(f"{path}: no task {ident!r}")


def _bulletins(start: Path, files: str | Path | None) -> Path:
    if files is not None:
        return Path(files)
    for folder in (start, start.parent):
        if (folder / BULLETINS).is_dir():
            return folder / BULLETINS
    raise TaskError(f"no {BULLETINS} folder beside {start}: give the bulletins folder (--files DIR)")


def _g2b_entry(path: Path, ident: str) -> str:
    for entry in json.loads(read_text(path)):
        if isinstance(entry, dict) and entry.get("id") == ident:
            return json.dumps([entry], ensure_ascii=False, indent=1)
    raise TaskError(f"{path}: no task {ident!r}")


def _officeqa_csv(path: Path, uid: str | None, files: str | Path | None) -> AgentTask:
    questions = officeqa.load_questions(path)
    if uid not in questions:
        raise TaskError(f"{path}: name a question as {path}:UID ({len(questions)} questions)")
    order = list(questions)
    q = questions[uid]
    oqa = f"oqa-{order.index(uid)}"  # G2B's numbering: the questions' order in the Pro table
    entry = {
        "id": oqa,
        "uid_orig": uid,
        "instruction": q.instruction,
        "answer": q.answer,
        "answer_values": [q.answer or ""],
        "tolerance_pct": 1.0,
        "source_files": q.source_files,
    }
    task = Task(
        id=oqa,
        benchmark=officeqa.NAME,
        instruction=q.instruction,
        rubric=q.rubric,
        expected_outputs=[OFFICEQA_OUTPUT],
        source_files=q.source_files,
        answer=q.answer,
        meta={"uid": uid, **q.meta},
    )
    return _officeqa(task, _bulletins(path.parent, files), json.dumps([entry], ensure_ascii=False, indent=1))


def _officeqa(task: Task, bulletins: Path, dataset_text: str) -> AgentTask:
    return AgentTask(
        task=task,
        kind="officeqa",
        workspace=bulletins,
        deliverable=f"{OUTPUT_DIR}/{OFFICEQA_OUTPUT}",
        sidecars={officeqa.DATASET_FILE: dataset_text},
    )

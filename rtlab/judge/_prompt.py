"""What the rubric judge is shown, following Workspace-Bench's LLM-as-a-judge protocol.

Workspace-Bench's evaluation (``evaluation/src/agent_eval.py`` of the benchmark's repository, the judge that
wrote the ``rubrics_judge--<judge>.json`` files of its published runs) sends one chat request per run: a system
message naming the model a strict evaluator, and a user message holding five rules and one JSON object of
evidence, ``{taskId, task, steps, expectedOutputs, workDir, outputs, traceSummary, rubrics}``, where
``outputs`` are the candidate deliverable files (path, size, a text excerpt; at most 10 files, each string cut
at 2,000 characters with ``...[truncated]``), ``traceSummary`` the run's tool calls (at most 30, same cut) and
``rubrics`` every item with its index and type. The answer is one JSON object ``{"rubrics": [{"index",
"passed", "confidence", "evidence"}, ...]}``, at temperature 0.

rtlab keeps that request's shape, its limits (:class:`JudgeLimits`) and its five rules, stated in English in its
own words (:data:`RULES`), and adds one line, ``## Evidence``, before the JSON (so a reader, and the simulated
model, find where the evidence starts). What rtlab fills in comes from its reader facts only:
``outputs`` from :attr:`rtlab.records.Trajectory.deliverable` (each file's text as
:func:`rtlab.analysis.file_text` reads it: xlsx, docx, pptx, html, csv as text; files the task names first),
``traceSummary`` from the run as evaluators read it (:func:`rtlab.environment.evaluator_view`: no tab calls, no
status lines), with the shown output of each call and the agent's final message.
"""

from __future__ import annotations

import json
import mimetypes
import posixpath
from dataclasses import dataclass
from typing import Any

from rtlab.analysis import file_text
from rtlab.environment import evaluator_view
from rtlab.records import Task, Trajectory
from rtlab.text import name_key

PROTOCOL = "workspace-bench/agent_eval (LLM-as-a-judge, one request per run)"
"""The protocol the judge follows, recorded in every judge file rtlab writes."""
SYSTEM = "You are a strict task evaluator."
"""The system message (Workspace-Bench's, in English)."""
EVIDENCE_HEADING = "## Evidence"
"""The line before the evidence JSON in the user message."""
RULES = (
    "Acting as a strict evaluator, decide for each rubric whether it is met, judging from the task, outputs "
    "and traceSummary in the JSON below.\n"
    "Rules:\n"
    "1) Rely only on the evidence given; assume nothing it does not show.\n"
    "2) Small slips in file naming or in how files were found may be judged leniently.\n"
    "3) For each rubric give passed (true/false), evidence (a string citing the file, excerpt or tool call it "
    "rests on) and confidence (0 to 1).\n"
    '4) Answer with one JSON object: {"rubrics": [{"index": 0, "passed": true, "confidence": 0.8, '
    '"evidence": "..."}, ...]}, one entry for every rubric index.\n'
    "5) When the evidence is not enough, set passed to false and say in evidence what is missing."
)
"""The five rules of the user message, before the evidence."""
TRUNCATED = "...[truncated]"
"""What ends a string cut at :attr:`JudgeLimits.max_str_len` (Workspace-Bench's marker)."""


@dataclass(frozen=True)
class JudgeLimits:
    """How much of a run the judge is shown (Workspace-Bench's defaults)."""

    max_str_len: int = 2000
    """Characters kept of each string (a file's excerpt, a command, an output), then :data:`TRUNCATED`."""
    max_trace_items: int = 30
    """Tool calls shown in ``traceSummary`` (the first ones), then a note of how many more there were."""
    max_output_files: int = 10
    """Delivered files shown in ``outputs``, then a note of how many more there were."""


def _cut(text: str | None, limit: int) -> str | None:
    if text is None or len(text) <= limit:
        return text
    return text[:limit] + TRUNCATED


def _outputs(t: Trajectory, task: Task, limits: JudgeLimits) -> list[dict[str, Any]]:
    """The delivered files as Workspace-Bench lists them: path, size, an excerpt; the task's files first."""
    expected = {name_key(p) for p in task.expected_outputs}
    files = [f for f in t.deliverable.files if f.origin != "listed" or f.content is not None]
    files.sort(key=lambda f: name_key(f.path) not in expected)  # stable: the run's order otherwise
    out: list[dict[str, Any]] = []
    for f in files[: limits.max_output_files]:
        text = file_text(f)
        rel = (
            posixpath.relpath(f.path, t.cwd) if t.cwd and f.path.startswith(t.cwd.rstrip("/") + "/") else None
        )
        out.append(
            {
                "path": f.path,
                "relToWorkDir": rel if rel is not None else (None if f.path.startswith("/") else f.path),
                "sizeBytes": f.size,
                "excerpt": _cut(text, limits.max_str_len),
                "mime": mimetypes.guess_type(f.path)[0],
                "note": None if text else "no text could be read from this file",
            }
        )
    if len(files) > limits.max_output_files:
        out.append({"note": f"...[truncated {len(files) - limits.max_output_files} more files]"})
    return out


def _trace(t: Trajectory, limits: JudgeLimits) -> dict[str, Any]:
    """The run's tool calls as evaluators read them (no tab calls), each string cut, and its final message."""
    view = evaluator_view(t)
    calls: list[Any] = [
        {
            "tool": s.tool,
            "command": _cut(s.command, limits.max_str_len),
            "output": _cut(s.shown if s.shown is not None else s.output, limits.max_str_len),
            "isError": s.is_error,
        }
        for s in view.steps[: limits.max_trace_items]
    ]
    if len(view.steps) > limits.max_trace_items:
        calls.append(f"...[truncated {len(view.steps) - limits.max_trace_items} more items]")
    final = view.deliverable.final_message
    return {"toolCalls": calls, "textOutputs": [_cut(final, limits.max_str_len)] if final else []}


def evidence(t: Trajectory, task: Task, limits: JudgeLimits | None = None) -> dict[str, Any]:
    """The evidence object of Workspace-Bench's judge prompt for one run of ``task``."""
    limits = limits or JudgeLimits()
    return {
        "taskId": task.id,
        "task": task.instruction,
        "steps": None,
        "expectedOutputs": sorted(set(task.expected_outputs)),
        "workDir": t.cwd,
        "outputs": _outputs(t, task, limits),
        "traceSummary": _trace(t, limits),
        "rubrics": [
            {"index": item.index, "rubric": item.text, "rubricType": item.type, "rubricDiff": None}
            for item in task.rubric
        ],
    }


def user_message(evidence_object: dict[str, Any]) -> str:
    """The user message: the rules, :data:`EVIDENCE_HEADING`, the evidence as JSON."""
    return f"{RULES}\n\n{EVIDENCE_HEADING}\n{json.dumps(evidence_object, ensure_ascii=False)}"


def judge_messages(t: Trajectory, task: Task, limits: JudgeLimits | None = None) -> list[dict[str, str]]:
    """The judge's conversation for one run: the system message and the user message."""
    return [
        {"role": "system", "content": SYSTEM},
        {"role": "user", "content": user_message(evidence(t, task, limits))},
    ]

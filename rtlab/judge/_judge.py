"""``rtlab judge``: every run's judge file, written beside it where rtlab's benchmark adapters read it back.

For each trajectory read (sub-agents aside: they are judged with their run):

- **Workspace-Bench** (a task with a rubric joined, or found by the run's task id in the Lite table given as
  ``tasks``, whose ``metadata.json`` is then written beside the judge file): one request in Workspace-Bench's protocol
  (:mod:`rtlab.judge._prompt`), asked again with what is wrong while the answer is invalid
  (:func:`rtlab.llm.ask_until_valid`), and ``rubrics_judge--<judge name>.json`` written in Workspace-Bench's
  layout (:mod:`rtlab.judge._verdicts`) in the folder the adapter joins (:func:`rtlab.ingest.benchmarks.
  workspace_bench.task_folder`: beside the run's ``metadata.json``), so ``rtlab score`` and ``rtlab diagnose``
  read it unchanged.
- **OfficeQA**: no model; the official scorer's rules (:mod:`rtlab.judge._officeqa`), written as the run's
  ``assessment_r<round>.json``.
- anything else is reported as not judged, with why (TheAgentCompany has its own evaluators).

Requests go through :class:`rtlab.llm.LLMClient`: cached on the normalised request (a rerun makes no request),
retried, bounded by a deadline, their usage and cost counted. A judge file that exists is kept (reported as
such) unless ``force``. Every file is written atomically. One run that cannot be judged (no rubric, a failed
call, an answer still invalid after the corrective rounds, a file that cannot be written) is reported and the
others go on; with ``strict`` the first such run raises :class:`rtlab.errors.UnitError` (the files of the runs
before it are written). A run whose judging failed gets no judge file.
"""

from __future__ import annotations

import functools
import json
import re
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from rtlab.errors import UnitError
from rtlab.ingest.benchmarks import officeqa, workspace_bench
from rtlab.io import atomic_open
from rtlab.judge._officeqa import assessment_record
from rtlab.judge._prompt import PROTOCOL, JudgeLimits, judge_messages
from rtlab.judge._verdicts import (
    JUDGE_PREFIX,
    JUDGE_SCHEMA,
    RAW_HEAD,
    Verdict,
    answer_schema,
    judge_record,
    parse_verdicts,
)
from rtlab.llm import Asked, CallResult, DryRun, LLMClient, ask_until_valid, without_credentials
from rtlab.records import Task, Trajectory

Status = Literal["written", "exists", "failed", "not_judged"]
ResponseFormat = Literal["none", "json_object", "json_schema", "json_object_schema"]
RESPONSE_FORMATS: tuple[ResponseFormat, ...] = ("none", "json_object", "json_schema", "json_object_schema")
"""What the judge's requests ask of the answer's form: nothing (Workspace-Bench's protocol); any JSON object
(``{"type": "json_object"}``); the answer's JSON schema in OpenAI's form (``{"type": "json_schema",
"json_schema": JUDGE_SCHEMA}``); or the run's exact answer schema in the form llama.cpp's Python server takes
(``{"type": "json_object", "schema": answer_schema(indices)}``, decoded under a grammar: only valid answers)."""
OUTPUT_TOKENS_PER_ITEM = 80
"""The dry run's estimate of answer tokens per rubric item (the request sets no ``max_tokens``)."""


@dataclass
class JudgeOutcome:
    """What became of one run."""

    trajectory: str
    """The trajectory's id."""
    source_path: str
    """Where it was read from."""
    benchmark: str | None
    """The benchmark joined onto it, if any."""
    status: Status
    """``written`` (a judge file now holds its verdicts), ``exists`` (one was there and kept), ``failed`` (no
    file: see :attr:`error`), ``not_judged`` (nothing for this judge to do: see :attr:`error`)."""
    path: str | None = None
    """The judge file written or kept."""
    n_items: int | None = None
    """Rubric items judged."""
    n_passed: int | None = None
    """Of those, the ones that passed."""
    error: str | None = None
    """Why it failed or was not judged."""
    calls: list[CallResult] = field(default_factory=list, repr=False)
    """The model calls made for it (cached ones included), corrective retries included."""


@dataclass
class JudgeReport:
    """What :func:`judge_runs` did."""

    outcomes: list[JudgeOutcome]
    """One per trajectory given, in order."""
    calls: list[CallResult] = field(default_factory=list, repr=False)
    """Every model call made (cached ones included)."""
    dry_run: DryRun | None = None
    """With ``dry_run``: the calls that would be made and their estimated cost (nothing was written)."""

    def count(self, status: Status) -> int:
        """How many runs ended with ``status``."""
        return sum(o.status == status for o in self.outcomes)

    def to_records(self) -> list[dict[str, Any]]:
        """One dictionary per outcome (its calls left out)."""
        return [{k: v for k, v in asdict(o).items() if k != "calls"} for o in self.outcomes]


def judge_name_for(model: str) -> str:
    """The judge name a model gets by default in file names: its name with anything but letters, digits,
    ``.``, ``_`` and ``-`` made ``-`` (``org/model:tag`` -> ``org-model-tag``)."""
    return re.sub(r"[^A-Za-z0-9._-]+", "-", model).strip("-") or "judge"


def _outcome(t: Trajectory, status: Status, **kw: Any) -> JudgeOutcome:
    return JudgeOutcome(t.id, t.source_path, t.benchmark, status, **kw)


def _run_dir(t: Trajectory) -> Path:
    source = Path(t.source_path)
    return source if source.is_dir() else source.parent


@dataclass
class _Pending:
    """A Workspace-Bench run waiting for its judge's answer."""

    position: int
    trajectory: Trajectory
    task: Task
    path: Path
    messages: list[dict[str, str]]
    metadata: dict[str, Any] | None = None
    """The task's ``metadata.json`` to write beside the judge file (a task from the Lite table), if any."""


def _request(
    model: str, messages: list[dict[str, Any]], response_format: ResponseFormat, indices: Sequence[int]
) -> dict[str, Any]:
    request: dict[str, Any] = {"model": model, "messages": messages, "temperature": 0}
    if response_format == "json_object":
        request["response_format"] = {"type": "json_object"}
    elif response_format == "json_schema":
        request["response_format"] = {"type": "json_schema", "json_schema": JUDGE_SCHEMA}
    elif response_format == "json_object_schema":
        request["response_format"] = {"type": "json_object", "schema": answer_schema(indices)}
    return request


def _nth_request(
    model: str,
    response_format: ResponseFormat,
    indices: Sequence[int],
    i: int,
    messages: list[dict[str, Any]],
) -> dict[str, Any]:
    """:func:`_request` as :func:`rtlab.llm.ask_until_valid` asks for conversation ``i``'s next request."""
    return _request(model, messages, response_format, indices)


def _indices(task: Task) -> tuple[int, ...]:
    return tuple(sorted(item.index for item in task.rubric))


def _write_json(path: Path, data: dict[str, Any]) -> None:
    with atomic_open(path) as fh:
        json.dump(data, fh, ensure_ascii=False, indent=2)
        fh.write("\n")


def _officeqa(t: Trajectory, force: bool) -> JudgeOutcome:
    kept = t.judgement.source_path if t.judgement is not None else None
    if kept is not None and Path(kept).is_file() and not force:
        return _outcome(t, "exists", path=kept)
    round_no = t.meta.get("round")
    path = (
        Path(kept)
        if kept
        else _run_dir(t) / f"assessment_r{round_no if isinstance(round_no, int) else 0}.json"
    )
    record = assessment_record(t)
    _write_json(path, record)
    return _outcome(t, "written", path=str(path), n_items=1, n_passed=int(record["is_correct"]))


def judge_runs(
    trajectories: Sequence[Trajectory],
    client: LLMClient | None,
    *,
    model: str | None = None,
    judge_name: str | None = None,
    limits: JudgeLimits | None = None,
    response_format: ResponseFormat = "none",
    force: bool = False,
    strict: bool = False,
    dry_run: bool = False,
    max_fixes: int = 2,
    max_workers: int = 8,
    progress: bool = False,
    tasks: Mapping[str, Task] | None = None,
    now: Callable[[], datetime] = lambda: datetime.now(UTC),
) -> JudgeReport:
    """Judge every run and write its judge file beside it (module docstring); ``client`` and ``model`` are
    needed only when some Workspace-Bench run is to be judged. ``judge_name`` names the files (default:
    :func:`judge_name_for` the model). ``tasks`` (the Lite table, :func:`rtlab.ingest.benchmarks.
    workspace_bench.load_tasks`) gives the task of a run that has none beside it, by its task id; its
    ``metadata.json`` is then written beside the judge file, so the run reads back joined to both. ``dry_run``: nothing is sent or written; the report's ``dry_run`` says
    what would be. ``now`` gives the files' ``createdAt``."""
    if response_format not in RESPONSE_FORMATS:
        raise ValueError(
            f"response_format must be one of {', '.join(RESPONSE_FORMATS)}, not {response_format!r}"
        )
    limits = limits or JudgeLimits()
    name = judge_name or (judge_name_for(model) if model else None)
    outcomes: list[JudgeOutcome | None] = [None] * len(trajectories)
    pending: list[_Pending] = []

    def fail(position: int, t: Trajectory, error: str, **kw: Any) -> None:
        outcomes[position] = _outcome(t, "failed", error=error, **kw)
        if strict:
            raise UnitError(f"{t.source_path} [{t.id}]: {error}")

    # each Workspace-Bench run's task (joined, else from ``tasks`` by its task id) and its judge file's folder
    found: dict[int, tuple[Task, Path, bool]] = {}
    for position, t in enumerate(trajectories):
        if t.parent_id is not None or t.benchmark not in (workspace_bench.NAME, None):
            continue
        if t.task is not None and t.benchmark == workspace_bench.NAME:
            folder = workspace_bench.task_folder(t.source_path) or _run_dir(t)
            found[position] = (t.task, folder, False)
        elif t.task is None and tasks is not None and t.task_id is not None and t.task_id in tasks:
            folder = workspace_bench.task_folder(t.source_path) or _run_dir(t)
            found[position] = (tasks[t.task_id], folder, not (folder / workspace_bench.METADATA).exists())
    runs_in = Counter(folder for _, folder, _ in found.values())

    for position, t in enumerate(trajectories):
        if t.parent_id is not None:
            outcomes[position] = _outcome(
                t, "not_judged", error=f"a sub-agent of {t.parent_id}: judged with its run"
            )
        elif t.benchmark == officeqa.NAME:
            if dry_run:
                outcomes[position] = _outcome(t, "not_judged", error="dry run (scorer, no calls)")
                continue
            try:
                outcomes[position] = _officeqa(t, force)
            except (ValueError, OSError) as exc:
                fail(position, t, f"cannot score: {exc}")
        elif position in found:
            task, folder, with_metadata = found[position]
            if not task.rubric:
                fail(position, t, f"task {task.id} has no rubric items")
                continue
            if runs_in[folder] > 1:
                fail(
                    position,
                    t,
                    f"{runs_in[folder]} runs read here share {folder}: one judge file there could not say "
                    "whose verdicts it holds (give each run a folder of its own with its metadata.json)",
                )
                continue
            if name is None or client is None or model is None:
                fail(position, t, "a Workspace-Bench run needs a judge model (--model)")
                continue
            path = folder / f"{JUDGE_PREFIX}{name}.json"
            if path.exists() and not force:
                outcomes[position] = _outcome(t, "exists", path=str(path))
                continue
            try:
                messages = judge_messages(t, task, limits)
            except Exception as exc:  # a run whose evidence cannot be built: reported, the batch goes on
                fail(position, t, f"cannot build the judge's prompt: {type(exc).__name__}: {exc}")
                continue
            metadata = workspace_bench.task_record(task) if with_metadata else None
            pending.append(_Pending(position, t, task, path, messages, metadata))
        elif t.benchmark == workspace_bench.NAME:
            outcomes[position] = _outcome(
                t, "not_judged", error="judge results but no task (metadata.json) beside the run"
            )
        else:
            why = (
                "TheAgentCompany runs are graded by their own evaluators"
                if t.benchmark == "theagentcompany"
                else "no benchmark task joined (a Workspace-Bench metadata.json or an OfficeQA task beside the "
                "run; --tasks gives Workspace-Bench tasks by id)"
            )
            outcomes[position] = _outcome(t, "not_judged", error=why)

    report = JudgeReport([])
    if pending and client is not None and model is not None:
        if dry_run:
            requests = [_request(model, p.messages, response_format, _indices(p.task)) for p in pending]
            tokens = OUTPUT_TOKENS_PER_ITEM * max(len(p.task.rubric) for p in pending)
            report.dry_run = client.dry_run(requests, max_output_tokens=tokens)
            for p in pending:
                t = p.trajectory
                outcomes[p.position] = _outcome(t, "not_judged", path=str(p.path), error="dry run")
        else:
            # one round of asking per rubric shape: the answer is checked against the indices it must cover
            groups: dict[tuple[int, ...], list[_Pending]] = {}
            for p in pending:
                groups.setdefault(_indices(p.task), []).append(p)
            for indices, group in groups.items():
                asked, calls = ask_until_valid(
                    client,
                    [p.messages for p in group],
                    functools.partial(_nth_request, model, response_format, indices),
                    functools.partial(parse_verdicts, indices=frozenset(indices)),
                    max_fixes=max_fixes,
                    max_workers=max_workers,
                    progress=progress,
                    desc="judging",
                )
                report.calls += calls
                for p, a in zip(group, asked, strict=True):
                    finished = _finish(p, a, model, name or model, client, limits, now(), max_fixes)
                    outcomes[p.position] = finished
                    if strict and finished.status == "failed":
                        raise UnitError(f"{p.trajectory.source_path} [{p.trajectory.id}]: {finished.error}")
    report.outcomes = [o for o in outcomes if o is not None]
    return report


def _usage(calls: Sequence[CallResult]) -> dict[str, Any]:
    """Workspace-Bench's ``judge.usage`` of one run's calls made (cached ones count what they cost once)."""
    prompt = sum(c.prompt_tokens or 0 for c in calls)
    completion = sum(c.completion_tokens or 0 for c in calls)
    costs = [c.cost for c in calls]
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "cost": None if any(c is None for c in costs) else sum(c for c in costs if c is not None),
    }


def _finish(
    p: _Pending,
    asked: Asked[list[Verdict]],
    model: str,
    name: str,
    client: LLMClient,
    limits: JudgeLimits,
    created: datetime,
    max_fixes: int,
) -> JudgeOutcome:
    """The outcome of one run once its judge answered: its judge file written, or why there is none."""
    t, result = p.trajectory, asked.result
    calls = asked.calls
    if result.error is not None:
        return _outcome(t, "failed", calls=calls, error=f"the judge's call failed: {result.error}")
    if result.refusal is not None:
        return _outcome(t, "failed", calls=calls, error=f"the judge refused: {result.refusal}")
    if asked.parsed is None:
        tries = len(asked.calls)
        return _outcome(
            t,
            "failed",
            calls=calls,
            error=f"the judge's answer was still invalid after {tries} request"
            + ("s" if tries != 1 else "")
            + f" ({max_fixes} corrective): {asked.error}",
        )
    verdicts = asked.parsed
    judge = {
        "model": model,
        "modelName": name,
        "baseUrl": without_credentials(client.base_url) if client.base_url else None,
        "usage": _usage(asked.calls),
        "durationMs": round(sum(c.seconds for c in asked.calls) * 1000),
        "tries": len(asked.calls),
        "error": None,
        "rawResponseHead": (result.content or "")[:RAW_HEAD],
    }
    rtlab = {
        "protocol": PROTOCOL,
        "limits": asdict(limits),
        "trajectory": t.id,
        "source_path": t.source_path,
        "response_model": result.response_model,
        "cached": all(c.cached for c in asked.calls),
        "request_keys": [c.key for c in asked.calls],
    }
    record = judge_record(
        p.task,
        verdicts,
        agent_kind=t.format or "unknown",
        created_at=created.isoformat(),
        judge=judge,
        system=p.messages[0]["content"],
        user=p.messages[1]["content"],
        rtlab=rtlab,
    )
    try:
        if p.metadata is not None:  # first the task, so that the adapter joins both
            _write_json(p.path.parent / workspace_bench.METADATA, p.metadata)
        _write_json(p.path, record)
    except OSError as exc:
        return _outcome(t, "failed", calls=calls, path=str(p.path), error=f"cannot write {p.path}: {exc}")
    return _outcome(
        t,
        "written",
        calls=calls,
        path=str(p.path),
        n_items=len(verdicts),
        n_passed=sum(v.passed for v in verdicts),
    )

"""``rtlab run``: one agent, one task, one method, one model, over any OpenAI-compatible endpoint.

The loop (:func:`run_agent`): the system prompt (common part, then the method's), the task as the first user
message, then turns: the conversation (as the context policy leaves it) and the tools go to the model through
:class:`rtlab.llm.LLMClient` (retries, deadline, redaction; no cache of agent turns unless asked); each tool call
it makes is run and becomes a :class:`rtlab.records.Step` with its typed action and frames, observed by the
environment for RunningTab (status line, capture, tab calls); a turn without tool calls is a stop, which the
method may answer (Self-Refine's request to revise, RunningTab's finish check) or which ends the run.

Nothing the model sends crashes the loop: arguments that are not JSON, an unknown tool, a reply cut at the
output limit, a refusal, a failed or rejected request are each recorded (a step answered with the harness's
refusal, or an event of kind ``error``) and the run goes on or ends with a named reason (:data:`END_REASONS`).

The run folder (:func:`write_run`)::

    RUN_DIR/trajectory.jsonl   the run in rtlab's canonical JSONL (actions, frames, shown text, events, usage)
    RUN_DIR/run.json           labels (method, variant, model, run, task_id, harness) and the settings ("agent")
    RUN_DIR/metadata.json      the task, for the Workspace-Bench adapter (simulated and Workspace-Bench tasks)
    RUN_DIR/g2b_officeqa_pro_dataset.json   the task, for the OfficeQA adapter (OfficeQA questions)
    RUN_DIR/output/...         the deliverable files (what the workspace's outputs/ holds at the end)
    RUN_DIR/_COMPLETE.json     written last, atomically: the run is whole (``rtlab experiment`` skips it)

The workspace copy lives in ``RUN_DIR/.workspace`` while the run goes and is removed at its end.
"""

from __future__ import annotations

import itertools
import json
import os
import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from rtlab.agent._context import ContextPolicy
from rtlab.agent._methods import BASE_PROMPT, METHOD_LABELS, Policy, RunningTabPolicy, make_policy
from rtlab.agent._sandbox import Sandbox, SandboxKind
from rtlab.agent._tasks import OUTPUT_DIR, AgentTask
from rtlab.agent._tools import (
    DEFAULT_CLIP,
    WORKSPACE_TOOLS,
    ToolOutcome,
    error,
    run_bash,
    run_read,
    run_write,
)
from rtlab.environment import TAB_TOOLS, Environment
from rtlab.ingest import (
    call_command,
    deliverable_file,
    get_policy,
    parse_arguments,
    read_command,
    unit_path,
    write_jsonl,
)
from rtlab.io import atomic_open
from rtlab.llm import CallResult, LLMClient, LLMError
from rtlab.records import Action, Deliverable, DeliverableFile, Event, Step, TokenUsage, Trajectory

EndReason = Literal[
    "finished", "max_turns", "time_limit", "server_error", "client_error", "refusal", "length"
]
END_REASONS: tuple[EndReason, ...] = (
    "finished",
    "max_turns",
    "time_limit",
    "server_error",
    "client_error",
    "refusal",
    "length",
)
COMPLETE = "_COMPLETE.json"
"""The marker a whole run folder ends with (written last, atomically)."""
TRAJECTORY = "trajectory.jsonl"
WORK = ".workspace"
HARNESS = "rtlab-agent"
MAX_FAILURES = 3
"""Turns in a row that fail (every attempt of the request) or are cut at the output limit before the run ends."""
LENGTH_MESSAGE = (
    "Your last reply was cut off at the output limit. Continue with a shorter reply: one tool call at a time."
)


@dataclass
class RunConfig:
    """How to run: the method, the model and endpoint, the limits, the policies."""

    method: str
    """One of :data:`rtlab.agent.METHODS` (``dci``, ``todo``, ``self-refine``, ``self-tracking``, ``runningtab``)."""
    model: str
    """The model to request."""
    ablation: str | None = None
    """RunningTab's ablation (``no-capture``, ``no-review``, ``no-evidence-check``, ``no-finish-check``)."""
    base_url: str | None = None
    """The endpoint; unset: ``OPENAI_BASE_URL``."""
    api_key: str | None = field(default=None, repr=False)
    """The API key; unset: ``OPENAI_API_KEY``. Never written anywhere."""
    max_turns: int = 300
    """Model turns at most."""
    time_limit: float = 3600.0
    """Seconds of wall time at most (checked before each turn)."""
    context: str = "keep-all"
    """The context policy's spec (:class:`rtlab.agent.ContextPolicy`)."""
    seed: int | None = None
    """Sent as the request's ``seed``; also the run label when ``run`` is unset."""
    run: str | None = None
    """The run label (``run.json``); default: the seed, else ``1``."""
    sandbox: SandboxKind = "auto"
    """How commands are confined (:class:`rtlab.agent.Sandbox`)."""
    command_timeout: float = 60.0
    """Seconds a command may run."""
    clip: str = DEFAULT_CLIP
    """The clip policy's name (:data:`rtlab.ingest.POLICIES`)."""
    temperature: float | None = None
    """Sent when set."""
    max_tokens: int | None = None
    """Sent when set (the output limit of a turn)."""
    cache: bool = False
    """Cache model turns on disk (off by default: a rerun makes its calls again)."""
    cache_dir: str | None = None
    """The cache folder when caching."""
    llm_timeout: float = 300.0
    """Seconds one HTTP attempt may take."""
    llm_deadline: float = 900.0
    """Seconds one model call may take in all (attempts and waits)."""
    prices: dict[str, tuple[float, float]] | None = None
    """Model -> (input, output) US dollars per 1M tokens."""

    @property
    def run_label(self) -> str:
        return self.run or (str(self.seed) if self.seed is not None else "1")


@dataclass
class RunSummary:
    """What one run did."""

    run_dir: str
    """The run folder."""
    trajectory_id: str
    """The trajectory's id."""
    end_reason: EndReason
    """Why it ended."""
    turns: int = 0
    """Model turns made (requests answered or failed)."""
    steps: int = 0
    """Tool calls answered."""
    requests: int = 0
    """HTTP requests made (retries included)."""
    prompt_tokens: int = 0
    """Prompt tokens over every answered turn, as the endpoint reported them."""
    completion_tokens: int = 0
    """Completion tokens, likewise."""
    cost: float | None = None
    """US dollars (``None``: a turn's model had no price)."""
    seconds: float = 0.0
    """Wall time of the run."""
    model_seconds: float = 0.0
    """Of that, seconds waiting for the model."""
    environment_seconds: float = 0.0
    """Of that, seconds in the environment (:meth:`Environment.observe` / ``call``)."""
    tool_seconds: float = 0.0
    """Of that, seconds running tools (commands, reads, writes)."""
    deliverables: list[str] = field(default_factory=list)
    """Deliverable files, relative to the working directory."""

    def to_dict(self) -> dict[str, Any]:
        return dict(self.__dict__)


def _version() -> str:
    """rtlab's version (the harness's), from the installed package's metadata."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rtlab")
    except PackageNotFoundError:
        return "unknown"


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def trajectory_id(task: AgentTask, config: RunConfig, policy: Policy) -> str:
    """``rtlab-agent:<task>.<method>[--<variant>].<model>.r<run>`` (the model's ``/`` and spaces as ``_``)."""
    arm = policy.label + (f"--{policy.variant}" if policy.variant else "")
    model = "".join(c if c.isalnum() or c in "-._" else "_" for c in config.model)
    return f"{HARNESS}:{task.task.id}.{arm}.{model}.r{config.run_label}"


class _Loop:
    def __init__(
        self, task: AgentTask, config: RunConfig, client: LLMClient, policy: Policy, sandbox: Sandbox
    ):
        self.task, self.config, self.client, self.policy, self.sandbox = task, config, client, policy, sandbox
        self.context = ContextPolicy.parse(config.context)
        self.clip = get_policy(config.clip)
        self.env: Environment | None = None
        if isinstance(policy, RunningTabPolicy):
            self.env = policy.start(task.task.instruction, sandbox.agent_root)
        self.tools = [*WORKSPACE_TOOLS, *policy.tools]
        self.names = [t["function"]["name"] for t in self.tools]
        system = BASE_PROMPT + (f"\n\n{policy.instructions}" if policy.instructions else "")
        self.messages: list[dict[str, Any]] = [
            {"role": "system", "content": system},
            {"role": "user", "content": task.prompt},
        ]
        self.steps: list[Step] = []
        self.events: list[Event] = []
        self.seq = itertools.count()
        self.dropped: dict[int, str] = {}
        self.final: str | None = None
        self.wrote: set[str] = set()
        self.summary = RunSummary("", "", "finished")
        self.costs: list[float | None] = []
        self.event("system", system, role="system")
        self.event("message", task.prompt, role="user")

    def event(self, kind: Any, text: str, *, role: str | None = None, **data: Any) -> None:
        self.events.append(Event(kind, text, role=role, seq=next(self.seq), timestamp=_now(), data=data))

    def run(self) -> EndReason:
        start = time.monotonic()
        failures = lengths = 0
        for turn in range(self.config.max_turns):
            if time.monotonic() - start > self.config.time_limit:
                self.event(
                    "error", f"time limit of {self.config.time_limit:g} s reached", reason="time_limit"
                )
                return "time_limit"
            for i in self.context.compact(self.messages, self.dropped):
                self.event(
                    "compaction", f"tool result of message {i} dropped by {self.context.name}", message=i
                )
            result = self._ask()
            if result is None:
                return "client_error"
            self.summary.turns += 1
            if result.error is not None:
                failures += 1
                self.event("error", f"model call failed: {result.error}", reason="server_error", turn=turn)
                if failures >= MAX_FAILURES:
                    return "server_error"
                continue
            if result.refusal is not None:
                self.event("error", f"the model refused: {result.refusal}", reason="refusal", turn=turn)
                return "refusal"
            calls = list(result.tool_calls or [])
            content = result.content or None
            assistant: dict[str, Any] = {"role": "assistant", "content": content}
            if content:
                self.final = content
                self.event("message", content, role="assistant", turn=turn)
            if result.finish_reason == "length" and not calls:
                lengths += 1
                self.event(
                    "error", "the reply was cut at the output limit (finish_reason length)", reason="length"
                )
                self.messages.append({**assistant, "content": content or ""})
                if lengths >= MAX_FAILURES:
                    return "length"
                self.messages.append({"role": "user", "content": LENGTH_MESSAGE})
                self.event("message", LENGTH_MESSAGE, role="user")
                continue
            failures = lengths = 0
            if not calls:
                self.messages.append({**assistant, "content": content or ""})
                follow = self.policy.on_stop(wrote=bool(self.wrote))
                if follow is None:
                    return "finished"
                self.messages.append({"role": "user", "content": follow})
                self.event("message", follow, role="user")
                continue
            ids = self._ids(calls, turn)
            assistant["tool_calls"] = [
                {
                    "id": cid,
                    "type": "function",
                    "function": {
                        "name": (c.get("function") or {}).get("name") or "",
                        "arguments": (c.get("function") or {}).get("arguments") or "",
                    },
                }
                for cid, c in zip(ids, calls, strict=True)
            ]
            self.messages.append(assistant)
            for cid, call in zip(ids, calls, strict=True):
                shown = self._execute(cid, call)
                self.messages.append({"role": "tool", "tool_call_id": cid, "content": shown})
        self.event("error", f"turn limit of {self.config.max_turns} reached", reason="max_turns")
        return "max_turns"

    def _ask(self) -> CallResult | None:
        request: dict[str, Any] = {
            "model": self.config.model,
            "messages": self.messages,
            "tools": self.tools,
            "tool_choice": "auto",
            "seed": self.config.seed,
            "temperature": self.config.temperature,
            "max_tokens": self.config.max_tokens,
        }
        began = time.monotonic()
        try:
            result = self.client.complete(request)
        except LLMError as exc:  # the endpoint rejects the request itself: retrying cannot help
            self.event("error", f"the endpoint rejected the request: {exc}", reason="client_error")
            return None
        finally:
            self.summary.model_seconds += time.monotonic() - began
        self.summary.requests += result.attempts
        if result.error is None:
            self.summary.prompt_tokens += result.prompt_tokens or 0
            self.summary.completion_tokens += result.completion_tokens or 0
            self.costs.append(result.cost)
        return result

    def _ids(self, calls: list[dict[str, Any]], turn: int) -> list[str]:
        ids, seen = [], {s.call_id for s in self.steps}
        for k, call in enumerate(calls):
            cid = call.get("id")
            if not isinstance(cid, str) or not cid or cid in seen:
                cid = f"call_rtlab_{turn}_{k}"
            seen.add(cid)
            ids.append(cid)
        return ids

    def _execute(self, call_id: str, call: dict[str, Any]) -> str:
        function = call.get("function") or {}
        name = function.get("name")
        raw = function.get("arguments")
        args, problem = parse_arguments(raw)
        index = len(self.steps)
        began, started = time.monotonic(), _now()
        tab = isinstance(name, str) and name in TAB_TOOLS and self.env is not None
        plan: dict[str, Any] | None = None
        if tab:
            assert self.env is not None and isinstance(name, str)
            env_began = time.monotonic()
            reply = self.env.call(name, args, step=index)
            self.summary.environment_seconds += time.monotonic() - env_began
            outcome = ToolOutcome(reply, reply, Action("tab", op=name[len("tab_") :]))
        elif not isinstance(name, str) or name not in self.names:
            outcome = error(
                f"{name!r} is not a tool of this run; the tools are {', '.join(self.names)}.",
                Action.other(str(name)),
            )
        elif problem is not None:
            outcome = error(f"{name}: {problem}; send the arguments as one JSON object.", Action.other(name))
        elif name == "read":
            outcome = run_read(self.sandbox, args, self.clip)
        elif name == "bash":
            outcome = run_bash(self.sandbox, args, self.clip)
        elif name == "write":
            outcome = run_write(self.sandbox, args)
            if not outcome.is_error:
                self.wrote.add(str(args["path"]))
        else:
            r = self.policy.call(name, args)
            outcome = ToolOutcome(r.text, r.text, Action.other(name), is_error=r.is_error)
            plan = r.plan
        tool = name if isinstance(name, str) else ""
        step = Step(
            index=index,
            tool=tool,
            command=_command(tool, args),
            args=args,
            output=outcome.output,
            shown=outcome.shown,
            clipped=outcome.clipped,
            is_error=outcome.is_error,
            exit_code=outcome.exit_code,
            call_id=call_id,
            cwd=self.sandbox.agent_root,
            started_at=started,
            seq=next(self.seq),
            args_error=problem,
            action=outcome.action,
            frames=outcome.frames,
        )
        self.summary.tool_seconds += time.monotonic() - began
        if self.env is not None and not tab:
            env_began = time.monotonic()
            step.shown = self.env.observe(step)
            self.summary.environment_seconds += time.monotonic() - env_began
        step.ended_at = _now()
        self.steps.append(step)
        if plan is not None:
            self.event("plan", outcome.output, **plan)
        return step.shown or ""


def _command(tool: str, args: dict[str, Any]) -> str:
    """``Step.command`` as every reader writes it: the command line, ``read PATH OFFSET LIMIT``, ``write PATH``."""
    if tool == "bash" and isinstance(args.get("command"), str):
        return args["command"]
    path = args.get("path")
    if tool == "read" and isinstance(path, str):
        offset, limit = args.get("offset"), args.get("limit")
        return read_command(
            path, offset if isinstance(offset, int) else None, limit if isinstance(limit, int) else None
        )
    if tool == "write" and isinstance(path, str):
        return f"write {path}"
    return call_command(tool, args)


def _deliverables(sandbox: Sandbox, out: Path, written: set[str]) -> list[DeliverableFile]:
    """The files of the workspace's outputs/ (and any other file the write tool wrote), copied to ``out``."""
    root = Path(sandbox.real_root)
    extra: dict[str, Path] = {}
    for written_path in sorted(written):
        try:
            real = sandbox.resolve(written_path)
        except Exception:
            continue
        if real.is_file():
            extra[Path(os.path.relpath(real, root)).as_posix()] = real
    return copy_outputs(root, out, extra)


def copy_outputs(root: Path, out: Path, extra: dict[str, Path] | None = None) -> list[DeliverableFile]:
    """The deliverables of a finished workspace ``root``: every regular file under its :data:`OUTPUT_DIR`
    (links not followed) and the files ``extra`` names (path relative to ``root`` -> file), copied owner-only
    to ``out/output/`` (an outputs/ path without its ``outputs/``), as rtlab's run folders hold them."""
    found: dict[str, tuple[Path, str]] = {}
    outputs = root / OUTPUT_DIR
    if outputs.is_dir() and not outputs.is_symlink():
        for folder, _dirs, names in os.walk(outputs, followlinks=False):
            for name in sorted(names):
                path = Path(folder) / name
                if path.is_file() and not path.is_symlink():
                    rel = path.relative_to(root).as_posix()
                    found[rel] = (path, "output_dir")
    for rel, real in sorted((extra or {}).items()):
        found.setdefault(rel, (real, "write_tool"))
    files = []
    for rel, (path, origin) in sorted(found.items()):
        data = path.read_bytes()
        inner = rel[len(OUTPUT_DIR) + 1 :] if rel.startswith(OUTPUT_DIR + "/") else rel
        target = out / "output" / inner
        target.parent.mkdir(parents=True, exist_ok=True)
        with atomic_open(target, "wb", private=True) as fh:
            fh.write(data)
        # origin is one of the two literals set above
        files.append(deliverable_file(rel, data, origin=origin, local_path=str(target)))  # type: ignore[arg-type]
    return files


def _write_json(path: Path, data: Any) -> None:
    with atomic_open(path, private=True) as fh:
        fh.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


def _unfinished_run(folder: Path) -> bool:
    """``folder`` holds only what an unfinished run of :func:`run_agent` leaves (its workspace copy, its files)."""
    own = {WORK, TRAJECTORY, "run.json", "output", COMPLETE, "metadata.json", "g2b_officeqa_pro_dataset.json"}
    names = {p.name for p in folder.iterdir()}
    return WORK in names and names <= own or (names <= own and (folder / TRAJECTORY).is_file())


def is_complete(run_dir: str | Path) -> bool:
    """The run folder is whole: its completion marker is there (written last)."""
    return (Path(run_dir) / COMPLETE).is_file()


def prepare_run_folder(out: Path, *, unfinished: Callable[[Path], bool], who: str) -> None:
    """Make ``out`` ready for a run: a new or empty folder is used; a finished run (:func:`is_complete`) or a
    folder holding anything but an unfinished run of ``who`` (``unfinished(out)``) is refused with
    ``FileExistsError``; an unfinished run (no completion marker) is removed, to be redone from scratch."""
    if out.exists():
        if is_complete(out):
            raise FileExistsError(f"{out} holds a finished run; choose another --out")
        if any(out.iterdir()):
            if not unfinished(out):
                raise FileExistsError(
                    f"{out} is not empty and holds no unfinished run of {who}; choose another --out"
                )
            shutil.rmtree(out)  # a half-written run (no completion marker): redone from scratch
    out.mkdir(parents=True, exist_ok=True)


def run_agent(
    task: AgentTask,
    config: RunConfig,
    out: str | Path,
    *,
    client: LLMClient | None = None,
    before_complete: Callable[[AgentTask, Path], None] | None = None,
) -> RunSummary:
    """Run one agent on ``task`` and write the run folder ``out`` (which must not exist, or be empty, or hold
    a run that did not complete: that one is removed and redone). Returns what it did.

    ``before_complete(task, out)`` runs once the run's files are written and before its completion marker (a
    judge writing its verdicts beside the run: a run is complete with them or redone)."""
    __version__ = _version()
    out = Path(out)
    prepare_run_folder(out, unfinished=_unfinished_run, who="rtlab run")
    policy = make_policy(config.method, config.ablation)
    own_client = client is None
    if client is None:
        client = LLMClient(
            base_url=config.base_url,
            api_key=config.api_key,
            cache=config.cache,
            cache_dir=config.cache_dir,
            timeout=config.llm_timeout,
            deadline=config.llm_deadline,
            prices=config.prices or {"rtlab-simulated": (0.0, 0.0)},
        )
    began, started = time.monotonic(), _now()
    sandbox = Sandbox(
        task.workspace, out / WORK, kind=config.sandbox, timeout=config.command_timeout, exclude=task.exclude
    )
    try:
        loop = _Loop(task, config, client, policy, sandbox)
        if sandbox.skipped:
            loop.event(
                "system",
                f"left out of the workspace copy: {', '.join(sandbox.skipped[:20])}",
                skipped=sandbox.skipped,
            )
        reason = loop.run()
        files = _deliverables(sandbox, out, loop.wrote)
    finally:
        sandbox.remove()
        if own_client:
            client.close()
    summary = loop.summary
    summary.run_dir, summary.trajectory_id, summary.end_reason = (
        str(out),
        trajectory_id(task, config, policy),
        reason,
    )
    summary.steps = len(loop.steps)
    summary.seconds = time.monotonic() - began
    summary.cost = None if any(c is None for c in loop.costs) else sum(c for c in loop.costs if c is not None)
    summary.deliverables = [f.path for f in files]
    loop.event("system", f"run ended: {reason}", reason=reason)
    settings = {
        "harness_version": __version__,
        "method": policy.describe(),
        "context": loop.context.name,
        "clip": loop.clip.name,
        "sandbox": sandbox.kind,
        "command_timeout": config.command_timeout,
        "max_turns": config.max_turns,
        "time_limit": config.time_limit,
        "seed": config.seed,
        "temperature": config.temperature,
        "max_tokens": config.max_tokens,
        "base_url": client.base_url,
        "task_kind": task.kind,
        "end_reason": reason,
        "turns": summary.turns,
        "requests": summary.requests,
        "usage": {
            "prompt_tokens": summary.prompt_tokens,
            "completion_tokens": summary.completion_tokens,
            "cost_usd": summary.cost,
        },
        "skipped": sandbox.skipped,
    }
    trajectory = Trajectory(
        id=summary.trajectory_id,
        format="rtlab",
        source_path=str(unit_path(out / TRAJECTORY)),  # as rtlab reads it back, from any working directory
        steps=loop.steps,
        events=loop.events,
        deliverable=Deliverable(final_message=loop.final, files=files),
        task_id=task.task.id,
        instruction=task.prompt,
        model=config.model,
        harness=HARNESS,
        harness_version=__version__,
        method=METHOD_LABELS[config.method],  # type: ignore[index]  # checked by make_policy
        variant=policy.variant,
        run=config.run_label,
        cwd=sandbox.agent_root,
        started_at=started,
        ended_at=_now(),
        usage=TokenUsage(
            input_tokens=summary.prompt_tokens,
            output_tokens=summary.completion_tokens,
            total_tokens=summary.prompt_tokens + summary.completion_tokens,
            cost_usd=summary.cost,
        ),
        clip_policy=loop.clip.name,
        meta={"agent": settings},
    )
    write_run(out, trajectory, task, settings, summary, before_complete=before_complete)
    return summary


def write_run(
    out: Path,
    trajectory: Trajectory,
    task: AgentTask,
    settings: dict[str, Any],
    summary: RunSummary,
    *,
    before_complete: Callable[[AgentTask, Path], None] | None = None,
) -> None:
    """The run folder's files (module docstring), the completion marker last."""
    write_jsonl([trajectory], out / TRAJECTORY)
    labels = {
        "schema": "rtlab.run",
        "task_id": trajectory.task_id,
        "method": trajectory.method,
        "variant": trajectory.variant,
        "model": trajectory.model,
        "run": trajectory.run,
        "harness": HARNESS,
        "agent": settings,
    }
    _write_json(out / "run.json", labels)
    for name, text in task.sidecars.items():
        with atomic_open(out / name, private=True) as fh:
            fh.write(text if text.endswith("\n") else text + "\n")
    if before_complete is not None:
        before_complete(task, out)
    _write_json(
        out / COMPLETE, {"schema": "rtlab.agent-run", "trajectory": trajectory.id, **summary.to_dict()}
    )

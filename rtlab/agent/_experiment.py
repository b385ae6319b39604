"""``rtlab experiment CONFIG``: tasks x methods x models x runs, concurrently, resumable.

The configuration (JSON, or YAML when it ends in ``.yaml`` / ``.yml``)::

    {"tasks": ["build/simulated:sim-operations-01", {"task": "questions.csv:UID0001", "files": "bulletins/"}],
     "methods": ["dci", "todo", "self-refine", "self-tracking", "runningtab", "runningtab:no-review"],
     "models": ["rtlab-simulated"], "runs": 3, "base_url": "http://127.0.0.1:8000/v1", "concurrency": 4,
     "max_turns": 300, "time_limit": 3600, "context": "keep-all", "seed": 0, "sandbox": "auto"}

Each run goes to ``OUT/runs/<task>/<arm>/<model>/run-<k>/`` (an arm is ``RunningTab--no-review``; the model's
``/`` as ``_``), run ``k`` with seed ``seed + k`` and label ``k``. A run folder with its completion marker
(:data:`rtlab.agent.COMPLETE`, written last, atomically) is finished and never redone; any other is redone from
scratch. So an experiment interrupted (Ctrl-C, a killed process, a run that failed) is resumed by running the same
command again. A run that raises is reported and the others go on (``strict``: the first failure stops it).
At the end: token and cost totals and a summary table per arm and model (``summary.json`` beside ``runs/``).

``"agent": "claude-code"`` or ``"codex"`` (``--agent``) runs each cell with that harness's CLI instead of rtlab's
loop (:func:`rtlab.harnesses.cli_runner`, given as ``runner``); ``agent_binary`` is its executable.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rtlab.agent._methods import METHOD_LABELS, METHODS
from rtlab.agent._run import COMPLETE, RunConfig, RunSummary, is_complete, run_agent
from rtlab.agent._tasks import AgentTask, load_task
from rtlab.io import atomic_open, read_text

AgentKind = Literal["rtlab", "claude-code", "codex"]
AGENTS: tuple[AgentKind, ...] = ("rtlab", "claude-code", "codex")
"""Who runs each cell: rtlab's own loop (:func:`rtlab.agent.run_agent`), or a harness's CLI with the method served by
``rtlab tab serve`` (``claude -p`` / ``codex exec``: :func:`rtlab.harnesses.cli_runner`)."""

_RUN_FIELDS = (
    "max_turns",
    "time_limit",
    "context",
    "sandbox",
    "command_timeout",
    "clip",
    "temperature",
    "max_tokens",
    "cache",
    "cache_dir",
    "llm_timeout",
    "llm_deadline",
)


@dataclass
class ExperimentConfig:
    """A grid of runs (module docstring)."""

    tasks: list[dict[str, Any]]
    """Each ``{"task": SPEC, "files": DIR or None}`` (a plain string is the spec)."""
    methods: list[tuple[str, str | None]]
    """(method, ablation) per arm (``runningtab:no-review`` in the file)."""
    models: list[str]
    """Models to request."""
    runs: int = 1
    """Runs of each (task, arm, model), numbered from 1."""
    base_url: str | None = None
    """The endpoint (unset: ``OPENAI_BASE_URL``)."""
    concurrency: int = 1
    """Runs at once."""
    seed: int = 0
    """Run ``k`` gets seed ``seed + k``."""
    prices: dict[str, tuple[float, float]] | None = None
    """Model -> (input, output) US dollars per 1M tokens."""
    run_options: dict[str, Any] = field(default_factory=dict)
    """Options of every run (:class:`rtlab.agent.RunConfig` fields: ``max_turns``, ``context``, ...)."""
    agent: AgentKind = "rtlab"
    """Who runs each cell (:data:`AGENTS`): rtlab's loop, or the Claude Code / Codex CLI."""
    agent_binary: str | None = None
    """The CLI's executable for ``claude-code`` / ``codex`` (unset: ``claude`` / ``codex`` on ``PATH``)."""

    @classmethod
    def from_dict(cls, data: Any, *, source: str = "experiment") -> ExperimentConfig:
        """A configuration from parsed JSON / YAML; anything malformed is a ``ValueError`` naming it."""
        if not isinstance(data, dict):
            raise ValueError(f"{source}: expected an object, got {type(data).__name__}")
        known = {
            "tasks",
            "methods",
            "models",
            "runs",
            "base_url",
            "concurrency",
            "seed",
            "prices",
            "agent",
            "agent_binary",
            *_RUN_FIELDS,
        }
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(
                f"{source}: unknown key(s) {', '.join(unknown)}; known: {', '.join(sorted(known))}"
            )
        for key in ("tasks", "methods", "models"):
            if not isinstance(data.get(key), list) or not data[key]:
                raise ValueError(f"{source}: {key} must be a non-empty list")
        tasks = []
        for i, t in enumerate(data["tasks"]):
            if isinstance(t, str):
                t = {"task": t}
            if not isinstance(t, dict) or not isinstance(t.get("task"), str) or set(t) - {"task", "files"}:
                raise ValueError(f"{source}: tasks[{i}] must be a spec or {{task, files}}")
            tasks.append({"task": t["task"], "files": t.get("files")})
        methods: list[tuple[str, str | None]] = []
        for i, m in enumerate(data["methods"]):
            if not isinstance(m, str):
                raise ValueError(f"{source}: methods[{i}] must be a string such as runningtab:no-review")
            method, _, ablation = m.partition(":")
            if method not in METHODS:
                raise ValueError(
                    f"{source}: methods[{i}]: unknown method {method!r}; known: {', '.join(METHODS)}"
                )
            methods.append((method, ablation or None))
        if not all(isinstance(m, str) for m in data["models"]):
            raise ValueError(f"{source}: models must be strings")
        for key in ("runs", "concurrency", "seed"):
            value = data.get(key, 0 if key == "seed" else 1)
            if isinstance(value, bool) or not isinstance(value, int) or (key != "seed" and value < 1):
                raise ValueError(f"{source}: {key} must be a whole number{' >= 1' if key != 'seed' else ''}")
        prices = data.get("prices")
        agent = data.get("agent", "rtlab")
        if agent not in AGENTS:
            raise ValueError(f"{source}: agent: unknown agent {agent!r}; known: {', '.join(AGENTS)}")
        binary = data.get("agent_binary")
        if binary is not None and not isinstance(binary, str):
            raise ValueError(f"{source}: agent_binary must be a path")
        return cls(
            tasks=tasks,
            methods=methods,
            models=list(data["models"]),
            runs=int(data.get("runs", 1)),
            base_url=data.get("base_url"),
            concurrency=int(data.get("concurrency", 1)),
            seed=int(data.get("seed", 0)),
            prices={k: (float(v[0]), float(v[1])) for k, v in prices.items()}
            if isinstance(prices, dict)
            else None,
            run_options={k: data[k] for k in _RUN_FIELDS if k in data},
            agent=agent,
            agent_binary=binary,
        )


def load_experiment(path: str | Path) -> ExperimentConfig:
    """The configuration in a JSON or YAML file."""
    path = Path(path)
    text = read_text(path)
    try:
        if path.suffix in (".yaml", ".yml"):
            import yaml

            data = yaml.safe_load(text)
        else:
            data = json.loads(text)
    except ValueError as exc:
        raise ValueError(
            f"{path}: not valid {'YAML' if path.suffix in ('.yaml', '.yml') else 'JSON'}: {exc}"
        ) from None
    except Exception as exc:  # yaml's errors
        raise ValueError(f"{path}: not valid YAML: {exc}") from None
    return ExperimentConfig.from_dict(data, source=str(path))


@dataclass(frozen=True)
class PlannedRun:
    """One cell of the grid."""

    task: str
    """The task spec (``rtlab run``'s TASK)."""
    files: str | None
    """The task's files folder, where its spec needs one."""
    task_id: str
    """The benchmark's task id."""
    method: str
    """One of :data:`rtlab.agent.METHODS`."""
    ablation: str | None
    """RunningTab's ablation, or ``None``."""
    model: str
    """The model to request."""
    k: int
    """The run's number (from 1)."""
    folder: Path
    """Its run folder."""

    @property
    def arm(self) -> str:
        label = METHOD_LABELS[self.method]  # type: ignore[index]  # checked by the configuration
        return label + (f"--{self.ablation}" if self.ablation and self.ablation != "full" else "")


@dataclass
class ExperimentResult:
    """What an experiment did."""

    done: list[RunSummary] = field(default_factory=list)
    """Runs made now."""
    skipped: list[str] = field(default_factory=list)
    """Run folders already finished (not redone)."""
    failed: list[tuple[str, str]] = field(default_factory=list)
    """(run folder, error) of runs that raised."""
    rows: list[dict[str, Any]] = field(default_factory=list)
    """The summary table: one row per (arm, model) over every finished run, now's and earlier ones."""
    totals: dict[str, Any] = field(default_factory=dict)
    """Token and cost totals over every finished run."""


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-._" else "_" for c in name)


def plan(config: ExperimentConfig, out: Path) -> list[PlannedRun]:
    """Every run of the grid, in a fixed order (tasks, arms, models, runs)."""
    runs = []
    for t in config.tasks:
        task_id = load_task(t["task"], files=t["files"]).task.id
        for method, ablation in config.methods:
            for model in config.models:
                for k in range(1, config.runs + 1):
                    cell = PlannedRun(t["task"], t["files"], task_id, method, ablation, model, k, out)
                    folder = out / "runs" / _safe(task_id) / cell.arm / _safe(model) / f"run-{k}"
                    runs.append(
                        PlannedRun(t["task"], t["files"], task_id, method, ablation, model, k, folder)
                    )
    return runs


Runner = Callable[
    [PlannedRun, ExperimentConfig, str | None, Callable[[AgentTask, Path], None] | None], RunSummary
]
"""What makes one run of the grid: ``runner(cell, config, api_key, before_complete)`` writes ``cell.folder``, its
completion marker last, and returns what the run did."""


def run_with_rtlab(
    p: PlannedRun,
    config: ExperimentConfig,
    api_key: str | None,
    before_complete: Callable[[AgentTask, Path], None] | None,
) -> RunSummary:
    """One cell run by rtlab's own loop (:func:`rtlab.agent.run_agent`): the default :data:`Runner`."""
    task = load_task(p.task, files=p.files)
    run_config = RunConfig(
        method=p.method,
        ablation=p.ablation,
        model=p.model,
        base_url=config.base_url,
        api_key=api_key,
        seed=config.seed + p.k,
        run=str(p.k),
        prices=config.prices,
        **config.run_options,
    )
    return run_agent(task, run_config, p.folder, before_complete=before_complete)


def run_experiment(
    config: ExperimentConfig,
    out: str | Path,
    *,
    api_key: str | None = None,
    progress: bool = False,
    strict: bool = False,
    before_complete: Callable[[AgentTask, Path], None] | None = None,
    runner: Runner | None = None,
) -> ExperimentResult:
    """Run every unfinished run of the grid into ``out`` (module docstring); returns what was done.
    ``before_complete`` is each run's (:func:`rtlab.agent.run_agent`): a judge of its deliverable. ``runner``
    makes each run: rtlab's loop by default; a CLI agent's (``config.agent``) is
    :func:`rtlab.harnesses.cli_runner`, which must be given for one (this package does not import the
    harnesses)."""
    out = Path(out)
    if runner is None:
        if config.agent != "rtlab":
            raise ValueError(
                f"agent {config.agent!r} runs through rtlab.harnesses: pass "
                "runner=rtlab.harnesses.cli_runner(config.agent, binary=config.agent_binary)"
            )
        runner = run_with_rtlab
    out.mkdir(parents=True, exist_ok=True)
    result = ExperimentResult()
    planned = plan(config, out)
    todo = []
    for p in planned:
        if is_complete(p.folder):
            made_by = run_agent_kind(p.folder)
            if made_by != config.agent:
                raise ValueError(
                    f"{p.folder / COMPLETE}: this run was made by agent {made_by!r}, the configuration asks for "
                    f"{config.agent!r}; give the experiment another --out"
                )
            result.skipped.append(str(p.folder))
        else:
            todo.append(p)
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=len(todo), desc="experiment", unit="run")
    lock = threading.Lock()
    tokens = [0, 0]
    with ThreadPoolExecutor(max_workers=max(1, config.concurrency)) as pool:
        pending: dict[Future[RunSummary], PlannedRun] = {}
        queue = list(todo)
        stop = False
        while queue or pending:
            while queue and not stop and len(pending) < max(1, config.concurrency):
                p = queue.pop(0)
                pending[pool.submit(runner, p, config, api_key, before_complete)] = p
            if not pending:
                break
            finished, _ = wait(pending, return_when=FIRST_COMPLETED)
            for future in finished:
                p = pending.pop(future)
                try:
                    summary = future.result()
                except Exception as exc:  # one failed run must not stop a grid of hundreds
                    with lock:
                        result.failed.append((str(p.folder), f"{type(exc).__name__}: {exc}"))
                    if strict:
                        stop = True
                        queue.clear()
                else:
                    with lock:
                        result.done.append(summary)
                        tokens[0] += summary.prompt_tokens
                        tokens[1] += summary.completion_tokens
                if bar is not None:
                    bar.set_postfix(
                        prompt_tokens=tokens[0], completion_tokens=tokens[1], failed=len(result.failed)
                    )
                    bar.update(1)
    if bar is not None:
        bar.close()
    result.rows, result.totals = summarize(planned)
    with atomic_open(out / "summary.json") as fh:
        fh.write(json.dumps({"rows": result.rows, "totals": result.totals}, indent=2) + "\n")
    return result


def run_agent_kind(folder: Path) -> str:
    """Which agent made the finished run in ``folder`` (its completion marker's ``agent``; ``rtlab`` when unsaid)."""
    try:
        marker = json.loads((folder / COMPLETE).read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise ValueError(f"{folder / COMPLETE}: not a readable completion marker ({exc})") from None
    agent = marker.get("agent", "rtlab") if isinstance(marker, dict) else "rtlab"
    return agent if isinstance(agent, str) else "rtlab"


def summarize(planned: list[PlannedRun]) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    """One row per (arm, model) over the finished runs (from their completion markers), and the totals."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for p in planned:
        marker = p.folder / COMPLETE
        if marker.is_file():
            groups.setdefault((p.arm, p.model), []).append(json.loads(marker.read_text(encoding="utf-8")))
    rows = []
    total = {"runs": 0, "prompt_tokens": 0, "completion_tokens": 0, "cost_usd": 0.0, "unpriced_runs": 0}
    for (arm, model), done in sorted(groups.items()):
        reasons: dict[str, int] = {}
        for d in done:
            reasons[d["end_reason"]] = reasons.get(d["end_reason"], 0) + 1
        costs = [d.get("cost") for d in done]
        rows.append(
            {
                "arm": arm,
                "model": model,
                "runs": len(done),
                "finished": reasons.get("finished", 0),
                "end_reasons": reasons,
                "mean_steps": sum(d["steps"] for d in done) / len(done),
                "mean_turns": sum(d["turns"] for d in done) / len(done),
                "prompt_tokens": sum(d["prompt_tokens"] for d in done),
                "completion_tokens": sum(d["completion_tokens"] for d in done),
                "cost_usd": None
                if any(c is None for c in costs)
                else sum(float(c) for c in costs if c is not None),
            }
        )
        total["runs"] += len(done)
        total["prompt_tokens"] += rows[-1]["prompt_tokens"]
        total["completion_tokens"] += rows[-1]["completion_tokens"]
        total["cost_usd"] += sum(float(c) for c in costs if c is not None)
        total["unpriced_runs"] += sum(c is None for c in costs)
    return rows, total


def format_table(rows: list[dict[str, Any]], totals: dict[str, Any]) -> str:
    """The summary table as text (``rtlab experiment`` prints it)."""
    head = ("arm", "model", "runs", "finished", "mean steps", "prompt tok", "completion tok", "cost $")
    body = [
        (
            r["arm"],
            r["model"],
            str(r["runs"]),
            str(r["finished"]),
            f"{r['mean_steps']:.1f}",
            str(r["prompt_tokens"]),
            str(r["completion_tokens"]),
            "?" if r["cost_usd"] is None else f"{r['cost_usd']:.4f}",
        )
        for r in rows
    ]
    widths = [max(len(h), *(len(b[i]) for b in body)) if body else len(h) for i, h in enumerate(head)]
    lines = ["  ".join(h.ljust(w) for h, w in zip(head, widths, strict=True))]
    lines += ["  ".join(c.ljust(w) for c, w in zip(b, widths, strict=True)) for b in body]
    cost = f"${totals['cost_usd']:.4f}" + (
        f" (+{totals['unpriced_runs']} runs unpriced)" if totals["unpriced_runs"] else ""
    )
    lines.append(
        f"total: {totals['runs']} finished runs, {totals['prompt_tokens']} prompt + "
        f"{totals['completion_tokens']} completion tokens, {cost}"
    )
    return "\n".join(lines)

"""The paper's comparison run inside Inspect AI on a small task shipped with rtlab (notebook 10).

:func:`compare_arms` runs one Inspect task (:func:`workspace_task`: a few questions over a small hand-made workspace,
``rtlab/inspect/workspace``, scored by :func:`values_stated`) once per arm (DCI, RunningTab, an ablation, a
baseline) with :func:`~rtlab.inspect.runningtab` against rtlab's simulated model, started in this process on
127.0.0.1 (``rtlab.llm.SimulatedServer``, reached through Inspect's ``openai-api`` provider: no network); writes
the ``.eval`` logs under a folder, one subfolder per arm; reads them back with ``rtlab.ingest``; and measures every
run with rtlab's own analyses (``summary_frame``, the replay's final tab, ``tab_stats_frame``). The simulated
model is a deterministic function of the conversation, so the table is the same on every run.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal, get_args

from inspect_ai import Task, eval
from inspect_ai.dataset import Sample
from inspect_ai.model import GenerateConfig, get_model
from inspect_ai.scorer import Score, Target, accuracy, scorer
from inspect_ai.solver import TaskState
from inspect_ai.util import ExecResult, SandboxEnvironment, SandboxEnvironmentConfigType, sandboxenv
from inspect_ai.util._sandbox.local import LocalSandboxEnvironment

from rtlab.analysis import summary_frame, tab_stats_frame
from rtlab.environment import ABLATIONS, FINISH_PREFIX, TAB_TOOLS, TabConfig, replay
from rtlab.ingest import ingest
from rtlab.inspect._agent import TOOL_NAMES, runningtab
from rtlab.inspect._live import SUBMIT
from rtlab.llm import SIMULATED_MODEL, SimulatedServer
from rtlab.records import Trajectory
from rtlab.text import find_numbers, matches

if TYPE_CHECKING:
    import pandas as pd

ArmName = Literal[
    "dci",
    "todo",
    "self-refine",
    "self-tracking",
    "runningtab",
    "no-capture",
    "no-review",
    "no-evidence-check",
    "no-finish-check",
]
"""An arm: one of the paper's methods (``rtlab.agent.METHODS``) or one of RunningTab's ablations (a test keeps
these equal)."""
ARM_NAMES: tuple[ArmName, ...] = get_args(ArmName)
DEFAULT_ARMS: tuple[ArmName, ...] = ("dci", "runningtab", "no-finish-check")
"""The baseline, the tab, and the tab without its finish check."""

HERE = Path(__file__).resolve().parent
WORKSPACE = HERE / "workspace"
"""The small hand-made workspace every sample of :func:`workspace_task` works in (copied into its sandbox)."""
TASKS = HERE / "tasks.json"
"""The task's samples: ``{"id", "input", "values"}`` (``values``: the numbers a right answer states)."""

COLUMNS = (
    "arm",
    "method",
    "variant",
    "sample",
    "n_steps",
    "n_workspace_calls",
    "n_tab_calls",
    "n_errors",
    "n_finish_checks",
    "n_requirements",
    "n_done",
    "n_unavailable",
    "n_open",
    "n_entries",
    "n_files",
    "n_candidates",
    "review_coverage",
    "score",
    "input_tokens",
    "output_tokens",
    "log",
)
"""The columns of :func:`compare_arms`' table."""


SANDBOX = "rtlab_local"
"""The sandbox the shipped task runs in (:class:`LocalHomeSandbox`)."""


@sandboxenv(name=SANDBOX)
class LocalHomeSandbox(LocalSandboxEnvironment):
    """Inspect's ``local`` sandbox (a temporary folder per sample) with ``HOME`` set to that folder, so the
    ``bash --login`` of Inspect's ``bash`` tool reads no user's login profile: a profile that prints (pyenv's
    rehash failing beside another shell, a banner) would reach the model's tool results and change the run."""

    @classmethod
    async def sample_init(
        cls, task_name: str, config: SandboxEnvironmentConfigType | None, metadata: dict[str, str]
    ) -> dict[str, SandboxEnvironment]:
        return {
            "default": cls()
        }  # the local sandbox's own makes a LocalSandboxEnvironment, whatever the class

    async def exec(
        self,
        cmd: list[str],
        input: str | bytes | None = None,  # noqa: A002 - Inspect's signature
        cwd: str | None = None,
        env: dict[str, str] | None = None,
        user: str | None = None,
        timeout: int | None = None,
        timeout_retry: bool = True,
        concurrency: bool = True,
    ) -> ExecResult[str]:
        home = {"HOME": self.directory.name, **(env or {})}
        return await super().exec(cmd, input, cwd, home, user, timeout, timeout_retry, concurrency)


@dataclass(frozen=True)
class WorkspaceSample:
    """One question of the shipped task."""

    id: str
    """The sample's id (Inspect's ``Sample.id``)."""
    input: str
    """The question the agent is given."""
    values: tuple[str, ...]
    """The numbers a right answer states (the score is the share of them stated)."""


def workspace_samples(path: str | Path = TASKS) -> list[WorkspaceSample]:
    """The samples in ``path`` (a JSON list of ``{"id", "input", "values"}``); errors name the file and the entry."""
    from rtlab.io import load_json

    data = load_json(Path(path))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a list of samples")
    out = []
    for n, entry in enumerate(data, start=1):
        try:
            out.append(
                WorkspaceSample(str(entry["id"]), str(entry["input"]), tuple(map(str, entry["values"])))
            )
        except (KeyError, TypeError) as exc:
            raise ValueError(f"{path}: sample {n}: needs id, input and values ({exc!r})") from None
    return out


@scorer(metrics=[accuracy()])
def values_stated():  # noqa: ANN201 - Inspect's registry reads the returned scorer's signature
    """The share of the target's numbers the answer states (rtlab's one rule for equal numbers:
    ``rtlab.text.matches``, so ``1,234`` is stated by ``1234`` and ``18.5`` by ``18.50``)."""

    async def score(state: TaskState, target: Target) -> Score:
        answer = state.output.completion
        found = find_numbers(answer)
        wanted = list(target.target)
        stated = [v for v in wanted if any(matches(e, f) for e in find_numbers(v)[:1] for f in found)]
        missing = [v for v in wanted if v not in stated]
        return Score(
            value=len(stated) / len(wanted) if wanted else 0.0,
            answer=answer,
            explanation=f"stated: {', '.join(stated) or 'none'}; missing: {', '.join(missing) or 'none'}",
        )

    return score


def workspace_task(arm: ArmName, *, message_limit: int = 40, seed: int = 0) -> Task:
    """The shipped task (:data:`TASKS` over :data:`WORKSPACE`, scored by :func:`values_stated`) run by one arm."""
    if arm not in ARM_NAMES:
        raise ValueError(f"arm={arm!r}: expected one of {', '.join(ARM_NAMES)}")
    if arm.startswith("no-"):
        solver = runningtab(method="runningtab", ablation=arm)  # type: ignore[arg-type]  # an ablation's name
    else:
        solver = runningtab(method=arm)  # type: ignore[arg-type]  # a method's name
    files = {p.relative_to(WORKSPACE).as_posix(): str(p) for p in sorted(WORKSPACE.rglob("*")) if p.is_file()}
    dataset = [
        Sample(id=s.id, input=s.input, target=list(s.values), files=files) for s in workspace_samples()
    ]
    return Task(
        dataset=dataset,
        solver=solver,
        scorer=values_stated(),
        sandbox=SANDBOX,
        message_limit=message_limit,
        config=GenerateConfig(seed=seed),
        name=f"rtlab_workspace_{arm.replace('-', '_')}",
    )


def compare_arms(
    log_dir: str | Path,
    *,
    arms: Sequence[ArmName] = DEFAULT_ARMS,
    message_limit: int = 40,
    seed: int = 0,
) -> pd.DataFrame:
    """Run the shipped task once per arm against the simulated model (in-process, 127.0.0.1), write the ``.eval``
    logs to ``log_dir/<arm>/``, read back the logs this call wrote, and measure each run with rtlab's analyses.

    Returns one row per arm and sample (:data:`COLUMNS`): steps (tool calls answered, from ``summary_frame``),
    workspace calls (Inspect's ``bash``, ``python``, ...) and tab calls, calls that failed, finish checks the model was given (refused submissions), the
    replayed final tab (requirements the run stated, done / unavailable / open; read-log entries, files,
    candidates; review coverage: ``tab_stats_frame``), the score (:func:`values_stated`, read back from the
    log's judgement), token usage and the log's path.
    """
    import pandas as pd

    unknown = [a for a in arms if a not in ARM_NAMES]
    if unknown or not arms:
        raise ValueError(f"arms={list(arms)!r}: expected names among {', '.join(ARM_NAMES)}")
    root = Path(log_dir)
    written: dict[str, str] = {}
    with SimulatedServer() as server:
        model = get_model(f"openai-api/rtlab/{SIMULATED_MODEL}", base_url=server.base_url, api_key="none")
        for arm in arms:
            [log] = eval(
                workspace_task(arm, message_limit=message_limit, seed=seed),
                model=model,
                log_dir=str(root / arm),
                display="none",
                log_level="error",
            )
            if log.status != "success":
                raise RuntimeError(f"{log.location}: the {arm} run ended {log.status}: {log.error}")
            written[arm] = log.location
    rows: list[dict[str, Any]] = []
    for name, location in written.items():
        result = ingest([location])
        if result.failures:
            raise RuntimeError(f"{location}: rtlab could not read the log back: {result.failures[0]}")
        summaries = summary_frame(result.trajectories).itertuples()
        for trajectory, summary in zip(result.trajectories, summaries, strict=True):
            measures = _measures(trajectory, name)
            rows.append({"arm": name, **measures, **_summary_measures(summary), "log": location})
    frame = pd.DataFrame(rows, columns=list(COLUMNS))
    order = {a: i for i, a in enumerate(arms)}
    frame = frame.sort_values(["arm", "sample"], key=lambda c: c.map(order) if c.name == "arm" else c)
    frame["variant"] = frame["variant"].astype(object).where(frame["variant"].notna(), None)  # None, not NaN
    return frame.reset_index(drop=True)


def _measures(trajectory: Trajectory, arm: str) -> dict[str, Any]:
    """One run's measures from its steps and the replay of its tab with the arm's configuration and its own
    requirements (as ``rtlab replay LOG --requirements trajectory --ablation NAME``: the live tab, step for step)."""
    answered = [s for s in trajectory.steps if s.output is not None]
    tab_calls = [s for s in answered if s.tool in TAB_TOOLS]
    workspace = [s for s in answered if s.tool in TOOL_NAMES]
    finish_checks = [s for s in answered if s.tool == SUBMIT and FINISH_PREFIX in (s.shown or "")]
    config = TabConfig.ablation(arm if arm in ABLATIONS else "full")
    replayed = replay(trajectory, config=config, requirements="trajectory")
    [stats] = tab_stats_frame([replayed]).to_dict("records")
    statuses = [r.status for r in replayed.tab.requirements]
    judgement = trajectory.judgement
    score = judgement.items[0].score if judgement is not None and judgement.items else None
    return {
        "method": trajectory.method,
        "variant": trajectory.variant,
        "sample": str(trajectory.task_id),
        "n_workspace_calls": len(workspace),
        "n_tab_calls": len(tab_calls),
        "n_finish_checks": len(finish_checks),
        "n_requirements": len(statuses),
        "n_done": statuses.count("done"),
        "n_unavailable": statuses.count("unavailable"),
        "n_open": statuses.count("open"),
        "n_entries": stats["n_entries"],
        "n_files": stats["n_files"],
        "n_candidates": stats["n_candidates"],
        "review_coverage": stats["review_coverage"],
        "score": score,
    }


def _summary_measures(summary: Any) -> dict[str, Any]:
    """The columns taken from ``summary_frame`` (one row of its ``itertuples()``)."""
    return {
        "n_steps": summary.n_steps,
        "n_errors": summary.n_errors,
        "input_tokens": summary.input_tokens,
        "output_tokens": summary.output_tokens,
    }


def arms_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """Per arm (in the table's order), the mean of every measure over its samples, and the samples counted."""
    measures = [c for c in COLUMNS if c.startswith("n_") or c in ("review_coverage", "score")]
    grouped = frame.groupby("arm", sort=False)
    out = grouped[measures].mean(numeric_only=False).astype(float)
    out.insert(0, "samples", grouped.size())
    return out.reset_index()

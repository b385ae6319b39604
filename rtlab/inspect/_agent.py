"""``runningtab()``: the paper's methods as one Inspect AI agent on ``react()``, registered as ``rtlab/runningtab``.

``inspect eval TASK --solver rtlab/runningtab -S ablation=no-review`` runs any agentic Inspect task with the tab
(or one ablation, or a baseline: ``-S method=todo``). Each sample gets a fresh :class:`~rtlab.inspect._live.LiveRun`
(the policy, its environment), so samples share nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal, get_args

from inspect_ai.agent import Agent, AgentPrompt, AgentState, AgentSubmit, agent, react
from inspect_ai.model import ChatMessageUser
from inspect_ai.review import ReviewPolicy
from inspect_ai.tool import Tool, bash, bash_session, python, text_editor

from rtlab.agent import METHODS, MethodName
from rtlab.environment import ABLATIONS, AblationName
from rtlab.ingest import get_policy
from rtlab.inspect._live import LiveRun, capture

ToolName = Literal["bash", "python", "text_editor", "bash_session"]
"""Inspect's own workspace tools the agent can be given (the Inspect reader types each of them)."""
TOOL_NAMES: tuple[ToolName, ...] = get_args(ToolName)
DEFAULT_TOOLS: tuple[ToolName, ...] = ("bash", "text_editor")
"""What most agentic Inspect tasks give a model: a shell and the file editor."""
ClipName = Literal[
    "none",
    "codex-rollout",
    "claude-code",
    "openhands-v0",
    "openhands-sdk",
    "codex-0.133",
    "codex-0.133-bytes",
    "codex-256-lines",
    "swe-agent-1",
    "mini-swe-agent",
]
"""rtlab's named clip policies (``rtlab.ingest.POLICIES``; a test keeps the two equal)."""


@agent(name="runningtab")
def runningtab(
    *,
    method: MethodName = "runningtab",
    ablation: AblationName = "full",
    tools: Sequence[ToolName] | str = DEFAULT_TOOLS,
    clip: ClipName = "none",
    timeout: int = 180,
) -> Agent:
    """A ReAct agent running one of the paper's methods (``docs/METHODS.md``), the tab kept by the environment.

    Args:
      method: ``runningtab`` (the environment-side tab), ``dci`` (the tools alone), ``todo``, ``self-refine``
        or ``self-tracking`` (the model-kept baselines).
      ablation: RunningTab's ablation: ``full``, ``no-capture``, ``no-review``, ``no-evidence-check`` or
        ``no-finish-check``.
      tools: Inspect's workspace tools the model gets (a list, or names joined by commas on the command line).
      clip: an rtlab clip policy applied to each workspace tool's text result before Inspect's own
        ``max_tool_output`` truncation (``none``: Inspect's alone).
      timeout: Seconds a ``bash`` / ``python`` call may run.
    """
    if method not in METHODS:
        raise ValueError(f"method={method!r}: expected one of {', '.join(METHODS)}")
    if ablation not in ABLATIONS:
        raise ValueError(f"ablation={ablation!r}: expected one of {', '.join(ABLATIONS)}")
    if ablation != "full" and method != "runningtab":
        raise ValueError(f"ablation={ablation!r} applies to method=runningtab only, not {method!r}")
    names = _tool_names(tools)
    policy = get_policy(clip)  # an unknown name: ValueError naming the known ones
    settings: dict[str, Any] = {
        "ablation": ablation,
        "workspace_tools": list(names),
        "clip": clip,
        "timeout": timeout,
    }

    async def execute(state: AgentState) -> AgentState:
        run = LiveRun.start(_task_text(state), method=method, ablation=ablation, clip=policy)
        inner = react(
            prompt=AgentPrompt(instructions=run.policy.instructions or None),
            tools=[*(run.workspace_tool(t) for t in _workspace_tools(names, timeout)), *run.policy_tools()],
            submit=AgentSubmit(tool=run.submit_tool(), answer_only=True, keep_in_messages=True),
            on_continue=run.on_continue,
            review=[ReviewPolicy(reviewer=capture(run), tools="*")],
        )
        try:
            state = await inner(state)
        finally:
            # the policy's own description first: `method` is the arm's label (RunningTab, DCI, ...), as in run.json
            run.finish(state, {**run.policy.describe(), **settings})
        return state

    return execute


def _tool_names(tools: Sequence[ToolName] | str) -> tuple[ToolName, ...]:
    names = [t.strip() for t in tools.split(",")] if isinstance(tools, str) else list(tools)
    unknown = [t for t in names if t not in TOOL_NAMES]
    if unknown or not names:
        raise ValueError(f"tools={tools!r}: expected names among {', '.join(TOOL_NAMES)}")
    return tuple(names)  # type: ignore[arg-type]  # checked above


def _workspace_tools(names: Sequence[ToolName], timeout: int) -> list[Tool]:
    made = {
        "bash": lambda: bash(timeout=timeout),
        "python": lambda: python(timeout=timeout),
        "text_editor": lambda: text_editor(),
        "bash_session": lambda: bash_session(),
    }
    return [made[name]() for name in names]


def _task_text(state: AgentState) -> str:
    """The task as the Inspect reader finds it in the log: the first user message (the sample's input)."""
    return next((m.text for m in state.messages if isinstance(m, ChatMessageUser)), "")

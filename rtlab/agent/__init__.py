"""The live agent harness (``rtlab run``, ``rtlab experiment``): an agent loop with OpenAI-style tool calling over
any compatible endpoint, the workspace tools run in a confined private copy of the task's workspace, the
paper's methods as policies over the one loop (DCI, TODO, Self-Refine, Self-Tracking, RunningTab and its
ablations), context-management policies, the tasks it works (simulated world, Workspace-Bench, OfficeQA), run
folders every rtlab command reads, and experiments over grids of runs that resume after an interruption."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.agent._context import CONTEXT_KINDS as CONTEXT_KINDS
    from rtlab.agent._context import ContextPolicy as ContextPolicy
    from rtlab.agent._experiment import AGENTS as AGENTS
    from rtlab.agent._experiment import AgentKind as AgentKind
    from rtlab.agent._experiment import ExperimentConfig as ExperimentConfig
    from rtlab.agent._experiment import ExperimentResult as ExperimentResult
    from rtlab.agent._experiment import PlannedRun as PlannedRun
    from rtlab.agent._experiment import Runner as Runner
    from rtlab.agent._experiment import format_table as format_table
    from rtlab.agent._experiment import load_experiment as load_experiment
    from rtlab.agent._experiment import run_experiment as run_experiment
    from rtlab.agent._experiment import run_with_rtlab as run_with_rtlab
    from rtlab.agent._methods import METHOD_LABELS as METHOD_LABELS
    from rtlab.agent._methods import METHODS as METHODS
    from rtlab.agent._methods import MethodName as MethodName
    from rtlab.agent._methods import Policy as Policy
    from rtlab.agent._methods import RunningTabPolicy as RunningTabPolicy
    from rtlab.agent._methods import make_policy as make_policy
    from rtlab.agent._run import COMPLETE as COMPLETE
    from rtlab.agent._run import END_REASONS as END_REASONS
    from rtlab.agent._run import EndReason as EndReason
    from rtlab.agent._run import RunConfig as RunConfig
    from rtlab.agent._run import RunSummary as RunSummary
    from rtlab.agent._run import copy_outputs as copy_outputs
    from rtlab.agent._run import is_complete as is_complete
    from rtlab.agent._run import prepare_run_folder as prepare_run_folder
    from rtlab.agent._run import run_agent as run_agent
    from rtlab.agent._sandbox import AGENT_ROOT as AGENT_ROOT
    from rtlab.agent._sandbox import SANDBOX_KINDS as SANDBOX_KINDS
    from rtlab.agent._sandbox import Sandbox as Sandbox
    from rtlab.agent._sandbox import SandboxError as SandboxError
    from rtlab.agent._sandbox import SandboxKind as SandboxKind
    from rtlab.agent._sandbox import bwrap_works as bwrap_works
    from rtlab.agent._sandbox import copy_workspace as copy_workspace
    from rtlab.agent._tasks import AgentTask as AgentTask
    from rtlab.agent._tasks import TaskError as TaskError
    from rtlab.agent._tasks import load_task as load_task
    from rtlab.agent._tools import DEFAULT_CLIP as DEFAULT_CLIP
    from rtlab.agent._tools import WORKSPACE_TOOLS as WORKSPACE_TOOLS
    from rtlab.agent._tools import clip_frame as clip_frame

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._context": ("CONTEXT_KINDS", "ContextPolicy"),
        "._experiment": (
            "AGENTS",
            "AgentKind",
            "ExperimentConfig",
            "ExperimentResult",
            "PlannedRun",
            "Runner",
            "format_table",
            "load_experiment",
            "run_experiment",
            "run_with_rtlab",
        ),
        "._methods": ("METHOD_LABELS", "METHODS", "MethodName", "Policy", "RunningTabPolicy", "make_policy"),
        "._run": (
            "COMPLETE",
            "END_REASONS",
            "EndReason",
            "RunConfig",
            "RunSummary",
            "copy_outputs",
            "is_complete",
            "prepare_run_folder",
            "run_agent",
        ),
        "._sandbox": (
            "AGENT_ROOT",
            "SANDBOX_KINDS",
            "Sandbox",
            "SandboxError",
            "SandboxKind",
            "bwrap_works",
            "copy_workspace",
        ),
        "._tasks": ("AgentTask", "TaskError", "load_task"),
        "._tools": ("DEFAULT_CLIP", "WORKSPACE_TOOLS", "clip_frame"),
    },
)

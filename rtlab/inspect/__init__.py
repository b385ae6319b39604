"""The tab inside Inspect AI (the ``inspect`` extra, ``pip install 'rtlab[inspect]'``): ``runningtab()``, an Inspect
agent on ``react()`` that runs any of the paper's methods (RunningTab and its ablations, DCI, TODO, Self-Refine,
Self-Tracking) through the same policies and ``rtlab.environment.Environment`` as ``rtlab run`` and the replay;
registered for the command line as ``rtlab/runningtab`` (``inspect eval TASK --solver rtlab/runningtab -S
ablation=no-review``). The sample's store keeps the tab, the steps and the conversation as the model saw it,
read back by rtlab's Inspect reader; the scorer reads the run without the tab. ``compare_arms()`` runs a small
shipped task once per arm against the simulated model and compares the arms with rtlab's analyses (notebook 10).
``import rtlab`` never imports
inspect_ai: this face imports it on first use of a name."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.inspect._agent import DEFAULT_TOOLS as DEFAULT_TOOLS
    from rtlab.inspect._agent import TOOL_NAMES as TOOL_NAMES
    from rtlab.inspect._agent import ClipName as ClipName
    from rtlab.inspect._agent import ToolName as ToolName
    from rtlab.inspect._agent import runningtab as runningtab
    from rtlab.inspect._compare import ARM_NAMES as ARM_NAMES
    from rtlab.inspect._compare import COLUMNS as COLUMNS
    from rtlab.inspect._compare import DEFAULT_ARMS as DEFAULT_ARMS
    from rtlab.inspect._compare import SANDBOX as SANDBOX
    from rtlab.inspect._compare import WORKSPACE as WORKSPACE
    from rtlab.inspect._compare import ArmName as ArmName
    from rtlab.inspect._compare import LocalHomeSandbox as LocalHomeSandbox
    from rtlab.inspect._compare import WorkspaceSample as WorkspaceSample
    from rtlab.inspect._compare import arms_summary as arms_summary
    from rtlab.inspect._compare import compare_arms as compare_arms
    from rtlab.inspect._compare import values_stated as values_stated
    from rtlab.inspect._compare import workspace_samples as workspace_samples
    from rtlab.inspect._compare import workspace_task as workspace_task
    from rtlab.inspect._live import CLIPS_KEY as CLIPS_KEY
    from rtlab.inspect._live import FINISH_KEY as FINISH_KEY
    from rtlab.inspect._live import PLANS_KEY as PLANS_KEY
    from rtlab.inspect._live import SETTINGS_KEY as SETTINGS_KEY
    from rtlab.inspect._live import STEPS_KEY as STEPS_KEY
    from rtlab.inspect._live import STORE_PREFIX as STORE_PREFIX
    from rtlab.inspect._live import SUBMIT as SUBMIT
    from rtlab.inspect._live import TAB_KEY as TAB_KEY
    from rtlab.inspect._live import TRANSCRIPT_KEY as TRANSCRIPT_KEY
    from rtlab.inspect._live import LiveRun as LiveRun
    from rtlab.inspect._live import LiveStep as LiveStep
    from rtlab.inspect._live import scorer_view as scorer_view

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._agent": ("DEFAULT_TOOLS", "TOOL_NAMES", "ClipName", "ToolName", "runningtab"),
        "._compare": (
            "ARM_NAMES",
            "COLUMNS",
            "DEFAULT_ARMS",
            "SANDBOX",
            "WORKSPACE",
            "ArmName",
            "LocalHomeSandbox",
            "WorkspaceSample",
            "arms_summary",
            "compare_arms",
            "values_stated",
            "workspace_samples",
            "workspace_task",
        ),
        "._live": (
            "CLIPS_KEY",
            "FINISH_KEY",
            "PLANS_KEY",
            "SETTINGS_KEY",
            "STEPS_KEY",
            "STORE_PREFIX",
            "SUBMIT",
            "TAB_KEY",
            "TRANSCRIPT_KEY",
            "LiveRun",
            "LiveStep",
            "scorer_view",
        ),
    },
)

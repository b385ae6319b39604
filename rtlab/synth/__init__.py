"""A seeded, clearly labelled **simulated** world in the formats of real data, with known failure causes.

:func:`generate` writes workspaces for five professional roles, Workspace-Bench-style tasks over them, runs of
simulated agents (every method, RunningTab ablations, three model profiles) as Pi sessions, a deterministic
judge's verdicts and the ground-truth cause of every failed rubric item. See :mod:`rtlab.synth.dataset` for
the layout and :mod:`rtlab.synth.agents` for how the agents behave.
"""

from __future__ import annotations

import importlib
from typing import Any

_LAZY = {
    **dict.fromkeys(("ABLATIONS", "ARMS", "METHODS", "PROFILES", "Arm", "Profile"), "rtlab.synth.profiles"),
    **dict.fromkeys(
        ("SynthConfig", "generate", "ground_truth", "load_config", "load_world", "truth_labels"),
        "rtlab.synth.dataset",
    ),
    **dict.fromkeys(
        ("Fact", "Item", "Role", "SynthTask", "World", "WorkspaceFile", "is_simulated"), "rtlab.synth.world"
    ),
}


def __getattr__(name: str) -> Any:
    """Load a name's module on first use (the generator needs openpyxl; the agents do not)."""
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rtlab.synth' has no attribute {name!r}")
    return getattr(importlib.import_module(module), name)


__all__ = sorted(_LAZY)

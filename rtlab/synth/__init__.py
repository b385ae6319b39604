"""A seeded, clearly labelled **simulated** world in the formats of real data, with known failure causes.

:func:`generate` writes workspaces for five professional roles, Workspace-Bench-style tasks over them, runs of
simulated agents (every method, RunningTab ablations, three model profiles) as Pi sessions, a deterministic
judge's verdicts and the ground-truth cause of every failed rubric item. See :mod:`rtlab.synth.dataset` for
the layout and :mod:`rtlab.synth.agents` for how the agents behave.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.synth.dataset import SynthConfig as SynthConfig
    from rtlab.synth.dataset import generate as generate
    from rtlab.synth.dataset import ground_truth as ground_truth
    from rtlab.synth.dataset import judge_run as judge_run
    from rtlab.synth.dataset import load_config as load_config
    from rtlab.synth.dataset import load_world as load_world
    from rtlab.synth.dataset import truth_labels as truth_labels
    from rtlab.synth.profiles import ABLATIONS as ABLATIONS
    from rtlab.synth.profiles import ARMS as ARMS
    from rtlab.synth.profiles import METHODS as METHODS
    from rtlab.synth.profiles import PROFILES as PROFILES
    from rtlab.synth.profiles import Arm as Arm
    from rtlab.synth.profiles import Profile as Profile
    from rtlab.synth.world import Fact as Fact
    from rtlab.synth.world import Item as Item
    from rtlab.synth.world import Role as Role
    from rtlab.synth.world import SynthTask as SynthTask
    from rtlab.synth.world import WorkspaceFile as WorkspaceFile
    from rtlab.synth.world import World as World
    from rtlab.synth.world import is_simulated as is_simulated

# the generator needs openpyxl, the agents do not: each name is imported on first use
__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        ".profiles": ("ABLATIONS", "ARMS", "METHODS", "PROFILES", "Arm", "Profile"),
        ".dataset": (
            "SynthConfig",
            "generate",
            "ground_truth",
            "judge_run",
            "load_config",
            "load_world",
            "truth_labels",
        ),
        ".world": ("Fact", "Item", "Role", "SynthTask", "World", "WorkspaceFile", "is_simulated"),
    },
)

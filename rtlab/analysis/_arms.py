"""The arms of the paper's comparisons, named once: the baseline (DCI), the method with the tab (RunningTab)
and its ablations, the paper's order of methods, and which runs are an arm's own.

A run's arm is its ``method`` label and, for an ablation, its ``variant`` (``run.json``, see
:mod:`rtlab.ingest._labels`); a *main* run of a method has no variant.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

from rtlab.environment import ABLATIONS
from rtlab.records import Trajectory

if TYPE_CHECKING:
    import pandas as pd

BASELINE = "DCI"
"""The baseline method: the plain agent (DCI-Agent-Lite), no tab. Diagnoses and gains are measured on it."""
TAB_METHOD = "RunningTab"
"""The method with the environment-side tab; its ablations are its variants (:data:`VARIANT_ORDER`)."""
METHOD_ORDER: tuple[str, ...] = (BASELINE, "TODO", "Self-Refine", "Self-Tracking", TAB_METHOD)
"""The paper's order of methods: plain DCI, the model-kept baselines, then RunningTab."""
VARIANT_ORDER: tuple[str, ...] = tuple(a for a in ABLATIONS if a != "full")
"""RunningTab's ablations in the paper's order (capture, review, evidence check, finish check)."""


def is_main_run(trajectory: Trajectory, method: str) -> bool:
    """Whether ``trajectory`` is a run of ``method`` itself, not one of its ablations (no variant)."""
    return trajectory.method == method and trajectory.variant is None


def main_runs(trajectories: Iterable[Trajectory], method: str, *, judged: bool = False) -> list[Trajectory]:
    """The runs of ``method`` itself (:func:`is_main_run`), in order; with ``judged``, only those with a
    judgement (rubric results)."""
    return [t for t in trajectories if is_main_run(t, method) and (not judged or t.judgement is not None)]


def main_mask(frame: pd.DataFrame, method: str) -> pd.Series:
    """The rows of ``frame`` (with ``method`` and ``variant`` columns) that are runs of ``method`` itself: the
    table form of :func:`is_main_run`."""
    return (frame["method"] == method) & frame["variant"].isna()

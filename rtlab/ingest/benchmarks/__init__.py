"""Benchmark adapters: tasks, rubrics and judge results, joined onto trajectories.

Each benchmark lives in its own module exposing ``NAME`` and ``attach(trajectory) -> bool``, which looks for
the benchmark's files beside the trajectory's source, and on success sets ``task``, ``judgement`` and
``benchmark`` on it. The official metric functions live in the same modules.
"""

from __future__ import annotations

import importlib
from types import ModuleType
from typing import Literal

from rtlab.records import Trajectory

BenchmarkName = Literal["workspace-bench", "officeqa", "theagentcompany"]
_MODULES: dict[BenchmarkName, str] = {
    "workspace-bench": "workspace_bench",
    "officeqa": "officeqa",
    "theagentcompany": "theagentcompany",
}

BENCHMARKS: tuple[BenchmarkName, ...] = tuple(_MODULES)


def get_benchmark(name: BenchmarkName) -> ModuleType:
    """The adapter module for a benchmark name."""
    if name not in _MODULES:
        raise ValueError(f"unknown benchmark {name!r}; known: {', '.join(BENCHMARKS)}")
    return importlib.import_module(f"rtlab.ingest.benchmarks.{_MODULES[name]}")


def attach(trajectory: Trajectory, *, benchmark: BenchmarkName | None = None) -> BenchmarkName | None:
    """Join ``trajectory`` with its task, rubric and judge result; returns the benchmark's name or ``None``.

    With ``benchmark`` given only that adapter is tried; otherwise each adapter in turn.
    """
    names = [benchmark] if benchmark else list(BENCHMARKS)
    for name in names:
        if get_benchmark(name).attach(trajectory):
            trajectory.benchmark = name
            return name
    return None


attach_benchmark = attach
"""The name :mod:`rtlab.ingest` and :mod:`rtlab` give :func:`attach`."""

__all__ = ["BENCHMARKS", "BenchmarkName", "attach", "attach_benchmark", "get_benchmark"]

"""Per-run functions for tests/test_cluster.py, top-level in an importable module (workers import them by name)."""

from __future__ import annotations

import os
from typing import Any

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
UNITS = [  # run folders and files of several harnesses, each a unit rtlab.ingest reads
    "pi/session-v1-linear.jsonl",
    "pi/session-v2-tree.jsonl",
    "dci/20260210-141503",
    "runningtab/hr-offer-chat.json",
    "codex/all_items.jsonl",
    "codex/runs/7_plain",
]


def replay_rows(unit: str) -> list[dict[str, Any]]:
    """Read one unit (a path or a ``file://`` URL) and replay each of its runs: their summary rows
    (``rtlab replay --json``), the read log's paths and the tab's candidates included."""
    from rtlab._cluster import as_local_path
    from rtlab.environment import replay, replay_summary
    from rtlab.ingest import ingest

    with as_local_path(unit) as path:
        result = ingest([path])
        if result.failures or not result.trajectories:
            raise ValueError(f"{unit}: nothing read ({result.failures})")
        return [replay_summary(replay(t)) for t in result.trajectories]


def die_on(unit: str) -> list[dict[str, Any]]:
    """:func:`replay_rows`, but the worker process dies (``os._exit``) on a unit named ``die``."""
    if unit.endswith("die"):
        os._exit(3)
    return replay_rows(unit)

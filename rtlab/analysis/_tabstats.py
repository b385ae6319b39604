"""What the tab holds: per-trajectory counts and their medians, and the review's coverage of open requirements.

The paper reports, for Workspace-Bench, medians of requirements, read-log entries, distinct files, excerpted
characters and candidates, and the review coverage: the share of open requirements that the review shows
beside a read-log entry containing words of the requirement. Here the review is taken once, on the final tab
(the entries it shows beside a requirement share at least one of its terms by construction, see
:mod:`rtlab.environment._tab`); a replay with ``requirements="rubric"`` gives every task's rubric as requirements.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rtlab.analysis._arms import TAB_METHOD
from rtlab.environment import Replay, RequirementSource, is_tab_call
from rtlab.records import Trajectory

if TYPE_CHECKING:
    import pandas as pd

STAT_COLUMNS = ("n_requirements", "n_entries", "n_files", "excerpt_chars", "n_candidates", "review_coverage")


def requirement_source(trajectory: Trajectory) -> RequirementSource:
    """Whose requirements a run's tab statistics use: the agent's own for a RunningTab run or any run that called
    the tab (none, if it stated none), as the paper's statistics; else its rubric (an oracle), else none."""
    if trajectory.method == TAB_METHOD or any(is_tab_call(s) for s in trajectory.steps):
        return "trajectory"
    return "rubric" if trajectory.task is not None and trajectory.task.rubric else "none"


def review_coverage(r: Replay) -> float:
    """Share of the final tab's open requirements shown beside at least one read-log entry; NaN when none is open."""
    items = r.tab.review().items
    if not items:
        return float("nan")
    return sum(1 for item in items if item.entries) / len(items)


def tab_stats_frame(replays: Iterable[Replay]):
    """One row per replayed trajectory: what its final tab holds (columns ``trajectory``, ``source_path`` + :data:`STAT_COLUMNS`)."""
    import pandas as pd

    rows = [
        {
            "trajectory": r.trajectory_id,
            "source_path": r.source_path,
            "n_requirements": len(r.tab.requirements),
            "n_entries": len(r.tab.read_log),
            "n_files": r.tab.files_read,
            "excerpt_chars": sum(len(e.excerpt) for e in r.tab.read_log),
            "n_candidates": len(r.tab.candidates),
            "review_coverage": review_coverage(r),
        }
        for r in replays
    ]
    return pd.DataFrame(rows, columns=["trajectory", "source_path", *STAT_COLUMNS])


def tab_stats_summary(frame: pd.DataFrame, by: Sequence[str] = ()) -> pd.DataFrame:
    """Median, quartiles and count of every statistic, overall or per group (long form: one row per statistic)."""
    import pandas as pd

    groups = frame.groupby(list(by), sort=True, dropna=False) if by else [((), frame)]
    rows = []
    for key, g in groups:
        labels = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        for stat in STAT_COLUMNS:
            col = g[stat].dropna()
            rows.append(
                {
                    **labels,
                    "statistic": stat,
                    "median": float(col.median()) if len(col) else float("nan"),
                    "q1": float(col.quantile(0.25)) if len(col) else float("nan"),
                    "q3": float(col.quantile(0.75)) if len(col) else float("nan"),
                    "n": int(len(col)),
                }
            )
    return pd.DataFrame(rows, columns=[*by, "statistic", "median", "q1", "q3", "n"])

"""What the tab holds: per-trajectory counts and their medians, and the review's coverage of open requirements.

The paper reports, for Workspace-Bench, medians of requirements, read-log entries, distinct files, excerpted
characters and candidates, and the review coverage: "when the review is pulled, 69.9% to 88.0% of open
requirements appear beside a read-log entry containing words of the requirement".

Review coverage, as the paper defines it (:func:`review_calls_frame`, :func:`review_coverage_summary`):

- **At every ``tab_list`` call**, from what that review showed: the reply is read back
  (:func:`rtlab.environment.read_reply`): the requirements it lists as open, and those it shows beside at
  least one read-log entry. Every entry the review shows beside a requirement shares a term with it (the
  review's rule, :mod:`rtlab.environment._tab`), so "beside an entry" is "beside an entry containing words of
  the requirement". A call that lists no open requirement has no coverage (NaN) and weighs nothing below.
- **Whose replies.** A recorded run's replies (``Step.output``: what the model was shown, ``reply_from =
  "recorded"``), or a replay's (``StepRecord.reply`` of a replay with ``requirements="trajectory"``,
  ``"replayed"``). A run that never pulled the review has no row: it drops out, as in the paper.
- **Per run** (:func:`review_coverage`, the ``review_coverage`` column of :func:`tab_stats_frame`): open
  requirements shown beside an entry over open requirements listed, summed over the run's calls.
- **Per model** (:func:`review_coverage_summary`): ``coverage`` pools every (call, open requirement) of the
  group, the paper's "of open requirements, when the review is pulled"; ``run_mean`` / ``run_median`` weigh
  runs equally (the per-run shares' mean and median), for comparison.
- The plain listing of the no-review ablation lists open requirements beside nothing: coverage 0
  (``review_form`` False, so a caller can leave those calls out).

:func:`final_review_coverage` is the earlier statistic, kept for oracle requirements on runs that never
pulled a review (``requirements="rubric"``): the review taken once on the final tab. It is *not* the paper's
quantity: a run that resolved everything has no open requirement left (NaN).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

from rtlab.analysis._arms import TAB_METHOD
from rtlab.environment import Replay, ReplyReading, RequirementSource, is_tab_call, read_reply
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


REVIEW_CALL_COLUMNS = (
    "trajectory",
    "source_path",
    "model",
    "method",
    "variant",
    "run",
    "task_id",
    "step",
    "reply_from",
    "review_form",
    "n_open",
    "n_covered",
    "coverage",
)
"""The columns of :func:`review_calls_frame`, in order."""
COVERAGE_COLUMNS = ("n_runs", "n_calls", "n_open", "n_covered", "coverage", "run_mean", "run_median")
"""The statistics of :func:`review_coverage_summary` (after the group columns)."""


def _replies(run: Trajectory | Replay) -> list[tuple[int, ReplyReading]]:
    """(step, reading) of every answered ``tab_list`` call of a recorded run, or replayed one of a replay."""
    if isinstance(run, Replay):
        texts = [
            (r.step, r.reply or "") for r in run.records if r.kind == "tab_call" and r.tool == "tab_list"
        ]
    else:
        texts = [(s.index, s.output or "") for s in run.steps if s.answered and s.tool == "tab_list"]
    return [(step, read_reply("tab_list", text)) for step, text in texts]


def _review_rows(run: Trajectory | Replay) -> list[dict[str, object]]:
    """The rows of :func:`review_calls_frame` for one run."""
    t = run.trajectory if isinstance(run, Replay) else run
    labels = {
        "trajectory": run.trajectory_id if isinstance(run, Replay) else run.id,
        "source_path": run.source_path,
        **{
            k: getattr(t, k) if t is not None else None
            for k in ("model", "method", "variant", "run", "task_id")
        },
    }
    rows: list[dict[str, object]] = []
    for step, reading in _replies(run):
        n_open, n_covered = len(reading.open_requirements), len(reading.covered)
        rows.append(
            {
                **labels,
                "step": step,
                "reply_from": "replayed" if isinstance(run, Replay) else "recorded",
                "review_form": reading.review_form,
                "n_open": n_open,
                "n_covered": n_covered,
                "coverage": n_covered / n_open if n_open else float("nan"),
            }
        )
    return rows


def review_calls_frame(runs: Iterable[Trajectory | Replay]) -> pd.DataFrame:
    """One row per ``tab_list`` call: the open requirements that review listed and those it showed beside a
    read-log entry (columns :data:`REVIEW_CALL_COLUMNS`; rules in the module doc). A :class:`Trajectory` gives
    its recorded replies, a :class:`Replay` its replayed ones."""
    import pandas as pd

    rows = [row for run in runs for row in _review_rows(run)]
    frame = pd.DataFrame(rows, columns=list(REVIEW_CALL_COLUMNS))
    return frame.astype({"step": "int64", "n_open": "int64", "n_covered": "int64", "coverage": "float64"})


def review_coverage(run: Trajectory | Replay) -> float:
    """One run's review coverage: open requirements shown beside a read-log entry over open requirements
    listed, summed over its ``tab_list`` calls; NaN when it never pulled a review listing one open."""
    readings = [reading for _, reading in _replies(run)]
    n_open = sum(len(r.open_requirements) for r in readings)
    n_covered = sum(len(r.covered) for r in readings)
    return n_covered / n_open if n_open else float("nan")


def review_coverage_summary(calls: pd.DataFrame, by: Sequence[str] = ("model",)) -> pd.DataFrame:
    """Review coverage per group of :func:`review_calls_frame` rows (columns ``by`` + :data:`COVERAGE_COLUMNS`):
    ``coverage`` pools the group's (call, open requirement) pairs; ``run_mean`` / ``run_median`` are over its
    runs' own pooled shares (runs whose calls listed no open requirement left out)."""
    import pandas as pd

    keys = list(by)
    rows = []
    groups = calls.groupby(keys, sort=True, dropna=False) if keys else [((), calls)]
    for key, g in groups:
        labels = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
        per_run = g.groupby("trajectory", sort=False)[["n_open", "n_covered"]].sum()
        per_run = per_run[per_run["n_open"] > 0]
        shares = per_run["n_covered"] / per_run["n_open"]
        n_open, n_covered = int(g["n_open"].sum()), int(g["n_covered"].sum())
        rows.append(
            {
                **labels,
                "n_runs": int(g["trajectory"].nunique()),
                "n_calls": int(len(g)),
                "n_open": n_open,
                "n_covered": n_covered,
                "coverage": n_covered / n_open if n_open else float("nan"),
                "run_mean": float(shares.mean()) if len(shares) else float("nan"),
                "run_median": float(shares.median()) if len(shares) else float("nan"),
            }
        )
    return pd.DataFrame(rows, columns=[*keys, *COVERAGE_COLUMNS])


def final_review_coverage(r: Replay) -> float:
    """Share of the *final* tab's open requirements its review shows beside a read-log entry; NaN when none is
    open. Not the paper's statistic (see the module doc): for oracle requirements on runs that never pulled
    a review."""
    items = r.tab.review().items
    if not items:
        return float("nan")
    return sum(1 for item in items if item.entries) / len(items)


def tab_stats_frame(replays: Iterable[Replay]):
    """One row per replayed trajectory: what its final tab holds and its review coverage over its replayed
    ``tab_list`` calls (columns ``trajectory``, ``source_path`` + :data:`STAT_COLUMNS` +
    ``final_review_coverage``)."""
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
            "final_review_coverage": final_review_coverage(r),
        }
        for r in replays
    ]
    return pd.DataFrame(rows, columns=["trajectory", "source_path", *STAT_COLUMNS, "final_review_coverage"])


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

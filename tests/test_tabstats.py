"""Tab statistics on the hand-made sample, where every count can be checked by reading the run."""

from __future__ import annotations

import math

import pandas as pd
from conftest import ROOT

from rtlab.analysis import requirement_source, review_coverage, tab_stats_frame, tab_stats_summary
from rtlab.environment import replay
from rtlab.ingest import ingest

SAMPLE_CODEX = ROOT / "data" / "sample" / "codex" / "301_plain"


def test_sample_codex_run() -> None:
    (t,) = ingest([SAMPLE_CODEX]).trajectories
    r = replay(t, requirements="rubric")
    (row,) = tab_stats_frame([r]).to_dict(orient="records")
    # 6 rubric items; L1 July (87 chars), L2 August and L3 September from one `head` of two files; 4 candidates
    assert row["n_requirements"] == 6 and row["n_entries"] == 3 and row["n_files"] == 3
    assert row["excerpt_chars"] == sum(len(e.excerpt) for e in r.tab.read_log) and row["n_candidates"] == 4
    items = r.tab.review().items
    assert row["review_coverage"] == sum(1 for i in items if i.entries) / len(items)
    assert math.isnan(review_coverage(replay(t)))  # no requirements, nothing to cover


def test_summary_medians_by_hand() -> None:
    frame = pd.DataFrame(
        {
            "trajectory": ["a", "b", "c", "d"],
            "method": ["x", "x", "y", "y"],
            "n_requirements": [4, 6, 5, 5],
            "n_entries": [6, 18, 10, 12],
            "n_files": [5, 11, 7, 7],
            "excerpt_chars": [12_000, 40_000, 20_000, 30_000],
            "n_candidates": [147, 294, 200, 210],
            "review_coverage": [0.5, 1.0, float("nan"), 0.75],
        }
    )
    overall = tab_stats_summary(frame).set_index("statistic")
    # entries 6, 10, 12, 18: median (10 + 12) / 2 = 11; coverage ignores the NaN: median of 0.5, 0.75, 1.0
    assert overall.loc["n_entries", "median"] == 11 and overall.loc["review_coverage", "median"] == 0.75
    assert overall.loc["review_coverage", "n"] == 3
    per = tab_stats_summary(frame, ["method"]).set_index(["method", "statistic"])
    assert per.loc[("x", "n_candidates"), "median"] == (147 + 294) / 2
    assert per.loc[("y", "review_coverage"), "median"] == 0.75 and per.loc[("y", "review_coverage"), "n"] == 1


def test_requirement_source() -> None:
    from rtlab.records import RubricItem, Step, Task, Trajectory

    def run(method: str | None, tools: list[str], rubric: bool) -> Trajectory:
        steps = [
            Step(index=i, tool=tool, command=tool, output="ok", shown="ok") for i, tool in enumerate(tools)
        ]
        task = Task(id="t", benchmark="b", rubric=[RubricItem(index=0, text="x")] if rubric else [])
        return Trajectory(id="r", format="hand", source_path="-", steps=steps, method=method, task=task)

    # a RunningTab run uses its own requirements even when it stated none; so does any run that called the tab
    assert requirement_source(run("RunningTab", ["bash"], rubric=True)) == "trajectory"
    assert requirement_source(run(None, ["bash", "tab_add"], rubric=True)) == "trajectory"
    # a plain run: its rubric as oracle requirements, else none
    assert requirement_source(run("DCI", ["bash"], rubric=True)) == "rubric"
    assert requirement_source(run("DCI", ["bash"], rubric=False)) == "none"

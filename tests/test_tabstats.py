"""Tab statistics on the hand-made sample, where every count can be checked by reading the run."""

from __future__ import annotations

import math

import pandas as pd
from conftest import ROOT

from rtlab.analysis import requirement_source, review_coverage, tab_stats_frame, tab_stats_summary
from rtlab.environment import replay
from rtlab.ingest import ingest
from rtlab.records import Trajectory

SAMPLE_CODEX = ROOT / "data" / "sample" / "codex" / "301_plain"


def test_sample_codex_run() -> None:
    (t,) = ingest([SAMPLE_CODEX]).trajectories
    r = replay(t, requirements="rubric")
    (row,) = tab_stats_frame([r]).to_dict(orient="records")
    # 6 rubric items; L1 July (87 chars), L2 August and L3 September from one `head` of two files; 4 candidates
    assert row["n_requirements"] == 6 and row["n_entries"] == 3 and row["n_files"] == 3
    assert row["excerpt_chars"] == sum(len(e.excerpt) for e in r.tab.read_log) and row["n_candidates"] == 4
    items = r.tab.review().items
    # the final tab's review: R1 (a file name only) beside no entry, the five others beside one: 5/6
    assert row["final_review_coverage"] == sum(1 for i in items if i.entries) / len(items) == 5 / 6
    assert math.isnan(row["review_coverage"])  # a plain run never pulled the review: no coverage


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


# ---------------------------------------------------------------------------------------------------------
# Review coverage at every tab_list call (the paper's "when the review is pulled, ... of open requirements")


def _tab_run(tid: str, spec: list[tuple[str, str, dict[str, str], str | None]], *, model: str) -> Trajectory:
    """A RunningTab run whose tab replies are a real Environment's, fed the steps in order."""
    from stepping import typed

    from rtlab.environment import Environment, is_tab_call
    from rtlab.records import Step, Trajectory

    env = Environment("total amount of a and the notes summary")
    steps = []
    for k, (tool, command, args, output) in enumerate(spec):
        step = typed(Step(index=k, tool=tool, command=command, args=args, output=output, shown=output, seq=k))
        if is_tab_call(step):
            step.output = step.shown = env.observe(step)
        else:
            env.observe(step)
        steps.append(step)
    return Trajectory(
        id=tid, format="hand", source_path="-", steps=steps, model=model, method="RunningTab", run="1",
        task_id="t1",
    )  # fmt: skip


READ_A = ("read", "read data/a.csv", {"path": "data/a.csv"}, "item,amount\nrent,100\ntotal amount,100\n")
READ_NOTES = ("read", "read data/notes.txt", {"path": "data/notes.txt"}, "notes: summary of the quarter\n")
LIST = ("tab_list", "tab_list", {}, None)


def _add(text: str) -> tuple[str, str, dict[str, str], None]:
    return ("tab_add", f"tab_add {text}", {"text": text}, None)


def _resolve(rid: str, cite: str) -> tuple[str, str, dict[str, str], None]:
    return ("tab_resolve", f"tab_resolve {rid}", {"id": rid, "status": "done", "cite": cite}, None)


# A (m1): R1 "total amount of a", R2 "notes summary"; review 1 before any read: 0 of 2 beside an entry;
# read a.csv (L1: "total amount"); review 2: R1 beside L1, R2 beside nothing: 1 of 2; R1 done citing L1;
# read notes.txt (L2: "notes: summary"); review 3: R2 beside L2: 1 of 1; R2 done citing L2: nothing open
# at the end (the old final-tab statistic: NaN). Per run: (0 + 1 + 1) / (2 + 2 + 1) = 2/5 = 0.4.
RUN_A = [_add("total amount of a"), _add("notes summary"), LIST, READ_A, LIST, _resolve("R1", "L1"),
         READ_NOTES, LIST, _resolve("R2", "L2")]  # fmt: skip
# B (m1): R1 read first, one review: 1 of 1 = 1.0.   C (m2): one review before reading: 0 of 1 = 0.0.
RUN_B = [READ_A, _add("total amount of a"), LIST]
RUN_C = [_add("total amount of a"), LIST, READ_A]


def test_review_coverage_at_every_call_by_hand() -> None:
    from rtlab.analysis import final_review_coverage, review_calls_frame, review_coverage_summary

    a, b, c = (
        _tab_run("A", RUN_A, model="m1"),
        _tab_run("B", RUN_B, model="m1"),
        _tab_run("C", RUN_C, model="m2"),
    )
    calls = review_calls_frame([a, b, c])
    assert calls[["trajectory", "step", "n_open", "n_covered"]].values.tolist() == [
        ["A", 2, 2, 0], ["A", 4, 2, 1], ["A", 7, 1, 1], ["B", 2, 1, 1], ["C", 1, 1, 0],
    ]  # fmt: skip
    assert calls["coverage"].tolist() == [0.0, 0.5, 1.0, 1.0, 0.0]
    assert set(calls["reply_from"]) == {"recorded"} and calls["review_form"].all()
    assert review_coverage(a) == 2 / 5
    r = replay(a, requirements="trajectory")
    assert review_coverage(r) == 2 / 5  # the replayed replies say the same as the recorded ones
    assert math.isnan(final_review_coverage(r))  # all resolved at the end: the old statistic drops the run
    (row,) = tab_stats_frame([r]).to_dict(orient="records")
    assert row["review_coverage"] == 2 / 5 and math.isnan(row["final_review_coverage"])
    summary = review_coverage_summary(calls).set_index("model")
    # m1 pools A's three calls and B's one: (0 + 1 + 1 + 1) / (2 + 2 + 1 + 1) = 3/6 = 0.5; runs: A 0.4, B 1.0
    assert summary.loc["m1", "coverage"] == 0.5 and summary.loc["m1", "n_calls"] == 4
    assert summary.loc["m1", "run_mean"] == (0.4 + 1.0) / 2 and summary.loc["m1", "run_median"] == 0.7
    assert summary.loc["m2", "coverage"] == 0.0 and summary.loc["m2", "n_runs"] == 1


def test_review_coverage_of_a_run_without_a_review_and_of_the_plain_listing() -> None:
    from rtlab.analysis import review_calls_frame
    from rtlab.environment import TabConfig

    (t,) = ingest([SAMPLE_CODEX]).trajectories
    assert review_calls_frame([t]).empty and math.isnan(review_coverage(t))  # never pulled: no row, NaN
    # the no-review ablation's listing: R1 open beside nothing (its entries are an index, not a match): 0 of 1
    plain = replay(
        _tab_run("B", RUN_B, model="m1"), requirements="trajectory", config=TabConfig(review=False)
    )
    (row,) = review_calls_frame([plain]).to_dict(orient="records")
    assert (row["n_open"], row["n_covered"], row["review_form"], row["reply_from"]) == (
        1,
        0,
        False,
        "replayed",
    )

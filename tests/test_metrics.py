"""Benchmark metrics: Workspace-Bench pass rate and TCR@p, the per-trajectory frame, and grouped aggregation
with bootstrap CIs; checked by hand on tiny data, against the leaderboard CSV and on the real runs."""

from __future__ import annotations

import csv
import json
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from rtlab.analysis._metrics import (
    AGGREGATE_COLUMNS,
    SCORE_COLUMNS,
    aggregate,
    bootstrap_weights,
    officeqa_prediction,
    records,
    scores_frame,
)
from rtlab.ingest import ingest
from rtlab.ingest.benchmarks import workspace_bench
from rtlab.ingest.benchmarks.officeqa_scorer import SCORER_VERSION
from rtlab.ingest.benchmarks.workspace_bench import pass_rate, task_completed, tcr
from rtlab.records import Deliverable, DeliverableFile, ItemResult, Judgement, Task, Trajectory

WB_RUNS = "workspace-bench/codex-gpt-5.4-runs"
LEADERBOARD = "workspace-bench/site_results/detailed_rubrics_pass_table_all_runs.csv"
G2B = "officeqa/g2b-gpt-5.4-traces"


def judged(*passed: bool) -> Judgement:
    return Judgement(items=[ItemResult(index=i, passed=p) for i, p in enumerate(passed)])


def judged_counts(n_passed: int, n_items: int) -> Judgement:
    return judged(*([True] * n_passed + [False] * (n_items - n_passed)))


# ---------------------------------------------------------------------------------------------------------
# Workspace-Bench: pass rate and TCR@p


def test_pass_rate_is_a_micro_average() -> None:
    # task A 3/4, task B 1/16: micro (3 + 1) / (4 + 16) = 0.2, not the task mean (0.75 + 0.0625) / 2
    assert pass_rate([judged_counts(3, 4), judged_counts(1, 16)]) == pytest.approx(0.2)


def test_tcr_counts_tasks_at_or_above_p() -> None:
    tasks = [judged_counts(7, 10), judged_counts(14, 20), judged_counts(6, 10), judged_counts(10, 10)]
    # fractions 0.7, 0.7, 0.6, 1.0: at p = 0.7 the two exact 0.7s count (>=), so 3 of 4
    assert tcr(tasks) == 0.75
    assert tcr(tasks, p=0.71) == 0.25
    assert tcr(tasks, p=0.6) == 1.0
    assert tcr(tasks, p=1.0) == 0.25
    assert tcr(tasks, p=0.0) == 1.0


def test_undefined_cases() -> None:
    assert math.isnan(pass_rate([]))  # no rubrics at all: undefined
    assert math.isnan(pass_rate([judged(), judged()]))
    assert math.isnan(tcr([]))  # no tasks: undefined
    # a task with 0 rubrics adds nothing to the pass rate, and counts as a task that was not completed
    assert pass_rate([judged(), judged_counts(1, 2)]) == 0.5
    assert tcr([judged(), judged_counts(2, 2)]) == 0.5
    assert tcr([judged()], p=0.0) == 0.0
    assert task_completed(0, 0, 0.0) is False
    with pytest.raises(ValueError, match="p must be"):
        tcr([judged(True)], p=70)


def test_default_threshold_is_tcr70() -> None:
    assert workspace_bench.TCR_P == 0.7


def _leaderboard(real: Path) -> list[dict[str, str]]:
    with open(real / LEADERBOARD, encoding="utf-8", newline="") as fh:
        return list(csv.DictReader(fh))


def test_leaderboard_holds_only_aggregates(real: Path) -> None:
    rows = _leaderboard(real)
    assert len(rows) == 45
    assert list(rows[0]) == [
        "setting_name",
        "harness",
        "llm",
        "split_name",
        "easy_rubrics_accuracy",
        "medium_rubrics_accuracy",
        "hard_rubrics_accuracy",
        "total_rubrics_accuracy",
        *[f"pass_at_{p}" for p in range(10, 101, 10)],
    ]
    # One row per harness x model, no per-task column: TCR@p cannot be recomputed from it, only checked
    # for the relations below.
    assert {r["split_name"] for r in rows} == {"Test-Rubrics-Checked"}
    assert len({r["setting_name"] for r in rows}) == 45


def test_leaderboard_tcr_counts_are_consistent(real: Path) -> None:
    rows = _leaderboard(real)
    for r in rows:
        counts = [int(r[f"pass_at_{p}"]) for p in range(10, 101, 10)]
        # counts of the 100 Lite tasks, non-increasing in p (a task at >= 0.8 is also at >= 0.7)
        assert all(0 <= c <= 100 for c in counts), r["setting_name"]
        assert counts == sorted(counts, reverse=True), r["setting_name"]
        # the overall rubric accuracy is a weighted mean of the three difficulty groups
        groups = [float(r[f"{d}_rubrics_accuracy"]) for d in ("easy", "medium", "hard")]
        assert min(groups) <= float(r["total_rubrics_accuracy"]) <= max(groups), r["setting_name"]
    # 'at least p': pass_at_100 counts tasks with every rubric passed; a strict 'above p' would make it 0
    # everywhere, yet 44 of 45 rows have such tasks (DeepAgent--Grok-4.3 has none).
    zero = [r["setting_name"] for r in rows if r["pass_at_100"] == "0"]
    assert zero == ["DeepAgent--Grok-4.3--Test-Rubrics-Checked"]


def test_leaderboard_accuracy_is_not_the_task_mean(real: Path) -> None:
    # If total_rubrics_accuracy were the mean over tasks of the passed fraction f, it would lie in
    # [S/1000, (S + 100 - c100)/1000] with S = sum of the ten pass_at counts (each f is at least its 10%
    # floor and below the next step unless f = 1). 44 rows fit; Codex--Qwen-3.6-Plus (S = 474, accuracy
    # 47.3404% < 47.4%) does not: the accuracy is rubric-weighted (micro), as our pass_rate.
    outside = []
    for r in _leaderboard(real):
        counts = [int(r[f"pass_at_{p}"]) for p in range(10, 101, 10)]
        low, high = sum(counts) / 1000, (sum(counts) + 100 - counts[-1]) / 1000
        if not low <= float(r["total_rubrics_accuracy"]) / 100 <= high:
            outside.append((r["setting_name"], sum(counts)))
    assert outside == [("Codex--Qwen-3.6-Plus--Test-Rubrics-Checked", 474)]
    # the easy group's accuracies are all k/245 (245 easy rubrics in this split, not the 230 of the Lite
    # table's easy tasks): the leaderboard's rubric set is its own 'Rubrics-Checked' one
    assert all(
        round(float(r["easy_rubrics_accuracy"]) / 100 * 245, 3).is_integer() for r in _leaderboard(real)
    )


def _wb_judgements(real: Path) -> dict[str, Judgement]:
    base = real / WB_RUNS
    return {
        d.name: workspace_bench.load_judgement(next((d / "output").glob("rubrics_judge--*.json")))
        for d in sorted(base.iterdir())
        if d.is_dir()
    }


def test_real_workspace_bench_runs(real: Path) -> None:
    judgements = _wb_judgements(real)
    assert len(judgements) == 15
    raw = {}  # the same counts straight from the judge files
    for name in judgements:
        data = json.loads(next((real / WB_RUNS / name / "output").glob("rubrics_judge--*.json")).read_text())
        raw[name] = (sum(r["passed"] for r in data["rubrics"]), len(data["rubrics"]))
    assert raw == {name: (j.n_passed, len(j.items)) for name, j in judgements.items()}
    # passed: 15_*: 1 1 3 1 6 of 16; 44_*: 2 2 1 1 2 of 16; 95_*: 12 0 0 0 11 of 12 -> 43 of 220
    assert pass_rate(judgements.values()) == 43 / 220
    # only 95_cloud (12/12) and 95_plain (11/12 = 0.917) reach 0.7
    assert tcr(judgements.values()) == 2 / 15
    plain = [j for name, j in judgements.items() if name.endswith("_plain")]
    assert (pass_rate(plain), tcr(plain)) == ((6 + 2 + 11) / 44, 1 / 3)


# ---------------------------------------------------------------------------------------------------------
# scores_frame on hand-made trajectories


def wb_run(
    tid: str, task: str, n_passed: int, n_items: int, *, method: str = "m", run: str | None = None
) -> Trajectory:
    t = Trajectory(id=tid, format="x", source_path="-", benchmark="workspace-bench", task_id=task)
    t.method, t.run = method, run
    t.judgement = judged_counts(n_passed, n_items)
    return t


def tac_run(tid: str, task: str, result: float, total: float) -> Trajectory:
    t = Trajectory(id=tid, format="x", source_path="-", benchmark="theagentcompany", task_id=task)
    t.judgement = Judgement(
        items=[ItemResult(0, result == total, score=result)], summary={"total": total, "result": result}
    )
    return t


def oqa_run(tid: str, answer: str, deliverable: Deliverable) -> Trajectory:
    task = Task(id="oqa-7", benchmark="officeqa", answer=answer, expected_outputs=["output.txt"])
    return Trajectory(
        id=tid,
        format="g2b",
        source_path="-",
        benchmark="officeqa",
        task_id="oqa-7",
        task=task,
        deliverable=deliverable,
    )


def test_scores_frame_rows() -> None:
    on_disk = DeliverableFile("output.txt", content="1300\n", origin="output_dir")
    written = DeliverableFile("work/output.txt", content="1,299\n", origin="write_tool")
    trajectories = [
        wb_run("w", "15", 3, 4, method="plain", run="s1"),
        tac_run("t", "pm-x", 1, 2),
        oqa_run("o1", "1,300", Deliverable(final_message="It is 1290", files=[written, on_disk])),
        oqa_run("o2", "1,300", Deliverable(final_message="<FINAL_ANSWER>1,299</FINAL_ANSWER>")),
        oqa_run("o3", "1,300", Deliverable()),
        Trajectory(id="u", format="x", source_path="-"),  # no benchmark: labels only
    ]
    frame = scores_frame(trajectories)
    assert list(frame.columns) == list(SCORE_COLUMNS)
    rows = {r["trajectory"]: r for r in records(frame)}
    w = rows["w"]
    assert (w["benchmark"], w["task_id"], w["method"], w["run"]) == ("workspace-bench", "15", "plain", "s1")
    assert (w["n_rubric_items"], w["n_passed"], w["fraction"]) == (4, 3, 0.75)
    t = rows["t"]
    # TheAgentCompany: 0.5 * 1/2 + 0.5 * [1 == 2] = 0.25, not a success
    assert (t["result"], t["total"], t["score"], t["success"]) == (1, 2, 0.25, False)
    o1, o2, o3 = rows["o1"], rows["o2"], rows["o3"]
    # the answer file found on disk wins over a written copy and the final message: 1300 == 1,300
    assert (o1["correct@0"], o1["correct@1"], o1["answer_source"]) == (1.0, 1.0, "file:output.txt")
    # no file: the final message; 1299 is 0.077% off 1300
    assert (o2["correct@0"], o2["correct@1"], o2["answer_source"]) == (0.0, 1.0, "final_message")
    # nothing handed in: an empty answer scores 0
    assert (o3["correct@0"], o3["correct@1"], o3["answer_source"], o3["prediction"]) == (0.0, 0.0, None, None)
    assert o1["scorer_version"] == SCORER_VERSION
    assert w["correct@0"] is None and o1["n_rubric_items"] is None
    assert rows["u"]["benchmark"] is None and rows["u"]["fraction"] is None


def test_officeqa_prediction_falls_back_to_a_written_answer_file() -> None:
    first = DeliverableFile("a/output.txt", content="1", origin="write_tool")
    last = DeliverableFile("b/output.txt", content="2", origin="write_tool")
    other = DeliverableFile("notes.txt", content="3", origin="output_dir")
    t = oqa_run("o", "2", Deliverable(final_message="4", files=[first, last, other]))
    assert officeqa_prediction(t) == ("2", "file:b/output.txt")


def test_ungraded_rows_have_no_inputs() -> None:
    w = wb_run("w", "15", 0, 0)
    w.judgement = None
    t = tac_run("t", "x", 0, 0)
    t.judgement = None
    o = oqa_run("o", "", Deliverable(final_message="5"))
    frame = scores_frame([w, t, o])
    assert frame[["n_rubric_items", "total", "correct@0"]].isna().all().all()


# ---------------------------------------------------------------------------------------------------------
# aggregate on tiny frames with the answer known by hand


def frame_of(*trajectories: Trajectory) -> pd.DataFrame:
    return scores_frame(trajectories)


def one(result: pd.DataFrame, metric: str) -> dict:
    [row] = records(result[result["metric"] == metric])
    return row


def test_workspace_bench_metrics_are_averaged_over_runs() -> None:
    frame = frame_of(
        wb_run("a1", "t1", 3, 4, run="A"),
        wb_run("a2", "t2", 1, 4, run="A"),
        wb_run("b1", "t1", 2, 4, run="B"),
        wb_run("b2", "t2", 2, 2, run="B"),
    )
    result = aggregate(frame, by=["method"], n_boot=200)
    assert list(result.columns) == ["method", "benchmark", *AGGREGATE_COLUMNS]
    rate = one(result, "pass_rate")
    # run A: (3 + 1) / (4 + 4) = 0.5; run B: (2 + 2) / (4 + 2) = 2/3; mean 7/12 (pooled would be 8/14)
    assert rate["value"] == pytest.approx(7 / 12)
    assert (rate["n_tasks"], rate["n_runs"], rate["n_trajectories"], rate["n_ungraded"]) == (2, 2, 4, 0)
    completion = one(result, "tcr@70")
    # run A: t1 0.75 >= 0.7, t2 0.25 -> 1/2; run B: t1 0.5, t2 1.0 -> 1/2; mean 0.5
    assert completion["value"] == 0.5
    assert one(aggregate(frame, by=["method"], tcr_p=0.5, n_boot=10), "tcr@50")["value"] == 0.75
    assert rate["ci_low"] <= rate["value"] <= rate["ci_high"]


def test_theagentcompany_means() -> None:
    frame = frame_of(tac_run("1", "a", 2, 4), tac_run("2", "b", 4, 4), tac_run("3", "c", 0, 3))
    result = aggregate(frame, by=[], n_boot=100)
    # scores 0.5*2/4 + 0 = 0.25, 0.5 + 0.5 = 1.0, 0.0 -> mean 1.25/3; successes 0, 1, 0 -> 1/3
    assert one(result, "score")["value"] == pytest.approx(1.25 / 3)
    assert one(result, "success")["value"] == pytest.approx(1 / 3)
    assert one(result, "score")["scorer_version"] is None


def test_officeqa_accuracies() -> None:
    runs = [
        oqa_run("1", "100", Deliverable(final_message="100")),  # exact
        oqa_run("2", "100", Deliverable(final_message="100.5")),  # 0.5% off: only at 1%
        oqa_run("3", "100", Deliverable(final_message="110")),  # wrong
        oqa_run("4", "100", Deliverable(final_message="100 million")),  # one-sided unit: still 100
    ]
    for i, t in enumerate(runs):
        t.task_id = f"q{i}"
    result = aggregate(frame_of(*runs), by=["benchmark"], n_boot=100)
    # Acc@0%: 1, 0, 0, 1 -> 0.5; Acc@1%: 1, 1, 0, 1 -> 0.75
    assert one(result, "acc@0%")["value"] == 0.5
    assert one(result, "acc@1%")["value"] == 0.75
    assert one(result, "acc@1%")["scorer_version"] == SCORER_VERSION


def test_degenerate_ci_has_zero_width() -> None:
    frame = frame_of(*(wb_run(f"r{i}", f"t{i}", 3, 4, run=f"s{i % 2}") for i in range(6)))
    for row in records(aggregate(frame, by=[], n_boot=300)):
        # every task 3/4: pass rate 0.75 and TCR@70 1.0 in every resample
        assert row["ci_low"] == row["value"] == row["ci_high"], row["metric"]


def test_two_task_ci_spans_both_extremes() -> None:
    frame = frame_of(wb_run("a", "t1", 0, 1), wb_run("b", "t2", 1, 1))
    row = one(aggregate(frame, by=[], n_boot=1000, seed=3), "tcr@70")
    # resamples {t1,t1}, {t1,t2}, {t2,t2} with probabilities 1/4, 1/2, 1/4: TCR 0, 0.5, 1 -> the 2.5% and
    # 97.5% percentiles are 0 and 1 (each extreme has ~250 of the 1000 draws)
    assert (row["value"], row["ci_low"], row["ci_high"]) == (0.5, 0.0, 1.0)


def test_bootstrap_is_seeded_and_groups_are_independent() -> None:
    runs = [wb_run(f"{m}{i}", f"t{i}", i % 5, 4, method=m) for m in ("x", "y") for i in range(8)]
    frame = frame_of(*runs)
    first, again = aggregate(frame, by=["method"], seed=1), aggregate(frame, by=["method"], seed=1)
    pd.testing.assert_frame_equal(first, again)
    alone = aggregate(frame[frame["method"] == "y"], by=["method"], seed=1)
    pd.testing.assert_frame_equal(
        alone.reset_index(drop=True), first[first["method"] == "y"].reset_index(drop=True)
    )
    assert not np.array_equal(bootstrap_weights(8, 100, seed=1), bootstrap_weights(8, 100, seed=2))


def test_bootstrap_weights_are_task_counts() -> None:
    weights = bootstrap_weights(n_units=5, n_boot=7, seed=0)
    assert weights.shape == (7, 5)
    assert (weights.sum(axis=1) == 5).all()  # each resample draws 5 tasks


def test_percentile_interval_of_the_defined_replicates() -> None:
    from rtlab.analysis import percentile_interval

    boot = np.array([0.4, np.nan, 0.1, np.inf, 0.3, 0.2, -np.inf, 0.5])
    finite = [0.1, 0.2, 0.3, 0.4, 0.5]  # NaN and infinities left out
    low, high = np.percentile(finite, [50 * (1 - 0.9), 50 * (1 + 0.9)])
    assert percentile_interval(boot, 0.9) == (low, high) == pytest.approx((0.12, 0.48))
    assert percentile_interval(np.array([np.nan, np.inf]), 0.95) is None
    assert percentile_interval(np.array([]), 0.95) is None


def test_ungraded_and_unknown_rows() -> None:
    ungraded = wb_run("u", "t9", 0, 0)
    ungraded.judgement = None
    stray = Trajectory(id="s", format="x", source_path="-")
    result = aggregate(frame_of(wb_run("g", "t1", 1, 2), ungraded, stray), by=["benchmark"], n_boot=50)
    assert sorted(result["metric"]) == ["pass_rate", "tcr@70"]  # the row of no benchmark is dropped
    assert one(result, "pass_rate")["n_ungraded"] == 1
    nothing = aggregate(frame_of(ungraded), by=["benchmark"], n_boot=50)
    assert one(nothing, "pass_rate")["value"] is None and one(nothing, "pass_rate")["n_tasks"] == 0


# ---------------------------------------------------------------------------------------------------------
# Real runs


def test_real_workspace_bench_by_method(real: Path) -> None:
    frame = scores_frame(ingest([real / WB_RUNS]).trajectories)
    assert len(frame) == 15
    result = aggregate(frame, by=["method"], n_boot=200)
    rates = {r["method"]: r["value"] for r in records(result[result["metric"] == "pass_rate"])}
    # passed per arm over tasks 15 / 44 / 95 (16 + 16 + 12 = 44 rubrics each)
    assert rates == pytest.approx(
        {"plain": 19 / 44, "cloud": 15 / 44, "gfs_off": 3 / 44, "gfs_on": 4 / 44, "nokg": 2 / 44}
    )
    tcrs = {r["method"]: r["value"] for r in records(result[result["metric"] == "tcr@70"])}
    assert tcrs == {"plain": 1 / 3, "cloud": 1 / 3, "gfs_off": 0.0, "gfs_on": 0.0, "nokg": 0.0}
    overall = aggregate(frame, by=["benchmark"], n_boot=200)
    assert one(overall, "pass_rate")["value"] == pytest.approx(43 / 220)
    assert one(overall, "tcr@70")["value"] == pytest.approx(2 / 15)


def test_real_officeqa_accuracy(real: Path) -> None:
    frame = scores_frame(ingest([real / G2B]).trajectories)
    assert len(frame) == 32 and (frame["answer_source"] == "file:output.txt").all()
    assert (frame["correct@0"].sum(), frame["correct@1"].sum()) == (9, 14)
    # the runs' own assessments, read with plain json: no disagreement (see test_officeqa_scorer)
    theirs = {}
    for folder in (real / G2B).iterdir():
        if folder.is_dir():
            details = json.loads((folder / "assessment_r0.json").read_text())["details"]
            theirs[f"g2b:{folder.name}"] = (details["acc_exact"], details["acc_1pct"])
    ours = {r["trajectory"]: (r["correct@0"], r["correct@1"]) for r in records(frame)}
    assert ours == theirs
    # averaged over the run labels '' (4 runs without one), s0 (5), s1 (4), s2 (3), s3 (8), s4 (8):
    # Acc@0%: (2/4 + 1/5 + 0/4 + 1/3 + 1/8 + 4/8) / 6 = 0.27639; Acc@1%: (2/4 + 2/5 + 2/4 + 2/3 + 1/8 + 5/8) / 6
    result = aggregate(frame, by=["benchmark"], n_boot=200)
    assert one(result, "acc@0%")["value"] == pytest.approx((2 / 4 + 1 / 5 + 0 + 1 / 3 + 1 / 8 + 4 / 8) / 6)
    assert one(result, "acc@1%")["value"] == pytest.approx(
        (2 / 4 + 2 / 5 + 2 / 4 + 2 / 3 + 1 / 8 + 5 / 8) / 6
    )
    assert (one(result, "acc@0%")["n_tasks"], one(result, "acc@0%")["n_runs"]) == (20, 6)


def test_real_theagentcompany_runs_are_ungraded(real: Path) -> None:
    frame = scores_frame(ingest([real / "theagentcompany/openhands-trajectories"]).trajectories)
    assert len(frame) == 8 and frame["total"].isna().all()  # no eval_*.json beside these trajectories
    result = aggregate(frame, by=["benchmark"], n_boot=10)
    assert one(result, "success")["n_ungraded"] == 8 and one(result, "success")["value"] is None


def test_records_are_json_ready() -> None:
    frame = frame_of(
        wb_run("w", "t1", 1, 2), tac_run("t", "x", 1, 1), Trajectory(id="u", format="x", source_path="-")
    )
    rows = json.loads(json.dumps(records(frame)))
    assert [r["trajectory"] for r in rows] == ["w", "t", "u"]
    assert rows[1]["success"] is True and rows[0]["success"] is None
    summary = json.loads(json.dumps(records(aggregate(frame, n_boot=20))))
    assert {(r["benchmark"], r["metric"]) for r in summary} == {
        ("workspace-bench", "pass_rate"),
        ("workspace-bench", "tcr@70"),
        ("theagentcompany", "success"),
        ("theagentcompany", "score"),
    }

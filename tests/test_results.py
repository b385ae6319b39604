"""Result tables on hand-made scores: main results, ablations with paired bootstrap CIs, Shown-but-Missing
success. Every expected number is worked out by hand in the comments."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from rtlab.analysis._metrics import LABELS, SCORE_COLUMNS, scores_frame
from rtlab.analysis._results import (
    ABLATION_COLUMNS,
    ITEM_COLUMNS,
    METHOD_ORDER,
    SBM_COLUMNS,
    ablation_table,
    arm_label,
    item_outcomes,
    main_results,
    paired_difference,
    results_table,
    shown_but_missing_success,
)
from rtlab.records import ItemResult, Judgement, Trajectory

WB = "workspace-bench"


def wb_row(task: str, run: str, passed: int, items: int = 10, **labels: object) -> dict[str, object]:
    """One scores_frame row of a Workspace-Bench trajectory."""
    row = {c: None for c in SCORE_COLUMNS}
    method, variant, model = (
        labels.get("method", "RunningTab"),
        labels.get("variant"),
        labels.get("model", "m"),
    )
    row.update(
        trajectory=f"{model}/{method}/{variant}/{task}/{run}",
        benchmark=WB,
        task_id=task,
        model=model,
        method=method,
        variant=variant,
        run=run,
        n_rubric_items=items,
        n_passed=passed,
        fraction=passed / items,
    )
    return row


def frame(*rows: dict[str, object]) -> pd.DataFrame:
    return pd.DataFrame(list(rows), columns=list(SCORE_COLUMNS))


# full RunningTab: t1 r1 8/10, t1 r2 6/10, t2 r1 4/10, t2 r2 4/10
FULL = [wb_row("t1", "1", 8), wb_row("t1", "2", 6), wb_row("t2", "1", 4), wb_row("t2", "2", 4)]
# no-review: t1 6, 6; t2 4, 0
NO_REVIEW = [
    wb_row("t1", "1", 6, variant="no-review"),
    wb_row("t1", "2", 6, variant="no-review"),
    wb_row("t2", "1", 4, variant="no-review"),
    wb_row("t2", "2", 0, variant="no-review"),
]


def by_arm(table: pd.DataFrame, metric: str) -> pd.DataFrame:
    return table[table["metric"] == metric].set_index("arm")


# ---------------------------------------------------------------------------------------------------------
# Paired differences and ablations


def test_paired_drop_and_ci_by_hand() -> None:
    full, abl = frame(*FULL), frame(*NO_REVIEW)
    diff = paired_difference(full, abl, benchmark=WB, n_boot=400, seed=1).set_index("metric")
    # pass rate full: run 1 (8 + 4) / 20 = .6, run 2 (6 + 4) / 20 = .5 -> .55; no-review: run 1 10/20 = .5,
    # run 2 6/20 = .3 -> .4; drop .15
    assert diff.loc["pass_rate", "difference"] == pytest.approx(0.15)
    # resamples of the 2 tasks: {t1, t1} -> full (.8 + .6) / 2 = .7, no-review .6, drop .1 (p = 1/4);
    # {t2, t2} -> .4 vs (.4 + 0) / 2 = .2, drop .2 (p = 1/4); one of each -> .15 (p = 1/2). With 400 draws
    # both extremes hold far more than 2.5% of them, so the percentile interval is exactly [.1, .2].
    assert diff.loc["pass_rate", "ci_low"] == pytest.approx(0.1)
    assert diff.loc["pass_rate", "ci_high"] == pytest.approx(0.2)
    # TCR@70: full run 1: t1 .8 yes, t2 no -> .5; run 2: none -> 0; mean .25. no-review: none reaches .7 -> 0.
    # {t1, t1}: full (1 + 0) / 2 = .5 -> drop .5; {t2, t2}: 0; mixed .25 -> CI [0, .5]
    assert diff.loc["tcr@70", "difference"] == pytest.approx(0.25)
    assert (diff.loc["tcr@70", "ci_low"], diff.loc["tcr@70", "ci_high"]) == pytest.approx((0.0, 0.5))
    assert (diff["n_paired_tasks"] == 2).all()


def test_identical_arms_give_a_zero_width_ci_at_zero() -> None:
    same = frame(*[{**r, "variant": "no-capture"} for r in FULL])
    diff = paired_difference(frame(*FULL), same, benchmark=WB, n_boot=50, seed=0)
    # every resample draws the same task ids for both arms, so every resampled difference is 0
    assert (diff[["difference", "ci_low", "ci_high"]] == 0).all().all()


def test_ablation_table_rows_and_drops() -> None:
    dci = [wb_row(t, r, 3, method="DCI") for t in ("t1", "t2") for r in ("1", "2")]
    table = ablation_table(frame(*FULL, *NO_REVIEW, *dci), n_boot=200, seed=0)
    assert list(table.columns) == list(ABLATION_COLUMNS)
    assert list(table["arm"].unique()) == ["full", "no-review", "DCI"]
    assert list(table["role"].unique()) == ["full", "ablation", "baseline"]
    pr = by_arm(table, "pass_rate")
    # the arm's own value is aggregate's: .55, .40, DCI 12/40 = .3 in both runs
    assert pr["value"].tolist() == pytest.approx([0.55, 0.40, 0.30])
    assert (
        pr.loc["full", "drop"] == 0 and pr.loc["full", "drop_ci_low"] == pr.loc["full", "drop_ci_high"] == 0
    )
    assert pr.loc["no-review", "drop"] == pytest.approx(0.15)
    # DCI: the drop from RunningTab to no tab at all = .55 - .3 = .25
    assert pr.loc["DCI", "drop"] == pytest.approx(0.25)
    assert pr.loc["no-review", "variant"] == "no-review" and pr.loc["DCI", "variant"] is None
    assert (table["n_tasks"] == 2).all() and (table["n_runs"] == 2).all()


def test_ablation_uses_the_task_intersection() -> None:
    # t3 only in the full arm (10/10 in both runs): the full arm's own value keeps it,
    # run 1 (8 + 4 + 10) / 30, run 2 (6 + 4 + 10) / 30 -> (22 + 20) / 60 = .7
    extra = [wb_row("t3", "1", 10), wb_row("t3", "2", 10)]
    table = ablation_table(frame(*FULL, *extra, *NO_REVIEW), n_boot=100, seed=0)
    pr = by_arm(table, "pass_rate")
    assert pr.loc["full", "value"] == pytest.approx(0.7) and pr.loc["full", "n_tasks"] == 3
    # but the drop is on t1 and t2 only: .15, not .7 - .4 = .3
    assert pr.loc["no-review", "drop"] == pytest.approx(0.15)
    assert pr.loc["no-review", "n_paired_tasks"] == 2 and pr.loc["full", "n_paired_tasks"] == 3


def test_ablation_undefined_cases() -> None:
    # no baseline runs: no baseline row, the ablations are still there
    table = ablation_table(frame(*FULL, *NO_REVIEW), n_boot=20)
    assert "baseline" not in set(table["role"])
    # no task in common: NaN drop, 0 paired tasks
    other = [{**r, "task_id": "t9"} for r in NO_REVIEW]
    pr = by_arm(ablation_table(frame(*FULL, *other), n_boot=20), "pass_rate")
    assert math.isnan(pr.loc["no-review", "drop"]) and pr.loc["no-review", "n_paired_tasks"] == 0
    assert math.isnan(pr.loc["no-review", "drop_ci_low"])
    # one task: nothing to resample, the CI collapses to the point: t1 full .7 vs no-review .6
    one = ablation_table(frame(*FULL[:2], *NO_REVIEW[:2]), n_boot=20)
    row = by_arm(one, "pass_rate").loc["no-review"]
    assert (row["drop"], row["drop_ci_low"], row["drop_ci_high"]) == pytest.approx((0.1, 0.1, 0.1))
    # only ablation runs, no full method: nothing to ablate from
    assert ablation_table(frame(*NO_REVIEW), n_boot=20).empty
    # empty input: empty frame with the columns
    empty = ablation_table(frame(), n_boot=20)
    assert empty.empty and list(empty.columns) == list(ABLATION_COLUMNS)


# ---------------------------------------------------------------------------------------------------------
# Main results


def test_main_results_order_and_values() -> None:
    rows = [
        *FULL,
        *NO_REVIEW,
        *(
            wb_row(t, "1", 5, method=m)
            for m in ("TODO", "DCI", "Self-Tracking", "Self-Refine")
            for t in ("t1",)
        ),
    ]
    agg = main_results(frame(*rows), n_boot=50)
    pr = agg[agg["metric"] == "pass_rate"]
    # paper order; the ablation left out unless variants=True
    assert pr["method"].tolist() == list(METHOD_ORDER)
    assert pr.set_index("method").loc["RunningTab", "value"] == pytest.approx(0.55)
    assert agg["metric"].tolist()[:2] == ["pass_rate", "tcr@70"]
    with_variants = main_results(frame(*rows), variants=True, methods=["RunningTab"], n_boot=50)
    assert [arm_label(m, v) for m, v in zip(with_variants["method"], with_variants["variant"], strict=True)][
        ::2
    ] == ["RunningTab", "RunningTab (no-review)"]
    empty = main_results(frame(), n_boot=10)
    assert empty.empty and {"value", "ci_low", "ci_high", "method"} <= set(empty.columns)


def test_results_table_wide() -> None:
    agg = main_results(frame(*FULL, *(wb_row(t, "1", 2, method="DCI") for t in ("t1", "t2"))), n_boot=50)
    text = results_table(agg)
    assert text.index.tolist() == [("m", "DCI"), ("m", "RunningTab")]
    assert text.columns.tolist() == [(WB, "pass_rate"), (WB, "tcr@70")]
    # DCI: 4/20 = .2 in its one run, both resampled tasks give .2 -> "20.00 [20.00, 20.00]"
    assert text.loc[("m", "DCI"), (WB, "pass_rate")] == "20.00 [20.00, 20.00]"
    assert text.loc[("m", "RunningTab"), (WB, "pass_rate")].startswith("55.00 [")
    numeric = results_table(agg, numeric=True, scale=1)
    assert numeric.loc[("m", "RunningTab"), (WB, "pass_rate", "value")] == pytest.approx(0.55)
    assert results_table(agg.iloc[:0]).empty


def test_results_table_orders_across_benchmarks() -> None:
    # DCI ran only TheAgentCompany, RunningTab and its ablation only Workspace-Bench: rows still follow the
    # paper's method order (DCI first), columns the benchmarks' order (Workspace-Bench first)
    tac = {c: None for c in SCORE_COLUMNS}
    tac.update(trajectory="tac", benchmark="theagentcompany", task_id="a", model="m", method="DCI", run="1")
    tac.update(result=1.0, total=2.0, score=0.25, success=False)
    agg = main_results(frame(tac, *FULL, *NO_REVIEW), variants=True, n_boot=20)
    # rows by benchmark first; the main methods' variant is None, not NaN
    assert agg["variant"].tolist() == [None, None, "no-review", "no-review", None, None]
    table = results_table(agg)
    assert table.index.tolist() == [("m", "DCI"), ("m", "RunningTab"), ("m", "RunningTab (no-review)")]
    assert [b for b, _ in table.columns] == [WB, WB, "theagentcompany", "theagentcompany"]
    # TheAgentCompany score 0.25 -> 25.00; cells a method has no result for are empty
    assert table.loc[("m", "DCI"), ("theagentcompany", "score")] == "25.00 [25.00, 25.00]"
    assert table.loc[("m", "DCI"), (WB, "pass_rate")] == ""


# ---------------------------------------------------------------------------------------------------------
# Item outcomes and Shown but Missing


def traj(tid: str, method: str, task: str, run: str, passed: list[bool]) -> Trajectory:
    return Trajectory(
        id=tid,
        format="hand",
        source_path="-",
        benchmark=WB,
        task_id=task,
        model="m",
        method=method,
        run=run,
        judgement=Judgement(items=[ItemResult(index=i, passed=p) for i, p in enumerate(passed)]),
    )


def test_item_outcomes() -> None:
    ts = [traj("a", "DCI", "t1", "1", [True, False]), Trajectory(id="b", format="hand", source_path="-")]
    items = item_outcomes(ts)
    assert list(items.columns) == list(ITEM_COLUMNS) and tuple(items.columns[1:7]) == LABELS
    assert items[["trajectory", "rubric_index", "passed"]].values.tolist() == [
        ["a", 0, True],
        ["a", 1, False],
    ]
    assert item_outcomes([]).empty and list(item_outcomes([]).columns) == list(ITEM_COLUMNS)
    # consistent with scores_frame's counts
    assert scores_frame(ts).set_index("trajectory").loc["a", "n_passed"] == items["passed"].sum()


def labels_frame(rows: list[tuple[str, str, str, str, int, str]]) -> pd.DataFrame:
    cols = [
        "trajectory",
        "method",
        "variant",
        "task_id",
        "run",
        "rubric_index",
        "category",
        "benchmark",
        "model",
    ]
    return pd.DataFrame(
        [(t, m, None, task, run, i, c, WB, "m") for t, m, task, run, i, c in rows], columns=cols
    )


def test_shown_but_missing_success_by_hand() -> None:
    ts = [
        # DCI: t1 item 0 failed in run 1 (labelled SBM), passed in run 2; t1 item 1 failed (discovery);
        # t2 item 0 failed in both runs, labelled SBM in run 2 only
        traj("d1", "DCI", "t1", "1", [False, False]),
        traj("d2", "DCI", "t1", "2", [True, False]),
        traj("d3", "DCI", "t2", "1", [False]),
        traj("d4", "DCI", "t2", "2", [False]),
        # RunningTab: passes t1/0 in both runs, t2/0 in run 1 only; t1/1 (not in S) always
        traj("r1", "RunningTab", "t1", "1", [True, True]),
        traj("r2", "RunningTab", "t1", "2", [True, True]),
        traj("r3", "RunningTab", "t2", "1", [True]),
        traj("r4", "RunningTab", "t2", "2", [False]),
    ]
    labels = labels_frame(
        [
            ("d1", "DCI", "t1", "1", 0, "shown_but_missing"),
            ("d1", "DCI", "t1", "1", 1, "discovery"),
            ("d2", "DCI", "t1", "2", 1, "discovery"),
            ("d3", "DCI", "t2", "1", 0, "dropped_or_distorted"),
            ("d4", "DCI", "t2", "2", 0, "shown_but_missing"),
            # a RunningTab label never defines S
            ("r4", "RunningTab", "t2", "2", 0, "shown_but_missing"),
        ]
    )
    result = shown_but_missing_success(labels, item_outcomes(ts))
    assert list(result.columns) == ["benchmark", "model", *SBM_COLUMNS]
    out = result.set_index("arm")
    # S = {t1/0, t2/0}; RunningTab passes 3 of its 4 outcomes on S; DCI 1 of 4 (t1/0 in run 2)
    assert out.loc["method", ["n_items", "n_outcomes", "n_passed"]].tolist() == [2, 4, 3]
    assert out.loc["method", "success"] == 0.75 and out.loc["baseline", "success"] == 0.25
    overall = shown_but_missing_success(labels, item_outcomes(ts), by=())
    assert overall["success"].tolist() == [0.75, 0.25]
    # no Shown-but-Missing label of the baseline: empty, with the columns
    none = shown_but_missing_success(labels[labels["category"] != "shown_but_missing"], item_outcomes(ts))
    assert none.empty and list(none.columns) == ["benchmark", "model", *SBM_COLUMNS]
    # the method never ran those tasks: its success is undefined
    only_dci = shown_but_missing_success(labels, item_outcomes(ts[:4])).set_index("arm")
    assert math.isnan(only_dci.loc["method", "success"]) and only_dci.loc["method", "n_outcomes"] == 0
    with pytest.raises(ValueError, match="by must"):
        shown_but_missing_success(labels, item_outcomes(ts), by=["run"])


def test_the_arms_are_named_once() -> None:
    from rtlab.analysis import BASELINE, TAB_METHOD, VARIANT_ORDER, is_main_run, main_mask, main_runs

    assert (BASELINE, TAB_METHOD) == ("DCI", "RunningTab")
    assert METHOD_ORDER[0] == BASELINE and METHOD_ORDER[-1] == TAB_METHOD and "full" not in VARIANT_ORDER
    plain = traj("d", BASELINE, "t1", "1", [False])
    unjudged = Trajectory(id="u", format="hand", source_path="-", method=BASELINE)
    ablated = traj("r2", TAB_METHOD, "t1", "1", [True])
    ablated.variant = "no-review"
    runs = [plain, unjudged, traj("r", TAB_METHOD, "t1", "1", [True]), ablated]
    assert [t.id for t in main_runs(runs, BASELINE)] == ["d", "u"]
    assert [t.id for t in main_runs(runs, BASELINE, judged=True)] == ["d"]
    assert [t.id for t in main_runs(runs, TAB_METHOD)] == ["r"] and not is_main_run(ablated, TAB_METHOD)
    # the table form picks the same runs
    scores = frame(
        wb_row("t1", "1", 3, method=BASELINE), wb_row("t1", "1", 5), wb_row("t1", "1", 4, variant="no-review")
    )
    for method in (BASELINE, TAB_METHOD):
        assert main_mask(scores, method).tolist() == [
            m == method and pd.isna(v) for m, v in zip(scores["method"], scores["variant"], strict=True)
        ]

"""Reading-volume thirds and per-third gains on hand-made scores and volumes (worked out in the comments)."""

from __future__ import annotations

import math

import pandas as pd
import pytest
from test_results import frame, wb_row

from rtlab.analysis import (
    GAIN_COLUMNS,
    TERCILE_COLUMNS,
    gain_by_tercile,
    reading_terciles,
    tercile_sizes,
)


def volumes(scores: pd.DataFrame, chars: list[float]) -> pd.DataFrame:
    return pd.DataFrame({"trajectory": scores["trajectory"], "excerpt_chars": chars})


def dci_tasks(volume_by_task: dict[str, float], model: str = "m") -> tuple[pd.DataFrame, pd.DataFrame]:
    """One DCI run per task, reading ``volume`` characters."""
    scores = frame(*(wb_row(t, "1", 5, method="DCI", model=model) for t in volume_by_task))
    return scores, volumes(scores, list(volume_by_task.values()))


@pytest.mark.parametrize(
    ("n", "sizes"),
    [(9, (3, 3, 3)), (10, (3, 3, 4)), (11, (3, 4, 4)), (1, (0, 0, 1)), (2, (0, 1, 1)), (0, (0, 0, 0))],
)
def test_tercile_sizes(n: int, sizes: tuple[int, int, int]) -> None:
    # the remainder goes to the heaviest third first, then the middle one; the lightest gets it last
    assert tercile_sizes(n) == sizes


@pytest.mark.parametrize("n", [9, 10, 11])
def test_thirds_by_rank_with_ties_by_task_id(n: int) -> None:
    # volumes 100, 200, ... except t03 and t02 tie at 150: ranked by (volume, task id), t02 before t03
    vol = {f"t{k:02d}": 100.0 * k for k in range(n)}
    vol["t02"] = vol["t03"] = 150.0
    scores, volume = dci_tasks(vol)
    out = reading_terciles(scores, volume)
    assert list(out.columns) == ["benchmark", "model", *TERCILE_COLUMNS]
    assert out["task_id"].tolist()[:4] == ["t00", "t01", "t02", "t03"]
    assert out["rank"].tolist() == list(range(1, n + 1))
    assert tuple(out["tercile"].value_counts().sort_index()) == tercile_sizes(n)
    # the thirds are contiguous in rank: the lightest third holds the lowest volumes
    assert out.groupby("tercile")["volume"].max().is_monotonic_increasing
    # 10 tasks: t00-t02 | t03-t05 | t06-t09 (the tie splits t02 and t03 across the first two thirds)
    if n == 10:
        assert out.set_index("task_id")["tercile"].to_dict() == {
            **dict.fromkeys(["t00", "t01", "t02"], 1),
            **dict.fromkeys(["t03", "t04", "t05"], 2),
            **dict.fromkeys(["t06", "t07", "t08", "t09"], 3),
        }


def test_volume_is_the_mean_over_basis_runs() -> None:
    scores = frame(
        wb_row("a", "1", 5, method="DCI"),
        wb_row("a", "2", 5, method="DCI"),
        wb_row("a", "1", 5, method="RunningTab"),
        wb_row("b", "1", 5, method="DCI"),
        wb_row("b", "2", 5, method="DCI"),
    )
    # a: DCI 100 and 300 -> 200 (RunningTab's 1000 ignored); b: DCI 250 and NaN (no volume) -> 250
    volume = volumes(scores, [100, 300, 1000, 250, math.nan])
    out = reading_terciles(scores, volume).set_index("task_id")
    assert out.loc["a", "volume"] == 200 and out.loc["a", "n_trajectories"] == 2
    assert out.loc["b", "volume"] == 250 and out.loc["b", "n_trajectories"] == 1
    # 2 tasks: sizes (0, 1, 1): a middle, b heaviest
    assert out["tercile"].to_dict() == {"a": 2, "b": 3}
    # basis=None: every run; a = (100 + 300 + 1000) / 3 = 466.7 > b
    every = reading_terciles(scores, volume, basis=None).set_index("task_id")
    assert every.loc["a", "volume"] == pytest.approx(1400 / 3) and every["tercile"].to_dict() == {
        "b": 2,
        "a": 3,
    }
    # no basis run at all: empty, with the columns
    none = reading_terciles(scores, volume, basis="TODO")
    assert none.empty and list(none.columns) == ["benchmark", "model", *TERCILE_COLUMNS]


def test_thirds_are_per_model() -> None:
    s1, v1 = dci_tasks({"a": 1, "b": 2, "c": 3}, model="m1")
    s2, v2 = dci_tasks({"a": 3, "b": 2, "c": 1}, model="m2")
    out = reading_terciles(pd.concat([s1, s2]), pd.concat([v1, v2]))
    thirds = out.set_index(["model", "task_id"])["tercile"]
    # each model's own reading decides: a is lightest for m1, heaviest for m2
    assert thirds[("m1", "a")] == 1 and thirds[("m2", "a")] == 3


def test_gain_by_tercile_by_hand() -> None:
    # 6 tasks, two per third; DCI reads t1 < t2 < ... < t6. One run each, 10 rubric items.
    tasks = ["t1", "t2", "t3", "t4", "t5", "t6"]
    dci_passed = [8, 6, 5, 5, 2, 2]  # DCI degrades with reading
    rt_passed = [8, 7, 6, 7, 5, 6]
    scores = frame(
        *(wb_row(t, "1", p, method="DCI") for t, p in zip(tasks, dci_passed, strict=True)),
        *(wb_row(t, "1", p, method="RunningTab") for t, p in zip(tasks, rt_passed, strict=True)),
        wb_row("t1", "1", 10, method="RunningTab", variant="no-review"),  # ablations are not main methods
    )
    volume = volumes(scores, [100, 200, 300, 400, 500, 600, 0, 0, 0, 0, 0, 0, 0])
    thirds = reading_terciles(scores, volume)
    out = gain_by_tercile(scores, thirds, n_boot=200, seed=0)
    assert list(out.columns) == ["benchmark", "model", *GAIN_COLUMNS]
    pr = out[out["metric"] == "pass_rate"].set_index(["method", "tercile"])
    assert pr.index.tolist() == [
        ("DCI", 1),
        ("DCI", 2),
        ("DCI", 3),
        ("RunningTab", 1),
        ("RunningTab", 2),
        ("RunningTab", 3),
    ]
    # pass rates per third: DCI (8+6)/20 = .7, (5+5)/20 = .5, (2+2)/20 = .2; RunningTab .75, .65, .55
    assert pr["value"].tolist() == pytest.approx([0.7, 0.5, 0.2, 0.75, 0.65, 0.55])
    # gains .05, .15, .35; DCI's own gain is 0 with a 0-width CI
    assert pr.loc["RunningTab", "gain"].tolist() == pytest.approx([0.05, 0.15, 0.35])
    assert (pr.loc["DCI", ["gain", "gain_ci_low", "gain_ci_high"]] == 0).all().all()
    # heaviest third: per-task gains t5 .3, t6 .4 -> resamples give .3, .35, .4: CI [.3, .4]
    assert (
        pr.loc[("RunningTab", 3), "gain_ci_low"],
        pr.loc[("RunningTab", 3), "gain_ci_high"],
    ) == pytest.approx((0.3, 0.4))
    # DCI's drop from the lightest to the heaviest third: .7 - .2 = .5 (on every DCI row)
    assert pr.loc["DCI", "light_minus_heavy"].tolist() == pytest.approx([0.5, 0.5, 0.5])
    assert pr.loc[("RunningTab", 1), "light_minus_heavy"] == pytest.approx(0.2)
    # TCR@70 (fraction >= .7): DCI t1 only (.8) -> .5, 0, 0; RunningTab t1 .8, t2 .7 | t4 .7 -> 1, .5, 0
    tcr = out[out["metric"] == "tcr@70"].set_index(["method", "tercile"])["value"]
    assert tcr.tolist() == pytest.approx([0.5, 0, 0, 1, 0.5, 0])


def test_gain_undefined_cases() -> None:
    scores, volume = dci_tasks({"a": 1, "b": 2, "c": 3})
    rt = frame(wb_row("c", "1", 9, method="RunningTab"))
    both = pd.concat([scores, rt], ignore_index=True)
    thirds = reading_terciles(both, pd.concat([volume, volumes(rt, [0])]))
    out = gain_by_tercile(both, thirds, n_boot=20).set_index(["method", "tercile", "metric"])
    # RunningTab ran only the heaviest task: .9 - .5 = .4 there; a single task -> a 0-width CI at the point
    row = out.loc[("RunningTab", 3, "pass_rate")]
    assert (row["gain"], row["gain_ci_low"], row["gain_ci_high"]) == pytest.approx((0.4, 0.4, 0.4))
    assert ("RunningTab", 1, "pass_rate") not in out.index
    # RunningTab's lightest third is missing: its light-minus-heavy difference is undefined
    assert math.isnan(row["light_minus_heavy"])
    # no baseline runs in the thirds: the gain is NaN
    no_base = gain_by_tercile(rt, thirds, n_boot=20)
    assert no_base["gain"].isna().all() and no_base["n_paired_tasks"].eq(0).all()
    # tasks without a third are left out; nothing left: empty with the columns
    empty = gain_by_tercile(both, thirds.iloc[:0], n_boot=20)
    assert empty.empty and list(empty.columns) == ["benchmark", "model", *GAIN_COLUMNS]


def test_runs_without_a_model_label() -> None:
    # every model label missing (read back as floats by pandas): thirds and gains still line up, model None
    scores, volume = dci_tasks({"a": 1, "b": 2, "c": 3})
    rt = frame(*(wb_row(t, "1", 7, method="RunningTab") for t in "abc"))
    both = pd.concat([scores, rt], ignore_index=True).assign(model=None)
    thirds = reading_terciles(both, pd.concat([volume, volumes(rt, [0, 0, 0])]))
    assert thirds["model"].tolist() == [None, None, None]
    out = gain_by_tercile(both, thirds, n_boot=10)
    # DCI passes 5/10 everywhere, RunningTab 7/10: a gain of .2 in each third
    gains = out[(out["method"] == "RunningTab") & (out["metric"] == "pass_rate")]["gain"]
    assert gains.tolist() == pytest.approx([0.2, 0.2, 0.2])

"""Benchmark outcomes: per-trajectory metric inputs and the official metrics per group, with bootstrap CIs.

:func:`scores_frame` turns trajectories (joined with their benchmark) into one row of metric inputs each;
:func:`aggregate` computes each benchmark's official metrics per group, averaged over runs, with a bootstrap
95% confidence interval over tasks. The metric rules themselves live with their benchmarks:
Workspace-Bench's pass rate and TCR@p in :mod:`rtlab.ingest.benchmarks.workspace_bench`, TheAgentCompany's score
and success in :mod:`rtlab.ingest.benchmarks.theagentcompany`, OfficeQA's scorer in
:mod:`rtlab.ingest.benchmarks.officeqa_scorer`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import PurePath
from typing import TYPE_CHECKING, Any

import numpy as np

from rtlab.analysis._bootstrap import bootstrap_weights, percentile_interval
from rtlab.ingest.benchmarks import officeqa_scorer, theagentcompany, workspace_bench
from rtlab.records import Trajectory

if TYPE_CHECKING:
    import pandas as pd

WB, TAC, OQA = workspace_bench.NAME, theagentcompany.NAME, "officeqa"
LABELS = ("benchmark", "task_id", "model", "method", "variant", "run")
INPUTS = {
    WB: ("n_rubric_items", "n_passed", "fraction"),
    TAC: ("result", "total", "score", "success"),
    OQA: ("correct@0", "correct@1", "prediction", "answer_source", "scorer_version"),
}
SCORE_COLUMNS = ("trajectory", "source_path", *LABELS, *(c for cols in INPUTS.values() for c in cols))
DEFAULT_BY = ("benchmark", "model", "method", "variant")
AGGREGATE_COLUMNS = (
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "n_tasks",
    "n_runs",
    "n_trajectories",
    "n_ungraded",
    "scorer_version",
)
NO_RUN = ""
"""The run label of trajectories without one: all of them form a single run."""


# ---------------------------------------------------------------------------------------------------------
# Per-trajectory inputs


def officeqa_prediction(t: Trajectory) -> tuple[str | None, str | None]:
    """The answer an OfficeQA run handed in, and where it came from.

    The task's answer file (``expected_outputs``, ``output.txt`` by default) as found in the run's folder,
    else as last written by a write tool, else the final message; ``(None, None)`` when there is none.
    """
    names = set(t.task.expected_outputs) if t.task and t.task.expected_outputs else {"output.txt"}
    files = [f for f in t.deliverable.files if PurePath(f.path).name in names and f.content is not None]
    on_disk = [f for f in files if f.origin == "output_dir"]
    chosen = on_disk[0] if on_disk else (files[-1] if files else None)
    if chosen is not None:
        return chosen.content, f"file:{chosen.path}"
    if t.deliverable.final_message is not None:
        return t.deliverable.final_message, "final_message"
    return None, None


def _workspace_bench_inputs(t: Trajectory) -> dict[str, Any]:
    if t.judgement is None:
        return {}
    n, passed = len(t.judgement.items), t.judgement.n_passed
    return {"n_rubric_items": n, "n_passed": passed, "fraction": passed / n if n else math.nan}


def _theagentcompany_inputs(t: Trajectory) -> dict[str, Any]:
    """Result and total from the grader's ``final_score``, else the sum over its checkpoints."""
    if t.judgement is None:
        return {}
    final = t.judgement.summary
    if isinstance(final.get("result"), int | float) and isinstance(final.get("total"), int | float):
        result, total = float(final["result"]), float(final["total"])
    elif t.task is not None and len(t.task.rubric) == len(t.judgement.items):
        result = float(sum(it.score or 0.0 for it in t.judgement.items))
        total = float(sum(item.points for item in t.task.rubric))
    else:
        return {}
    return {
        "result": result,
        "total": total,
        "score": theagentcompany.score(result, total),
        "success": theagentcompany.success(result, total),
    }


def _officeqa_inputs(t: Trajectory) -> dict[str, Any]:
    """Both accuracies by the official scorer; a run that handed in nothing scores 0 (an empty answer)."""
    if t.task is None or not t.task.answer:
        return {}
    prediction, source = officeqa_prediction(t)
    return {
        "correct@0": officeqa_scorer.score_answer(t.task.answer, prediction, 0.0),
        "correct@1": officeqa_scorer.score_answer(t.task.answer, prediction, 0.01),
        "prediction": prediction,
        "answer_source": source,
        "scorer_version": officeqa_scorer.SCORER_VERSION,
    }


_INPUTS_OF = {WB: _workspace_bench_inputs, TAC: _theagentcompany_inputs, OQA: _officeqa_inputs}


def score_record(t: Trajectory) -> dict[str, Any]:
    """One row of :func:`scores_frame`: labels, then the benchmark's inputs (missing ones absent)."""
    record: dict[str, Any] = {
        "trajectory": t.id,
        "source_path": t.source_path,
        **{label: getattr(t, label) for label in LABELS},
    }
    compute = _INPUTS_OF.get(t.benchmark or "")
    if compute is not None:
        record.update(compute(t))
    return record


def scores_frame(trajectories: Iterable[Trajectory]) -> pd.DataFrame:
    """One row per trajectory: labels and its benchmark's per-trajectory metric inputs (NaN/None where
    ungraded or of another benchmark). Columns: :data:`SCORE_COLUMNS`."""
    import pandas as pd

    return pd.DataFrame([score_record(t) for t in trajectories], columns=list(SCORE_COLUMNS))


# ---------------------------------------------------------------------------------------------------------
# Grouped official metrics


@dataclass(frozen=True)
class Ratio:
    """A metric computed per run as sum(numerator) / sum(denominator) over the run's trajectories."""

    name: str
    numerator: np.ndarray
    denominator: np.ndarray


def graded_mask(benchmark: str, frame: pd.DataFrame) -> pd.Series:
    """Rows that carry a grade for ``benchmark`` (a judgement, checkpoints or a reference answer)."""
    column = {WB: "n_rubric_items", TAC: "total", OQA: "correct@0"}[benchmark]
    return frame[column].notna()


def metric_ratios(benchmark: str, rows: pd.DataFrame, tcr_p: float) -> list[Ratio]:
    """The benchmark's official metrics as per-trajectory numerators and denominators."""
    ones = np.ones(len(rows))
    if benchmark == WB:
        passed = rows["n_passed"].to_numpy(float)
        items = rows["n_rubric_items"].to_numpy(float)
        done = [
            workspace_bench.task_completed(int(a), int(b), tcr_p) for a, b in zip(passed, items, strict=True)
        ]
        return [
            Ratio("pass_rate", passed, items),
            Ratio(f"tcr@{tcr_p * 100:g}", np.asarray(done, float), ones),
        ]
    if benchmark == TAC:
        return [
            Ratio("success", rows["success"].to_numpy(float), ones),
            Ratio("score", rows["score"].to_numpy(float), ones),
        ]
    return [
        Ratio("acc@0%", rows["correct@0"].to_numpy(float), ones),
        Ratio("acc@1%", rows["correct@1"].to_numpy(float), ones),
    ]


def task_run_sums(
    values: np.ndarray, task: np.ndarray, run: np.ndarray, shape: tuple[int, int]
) -> np.ndarray:
    """Sum of ``values`` per (task, run) cell."""
    out = np.zeros(shape)
    np.add.at(out, (task, run), values)
    return out


def mean_over_runs(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """Per-run ratio num/den (last axis = runs; NaN where a run has nothing), then the mean over runs."""
    with np.errstate(invalid="ignore", divide="ignore"):
        per_run = np.where(den > 0, num / np.where(den > 0, den, 1), np.nan)
    counted = np.isfinite(per_run)
    total = np.where(counted, per_run, 0).sum(axis=-1)
    n = counted.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(n > 0, total / np.where(n > 0, n, 1), np.nan)


def _estimate(
    ratio: Ratio, task: np.ndarray, run: np.ndarray, weights: np.ndarray, ci: float
) -> tuple[float, float, float]:
    """The run-averaged value and the bootstrap percentile interval of one metric."""
    shape = (int(task.max()) + 1, int(run.max()) + 1)
    num, den = (
        task_run_sums(ratio.numerator, task, run, shape),
        task_run_sums(ratio.denominator, task, run, shape),
    )
    value = float(mean_over_runs(num.sum(axis=0), den.sum(axis=0)))
    interval = percentile_interval(mean_over_runs(weights @ num, weights @ den), ci)
    low, high = interval if interval is not None else (math.nan, math.nan)
    return value, low, high


def _group_rows(
    benchmark: str, group: pd.DataFrame, *, n_boot: int, seed: int, tcr_p: float, ci: float
) -> list[dict[str, Any]]:
    import pandas as pd

    graded = group[graded_mask(benchmark, group)]
    task = pd.factorize(graded["task_id"].fillna(""))[0]
    run = pd.factorize(graded["run"].fillna(NO_RUN))[0]
    n_tasks, n_runs = (int(task.max()) + 1, int(run.max()) + 1) if len(graded) else (0, 0)
    weights = bootstrap_weights(n_tasks, n_boot, seed) if n_tasks else None
    counts = {
        "n_tasks": n_tasks,
        "n_runs": n_runs,
        "n_trajectories": len(graded),
        "n_ungraded": len(group) - len(graded),
        "scorer_version": officeqa_scorer.SCORER_VERSION if benchmark == OQA else None,
    }
    rows = []
    for ratio in metric_ratios(benchmark, graded, tcr_p):
        if weights is None:
            value = low = high = math.nan
        else:
            value, low, high = _estimate(ratio, task, run, weights, ci)
        rows.append({"metric": ratio.name, "value": value, "ci_low": low, "ci_high": high, **counts})
    return rows


def aggregate(
    frame: pd.DataFrame,
    by: Sequence[str] = DEFAULT_BY,
    *,
    n_boot: int = 1000,
    seed: int = 0,
    tcr_p: float = workspace_bench.TCR_P,
    ci: float = 0.95,
) -> pd.DataFrame:
    """Each benchmark's official metrics per group of :func:`scores_frame` rows, averaged over runs, with
    bootstrap CIs over tasks. One row per (group, metric); columns ``by`` (``benchmark`` added when absent)
    then :data:`AGGREGATE_COLUMNS`.

    Metrics: Workspace-Bench ``pass_rate`` and ``tcr@70`` (``tcr_p``), TheAgentCompany ``success`` and
    ``score`` (means over trajectories), OfficeQA ``acc@0%`` and ``acc@1%`` (with ``scorer_version``).
    Rows without grading (no judgement, no reference answer) are left out and counted in ``n_ungraded``;
    rows of no known benchmark are dropped.

    Procedure: within a group, each metric is computed per run (``run`` label; unlabelled rows form one run)
    as sum(numerator) / sum(denominator) over that run's trajectories (pass rate: passed / rubric items;
    the others: per-trajectory values / count), and the value is the mean of the per-run metrics. The CI
    resamples the group's distinct task ids with replacement ``n_boot`` times (every trajectory of a drawn
    task, in every run, enters as often as the task was drawn), recomputes the run-averaged metric for each
    resample (a run left with no trajectory drops out of that resample's mean), and takes the
    ``(1 - ci) / 2`` and ``(1 + ci) / 2`` percentiles (numpy's linear interpolation). Each (group, benchmark)
    draws from a fresh ``numpy.random.default_rng(seed)``, so a group's result does not depend on the others.
    """
    import pandas as pd

    keys = list(dict.fromkeys([*by, "benchmark"])) if "benchmark" not in by else list(by)
    known = frame[frame["benchmark"].isin(list(INPUTS))]
    out: list[dict[str, Any]] = []
    if len(known):
        for key, group in known.groupby(keys, dropna=False, sort=True):
            labels = dict(zip(keys, key if isinstance(key, tuple) else (key,), strict=True))
            labels = {k: (None if isinstance(v, float) and math.isnan(v) else v) for k, v in labels.items()}
            for row in _group_rows(labels["benchmark"], group, n_boot=n_boot, seed=seed, tcr_p=tcr_p, ci=ci):
                out.append({**labels, **row})
    return pd.DataFrame(out, columns=[*keys, *AGGREGATE_COLUMNS])


def _json_value(value: Any) -> Any:
    if isinstance(value, np.generic):
        value = value.item()
    if value is None or isinstance(value, str | bool | int):
        return value
    if isinstance(value, float):
        return None if math.isnan(value) else value
    import pandas as pd

    return None if value is pd.NA or value is pd.NaT else value


def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    """A frame's rows as JSON-ready dicts: NaN/NA become ``None``, numpy scalars become Python ones."""
    return [{k: _json_value(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]

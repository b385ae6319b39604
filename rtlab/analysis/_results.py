"""The paper's result tables: main results, ablations with paired bootstrap CIs, and Shown-but-Missing success.

Every number here comes from :func:`rtlab.analysis._metrics.aggregate` (per-run averaging, bootstrap over tasks) or, for
differences between two arms, from :func:`paired_difference`, which evaluates the same per-(task, run) sums
as ``aggregate`` on one shared bootstrap draw of task ids. Metrics are fractions (0-1); tables for display
scale them (:func:`results_table`).

Decisions:

- **Arms.** A main method is ``method`` with ``variant`` None; an ablation is RunningTab with a variant.
- **Paired drop.** The drop of an arm from the full method is computed on the tasks both arms have graded
  (the intersection); tasks present in only one arm are left out of the drop (``n_paired_tasks`` says how
  many remain), while an arm's own ``value`` keeps all its tasks, as in the main table. With the same tasks
  in both arms (the normal case) ``drop == value(full) - value(arm)``.
- **Paired CI.** ``n_boot`` resamples of the common task ids with replacement
  (:func:`rtlab.analysis._bootstrap.bootstrap_weights`, ``seed``); in each, both arms are recomputed exactly as
  ``aggregate`` does (sum per run over the drawn tasks' trajectories, ratio per run, mean over runs) and the
  difference taken; the CI is the percentile interval of those differences. Identical per-task outcomes in the
  two arms give a 0-width CI at 0; a single common task gives a 0-width CI at the point (nothing to resample).
- **Shown but Missing.** See :func:`shown_but_missing_success`.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

import numpy as np

from rtlab.analysis._arms import BASELINE, METHOD_ORDER, TAB_METHOD, VARIANT_ORDER, main_mask
from rtlab.analysis._bootstrap import bootstrap_weights, percentile_interval
from rtlab.analysis._metrics import (  # aggregate's own arithmetic: a paired CI cannot drift from it
    INPUTS,
    LABELS,
    NO_RUN,
    aggregate,
    graded_mask,
    mean_over_runs,
    metric_ratios,
    task_run_sums,
)
from rtlab.ingest.benchmarks.workspace_bench import TCR_P
from rtlab.records import Trajectory

if TYPE_CHECKING:
    import pandas as pd

MAIN_KEYS = ("benchmark", "model", "method", "variant")
ABLATION_COLUMNS = (
    "benchmark",
    "model",
    "arm",
    "role",
    "method",
    "variant",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "n_tasks",
    "n_runs",
    "drop",
    "drop_ci_low",
    "drop_ci_high",
    "n_paired_tasks",
)
ITEM_COLUMNS = ("trajectory", *LABELS, "rubric_index", "passed")
SBM_CATEGORY = "shown_but_missing"
SBM_COLUMNS = ("arm", "method", "n_items", "n_outcomes", "n_passed", "success")


# ---------------------------------------------------------------------------------------------------------
# Ordering and labels


def missing_as_none(value: Any) -> Any:
    """NaN / NA (pandas' reading of a missing label) as ``None``."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    import pandas as pd

    return None if value is pd.NA else value


def records_frame(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    """A DataFrame of dict rows in which a missing label stays ``None`` (pandas would make it NaN in a column
    that also holds strings)."""
    import pandas as pd

    frame = pd.DataFrame(list(rows), columns=list(columns))
    for col in columns:
        values = [r.get(col) for r in rows]
        if any(v is None for v in values) and not all(v is None or isinstance(v, float) for v in values):
            frame[col] = pd.Series(values, index=frame.index, dtype=object)
    return frame


def method_rank(method: Any) -> tuple[int, str]:
    """Sort key of a method: the paper's order (:data:`METHOD_ORDER`), then any other by name."""
    name = "" if missing_as_none(method) is None else str(method)
    return (METHOD_ORDER.index(name) if name in METHOD_ORDER else len(METHOD_ORDER), name)


def variant_rank(variant: Any) -> tuple[int, str]:
    """Sort key of a variant: none (the full method) first, then :data:`VARIANT_ORDER`, then by name."""
    name = missing_as_none(variant)
    if name is None:
        return (-1, "")
    return (VARIANT_ORDER.index(name) if name in VARIANT_ORDER else len(VARIANT_ORDER), str(name))


def arm_label(method: Any, variant: Any) -> str:
    """``method``, or ``method (variant)`` for an ablation."""
    variant = missing_as_none(variant)
    return str(method) if variant is None else f"{method} ({variant})"


def _benchmark_rank(benchmark: Any) -> tuple[int, str]:
    order = list(INPUTS)
    name = str(benchmark)
    return (order.index(name) if name in order else len(order), name)


def sort_rows(frame: pd.DataFrame) -> pd.DataFrame:
    """Rows by benchmark, model, method (paper order) and variant, those columns that are present; rows equal on
    them keep their order (a group's metric order)."""
    if frame.empty:
        return frame.reset_index(drop=True)
    rank = {
        "benchmark": _benchmark_rank,
        "model": lambda m: str(missing_as_none(m) or ""),
        "method": method_rank,
        "variant": variant_rank,
    }
    keys = list(zip(*(frame[col].map(f) for col, f in rank.items() if col in frame.columns), strict=True))
    order = sorted(range(len(frame)), key=keys.__getitem__)
    return frame.iloc[order].reset_index(drop=True)


# ---------------------------------------------------------------------------------------------------------
# Main results


def main_results(
    scores: pd.DataFrame,
    *,
    methods: Sequence[str] | None = None,
    variants: bool = False,
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Each benchmark's metrics per benchmark x model x method (x variant), averaged over runs with bootstrap
    CIs over tasks: :func:`rtlab.analysis._metrics.aggregate` on :func:`rtlab.analysis._metrics.scores_frame` rows, in the paper's
    method order.

    ``methods`` keeps only those methods (default: all); ``variants=False`` keeps only the main methods
    (variant None), ``True`` adds the ablation variants. Columns: :data:`MAIN_KEYS` + ``AGGREGATE_COLUMNS``.
    """
    import pandas as pd

    frame = scores if methods is None else scores[scores["method"].isin(list(methods))]
    if not variants:
        frame = frame[frame["variant"].isna()]
    agg = sort_rows(aggregate(frame, MAIN_KEYS, n_boot=n_boot, seed=seed))
    return agg.assign(
        variant=pd.Series(list(map(missing_as_none, agg["variant"])), index=agg.index, dtype=object)
    )


def _cell_text(value: float, low: float, high: float, digits: int) -> str:
    if math.isnan(value):
        return "n/a"
    if math.isnan(low) or math.isnan(high):
        return f"{value:.{digits}f}"
    return f"{value:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def results_table(
    agg: pd.DataFrame, *, numeric: bool = False, scale: float = 100.0, digits: int = 2
) -> pd.DataFrame:
    """The long table of :func:`main_results` (or ``aggregate``) pivoted wide for display.

    Rows: (model, method) with ``method (variant)`` for ablations, in the paper's order; columns: (benchmark,
    metric). Cells are ``"value [ci_low, ci_high]"`` strings, values multiplied by ``scale`` (percent by
    default), ``"n/a"`` where undefined; with ``numeric=True`` the columns are (benchmark, metric, stat) with
    stat ``value``/``ci_low``/``ci_high`` as floats.
    """
    import pandas as pd

    stats = ["value", "ci_low", "ci_high"]
    if agg.empty:
        names = ["benchmark", "metric", "stat"] if numeric else ["benchmark", "metric"]
        columns = pd.MultiIndex.from_tuples([], names=names)
        index = pd.MultiIndex.from_tuples([], names=["model", "method"])
        return pd.DataFrame(index=index, columns=columns)
    ordered = sort_rows(agg)
    keyed = {
        (model, arm_label(method, variant)): (
            str(missing_as_none(model) or ""),
            method_rank(method),
            variant_rank(variant),
        )
        for model, method, variant in zip(
            ordered["model"], ordered["method"], ordered["variant"], strict=True
        )
    }
    rows = sorted(keyed, key=keyed.__getitem__)
    metric_cols = list(dict.fromkeys(zip(ordered["benchmark"], ordered["metric"], strict=True)))
    metric_cols.sort(key=lambda bm: _benchmark_rank(bm[0]))  # stable: each benchmark's own metric order
    cells: dict[tuple[Any, ...], Any] = {}
    for rec in ordered.to_dict(orient="records"):
        row = (rec["model"], arm_label(rec["method"], rec["variant"]))
        v, lo, hi = (float(rec[s]) * scale for s in stats)
        if numeric:
            for stat, x in zip(stats, (v, lo, hi), strict=True):
                cells[(row, (rec["benchmark"], rec["metric"], stat))] = x
        else:
            cells[(row, (rec["benchmark"], rec["metric"]))] = _cell_text(v, lo, hi, digits)
    if numeric:
        columns = [(b, m, s) for b, m in metric_cols for s in stats]
        names = ["benchmark", "metric", "stat"]
        missing: Any = math.nan
    else:
        columns = list(metric_cols)
        names = ["benchmark", "metric"]
        missing = ""
    data = [[cells.get((row, col), missing) for col in columns] for row in rows]
    index = pd.MultiIndex.from_tuples(rows, names=["model", "method"])
    return pd.DataFrame(data, index=index, columns=pd.MultiIndex.from_tuples(columns, names=names))


# ---------------------------------------------------------------------------------------------------------
# Paired differences


def _arm_cells(
    rows: pd.DataFrame, tasks: Sequence[str], benchmark: str, tcr_p: float
) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """Per metric, numerator and denominator sums per (task in ``tasks``, run) of one arm's graded rows."""
    import pandas as pd

    graded = rows[graded_mask(benchmark, rows)]
    graded = graded[graded["task_id"].fillna("").isin(list(tasks))]
    task = pd.Index(list(tasks)).get_indexer(graded["task_id"].fillna(""))
    run = pd.factorize(graded["run"].fillna(NO_RUN))[0]
    shape = (len(tasks), int(run.max()) + 1 if len(run) else 1)
    return {
        r.name: (task_run_sums(r.numerator, task, run, shape), task_run_sums(r.denominator, task, run, shape))
        for r in metric_ratios(benchmark, graded, tcr_p)
    }


def graded_tasks(rows: pd.DataFrame, benchmark: str) -> set[str]:
    """Task ids (missing ones as ``""``) with at least one graded trajectory among ``rows``."""
    return set(rows.loc[graded_mask(benchmark, rows), "task_id"].fillna(""))


PAIRED_COLUMNS = ("metric", "difference", "ci_low", "ci_high", "n_paired_tasks")


def paired_difference(
    a: pd.DataFrame,
    b: pd.DataFrame,
    *,
    benchmark: str,
    n_boot: int = 1000,
    seed: int = 0,
    tcr_p: float = TCR_P,
    ci: float = 0.95,
) -> pd.DataFrame:
    """Metric of arm ``a`` minus metric of arm ``b`` (``scores_frame`` rows of one benchmark each), on the tasks
    both graded, with a paired bootstrap CI over those tasks (one draw for both arms; see the module doc).

    One row per metric of the benchmark; columns :data:`PAIRED_COLUMNS`. No common task: NaN difference and
    CI, ``n_paired_tasks`` 0.
    """
    import pandas as pd

    common = sorted(graded_tasks(a, benchmark) & graded_tasks(b, benchmark))
    names = [r.name for r in metric_ratios(benchmark, a.iloc[:0], tcr_p)]
    if not common:
        rows = [(m, math.nan, math.nan, math.nan, 0) for m in names]
        return pd.DataFrame(rows, columns=list(PAIRED_COLUMNS))
    cells_a, cells_b = _arm_cells(a, common, benchmark, tcr_p), _arm_cells(b, common, benchmark, tcr_p)
    weights = bootstrap_weights(len(common), n_boot, seed)
    rows = []
    for m in names:
        (num_a, den_a), (num_b, den_b) = cells_a[m], cells_b[m]
        point = float(mean_over_runs(num_a.sum(axis=0), den_a.sum(axis=0))) - float(
            mean_over_runs(num_b.sum(axis=0), den_b.sum(axis=0))
        )
        boot = mean_over_runs(weights @ num_a, weights @ den_a) - mean_over_runs(
            weights @ num_b, weights @ den_b
        )
        interval = percentile_interval(boot, ci)
        low, high = interval if interval is not None else (math.nan, math.nan)
        rows.append((m, point, low, high, len(common)))
    return pd.DataFrame(rows, columns=list(PAIRED_COLUMNS))


# ---------------------------------------------------------------------------------------------------------
# Ablations


def ablation_table(
    scores: pd.DataFrame,
    *,
    method: str = TAB_METHOD,
    baseline: str = BASELINE,
    n_boot: int = 1000,
    seed: int = 0,
    tcr_p: float = TCR_P,
    ci: float = 0.95,
) -> pd.DataFrame:
    """Per benchmark x model: the full ``method``, each of its variants and the ``baseline``, with each metric
    (Workspace-Bench: pass rate and TCR@70), the drop from the full method and its paired bootstrap CI.

    ``role`` is ``full``, ``ablation`` or ``baseline``; ``arm`` is ``full``, the variant, or the baseline's name.
    ``value``/``ci_low``/``ci_high``/``n_tasks``/``n_runs`` are the arm's own (``aggregate``, all its tasks);
    ``drop = value(full) - value(arm)`` on the tasks both graded (``n_paired_tasks``), so a positive drop means
    removing the component (or having no tab at all, for the baseline) lost points. The full method's own row
    has drop 0 with a 0-width CI. Groups without the full method are left out; an arm with no runs in a group
    has no row. Columns: :data:`ABLATION_COLUMNS`.
    """

    known = scores[scores["benchmark"].isin(list(INPUTS))]
    is_method = known["method"] == method
    arms = known[
        (is_method & known["variant"].notna()) | main_mask(known, method) | main_mask(known, baseline)
    ]
    agg = aggregate(arms, MAIN_KEYS, n_boot=n_boot, seed=seed, tcr_p=tcr_p, ci=ci)
    own = {
        (r["benchmark"], r["model"], r["method"], missing_as_none(r["variant"]), r["metric"]): r
        for r in agg.to_dict(orient="records")
    }
    out: list[dict[str, Any]] = []
    groups = sorted(
        arms.groupby(["benchmark", "model"], sort=True, dropna=False),
        key=lambda kv: _benchmark_rank(kv[0][0]),
    )
    for (benchmark, model), group in groups:
        full = group[main_mask(group, method)]
        if full.empty:
            continue
        variants = sorted(group.loc[group["method"] == method, "variant"].dropna().unique(), key=variant_rank)
        members: list[tuple[str, str, str, str | None, pd.DataFrame]] = [("full", "full", method, None, full)]
        members += [
            (str(v), "ablation", method, str(v), group[(group["method"] == method) & (group["variant"] == v)])
            for v in variants
        ]
        base = group[main_mask(group, baseline)]
        if not base.empty and baseline != method:
            members.append((baseline, "baseline", baseline, None, base))
        for arm, role, arm_method, variant, rows in members:
            drops = paired_difference(
                full, rows, benchmark=benchmark, n_boot=n_boot, seed=seed, tcr_p=tcr_p, ci=ci
            ).set_index("metric")
            for metric, d in drops.iterrows():
                a = own.get((benchmark, missing_as_none(model), arm_method, variant, metric))
                out.append(
                    {
                        "benchmark": benchmark,
                        "model": missing_as_none(model),
                        "arm": arm,
                        "role": role,
                        "method": arm_method,
                        "variant": variant,
                        "metric": metric,
                        **{k: (a[k] if a is not None else math.nan) for k in ("value", "ci_low", "ci_high")},
                        **{k: (int(a[k]) if a is not None else 0) for k in ("n_tasks", "n_runs")},
                        "drop": d["difference"],
                        "drop_ci_low": d["ci_low"],
                        "drop_ci_high": d["ci_high"],
                        "n_paired_tasks": int(d["n_paired_tasks"]),
                    }
                )
    return records_frame(out, ABLATION_COLUMNS)


# ---------------------------------------------------------------------------------------------------------
# Per-item outcomes and Shown-but-Missing success


def item_outcomes(trajectories: Iterable[Trajectory]) -> pd.DataFrame:
    """One row per judged rubric item of every trajectory: ``trajectory``, the labels of
    :data:`rtlab.analysis._metrics.LABELS`, ``rubric_index`` and ``passed``. Trajectories without a judgement add none."""
    import pandas as pd

    rows = [
        (t.id, *(getattr(t, label) for label in LABELS), item.index, bool(item.passed))
        for t in trajectories
        if t.judgement is not None
        for item in t.judgement.items
    ]
    frame = pd.DataFrame(rows, columns=list(ITEM_COLUMNS))
    return frame.astype({"rubric_index": int, "passed": bool})


ITEM_KEYS = ("benchmark", "model", "task_id", "rubric_index")


def shown_but_missing_success(
    labels: pd.DataFrame,
    scores_items: pd.DataFrame,
    *,
    method: str = TAB_METHOD,
    baseline: str = BASELINE,
    by: Sequence[str] = ("benchmark", "model"),
) -> pd.DataFrame:
    """Success of ``method`` and ``baseline`` on the rubric items the baseline lost as Shown but Missing.

    S = the (benchmark, model, task, rubric item) keys labelled ``shown_but_missing`` (``labels``: rows of
    :func:`rtlab.analysis._diagnose.diagnose_frame`) in at least one run of the baseline (variant None). An arm's success
    = passed / all (trajectory, item) outcomes on S among that arm's runs (variant None; ``scores_items``: rows
    of :func:`item_outcomes`), pooled per ``by`` group (``by=()``: overall). The baseline's runs that produced a
    label failed the item by definition; its other runs may have passed it. One row per group and arm (the
    method first); columns ``by`` + :data:`SBM_COLUMNS` (``n_items`` = size of S in the group; ``success`` NaN
    when the arm has no outcome on S). No Shown-but-Missing label of the baseline: an empty frame.
    """
    import pandas as pd

    by = list(by)
    keys = list(ITEM_KEYS)
    if not set(by) <= set(keys):
        raise ValueError(f"by must name columns of {ITEM_KEYS}, got {by}")
    columns = [*by, *SBM_COLUMNS]
    sbm = labels[(labels["category"] == SBM_CATEGORY) & main_mask(labels, baseline)]
    s = sbm[keys].drop_duplicates()
    if s.empty:
        return pd.DataFrame(columns=columns)
    arms = [("method", method), ("baseline", baseline)] if method != baseline else [("method", method)]
    out: list[dict[str, Any]] = []
    for key, items in s.groupby(by, sort=True, dropna=False) if by else [((), s)]:
        group = dict(zip(by, key if isinstance(key, tuple) else (key,), strict=True))
        on_s = scores_items.merge(items, on=keys, how="inner")
        for arm, arm_method in arms:
            rows = on_s[main_mask(on_s, arm_method)]
            n, passed = len(rows), int(rows["passed"].sum())
            out.append(
                {
                    **{k: missing_as_none(v) for k, v in group.items()},
                    "arm": arm,
                    "method": arm_method,
                    "n_items": len(items),
                    "n_outcomes": n,
                    "n_passed": passed,
                    "success": passed / n if n else math.nan,
                }
            )
    return records_frame(out, columns)

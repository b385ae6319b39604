"""Reading volume: tasks split into thirds by how much the agent read, and each method's results per third.

The paper splits Workspace-Bench tasks into thirds by how much the agent reads (excerpted characters in the
read log) and reports RunningTab's gain over DCI per third and model, and DCI's own drop from the lightest to
the heaviest third.

Decisions:

- **A task's reading volume** is the mean, over the ``basis`` method's runs of that task (variant None), of
  the excerpt characters of each run's read log (``volume``: ``trajectory`` and ``excerpt_chars`` per
  trajectory, e.g. :func:`rtlab.analysis._tabstats.tab_stats_frame`); ``basis=None`` takes every trajectory of the task
  (all methods and variants). Runs without a volume (NaN) are left out; a task with none gets no third.
- **Thirds** are made per ``by`` group (benchmark x model by default), so each model's tasks are ranked by
  that model's own reading. **Tie rule:** tasks are ranked by (volume, task id) ascending, so equal volumes
  are ordered by task id and may fall in different thirds; with n = 3q + r tasks the thirds hold, from
  lightest to heaviest, q, q + [r = 2] and q + [r >= 1] tasks: the remainder goes to the heaviest third
  first, then the middle one, and the lightest last (9 -> 3/3/3, 10 -> 3/3/4, 11 -> 3/4/4).
- **Per third**, metrics come from :func:`rtlab.analysis._metrics.aggregate` and the gain over the baseline from
  :func:`rtlab.analysis._results.paired_difference` (paired over the third's tasks). ``light_minus_heavy`` is a plain
  difference of two independent thirds' values (different tasks), so it has no paired CI.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from rtlab.analysis._arms import BASELINE, TAB_METHOD, main_mask
from rtlab.analysis._metrics import aggregate
from rtlab.analysis._results import method_rank, missing_as_none, paired_difference, sort_rows

if TYPE_CHECKING:
    import pandas as pd

TERCILE_NAMES = {1: "lightest", 2: "middle", 3: "heaviest"}
TERCILE_COLUMNS = ("task_id", "volume", "n_trajectories", "rank", "tercile")
GAIN_COLUMNS = (
    "tercile",
    "method",
    "metric",
    "value",
    "ci_low",
    "ci_high",
    "n_tasks",
    "n_runs",
    "gain",
    "gain_ci_low",
    "gain_ci_high",
    "n_paired_tasks",
    "light_minus_heavy",
)


def _as_labels(frame: pd.DataFrame, columns: Sequence[str]) -> pd.DataFrame:
    """``frame`` with the label ``columns`` as objects and missing labels as ``None`` (so that frames whose
    labels are all missing, read back as floats, still merge with string labels)."""
    import pandas as pd

    return frame.assign(
        **{
            c: pd.Series(list(map(missing_as_none, frame[c])), index=frame.index, dtype=object)
            for c in columns
        }
    )


def tercile_sizes(n: int) -> tuple[int, int, int]:
    """How many of ``n`` ranked tasks fall in the lightest, middle and heaviest third (see the tie rule)."""
    q, r = divmod(n, 3)
    return q, q + int(r >= 2), q + int(r >= 1)


def _terciles_of(n: int) -> list[int]:
    """Tercile (1-3) of each of ``n`` tasks ranked lightest first."""
    sizes = tercile_sizes(n)
    return [k for k, size in enumerate(sizes, 1) for _ in range(size)]


def reading_terciles(
    scores: pd.DataFrame,
    volume: pd.DataFrame,
    *,
    basis: str | None = BASELINE,
    by: Sequence[str] = ("benchmark", "model"),
) -> pd.DataFrame:
    """Each task's reading volume and its third (1 lightest - 3 heaviest) within its ``by`` group.

    ``scores``: :func:`rtlab.analysis._metrics.scores_frame` rows (labels per trajectory); ``volume``: ``trajectory``
    and ``excerpt_chars``. One row per (group, task); columns ``by`` + :data:`TERCILE_COLUMNS` (``rank`` from 1,
    lightest first; ``n_trajectories`` = runs averaged). Rules in the module doc.
    """
    import pandas as pd

    by = list(by)
    columns = [*by, *TERCILE_COLUMNS]
    frame = scores.merge(volume[["trajectory", "excerpt_chars"]], on="trajectory", how="inner")
    if basis is not None:
        frame = frame[main_mask(frame, basis)]
    frame = frame[frame["excerpt_chars"].notna() & frame["task_id"].notna()]
    if frame.empty:
        return pd.DataFrame(columns=columns)
    per_task = (
        frame.groupby([*by, "task_id"], dropna=False, sort=False)["excerpt_chars"]
        .agg(volume="mean", n_trajectories="size")
        .reset_index()
    )
    parts = []
    groups = per_task.groupby(by, dropna=False, sort=True) if by else [((), per_task)]
    for _, group in groups:
        ranked = group.sort_values(["volume", "task_id"], kind="stable").reset_index(drop=True)
        ranked["rank"] = range(1, len(ranked) + 1)
        ranked["tercile"] = _terciles_of(len(ranked))
        parts.append(ranked)
    out = pd.concat(parts, ignore_index=True)
    out["volume"] = out["volume"].astype(float)
    return _as_labels(out[columns], [*by, "task_id"])


def gain_by_tercile(
    scores: pd.DataFrame,
    terciles: pd.DataFrame,
    *,
    method: str = TAB_METHOD,
    baseline: str = BASELINE,
    methods: Sequence[str] | None = None,
    by: Sequence[str] = ("benchmark", "model"),
    n_boot: int = 1000,
    seed: int = 0,
) -> pd.DataFrame:
    """Per group x third: each main method's metrics (Workspace-Bench: pass rate and TCR@70) with bootstrap
    CIs, its gain over ``baseline`` on the third's tasks with a paired CI, and its lightest-minus-heaviest
    difference (for the baseline: its drop from the lightest to the heaviest third).

    ``terciles``: :func:`reading_terciles` with the same ``by``; trajectories of tasks without a third are
    left out. ``methods`` (default: every main method present) is kept, plus ``method`` and ``baseline``.
    Columns: ``by`` (``benchmark`` added when absent) + :data:`GAIN_COLUMNS`; rows in the paper's method
    order. The baseline's own gain is 0 with a 0-width CI; without baseline runs in a third the gain is NaN.
    """
    import pandas as pd

    by = list(by)
    keys = by if "benchmark" in by else [*by, "benchmark"]
    columns = [*keys, *GAIN_COLUMNS]
    main = scores[scores["variant"].isna()]
    if methods is not None:
        main = main[main["method"].isin([*methods, method, baseline])]
    on = [*by, "task_id"]
    joined = _as_labels(main, on).merge(_as_labels(terciles[[*on, "tercile"]], on), on=on, how="inner")
    if joined.empty:
        return pd.DataFrame(columns=columns)
    agg = aggregate(joined, [*keys, "tercile", "method"], n_boot=n_boot, seed=seed)
    rows: list[dict[str, Any]] = []
    for key, cell in joined.groupby([*keys, "tercile"], dropna=False, sort=True):
        labels = dict(zip([*keys, "tercile"], key, strict=True))
        base = cell[cell["method"] == baseline]
        for m in sorted(cell["method"].dropna().unique(), key=method_rank):
            gains = paired_difference(
                cell[cell["method"] == m], base, benchmark=labels["benchmark"], n_boot=n_boot, seed=seed
            )
            for g in gains.to_dict(orient="records"):
                rows.append(
                    {
                        **{k: missing_as_none(v) for k, v in labels.items()},
                        "method": m,
                        "metric": g["metric"],
                        "gain": g["difference"],
                        "gain_ci_low": g["ci_low"],
                        "gain_ci_high": g["ci_high"],
                        "n_paired_tasks": g["n_paired_tasks"],
                    }
                )
    gains = pd.DataFrame(rows)
    agg = agg.assign(**{k: agg[k].map(missing_as_none) for k in keys})
    out = agg.merge(gains, on=[*keys, "tercile", "method", "metric"], how="left")
    out["light_minus_heavy"] = _light_minus_heavy(out, [*keys, "method", "metric"])
    out = out.assign(variant=None)
    out = sort_rows(out.sort_values([*keys, "tercile"], kind="stable"))
    return out[columns]


def _light_minus_heavy(frame: pd.DataFrame, keys: list[str]) -> list[float]:
    """Per row, the value in the lightest third minus the value in the heaviest third of its (keys) group."""
    values: dict[tuple[Any, ...], dict[int, float]] = {}
    for rec in frame.to_dict(orient="records"):
        values.setdefault(tuple(rec[k] for k in keys), {})[int(rec["tercile"])] = float(rec["value"])
    out = []
    for rec in frame.to_dict(orient="records"):
        by_third = values[tuple(rec[k] for k in keys)]
        out.append(by_third.get(1, math.nan) - by_third.get(3, math.nan))
    return out

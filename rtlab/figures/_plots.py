"""Figure functions, one per figure, in one house style; each returns a matplotlib Figure.

The style is applied per figure through ``rc_context`` so importing rtlab changes no global matplotlib state.
Colours are the Okabe-Ito palette, which stays distinguishable under the common colour-vision deficiencies.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtlab.analysis import BASELINE, TAB_METHOD
from rtlab.io import atomic_open

if TYPE_CHECKING:
    import pandas as pd
    from matplotlib.figure import Figure

OKABE_ITO = ["#0072B2", "#E69F00", "#009E73", "#D55E00", "#CC79A7", "#56B4E9", "#F0E442", "#000000"]

STYLE: dict[str, object] = {
    "figure.dpi": 110,
    "savefig.dpi": 200,
    "savefig.bbox": "tight",
    "font.size": 10,
    "axes.titlesize": 11,
    "axes.titleweight": "bold",
    "axes.labelsize": 10,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "legend.frameon": False,
    "pdf.fonttype": 42,
}


@contextlib.contextmanager
def _style() -> Iterator[None]:
    """The house style for the figures drawn inside. Matplotlib's interactive mode is left as the drawing left
    it: in a notebook the first figure loads the inline backend, which turns it on (every figure then shows
    under its cell), and the style's end must not turn it off again (later figures would not show)."""
    import matplotlib as mpl
    from cycler import cycler

    style: Any = {**STYLE, "axes.prop_cycle": cycler(color=OKABE_ITO)}  # matplotlib types its keys one by one
    interactive = mpl.is_interactive()
    try:
        with mpl.rc_context(style):
            try:
                yield
            finally:
                interactive = mpl.is_interactive()
    finally:
        mpl.interactive(interactive)


SIMULATED_SUFFIX = "-simulated"
SIMULATED_NOTE = "SIMULATED data (rtlab.synth): not a measurement of any real model"


def simulated_tag(parts: Mapping[str, bool]) -> str:
    """A title's tag naming the simulated parts of a figure, in the order given: ``{"model": True, "data":
    True}`` -> ``" (SIMULATED model and data)"``; ``""`` when none is simulated."""
    kinds = [kind for kind, simulated in parts.items() if simulated]
    return f" (SIMULATED {' and '.join(kinds)})" if kinds else ""


def save_figure(
    fig: Figure, name: str, figures_dir: str | Path = "figures", *, simulated: bool = False
) -> list[Path]:
    """Write ``name.png`` and ``name.pdf`` into ``figures_dir`` atomically and reproducibly; returns the paths.
    A relative ``figures_dir`` is found as a notebook's ``DATA`` is (:func:`rtlab.figures.locate`): ``"figures"``
    is the repository's ``figures/`` from the root and from ``notebooks/`` alike.

    A figure drawn from simulated data says so twice: a note in its lower right corner and ``-simulated`` at
    the end of its file names.
    """
    from rtlab.figures._paths import locate

    extra: dict[str, Any] = {}
    if simulated:  # below the drawing, where it can overlap nothing; the saved area grows to hold it
        fig.text(0.995, -0.01, SIMULATED_NOTE, ha="right", va="top", fontsize=7, color="0.35")
        name += SIMULATED_SUFFIX
        extra = {"bbox_inches": "tight", "pad_inches": 0.08}
    written = []
    for ext, metadata in (("png", {"Software": None}), ("pdf", {"CreationDate": None, "Producer": None})):
        target = locate(figures_dir) / f"{name}.{ext}"
        with atomic_open(target, "wb") as fh:
            fig.savefig(fh, format=ext, metadata=metadata, **extra)
        written.append(target)
    return written


def _short(label: str, width: int = 34) -> str:
    return label if len(label) <= width else label[: width - 1] + "…"


def plot_trajectory_sizes(
    summary: pd.DataFrame,
    *,
    by: str | None = None,
    title: str = "What was logged and what the model was shown",
) -> Figure:
    """Per trajectory: characters of tool output logged vs shown to the model (after clipping), and steps; with
    ``by`` (for datasets of many runs), their distribution per group instead (boxes over trajectories)."""
    import matplotlib.pyplot as plt
    import numpy as np

    if by is not None:
        return _trajectory_size_boxes(summary, by=by, title=title)
    with _style():
        data = summary.sort_values("chars_logged")
        labels = [_short(str(v)) for v in data["label"]]
        y = np.arange(len(data))
        fig, (ax, ax2) = plt.subplots(
            1, 2, figsize=(10, 1.6 + 0.34 * len(data)), sharey=True, gridspec_kw={"width_ratios": [3, 1]}
        )
        ax.barh(y + 0.2, data["chars_logged"], height=0.4, label="logged", color=OKABE_ITO[0])
        ax.barh(y - 0.2, data["chars_shown"], height=0.4, label="shown to the model", color=OKABE_ITO[1])
        ax.set_yticks(y, labels)
        positive = data["chars_logged"][data["chars_logged"] > 0]
        if len(positive) and positive.max() / max(positive.min(), 1) > 100:
            ax.set_xscale("log")
            ax.set_xlabel("tool output (characters, log scale)")
        else:
            ax.set_xlabel("tool output (characters)")
        ax.margins(y=0.5 / max(len(data), 1))
        ax2.barh(y, data["n_steps"], color=OKABE_ITO[2])
        ax2.set_xlabel("tool calls answered")
        fig.suptitle(title, x=0.01, ha="left", fontweight="bold")
        fig.legend(*ax.get_legend_handles_labels(), loc="upper right", ncols=2)
        fig.tight_layout()
    return fig


def _trajectory_size_boxes(summary: pd.DataFrame, *, by: str, title: str) -> Figure:
    import matplotlib.pyplot as plt
    import numpy as np

    with _style():
        groups = sorted(summary[by].dropna().unique(), key=str)
        fig, axes = plt.subplots(1, 3, figsize=(12, 1.8 + 0.42 * len(groups)), sharey=True)
        y = np.arange(1, len(groups) + 1)
        panels = (
            ("chars_logged", "tool output logged (characters)"),
            ("chars_shown", "tool output shown (characters)"),
            ("n_steps", "tool calls answered"),
        )
        for ax, (column, label) in zip(axes, panels, strict=True):
            data = [summary.loc[summary[by] == g, column].dropna().to_numpy(dtype=float) for g in groups]
            ax.boxplot(
                data,
                vert=False,
                widths=0.55,
                showfliers=False,
                medianprops={"color": OKABE_ITO[1], "linewidth": 2},
            )
            ax.set_xlabel(label)
            ax.set_xlim(left=0)
        axes[0].set_yticks(y, [_short(str(g)) for g in groups])
        axes[0].set_ylabel(by)
        fig.suptitle(f"{title} ({len(summary)} trajectories)", x=0.01, ha="left", fontweight="bold")
        fig.tight_layout()
    return fig


def plot_step_sizes(steps: pd.DataFrame, *, title: str) -> Figure:
    """One trajectory, step by step: characters shown per tool call, coloured by tool, errors marked."""
    import matplotlib.pyplot as plt

    with _style():
        fig, ax = plt.subplots(figsize=(9, 3.6))
        tools = list(dict.fromkeys(steps["tool"]))
        for k, tool in enumerate(tools):
            part = steps[steps["tool"] == tool]
            ax.bar(part["index"], part["chars_shown"], color=OKABE_ITO[k % len(OKABE_ITO)], label=tool)
        errors = steps[steps["is_error"]]
        if len(errors):
            ax.scatter(
                errors["index"], errors["chars_shown"], marker="x", color="black", zorder=3, label="error"
            )
        ax.set_xlabel("step (tool call index)")
        ax.set_ylabel("shown to the model (characters)")
        ax.set_title(title, loc="left")
        ax.legend(ncols=min(len(tools) + 1, 4), loc="upper left", bbox_to_anchor=(0, -0.2))
        fig.tight_layout()
    return fig


CATEGORY_ORDER = ("shown_but_missing", "dropped_or_distorted", "discovery", "other")
CATEGORY_LABELS = {
    "shown_but_missing": "Shown but Missing",
    "dropped_or_distorted": "Dropped or Distorted",
    "discovery": "Discovery failure",
    "other": "Other",
}


def plot_breakdown(
    table: pd.DataFrame, *, by: str, title: str = "Where the lost rubric points went"
) -> Figure:
    """Stacked shares of lost rubric points by failure category, one bar per group (``diagnose.breakdown``)."""
    import matplotlib.pyplot as plt
    import numpy as np

    with _style():
        groups = list(dict.fromkeys(table[by]))
        fig, ax = plt.subplots(figsize=(9, 1.4 + 0.45 * len(groups)))
        left = np.zeros(len(groups))
        for k, cat in enumerate(CATEGORY_ORDER):
            part = table[table["category"] == cat].set_index(by).reindex(groups)
            share = part["share"].fillna(0).to_numpy(dtype=float) * 100
            ax.barh(groups, share, left=left, color=OKABE_ITO[k], label=CATEGORY_LABELS[cat])
            for y, (x0, w) in enumerate(zip(left, share, strict=True)):
                if w >= 8:
                    ax.text(x0 + w / 2, y, f"{w:.0f}%", ha="center", va="center", fontsize=8, color="white")
            left += share
        totals = table.groupby(by, sort=False)["group_lost"].first().reindex(groups)
        ax.set_yticks(range(len(groups)), [f"{g} (n={int(n)})" for g, n in zip(groups, totals, strict=True)])
        ax.set_xlim(0, 100)
        ax.set_xlabel("share of lost rubric points (%)")
        ax.invert_yaxis()
        ax.legend(ncols=4, loc="lower left", bbox_to_anchor=(0, 1.0), fontsize=8)
        fig.suptitle(title, x=0.01, ha="left", fontweight="bold")
        fig.tight_layout()
    return fig


def plot_value_coverage(frame: pd.DataFrame, *, by: str = "trajectory", title: str) -> Figure:
    """Per group: expected numeric values shown to the model, delivered, and held by the tab (``values_frame``)."""
    import matplotlib.pyplot as plt
    import numpy as np

    with _style():
        counts = frame.groupby(by, sort=True)[["shown", "delivered", "held"]].sum()
        totals = frame.groupby(by, sort=True).size()
        labels = [f"{_short(str(g), 28)} (n={int(n)})" for g, n in totals.items()]
        y = np.arange(len(counts))
        fig, ax = plt.subplots(figsize=(9, 1.6 + 0.5 * len(counts)))
        for k, col in enumerate(("shown", "delivered", "held")):
            share = counts[col] / totals * 100
            ax.barh(y + (k - 1) * 0.27, share, height=0.27, color=OKABE_ITO[k], label=col)
        ax.set_yticks(y, labels)
        ax.invert_yaxis()
        ax.margins(y=0.5 / max(len(counts), 1))
        ax.set_xlim(0, 100)
        ax.set_xlabel("share of the expected values (%)")
        fig.suptitle(title, x=0.01, ha="left", fontweight="bold")
        top = 1 - 0.45 / fig.get_figheight()  # title above, legend in its own row under it
        fig.legend(*ax.get_legend_handles_labels(), loc="upper left", bbox_to_anchor=(0.01, top), ncols=3)
        fig.tight_layout(rect=(0, 0, 1, top - 0.12 / fig.get_figheight()))
    return fig


CONDITION_LABELS = {"no_tab": "task + requirement", "review": "+ review", "read_log": "+ whole read log"}


def plot_recovery(summary: pd.DataFrame, *, title: str) -> Figure:
    """Share of held values recovered under each masked-recovery condition, per model (``recovery_summary``)."""
    import matplotlib.pyplot as plt
    import numpy as np

    with _style():
        annotators = list(dict.fromkeys(summary["annotator"]))
        conditions = list(dict.fromkeys(summary["condition"]))
        fig, ax = plt.subplots(figsize=(8, 3.8))
        width = 0.8 / max(len(annotators), 1)
        x = np.arange(len(conditions))
        for k, name in enumerate(annotators):
            part = summary[summary["annotator"] == name].set_index("condition").reindex(conditions)
            share = part["share_tolerant"].to_numpy(dtype=float) * 100
            bars = ax.bar(
                x + (k - (len(annotators) - 1) / 2) * width, share, width, color=OKABE_ITO[k], label=name
            )
            ax.bar_label(bars, labels=[f"{v:.0f}%" for v in share], fontsize=8, padding=2)
        ax.set_xticks(x, [CONDITION_LABELS.get(c, c) for c in conditions])
        ax.set_ylim(0, 110)
        ax.set_ylabel("held values recovered (%)")
        ax.legend(loc="upper left", fontsize=8)
        ax.set_title(title, loc="left")
        fig.tight_layout()
    return fig


def plot_kappa_matrix(kappa: Mapping[str, float], *, title: str) -> Figure:
    """Cohen's kappa for every annotator pair (keys ``"A|B"``) as a symmetric heat map with values written in."""
    import matplotlib.pyplot as plt
    import numpy as np

    with _style():
        names = sorted({n for pair in kappa for n in pair.split("|")})
        m = np.full((len(names), len(names)), np.nan)
        for pair, value in kappa.items():
            a, b = pair.split("|")
            i, j = names.index(a), names.index(b)
            m[i, j] = m[j, i] = value
        np.fill_diagonal(m, 1.0)
        fig, ax = plt.subplots(figsize=(2.2 + 1.1 * len(names), 1.6 + 0.9 * len(names)))
        image = ax.imshow(m, vmin=-1, vmax=1, cmap="RdBu")
        ax.grid(False)
        ax.set_xticks(range(len(names)), [_short(n, 32) for n in names], rotation=30, ha="right")
        ax.set_yticks(range(len(names)), [_short(n, 32) for n in names])
        for i in range(len(names)):
            for j in range(len(names)):
                text = "n/a" if np.isnan(m[i, j]) else f"{m[i, j]:.2f}"
                ax.text(
                    j,
                    i,
                    text,
                    ha="center",
                    va="center",
                    fontsize=9,
                    color="white" if not np.isnan(m[i, j]) and abs(m[i, j]) > 0.6 else "black",
                )
        fig.colorbar(image, ax=ax, label="Cohen's kappa")
        fig.suptitle(title, x=0.01, ha="left", fontweight="bold", fontsize=11)
        fig.tight_layout()
    return fig


def plot_confusion(confusion: pd.DataFrame, *, title: str) -> Figure:
    """A confusion matrix (``GoldAgreement.confusion``: reference labels as rows, the annotator's as columns)
    as counts written in cells shaded by their share of the row; the diagonal is agreement."""
    import matplotlib.pyplot as plt
    import numpy as np

    with _style():
        rows, cols = [str(r) for r in confusion.index], [str(c) for c in confusion.columns]
        counts = confusion.to_numpy(dtype=float)
        totals = counts.sum(axis=1, keepdims=True)
        share = np.divide(counts, totals, out=np.zeros_like(counts), where=totals > 0)
        fig, ax = plt.subplots(figsize=(3.2 + 1.25 * len(cols), 1.8 + 0.6 * len(rows)))
        ax.imshow(share, vmin=0, vmax=1, cmap="Blues", aspect="auto")
        ax.grid(False)
        ax.set_xticks(range(len(cols)), [CATEGORY_LABELS.get(c, c) for c in cols], rotation=25, ha="right")
        ax.set_yticks(
            range(len(rows)),
            [f"{CATEGORY_LABELS.get(r, r)} (n={int(t)})" for r, t in zip(rows, totals[:, 0], strict=True)],
        )
        for i in range(len(rows)):
            for j in range(len(cols)):
                ax.text(
                    j,
                    i,
                    f"{int(counts[i, j])}",
                    ha="center",
                    va="center",
                    fontsize=10,
                    fontweight="bold" if i == j else "normal",
                    color="white" if share[i, j] > 0.55 else "black",
                )
        ax.set_ylabel(str(confusion.index.name or "reference"))
        ax.set_xlabel(str(confusion.columns.name or "annotator"))
        fig.suptitle(title, x=0.01, ha="left", fontweight="bold", fontsize=11)
        fig.tight_layout()
    return fig


TAB_STAT_LABELS = {
    "n_requirements": "requirements",
    "n_entries": "read-log entries",
    "n_files": "distinct files read",
    "excerpt_chars": "excerpted characters",
    "n_candidates": "candidates (listed, unopened)",
    "review_coverage": "review coverage over its tab_list calls (%)",
}


def plot_tab_stats(frame: pd.DataFrame, *, by: str, title: str) -> Figure:
    """What the final tab holds per trajectory, one panel per statistic, one box (with points) per group; review
    coverage is the run's over its `tab_list` calls (:func:`rtlab.analysis._tabstats.review_coverage`)."""
    import matplotlib.pyplot as plt
    import numpy as np

    with _style():
        groups = sorted(frame[by].dropna().unique(), key=str)
        fig, axes = plt.subplots(
            2, 3, figsize=(12, 1.6 + 2 * (0.3 * len(groups) + 0.6)), sharey=True, squeeze=False
        )
        y = np.arange(1, len(groups) + 1)
        for ax, (stat, label) in zip(axes.ravel(), TAB_STAT_LABELS.items(), strict=True):
            scale = 100 if stat == "review_coverage" else 1
            data = [frame.loc[frame[by] == g, stat].dropna().to_numpy(dtype=float) * scale for g in groups]
            ax.boxplot(
                data,
                vert=False,
                widths=0.5,
                showfliers=False,
                medianprops={"color": OKABE_ITO[1], "linewidth": 2},
            )
            rng = np.random.default_rng(0)
            for k, values in zip(y, data, strict=True):
                ax.scatter(
                    values, k + rng.uniform(-0.12, 0.12, len(values)), s=10, color=OKABE_ITO[0], alpha=0.7
                )
            ax.set_title(label, loc="left", fontsize=10)
            if stat in ("excerpt_chars", "n_candidates"):
                ax.set_xscale("symlog", linthresh=10)
                ax.set_xlim(left=0)
        axes[0, 0].set_yticks(y, [_short(str(g), 30) for g in groups])
        axes[0, 0].invert_yaxis()
        fig.suptitle(title, x=0.01, ha="left", fontweight="bold")
        fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------------------------
# Results: main table, ablations, reading volume, operating styles (frames from rtlab.analysis._results / reading / styles)

METRIC_LABELS = {
    "pass_rate": "Pass Rate",
    "tcr@70": "TCR@70",
    "success": "Success",
    "score": "Score",
    "acc@0%": "Acc@0%",
    "acc@1%": "Acc@1%",
}
ABLATION_LABELS = {
    "no-capture": "− environmental capture\n(no entry: done uncitable)",
    "no-capture+own-records": "− environmental capture\n(own records citable)",
    "no-review": "− review",
    "no-evidence-check": "− evidence check",
    "no-finish-check": "− finish check",
}
NO_CAPTURE_NOTE = (
    "Without capture the environment fills no read log or candidates, so done can never be cited (rtlab's "
    "reading; the alternative, TabConfig(capture=False, own_records=True), lets the agent cite its own record)."
)
"""The ablation figure's note on what removing capture means (:mod:`rtlab.environment._tab`)."""
STYLE_FLAG_LABELS = {
    "requirements_before_finish": "requirements stated before the finish check",
    "review_before_finish": "review pulled before the finish check",
    "cited_reviewed_entry": "a reviewed entry cited for done",
    "tab_after_finish": "tab operated after the finish check",
    "edited_after_finish": "deliverable edited after the finish check",
    "used_show": "show used",
    "opened_candidate": "a candidate the review offered, opened",
    "finish_check": "finish check issued",
}
TERCILE_LABELS = {1: "lightest third", 2: "middle third", 3: "heaviest third"}


def _metric_label(metric: str) -> str:
    return METRIC_LABELS.get(metric, metric)


def _ci_err(value, low, high, scale: float = 100.0):
    """Asymmetric error-bar lengths (2 x n) from values and CI bounds; 0 where a bound is missing."""
    import numpy as np

    value, low, high = (np.asarray(x, dtype=float) * scale for x in (value, low, high))
    return np.nan_to_num(np.vstack([value - low, high - value]), nan=0.0).clip(min=0)


def _group_bars(
    ax: Any,
    at: Any,
    k: int,
    n: int,
    size: float,
    part: pd.DataFrame,
    column: str,
    label: str,
    *,
    horizontal: bool = False,
) -> None:
    """Bar ``k`` of ``n`` in each group at positions ``at``: ``part[column]`` in percent with its 95% CI
    (``<column>_ci_low`` / ``_ci_high``, or ``ci_low`` / ``ci_high`` for ``value``), one colour per bar."""
    prefix = "" if column == "value" else f"{column}_"
    err = _ci_err(part[column], part[f"{prefix}ci_low"], part[f"{prefix}ci_high"])
    offset = at + (k - (n - 1) / 2) * size
    values = part[column].to_numpy(dtype=float) * 100
    style = {
        "capsize": 2,
        "error_kw": {"elinewidth": 0.8},
        "color": OKABE_ITO[k % len(OKABE_ITO)],
        "label": label,
    }
    if horizontal:
        ax.barh(offset, values, size, xerr=err, **style)
    else:
        ax.bar(offset, values, size, yerr=err, **style)


def plot_main_results(agg: pd.DataFrame, *, metric: str, title: str) -> Figure:
    """One metric of ``results.main_results``: grouped bars, one group per model, one bar per method, with 95% CIs."""
    import matplotlib.pyplot as plt
    import numpy as np

    from rtlab.analysis import arm_label, method_rank, missing_as_none, variant_rank

    with _style():
        data = agg[agg["metric"] == metric]
        models = sorted(data["model"].dropna().unique(), key=str)
        pairs = sorted(
            dict.fromkeys(zip(data["method"], data["variant"], strict=True)),
            key=lambda mv: (method_rank(mv[0]), variant_rank(mv[1])),
        )
        width_in = 2.2 + 1.3 * max(len(models), 1) * max(len(pairs), 1) / 3
        ncols = max(1, min(len(pairs), 5, int(width_in // 1.4)))  # a legend row never wider than the axes
        rows = -(-len(pairs) // ncols)
        fig, ax = plt.subplots(figsize=(width_in, 4.0 + 0.25 * rows))
        width = 0.8 / max(len(pairs), 1)
        x = np.arange(len(models))
        for k, (method, variant) in enumerate(pairs):
            same = data["variant"].isna() if missing_as_none(variant) is None else data["variant"] == variant
            arm = data[(data["method"] == method) & same]
            part = arm.set_index("model").reindex(models)
            _group_bars(ax, x, k, len(pairs), width, part, "value", arm_label(method, variant))
        ax.set_axisbelow(True)
        ax.grid(axis="x", visible=False)
        ax.set_xticks(x, [_short(str(m), 24) for m in models])
        ax.set_xlabel("model")
        ax.set_ylabel(f"{_metric_label(metric)} (%)")
        ax.set_ylim(bottom=0)
        ax.legend(ncols=ncols, loc="lower left", bbox_to_anchor=(0, 1.0), fontsize=8)
        fig.suptitle(title, x=0.01, ha="left", fontweight="bold")
        fig.tight_layout()
    return fig


def plot_ablations(table: pd.DataFrame, *, title: str) -> Figure:
    """``results.ablation_table``: per metric, the drop from the full method when each component is removed (and
    for the no-tab baseline), one bar per model, with paired 95% CIs; in percentage points."""
    import matplotlib.pyplot as plt
    import numpy as np

    with _style():
        data = table[table["role"] != "full"]
        metrics = list(dict.fromkeys(data["metric"]))
        models = sorted(data["model"].dropna().unique(), key=str)
        arms = list(dict.fromkeys(data.loc[data["role"] == "ablation", "arm"]))
        arms += list(dict.fromkeys(data.loc[data["role"] == "baseline", "arm"]))
        labels = [ABLATION_LABELS.get(a, a) if a in ABLATION_LABELS else f"{a} (no tab)" for a in arms]
        fig, axes = plt.subplots(
            1,
            max(len(metrics), 1),
            figsize=(4.2 + 3.6 * len(metrics), 1.6 + 0.5 * len(arms) * max(len(models), 1) / 2),
            sharey=True,
            squeeze=False,
        )
        y = np.arange(len(arms))
        height = 0.8 / max(len(models), 1)
        for ax, metric in zip(axes[0], metrics, strict=False):
            for k, model in enumerate(models):
                part = (
                    data[(data["metric"] == metric) & (data["model"] == model)].set_index("arm").reindex(arms)
                )
                _group_bars(ax, y, k, len(models), height, part, "drop", str(model), horizontal=True)
            ax.axvline(0, color="black", linewidth=0.8)
            ax.set_axisbelow(True)
            ax.grid(axis="y", visible=False)
            ax.set_title(_metric_label(metric), loc="left", fontsize=10)
            ax.set_xlabel("drop from the full tab (percentage points)")
        axes[0, 0].set_yticks(y, labels)
        axes[0, 0].invert_yaxis()
        handles, names = axes[0, 0].get_legend_handles_labels()
        fig.suptitle(title, x=0.01, ha="left", fontweight="bold")
        fig.legend(handles, names, loc="upper right", ncols=min(len(models), 4), fontsize=8)
        bottom = 0.0
        if any(a.startswith("no-capture") for a in arms):
            fig.text(0.01, 0.005, NO_CAPTURE_NOTE, fontsize=7, ha="left", va="bottom", wrap=True)
            bottom = 0.06
        fig.tight_layout(rect=(0, bottom, 1, 0.98))
    return fig


def plot_reading_volume(
    gains: pd.DataFrame,
    *,
    title: str,
    metric: str = "pass_rate",
    method: str = TAB_METHOD,
    baseline: str = BASELINE,
) -> Figure:
    """``reading.gain_by_tercile``: left, ``metric`` per reading third for the baseline (dashed) and the method
    (solid) per model; right, the method's gain over the baseline per third, with paired 95% CIs."""
    import matplotlib.pyplot as plt
    import numpy as np

    with _style():
        data = gains[gains["metric"] == metric]
        models = sorted(data["model"].dropna().unique(), key=str)
        thirds = [1, 2, 3]
        fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.4))
        x = np.arange(len(thirds))
        for k, model in enumerate(models):
            colour = OKABE_ITO[k % len(OKABE_ITO)]
            for name, style, marker in ((baseline, "--", "s"), (method, "-", "o")):
                part = (
                    data[(data["model"] == model) & (data["method"] == name)]
                    .set_index("tercile")
                    .reindex(thirds)
                )
                left.errorbar(
                    x + (0.06 if name == method else -0.06),
                    part["value"].to_numpy(dtype=float) * 100,
                    yerr=_ci_err(part["value"], part["ci_low"], part["ci_high"]),
                    color=colour, linestyle=style, marker=marker, capsize=2, label=f"{model} · {name}",
                )  # fmt: skip
        left.set_xlim(-0.45, len(thirds) - 0.55)
        left.set_xticks(x, [TERCILE_LABELS[t] for t in thirds])
        left.set_xlabel("tasks by how much the agent read")
        left.set_ylabel(f"{_metric_label(metric)} (%)")
        left.set_title(f"{_metric_label(metric)} per third", loc="left", fontsize=10)
        width = 0.8 / max(len(models), 1)
        for k, model in enumerate(models):
            part = (
                data[(data["model"] == model) & (data["method"] == method)]
                .set_index("tercile")
                .reindex(thirds)
            )
            _group_bars(right, x, k, len(models), width, part, "gain", str(model))
        right.axhline(0, color="black", linewidth=0.8)
        right.set_axisbelow(True)
        right.grid(axis="x", visible=False)
        right.set_xticks(x, [TERCILE_LABELS[t] for t in thirds])
        right.set_xlabel("tasks by how much the agent read")
        right.set_ylabel(f"gain over {baseline} (percentage points)")
        right.set_title(f"{method}'s gain over {baseline}", loc="left", fontsize=10)
        fig.suptitle(title, x=0.01, ha="left", fontweight="bold")
        handles, names = left.get_legend_handles_labels()
        fig.legend(
            handles,
            names,
            loc="lower center",
            ncols=min(len(handles), 3),
            fontsize=8,
            bbox_to_anchor=(0.5, 0),
        )
        fig.tight_layout(rect=(0, 0.06 + 0.035 * ((len(handles) + 2) // 3), 1, 1))
    return fig


def plot_operating_styles(summary: pd.DataFrame, *, title: str) -> Figure:
    """``styles.styles_summary``: share of attempts with each flag per model as a heat map, the share and the
    number of attempts where the flag is defined written in each cell, median distinct files under each model."""
    import matplotlib.pyplot as plt
    import numpy as np

    with _style():
        shares = summary[summary["statistic"] == "share"]
        models = sorted(summary["model"].dropna().unique(), key=str)
        flags = [f for f in STYLE_FLAG_LABELS if f in set(shares["flag"])]
        flags += [f for f in dict.fromkeys(shares["flag"]) if f not in flags]
        value = shares.pivot_table(
            index="flag", columns="model", values="value", aggfunc="first", dropna=False
        )
        count = shares.pivot_table(index="flag", columns="model", values="n", aggfunc="first", dropna=False)
        value = value.reindex(index=flags, columns=models).to_numpy(dtype=float) * 100
        count = count.reindex(index=flags, columns=models).to_numpy(dtype=float)
        files = summary[summary["flag"] == "n_files"].set_index("model")["value"].reindex(models)
        fig, ax = plt.subplots(figsize=(4.6 + 1.5 * len(models), 1.4 + 0.5 * len(flags)))
        image = ax.imshow(value, vmin=0, vmax=100, cmap="cividis", aspect="auto")
        ax.grid(False)
        for i in range(len(flags)):
            for j in range(len(models)):
                if np.isnan(value[i, j]):
                    text, colour = "n/a", "black"
                else:
                    text = f"{value[i, j]:.1f}%  (n={int(count[i, j])})"
                    colour = "black" if value[i, j] > 55 else "white"
                ax.text(j, i, text, ha="center", va="center", fontsize=8, color=colour)
        ax.set_xticks(
            range(len(models)),
            [f"{_short(str(m), 22)}\nmedian files read: {f:g}" for m, f in zip(models, files, strict=True)],
        )
        ax.xaxis.tick_top()
        ax.set_yticks(range(len(flags)), [STYLE_FLAG_LABELS.get(f, f) for f in flags])
        ax.tick_params(length=0)
        fig.colorbar(image, ax=ax, label="share of attempts (%)", fraction=0.04, pad=0.02)
        fig.suptitle(title, x=0.01, ha="left", fontweight="bold")
        fig.tight_layout()
    return fig


# ---------------------------------------------------------------------------------------------------------
# The arms run inside Inspect AI (a frame from rtlab.inspect.arms_summary)

INSPECT_ARM_LABELS = {
    "n_steps": "Steps (tool calls answered)",
    "n_tab_calls": "Tab calls",
    "n_finish_checks": "Finish checks given",
    "n_unavailable": "Requirements marked unavailable",
    "n_open": "Requirements left open",
    "score": "Score (share of values stated, %)",
}
"""The measures :func:`plot_inspect_arms` draws, one panel each (columns of ``rtlab.inspect.arms_summary``)."""


def plot_inspect_arms(summary: pd.DataFrame, *, title: str) -> Figure:
    """One panel per measure (:data:`INSPECT_ARM_LABELS`), one bar per arm: its mean over the task's samples,
    the arms in the frame's order (``rtlab.inspect.arms_summary``)."""
    import matplotlib.pyplot as plt
    import numpy as np

    with _style():
        arms = [str(a) for a in summary["arm"]]
        fig, axes = plt.subplots(
            2, 3, figsize=(12, 1.6 + 2 * (0.3 * len(arms) + 0.6)), sharey=True, squeeze=False
        )
        y = np.arange(len(arms))
        for ax, (measure, label) in zip(axes.ravel(), INSPECT_ARM_LABELS.items(), strict=True):
            scale = 100.0 if measure == "score" else 1.0
            values = summary[measure].to_numpy(dtype=float) * scale
            ax.barh(y, values, height=0.6, color=[OKABE_ITO[i % len(OKABE_ITO)] for i in range(len(arms))])
            for k, v in zip(y, values, strict=True):
                ax.text(v, k, f" {v:.2f}".rstrip("0").rstrip("."), va="center", fontsize=8)
            ax.set_title(label, loc="left", fontsize=10)
            ax.set_xlim(left=0, right=max(1.0, float(np.nanmax(values)) * 1.25) if len(values) else 1.0)
        axes[0, 0].set_yticks(y, [_short(a, 30) for a in arms])
        axes[0, 0].invert_yaxis()
        fig.suptitle(title, x=0.01, ha="left", fontweight="bold")
        fig.tight_layout()
    return fig

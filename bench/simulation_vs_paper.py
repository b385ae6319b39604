"""The simulated dataset against the paper: every quantity the paper reports, its value and the simulated one.

    python bench/simulation_vs_paper.py [WORLD]        (default: build/simulated, what `make synth` writes)

A measurement, not a test: it ingests a world written by ``rtlab synth``, computes each quantity with rtlab's
own analyses (tabstats, values, diagnose.breakdown, results, reading, styles, agreement) and prints one
markdown table, quoted in docs/SIMULATION.md. The paper's figures are for Workspace-Bench; where it gives one
LLM's figure, the simulated profile built to behave like that LLM is compared (:data:`LIKE`). Decisions:

- Tab statistics: RunningTab runs (no ablation) replayed with the requirements the agent stated
  (``requirements="trajectory"``); medians per model, reported as their range over the three models.
- Lost points, value shares, Shown-but-Missing success: DCI runs, rule-based labels (``rtlab.analysis._diagnose``) on a
  replay with the default tab, as the paper labels DCI runs; the ground truth's shares are given beside.
- Kappa: rule labels against the ground-truth cause of every failed rubric item of every run.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rtlab  # noqa: E402
from rtlab.analysis import (  # noqa: E402  # noqa: E402  # noqa: E402
    BASELINE,
    CATEGORIES,  # noqa: E402
    TAB_METHOD,
    breakdown,
    diagnose_frame,
    main_mask,
    main_runs,
    review_calls_frame,
    review_coverage_summary,
    tab_stats_frame,
    tab_stats_summary,
    value_summary,
    values_frame,
)
from rtlab.annotation import cohen_kappa_score  # noqa: E402
from rtlab.environment import Replay, replay  # noqa: E402
from rtlab.records import Trajectory  # noqa: E402
from rtlab.synth import ground_truth, is_simulated  # noqa: E402

if TYPE_CHECKING:
    import pandas as pd

DEFAULT_WORLD = ROOT / "build" / "simulated"
LIKE = {
    "sim-finisher": "GPT-5.4 nano",
    "sim-explorer": "DeepSeek V4 Flash",
    "sim-reviewer": "Gemini 3.8 Flash",
}
"""Each simulated profile and the paper's LLM whose operating style it was built to show."""
MODELS = tuple(LIKE)
SHORT = {"sim-finisher": "fin", "sim-explorer": "exp", "sim-reviewer": "rev"}
ORDER = ("sim-reviewer", "sim-finisher", "sim-explorer")
"""The order the simulated column lists the profiles in (the README's)."""
NANO = "sim-finisher"
TAB_PAPER = {
    "n_requirements": ("Requirements (median)", "4 – 5"),
    "n_entries": ("Read-log entries (median)", "6 – 18"),
    "n_files": ("Distinct files in the read log (median)", "5 – 11"),
    "excerpt_chars": ("Excerpt characters (median)", "12K – 40K"),
    "n_candidates": ("Listed-but-unopened candidates (median)", "147 – 294"),
    "review_coverage": (
        "Review coverage: open requirements beside a matching entry, per tab_list call (pooled)",
        "69.9 – 88.0%",
    ),
}
LOSS_PAPER = {"shown_but_missing": 12.3, "dropped_or_distorted": 38.9, "discovery": 17.6, "other": 31.3}
PASS_PAPER = {"sim-finisher": (41.63, 44.73), "sim-explorer": (53.28, 59.99), "sim-reviewer": (31.42, 46.91)}
ABLATION_PAPER = {"no-capture": 3.37, "no-review": 2.86, "no-evidence-check": 1.84, "no-finish-check": 1.84}
STYLE_PAPER = (
    ("sim-reviewer", "requirements_before_finish", "States requirements before the finish check", "100.0%"),
    ("sim-reviewer", "review_before_finish", "Pulls the review before the finish check", "100.0%"),
    ("sim-reviewer", "cited_reviewed_entry", "Cites a reviewed entry for done", "76.9%"),
    ("sim-finisher", "requirements_before_finish", "States requirements before the finish check", "56.9%"),
    ("sim-finisher", "tab_after_finish", "Operates the tab after the finish check", "72.6%"),
    ("sim-finisher", "edited_after_finish", "Edits the deliverable after the finish check", "17.1%"),
    ("sim-finisher", "used_show", "Uses show", "74.6%"),
    ("sim-explorer", "requirements_before_finish", "States requirements before the finish check", "100.0%"),
    ("sim-explorer", "n_files", "Distinct files read (median)", "11"),
    ("sim-explorer", "opened_candidate", "Opens a listed candidate", "54.7%"),
)

Row = tuple[str, str, str]
NAN = math.nan


def pct(x: float, digits: int = 1) -> str:
    """A fraction as a percentage ("12.3%"); an em dash for NaN."""
    return "—" if x is None or math.isnan(x) else f"{100 * x:.{digits}f}%"


def num(x: float) -> str:
    """A median or count: thousands as K above 10,000, else up to one decimal."""
    if x is None or math.isnan(x):
        return "—"
    if abs(x) >= 10_000:
        return f"{x / 1000:.1f}K"
    return f"{x:.0f}" if float(x).is_integer() else f"{x:.1f}"


def arrow(before: float, after: float) -> str:
    """Two fractions as percentage points, ``41.63 → 44.73 (+3.10)``."""
    if math.isnan(before) or math.isnan(after):
        return "—"
    return f"{100 * before:.2f} → {100 * after:.2f} ({100 * (after - before):+.2f})"


def per_model(values: dict[str, float], fmt: Callable[[float], str]) -> str:
    """``low – high (rev a, fin b, exp c)``: the range over the simulated models, then each."""
    present = [values[m] for m in MODELS if m in values and not math.isnan(values[m])]
    if not present:
        return "—"
    each = ", ".join(f"{SHORT[m]} {fmt(values.get(m, NAN))}" for m in ORDER)
    low, high = fmt(min(present)), fmt(max(present))
    return f"{low} ({each})" if low == high else f"{low} – {high} ({each})"


# ---------------------------------------------------------------------------------------------------------
# The quantities


def tab_rows(trajectories: Sequence[Trajectory]) -> list[Row]:
    """Medians of what the tab holds in RunningTab runs (requirements as the agent stated them)."""
    runs = main_runs(trajectories, TAB_METHOD)
    stats = tab_stats_frame([replay(t, requirements="trajectory") for t in runs])
    stats["model"] = [t.model for t in runs]
    median = tab_stats_summary(stats, ["model"]).set_index(["statistic", "model"])["median"]
    coverage = review_coverage_summary(review_calls_frame(runs)).set_index("model")["coverage"]
    rows = []
    for stat, (name, paper) in TAB_PAPER.items():
        if stat == "review_coverage":
            sim = per_model(coverage.to_dict(), pct)
        else:
            sim = per_model({m: median.get((stat, m), NAN) for m in MODELS}, num)
        rows.append((name, paper, sim))
    return rows


def loss_rows(labels: pd.DataFrame, truth: pd.DataFrame) -> list[Row]:
    """Share of DCI's lost rubric points per category: the rule labels (and the ground truth, in brackets)."""
    dci = labels[main_mask(labels, BASELINE)]
    shares = breakdown(dci, ["model"]).set_index(["category", "model"])["share"]
    failed = truth[main_mask(truth, BASELINE) & ~truth["passed"]]
    true_share = failed.groupby("model")["cause"].value_counts(normalize=True)
    rows = []
    for cat in CATEGORIES:
        sim = per_model({m: shares.get((cat, m), NAN) for m in MODELS}, pct)
        truth_nano = true_share.get((NANO, cat), 0.0)
        rows.append(
            (
                f"DCI lost points: {cat} (GPT-5.4 nano)",
                f"{LOSS_PAPER[cat]:.1f}%",
                f"{sim}; truth fin {pct(truth_nano)}",
            )
        )
    return rows


def value_rows(dci: Sequence[Trajectory], replays: dict[str, Replay]) -> list[Row]:
    """Expected numeric values shown but missing from DCI deliverables, and the share the tab holds."""
    frame = values_frame(dci, replays)
    frame["model"] = frame["trajectory"].map({t.id: t.model for t in dci})
    missing, held, counts = {}, {}, {}
    for model, g in frame.groupby("model"):
        s = value_summary(g)
        missing[model], held[model] = s["share_shown_missing"], s["share_failed_missing_held"]
        counts[model] = s["shown"]
    overall = value_summary(frame)
    return [
        (
            "Shown expected values missing from the deliverable (DCI)",
            "19.8% (of 891)",
            f"{per_model(missing, pct)}; all {pct(overall['share_shown_missing'])} of {overall['shown']}",
        ),
        (
            "Of those (failed items), held by the tab (DCI, GPT-5.4 nano)",
            "94.8%",
            f"{per_model(held, pct)}; all {pct(overall['share_failed_missing_held'])}",
        ),
    ]


def pass_rows(scores: pd.DataFrame) -> list[Row]:
    """Pass rate (and nano's TCR@70) of DCI and RunningTab per model."""
    agg = rtlab.main_results(scores, methods=[BASELINE, TAB_METHOD], n_boot=200)
    value = agg.set_index(["model", "method", "metric"])["value"]
    rows = []
    for model in MODELS:
        dci, tab = (
            value.get((model, BASELINE, "pass_rate"), NAN),
            value.get((model, TAB_METHOD, "pass_rate"), NAN),
        )
        paper_dci, paper_tab = PASS_PAPER[model]
        rows.append(
            (
                f"Pass rate DCI → RunningTab ({LIKE[model]} / {model})",
                f"{paper_dci:.2f} → {paper_tab:.2f} (+{paper_tab - paper_dci:.2f})",
                arrow(dci, tab),
            )
        )
    dci, tab = value.get((NANO, BASELINE, "tcr@70"), NAN), value.get((NANO, TAB_METHOD, "tcr@70"), NAN)
    rows.append(
        (
            f"TCR@70 DCI → RunningTab (GPT-5.4 nano / {NANO})",
            "20.67 → 25.67 (+5.00)",
            arrow(dci, tab),
        )
    )
    return rows


def ablation_rows(scores: pd.DataFrame) -> list[Row]:
    """Pass-rate drop of each RunningTab ablation from the full method, with the nano-like profile's paired CI."""
    table = rtlab.ablation_table(scores, n_boot=1000)
    table = table[(table["metric"] == "pass_rate") & (table["role"] == "ablation")].set_index(
        ["arm", "model"]
    )
    rows = []
    for variant, paper in ABLATION_PAPER.items():
        drops = {m: 100 * table["drop"].get((variant, m), NAN) for m in MODELS}
        low = 100 * table["drop_ci_low"].get((variant, NANO), NAN)
        high = 100 * table["drop_ci_high"].get((variant, NANO), NAN)
        rows.append(
            (
                f"Pass-rate drop without {variant.removeprefix('no-')} (GPT-5.4 nano)",
                f"{paper:.2f}",
                f"{per_model(drops, '{:.2f}'.format)}; fin 95% CI [{low:.2f}, {high:.2f}]",
            )
        )
    return rows


def reading_rows(
    scores: pd.DataFrame, replays: dict[str, Replay], trajectories: Sequence[Trajectory]
) -> list[Row]:
    """DCI's drop from the lightest to the heaviest third of tasks, and RunningTab's gain per third."""
    volume = tab_stats_frame([replays[t.id] for t in trajectories])[["trajectory", "excerpt_chars"]]
    thirds = rtlab.reading_terciles(scores, volume)
    gains = rtlab.gain_by_tercile(scores, thirds, methods=[BASELINE, TAB_METHOD], n_boot=200)
    gains = gains[gains["metric"] == "pass_rate"].set_index(["model", "method", "tercile"])
    drop = {m: 100 * gains["light_minus_heavy"].get((m, BASELINE, 1), NAN) for m in MODELS}
    light = {m: 100 * gains["gain"].get((m, TAB_METHOD, 1), NAN) for m in MODELS}
    heavy = {m: 100 * gains["gain"].get((m, TAB_METHOD, 3), NAN) for m in MODELS}
    ratio = {m: heavy[m] / light[m] if light[m] > 0 else NAN for m in MODELS}
    two = "{:.2f}".format
    return [
        ("DCI pass-rate drop, lightest → heaviest third of tasks", "16 – 27 points", per_model(drop, two)),
        ("RunningTab gain over DCI, lightest third", "—", per_model(light, two)),
        ("RunningTab gain over DCI, heaviest third", "—", per_model(heavy, two)),
        ("Gain heaviest / lightest third", "≈ 2× on average", per_model(ratio, lambda x: f"{x:.1f}×")),
    ]


def sbm_rows(labels: pd.DataFrame, trajectories: Sequence[Trajectory]) -> list[Row]:
    """Success of RunningTab and DCI on the items DCI lost as Shown but Missing."""
    table = rtlab.shown_but_missing_success(labels, rtlab.item_outcomes(trajectories))
    success = table.set_index(["model", "method"])["success"]
    return [
        (
            "Success on items DCI lost as Shown but Missing: RunningTab vs DCI (GPT-5.4 nano)",
            "27.0% vs 20.7%",
            "; ".join(
                f"{SHORT[m]} {pct(success.get((m, TAB_METHOD), NAN))} vs "
                f"{pct(success.get((m, BASELINE), NAN))}"
                for m in ORDER
            ),
        )
    ]


def style_rows(trajectories: Sequence[Trajectory]) -> list[Row]:
    """The operating-style shares the paper gives per LLM, for the profile built to show each style."""
    runs = main_runs(trajectories, TAB_METHOD)
    summary = rtlab.styles_summary(rtlab.operating_styles(runs), by="model").set_index(["model", "flag"])
    rows = []
    for model, flag, name, paper in STYLE_PAPER:
        value = summary["value"].get((model, flag), NAN)
        sim = num(value) if flag == "n_files" else pct(value)
        rows.append((f"{name} ({LIKE[model]} / {model})", paper, sim))
    return rows


def kappa_rows(labels: pd.DataFrame, truth: pd.DataFrame) -> list[Row]:
    """Cohen's kappa of the rule labels against the simulated ground truth, over every failed item."""
    failed = truth[~truth["passed"]][["trajectory", "rubric_index", "cause"]]
    joined = failed.merge(
        labels[["trajectory", "rubric_index", "category"]], on=["trajectory", "rubric_index"]
    )
    if len(joined) != len(failed) or len(joined) != len(labels):
        raise SystemExit(
            f"labels ({len(labels)}) and failed ground-truth items ({len(failed)}) do not pair up"
        )
    kappa = cohen_kappa_score(list(joined["cause"]), list(joined["category"]))
    agree = (joined["cause"] == joined["category"]).mean()
    return [
        (
            "Cohen's kappa of failure labels vs reference",
            "0.83 (LLM annotators vs human labels)",
            f"{kappa:.3f} (rule labels vs ground truth, {len(joined)} items; agreement {pct(agree)})",
        )
    ]


# ---------------------------------------------------------------------------------------------------------


def markdown(rows: Iterable[Row]) -> str:
    lines = ["| Quantity | Paper | Simulated |", "|---|---|---|"]
    lines += [f"| {q} | {p} | {s} |" for q, p, s in rows]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("world", nargs="?", help=f"a folder rtlab synth wrote (default: {DEFAULT_WORLD})")
    args = parser.parse_args(argv)
    world = Path(args.world or DEFAULT_WORLD)
    if not (world / "ground_truth.csv").is_file() or not is_simulated(world):
        print(f"{world}: not a simulated world (run `make synth` or `rtlab synth {world}`)", file=sys.stderr)
        return 0 if args.world is None else 2  # `make bench` runs every script bare: no world yet is a skip
    start = time.perf_counter()
    result = rtlab.ingest([world])
    if result.failures:
        raise SystemExit(f"{len(result.failures)} runs could not be read: {result.failures[0]}")
    trajectories = result.trajectories
    replays = {t.id: replay(t) for t in trajectories}
    labels = diagnose_frame(trajectories, replays=[replays[t.id] for t in trajectories])
    truth = ground_truth(world)
    scores = rtlab.scores_frame(trajectories)
    dci = main_runs(trajectories, BASELINE)
    rows = [
        *tab_rows(trajectories),
        *loss_rows(labels, truth),
        *value_rows(dci, replays),
        *pass_rows(scores),
        *ablation_rows(scores),
        *reading_rows(scores, replays, trajectories),
        *sbm_rows(labels, trajectories),
        *style_rows(trajectories),
        *kappa_rows(labels, truth),
    ]
    print(f"SIMULATED world {world}: {len(trajectories)} runs, {len(labels)} failed rubric items labelled.")
    print(
        "Simulated: range over the three profiles (rev = sim-reviewer, fin = sim-finisher, exp = sim-explorer)."
    )
    print()
    print(markdown(rows))
    print(f"\n({time.perf_counter() - start:.0f} s)", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""The result figures drawn from small made-up results: each has its title, axis labels with units, a legend
outside the data and CI error bars, and saves as PNG and PDF."""

from __future__ import annotations

from pathlib import Path

import matplotlib
import numpy as np
import pandas as pd
import pytest
from test_results import frame, wb_row

from rtlab.analysis import (
    FLAGS,
    METHOD_ORDER,
    STYLE_COLUMNS,
    VARIANT_ORDER,
    ablation_table,
    gain_by_tercile,
    main_results,
    reading_terciles,
    styles_summary,
)
from rtlab.figures import (
    plot_ablations,
    plot_main_results,
    plot_operating_styles,
    plot_reading_volume,
    save_figure,
)

matplotlib.use("Agg")

MODELS = ("GPT-5.4 nano", "DeepSeek V4 Flash", "Gemini 3.8 Flash")
BOOST = {"DCI": 0.0, "TODO": 0.01, "Self-Refine": 0.02, "Self-Tracking": 0.015, "RunningTab": 0.07}
ABLATED = {"no-capture": 0.065, "no-review": 0.04, "no-evidence-check": 0.03, "no-finish-check": 0.03}


def synthetic_scores(n_tasks: int = 12, seed: int = 0) -> tuple[pd.DataFrame, pd.DataFrame]:
    """Scores of every method and ablation (3 runs) and reading volumes: heavier reading, lower DCI pass rate."""
    rng = np.random.default_rng(seed)
    rows, chars = [], []
    for m, model in enumerate(MODELS):
        heaviness = rng.permutation(n_tasks) / n_tasks
        arms = [(meth, None, b) for meth, b in BOOST.items()]
        arms += [("RunningTab", v, BOOST["RunningTab"] - d) for v, d in ABLATED.items()]
        for method, variant, boost in arms:
            for t in range(n_tasks):
                for run in "123":
                    # RunningTab's edge grows with reading (its boost doubles on the heaviest tasks)
                    p = 0.65 - 0.1 * m - 0.25 * heaviness[t] + boost * (0.5 + heaviness[t]) * 1.5
                    rows.append(
                        wb_row(f"t{t:02d}", run, int(rng.binomial(20, min(max(p, 0), 1))), 20, model=model,
                               method=method, variant=variant)
                    )  # fmt: skip
                    chars.append(5000 + 40000 * heaviness[t] + rng.normal(0, 1000))
    scores = frame(*rows)
    return scores, pd.DataFrame({"trajectory": scores["trajectory"], "excerpt_chars": chars})


def synthetic_styles(n: int = 40, seed: int = 0) -> pd.DataFrame:
    """An operating_styles-shaped frame: each model leaning on a different part of the tab."""
    rng = np.random.default_rng(seed)
    lean = {
        MODELS[0]: [0.57, 0.6, 0.4, 0.73, 0.17, 0.75, 0.3, 0.8],
        MODELS[1]: [1.0, 0.7, 0.5, 0.4, 0.1, 0.3, 0.55, 0.6],
        MODELS[2]: [1.0, 1.0, 0.77, 0.3, 0.05, 0.2, 0.25, 0.5],
    }
    rows = []
    for model, probs in lean.items():
        for k in range(n):
            flags = dict(zip(FLAGS, (bool(rng.random() < p) for p in probs), strict=True))
            if not flags["finish_check"]:
                flags["tab_after_finish"] = flags["edited_after_finish"] = None
            rows.append(
                {"trajectory": f"{model}/{k}", "task_id": f"t{k}", "model": model, "method": "RunningTab",
                 "variant": None, "run": "1", **flags, "n_files": int(rng.integers(3, 16))}
            )  # fmt: skip
    return pd.DataFrame(rows, columns=list(STYLE_COLUMNS)).astype(dict.fromkeys(FLAGS, "boolean"))


def all_figures(n_boot: int = 100):
    """Every result figure from the synthetic data, by file name."""
    scores, volume = synthetic_scores()
    agg = main_results(scores, n_boot=n_boot)
    ablations = ablation_table(scores, n_boot=n_boot)
    gains = gain_by_tercile(scores, reading_terciles(scores, volume), n_boot=n_boot)
    summary = styles_summary(synthetic_styles())
    return {
        "main_results": plot_main_results(
            agg, metric="pass_rate", title="Workspace-Bench: Pass Rate by method"
        ),
        "ablations": plot_ablations(ablations, title="Workspace-Bench: what each tab component is worth"),
        "reading_volume": plot_reading_volume(gains, title="Workspace-Bench: gains grow with reading volume"),
        "operating_styles": plot_operating_styles(summary, title="How each model operates the tab"),
    }


@pytest.fixture(scope="module")
def figures():
    figs = all_figures(n_boot=50)
    yield figs
    import matplotlib.pyplot as plt

    for fig in figs.values():
        plt.close(fig)


def _texts(fig) -> list[str]:
    return [t.get_text() for t in fig.findobj(matplotlib.text.Text)]


def test_every_figure_has_title_and_labelled_axes(figures, tmp_path: Path) -> None:
    for name, fig in figures.items():
        assert fig._suptitle is not None and fig._suptitle.get_text(), name
        written = save_figure(fig, name, tmp_path)
        assert [p.suffix for p in written] == [".png", ".pdf"] and all(
            p.stat().st_size > 1000 for p in written
        )


def test_main_results_bars_and_cis(figures) -> None:
    ax = figures["main_results"].axes[0]
    assert ax.get_ylabel() == "Pass Rate (%)" and ax.get_xlabel() == "model"
    # one bar per model and method, legend in the paper's method order, above the axes
    assert len(ax.patches) == len(MODELS) * len(METHOD_ORDER)
    assert [t.get_text() for t in ax.get_legend().get_texts()] == list(METHOD_ORDER)
    assert len([c for c in ax.containers if hasattr(c, "errorbar") and c.errorbar is not None]) == len(
        METHOD_ORDER
    )
    assert [t.get_text() for t in ax.get_xticklabels()] == sorted(MODELS)


def test_ablations_panels(figures) -> None:
    fig = figures["ablations"]
    axes = [ax for ax in fig.axes if ax.get_title(loc="left")]
    assert [ax.get_title(loc="left") for ax in axes] == ["Pass Rate", "TCR@70"]
    labels = [t.get_text() for t in axes[0].get_yticklabels()]
    assert labels == [
        "− environmental capture\n(no entry: done uncitable)",  # the ablation's reading, on the figure
        "− review",
        "− evidence check",
        "− finish check",
        "DCI (no tab)",
    ]
    assert len(axes[0].patches) == len(MODELS) * (len(VARIANT_ORDER) + 1)
    assert "percentage points" in axes[0].get_xlabel()
    assert sorted(t.get_text() for t in fig.legends[0].get_texts()) == sorted(MODELS)
    assert any("done can never be cited" in t.get_text() for t in fig.texts)  # the note under the panels


def test_reading_volume_panels(figures) -> None:
    left, right = figures["reading_volume"].axes
    assert left.get_ylabel() == "Pass Rate (%)" and "percentage points" in right.get_ylabel()
    assert [t.get_text() for t in left.get_xticklabels()] == [
        "lightest third",
        "middle third",
        "heaviest third",
    ]
    assert len(left.lines) >= 2 * len(MODELS) and len(right.patches) == 3 * len(MODELS)
    assert len(figures["reading_volume"].legends[0].get_texts()) == 2 * len(MODELS)


def test_operating_styles_heatmap(figures) -> None:
    ax = figures["operating_styles"].axes[0]
    assert len(ax.get_yticklabels()) == len(FLAGS)
    texts = _texts(figures["operating_styles"])
    assert any("median files read" in t for t in texts) and any("%  (n=" in t for t in texts)
    assert "share of attempts (%)" in texts


def test_a_figure_from_simulated_data_says_so(tmp_path) -> None:
    import matplotlib.pyplot as plt

    from rtlab.figures import SIMULATED_NOTE, save_figure

    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    paths = save_figure(fig, "x", tmp_path, simulated=True)
    assert [p.name for p in paths] == ["x-simulated.png", "x-simulated.pdf"]
    assert any(t.get_text() == SIMULATED_NOTE for t in fig.texts)
    plt.close(fig)


def test_is_simulated_finds_the_marker_above(tmp_path) -> None:
    from rtlab.synth.world import SIMULATED_MARKER, is_simulated

    (tmp_path / SIMULATED_MARKER).write_text("simulated", encoding="utf-8")
    (tmp_path / "runs" / "t1").mkdir(parents=True)
    assert is_simulated(tmp_path) and is_simulated(tmp_path / "runs" / "t1")
    assert not is_simulated(tmp_path.parent)

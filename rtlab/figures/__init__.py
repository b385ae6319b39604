"""Figures: the dataset a notebook opens (:func:`open_dataset`; the embedded simulated one by default, found from
``notebooks/`` as from the root by :func:`locate`), one plotting function per figure in the house
style, and the headless notebook runner behind ``make figures``. Never calls a language model."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.figures._dataset import Dataset as Dataset
    from rtlab.figures._dataset import DatasetNotBuilt as DatasetNotBuilt
    from rtlab.figures._dataset import embedded_dataset as embedded_dataset
    from rtlab.figures._dataset import open_dataset as open_dataset
    from rtlab.figures._notebooks import NotebookFailure as NotebookFailure
    from rtlab.figures._notebooks import NotebookSkipped as NotebookSkipped
    from rtlab.figures._notebooks import SkipNotebook as SkipNotebook
    from rtlab.figures._notebooks import main as main
    from rtlab.figures._notebooks import parameter_cell as parameter_cell
    from rtlab.figures._notebooks import run_notebook as run_notebook
    from rtlab.figures._notebooks import skip_unless as skip_unless
    from rtlab.figures._paths import EMBEDDED as EMBEDDED
    from rtlab.figures._paths import EMBEDDED_CONFIG as EMBEDDED_CONFIG
    from rtlab.figures._paths import ROOT as ROOT
    from rtlab.figures._paths import locate as locate
    from rtlab.figures._paths import repository as repository
    from rtlab.figures._plots import ABLATION_LABELS as ABLATION_LABELS
    from rtlab.figures._plots import CATEGORY_LABELS as CATEGORY_LABELS
    from rtlab.figures._plots import CATEGORY_ORDER as CATEGORY_ORDER
    from rtlab.figures._plots import CONDITION_LABELS as CONDITION_LABELS
    from rtlab.figures._plots import METRIC_LABELS as METRIC_LABELS
    from rtlab.figures._plots import OKABE_ITO as OKABE_ITO
    from rtlab.figures._plots import SIMULATED_NOTE as SIMULATED_NOTE
    from rtlab.figures._plots import SIMULATED_SUFFIX as SIMULATED_SUFFIX
    from rtlab.figures._plots import STYLE as STYLE
    from rtlab.figures._plots import STYLE_FLAG_LABELS as STYLE_FLAG_LABELS
    from rtlab.figures._plots import TAB_STAT_LABELS as TAB_STAT_LABELS
    from rtlab.figures._plots import TERCILE_LABELS as TERCILE_LABELS
    from rtlab.figures._plots import plot_ablations as plot_ablations
    from rtlab.figures._plots import plot_breakdown as plot_breakdown
    from rtlab.figures._plots import plot_confusion as plot_confusion
    from rtlab.figures._plots import plot_inspect_arms as plot_inspect_arms
    from rtlab.figures._plots import plot_kappa_matrix as plot_kappa_matrix
    from rtlab.figures._plots import plot_main_results as plot_main_results
    from rtlab.figures._plots import plot_operating_styles as plot_operating_styles
    from rtlab.figures._plots import plot_reading_volume as plot_reading_volume
    from rtlab.figures._plots import plot_recovery as plot_recovery
    from rtlab.figures._plots import plot_step_sizes as plot_step_sizes
    from rtlab.figures._plots import plot_tab_stats as plot_tab_stats
    from rtlab.figures._plots import plot_trajectory_sizes as plot_trajectory_sizes
    from rtlab.figures._plots import plot_value_coverage as plot_value_coverage
    from rtlab.figures._plots import save_figure as save_figure
    from rtlab.figures._plots import simulated_tag as simulated_tag

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._paths": ("ROOT", "EMBEDDED", "EMBEDDED_CONFIG", "locate", "repository"),
        "._dataset": ("Dataset", "DatasetNotBuilt", "embedded_dataset", "open_dataset"),
        "._plots": (
            "OKABE_ITO",
            "STYLE",
            "SIMULATED_SUFFIX",
            "SIMULATED_NOTE",
            "simulated_tag",
            "save_figure",
            "plot_trajectory_sizes",
            "plot_step_sizes",
            "CATEGORY_ORDER",
            "CATEGORY_LABELS",
            "plot_breakdown",
            "plot_value_coverage",
            "CONDITION_LABELS",
            "plot_recovery",
            "plot_confusion",
            "plot_kappa_matrix",
            "TAB_STAT_LABELS",
            "plot_inspect_arms",
            "plot_tab_stats",
            "METRIC_LABELS",
            "ABLATION_LABELS",
            "STYLE_FLAG_LABELS",
            "TERCILE_LABELS",
            "plot_main_results",
            "plot_ablations",
            "plot_reading_volume",
            "plot_operating_styles",
        ),
        "._notebooks": (
            "SkipNotebook",
            "skip_unless",
            "NotebookSkipped",
            "NotebookFailure",
            "parameter_cell",
            "run_notebook",
            "main",
        ),
    },
)

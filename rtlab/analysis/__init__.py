"""Analyses of replayed runs, as plain functions returning DataFrames: numeric values shown, delivered and
held; the failure diagnosis and its codebook; the benchmarks' metrics with bootstrap intervals; the paper's
tables (main results, ablations, reading volume), operating styles and tab statistics; flat summaries."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.analysis._arms import BASELINE as BASELINE
    from rtlab.analysis._arms import METHOD_ORDER as METHOD_ORDER
    from rtlab.analysis._arms import TAB_METHOD as TAB_METHOD
    from rtlab.analysis._arms import VARIANT_ORDER as VARIANT_ORDER
    from rtlab.analysis._arms import is_main_run as is_main_run
    from rtlab.analysis._arms import main_mask as main_mask
    from rtlab.analysis._arms import main_runs as main_runs
    from rtlab.analysis._bootstrap import bootstrap_weights as bootstrap_weights
    from rtlab.analysis._bootstrap import percentile_interval as percentile_interval
    from rtlab.analysis._codebook import CATEGORIES as CATEGORIES
    from rtlab.analysis._codebook import CODEBOOK_FILE as CODEBOOK_FILE
    from rtlab.analysis._codebook import CODEBOOK_VERSION as CODEBOOK_VERSION
    from rtlab.analysis._codebook import CONFIDENCES as CONFIDENCES
    from rtlab.analysis._codebook import LEXICON_LISTS as LEXICON_LISTS
    from rtlab.analysis._codebook import Category as Category
    from rtlab.analysis._codebook import Codebook as Codebook
    from rtlab.analysis._codebook import CodebookError as CodebookError
    from rtlab.analysis._codebook import Confidence as Confidence
    from rtlab.analysis._codebook import Example as Example
    from rtlab.analysis._codebook import Feature as Feature
    from rtlab.analysis._codebook import Lexicon as Lexicon
    from rtlab.analysis._codebook import Rule as Rule
    from rtlab.analysis._codebook import Subreason as Subreason
    from rtlab.analysis._codebook import load_codebook as load_codebook
    from rtlab.analysis._codebook import parse_codebook as parse_codebook
    from rtlab.analysis._diagnose import LABEL_FIELDS as LABEL_FIELDS
    from rtlab.analysis._diagnose import ItemFacts as ItemFacts
    from rtlab.analysis._diagnose import Label as Label
    from rtlab.analysis._diagnose import RefMode as RefMode
    from rtlab.analysis._diagnose import RunEvidence as RunEvidence
    from rtlab.analysis._diagnose import breakdown as breakdown
    from rtlab.analysis._diagnose import decide as decide
    from rtlab.analysis._diagnose import deliverable_files as deliverable_files
    from rtlab.analysis._diagnose import diagnose as diagnose
    from rtlab.analysis._diagnose import diagnose_frame as diagnose_frame
    from rtlab.analysis._diagnose import diagnosis_rows as diagnosis_rows
    from rtlab.analysis._diagnose import failed_items as failed_items
    from rtlab.analysis._diagnose import item_facts as item_facts
    from rtlab.analysis._diagnose import label_to_dict as label_to_dict
    from rtlab.analysis._diagnose import labels_frame as labels_frame
    from rtlab.analysis._diagnose import locate_value as locate_value
    from rtlab.analysis._diagnose import referred_files as referred_files
    from rtlab.analysis._diagnose import run_evidence as run_evidence
    from rtlab.analysis._diagnose import same_file as same_file
    from rtlab.analysis._diagnose import task_sources as task_sources
    from rtlab.analysis._diagnose import values_of as values_of
    from rtlab.analysis._expressions import AUTO_SOURCES as AUTO_SOURCES
    from rtlab.analysis._expressions import SourceFinder as SourceFinder
    from rtlab.analysis._expressions import SourceFolder as SourceFolder
    from rtlab.analysis._metrics import AGGREGATE_COLUMNS as AGGREGATE_COLUMNS
    from rtlab.analysis._metrics import SCORE_COLUMNS as SCORE_COLUMNS
    from rtlab.analysis._metrics import aggregate as aggregate
    from rtlab.analysis._metrics import officeqa_prediction as officeqa_prediction
    from rtlab.analysis._metrics import records as records
    from rtlab.analysis._metrics import score_record as score_record
    from rtlab.analysis._metrics import scores_frame as scores_frame
    from rtlab.analysis._proposals import COVER_SHARE as COVER_SHARE
    from rtlab.analysis._proposals import FRAME_WORDS as FRAME_WORDS
    from rtlab.analysis._proposals import ProposalCoverage as ProposalCoverage
    from rtlab.analysis._proposals import content_terms as content_terms
    from rtlab.analysis._proposals import cover_share as cover_share
    from rtlab.analysis._proposals import covers as covers
    from rtlab.analysis._proposals import proposal_coverage as proposal_coverage
    from rtlab.analysis._results import ABLATION_COLUMNS as ABLATION_COLUMNS
    from rtlab.analysis._results import ITEM_COLUMNS as ITEM_COLUMNS
    from rtlab.analysis._results import ablation_table as ablation_table
    from rtlab.analysis._results import arm_label as arm_label
    from rtlab.analysis._results import item_outcomes as item_outcomes
    from rtlab.analysis._results import main_results as main_results
    from rtlab.analysis._results import method_rank as method_rank
    from rtlab.analysis._results import missing_as_none as missing_as_none
    from rtlab.analysis._results import paired_difference as paired_difference
    from rtlab.analysis._results import records_frame as records_frame
    from rtlab.analysis._results import results_table as results_table
    from rtlab.analysis._results import shown_but_missing_success as shown_but_missing_success
    from rtlab.analysis._results import sort_rows as sort_rows
    from rtlab.analysis._results import variant_rank as variant_rank
    from rtlab.analysis._styles import AFTER_FINISH as AFTER_FINISH
    from rtlab.analysis._styles import FLAGS as FLAGS
    from rtlab.analysis._styles import STYLE_COLUMNS as STYLE_COLUMNS
    from rtlab.analysis._styles import SUMMARY_COLUMNS as SUMMARY_COLUMNS
    from rtlab.analysis._styles import ReadingPass as ReadingPass
    from rtlab.analysis._styles import deliverable_writes as deliverable_writes
    from rtlab.analysis._styles import finish_check_event as finish_check_event
    from rtlab.analysis._styles import offered_candidates as offered_candidates
    from rtlab.analysis._styles import operating_styles as operating_styles
    from rtlab.analysis._styles import reading_pass as reading_pass
    from rtlab.analysis._styles import style_record as style_record
    from rtlab.analysis._styles import styles_summary as styles_summary
    from rtlab.analysis._summary import STEP_COLUMNS as STEP_COLUMNS
    from rtlab.analysis._summary import format_step as format_step
    from rtlab.analysis._summary import format_summary as format_summary
    from rtlab.analysis._summary import format_summary_row as format_summary_row
    from rtlab.analysis._summary import steps_frame as steps_frame
    from rtlab.analysis._summary import summaries_frame as summaries_frame
    from rtlab.analysis._summary import summary_frame as summary_frame
    from rtlab.analysis._summary import summary_row as summary_row
    from rtlab.analysis._summary import trajectory_summary as trajectory_summary
    from rtlab.analysis._tabstats import COVERAGE_COLUMNS as COVERAGE_COLUMNS
    from rtlab.analysis._tabstats import REVIEW_CALL_COLUMNS as REVIEW_CALL_COLUMNS
    from rtlab.analysis._tabstats import STAT_COLUMNS as STAT_COLUMNS
    from rtlab.analysis._tabstats import final_review_coverage as final_review_coverage
    from rtlab.analysis._tabstats import requirement_source as requirement_source
    from rtlab.analysis._tabstats import review_calls_frame as review_calls_frame
    from rtlab.analysis._tabstats import review_coverage as review_coverage
    from rtlab.analysis._tabstats import review_coverage_summary as review_coverage_summary
    from rtlab.analysis._tabstats import tab_stats_frame as tab_stats_frame
    from rtlab.analysis._tabstats import tab_stats_summary as tab_stats_summary
    from rtlab.analysis._values import ANCHOR_COLUMNS as ANCHOR_COLUMNS
    from rtlab.analysis._values import DERIVED_VALUE_COLUMNS as DERIVED_VALUE_COLUMNS
    from rtlab.analysis._values import VALUE_COLUMNS as VALUE_COLUMNS
    from rtlab.analysis._values import anchor_rows as anchor_rows
    from rtlab.analysis._values import anchors_frame as anchors_frame
    from rtlab.analysis._values import anchors_table as anchors_table
    from rtlab.analysis._values import deliverable_text as deliverable_text
    from rtlab.analysis._values import derived_frame as derived_frame
    from rtlab.analysis._values import derived_rows as derived_rows
    from rtlab.analysis._values import derived_summary as derived_summary
    from rtlab.analysis._values import expected_values as expected_values
    from rtlab.analysis._values import failed_shown_missing as failed_shown_missing
    from rtlab.analysis._values import file_text as file_text
    from rtlab.analysis._values import item_anchors as item_anchors
    from rtlab.analysis._values import item_values as item_values
    from rtlab.analysis._values import value_records as value_records
    from rtlab.analysis._values import value_rows as value_rows
    from rtlab.analysis._values import value_summary as value_summary
    from rtlab.analysis._values import values_frame as values_frame
    from rtlab.analysis._values import values_table as values_table
    from rtlab.analysis._volume import GAIN_COLUMNS as GAIN_COLUMNS
    from rtlab.analysis._volume import TERCILE_COLUMNS as TERCILE_COLUMNS
    from rtlab.analysis._volume import TERCILE_NAMES as TERCILE_NAMES
    from rtlab.analysis._volume import gain_by_tercile as gain_by_tercile
    from rtlab.analysis._volume import reading_terciles as reading_terciles
    from rtlab.analysis._volume import tercile_sizes as tercile_sizes

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._arms": (
            "BASELINE",
            "TAB_METHOD",
            "METHOD_ORDER",
            "VARIANT_ORDER",
            "is_main_run",
            "main_mask",
            "main_runs",
        ),
        "._bootstrap": ("bootstrap_weights", "percentile_interval"),
        "._expressions": ("AUTO_SOURCES", "SourceFinder", "SourceFolder"),
        "._codebook": (
            "CODEBOOK_VERSION",
            "CODEBOOK_FILE",
            "CATEGORIES",
            "LEXICON_LISTS",
            "Example",
            "Rule",
            "Confidence",
            "CONFIDENCES",
            "Subreason",
            "Category",
            "Feature",
            "Lexicon",
            "Codebook",
            "CodebookError",
            "parse_codebook",
            "load_codebook",
        ),
        "._values": (
            "ANCHOR_COLUMNS",
            "anchor_rows",
            "anchors_frame",
            "anchors_table",
            "item_anchors",
            "VALUE_COLUMNS",
            "DERIVED_VALUE_COLUMNS",
            "derived_rows",
            "derived_frame",
            "derived_summary",
            "deliverable_text",
            "expected_values",
            "failed_shown_missing",
            "file_text",
            "item_values",
            "value_records",
            "value_rows",
            "value_summary",
            "values_frame",
            "values_table",
        ),
        "._diagnose": (
            "ItemFacts",
            "LABEL_FIELDS",
            "Label",
            "RefMode",
            "RunEvidence",
            "breakdown",
            "decide",
            "deliverable_files",
            "diagnose",
            "diagnose_frame",
            "diagnosis_rows",
            "values_of",
            "failed_items",
            "item_facts",
            "label_to_dict",
            "labels_frame",
            "locate_value",
            "referred_files",
            "run_evidence",
            "same_file",
            "task_sources",
        ),
        "._metrics": (
            "AGGREGATE_COLUMNS",
            "SCORE_COLUMNS",
            "aggregate",
            "officeqa_prediction",
            "records",
            "score_record",
            "scores_frame",
        ),
        "._results": (
            "ABLATION_COLUMNS",
            "ITEM_COLUMNS",
            "ablation_table",
            "arm_label",
            "item_outcomes",
            "main_results",
            "method_rank",
            "missing_as_none",
            "paired_difference",
            "records_frame",
            "results_table",
            "shown_but_missing_success",
            "sort_rows",
            "variant_rank",
        ),
        "._volume": (
            "GAIN_COLUMNS",
            "TERCILE_COLUMNS",
            "TERCILE_NAMES",
            "gain_by_tercile",
            "reading_terciles",
            "tercile_sizes",
        ),
        "._styles": (
            "AFTER_FINISH",
            "ReadingPass",
            "deliverable_writes",
            "FLAGS",
            "STYLE_COLUMNS",
            "SUMMARY_COLUMNS",
            "finish_check_event",
            "offered_candidates",
            "operating_styles",
            "reading_pass",
            "style_record",
            "styles_summary",
        ),
        "._tabstats": (
            "COVERAGE_COLUMNS",
            "REVIEW_CALL_COLUMNS",
            "STAT_COLUMNS",
            "final_review_coverage",
            "requirement_source",
            "review_calls_frame",
            "review_coverage",
            "review_coverage_summary",
            "tab_stats_frame",
            "tab_stats_summary",
        ),
        "._proposals": (
            "COVER_SHARE",
            "FRAME_WORDS",
            "ProposalCoverage",
            "content_terms",
            "cover_share",
            "covers",
            "proposal_coverage",
        ),
        "._summary": (
            "STEP_COLUMNS",
            "trajectory_summary",
            "summary_frame",
            "summaries_frame",
            "summary_row",
            "format_summary_row",
            "steps_frame",
            "format_summary",
            "format_step",
        ),
    },
)

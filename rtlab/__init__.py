"""rtlab: replay recorded LLM-agent trajectories and rebuild the RunningTab environment-side tab.

The stages are packages (``rtlab.records``, ``rtlab.io``, ``rtlab.text``, ``rtlab.ingest``, ``rtlab.environment``,
``rtlab.runner``, ``rtlab.analysis``, ``rtlab.llm``, ``rtlab.annotation``, ``rtlab.figures``, ``rtlab.synth``); the
names most used are here too. Importing ``rtlab`` is cheap: every name is imported when first used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.analysis import ablation_table as ablation_table
    from rtlab.analysis import aggregate as aggregate
    from rtlab.analysis import diagnose as diagnose
    from rtlab.analysis import diagnose_frame as diagnose_frame
    from rtlab.analysis import format_step as format_step
    from rtlab.analysis import format_summary as format_summary
    from rtlab.analysis import gain_by_tercile as gain_by_tercile
    from rtlab.analysis import item_outcomes as item_outcomes
    from rtlab.analysis import main_results as main_results
    from rtlab.analysis import operating_styles as operating_styles
    from rtlab.analysis import paired_difference as paired_difference
    from rtlab.analysis import reading_terciles as reading_terciles
    from rtlab.analysis import results_table as results_table
    from rtlab.analysis import scores_frame as scores_frame
    from rtlab.analysis import shown_but_missing_success as shown_but_missing_success
    from rtlab.analysis import steps_frame as steps_frame
    from rtlab.analysis import styles_summary as styles_summary
    from rtlab.analysis import summary_frame as summary_frame
    from rtlab.analysis import trajectory_summary as trajectory_summary
    from rtlab.analysis import value_summary as value_summary
    from rtlab.analysis import values_frame as values_frame
    from rtlab.annotation import agreement_report as agreement_report
    from rtlab.environment import Capture as Capture
    from rtlab.environment import CapturedRead as CapturedRead
    from rtlab.environment import Environment as Environment
    from rtlab.environment import Replay as Replay
    from rtlab.environment import Tab as Tab
    from rtlab.environment import TabConfig as TabConfig
    from rtlab.environment import Workspace as Workspace
    from rtlab.environment import capture_step as capture_step
    from rtlab.environment import evaluator_view as evaluator_view
    from rtlab.environment import replay as replay
    from rtlab.errors import ReaderError as ReaderError
    from rtlab.errors import RtlabError as RtlabError
    from rtlab.errors import UnknownFormatError as UnknownFormatError
    from rtlab.ingest import BENCHMARKS as BENCHMARKS
    from rtlab.ingest import FORMATS as FORMATS
    from rtlab.ingest import POLICIES as POLICIES
    from rtlab.ingest import ClipPolicy as ClipPolicy
    from rtlab.ingest import IngestFailure as IngestFailure
    from rtlab.ingest import IngestResult as IngestResult
    from rtlab.ingest import ReadOptions as ReadOptions
    from rtlab.ingest import apply_run_labels as apply_run_labels
    from rtlab.ingest import attach_benchmark as attach_benchmark
    from rtlab.ingest import detect as detect
    from rtlab.ingest import discover as discover
    from rtlab.ingest import get_policy as get_policy
    from rtlab.ingest import ingest as ingest
    from rtlab.ingest import read_jsonl as read_jsonl
    from rtlab.ingest import read_unit as read_unit
    from rtlab.ingest import write_jsonl as write_jsonl
    from rtlab.ingest.benchmarks.officeqa_scorer import score_answer as score_answer
    from rtlab.llm import LLMClient as LLMClient
    from rtlab.records import Deliverable as Deliverable
    from rtlab.records import DeliverableFile as DeliverableFile
    from rtlab.records import Event as Event
    from rtlab.records import ItemResult as ItemResult
    from rtlab.records import Judgement as Judgement
    from rtlab.records import RubricItem as RubricItem
    from rtlab.records import Step as Step
    from rtlab.records import Task as Task
    from rtlab.records import TokenUsage as TokenUsage
    from rtlab.records import Trajectory as Trajectory
    from rtlab.records import trajectory_from_dict as trajectory_from_dict
    from rtlab.records import trajectory_to_dict as trajectory_to_dict
    from rtlab.runner import replay_paths as replay_paths
    from rtlab.store import open as open  # noqa: A004
    from rtlab.store import summaries as summaries
    from rtlab.text import BM25 as BM25
    from rtlab.text import find_numbers as find_numbers
    from rtlab.text import normalize_path as normalize_path
    from rtlab.text import tokenize as tokenize

__version__ = "0.1.0"

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "rtlab.errors": ("ReaderError", "RtlabError", "UnknownFormatError"),
        "rtlab.records": (
            "Deliverable",
            "DeliverableFile",
            "Event",
            "ItemResult",
            "Judgement",
            "RubricItem",
            "Step",
            "Task",
            "TokenUsage",
            "Trajectory",
            "trajectory_from_dict",
            "trajectory_to_dict",
        ),
        "rtlab.ingest": (
            "BENCHMARKS",
            "FORMATS",
            "POLICIES",
            "ClipPolicy",
            "IngestFailure",
            "IngestResult",
            "ReadOptions",
            "apply_run_labels",
            "attach_benchmark",
            "detect",
            "discover",
            "get_policy",
            "ingest",
            "read_jsonl",
            "read_unit",
            "write_jsonl",
        ),
        "rtlab.text": ("BM25", "find_numbers", "normalize_path", "tokenize"),
        "rtlab.environment": (
            "Capture",
            "CapturedRead",
            "Environment",
            "Replay",
            "Tab",
            "TabConfig",
            "Workspace",
            "capture_step",
            "evaluator_view",
            "replay",
        ),
        "rtlab.runner": ("replay_paths",),
        "rtlab.store": ("open", "summaries"),
        "rtlab.analysis": (
            "ablation_table",
            "aggregate",
            "diagnose",
            "diagnose_frame",
            "format_step",
            "format_summary",
            "gain_by_tercile",
            "item_outcomes",
            "main_results",
            "operating_styles",
            "paired_difference",
            "reading_terciles",
            "results_table",
            "scores_frame",
            "shown_but_missing_success",
            "steps_frame",
            "styles_summary",
            "summary_frame",
            "trajectory_summary",
            "value_summary",
            "values_frame",
        ),
        "rtlab.ingest.benchmarks.officeqa_scorer": ("score_answer",),
        "rtlab.llm": ("LLMClient",),
        "rtlab.annotation": ("agreement_report",),
    },
)
__all__ = [*__all__, "__version__"]

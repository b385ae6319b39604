"""rtlab: replay recorded LLM-agent trajectories and rebuild the RunningTab environment-side tab.

Importing ``rtlab`` is cheap: readers, benchmark adapters and anything that needs pandas or matplotlib are
imported only when used.
"""

from __future__ import annotations

from rtlab.benchmarks import BENCHMARKS
from rtlab.benchmarks import attach as attach_benchmark
from rtlab.clipping import POLICIES, ClipPolicy, get_policy
from rtlab.errors import ReaderError, RtlabError, UnknownFormatError
from rtlab.ingest import IngestFailure, IngestResult, ingest, read_unit
from rtlab.model import (
    Deliverable,
    DeliverableFile,
    Event,
    ItemResult,
    Judgement,
    RubricItem,
    Step,
    Task,
    TokenUsage,
    Trajectory,
    read_jsonl,
    trajectory_from_dict,
    trajectory_to_dict,
    write_jsonl,
)
from rtlab.readers import FORMATS, ReadOptions, detect, discover
from rtlab.summary import format_step, format_summary, steps_frame, summary_frame, trajectory_summary

__version__ = "0.1.0"

# Names whose modules need numpy or pandas: imported on first use (PEP 562), so `import rtlab` stays cheap.
_LAZY: dict[str, str] = {
    "BM25": "rtlab.bm25",
    "Capture": "rtlab.capture",
    "CapturedRead": "rtlab.capture",
    "Environment": "rtlab.environment",
    "LLMClient": "rtlab.llm",
    "Replay": "rtlab.replay",
    "Tab": "rtlab.tab",
    "TabConfig": "rtlab.tab",
    "Workspace": "rtlab.workspace",
    "agreement_report": "rtlab.agreement",
    "ablation_table": "rtlab.results",
    "aggregate": "rtlab.metrics",
    "apply_run_labels": "rtlab.labels",
    "gain_by_tercile": "rtlab.reading",
    "item_outcomes": "rtlab.results",
    "main_results": "rtlab.results",
    "operating_styles": "rtlab.styles",
    "paired_difference": "rtlab.results",
    "reading_terciles": "rtlab.reading",
    "results_table": "rtlab.results",
    "shown_but_missing_success": "rtlab.results",
    "styles_summary": "rtlab.styles",
    "synth": "rtlab.synth",
    "capture_step": "rtlab.capture",
    "diagnose": "rtlab.diagnose",
    "diagnose_frame": "rtlab.diagnose",
    "evaluator_view": "rtlab.environment",
    "find_numbers": "rtlab.numbers",
    "normalize_path": "rtlab.paths",
    "replay": "rtlab.replay",
    "replay_paths": "rtlab.replay",
    "score_answer": "rtlab.benchmarks.officeqa_scorer",
    "scores_frame": "rtlab.metrics",
    "tokenize": "rtlab.text",
    "value_summary": "rtlab.values",
    "values_frame": "rtlab.values",
}


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'rtlab' has no attribute {name!r}")
    import importlib

    imported = importlib.import_module(module)
    value = imported if module == f"rtlab.{name}" else getattr(imported, name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


__all__ = [
    *_LAZY,
    "BENCHMARKS",
    "FORMATS",
    "POLICIES",
    "ClipPolicy",
    "Deliverable",
    "DeliverableFile",
    "Event",
    "IngestFailure",
    "IngestResult",
    "ItemResult",
    "Judgement",
    "ReaderError",
    "RtlabError",
    "RubricItem",
    "Step",
    "Task",
    "TokenUsage",
    "Trajectory",
    "ReadOptions",
    "UnknownFormatError",
    "__version__",
    "attach_benchmark",
    "detect",
    "discover",
    "format_step",
    "format_summary",
    "get_policy",
    "ingest",
    "read_jsonl",
    "read_unit",
    "steps_frame",
    "summary_frame",
    "trajectory_from_dict",
    "trajectory_summary",
    "trajectory_to_dict",
    "write_jsonl",
]

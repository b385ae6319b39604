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

__all__ = [
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

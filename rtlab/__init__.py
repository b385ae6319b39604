"""rtlab: replay recorded LLM-agent trajectories and rebuild the RunningTab environment-side tab.

Importing ``rtlab`` is cheap: readers, benchmark adapters and anything that needs pandas or matplotlib are
imported only when used.
"""

from __future__ import annotations

from rtlab.errors import ReaderError, RtlabError, UnknownFormatError
from rtlab.ingest import IngestFailure, IngestResult, ingest
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

__version__ = "0.1.0"

__all__ = [
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
    "UnknownFormatError",
    "__version__",
    "ingest",
    "read_jsonl",
    "trajectory_from_dict",
    "trajectory_to_dict",
    "write_jsonl",
]

"""From files to trajectories: the readers (one per harness format), clipping policies, run labels,
benchmark adapters, canonical JSONL, and batch ingestion that reports a bad unit and goes on."""

from __future__ import annotations

import sys
import types
from typing import TYPE_CHECKING, Any

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.ingest._batch import IngestFailure as IngestFailure
    from rtlab.ingest._batch import IngestResult as IngestResult
    from rtlab.ingest._batch import RenamedId as RenamedId
    from rtlab.ingest._batch import ingest as ingest
    from rtlab.ingest._batch import iter_units as iter_units
    from rtlab.ingest._batch import read_found_unit as read_found_unit
    from rtlab.ingest._batch import read_unit as read_unit
    from rtlab.ingest._batch import unique_ids as unique_ids
    from rtlab.ingest._batch import unit_path as unit_path
    from rtlab.ingest._clipping import OPENHANDS_TRUNCATION_MARKER as OPENHANDS_TRUNCATION_MARKER
    from rtlab.ingest._clipping import POLICIES as POLICIES
    from rtlab.ingest._clipping import ClipPolicy as ClipPolicy
    from rtlab.ingest._clipping import CodexLineTruncation as CodexLineTruncation
    from rtlab.ingest._clipping import CodexTruncation as CodexTruncation
    from rtlab.ingest._clipping import MiniSweAgentClip as MiniSweAgentClip
    from rtlab.ingest._clipping import NoClip as NoClip
    from rtlab.ingest._clipping import OpenHandsClip as OpenHandsClip
    from rtlab.ingest._clipping import OpenHandsSdkClip as OpenHandsSdkClip
    from rtlab.ingest._clipping import SweAgentTruncation as SweAgentTruncation
    from rtlab.ingest._clipping import get_policy as get_policy
    from rtlab.ingest._labels import apply_run_labels as apply_run_labels
    from rtlab.ingest._labels import load_run_labels as load_run_labels
    from rtlab.ingest._labels import run_labels_path as run_labels_path
    from rtlab.ingest._summaries import ReadKind as ReadKind
    from rtlab.ingest._summaries import Summarized as Summarized
    from rtlab.ingest._summaries import SummaryResult as SummaryResult
    from rtlab.ingest._summaries import read_summaries as read_summaries
    from rtlab.ingest._summaries import summarize_unit as summarize_unit
    from rtlab.ingest.benchmarks import BENCHMARKS as BENCHMARKS
    from rtlab.ingest.benchmarks import BenchmarkName as BenchmarkName
    from rtlab.ingest.benchmarks import attach_benchmark as attach_benchmark
    from rtlab.ingest.benchmarks import get_benchmark as get_benchmark
    from rtlab.ingest.readers import FORMATS as FORMATS
    from rtlab.ingest.readers import SUMMARY_ONLY as SUMMARY_ONLY
    from rtlab.ingest.readers import NoSummary as NoSummary
    from rtlab.ingest.readers import ReadOptions as ReadOptions
    from rtlab.ingest.readers import Unclaimed as Unclaimed
    from rtlab.ingest.readers import describe_formats as describe_formats
    from rtlab.ingest.readers import detect as detect
    from rtlab.ingest.readers import discover as discover
    from rtlab.ingest.readers import explain as explain
    from rtlab.ingest.readers import get_reader as get_reader
    from rtlab.ingest.readers._base import call_command as call_command
    from rtlab.ingest.readers._base import deliverable_file as deliverable_file
    from rtlab.ingest.readers._base import mcp_tab_op as mcp_tab_op
    from rtlab.ingest.readers._base import parse_arguments as parse_arguments
    from rtlab.ingest.readers._base import read_command as read_command
    from rtlab.ingest.readers._claude_code import claude_code_hook_step as claude_code_hook_step
    from rtlab.ingest.readers._claude_code import claude_code_shown as claude_code_shown
    from rtlab.ingest.readers.canonical import iter_jsonl as iter_jsonl
    from rtlab.ingest.readers.canonical import read_jsonl as read_jsonl
    from rtlab.ingest.readers.canonical import write_jsonl as write_jsonl
    from rtlab.ingest.readers.codex_rollout import codex_hook_step as codex_hook_step

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._batch": (
            "IngestFailure",
            "IngestResult",
            "RenamedId",
            "ingest",
            "iter_units",
            "read_found_unit",
            "read_unit",
            "unique_ids",
            "unit_path",
        ),
        "._summaries": ("ReadKind", "Summarized", "SummaryResult", "read_summaries", "summarize_unit"),
        "._clipping": (
            "NoClip",
            "OPENHANDS_TRUNCATION_MARKER",
            "OpenHandsClip",
            "OpenHandsSdkClip",
            "CodexTruncation",
            "CodexLineTruncation",
            "SweAgentTruncation",
            "MiniSweAgentClip",
            "ClipPolicy",
            "POLICIES",
            "get_policy",
        ),
        "._labels": ("apply_run_labels", "load_run_labels", "run_labels_path"),
        ".readers": (
            "FORMATS",
            "SUMMARY_ONLY",
            "NoSummary",
            "ReadOptions",
            "Unclaimed",
            "describe_formats",
            "detect",
            "discover",
            "explain",
            "get_reader",
        ),
        ".readers.canonical": ("iter_jsonl", "read_jsonl", "write_jsonl"),
        ".readers._base": (
            "call_command",
            "deliverable_file",
            "mcp_tab_op",
            "parse_arguments",
            "read_command",
        ),
        ".readers._claude_code": ("claude_code_hook_step", "claude_code_shown"),
        ".readers.codex_rollout": ("codex_hook_step",),
        ".benchmarks": ("BENCHMARKS", "BenchmarkName", "attach_benchmark", "get_benchmark"),
    },
)


class _IngestModule(types.ModuleType):
    """``rtlab.ingest`` is both this package and its main function: ``rtlab.ingest(paths)`` calls
    :func:`ingest` whichever of the two the name was bound to first (importing the package binds it)."""

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.ingest(*args, **kwargs)


sys.modules[__name__].__class__ = _IngestModule

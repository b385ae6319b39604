"""The environment beside an agent, for live runs and replays alike: the workspace, capture (which files a
step read, listed and wrote, from its typed action and shown text), the tab T = (R, L, C) and its rules,
and the replay of one trajectory. It knows no harness format and imports no reader or analysis."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.environment._capture import DERIVED_KINDS as DERIVED_KINDS
    from rtlab.environment._capture import Capture as Capture
    from rtlab.environment._capture import CapturedDerived as CapturedDerived
    from rtlab.environment._capture import CapturedRead as CapturedRead
    from rtlab.environment._capture import DerivedKind as DerivedKind
    from rtlab.environment._capture import capture_step as capture_step
    from rtlab.environment._environment import STATUS_SEPARATOR as STATUS_SEPARATOR
    from rtlab.environment._environment import TAB_TOOLS as TAB_TOOLS
    from rtlab.environment._environment import TOOLS as TOOLS
    from rtlab.environment._environment import CaptureFn as CaptureFn
    from rtlab.environment._environment import Environment as Environment
    from rtlab.environment._environment import evaluator_view as evaluator_view
    from rtlab.environment._environment import function_tool as function_tool
    from rtlab.environment._environment import is_tab_call as is_tab_call
    from rtlab.environment._environment import strip_status as strip_status
    from rtlab.environment._environment import tab_tool as tab_tool
    from rtlab.environment._environment import with_status as with_status
    from rtlab.environment._propose import INPUT_CUES as INPUT_CUES
    from rtlab.environment._propose import OUTPUT_CUES as OUTPUT_CUES
    from rtlab.environment._propose import PROPOSAL_KINDS as PROPOSAL_KINDS
    from rtlab.environment._propose import Proposal as Proposal
    from rtlab.environment._propose import ProposalKind as ProposalKind
    from rtlab.environment._propose import Proposer as Proposer
    from rtlab.environment._propose import RuleProposer as RuleProposer
    from rtlab.environment._propose import propose_requirements as propose_requirements
    from rtlab.environment._replay import MANIFEST as MANIFEST
    from rtlab.environment._replay import REQUIREMENT_SOURCES as REQUIREMENT_SOURCES
    from rtlab.environment._replay import TABLES as TABLES
    from rtlab.environment._replay import Replay as Replay
    from rtlab.environment._replay import ReplayAt as ReplayAt
    from rtlab.environment._replay import RequirementSource as RequirementSource
    from rtlab.environment._replay import StepKind as StepKind
    from rtlab.environment._replay import StepRecord as StepRecord
    from rtlab.environment._replay import candidates_frame as candidates_frame
    from rtlab.environment._replay import export_parquet as export_parquet
    from rtlab.environment._replay import read_log_frame as read_log_frame
    from rtlab.environment._replay import read_parquet_tables as read_parquet_tables
    from rtlab.environment._replay import read_spans as read_spans
    from rtlab.environment._replay import redact_text as redact_text
    from rtlab.environment._replay import replay as replay
    from rtlab.environment._replay import replay_summary as replay_summary
    from rtlab.environment._replay import requirements_frame as requirements_frame
    from rtlab.environment._replay import steps_tab_frame as steps_tab_frame
    from rtlab.environment._replay import tables as tables
    from rtlab.environment._replay import task_text as task_text
    from rtlab.environment._tab import ABLATIONS as ABLATIONS
    from rtlab.environment._tab import FINISH_PREFIX as FINISH_PREFIX
    from rtlab.environment._tab import SEP as SEP
    from rtlab.environment._tab import STATUS_PREFIX as STATUS_PREFIX
    from rtlab.environment._tab import AblationName as AblationName
    from rtlab.environment._tab import Candidate as Candidate
    from rtlab.environment._tab import CandidateMatch as CandidateMatch
    from rtlab.environment._tab import EntryMatch as EntryMatch
    from rtlab.environment._tab import ReadEntry as ReadEntry
    from rtlab.environment._tab import Reply as Reply
    from rtlab.environment._tab import ReplyReading as ReplyReading
    from rtlab.environment._tab import Requirement as Requirement
    from rtlab.environment._tab import RequirementOrigin as RequirementOrigin
    from rtlab.environment._tab import RequirementStatus as RequirementStatus
    from rtlab.environment._tab import Review as Review
    from rtlab.environment._tab import ReviewItem as ReviewItem
    from rtlab.environment._tab import Tab as Tab
    from rtlab.environment._tab import TabConfig as TabConfig
    from rtlab.environment._tab import read_reply as read_reply
    from rtlab.environment._workspace import BINARY_SUFFIXES as BINARY_SUFFIXES
    from rtlab.environment._workspace import COMMON_POSTINGS as COMMON_POSTINGS
    from rtlab.environment._workspace import MIN_INDEXED_LINE as MIN_INDEXED_LINE
    from rtlab.environment._workspace import SKIPPED_DIRS as SKIPPED_DIRS
    from rtlab.environment._workspace import IndexedFile as IndexedFile
    from rtlab.environment._workspace import LineIndex as LineIndex
    from rtlab.environment._workspace import Workspace as Workspace
    from rtlab.environment._workspace import line_key as line_key

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._workspace": (
            "BINARY_SUFFIXES",
            "SKIPPED_DIRS",
            "MIN_INDEXED_LINE",
            "COMMON_POSTINGS",
            "line_key",
            "IndexedFile",
            "LineIndex",
            "Workspace",
        ),
        "._tab": (
            "RequirementStatus",
            "RequirementOrigin",
            "AblationName",
            "ABLATIONS",
            "STATUS_PREFIX",
            "FINISH_PREFIX",
            "SEP",
            "Requirement",
            "ReadEntry",
            "Candidate",
            "TabConfig",
            "Reply",
            "ReplyReading",
            "read_reply",
            "EntryMatch",
            "CandidateMatch",
            "ReviewItem",
            "Review",
            "Tab",
        ),
        "._environment": (
            "STATUS_SEPARATOR",
            "CaptureFn",
            "TOOLS",
            "TAB_TOOLS",
            "is_tab_call",
            "tab_tool",
            "with_status",
            "strip_status",
            "Environment",
            "evaluator_view",
            "function_tool",
        ),
        "._replay": (
            "RequirementSource",
            "REQUIREMENT_SOURCES",
            "StepKind",
            "StepRecord",
            "Replay",
            "ReplayAt",
            "read_spans",
            "task_text",
            "replay",
            "replay_summary",
            "redact_text",
            "read_log_frame",
            "candidates_frame",
            "requirements_frame",
            "steps_tab_frame",
            "TABLES",
            "tables",
            "export_parquet",
            "MANIFEST",
            "read_parquet_tables",
        ),
        "._capture": (
            "Capture",
            "CapturedRead",
            "CapturedDerived",
            "DerivedKind",
            "DERIVED_KINDS",
            "capture_step",
        ),
        "._propose": (
            "ProposalKind",
            "PROPOSAL_KINDS",
            "OUTPUT_CUES",
            "INPUT_CUES",
            "Proposal",
            "Proposer",
            "RuleProposer",
            "propose_requirements",
        ),
    },
)

"""DCI-Agent-Lite run folders (DCI-Agent/DCI-Agent-Lite, ``src/dci/benchmark/pi_rpc_runner.py``).

The runner drives Pi in RPC mode and writes, per run, under ``outputs/runs/<timestamp>/``:

- ``events.jsonl``: every Pi RPC event as received (``response``, ``agent_start``, ``turn_start``,
  ``message_start``/``message_update``/``message_end``, ``tool_execution_start``/``_end``, ``turn_end``,
  ``agent_end``), plus ``provider_request_context`` events from DCI's Pi fork: ``{requestIndex, model, messages,
  payload, runtimeContextManagement}``, the Pi messages of one model request after runtime context management
  (truncation, compaction, summarisation: ``--context-management-level level0..level4``). The fork itself
  (jdf-prog/pi-mono, branch codex/context-management-ablation) was not available; the fields are the ones the
  runner reads (``RunRecorder._record_latest_model_context``).
- ``conversation_full.json``: ``{started_at, finished_at, status, question, cwd, provider, model, tools, max_turns,
  conversation_features, messages, pending_message, final_text, error?}``; ``messages`` are the ``message_end``
  messages in order (plus a ``system`` message when a system prompt file was given), tool results annotated with
  ``tool_execution {started_at, finished_at, duration_ms}``. ``conversation.json`` is an optionally compacted view
  of it and is not read.
- ``final.txt``: every assistant ``text_delta`` of the run concatenated, so not necessarily the last message;
  ``question.txt``: the question; ``state.json``: status, the Pi command line, notes;
  ``latest_model_context.json``: the last request snapshot.

Steps come from the conversation through the Pi message walk shared with :mod:`rtlab.ingest.readers.pi`.

What the model received (``Step.shown``): the text of the call's ``toolResult`` in the FIRST
``provider_request_context`` snapshot that holds it, i.e. the request that followed the tool call, on which the
model chose its next action. Later snapshots may shorten or clear the same result (compaction); they are counted
in ``meta["dci"]["n_results_changed_later"]`` but do not change ``shown``. A result that is in no snapshot (no
``events.jsonl``, or the run stopped before the next request) falls back to the conversation's text (shown ==
output). ``Step.clipped`` is set when the snapshot text differs from the logged output or when the output carries
a Pi notice of a cut (:func:`rtlab.ingest.readers.pi.notice_kind` gives ``clip``).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest._clipping import get_policy
from rtlab.ingest.readers._base import ReadOptions, read_inside, typed
from rtlab.ingest.readers._registry import FileFacts
from rtlab.ingest.readers._tolerant import record
from rtlab.ingest.readers.pi import (
    PiTimeline,
    apply_policy,
    content_text,
    iso_from_ms,
    parse_meta,
    type_step,
    written_files,
)
from rtlab.io import decode_text, field, first_json_line, head_bytes, iter_json_lines, load_json
from rtlab.records import Deliverable, Step, Trajectory

NAME = "dci"
LOOKS_FOR = (
    "a DCI-Agent-Lite run folder (conversation_full.json, or events.jsonl of Pi RPC events beside question.txt/"
    "state.json/final.txt), or its conversation_full.json"
)

HARNESS = "dci-agent-lite"
METHOD = "DCI"
CONVERSATION = "conversation_full.json"
EVENTS = "events.jsonl"
RUN_FILES = ("question.txt", "state.json", "final.txt")

RPC_EVENT_TYPES = frozenset(
    {
        "response",
        "agent_start",
        "agent_end",
        "turn_start",
        "turn_end",
        "message_start",
        "message_update",
        "message_end",
        "tool_execution_start",
        "tool_execution_update",
        "tool_execution_end",
        "auto_compaction_start",
        "auto_compaction_end",
        "auto_retry_start",
        "auto_retry_end",
        "extension_error",
        "provider_request_context",
    }
)


# ---------------------------------------------------------------------------------------------------------
# Detection


def _is_conversation(path: Path) -> bool:
    head = head_bytes(path, 65536).lstrip()
    return (
        head.startswith(b"{")
        and b'"question"' in head
        and (b'"conversation_features"' in head or b'"messages"' in head)
    )


def _is_event_stream(path: Path) -> bool:
    first = first_json_line(path)
    return isinstance(first, dict) and first.get("type") in RPC_EVENT_TYPES


def sniff(path: Path) -> bool:
    try:
        if path.is_dir():
            if (path / CONVERSATION).is_file():
                return _is_conversation(path / CONVERSATION)
            events = path / EVENTS
            return (
                events.is_file() and any((path / n).is_file() for n in RUN_FILES) and _is_event_stream(events)
            )
        return path.is_file() and path.name == CONVERSATION and _is_conversation(path)
    except OSError:
        return False


# ---------------------------------------------------------------------------------------------------------
# Files


@dataclass
class _Events:
    """What the reader keeps from ``events.jsonl``."""

    snapshots: list[tuple[int, int | None, list[Any]]] = dataclasses.field(default_factory=list)
    """``(line, requestIndex, messages)`` of each ``provider_request_context`` event."""
    messages: list[tuple[int, dict[str, Any]]] = dataclasses.field(default_factory=list)
    """``(line, message)`` of each ``message_end`` event."""
    n_events: int = 0


def _read_events(path: Path, warnings: list[str]) -> _Events:
    found = _Events()
    for line, event in iter_json_lines(path, warnings):
        with record(warnings, path, line, "event"):
            kind = field(event, "type", str, path, line)
            found.n_events += 1
            if kind == "provider_request_context":
                messages = field(event, "messages", list, path, line)
                index = event.get("requestIndex")
                found.snapshots.append((line, index if isinstance(index, int) else None, messages))
            elif kind == "message_end":
                found.messages.append((line, field(event, "message", dict, path, line)))
    if found.n_events == 0:
        raise ReaderError(path, "file is empty")
    return found


def _json_object(path: Path, warnings: list[str] | None = None) -> dict[str, Any]:
    data = load_json(path, warnings)
    if not isinstance(data, dict):
        raise ReaderError(path, f"expected a JSON object, got {type(data).__name__}", line=1)
    return data


def _optional_text(path: Path) -> str | None:
    """A run file's text, never through a link out of its run folder."""
    data = read_inside(path, path.parent) if path.is_file() else None
    return decode_text(data, path) if data is not None else None


def _optional_object(path: Path) -> dict[str, Any] | None:
    return _json_object(path) if path.is_file() else None


def _context_level(command: Any) -> str | None:
    """The ``--context-management-level`` Pi was started with, from the command line in ``state.json``."""
    if not isinstance(command, list):
        return None
    for i, arg in enumerate(command):
        if not isinstance(arg, str):
            continue
        if arg.startswith("--context-management-level="):
            return arg.split("=", 1)[1]
        if arg == "--context-management-level" and i + 1 < len(command) and isinstance(command[i + 1], str):
            return command[i + 1]
    return None


# ---------------------------------------------------------------------------------------------------------
# What the model received


def _first_seen(
    path: Path, snapshots: list[tuple[int, int | None, list[Any]]]
) -> tuple[dict[str, str], set[str]]:
    """Tool-result text by call id from the first snapshot holding it, and the ids whose text changed later."""
    first: dict[str, str] = {}
    changed: set[str] = set()
    for line, _index, messages in snapshots:
        for i, message in enumerate(messages):
            if not (isinstance(message, dict) and message.get("role") == "toolResult"):
                continue
            call_id = field(message, "toolCallId", str, path, line, f"messages[{i}]")
            text = content_text(message.get("content"), path, line, f"messages[{i}].content")
            if call_id not in first:
                first[call_id] = text
            elif text != first[call_id]:
                changed.add(call_id)
    return first, changed


def _apply_snapshots(steps: list[Step], first: dict[str, str], changed: set[str]) -> dict[str, int]:
    """Set ``shown`` from the snapshots (see the module doc); returns counts for ``meta``."""
    counts = {"n_shown_from_snapshot": 0, "n_shown_from_conversation": 0, "n_results_changed_later": 0}
    for step in steps:
        if step.output is None:
            continue
        if step.call_id in first:
            step.shown = first[step.call_id]
            step.clipped = step.clipped or step.shown != step.output
            counts["n_shown_from_snapshot"] += 1
            counts["n_results_changed_later"] += int(step.call_id in changed)
        else:
            counts["n_shown_from_conversation"] += 1
    return counts


def _tool_timing(steps: list[Step], messages: list[tuple[int, str, Any]]) -> None:
    """Use the runner's ``tool_execution`` annotation (ISO start and finish of the tool) where it exists."""
    timing = {}
    for _line, _where, message in messages:
        if isinstance(message, dict) and message.get("role") == "toolResult":
            annotation = message.get("tool_execution")
            if isinstance(annotation, dict) and isinstance(message.get("toolCallId"), str):
                timing[message["toolCallId"]] = annotation
    for step in steps:
        annotation = timing.get(step.call_id or "")
        if annotation:
            if isinstance(annotation.get("started_at"), str):
                step.started_at = annotation["started_at"]
            if isinstance(annotation.get("finished_at"), str):
                step.ended_at = annotation["finished_at"]


# ---------------------------------------------------------------------------------------------------------
# Reading


def _messages(
    path: Path, conversation: dict[str, Any] | None, events: _Events | None
) -> list[tuple[int, str, Any]]:
    """``(line, field path, message)``: from the conversation (line = 1-based list position), else the events."""
    if conversation is not None:
        messages = field(conversation, "messages", list, path, None)
        return [(i + 1, f"messages[{i}]", m) for i, m in enumerate(messages)]
    assert events is not None
    return [(line, "message", m) for line, m in events.messages]


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: a file given
    directly is the conversation, an object whose ``messages`` is a list (:func:`_json_object`, :func:`_messages`
    refuse anything else) holding a ``toolResult`` message, the only one that answers a call
    (:meth:`~rtlab.ingest.readers.pi.PiTimeline.message`); a run folder is offered as it is."""
    if not facts.is_file:
        return True
    doc = facts.document
    messages = doc.get("messages") if isinstance(doc, dict) else None
    return isinstance(messages, list) and any(
        isinstance(m, dict) and m.get("role") == "toolResult" for m in messages
    )


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory per run folder (or per ``conversation_full.json`` given directly)."""
    run_dir = path if path.is_dir() else path.parent
    conversation_path = path if path.is_file() else run_dir / CONVERSATION
    events_path = run_dir / EVENTS
    warnings: list[str] = []
    conversation = _json_object(conversation_path, warnings) if conversation_path.is_file() else None
    events = _read_events(events_path, warnings) if events_path.is_file() else None
    if conversation is None and events is None:
        raise ReaderError(path, f"neither {CONVERSATION} nor {EVENTS} found")
    source = conversation_path if conversation is not None else events_path
    question = _optional_text(run_dir / "question.txt")
    final_txt = _optional_text(run_dir / "final.txt")
    state = _optional_object(run_dir / "state.json") or {}
    latest = _optional_object(run_dir / "latest_model_context.json")
    info = conversation or state

    cwd = info.get("cwd") if isinstance(info.get("cwd"), str) else None
    messages = _messages(source, conversation, events)
    timeline = PiTimeline(source, cwd, warnings)
    for line, where, message in messages:
        stamp = iso_from_ms(message.get("timestamp")) if isinstance(message, dict) else None
        with record(warnings, source, line, "message"):
            timeline.message(message, line=line, timestamp=stamp, where=where)
    if isinstance(info.get("error"), str) and info["error"]:
        timeline.event("error", info["error"], data={"status": info.get("status")})
    parse = timeline.finish()
    _tool_timing(parse.steps, messages)

    meta: dict[str, Any] = parse_meta(parse)
    dci: dict[str, Any] = {"n_snapshots": len(events.snapshots) if events else 0}
    if options.clip:
        policy = get_policy(options.clip)
        apply_policy(parse.steps, policy)
    else:
        policy = get_policy("none")
        first, changed = _first_seen(events_path, events.snapshots) if events else ({}, set())
        dci.update(_apply_snapshots(parse.steps, first, changed))
    meta["dci"] = dci

    provider = parse.provider or info.get("provider")
    model = parse.model or info.get("model")
    if isinstance(provider, str):
        meta["provider"] = provider
    for key in ("status", "tools", "max_turns", "conversation_features", "keep_session"):
        if key in info:
            meta[key] = info[key]
    if isinstance(state.get("command"), list):
        meta["command"] = state["command"]
    if isinstance(state.get("notes"), list) and state["notes"]:
        meta["notes"] = state["notes"]
    if conversation is not None and isinstance(conversation.get("pending_message"), dict):
        meta["pending_message_role"] = conversation["pending_message"].get("role")
    if latest is not None:
        meta["latest_model_context"] = {
            "request_count": latest.get("request_count"),
            "runtime_context_management": latest.get("runtime_context_management"),
        }
    if final_txt is not None and final_txt.strip() != (parse.final_message or "").strip():
        meta["final_txt"] = final_txt
    if warnings:
        meta["warnings"] = warnings

    instruction = question.strip() if question is not None else None
    if not instruction:
        instruction = info.get("question") if isinstance(info.get("question"), str) else parse.instruction
    return [
        Trajectory(
            id=f"{NAME}:{run_dir.name}",
            format=NAME,
            source_path=str(path),
            steps=parse.steps,
            events=parse.events,
            deliverable=Deliverable(final_message=parse.final_message, files=written_files(parse.written)),
            instruction=instruction,
            model=model if isinstance(model, str) else None,
            harness=HARNESS,
            method=METHOD,
            variant=_context_level(state.get("command")),
            cwd=cwd,
            started_at=info.get("started_at") if isinstance(info.get("started_at"), str) else None,
            ended_at=info.get("finished_at") if isinstance(info.get("finished_at"), str) else None,
            usage=parse.usage,
            clip_policy=policy.name,
            meta=meta,
        )
    ]

"""Claude Code ``claude -p --output-format stream-json --verbose`` output, whatever the file is named.

One JSON message a line, as the Agent SDK types them (``SDKMessage``: anthropics/claude-agent-sdk-python
``types.py``, the TypeScript ``SDKSystemMessage`` / ``SDKAssistantMessage`` / ``SDKUserMessage`` /
``SDKResultMessage``): a ``system`` ``init`` message first (``session_id``, ``cwd``, ``model``, ``tools``,
``mcp_servers``, ``permissionMode``, ``claude_code_version``, ``agents``); then ``assistant`` and ``user``
messages, each an API message under ``message`` with ``parent_tool_use_id`` (the ``Task`` call whose sub-agent
sent it, else ``null``); other ``system`` messages (``compact_boundary``, hook output, ...); ``stream_event``
partial messages with ``--include-partial-messages``; and a final ``result`` (``subtype`` ``success`` or
``error_max_turns`` / ``error_during_execution``, ``result`` text on success, ``num_turns``, ``duration_ms``,
``total_cost_usd``, ``usage``, ``modelUsage``, ``permission_denials``).

The main agent is one trajectory; each sub-agent (the messages of one ``parent_tool_use_id``) is another, with
``parent_id`` and ``parent_call_id`` naming the ``Task`` call, its prompt as instruction and the ``Task`` result
as final message. Usage: ``result.usage`` is the main agent's (it equals the sum of its responses' input and
cache counts in the real 2.0.21 logs; sub-agents are not in it), ``total_cost_usd`` the whole run's. Each
assistant line's ``usage`` is the response's first streamed count, so a sub-agent's usage holds its input and
cache tokens and no output count. Message contents and tool results: :mod:`._claude_code`.
"""

from __future__ import annotations

import json
import re
from collections import Counter
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest.readers._base import ReadOptions, checked_field, typed
from rtlab.ingest.readers._claude_code import (
    HARNESS,
    SUBAGENT_TOOLS,
    Timeline,
    clip_policy,
    token_usage,
)
from rtlab.ingest.readers._claude_code import type_step as type_step
from rtlab.ingest.readers._registry import FileFacts, FileShape
from rtlab.ingest.readers._tolerant import SKIPPED_ERRORS, skipped_because
from rtlab.io import blank_text, head_bytes, iter_json_lines, parse_json
from rtlab.records import Deliverable, Trajectory

NAME = "claude-code-stream"
FILE_SHAPE: FileShape = "json-lines"
"""A file this reader is given (not a folder) is read by ``rtlab.io.iter_json_lines`` alone, its refusal let
out: a file that iterator refuses holds no step for it (``_registry.FileShape``)."""

LOOKS_FOR = (
    "a JSON-lines file (any extension) whose first messages include Claude Code's stream-json "
    "{'type': 'system', 'subtype': 'init'} with claude_code_version (or tools, mcp_servers, apiKeySource), "
    "also each message wrapped as {type, message, timestamp}"
)
_HEAD_LINES = 20
_SAFE_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def _head(path: Path) -> list[Any]:
    """The complete JSON lines at the head of a file (at most :data:`_HEAD_LINES`), for sniffing; lines that are
    not JSON (a banner, stderr) are passed over."""
    data = head_bytes(path, 65536)
    lines = data.split(b"\n")
    if len(data) == 65536:
        lines = lines[:-1]  # the last one may be cut
    out: list[Any] = []
    for raw in lines[:_HEAD_LINES]:
        if not raw.strip():
            continue
        try:
            out.append(unwrapped(parse_json(raw)))
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
    return out


_WRAPPED = frozenset({"system", "result"})


def unwrapped(rec: Any) -> Any:
    """A message as the CLI wrote it, from a log that wrapped each one as ``{type, message: <the message>,
    timestamp}`` (the Rust claude-agent-sdk's logs): a ``system`` / ``result`` message's own fields are under
    ``message``; an ``assistant`` / ``user`` one is already the CLI's shape (its API message under ``message``)."""
    if (
        isinstance(rec, dict)
        and rec.get("type") in _WRAPPED
        and "subtype" not in rec
        and isinstance(rec.get("message"), dict)
        and "subtype" in rec["message"]
    ):
        inner = rec["message"]
        return {
            **inner,
            "type": rec["type"],
            **({"timestamp": rec["timestamp"]} if "timestamp" in rec else {}),
        }
    return rec


def _is_init(rec: dict[str, Any]) -> bool:
    if rec.get("subtype") != "init" or not isinstance(rec.get("session_id"), str):
        return False
    if isinstance(rec.get("claude_code_version"), str):
        return True
    return (
        isinstance(rec.get("tools"), list)
        and isinstance(rec.get("mcp_servers"), list)
        and "apiKeySource" in rec
    )


def sniff(path: Path) -> bool:
    """A file whose first messages are ``system`` ones and include the ``init`` (hook output, or a line that is
    not JSON, such as a banner, may come before it)."""
    try:
        if not path.is_file():
            return False
    except OSError:
        return False
    for rec in _head(path):
        if not isinstance(rec, dict) or rec.get("type") != "system":
            return False
        if rec.get("subtype") == "init":
            return _is_init(rec)
    return False


class _Stream:
    """One stream: the main agent's timeline, one per sub-agent, the init and result messages."""

    def __init__(self, path: Path, options: ReadOptions):
        self.path = path
        self.policy = clip_policy(options)
        self.warnings: list[str] = []
        self.main = Timeline(path, self.policy, self.warnings)
        self.subs: dict[str, Timeline] = {}
        self.init: dict[str, Any] = {}
        self.result: dict[str, Any] | None = None
        self.counts: Counter[str] = Counter()

    def timeline(self, parent: str | None) -> Timeline:
        if parent is None:
            return self.main
        if parent not in self.subs:
            self.subs[parent] = Timeline(self.path, self.policy, self.warnings)
        return self.subs[parent]

    def feed(self, line: int, rec: Any) -> None:
        path = self.path
        rec = unwrapped(rec)
        if not isinstance(rec, dict):
            raise ReaderError(path, f"expected a message object, got {type(rec).__name__}", line=line)
        kind = checked_field(rec, "type", str, path, line)
        stamp = rec.get("timestamp") if isinstance(rec.get("timestamp"), str) else None
        self.counts[kind] += 1
        if kind in ("assistant", "user"):
            parent = rec.get("parent_tool_use_id")
            if parent is not None and not isinstance(parent, str):
                raise ReaderError(
                    path,
                    f"expected str or null, got {type(parent).__name__}",
                    line=line,
                    field="parent_tool_use_id",
                )
            message = checked_field(rec, "message", dict, path, line)
            timeline = self.timeline(parent)
            if kind == "assistant":
                timeline.assistant(message, line=line, timestamp=stamp)
            else:
                timeline.user(message, line=line, timestamp=stamp, tool_use_result=rec.get("tool_use_result"))
        elif kind == "system":
            self._system(line, rec)
        elif kind == "result":
            if self.result is not None:
                self.warnings.append(f"{path}:{line}: a second result message; the last one is kept")
            self.result = rec
            subtype = rec.get("subtype")
            if subtype != "success" or rec.get("is_error") is True:
                self.main.event("error", str(subtype), line=line, data={"type": "result", "subtype": subtype})
        elif kind == "stream_event":
            pass  # partial messages (--include-partial-messages): the whole message follows
        else:
            self.warnings.append(f"{path}:{line}: unknown message type {kind!r}; kept as an 'other' event")
            self.main.event("other", kind, line=line, data={"type": kind})

    def _system(self, line: int, rec: dict[str, Any]) -> None:
        subtype = rec.get("subtype")
        if subtype == "init" and not self.init:
            self.init = rec
            return
        if subtype == "compact_boundary":
            meta = rec.get("compact_metadata")
            self.main.event(
                "compaction",
                "compact_boundary",
                line=line,
                data={"subtype": subtype, **(meta if isinstance(meta, dict) else {})},
            )
        else:
            self.main.event("system", str(subtype), line=line, data=rec)

    # --- trajectories --------------------------------------------------------------------------------------

    def trajectories(self) -> list[Trajectory]:
        path, init, result = self.path, self.init, self.result
        session = init.get("session_id") if isinstance(init.get("session_id"), str) else None
        if session is None and result is not None and isinstance(result.get("session_id"), str):
            session = result["session_id"]
        ident = session if session and _SAFE_ID.fullmatch(session) else path.stem
        if session and ident != session:
            self.warnings.append(
                f"{path}: session_id {session!r} is not an id (redacted?); the file name is used"
            )
        main_id = f"{NAME}:{ident}"
        if not init:
            self.warnings.append(f"{path}: no system/init message: model, cwd and version unknown")
        if result is None:
            self.warnings.append(f"{path}: no result message (the run was cut off?): usage and cost unknown")
        for tl in (self.main, *self.subs.values()):
            tl.close()
            tl.pairing_warning()

        owners = {s.call_id: (main_id, s) for s in self.main.steps if s.tool in SUBAGENT_TOOLS}
        sub_ids = {parent: f"{main_id}/task-{parent}" for parent in self.subs}
        for parent, tl in self.subs.items():
            for s in tl.steps:
                if s.tool in SUBAGENT_TOOLS and s.call_id not in owners:
                    owners[s.call_id] = (sub_ids[parent], s)

        out = [self._main(main_id, session)]
        for parent, tl in self.subs.items():
            owner = owners.get(parent)
            if owner is None:
                self.warnings.append(
                    f"{path}: messages with parent_tool_use_id {parent!r} follow no Task call; linked to the main agent"
                )
            out.append(self._sub(sub_ids[parent], parent, tl, owner, main_id))
        out[0].meta["subagents"] = [t.id for t in out[1:]]
        if not out[0].meta["subagents"]:
            del out[0].meta["subagents"]
        if self.warnings:
            out[0].meta["warnings"] = self.warnings
        return out

    def _main(self, ident: str, session: str | None) -> Trajectory:
        init, result, main = self.init, self.result, self.main
        meta: dict[str, Any] = {"session_id": session, "messages": dict(self.counts)}
        for key in ("permissionMode", "tools", "mcp_servers", "agents", "output_style", "apiKeySource"):
            if key in init:
                meta[key] = init[key]
        usage = None
        final = main.final_text
        if result is not None:
            for key in (
                "subtype",
                "is_error",
                "num_turns",
                "duration_ms",
                "duration_api_ms",
                "permission_denials",
                "modelUsage",
            ):
                if key in result:
                    meta[f"result_{key}" if key in ("subtype", "is_error") else key] = result[key]
            cost = result.get("total_cost_usd")
            cost = float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None
            raw = result.get("usage")
            usage = token_usage(raw, cost=cost) if isinstance(raw, dict) else None
            if usage is not None and usage.cost_usd is not None and self.subs:
                meta["cost_note"] = "total_cost_usd covers the whole run, sub-agents included"
            if isinstance(result.get("result"), str) and result["result"].strip():
                final = result["result"]
        if main.models:
            meta["models"] = dict(main.models)
        unanswered = main.unanswered()
        if unanswered:
            meta["unanswered_calls"] = unanswered
        model = init.get("model") if isinstance(init.get("model"), str) else None
        version = init.get("claude_code_version")
        return Trajectory(
            id=ident,
            format=NAME,
            source_path=str(self.path),
            steps=main.steps,
            events=main.events,
            deliverable=Deliverable(final_message=final, files=main.written_files()),
            instruction=main.instruction,
            model=model or (main.models.most_common(1)[0][0] if main.models else None),
            harness=HARNESS,
            harness_version=version if isinstance(version, str) else None,
            cwd=init.get("cwd") if isinstance(init.get("cwd"), str) else None,
            usage=usage,
            clip_policy=self.policy.name,
            meta=meta,
        )

    def _sub(self, ident: str, parent: str, tl: Timeline, owner: Any, main_id: str) -> Trajectory:
        parent_id, task = owner if owner is not None else (main_id, None)
        args = task.args if task is not None else {}
        meta: dict[str, Any] = {"parent_tool_use_id": parent}
        for key in ("subagent_type", "description"):
            if isinstance(args.get(key), str):
                meta[key] = args[key]
        if tl.models:
            meta["models"] = dict(tl.models)
        unanswered = tl.unanswered()
        if unanswered:
            meta["unanswered_calls"] = unanswered
        usage = tl.usage.total(outputs=False)
        if usage is not None:
            meta["usage_note"] = (
                "input and cache tokens of its responses; stream-json logs no final output count"
            )
        final = task.output if task is not None and task.answered else tl.final_text
        model = tl.models.most_common(1)[0][0] if tl.models else None
        version = self.init.get("claude_code_version")
        return Trajectory(
            id=ident,
            format=NAME,
            source_path=str(self.path),
            steps=tl.steps,
            events=tl.events,
            deliverable=Deliverable(final_message=final, files=tl.written_files()),
            instruction=args.get("prompt") if isinstance(args.get("prompt"), str) else tl.instruction,
            model=model,
            harness=HARNESS,
            harness_version=version if isinstance(version, str) else None,
            cwd=self.init.get("cwd") if isinstance(self.init.get("cwd"), str) else None,
            usage=usage,
            clip_policy=self.policy.name,
            meta=meta,
            parent_id=parent_id,
            parent_call_id=parent,
        )


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: a call is a
    ``tool_use`` block of an ``assistant`` message, so a file's lines hold one (wrapped or not, its ``type``
    stays; a folder is offered as it is)."""
    return not facts.is_file or "assistant" in facts.types


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """The main agent's trajectory, then one per sub-agent, in the order their first message came."""
    path = Path(path)
    data = path.read_bytes()
    if blank_text(data):
        raise ReaderError(path, "file is empty")
    stream = _Stream(path, options)
    for line, rec in iter_json_lines(path, stream.warnings, data=data):  # bytes not UTF-8 said first
        try:  # what _tolerant.record does, without an object a record
            stream.feed(line, rec)
        except SKIPPED_ERRORS as exc:
            stream.warnings.append(skipped_because(exc, path, line))
    if not stream.init and not stream.counts.keys() & {"assistant", "user"}:
        raise ReaderError(
            path, "no Claude Code stream-json message in it (no init, assistant or user message)"
        )
    return stream.trajectories()

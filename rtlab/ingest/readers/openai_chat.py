"""OpenAI Chat Completions message logs: ``system``/``developer``/``user``/``assistant``/``tool`` messages.

Accepted layouts (shapes from openai/openai-python ``src/openai/types/chat/chat_completion_message_param.py``):

- ``.json``: a list of messages; an object ``{"messages": [...], "model": ..., "tools": ..., "usage": ...}``
  (fine-tuning / evals style); or a list of such objects (one trajectory each, id suffixed by position).
- ``.jsonl``: one message per line (one trajectory), or one ``{"messages": [...]}`` object per line (one
  trajectory per line, id suffixed by the line number).

Assistant ``tool_calls`` (``{id, type: "function", function: {name, arguments}}`` or ``type: "custom"``) are
answered by ``role: "tool"`` messages with the same ``tool_call_id``, linked by id. The legacy
``function_call`` is answered by the next ``role: "function"`` message with the same ``name`` (the format has
no id; the earliest open call of that name wins). The log is the model's own context, so ``shown == output``.

Provenance: ``line`` is the file line for JSONL, and the 1-based position in the message list for JSON; for
one-conversation-per-line files it is the conversation's line and error fields name ``messages[i]``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest.readers._base import ReadOptions, parse_arguments, typed
from rtlab.ingest.readers._openai_common import (
    Timeline,
    all_match,
    clip_policy,
    content_text,
    join_field,
    sniff_log,
    tool_names,
    trajectory_id,
    type_step,
    usage_from,
    written_files,
)
from rtlab.io import field, iter_json_lines, load_json
from rtlab.records import Deliverable, Step, Trajectory

NAME = "openai-chat"
LOOKS_FOR = (
    'a .json/.jsonl of Chat Completions messages ("role": system/developer/user/assistant/tool, no "type"), '
    'or of objects with a "messages" list of them'
)

CHAT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
CHAT_PART_TYPES = frozenset({"text", "image_url", "input_audio", "file", "refusal"})


# ---------------------------------------------------------------------------------------------------------
# Sniffing


def _is_message(m: Any) -> bool:
    """A Chat Completions message: a known role, no ``type`` (Responses items have one), chat content parts."""
    if not isinstance(m, dict) or m.get("role") not in CHAT_ROLES or "type" in m:
        return False
    content = m.get("content")
    if isinstance(content, list):
        if not all(isinstance(p, dict) and p.get("type") in CHAT_PART_TYPES for p in content):
            return False
    elif content is not None and not isinstance(content, str):
        return False
    if m["role"] == "tool" and not isinstance(m.get("tool_call_id"), str):
        return False
    calls = m.get("tool_calls")
    if calls is not None:
        ok = isinstance(calls, list) and all(
            isinstance(c, dict) and ("function" in c or "custom" in c) for c in calls
        )
        if not ok:
            return False
    return True


def _is_conversation(obj: Any) -> bool:
    return (
        isinstance(obj, dict)
        and isinstance(obj.get("messages"), list)
        and all_match(obj["messages"], _is_message)
    )


def sniff(path: Path) -> bool:
    """A .json/.jsonl whose messages (bare or under ``"messages"``) all look like Chat Completions messages."""
    return sniff_log(path, is_conversation=_is_conversation, is_items=lambda doc: all_match(doc, _is_message))


# ---------------------------------------------------------------------------------------------------------
# Reading


@dataclass
class _Conversation:
    """One trajectory's messages as ``(line, field path, message)``, and the object that held them."""

    messages: list[tuple[int | None, str, Any]]
    top: dict[str, Any]
    layout: str
    suffix: int | None = None


def _holds_messages(value: Any) -> bool:
    return isinstance(value, dict) and "messages" in value


def _nested(path: Path, obj: Any, line: int, layout: str) -> _Conversation:
    """A conversation object found at ``line`` of a JSONL file (or position of a JSON list)."""
    messages = field(obj, "messages", list, path, line)
    entries: list[tuple[int | None, str, Any]] = [(line, f"messages[{i}]", m) for i, m in enumerate(messages)]
    return _Conversation(entries, obj, layout, suffix=line)


def _conversations(path: Path, warnings: list[str]) -> list[_Conversation]:
    """Split a file into conversations according to its layout (see the module docstring)."""
    if path.suffix == ".json":
        doc = load_json(path)
        if isinstance(doc, dict):
            messages = field(doc, "messages", list, path, None)
            return [_Conversation([(i, "", m) for i, m in enumerate(messages, 1)], doc, "messages-object")]
        if not isinstance(doc, list):
            raise ReaderError(
                path, f"expected a list of messages or an object with 'messages', got {type(doc).__name__}"
            )
        if doc and _holds_messages(doc[0]):
            return [_nested(path, obj, pos, "conversation-list") for pos, obj in enumerate(doc, 1)]
        return [_Conversation([(i, "", m) for i, m in enumerate(doc, 1)], {}, "message-list")]

    values = list(iter_json_lines(path, warnings))
    if not values:
        raise ReaderError(path, "file is empty")
    if _holds_messages(values[0][1]):
        return [_nested(path, obj, line, "conversation-per-line") for line, obj in values]
    for line, value in values:
        if _holds_messages(value):
            raise ReaderError(
                path, "a conversation object among per-line messages", line=line, field="messages"
            )
    return [_Conversation([(line, "", m) for line, m in values], {}, "message-per-line")]


def _text(msg: dict[str, Any], path: Path, line: int | None, where: str) -> str:
    return content_text(msg.get("content"), path, line, join_field(where, "content"))


def _tool_call(tl: Timeline, tc: Any, line: int | None, where: str) -> None:
    """One entry of an assistant's ``tool_calls``: a function or custom tool call, open until answered."""
    path = tl.path
    call_id = field(tc, "id", str, path, line, where)
    kind = tc.get("type", "function")
    if kind == "function":
        fn = field(tc, "function", dict, path, line, where)
        name = field(fn, "name", str, path, line, join_field(where, "function"))
        args, error = parse_arguments(fn.get("arguments"))
    elif kind == "custom":
        custom = field(tc, "custom", dict, path, line, where)
        name = field(custom, "name", str, path, line, join_field(where, "custom"))
        raw = custom.get("input")
        args, error = ({"input": raw}, None) if isinstance(raw, str) else parse_arguments(raw)
    else:
        raise ReaderError(
            path, f"unknown tool call type {kind!r}", line=line, field=join_field(where, "type")
        )
    tl.call(name, args, line, call_id=call_id, args_error=error)


def _assistant(
    tl: Timeline, msg: dict[str, Any], line: int | None, where: str, legacy: list[Step]
) -> str | None:
    """Reasoning, text and tool calls of an assistant message; returns its text (or refusal), if any."""
    path = tl.path
    for key in ("reasoning_content", "reasoning"):
        if isinstance(msg.get(key), str) and msg[key]:
            tl.event("reasoning", msg[key], line, role="assistant")
            break
    text = _text(msg, path, line, where)
    refusal = msg.get("refusal")
    if text:
        tl.event("message", text, line, role="assistant")
    elif isinstance(refusal, str) and refusal:
        tl.event("message", refusal, line, role="assistant", refusal=True)
        text = refusal
    calls = msg.get("tool_calls")
    if calls is not None and not isinstance(calls, list):
        raise ReaderError(
            path,
            f"expected a list, got {type(calls).__name__}",
            line=line,
            field=join_field(where, "tool_calls"),
        )
    for i, tc in enumerate(calls or []):
        _tool_call(tl, tc, line, join_field(where, f"tool_calls[{i}]"))
    if msg.get("function_call") is not None:
        fc = field(msg, "function_call", dict, path, line, where)
        name = field(fc, "name", str, path, line, join_field(where, "function_call"))
        args, error = parse_arguments(fc.get("arguments"))
        legacy.append(tl.call(name, args, line, args_error=error))
    return text or None


def _function_result(
    tl: Timeline, msg: dict[str, Any], line: int | None, where: str, legacy: list[Step]
) -> None:
    """A legacy ``role: "function"`` message answers the earliest open ``function_call`` with its name."""
    name = field(msg, "name", str, tl.path, line, where)
    for k, step in enumerate(legacy):
        if step.tool == name:
            del legacy[k]
            tl.finish(step, _text(msg, tl.path, line, where))
            return
    raise ReaderError(
        tl.path, f"function result {name!r} answers no open function_call of that name", line=line,
        field=join_field(where, "name"),
    )  # fmt: skip


_COMMAND_FENCE = re.compile(r"```(?:bash|sh|shell|console|zsh)?[ \t]*\r?\n.*?\n```", re.DOTALL)
"""A fenced block of shell commands (or an untagged one) in an assistant's text."""


def _text_command_turns(messages: list[tuple[int | None, str, Any]]) -> list[int | None]:
    """Lines of assistant messages without ``tool_calls`` whose text holds a fenced command block and that the
    next message answers as a user: how text-based agents (mini-swe-agent-1, SWE-agent) issue commands and
    get their output. This reader pairs only ``tool_calls``, so such turns are no steps here."""
    found: list[int | None] = []
    for k, (line, _, msg) in enumerate(messages[:-1]):
        if not isinstance(msg, dict) or msg.get("role") != "assistant" or msg.get("tool_calls"):
            continue
        following = messages[k + 1][2]
        if not isinstance(following, dict) or following.get("role") != "user":
            continue
        content = msg.get("content")
        text = content if isinstance(content, str) else ""
        if isinstance(content, list):
            text = "\n".join(
                p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
            )
        if _COMMAND_FENCE.search(text):
            found.append(line)
    return found


def _build(path: Path, conv: _Conversation, options: ReadOptions, file_warnings: list[str]) -> Trajectory:
    """One trajectory from one conversation's messages."""
    policy = clip_policy(options)
    tl = Timeline(path, policy)
    legacy: list[Step] = []
    instruction: str | None = None
    final: str | None = None
    if not conv.messages:
        raise ReaderError(path, "no messages", line=conv.suffix, field="messages")
    for line, where, msg in conv.messages:
        role = field(msg, "role", str, path, line, where)
        if role in ("system", "developer"):
            tl.event("system", _text(msg, path, line, where), line, role=role)
        elif role == "user":
            text = _text(msg, path, line, where)
            tl.event("message", text, line, role="user")
            instruction = text if instruction is None else instruction
        elif role == "assistant":
            final = _assistant(tl, msg, line, where, legacy) or final
        elif role == "tool":
            call_id = field(msg, "tool_call_id", str, path, line, where)
            tl.answer(call_id, _text(msg, path, line, where), line, join_field(where, "tool_call_id"))
        elif role == "function":
            _function_result(tl, msg, line, where, legacy)
        else:
            raise ReaderError(path, f"unknown role {role!r}", line=line, field=join_field(where, "role"))

    top = conv.top
    meta: dict[str, Any] = {"layout": conv.layout, "n_messages": len(conv.messages)}
    tools = tool_names(top.get("tools")) or tool_names(top.get("functions"))
    if tools:
        meta["tools"] = tools
    if isinstance(top.get("id"), str):
        meta["conversation_id"] = top["id"]
    warnings = file_warnings + tl.warnings
    text_turns = _text_command_turns(conv.messages)
    if text_turns:
        warnings.append(
            f"{len(text_turns)} assistant turn(s) (first at line {text_turns[0]}) hold a fenced command block that "
            "the next user message answers: a text-based agent's commands and their output, which this reader "
            "does not pair into steps (read the file with its harness's format, e.g. --format mini-swe-agent or "
            "swe-agent)"
        )
        meta["text_command_turns"] = len(text_turns)
    if warnings:
        meta["warnings"] = warnings
    return Trajectory(
        id=trajectory_id(NAME, path, conv.suffix),
        format=NAME,
        source_path=str(path),
        steps=tl.steps,
        events=tl.events,
        deliverable=Deliverable(final_message=final, files=written_files(tl.steps)),
        instruction=instruction,
        model=top.get("model") if isinstance(top.get("model"), str) else None,
        usage=usage_from(top.get("usage")),
        clip_policy=policy.name,
        meta=meta,
    )


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """Trajectories from a Chat Completions log: one per conversation (see the module docstring)."""
    warnings: list[str] = []
    conversations = _conversations(path, warnings)
    return [_build(path, conv, options, list(warnings)) for conv in conversations]

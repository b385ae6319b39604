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
from rtlab.ingest.readers._base import ReadOptions, checked_field, parse_arguments, typed
from rtlab.ingest.readers._openai_common import (
    Timeline,
    all_match,
    clip_policy,
    content_text,
    is_document,
    join_field,
    sniff_log,
    tool_names,
    trajectory_id,
    type_step,
    usage_from,
    written_files,
)
from rtlab.ingest.readers._registry import FileFacts
from rtlab.ingest.readers._tolerant import SKIPPED_ERRORS, skipped_because
from rtlab.io import field, iter_json_lines, load_json
from rtlab.records import Deliverable, Step, Trajectory

NAME = "openai-chat"
LOOKS_FOR = (
    'a .json/.jsonl of Chat Completions messages ("role": system/developer/user/assistant/tool, no "type"), '
    'or of objects with a "messages" list of them'
)

CHAT_ROLES = frozenset({"system", "developer", "user", "assistant", "tool", "function"})
CHAT_PART_TYPES = frozenset(
    {"text", "image_url", "input_audio", "file", "refusal", "tool_call", "tool_output"}
)
"""Content part types: the API's, and the ``tool_call`` / ``tool_output`` blocks of chat logs converted from
harness sessions (``{messages, meta}``: a call as ``{type: tool_call, tool_call_id, name, arguments}`` beside or
instead of ``tool_calls``, a result as ``{type: tool_output, text}``)."""
SUBAGENT_ROLE = re.compile(r"^(?P<role>assistant|user|tool|system)-subagent-(?P<agent>[\w.-]+)$")
"""A role naming a sub-agent's message in a converted log (``assistant-subagent-<agent id>``): the sub-agent's
messages merged into the parent's list, read as their own trajectory."""


# ---------------------------------------------------------------------------------------------------------
# Sniffing


def _is_message(m: Any) -> bool:
    """A Chat Completions message: a known role, no ``type`` (Responses items have one), chat content parts."""
    if not isinstance(m, dict) or "type" in m:
        return False
    role = m.get("role")
    if role not in CHAT_ROLES and not (isinstance(role, str) and SUBAGENT_ROLE.match(role)):
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
    if not isinstance(obj, dict) or not isinstance(obj.get("messages"), list):
        return False
    if not obj[
        "messages"
    ]:  # an empty conversion ({messages: [], meta: {session_meta, ...}}): claimed, said so
        meta = obj.get("meta")
        return isinstance(meta, dict) and "session_meta" in meta
    return all_match(obj["messages"], _is_message)


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
    if is_document(path):
        doc = load_json(path, warnings)
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
        found = []
        for line, obj in values:
            try:
                found.append(_nested(path, obj, line, "conversation-per-line"))
            except ReaderError as exc:
                warnings.append(skipped_because(exc, path, line, "conversation"))
        return found
    messages = []
    for line, value in values:
        if _holds_messages(value):
            warnings.append(
                f"{path}:{line} [messages]: a conversation object among per-line messages; skipped"
            )
        else:
            messages.append((line, "", value))
    return [_Conversation(messages, {}, "message-per-line")]


def _text(msg: dict[str, Any], path: Path, line: int | None, where: str) -> str:
    content = msg.get("content")
    if isinstance(content, list):  # a converted log's tool_call blocks are calls, not text
        content = [p for p in content if not (isinstance(p, dict) and p.get("type") == "tool_call")]
    return content_text(content, path, line, join_field(where, "content"))


def _block_calls(msg: dict[str, Any]) -> list[tuple[int, dict[str, Any]]]:
    """A converted log's ``tool_call`` content blocks, as ``tool_calls`` entries, with their positions."""
    content = msg.get("content")
    out = []
    for i, part in enumerate(content if isinstance(content, list) else []):
        if isinstance(part, dict) and part.get("type") == "tool_call":
            out.append(
                (
                    i,
                    {
                        "id": part.get("tool_call_id", part.get("id")),
                        "type": "function",
                        "function": {"name": part.get("name"), "arguments": part.get("arguments")},
                    },
                )
            )
    return out


def _tool_call(tl: Timeline, tc: Any, line: int | None, where: str) -> None:
    """One entry of an assistant's ``tool_calls``: a function or custom tool call, open until answered."""
    path = tl.path
    call_id = checked_field(tc, "id", str, path, line, where)
    kind = tc.get("type", "function")
    if kind == "function":
        fn = checked_field(tc, "function", dict, path, line, where)
        name = checked_field(fn, "name", str, path, line, join_field(where, "function"))
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
    made: set[Any] = set()
    for i, tc in _block_calls(msg):  # a converted log lists its calls as blocks (and often again below)
        try:  # what _tolerant.record does, without an object a call
            _tool_call(tl, tc, line, join_field(where, f"content[{i}]"))
        except SKIPPED_ERRORS as exc:
            tl.warnings.append(skipped_because(exc, path, line, "tool call"))
        made.add(tc["id"])
    for i, tc in enumerate(calls or []):
        if isinstance(tc, dict) and tc.get("id") in made:
            continue  # the same call as a block: once
        try:
            _tool_call(tl, tc, line, join_field(where, f"tool_calls[{i}]"))
        except SKIPPED_ERRORS as exc:
            tl.warnings.append(skipped_because(exc, path, line, "tool call"))
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


@dataclass
class _Agent:
    """The messages of one agent of a conversation (the main one, or a sub-agent merged into its list)."""

    tl: Timeline
    legacy: list[Step]
    instruction: str | None = None
    final: str | None = None


def _role(msg: dict[str, Any], path: Path, line: int | None, where: str) -> tuple[str, str | None]:
    """A message's role and the sub-agent it belongs to (``None``: the main agent); a sub-agent's message
    takes its role from its ``_metadata.original_role``, else from its shape."""
    role = checked_field(msg, "role", str, path, line, where)
    m = SUBAGENT_ROLE.match(role) if "-subagent-" in role else None  # the regex only on a role that may match
    if m is None:
        return role, None
    meta = msg.get("_metadata")
    original = meta.get("original_role") if isinstance(meta, dict) else None
    if "tool_call_id" in msg:
        return "tool", m.group("agent")
    if original in CHAT_ROLES:
        return str(original), m.group("agent")
    return m.group("role"), m.group("agent")


def _message(agent: _Agent, role: str, msg: dict[str, Any], line: int | None, where: str) -> None:
    """Add one message to its agent's timeline."""
    tl, path = agent.tl, agent.tl.path
    if role in ("system", "developer"):
        tl.event("system", _text(msg, path, line, where), line, role=role)
    elif role == "user":
        text = _text(msg, path, line, where)
        tl.event("message", text, line, role="user")
        agent.instruction = text if agent.instruction is None else agent.instruction
    elif role == "assistant":
        agent.final = _assistant(tl, msg, line, where, agent.legacy) or agent.final
    elif role == "tool":
        call_id = checked_field(msg, "tool_call_id", str, path, line, where)
        text = _text(msg, path, line, where)
        if tl.unknown(call_id):  # its call has not come (yet): the result waits for it
            tl.hold(
                call_id,
                text,
                line,
                lambda: _message(agent, role, msg, line, where),
                join_field(where, "tool_call_id"),
            )
            return
        tl.answer(call_id, text, line, join_field(where, "tool_call_id"))
    elif role == "function":
        _function_result(tl, msg, line, where, agent.legacy)
    else:
        tl.warnings.append(
            f"{path}:{line} [{join_field(where, 'role')}]: unknown role {role!r}; kept as an 'other' event"
        )
        tl.event("other", _text(msg, path, line, where), line, role=role)


def _build(
    path: Path, conv: _Conversation, options: ReadOptions, file_warnings: list[str]
) -> list[Trajectory]:
    """The trajectories of one conversation's messages: the main agent's, then one per sub-agent merged in."""
    policy = clip_policy(options)
    main = _Agent(Timeline(path, policy), [])
    subs: dict[str, _Agent] = {}
    tl = main.tl
    for line, where, msg in conv.messages:
        try:  # what _tolerant.record does, without an object a message
            role, agent_id = _role(msg, path, line, where)
            agent = (
                main if agent_id is None else subs.setdefault(agent_id, _Agent(Timeline(path, policy), []))
            )
            _message(agent, role, msg, line, where)
        except SKIPPED_ERRORS as exc:
            tl.warnings.append(skipped_because(exc, path, line, "message"))
    for agent in (main, *subs.values()):
        agent.tl.close()
    instruction, final = main.instruction, main.final
    if not conv.messages:
        tl.warnings.append(f"{path}: the conversation has no messages")

    top = conv.top
    meta: dict[str, Any] = {"layout": conv.layout, "n_messages": len(conv.messages)}
    tools = tool_names(top.get("tools")) or tool_names(top.get("functions"))
    if tools:
        meta["tools"] = tools
    if isinstance(top.get("id"), str):
        meta["conversation_id"] = top["id"]
    warnings = file_warnings + tl.warnings + [w for a in subs.values() for w in a.tl.warnings]
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
    converted: dict[str, Any] = top["meta"] if isinstance(top.get("meta"), dict) else {}
    session: dict[str, Any] = (
        converted["session_meta"] if isinstance(converted.get("session_meta"), dict) else {}
    )
    if session:
        meta["session_meta"] = {k: session[k] for k in _SESSION_KEYS if isinstance(session.get(k), str)}
    cwd = session.get("cwd") if isinstance(session.get("cwd"), str) else None
    main_id = trajectory_id(NAME, path, conv.suffix)
    out = [
        Trajectory(
            id=main_id,
            format=NAME,
            source_path=str(path),
            steps=tl.steps,
            events=tl.events,
            deliverable=Deliverable(final_message=final, files=written_files(tl.steps)),
            instruction=instruction,
            model=top.get("model") if isinstance(top.get("model"), str) else None,
            cwd=cwd,
            usage=usage_from(top.get("usage")),
            clip_policy=policy.name,
            meta=meta,
        )
    ]
    starters = [s for s in tl.steps if isinstance(s.args.get("prompt"), str)]
    for agent_id, agent in subs.items():
        call = next((s for s in starters if s.args["prompt"] == agent.instruction), None)
        if call is not None:
            starters.remove(call)
        out.append(
            Trajectory(
                id=f"{main_id}/subagent-{agent_id}",
                format=NAME,
                source_path=str(path),
                steps=agent.tl.steps,
                events=agent.tl.events,
                deliverable=Deliverable(final_message=agent.final, files=written_files(agent.tl.steps)),
                instruction=agent.instruction,
                cwd=cwd,
                clip_policy=policy.name,
                meta={"agent_id": agent_id},
                parent_id=main_id,
                parent_call_id=call.call_id if call is not None else None,
            )
        )
    if subs:
        out[0].meta["subagents"] = [t.id for t in out[1:]]
    return out


_SESSION_KEYS = (
    "session_id",
    "id",
    "version",
    "cli_version",
    "cwd",
    "originator",
    "model_provider",
    "source",
)
"""What a converted log's ``meta.session_meta`` says of the session it came from, kept in ``meta``."""


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares, whichever
    layout :func:`_conversations` reads (the document's messages, its list's messages or conversations' messages,
    else the lines' the same way): a call is answered only by a message whose ``role`` is ``tool`` or
    ``function``, or a merged sub-agent's (a role holding ``-subagent-``; :func:`_role`, :func:`_message`). A
    folder is offered as it is."""
    if not facts.is_file:
        return True
    doc = facts.document
    if isinstance(doc, dict):
        if isinstance(doc.get("messages"), list) and any(_answers(m) for m in doc["messages"]):
            return True
    elif isinstance(doc, list) and any(_answers(m) for v in doc for m in _messages_in(v)):
        return True
    return any(_answers(m) for v in facts.lines for m in _messages_in(v))


def _messages_in(value: Any) -> list[Any]:
    """A value of a file's list or lines as messages: a conversation's, and the value itself."""
    inner = value.get("messages") if isinstance(value, dict) else None
    return [*inner, value] if isinstance(inner, list) else [value]


def _answers(message: Any) -> bool:
    """Whether a message may answer a call (:func:`may_find_steps`)."""
    role = message.get("role") if isinstance(message, dict) else None
    return isinstance(role, str) and (role in ("tool", "function") or "-subagent-" in role)


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """Trajectories from a Chat Completions log: one per conversation (see the module docstring)."""
    warnings: list[str] = []
    conversations = _conversations(path, warnings)
    return [t for conv in conversations for t in _build(path, conv, options, list(warnings))]

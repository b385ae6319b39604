"""OpenCode sessions as ``opencode export`` writes them: ``{info, messages: [{info, parts}]}``.

Shapes from sst/opencode (now anomalyco/opencode) ``packages/opencode/src/session/message-v2.ts``: a message's
``info`` has its ``role`` (``user`` / ``assistant``), ``time.created`` (ms), and for an assistant ``modelID``,
``providerID``, ``tokens`` (``input``, ``output``, ``reasoning``, ``cache.read`` / ``cache.write``), ``cost``,
``path.cwd``; its ``parts`` are ``text``, ``reasoning``, ``file``, ``step-start`` / ``step-finish``, ``patch``,
``snapshot``, ``agent``, ``subtask``, ``retry``, ``compaction`` and ``tool`` parts: ``{tool, callID, state}``
where ``state.status`` is ``pending`` / ``running`` (no result yet), ``completed`` (``input``, ``output``,
``title``, ``metadata``, ``time``) or ``error`` (``input``, ``error``). A completed or failed call is a step the
model got the answer of (an error is sent to the model as the call's error text); a pending or running one is
unanswered (an export taken while the session ran). The session's ``info`` gives its id, title, folder,
OpenCode version and times. The export is read under the tolerant reading contract (``_tolerant``): a message or
part that cannot be understood is skipped and reported as a warning naming the message's 1-based position (the
warning's ``line``) and the part (its ``field``, ``messages[i].parts[j]``).
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest.readers._base import (
    ReadOptions,
    file_tool_command,
    files_written_by_tools,
    parse_arguments,
    search_action,
    typed,
)
from rtlab.ingest.readers._frames import (
    OPENCODE_GREP,
    OpenCodeTool,
    heading_search,
    opencode_frames,
    opencode_read,
    whole,
)
from rtlab.ingest.readers._openai_common import Timeline, clip_policy, join_field
from rtlab.ingest.readers._registry import FileFacts
from rtlab.ingest.readers._tolerant import record, warn
from rtlab.io import head_text, load_json
from rtlab.records import Action, Deliverable, Step, TokenUsage, Trajectory

NAME = "opencode"
LOOKS_FOR = (
    'an OpenCode session export (opencode export): a JSON object {"info": {"id": "ses_...", ...}, "messages": '
    '[{"info", "parts"}]}'
)

SHELL_TOOLS = frozenset({"bash"})
READ_TOOLS = frozenset({"read"})
WRITE_TOOLS = frozenset({"write"})
EDIT_TOOLS = frozenset({"edit", "multiedit"})
PATCH_TOOLS = frozenset({"patch", "apply_patch"})
GREP_TOOLS = frozenset({"grep"})
GLOB_TOOLS = frozenset({"glob"})
_PATH_KEYS = ("filePath", "file_path", "path")
_PATCH_FILE = re.compile(r"^\*\*\* (Add|Update|Delete) File: (.+)$", re.M)
_SESSION_ID = re.compile(r'"info"\s*:\s*\{[^{}]*?"id"\s*:\s*"ses_')
_MESSAGES = re.compile(r'"messages"\s*:\s*\[')
_ANSWERED = frozenset({"completed", "error"})


def sniff(path: Path) -> bool:
    """A JSON document (any name) opening with a session ``info`` whose id is ``ses_...``, then ``messages``."""
    head = head_text(path, 65536)
    return head.startswith("{") and bool(_SESSION_ID.search(head)) and bool(_MESSAGES.search(head))


# ---------------------------------------------------------------------------------------------------------
# Steps in harness-neutral terms


def _path(args: dict[str, Any]) -> str | None:
    for key in _PATH_KEYS:
        if isinstance(args.get(key), str) and args[key]:
            return str(args[key])
    return None


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def step_command(tool: str, args: dict[str, Any]) -> str:
    """``Step.command``: the shell command, ``read PATH [OFFSET [LIMIT]]``, ``write PATH``, or ``tool {json}``."""
    return file_tool_command(
        tool,
        args,
        _path(args),
        shell=SHELL_TOOLS,
        read=READ_TOOLS,
        write=WRITE_TOOLS,
        window=(_int(args.get("offset")), _int(args.get("limit"))),
    )


def type_step(step: Step) -> None:
    """OpenCode's tools: ``bash`` runs a command line (in ``workdir`` when given); ``read`` shows a file from
    the line number it prints first (or, given a folder, lists its entries); ``write`` writes a file, ``edit``
    and ``multiedit`` change one, ``apply_patch`` / ``patch`` writes (``Add File``) or changes (``Update File``)
    the one file it names; ``grep`` prints matches under each file's absolute path: one file's lines are a read of
    it, no match a search that found nothing, several files nothing rtlab attributes (capture knows
    ``path:N:text`` lines only); ``glob`` lists absolute paths; everything else (``list``'s tree, ``task``,
    ``skill``, ``webfetch``, ``todowrite``, MCP tools, ...) is ``other``. A failed call's answer is OpenCode's
    words whole. Frames: :func:`opencode_frames`."""
    tool, args, shown = step.tool, step.args, step.shown or ""
    path = None if set(args) == {"_raw"} else _path(args)
    kind: OpenCodeTool = "other"
    if tool in SHELL_TOOLS and isinstance(args.get("command"), str):
        step.action, kind = Action.shell(args["command"]), "shell"
        if isinstance(args.get("workdir"), str):
            step.cwd = args["workdir"]
    elif tool in READ_TOOLS and path is not None:
        what, named, first = opencode_read(shown)
        kind = "read"
        if what == "directory":
            step.action = Action("list", base=named or path)
        else:
            offset = first if first is not None else _int(args.get("offset"))
            step.action = Action.read(path, offset, _int(args.get("limit")))
    elif tool in WRITE_TOOLS and path is not None:
        step.action = Action("write", path=path)
    elif tool in EDIT_TOOLS and path is not None:
        step.action = Action("edit", path=path)
    elif tool in PATCH_TOOLS and isinstance(args.get("patchText"), str):
        files = _PATCH_FILE.findall(args["patchText"])
        if len(files) == 1 and files[0][0] in ("Add", "Update"):
            step.action = Action("write" if files[0][0] == "Add" else "edit", path=files[0][1].strip())
        else:
            step.action = Action.other(tool)
    elif tool in GREP_TOOLS and isinstance(args.get("pattern"), str):
        step.action = search_action(
            tool, args["pattern"], heading_search(shown, OPENCODE_GREP, frames=False)[0]
        )
        kind = "grep"
    elif tool in GLOB_TOOLS and isinstance(args.get("pattern"), str):
        step.action, kind = Action("list", pattern=args["pattern"]), "glob"
    else:
        step.action = Action.other(tool)
    step.frames = whole(shown) if step.is_error else opencode_frames(shown, tool=kind)
    step.clipped = step.clipped or any(f.kind == "clip" for f in step.frames)  # the harness said it cut


# ---------------------------------------------------------------------------------------------------------
# Reading


def _iso(ms: Any) -> str | None:
    if not isinstance(ms, int | float) or isinstance(ms, bool):
        return None
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None


def _time(obj: Any, key: str) -> str | None:
    times = obj.get("time") if isinstance(obj, dict) else None
    return _iso(times.get(key)) if isinstance(times, dict) else None


@dataclass
class _Session:
    """What one export builds: the timeline and the run's facts."""

    path: Path
    timeline: Timeline
    warnings: list[str]
    instruction: str | None = None
    final: str | None = None
    cwd: str | None = None
    models: Counter[str] = field(default_factory=Counter)
    usage: TokenUsage | None = None

    def note(self, line: int, where: str, reason: str) -> None:
        """A warning about the message at 1-based position ``line``, at ``where`` in it."""
        warn(self.warnings, self.path, line, reason, field=where)


def _tokens(info: dict[str, Any]) -> TokenUsage | None:
    """An assistant message's ``tokens`` as :class:`TokenUsage` counts them (OpenCode's ``input`` leaves out cache
    reads and writes, which are added back; its ``output`` holds the reasoning tokens, as the providers count
    them), and its ``cost``."""
    tokens = info.get("tokens")
    if not isinstance(tokens, dict):
        return None
    cache: dict[str, Any] = tokens["cache"] if isinstance(tokens.get("cache"), dict) else {}
    tin, out, reasoning = _int(tokens.get("input")), _int(tokens.get("output")), _int(tokens.get("reasoning"))
    read, written = _int(cache.get("read")), _int(cache.get("write"))
    cost = info.get("cost")
    usage = TokenUsage(
        input_tokens=None if tin is None else tin + (read or 0) + (written or 0),
        output_tokens=out,
        cached_input_tokens=read,
        reasoning_tokens=reasoning,
        total_tokens=_int(tokens.get("total")),
        cost_usd=float(cost)
        if isinstance(cost, int | float) and not isinstance(cost, bool) and cost
        else None,
    )
    return None if usage == TokenUsage() else usage


def _tool_part(session: _Session, part: dict[str, Any], where: str, line: int) -> None:
    tl = session.timeline
    name, state = part.get("tool"), part.get("state")
    if not isinstance(name, str) or not isinstance(state, dict):
        session.note(
            line, where, "a tool part: missing field tool or state (or not a text / an object); skipped"
        )
        return
    call_id = part.get("callID") if isinstance(part.get("callID"), str) else None
    if call_id is not None and not tl.unknown(call_id) and tl.open_call(call_id) is None:
        session.note(
            line, where, f"call id {call_id!r} (callID) seen twice; both calls kept"
        )  # (an open one:
        # said by the timeline)
    args, error = parse_arguments(state.get("input"))
    tl.now = _time(state, "start") or tl.now
    step = tl.call(name, args, line, call_id=call_id, args_error=error, command=step_command(name, args))
    status = state.get("status")
    if not isinstance(status, str) or status not in _ANSWERED:
        if status not in ("pending", "running"):
            session.note(line, where, f"unknown part state status {status!r}; the call is kept unanswered")
        return
    if status == "completed":
        output = state.get("output")
        text = output if isinstance(output, str) else ("" if output is None else str(output))
        tl.give(step, text)
    else:
        message = state.get("error")
        tl.give(step, message if isinstance(message, str) else str(message), is_error=True)
    step.ended_at = _time(state, "end") or step.ended_at
    if name in SHELL_TOOLS and session.cwd and step.cwd is None:
        step.cwd = session.cwd


def _message(session: _Session, message: Any, index: int) -> None:
    tl = session.timeline
    where = f"messages[{index}]"
    info = message.get("info") if isinstance(message, dict) else None
    parts = message.get("parts") if isinstance(message, dict) else None
    if not isinstance(info, dict) or not isinstance(parts, list):
        session.note(
            index + 1, where, "a message: missing field info or parts (or not an object / a list); skipped"
        )
        return
    role = info.get("role")
    if role not in ("user", "assistant"):
        session.note(index + 1, join_field(where, "info.role"), f"unknown role {role!r}; skipped")
        return
    tl.now = _time(info, "created")
    if role == "assistant":
        if isinstance(info.get("modelID"), str):
            provider = info.get("providerID")
            session.models[
                f"{provider}/{info['modelID']}" if isinstance(provider, str) else info["modelID"]
            ] += 1
        usage = _tokens(info)
        if usage is not None:
            session.usage = usage if session.usage is None else session.usage + usage
        cwd = info.get("path", {}).get("cwd") if isinstance(info.get("path"), dict) else None
        if isinstance(cwd, str):
            session.cwd = cwd
        if isinstance(info.get("error"), dict):
            error = info["error"]
            data = error.get("data") if isinstance(error.get("data"), dict) else {}
            tl.event("error", str(data.get("message") or error.get("name") or ""), index + 1)
    for j, part in enumerate(parts):
        with record(session.warnings, session.path, index + 1, "part"):
            _part(session, part, role, index, f"{where}.parts[{j}]")


def _part(session: _Session, part: Any, role: str, index: int, where: str) -> None:
    """One part of the message at ``index`` (``where``: the part's place in the export)."""
    tl = session.timeline
    kind = part.get("type") if isinstance(part, dict) else None
    if not isinstance(part, dict):
        session.note(index + 1, where, f"expected an object, got {type(part).__name__}; skipped")
    elif kind == "text":
        text = _str(part.get("text"))
        if part.get("synthetic") is True or part.get("ignored") is True:
            tl.event("other", text, index + 1, role=role, synthetic=True)
            return
        tl.event("message", text, index + 1, role=role)
        if role == "user" and session.instruction is None and text:
            session.instruction = text
        elif role == "assistant" and text:
            session.final = text
    elif kind == "reasoning":
        tl.event("reasoning", _str(part.get("text")), index + 1, role="assistant")
    elif kind == "tool":
        _tool_part(session, part, where, index + 1)
    elif kind == "file":
        name = part.get("filename") or part.get("url") or ""
        tl.event("other", f"[file: {name}]", index + 1, role=role, mime=part.get("mime"))
    elif kind in ("compaction", "retry", "agent", "subtask"):
        tl.event("system", str(kind), index + 1, role=role)
    elif kind not in ("step-start", "step-finish", "patch", "snapshot"):
        session.note(index + 1, join_field(where, "type"), f"unknown part type {kind!r}; skipped")


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: the file is
    one document, an object whose ``messages`` list holds a message with an ``info`` object and a ``parts``
    list (:func:`read` refuses anything else, :func:`_message` skips any other message; a call is a part)."""
    doc = facts.document
    messages = doc.get("messages") if isinstance(doc, dict) else None
    return isinstance(messages, list) and any(
        isinstance(m, dict) and isinstance(m.get("info"), dict) and isinstance(m.get("parts"), list)
        for m in messages
    )


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory from an OpenCode session export (see the module docstring)."""
    warnings: list[str] = []
    session = _Session(path, Timeline(path, clip_policy(options), warnings=warnings), warnings)
    doc = load_json(path, warnings)
    info = doc.get("info") if isinstance(doc, dict) else None
    messages = doc.get("messages") if isinstance(doc, dict) else None
    if not isinstance(messages, list):
        raise ReaderError(
            path, "not an OpenCode session export: no {info, messages} object", field="messages"
        )
    if not isinstance(info, dict):
        warn(
            warnings, path, None, f"expected an object, got {type(info).__name__}; the session's facts are unknown",
            field="info",
        )  # fmt: skip
        info = {}
    for i, message in enumerate(messages):
        with record(warnings, path, i + 1, "message"):
            _message(session, message, i)
    tl = session.timeline
    meta: dict[str, Any] = {"n_messages": len(messages)}
    for key in ("title", "slug", "projectID", "directory", "parentID"):
        if isinstance(info.get(key), str):
            meta[key] = info[key]
    if session.models:
        meta["models"] = dict(session.models)
    if warnings:
        meta["warnings"] = warnings
    session_id = info.get("id") if isinstance(info.get("id"), str) else path.stem
    parent = info.get("parentID") if isinstance(info.get("parentID"), str) else None
    model = session.models.most_common(1)[0][0] if session.models else None
    return [
        Trajectory(
            id=f"{NAME}:{session_id}",
            format=NAME,
            source_path=str(path),
            steps=tl.steps,
            events=tl.events,
            deliverable=Deliverable(
                final_message=session.final, files=files_written_by_tools(tl.steps, WRITE_TOOLS, _path)
            ),
            instruction=session.instruction,
            model=model.split("/", 1)[-1] if model else None,
            harness="opencode",
            harness_version=info.get("version") if isinstance(info.get("version"), str) else None,
            cwd=info.get("directory") if isinstance(info.get("directory"), str) else session.cwd,
            started_at=_time(info, "created"),
            ended_at=_time(info, "updated"),
            usage=session.usage,
            clip_policy=tl.policy.name,
            meta=meta,
            parent_id=f"{NAME}:{parent}" if parent else None,
        )
    ]

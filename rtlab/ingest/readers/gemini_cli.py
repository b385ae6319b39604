"""Gemini CLI logs: its chat recordings (session files) and its ``--output-format stream-json`` events.

**Session files** (google-gemini/gemini-cli ``packages/core/src/services/chatRecordingService.ts`` and
``chatRecordingTypes.ts``), written under ``~/.gemini/tmp/<project>/chats/``:

- the JSON-lines recording (2026): a header ``{sessionId, projectHash, startTime, lastUpdated, kind,
  directories}``, then one record a line: a message ``{id, timestamp, type, content, ...}`` (written again
  whole whenever it changes: the last version of an id wins, in the place its id first took), a metadata update
  ``{"$set": {...}}`` (``lastUpdated``, ``summary``, ``directories``, ``memoryScratchpad``; a ``messages`` list
  there replaces the conversation, as ``loadConversationRecord`` does) or a rewind ``{"$rewindTo": id}`` (that
  message and every later one removed);
- the older single JSON document ``{sessionId, projectHash, startTime, lastUpdated, messages: [...]}``.

A message's ``type`` is ``user``, ``gemini``, ``info``, ``error`` or ``warning``; ``gemini`` messages carry
``thoughts`` (``subject``, ``description``), ``tokens`` (``input``, ``output``, ``cached``, ``thoughts``, ``tool``,
``total``), ``model`` and ``toolCalls``: ``{id, name, args, result, status, timestamp, resultDisplay, ...}``
where ``result`` is the list of parts the model was sent (``functionResponse.response`` holds ``output`` or
``error``) and ``status`` is ``success``, ``error`` or ``cancelled``. A call with a result is a step the model
saw the answer of (a cancelled call's answer says it was cancelled); a call without one is unanswered.

**stream-json** (``packages/core/src/output/types.ts``, ``packages/cli/src/nonInteractiveCli.ts``): one event a
line: ``init`` (``session_id``, ``model``), ``message`` (``role``, ``content``, ``delta``), ``tool_use``
(``tool_name``, ``tool_id``, ``parameters``), ``tool_result`` (``tool_id``, ``status``, ``output``, ``error``),
``error`` and ``result`` (``status``, ``stats``). A ``tool_result``'s ``output`` is the result's *display* text
(``resultDisplay``), not what the model received: a command's output, but for file tools only a summary such
as ``Read lines 1-50 of 300 from a.py``. Such outputs are kept, and framed whole where they are not the
command's output, so nothing is taken as file content that the model was not shown as such.

The file is read under the tolerant reading contract (``_tolerant``): a record that cannot be parsed or is not
understood is skipped and reported as a warning naming its line, a result before its call waits for it
(``Timeline.hold``); a file is refused only when it holds no Gemini CLI record at all.
"""

from __future__ import annotations

import posixpath
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from rtlab.errors import ReaderError
from rtlab.ingest.readers._base import (
    ReadOptions,
    compact_json,
    file_tool_command,
    files_written_by_tools,
    parse_arguments,
    search_action,
    typed,
)
from rtlab.ingest.readers._frames import (
    GEMINI_EXIT_CODE,
    GEMINI_GREP,
    GeminiTool,
    gemini_frames,
    gemini_ls_folder,
    gemini_read_window,
    heading_search,
    whole,
)
from rtlab.ingest.readers._openai_common import Timeline, clip_policy, trajectory_id
from rtlab.ingest.readers._registry import FileFacts
from rtlab.ingest.readers._tolerant import record, warn
from rtlab.io import head_json_lines, head_text, iter_json_lines, load_json
from rtlab.records import Action, Deliverable, Step, TokenUsage, Trajectory

NAME = "gemini-cli"
HARNESS = "gemini-cli"
LOOKS_FOR = (
    "a Gemini CLI chat recording (JSON lines opening with a {sessionId, projectHash} header, or the older "
    'single JSON {sessionId, projectHash, messages}), or its --output-format stream-json events ({"type": "init", '
    '"session_id", "model"} first)'
)

Layout = Literal["session-jsonl", "session-json", "stream-json"]
"""Which of Gemini CLI's logs a file is (see the module docstring)."""

SHELL_TOOLS = frozenset({"run_shell_command"})
READ_TOOLS = frozenset({"read_file"})
WRITE_TOOLS = frozenset({"write_file"})
EDIT_TOOLS = frozenset({"replace", "edit"})
GREP_TOOLS = frozenset({"grep_search", "search_file_content", "grep"})
GLOB_TOOLS = frozenset({"glob"})
LIST_TOOLS = frozenset({"list_directory", "ls"})
_PATH_KEYS = ("file_path", "absolute_path", "path")
_DIR_KEYS = ("dir_path", "path", "directory")
_FAILED = frozenset({"error", "cancelled"})
"""Call statuses whose result tells the model the call failed or was cancelled."""
_STREAM_TYPES = frozenset({"init", "message", "tool_use", "tool_result", "error", "result"})


# ---------------------------------------------------------------------------------------------------------
# Sniffing

_LEGACY_KEYS = (re.compile(r'"sessionId"\s*:\s*"'), re.compile(r'"projectHash"\s*:\s*"'))
_LEGACY_MESSAGES = re.compile(r'"messages"\s*:\s*\[')


def _is_header(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and isinstance(value.get("sessionId"), str)
        and isinstance(value.get("projectHash"), str)
    )


def _is_init(value: Any) -> bool:
    return (
        isinstance(value, dict)
        and value.get("type") == "init"
        and isinstance(value.get("session_id"), str)
        and "model" in value
    )


def layout(path: Path) -> Layout | None:
    """Which Gemini CLI log ``path`` holds, judged by the first session header or stream ``init`` event among
    its first JSON lines (lines that are not JSON, as a harness's stderr printed into a stream, and records of a
    type not known before it are passed over); ``None`` for anything else."""
    head = head_text(path)
    if not head:
        return None
    for value in head_json_lines(path):
        if _is_header(value):
            return "session-json" if isinstance(value.get("messages"), list) else "session-jsonl"
        if _is_init(value):
            return "stream-json"
    stripped = head  # a pretty-printed (or long) single document: the older session file
    if (
        stripped.startswith("{")
        and all(k.search(stripped) for k in _LEGACY_KEYS)
        and _LEGACY_MESSAGES.search(stripped)
    ):
        return "session-json"
    return None


def sniff(path: Path) -> bool:
    """A Gemini CLI session file (either form) or stream-json output, whatever its name."""
    return layout(path) is not None


# ---------------------------------------------------------------------------------------------------------
# Steps in harness-neutral terms


def _first_str(args: dict[str, Any], keys: tuple[str, ...]) -> str | None:
    for key in keys:
        value = args.get(key)
        if isinstance(value, str) and value:
            return value
    return None


def _str(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _window(args: dict[str, Any]) -> tuple[int | None, int | None]:
    """``read_file``'s window from its arguments: ``start_line``/``end_line`` (1-based, inclusive; 2026), or
    ``offset`` (0-based) / ``limit`` (before)."""
    start, end = _int(args.get("start_line")), _int(args.get("end_line"))
    if start is not None or end is not None:
        first = start if start is not None else 1
        return first, (end - first + 1 if end is not None and end >= first else None)
    offset, limit = _int(args.get("offset")), _int(args.get("limit"))
    return (offset + 1 if offset is not None else None), limit


def step_command(tool: str, args: dict[str, Any]) -> str:
    """``Step.command``: the shell command, ``read PATH [OFFSET [LIMIT]]``, ``write PATH``, or ``tool {json}``."""
    return file_tool_command(
        tool,
        args,
        _first_str(args, _PATH_KEYS),
        shell=SHELL_TOOLS,
        read=READ_TOOLS,
        write=WRITE_TOOLS,
        window=_window(args),
    )


def type_step(step: Step) -> None:
    """Gemini CLI's tools: ``run_shell_command`` runs a command line; ``read_file`` shows a file (its window
    from the header it prints, else from ``start_line``/``end_line`` or ``offset``/``limit``); ``write_file``
    writes one, ``replace`` changes one; ``grep_search`` (``search_file_content``) prints matches under a
    ``File:`` heading per file (named relative to the folder searched): the lines of one file are a read of it,
    an empty result a search that found nothing, file names only (``names_only``) a list, matches in several
    files nothing rtlab attributes (capture knows ``path:N:text`` lines only); ``glob`` lists absolute paths, ``list_directory`` the entries of its folder; everything else (``web_fetch``,
    ``update_topic``, ``invoke_agent``, MCP tools, ...) is ``other``. A failed or cancelled call's answer is
    Gemini CLI's words whole. Frames: :func:`gemini_frames`."""
    tool, args, shown = step.tool, step.args, step.shown or ""
    raw = set(args) == {"_raw"}
    path = None if raw else _first_str(args, _PATH_KEYS)
    pattern = args.get("pattern") if isinstance(args.get("pattern"), str) else None
    kind: GeminiTool = "other"
    if tool in SHELL_TOOLS and isinstance(args.get("command"), str):
        step.action, kind = Action.shell(args["command"]), "shell"
    elif tool in READ_TOOLS and path is not None:
        offset, limit = gemini_read_window(shown) or _window(args)
        step.action, kind = Action.read(path, offset, limit), "read"
    elif tool in WRITE_TOOLS and path is not None:
        step.action = Action("write", path=path)
    elif tool in EDIT_TOOLS and path is not None:
        step.action = Action("edit", path=path)
    elif tool in GREP_TOOLS and pattern is not None:
        kind = "grep"
        if args.get("names_only") is True:
            step.action = Action("list", pattern=pattern)
        else:
            where = _first_str(args, _DIR_KEYS)  # the files are named relative to the folder searched
            files = [
                f if where is None or posixpath.isabs(f) else posixpath.join(where, f)
                for f in heading_search(shown, GEMINI_GREP, frames=False)[0]
            ]
            step.action = search_action(tool, pattern, files)
    elif tool in GLOB_TOOLS and pattern is not None:
        step.action, kind = Action("list", pattern=pattern), "glob"
    elif tool in LIST_TOOLS and not raw:
        folder = gemini_ls_folder(shown) or _first_str(args, _DIR_KEYS)
        step.action, kind = Action("list", base=folder), "ls"
    else:
        step.action = Action.other(tool)
    step.frames = whole(shown) if step.is_error else gemini_frames(shown, tool=kind)
    step.clipped = step.clipped or any(f.kind == "clip" for f in step.frames)  # the harness said it cut


def _exit_code(output: str) -> int | None:
    """A command's exit status from ``run_shell_command``'s answer: its ``Exit Code: N`` line; 0 when the
    2026 form (``Output: ...`` and only the lines that say something) names no exit code and no signal."""
    if m := GEMINI_EXIT_CODE.search(output):
        return int(m.group(1))
    if output.startswith("Output: ") and "\nSignal: " not in output and "\nError: " not in output:
        return 0
    return None


# ---------------------------------------------------------------------------------------------------------
# Texts of messages and results


def _part_text(part: Any) -> str:
    """One part of a Gemini ``Content`` (``PartListUnion``) as text; a non-text part named in brackets."""
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return compact_json(part)
    if isinstance(part.get("text"), str):
        return str(part["text"])
    for key in ("inlineData", "fileData"):
        data = part.get(key)
        if isinstance(data, dict):
            name = data.get("mimeType") or data.get("fileUri") or ""
            return f"[{key}: {name}]" if name else f"[{key}]"
    for key in ("functionCall", "functionResponse", "executableCode", "codeExecutionResult"):
        if key in part:
            return f"[{key}]"
    return compact_json(part)


def content_text(content: Any) -> str:
    """A message's ``content`` (a string, a part or a list of them) as text, parts joined as Gemini CLI joins
    them."""
    if content is None:
        return ""
    if isinstance(content, list):
        return "".join(_part_text(p) for p in content)
    return _part_text(content)


def result_text(result: Any) -> tuple[str, bool]:
    """What a call's ``result`` (the parts sent back to the model) said, and whether it was an error: each
    ``functionResponse.response``'s ``output`` (or ``error``, or the response as JSON), other parts as text."""
    parts = result if isinstance(result, list) else [result]
    texts: list[str] = []
    failed = False
    for part in parts:
        response = part.get("functionResponse") if isinstance(part, dict) else None
        if not isinstance(response, dict):
            texts.append(_part_text(part))
            continue
        body = response.get("response")
        if isinstance(body, dict) and isinstance(body.get("output"), str):
            texts.append(body["output"])
        elif isinstance(body, dict) and "error" in body:
            error = body["error"]
            texts.append(error if isinstance(error, str) else compact_json(error))
            failed = True
        elif isinstance(body, str):
            texts.append(body)
        else:
            texts.append(compact_json(body))
    return "\n".join(texts), failed


# ---------------------------------------------------------------------------------------------------------
# Reading


@dataclass
class _Run:
    """What one file's records build: the timeline and the run's facts."""

    path: Path
    timeline: Timeline
    warnings: list[str]
    instruction: str | None = None
    final: str | None = None
    models: Counter[str] = field(default_factory=Counter)
    usage: TokenUsage | None = None
    seen_ids: set[str] = field(default_factory=set)

    def note(self, line: int | None, reason: str) -> None:
        warn(self.warnings, self.path, line, reason)

    def add_usage(self, usage: TokenUsage) -> None:
        self.usage = usage if self.usage is None else self.usage + usage

    def call(self, name: str, raw_args: Any, line: int | None, call_id: str | None) -> Step:
        args, error = parse_arguments(raw_args)
        if call_id is not None and call_id in self.seen_ids and self.timeline.open_call(call_id) is None:
            self.note(line, f"tool call id {call_id!r} seen twice; both calls kept")  # (an open one: said by
            # the timeline)
        if call_id is not None:
            self.seen_ids.add(call_id)
        return self.timeline.call(
            name, args, line, call_id=call_id, args_error=error, command=step_command(name, args)
        )


def _tokens(tokens: Any) -> TokenUsage | None:
    """A ``gemini`` message's ``tokens``: output counted with its thoughts, as :class:`TokenUsage` counts it."""
    if not isinstance(tokens, dict):
        return None
    out, thoughts = _int(tokens.get("output")), _int(tokens.get("thoughts"))
    usage = TokenUsage(
        input_tokens=_int(tokens.get("input")),
        output_tokens=None if out is None else out + (thoughts or 0),
        cached_input_tokens=_int(tokens.get("cached")),
        reasoning_tokens=thoughts,
        total_tokens=_int(tokens.get("total")),
    )
    return None if usage == TokenUsage() else usage


def _tool_call(run: _Run, tc: Any, line: int | None, where: str) -> None:
    """One entry of a ``gemini`` message's ``toolCalls``: a step, answered when it holds a ``result``."""
    if not isinstance(tc, dict) or not isinstance(tc.get("name"), str):
        run.note(line, f"{where}: a tool call without a name (missing field name); skipped")
        return
    call_id = tc.get("id") if isinstance(tc.get("id"), str) else None
    step = run.call(tc["name"], tc.get("args"), line, call_id)
    result = tc.get("result")
    if result is None:
        return  # never answered (the session ended first)
    output, failed = result_text(result)
    status = tc.get("status")
    run.timeline.give(step, output, is_error=failed or (isinstance(status, str) and status in _FAILED))
    if isinstance(tc.get("timestamp"), str):
        step.ended_at = tc["timestamp"]
    if step.tool in SHELL_TOOLS:
        step.exit_code = _exit_code(output)
        if isinstance(step.args.get("dir_path"), str):
            step.cwd = step.args["dir_path"]


def _message(run: _Run, msg: Any, line: int | None, where: str) -> None:
    """One message record of a session."""
    tl = run.timeline
    if not isinstance(msg, dict):
        run.note(line, f"{where.rstrip('.') or 'the record'} is not a JSON object; skipped")
        return
    tl.now = msg.get("timestamp") if isinstance(msg.get("timestamp"), str) else None
    kind = msg.get("type")
    text = content_text(msg.get("content"))
    if kind == "user":
        tl.event("message", text, line, role="user")
        if run.instruction is None and text:
            run.instruction = text
    elif kind == "gemini":
        thoughts = msg.get("thoughts")
        for thought in thoughts if isinstance(thoughts, list) else []:
            if isinstance(thought, dict):
                subject, body = thought.get("subject"), thought.get("description")
                words = "\n".join(t for t in (subject, body) if isinstance(t, str) and t)
                tl.event("reasoning", words, line, role="assistant")
        if text:
            tl.event("message", text, line, role="assistant")
            run.final = text
        if isinstance(msg.get("model"), str):
            run.models[msg["model"]] += 1
        usage = _tokens(msg.get("tokens"))
        if usage is not None:
            run.add_usage(usage)
        calls = msg.get("toolCalls")
        if calls is not None and not isinstance(calls, list):
            run.note(line, f"{where}toolCalls: expected a list, got {type(calls).__name__}; skipped")
            calls = []
        for i, tc in enumerate(calls or []):
            _tool_call(run, tc, line, f"{where}toolCalls[{i}]")
    elif kind == "error":
        tl.event("error", text, line)
    elif kind in ("info", "warning"):
        tl.event("other", text, line, type=kind)
    else:
        run.note(line, f"{where}type: unknown message type {kind!r}; kept as an event")
        tl.event("other", text, line, type=kind)


def _session_messages(
    path: Path, records: list[tuple[int, Any]], note: Any
) -> tuple[dict[str, Any], list[tuple[int | None, str, Any]], int]:
    """The JSON-lines recording replayed as ``loadConversationRecord`` does: the metadata, the messages in
    order (``(line, where, message)``) and how many records were Gemini CLI's."""
    meta: dict[str, Any] = {}
    messages: dict[str, tuple[int, Any]] = {}
    replaced: tuple[int, list[Any]] | None = None
    recognised = 0
    for line, rec in records:
        if not isinstance(rec, dict):
            note(line, f"expected an object, got {type(rec).__name__}; skipped")
            continue
        if isinstance(rec.get("$rewindTo"), str):
            recognised += 1
            target = rec["$rewindTo"]
            if target in messages:
                keys = list(messages)
                for key in keys[keys.index(target) :]:
                    del messages[key]
            else:
                note(line, f"$rewindTo names no message before it ({target!r}); every message before dropped")
                messages.clear()
        elif isinstance(rec.get("id"), str):
            recognised += 1
            messages[rec["id"]] = (line, rec)  # a later version replaces the message in its first place
        elif isinstance(rec.get("$set"), dict):
            recognised += 1
            update = dict(rec["$set"])
            if "messages" in update:
                listed = update.pop("messages")
                if isinstance(listed, list):
                    replaced = (line, listed)
                else:
                    note(line, f"$set.messages: expected a list, got {type(listed).__name__}; ignored")
            meta.update(update)
        elif _is_header(rec):
            recognised += 1
            meta.update(rec)
        else:
            note(
                line, "unknown record: not a Gemini CLI record (no id, $set, $rewindTo or sessionId); skipped"
            )
    if replaced is not None and replaced[1]:
        line = replaced[0]
        return meta, [(line, f"$set.messages[{i}].", m) for i, m in enumerate(replaced[1])], recognised
    return meta, [(line, "", m) for line, m in messages.values()], recognised


def _read_session(path: Path, layout_: Layout, run: _Run) -> dict[str, Any]:
    """Replay a session file into ``run``; returns its metadata."""
    if layout_ == "session-json":
        doc = load_json(path, run.warnings)
        if not _is_header(doc) or not isinstance(doc.get("messages"), list):
            raise ReaderError(path, "not a Gemini CLI session: no {sessionId, projectHash, messages} object")
        meta = {k: v for k, v in doc.items() if k != "messages"}
        entries: list[tuple[int | None, str, Any]] = [
            (i, f"messages[{i - 1}].", m) for i, m in enumerate(doc["messages"], 1)
        ]
    else:
        records = list(iter_json_lines(path, run.warnings))
        meta, entries, recognised = _session_messages(path, records, run.note)
        if not recognised:
            raise ReaderError(
                path, "no Gemini CLI session record (a {sessionId, projectHash} header, messages)"
            )
    for line, where, msg in entries:
        with record(run.warnings, path, line, "message"):
            _message(run, msg, line, where)
    return meta


def _read_stream(path: Path, run: _Run) -> dict[str, Any]:
    """Replay stream-json events into ``run``; returns the facts of its ``init`` and ``result`` events."""
    tl = run.timeline
    facts: dict[str, Any] = {}
    delta: list[str] = []
    delta_line: int | None = None
    recognised = 0

    def flush() -> None:
        nonlocal delta_line
        if delta:
            text = "".join(delta)
            tl.event("message", text, delta_line, role="assistant")
            run.final = text
            delta.clear()
        delta_line = None

    def result(line: int, ev: dict[str, Any]) -> None:
        call_id = ev.get("tool_id")
        if not isinstance(call_id, str):
            run.note(line, "tool_result: missing field tool_id; skipped")
            return
        output, failed = _stream_result(ev)
        if tl.unknown(call_id):  # its tool_use has not come (yet): the result waits for it
            tl.hold(call_id, output, line, lambda: result(line, ev), "tool_id")
            return
        step = tl.answer(call_id, output, line, "tool_id", is_error=failed)
        if step is not None:  # (a second result for the id: kept as an event and said by the timeline)
            if isinstance(ev.get("timestamp"), str):
                step.ended_at = ev["timestamp"]
            _type_stream_step(step)

    for line, ev in iter_json_lines(path, run.warnings):
        kind = ev.get("type") if isinstance(ev, dict) else None
        if not isinstance(kind, str) or kind not in _STREAM_TYPES:
            run.note(line, f"unknown event type {kind!r} (not a Gemini CLI stream event); skipped")
            continue
        assert isinstance(ev, dict)
        recognised += 1
        tl.now = ev.get("timestamp") if isinstance(ev.get("timestamp"), str) else None
        if kind == "message" and ev.get("role") == "assistant" and ev.get("delta") is True:
            if delta_line is None:
                delta_line = line
            delta.append(_str(ev.get("content")))
            continue
        flush()
        with record(run.warnings, path, line, "event"):
            _stream_event(run, facts, kind, line, ev, result)
    flush()
    tl.close()
    if not recognised:
        raise ReaderError(
            path, "no Gemini CLI stream-json event (init, message, tool_use, tool_result, result)"
        )
    return facts


def _stream_event(
    run: _Run,
    facts: dict[str, Any],
    kind: str,
    line: int,
    ev: dict[str, Any],
    result: Callable[[int, dict[str, Any]], None],
) -> None:
    """One stream-json event other than an assistant's delta (``result``: how a ``tool_result`` is handled)."""
    tl = run.timeline
    if kind == "init":
        facts.setdefault("session_id", ev.get("session_id"))
        if isinstance(ev.get("model"), str):
            run.models[ev["model"]] += 1
    elif kind == "message":
        text = content_text(ev.get("content"))
        role = "user" if ev.get("role") == "user" else "assistant"
        tl.event("message", text, line, role=role)
        if role == "user" and run.instruction is None:
            run.instruction = text
        elif role == "assistant" and text:
            run.final = text
    elif kind == "tool_use":
        name, call_id = ev.get("tool_name"), ev.get("tool_id")
        if not isinstance(name, str):
            run.note(line, "tool_use: missing field tool_name; skipped")
            return
        run.call(name, ev.get("parameters"), line, call_id if isinstance(call_id, str) else None)
    elif kind == "tool_result":
        result(line, ev)
    elif kind == "error":
        tl.event("error", _str(ev.get("message")), line, severity=ev.get("severity"))
    elif kind == "result":
        facts["status"] = ev.get("status")
        stats = ev.get("stats")
        if isinstance(stats, dict):
            usage = TokenUsage(
                input_tokens=_int(stats.get("input_tokens")),
                output_tokens=_int(stats.get("output_tokens")),
                cached_input_tokens=_int(stats.get("cached")),
                total_tokens=_int(stats.get("total_tokens")),
            )
            if usage != TokenUsage():
                run.add_usage(usage)
            facts["duration_ms"] = stats.get("duration_ms")
        if isinstance(ev.get("error"), dict):
            message = ev["error"].get("message")
            tl.event("error", message if isinstance(message, str) else compact_json(ev["error"]), line)


def _stream_result(ev: dict[str, Any]) -> tuple[str, bool]:
    """A ``tool_result`` event's text (its ``output``, else its error's message) and whether it failed."""
    error = ev.get("error")
    output = ev.get("output")
    if not isinstance(output, str):
        message = error.get("message") if isinstance(error, dict) else None
        output = message if isinstance(message, str) else ""
    return output, ev.get("status") == "error" or isinstance(error, dict)


def _type_stream_step(step: Step) -> None:
    """A stream-json step: typed as a session's, but a result that is a file tool's display summary is framed
    whole (the model was shown the file, the stream only says that it was)."""
    type_step(step)
    if step.tool not in SHELL_TOOLS:
        step.frames = whole(step.shown or "")


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares, whichever
    layout :func:`layout` finds: a session file is one document, a header object with a ``messages`` list
    (:func:`_read_session`); a JSON-lines recording's messages are lines with a string ``id`` or a ``$set``
    object (:func:`_session_messages`); a stream-json call is a ``tool_use`` line (:func:`_read_stream`). A
    folder is offered as it is."""
    if not facts.is_file:
        return True
    doc = facts.document
    if _is_header(doc) and isinstance(doc.get("messages"), list):
        return True
    return any(
        isinstance(v, dict)
        and (isinstance(v.get("id"), str) or isinstance(v.get("$set"), dict) or v.get("type") == "tool_use")
        for v in facts.lines
    )


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory from a Gemini CLI session file or stream-json output (see the module docstring)."""
    found = layout(path)
    warnings: list[str] = []
    run = _Run(path, Timeline(path, clip_policy(options), warnings=warnings), warnings)
    if found is None:
        raise ReaderError(path, f"not a Gemini CLI log: {LOOKS_FOR}")
    if found == "stream-json":
        facts = _read_stream(path, run)
        session_id = facts.get("session_id")
        meta: dict[str, Any] = {"layout": found}
        for key in ("status", "duration_ms"):
            if facts.get(key) is not None:
                meta[key] = facts[key]
        started = ended = None
        kind = None
    else:
        header = _read_session(path, found, run)
        session_id = header.get("sessionId")
        meta = {"layout": found, "project_hash": header.get("projectHash")}
        for key in ("kind", "summary", "directories"):
            if header.get(key) is not None:
                meta[key] = header[key]
        started = header.get("startTime") if isinstance(header.get("startTime"), str) else None
        ended = header.get("lastUpdated") if isinstance(header.get("lastUpdated"), str) else None
        kind = header.get("kind")
    tl = run.timeline
    stamps = [s for s in [*(e.timestamp for e in tl.events), *(s.started_at for s in tl.steps)] if s]
    if run.models:
        meta["models"] = dict(run.models)
    if warnings:
        meta["warnings"] = warnings
    ident = (
        f"{NAME}:{session_id}" if isinstance(session_id, str) and session_id else trajectory_id(NAME, path)
    )
    parent = path.parent.name if kind == "subagent" else None
    return [
        Trajectory(
            id=ident,
            format=NAME,
            source_path=str(path),
            steps=tl.steps,
            events=tl.events,
            deliverable=Deliverable(
                final_message=run.final,
                files=files_written_by_tools(
                    tl.steps, WRITE_TOOLS, lambda args: _first_str(args, _PATH_KEYS)
                ),
            ),
            instruction=run.instruction,
            model=run.models.most_common(1)[0][0] if run.models else None,
            harness=HARNESS,
            started_at=started or (min(stamps) if stamps else None),
            ended_at=ended or (max(stamps) if stamps else None),
            usage=run.usage,
            clip_policy=tl.policy.name,
            meta=meta,
            parent_id=f"{NAME}:{parent}" if parent else None,
        )
    ]

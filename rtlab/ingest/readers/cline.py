"""Cline and Roo Code task folders: ``api_conversation_history.json`` (with ``ui_messages.json`` and
``task_metadata.json`` beside it), as both extensions save a task under ``tasks/<task id>/``.

``api_conversation_history.json`` is the conversation as sent to the model: a list of Anthropic-style messages
``{role, content: [blocks]}`` (Cline 3.x adds ``modelInfo`` and ``metrics.tokens`` to assistant messages).
Tool calls come in two forms (cline/cline ``src/core/assistant-message/parse-assistant-message.ts``, the
prompt's tool-use instructions):

- XML-tagged text in an assistant ``text`` block: ``<read_file>\\n<path>src/a.ts</path>\\n</read_file>``, one
  parameter a tag (``write_to_file``'s ``content`` and ``replace_in_file``'s ``diff`` may hold any text);
- native ``tool_use`` blocks ``{id, name, input}`` (Cline 3.3x+ with native tool calling, Roo Code).

Results come back in the next user message, as text headed by the call's description
(``ToolResultUtils.pushToolResult``: ``[read_file for 'src/a.ts'] Result:`` then the result, in the same text
block or the next one; ``formatResponse.toolAlreadyUsed`` for a call Cline did not run), or as ``tool_result``
blocks naming the ``tool_use_id``. Text results carry no id: each answers the earliest open call of its tool
name; ``tool_result`` blocks are paired by id, whatever their order. ``<environment_details>`` and other user
text are events. An ``attempt_completion`` is the agent's final answer: its ``result`` is the deliverable's
final message, and it is a step only when the user answered it.

``ui_messages.json`` (``{ts, type: say/ask, say/ask, text}``) gives the task's times and, in its
``api_req_started`` messages, token counts and cost; ``task_metadata.json`` the Cline version
(``environment_history[].cline_version``) and the models used. The history is read under the tolerant reading
contract (``_tolerant``): a message or block that cannot be understood is skipped and reported as a warning
naming its 1-based position in the history list (the ``line`` of a :class:`~rtlab.records.ReadWarning`), a
``tool_result`` before its ``tool_use`` waits for it (``Timeline.hold``).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest.readers._base import (
    ReadOptions,
    compact_json,
    file_tool_command,
    files_written_by_tools,
    parse_arguments,
    read_inside,
    search_action,
    typed,
)
from rtlab.ingest.readers._frames import (
    CLINE_FAILED,
    CLINE_SEARCH,
    ROO_FILES,
    ClineTool,
    cline_frames,
    heading_search,
)
from rtlab.ingest.readers._openai_common import Timeline, clip_policy
from rtlab.ingest.readers._registry import FileFacts
from rtlab.ingest.readers._tolerant import record, warn
from rtlab.io import head_text, load_json, loads, parse_json
from rtlab.records import Action, Deliverable, Step, TokenUsage, Trajectory

NAME = "cline"
HISTORY = "api_conversation_history.json"
LOOKS_FOR = (
    f"a Cline / Roo Code task folder holding {HISTORY} (Anthropic-style messages whose first user text opens "
    "with <task>, tool calls as XML-tagged text or tool_use blocks, results as '[tool for ...] Result:' text), "
    "or that file itself"
)

SHELL_TOOLS = frozenset({"execute_command"})
READ_TOOLS = frozenset({"read_file"})
WRITE_TOOLS = frozenset({"write_to_file", "new_rule"})
EDIT_TOOLS = frozenset({"replace_in_file", "apply_diff", "insert_content", "search_and_replace", "edit_file"})
LIST_TOOLS = frozenset({"list_files"})
SEARCH_TOOLS = frozenset({"search_files"})
COMPLETION = "attempt_completion"
XML_TOOLS = frozenset(
    {
        *SHELL_TOOLS, *READ_TOOLS, *WRITE_TOOLS, *EDIT_TOOLS, *LIST_TOOLS, *SEARCH_TOOLS, COMPLETION,
        "list_code_definition_names", "browser_action", "use_mcp_tool", "access_mcp_resource",
        "ask_followup_question", "plan_mode_respond", "plan_mode_response", "load_mcp_documentation", "new_task",
        "condense", "summarize_task", "report_bug", "web_fetch", "web_search", "apply_patch", "codebase_search",
        "switch_mode", "fetch_instructions", "update_todo_list", "run_slash_command", "generate_image",
    }
)  # fmt: skip
"""Cline's and Roo Code's tools, as their prompts name them: a tag with one of these names opens a call."""
_PATH_KEYS = ("path", "absolutePath", "file_path")
_RAW_PARAMS = frozenset({"content", "diff"})
"""Parameters kept as written (only the newline after the opening tag and before the closing one dropped);
the others are trimmed, as Cline trims them."""
_XML_OPEN = re.compile(r"<(" + "|".join(sorted(XML_TOOLS, key=len, reverse=True)) + r")>")
_PARAM_OPEN = re.compile(r"<([A-Za-z_][\w-]*)>")
_RESULT_HEAD = re.compile(r"\[(?P<tool>[A-Za-z_][\w-]*)(?: for .*?)?\] Result:", re.S)
_NOT_RUN = re.compile(r"Tool \[(?P<tool>[A-Za-z_][\w-]*)\] was not executed because ")
_TASK = re.compile(r"\A\s*<task>\n?(?P<task>.*?)\n?</task>", re.S)
_FIRST_TEXT = re.compile(
    r'\A\s*\[\s*\{\s*"role"\s*:\s*"user"\s*,\s*"content"\s*:\s*\[\s*\{\s*"type"\s*:\s*"text"'
)


# ---------------------------------------------------------------------------------------------------------
# Sniffing


def _history(path: Path) -> Path | None:
    try:
        if path.is_dir():
            found = path / HISTORY
            return found if found.is_file() else None
        return path if path.is_file() else None
    except OSError:
        return None


def _is_cline_text(text: Any) -> bool:
    return isinstance(text, str) and (
        _TASK.match(text) is not None or text.lstrip().startswith(("[TASK RESUMPTION]", "<task>"))
    )


def sniff(path: Path) -> bool:
    """A folder holding ``api_conversation_history.json``, or such a file (any name), whose first message is a
    user message opening with a ``<task>`` (or a task resumption) text block."""
    history = _history(path)
    if history is None:
        return False
    head = head_text(history, 65536)
    if not _FIRST_TEXT.match(head):
        return False
    start = head.find('"text"')
    colon = head.find(":", start)
    try:
        text, _ = json.JSONDecoder().raw_decode(head, head.index('"', colon))
    except (ValueError, json.JSONDecodeError):
        return False
    return _is_cline_text(text)


# ---------------------------------------------------------------------------------------------------------
# XML-tagged tool calls in assistant text


@dataclass(frozen=True)
class XmlCall:
    """One XML-tagged tool call found in an assistant's text."""

    name: str
    """The tool (the tag)."""
    params: dict[str, str]
    """Its parameters, one a tag inside it."""
    start: int
    """Where its opening tag starts in the text."""
    end: int
    """Just past its closing tag (the end of the text when it was never closed)."""


def _param_value(name: str, value: str) -> str:
    if name in _RAW_PARAMS:
        return value.removeprefix("\n").removesuffix("\n")
    return value.strip()


def xml_calls(text: str) -> list[XmlCall]:
    """The tool calls in ``text`` (a tag of :data:`XML_TOOLS` and its parameters); a call never closed (a
    response cut off) runs to the end of the text."""
    calls: list[XmlCall] = []
    pos = 0
    while m := _XML_OPEN.search(text, pos):
        name = m.group(1)
        close = text.find(f"</{name}>", m.end())
        body_end = close if close >= 0 else len(text)
        end = close + len(name) + 3 if close >= 0 else len(text)
        params: dict[str, str] = {}
        p = m.end()
        while pm := _PARAM_OPEN.search(text, p, body_end):
            key = pm.group(1)
            closing = f"</{key}>"
            stop = (
                text.rfind(closing, pm.end(), body_end)
                if key in _RAW_PARAMS
                else text.find(closing, pm.end(), body_end)
            )
            if stop < 0:
                params.setdefault(key, _param_value(key, text[pm.end() : body_end]))
                break
            params.setdefault(key, _param_value(key, text[pm.end() : stop]))
            p = stop + len(closing)
        calls.append(XmlCall(name, params, m.start(), end))
        pos = end
    return calls


# ---------------------------------------------------------------------------------------------------------
# Steps in harness-neutral terms


def _path(args: dict[str, Any]) -> str | None:
    for key in _PATH_KEYS:
        if isinstance(args.get(key), str) and args[key]:
            return str(args[key])
    return None


def step_command(tool: str, args: dict[str, Any]) -> str:
    """``Step.command``: the shell command, ``read PATH``, ``write PATH``, or ``tool {json}``."""
    return file_tool_command(tool, args, _path(args), shell=SHELL_TOOLS, read=READ_TOOLS, write=WRITE_TOOLS)


def type_step(step: Step) -> None:
    """Cline's and Roo Code's tools: ``execute_command`` runs a command line; ``read_file`` shows a file (Roo
    Code's ``<files>`` reply of one file too); ``write_to_file`` writes one; ``replace_in_file`` (Roo Code's
    ``apply_diff``, ``insert_content``, ``search_and_replace``) changes one; ``list_files`` lists paths relative
    to its ``path``; ``search_files`` prints matches under each file's path: one file's lines are a read of it, no
    match a search that found nothing, several files nothing rtlab attributes (capture knows ``path:N:text``
    lines only); everything else is ``other``. A result that says the call failed or did not run is Cline's
    words whole. Frames: :func:`cline_frames`."""
    tool, args, shown = step.tool, step.args, step.shown or ""
    path = None if set(args) == {"_raw"} else _path(args)
    kind: ClineTool = "other"
    if tool in SHELL_TOOLS and isinstance(args.get("command"), str):
        step.action, kind = Action.shell(args["command"]), "shell"
        if isinstance(args.get("cwd"), str):
            step.cwd = args["cwd"]
    elif tool in READ_TOOLS and shown.startswith("<files>"):
        files = heading_search(shown, ROO_FILES, frames=False)[0]
        step.action = Action.read(files[0]) if len(files) == 1 else Action.other(tool)
        kind = "read"
    elif tool in READ_TOOLS and path is not None:
        step.action, kind = Action.read(path), "read"
    elif tool in WRITE_TOOLS and path is not None:
        step.action = Action("write", path=path)
    elif tool in EDIT_TOOLS and path is not None:
        step.action = Action("edit", path=path)
    elif tool in LIST_TOOLS and path is not None:
        step.action, kind = Action("list", base=path), "list"
    elif tool in SEARCH_TOOLS and isinstance(args.get("regex"), str):
        step.action = search_action(tool, args["regex"], heading_search(shown, CLINE_SEARCH, frames=False)[0])
        kind = "search"
    else:
        step.action = Action.other(tool)
    step.frames = cline_frames(shown, tool=kind)


# ---------------------------------------------------------------------------------------------------------
# Reading


@dataclass
class _Task:
    """What one history builds: the timeline (calls by id), the calls awaiting a text result by tool name,
    the run's facts."""

    path: Path
    timeline: Timeline
    warnings: list[str]
    open: list[Step] = field(default_factory=list)
    """Calls without a result yet, in order: a text result answers the earliest of its tool."""
    instruction: str | None = None
    final: str | None = None
    last_text: str | None = None
    models: Counter[str] = field(default_factory=Counter)
    usage: TokenUsage | None = None

    def note(self, where: int | None, reason: str) -> None:
        warn(self.warnings, self.path, where, reason)

    def call(self, name: str, raw_args: Any, where: int, call_id: str | None) -> Step:
        args, error = parse_arguments(raw_args)
        tl = self.timeline
        if call_id is not None and not tl.unknown(call_id) and tl.open_call(call_id) is None:
            self.note(where, f"tool_use id {call_id!r} seen twice; both calls kept")  # (an open one: said by
            # the timeline)
        step = tl.call(name, args, where, call_id=call_id, args_error=error, command=step_command(name, args))
        if name == COMPLETION and isinstance(args.get("result"), str):
            self.final = args["result"]
        if not step.answered:  # (a tool_result that came first answers it at once)
            self.open.append(step)
        return step

    def result(self, where: int, call_id: str, content: Any, failed: bool) -> None:
        """A ``tool_result`` block: paired with its ``tool_use`` by id, whatever their order."""
        tl = self.timeline
        output = _blocks_text(content)
        if tl.unknown(call_id):  # its tool_use has not come (yet): the result waits for it
            tl.hold(
                call_id, output, where, lambda: self.result(where, call_id, content, failed), "tool_use_id"
            )
            return
        step = tl.answer(call_id, output, where, "tool_use_id", is_error=_failed(output, failed))
        if step is not None and step in self.open:
            self.open.remove(step)

    def answer(self, step: Step, content: Any) -> None:
        """A text result: answers ``step`` (the earliest open call of its tool)."""
        output = _blocks_text(content)
        self.open.remove(step)
        self.timeline.give(step, output, is_error=_failed(output, False))


def _failed(output: str, failed: bool) -> bool:
    """Whether a result says its call failed: flagged so, or in Cline's words for a failure."""
    return failed or bool(CLINE_FAILED.match(output.strip()))


def _blocks_text(content: Any) -> str:
    """A ``tool_result``'s content (a string or a list of blocks) as text; images named in brackets."""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        return "" if content is None else compact_json(content)
    texts = []
    for block in content:
        if isinstance(block, dict) and isinstance(block.get("text"), str):
            texts.append(block["text"])
        elif isinstance(block, dict):
            texts.append(f"[{block.get('type', 'block')}]")
        else:
            texts.append(str(block))
    return "\n".join(texts)


def _assistant(task: _Task, msg: dict[str, Any], where: int) -> None:
    tl = task.timeline
    content = msg.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        task.note(where, f"content: expected a list of blocks, got {type(content).__name__}; skipped")
        return
    info = msg.get("modelInfo")
    if isinstance(info, dict) and isinstance(info.get("modelId"), str):
        task.models[info["modelId"]] += 1
    for block in blocks:
        kind = block.get("type") if isinstance(block, dict) else None
        if kind in ("thinking", "redacted_thinking", "reasoning"):
            text = block.get("thinking") or block.get("text") or ""
            tl.event("reasoning", text if isinstance(text, str) else "", where, role="assistant")
        elif kind == "text" and isinstance(block.get("text"), str):
            text = block["text"]
            pos = 0
            for call in xml_calls(text):
                said = text[pos : call.start].strip()
                if said:
                    tl.event("message", said, where, role="assistant")
                    task.last_text = said
                task.call(call.name, dict(call.params), where, None)
                pos = call.end
            said = text[pos:].strip()
            if said:
                tl.event("message", said, where, role="assistant")
                task.last_text = said
        elif kind == "tool_use":
            name, call_id = block.get("name"), block.get("id")
            if not isinstance(name, str):
                task.note(where, "a tool_use block: missing field name; skipped")
                continue
            task.call(name, block.get("input"), where, call_id if isinstance(call_id, str) else None)
        else:
            task.note(where, f"unknown assistant block type {kind!r}; skipped")


def _user(task: _Task, msg: dict[str, Any], where: int) -> None:
    tl = task.timeline
    content = msg.get("content")
    blocks = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(blocks, list):
        task.note(where, f"content: expected a list of blocks, got {type(content).__name__}; skipped")
        return
    i = 0
    while i < len(blocks):
        block = blocks[i]
        kind = block.get("type") if isinstance(block, dict) else None
        i += 1
        if kind == "tool_result":
            call_id = block.get("tool_use_id")
            if not isinstance(call_id, str):
                task.note(where, "a tool_result block: missing field tool_use_id; skipped")
                continue
            task.result(where, call_id, block.get("content"), block.get("is_error") is True)
            continue
        if kind != "text" or not isinstance(block.get("text"), str):
            if kind not in ("image", "document"):
                task.note(where, f"unknown user block type {kind!r}; skipped")
            continue
        text = block["text"]
        head = _RESULT_HEAD.match(text)
        not_run = _NOT_RUN.match(text)
        if head is None and not_run is None:
            tl.event("message" if not text.lstrip().startswith("<environment_details>") else "other", text, where,
                     role="user")  # fmt: skip
            if task.instruction is None and (m := _TASK.match(text)):
                task.instruction = m.group("task")
            continue
        name = (head or not_run).group("tool")  # type: ignore[union-attr]
        if head is not None:
            result = text[head.end() :].removeprefix("\n")
            if not result.strip() and i < len(
                blocks
            ):  # the result in the next text block (Cline before 3.3x)
                nxt = blocks[i]
                nxt_text = nxt.get("text") if isinstance(nxt, dict) else None
                if isinstance(nxt_text, str) and not _RESULT_HEAD.match(nxt_text) and not nxt_text.lstrip(
                ).startswith("<environment_details>"):  # fmt: skip
                    result, i = nxt_text, i + 1
        else:
            result = text
        step = next((s for s in task.open if s.tool == name), None)
        if step is None:
            task.note(where, f"a result for {name!r} answers no open call of that tool; kept as a message")
            tl.event("message", text, where, role="user")
            continue
        task.answer(step, result)


def _message(task: _Task, msg: Any, where: int) -> None:
    """One message of the history (``where``: its 1-based position)."""
    if not isinstance(msg, dict):
        task.note(where, f"expected an object, got {type(msg).__name__}; message skipped")
        return
    role = msg.get("role")
    task.timeline.now = _iso(msg["ts"]) if isinstance(msg.get("ts"), int) else None  # Roo Code's times
    if role == "assistant":
        _assistant(task, msg, where)
        metrics = msg.get("metrics")
        tokens = metrics.get("tokens") if isinstance(metrics, dict) else None
        if isinstance(tokens, dict):
            usage = TokenUsage(
                input_tokens=_count(tokens, "prompt"),
                output_tokens=_count(tokens, "completion"),
                cached_input_tokens=_count(tokens, "cached"),
            )
            task.usage = usage if task.usage is None else task.usage + usage
    elif role == "user":
        _user(task, msg, where)
    else:
        task.note(where, f"unknown role {role!r}; skipped")


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _count(obj: dict[str, Any], key: str) -> int | None:
    value = obj.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _usage_from_ui(ui: Any) -> tuple[TokenUsage | None, list[int]]:
    """Token counts and cost summed over ``api_req_started`` messages, and every message's time (ms)."""
    total: TokenUsage | None = None
    stamps: list[int] = []
    if not isinstance(ui, list):
        return None, stamps
    for m in ui:
        if not isinstance(m, dict):
            continue
        if isinstance(m.get("ts"), int):
            stamps.append(m["ts"])
        if m.get("say") != "api_req_started" or not isinstance(m.get("text"), str):
            continue
        try:
            info = parse_json(m["text"])
        except json.JSONDecodeError:
            continue
        if not isinstance(info, dict):
            continue

        tin, reads, writes = _count(info, "tokensIn"), _count(info, "cacheReads"), _count(info, "cacheWrites")
        usage = TokenUsage(
            input_tokens=None if tin is None else tin + (reads or 0) + (writes or 0),
            output_tokens=_count(info, "tokensOut"),
            cached_input_tokens=reads,
            cost_usd=float(info["cost"]) if isinstance(info.get("cost"), int | float) else None,
        )
        if usage != TokenUsage():
            total = usage if total is None else total + usage
    return total, stamps


def _iso(ms: int) -> str | None:
    try:
        return datetime.fromtimestamp(ms / 1000, tz=UTC).isoformat().replace("+00:00", "Z")
    except (OverflowError, OSError, ValueError):
        return None


def _sidecar(folder: Path, name: str, task: _Task) -> Any:
    """``ui_messages.json`` or ``task_metadata.json`` beside the history, when it is there and is JSON."""
    data = read_inside(folder / name, folder)
    if data is None:
        return None
    try:
        return loads(data, folder / name)
    except (ValueError, ReaderError) as exc:  # not JSON, or not UTF-8
        warn(task.warnings, folder / name, None, f"not JSON ({exc}); not used")
        return None


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: a history
    given as a file is one document, a list holding a message (an object with a ``role``; :func:`read` refuses
    anything else); a task folder is offered as it is."""
    doc = facts.document
    return (
        not facts.is_file or isinstance(doc, list) and any(isinstance(m, dict) and "role" in m for m in doc)
    )


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory from a Cline / Roo Code task folder (or its ``api_conversation_history.json``)."""
    history = _history(path)
    if history is None:
        raise ReaderError(path, f"no {HISTORY} here")
    folder = history.parent
    warnings: list[str] = []
    task = _Task(history, Timeline(history, clip_policy(options), warnings=warnings), warnings)
    doc = load_json(history, warnings)
    if not isinstance(doc, list) or not any(isinstance(m, dict) and "role" in m for m in doc):
        raise ReaderError(history, "not a Cline conversation history: no list of {role, content} messages")
    for where, msg in enumerate(doc, 1):
        with record(warnings, history, where, "message"):
            _message(task, msg, where)
    task.timeline.close()
    ui = _sidecar(folder, "ui_messages.json", task)
    metadata = _sidecar(folder, "task_metadata.json", task)
    ui_usage, stamps = _usage_from_ui(ui)
    versions = [
        e["cline_version"]
        for e in _list(metadata.get("environment_history") if isinstance(metadata, dict) else None)
        if isinstance(e, dict) and isinstance(e.get("cline_version"), str)
    ]
    tl = task.timeline
    meta: dict[str, Any] = {"n_messages": len(doc), "task_id": folder.name}
    if task.models:
        meta["models"] = dict(task.models)
    if warnings:
        meta["warnings"] = warnings
    model = task.models.most_common(1)[0][0] if task.models else None
    if model is None and isinstance(metadata, dict):  # histories before Cline 3.3x name no model per message
        used = [u.get("model_id") for u in _list(metadata.get("model_usage")) if isinstance(u, dict)]
        model = next((m for m in reversed(used) if isinstance(m, str)), None)
    return [
        Trajectory(
            id=f"{NAME}:{folder.name}",
            format=NAME,
            source_path=str(path),
            steps=tl.steps,
            events=tl.events,
            deliverable=Deliverable(
                final_message=task.final or task.last_text,
                files=files_written_by_tools(tl.steps, WRITE_TOOLS, _path),
            ),
            instruction=task.instruction,
            model=model,
            harness="cline" if versions else None,
            harness_version=versions[-1] if versions else None,
            started_at=_iso(min(stamps)) if stamps else None,
            ended_at=_iso(max(stamps)) if stamps else None,
            usage=ui_usage or task.usage,
            clip_policy=tl.policy.name,
            meta=meta,
        )
    ]

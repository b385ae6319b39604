"""Codex CLI ``codex exec --json`` event streams, alone or in the run folders Workspace-Bench's runner leaves.

The stream is one JSON event a line (``ThreadEvent`` in openai/codex codex-rs/exec/src/exec_events.rs):
``thread.started``, ``turn.started``, ``turn.completed`` (token usage), ``turn.failed``, ``error``,
``item.plan.delta``, ``request_user_input`` and ``item.started`` / ``item.updated`` / ``item.completed``
carrying a ``ThreadItem`` (``id`` plus a ``type``: ``command_execution``, ``mcp_tool_call``,
``collab_tool_call``, ``web_search``, ``file_change`` are tool calls and become steps; ``agent_message``,
``reasoning``, ``plan``, ``todo_list`` and ``error`` become events). Streams of Codex before about v0.45 name
the item kind ``item_type`` and call messages ``assistant_message``; both spellings are read.

A run folder holds ``raw/codex_stdout.jsonl`` (or ``output/raw/...``) with ``codex_invocation.json`` (the
argv, model and cwd) and ``last_message.txt`` beside it, and the deliverables under ``output/``. A folder
named ``<task>_<arm>`` gives the task id and the method.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest._clipping import ClipPolicy, get_policy, utf8_exceeds
from rtlab.ingest.readers._base import (
    ReadOptions,
    call_command,
    compact_json,
    deliverable_file,
    located_run_files,
    parse_arguments,
    read_inside,
    typed,
)
from rtlab.ingest.readers._frames import output_frames
from rtlab.ingest.readers._registry import FileFacts, FileShape
from rtlab.ingest.readers._tolerant import record
from rtlab.io import blank_text, decode_text, head_json_lines, iter_json_lines, load_json
from rtlab.io import field as get_field
from rtlab.records import Action, Deliverable, DeliverableFile, Event, Step, TokenUsage, Trajectory
from rtlab.text import split_shell_words

NAME = "codex"
FILE_SHAPE: FileShape = "json-lines"
"""A file this reader is given (not a folder) is read by ``rtlab.io.iter_json_lines`` alone, its refusal let
out: a file that iterator refuses holds no step for it (``_registry.FileShape``)."""

LOOKS_FOR = (
    "a stream (any file name: .jsonl, .md, .txt, ...) whose first event is {'type': 'thread.started'} "
    "(codex exec --json), or a run folder holding raw/codex_stdout.jsonl or output/raw/codex_stdout.jsonl"
)
DEFAULT_CLIP = "codex-0.133"
STREAM_NAME = "codex_stdout.jsonl"
HARNESS_VERSION_NOTE = "not recorded: codex exec --json and codex_invocation.json carry no Codex version"

_STREAM_PLACES = ("raw", "output/raw")
_RUN_NAME = re.compile(r"^(?P<task>\d+)_(?P<method>\w[\w-]*)$")
_SHELLS = {"bash", "sh", "zsh", "dash", "ksh"}
_TOOL_ITEMS = {"command_execution", "mcp_tool_call", "collab_tool_call", "web_search", "file_change"}
_FAILED = {"failed", "declined"}
CAPTURE_CAP_BYTES = 1024 * 1024
"""Codex keeps the first 1 MiB of a command's output (``EXEC_OUTPUT_MAX_BYTES`` = ``DEFAULT_OUTPUT_BYTES_CAP``,
codex-rs/core/src/exec.rs and codex-rs/utils/pty/src/lib.rs) and drops the rest without a notice (#35421)."""


# ---------------------------------------------------------------------------------------------------------
# Detection and layout


def _stream_in(folder: Path) -> Path | None:
    for place in _STREAM_PLACES:
        candidate = folder / place / STREAM_NAME
        if candidate.is_file() or candidate.is_dir() or candidate.is_symlink():
            return candidate  # a folder or a broken link in the stream's place: claimed, so reading says so
    return None


def _is_start(first: Any) -> bool:
    return isinstance(first, dict) and first.get("type") == "thread.started"


_EVENTS = frozenset({"thread.started", "turn.started", "item.started", "item.updated", "item.completed"})


def _is_stream(head: list[Any]) -> bool:
    """The first JSON lines of a file (lines that are not JSON, such as the ``Reading prompt from stdin...``
    Codex prints, passed over) open a Codex exec stream: ``thread.started`` first, or (a stream whose first
    event was lost) a turn or item event with its ``item`` or ``usage``."""
    if not head or not isinstance(head[0], dict):
        return False
    first = head[0]
    if _is_start(first):
        return True
    return first.get("type") in _EVENTS and (
        isinstance(first.get("item"), dict) or first.get("type") == "turn.started"
    )


def sniff(path: Path) -> bool:
    """A stream file whose first event is ``thread.started`` (or a turn or item event), or a folder holding
    ``codex_stdout.jsonl``.

    Files are judged by their content alone: CI systems save the stream as ``agent_log.md`` or
    ``agent_log_raw.txt``. A UTF-8 byte-order mark and blank lines before the first event are passed over."""
    try:
        if path.is_dir():
            stream = _stream_in(path)
            if stream is None:
                return False
            head = head_json_lines(stream)
            # an empty or unreadable stream in a run folder is still a Codex run: claim it so reading reports it
            return not head or _is_stream(head)
        return path.is_file() and _is_stream(head_json_lines(path))
    except OSError:
        return False


@dataclass
class _Layout:
    """Where a run's files are: the stream, the folder beside it, the deliverables and the run's name."""

    stream: Path
    beside: Path
    deliverables: Path | None
    run_name: str | None
    root: Path
    """The run folder: its files are read only inside it."""


def _layout(path: Path) -> _Layout:
    if path.is_dir():
        stream = _stream_in(path)
        if stream is None:
            raise ReaderError(path, f"no raw/{STREAM_NAME} or output/raw/{STREAM_NAME} in this folder")
    else:
        stream = path
    beside = stream.parent
    if beside.name != "raw":
        return _Layout(stream, beside, None, None, beside)
    base = beside.parent
    run_dir = base.parent if base.name == "output" else base
    return _Layout(stream, beside, base / "output", run_dir.name, run_dir)


# ---------------------------------------------------------------------------------------------------------
# The event stream


def unwrap_shell(raw: str | list[str]) -> str:
    """The inner command of ``/bin/bash -lc "..."`` (as Codex logs shell calls) or of the argv
    ``["bash", "-lc", "..."]`` (as its ``shell`` tool takes them); other commands unchanged (an argv joined
    with ``shlex.join``)."""
    if isinstance(raw, list):
        argv = raw
    else:
        try:
            argv = split_shell_words(raw)
        except ValueError:
            return raw
    if len(argv) == 3 and Path(argv[0]).name in _SHELLS and argv[1] in ("-c", "-lc"):
        return argv[2]
    return raw if isinstance(raw, str) else shlex.join(raw)


def _optional(
    obj: dict[str, Any], key: str, kind: type | tuple[type, ...], path: Path, line: int | None, where: str
) -> Any:
    """``obj[key]`` when present and not null, checked for type; ``None`` otherwise."""
    if obj.get(key) is None:
        return None
    return get_field(obj, key, kind, path, line, where)


@dataclass
class _Stream:
    """Builds steps and events from one stream, in order."""

    path: Path
    policy: ClipPolicy
    steps: list[Step] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    usage: TokenUsage | None = None
    thread_id: str | None = None
    final_message: str | None = None
    turns: int = 0
    plan_deltas: int = 0
    _open: dict[str, Step] = field(default_factory=dict)
    _closed: set[str] = field(default_factory=set)
    _seq: int = 0
    _commands: dict[str, str] = field(default_factory=dict)
    """Each command line's :func:`unwrap_shell`, memoised: an item's command is read again with each of its
    ``item.started``, ``item.updated`` and ``item.completed`` events."""

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq - 1

    def event(self, kind: Any, text: str, line: int, **kw: Any) -> None:
        self.events.append(Event(kind=kind, text=text, seq=self.next_seq(), line=line, **kw))

    def feed(self, line: int, ev: Any) -> None:
        path = self.path
        if not isinstance(ev, dict):
            raise ReaderError(path, f"expected an event object, got {type(ev).__name__}", line=line)
        etype = get_field(ev, "type", str, path, line)
        if etype == "thread.started":
            self.thread_id = get_field(ev, "thread_id", str, path, line)
        elif etype == "turn.started":
            self.turns += 1
        elif etype == "turn.completed":
            self._add_usage(get_field(ev, "usage", dict, path, line), line)
        elif etype == "turn.failed":
            error = get_field(ev, "error", dict, path, line)
            message = get_field(error, "message", str, path, line, "error")
            self.event("error", message, line, data={"event": "turn.failed"})
        elif etype == "error":
            self.event("error", get_field(ev, "message", str, path, line), line, data={"event": "error"})
        elif etype in ("item.started", "item.updated", "item.completed"):
            self._item(etype.removeprefix("item."), get_field(ev, "item", dict, path, line), line)
        elif etype == "item.plan.delta":
            self.plan_deltas += 1  # the completed ``plan`` item carries the whole text
        elif etype == "request_user_input":
            questions = get_field(ev, "questions", list, path, line)
            text = "\n".join(
                q["question"] for q in questions if isinstance(q, dict) and isinstance(q.get("question"), str)
            )
            self.event("message", text, line, role="assistant", data={"event": etype, "questions": questions})
        else:
            self.warnings.append(f"{path}:{line}: unknown event type {etype!r}; kept as an 'other' event")
            self.event("other", etype, line, data=ev)

    def _add_usage(self, usage: dict[str, Any], line: int) -> None:
        def count(key: str) -> int | None:
            return _optional(usage, key, int, self.path, line, "usage")

        turn = TokenUsage(
            input_tokens=count("input_tokens"),
            output_tokens=count("output_tokens"),
            cached_input_tokens=count("cached_input_tokens"),
            reasoning_tokens=count("reasoning_output_tokens"),
        )
        self.usage = turn if self.usage is None else self.usage + turn

    def _item(self, phase: str, item: dict[str, Any], line: int) -> None:
        path = self.path
        item_id = get_field(item, "id", str, path, line, "item")
        key = "item_type" if "item_type" in item and "type" not in item else "type"
        itype = get_field(item, key, str, path, line, "item")
        if itype == "assistant_message":
            itype = "agent_message"
        if itype in _TOOL_ITEMS:
            self._tool(phase, itype, item_id, item, line)
        elif itype == "todo_list":
            todos = get_field(item, "items", list, path, line, "item")
            text = "\n".join(
                f"[{'x' if t.get('completed') else ' '}] {t.get('text', '')}"
                for t in todos
                if isinstance(t, dict)
            )
            self.event("plan", text, line, data={"item_id": item_id, "phase": phase, "items": todos})
        elif phase != "completed":
            return  # messages, reasoning and plans are whole only when completed
        elif itype == "agent_message":
            text = get_field(item, "text", str, path, line, "item")
            self.final_message = text
            self.event("message", text, line, role="assistant", data={"item_id": item_id})
        elif itype in ("reasoning", "plan"):
            kind = "reasoning" if itype == "reasoning" else "plan"
            self.event(
                kind, get_field(item, "text", str, path, line, "item"), line, data={"item_id": item_id}
            )
        elif itype == "error":
            message = get_field(item, "message", str, path, line, "item")
            self.event("error", message, line, data={"item_id": item_id})
        else:
            self.warnings.append(f"{path}:{line}: unknown item type {itype!r}; kept as an 'other' event")
            self.event("other", itype, line, data=item)

    def _tool(self, phase: str, itype: str, item_id: str, item: dict[str, Any], line: int) -> None:
        tool, command, args, args_error = self._call(itype, item, line)
        step = self._open.get(item_id)
        if step is None:
            if item_id in self._closed and phase != "completed":
                self.warnings.append(
                    f"{self.path}:{line}: item.{phase} of {item_id!r} came after its item.completed (a log out "
                    "of order); skipped, the completed item kept"
                )
                return
            if item_id in self._closed:
                self.warnings.append(f"{self.path}:{line}: item {item_id!r} appears again after it completed")
            step = Step(
                index=len(self.steps),
                tool=tool,
                command=command,
                call_id=item_id,
                seq=self.next_seq(),
                line=line,
            )
            self.steps.append(step)
            self._open[item_id] = step
        step.tool, step.command, step.args, step.args_error = tool, command, args, args_error
        if phase == "completed":
            self._result(step, itype, item, line)
            del self._open[item_id]
            self._closed.add(item_id)

    def _call(
        self, itype: str, item: dict[str, Any], line: int
    ) -> tuple[str, str, dict[str, Any], str | None]:
        """Tool name, readable command, parsed arguments and argument error of a tool item."""
        path = self.path
        if itype == "command_execution":
            raw = get_field(item, "command", str, path, line, "item")
            command = self._commands.get(raw)
            if command is None:
                command = self._commands[raw] = unwrap_shell(raw)
            return itype, command, {"command": raw}, None
        if itype == "mcp_tool_call":
            server = get_field(item, "server", str, path, line, "item")
            name = get_field(item, "tool", str, path, line, "item")
            args, error = parse_arguments(item.get("arguments"))
            tool = f"mcp__{server}__{name}"
            return tool, call_command(tool, args), args, error
        if itype == "collab_tool_call":
            name = get_field(item, "tool", str, path, line, "item")
            args = {k: item[k] for k in ("sender_thread_id", "receiver_thread_ids", "prompt") if k in item}
            return name, call_command(name, args), args, None
        if itype == "web_search":
            args = {"query": get_field(item, "query", str, path, line, "item")}
            if item.get("action") is not None:
                args["action"] = item["action"]
            return itype, call_command(itype, args), args, None
        changes = get_field(item, "changes", list, path, line, "item")
        parts = []
        for i, change in enumerate(changes):
            file = get_field(change, "path", str, path, line, f"item.changes[{i}]")
            parts.append(f"{'delete' if change.get('kind') == 'delete' else 'write'} {file}")
        return itype, "; ".join(parts) or itype, {"changes": changes}, None

    def _result(self, step: Step, itype: str, item: dict[str, Any], line: int) -> None:
        path = self.path
        status = _optional(item, "status", str, path, line, "item")
        step.is_error = status in _FAILED
        if itype == "command_execution":
            step.output = get_field(item, "aggregated_output", str, path, line, "item")
            step.exit_code = _optional(item, "exit_code", int, path, line, "item")
            step.is_error = step.is_error or step.exit_code not in (None, 0)
            step.shown = self.policy.apply(step.output)
            if utf8_exceeds(step.output, CAPTURE_CAP_BYTES - 1):
                self.warnings.append(
                    f"{path}:{line}: output of {step.call_id} reached Codex's 1 MiB capture cap; the command "
                    "printed more than the log holds"
                )
        elif itype == "mcp_tool_call":
            step.output, failed = self._mcp_output(item, line)
            step.is_error = step.is_error or failed
            step.shown = self.policy.apply(step.output)
        elif itype == "collab_tool_call":
            step.output = compact_json(item.get("agents_states") or {})
        elif itype == "file_change":
            step.output = status or "completed"
        else:
            step.output = ""  # a web search's results are not logged
        if step.shown is None:
            step.shown = step.output
        step.clipped = step.shown != step.output

    def _mcp_output(self, item: dict[str, Any], line: int) -> tuple[str, bool]:
        """The text of an MCP result (text blocks joined; other blocks as JSON) and whether it failed."""
        error = _optional(item, "error", dict, self.path, line, "item")
        if error is not None:
            return get_field(error, "message", str, self.path, line, "item.error"), True
        result = _optional(item, "result", dict, self.path, line, "item")
        if result is None:
            return "", False
        content = _optional(result, "content", list, self.path, line, "item.result") or []
        texts = [
            c["text"]
            if isinstance(c, dict) and c.get("type") == "text" and isinstance(c.get("text"), str)
            else compact_json(c)
            for c in content
        ]
        if not texts and result.get("structured_content") is not None:
            texts = [compact_json(result["structured_content"])]
        return "\n".join(texts), False


# ---------------------------------------------------------------------------------------------------------
# Files beside the stream


@dataclass
class _Invocation:
    model: str | None = None
    cwd: str | None = None
    instruction: str | None = None
    argv: list[str] = field(default_factory=list)


def _flag(argv: list[str], *names: str) -> str | None:
    for i, arg in enumerate(argv[:-1]):
        if arg in names:
            return argv[i + 1]
    return None


def _invocation(path: Path) -> _Invocation:
    """Model, cwd and prompt from ``codex_invocation.json`` (the prompt is the last argv element)."""
    if not path.is_file():
        return _Invocation()
    data = load_json(path)
    if not isinstance(data, dict):
        raise ReaderError(path, f"expected an object, got {type(data).__name__}")
    argv = _optional(data, "cmd", list, path, None, "") or []
    if not all(isinstance(a, str) for a in argv):
        raise ReaderError(path, "expected a list of strings", field="cmd")
    model = _optional(data, "model", str, path, None, "") or _flag(argv, "--model", "-m")
    cwd = _optional(data, "cwd", str, path, None, "") or _flag(argv, "--cd", "-C")
    instruction = argv[-1] if len(argv) > 1 and not argv[-1].startswith("-") else None
    return _Invocation(model=model, cwd=cwd, instruction=instruction, argv=argv[:-1] if instruction else argv)


def _files(folder: Path | None, root: Path, warnings: list[str]) -> list[DeliverableFile]:
    """Every file under the output folder: relative path, absolute location, text content, size, sha256; only
    the run's own files (:func:`~rtlab.ingest.readers._base.run_files`: never through a link out of ``root``)."""
    if folder is None or not folder.is_dir():
        return []
    out = []
    for file, real in located_run_files(folder, root, warnings):
        data = read_inside(file, root, warnings, checked=True)
        if data is None:
            continue
        rel = file.relative_to(folder).as_posix()
        out.append(deliverable_file(rel, data, origin="output_dir", local_path=str(real)))
    return out


def _events(stream: Path, warnings: list[str]) -> Iterator[tuple[int, Any]]:
    data = stream.read_bytes()
    if blank_text(data):
        raise ReaderError(stream, "file is empty")
    yield from iter_json_lines(stream, warnings, data=data)


def type_step(step: Step) -> None:
    """Codex's items in harness-neutral terms: a ``command_execution`` is a shell command line (its shown output
    may carry Codex's ``Total output lines`` header and truncation markers); a ``file_change`` writes its
    files (deletions aside); MCP, web-search and agent calls are others."""
    shown = step.shown or ""
    if step.tool == "command_execution":
        step.action = Action.shell(step.command)
        step.frames = output_frames(shown, step.command, clipped=step.clipped, harness="codex")
    elif step.tool == "file_change":
        changes = step.args.get("changes")
        files = [
            c["path"]
            for c in (changes if isinstance(changes, list) else [])
            if isinstance(c, dict) and isinstance(c.get("path"), str) and c.get("kind") != "delete"
        ]
        if len(files) == 1:
            step.action = Action("write", path=files[0])
        else:
            step.action = Action("write", parts=tuple(Action("write", path=f) for f in files))
    else:
        step.action = Action.other(step.tool)


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: a step is an
    ``item.started`` / ``item.updated`` / ``item.completed`` event (``_Stream.feed``), so a file's lines hold one
    (a folder is offered as it is)."""
    return not facts.is_file or not facts.types.isdisjoint(_ITEM_EVENTS)


_ITEM_EVENTS = frozenset({"item.started", "item.updated", "item.completed"})


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory from a Codex exec stream or run folder; shell output clipped by ``codex-0.133``."""
    path = Path(path)
    layout = _layout(path)
    policy = get_policy(options.clip or DEFAULT_CLIP)
    state = _Stream(layout.stream, policy)
    for line, ev in _events(layout.stream, state.warnings):
        with record(state.warnings, layout.stream, line, "event"):
            state.feed(line, ev)
    invocation = _invocation(layout.beside / "codex_invocation.json")
    final = state.final_message
    last_message = layout.beside / "last_message.txt"
    if final is None and last_message.is_file():
        data = read_inside(last_message, layout.root, state.warnings)
        final = (decode_text(data, last_message).strip() or None) if data is not None else None
    files = _files(layout.deliverables, layout.root, state.warnings)
    run = _RUN_NAME.match(layout.run_name or "")
    ident = layout.run_name or state.thread_id or layout.stream.stem
    meta: dict[str, Any] = {"harness_version_note": HARNESS_VERSION_NOTE, "turns": state.turns}
    if state.thread_id:
        meta["thread_id"] = state.thread_id
    if invocation.argv:
        meta["argv"] = invocation.argv
    if state.plan_deltas:
        meta["plan_deltas"] = state.plan_deltas
    unanswered = [s.call_id for s in state.steps if not s.answered]
    if unanswered:
        meta["unanswered_calls"] = unanswered
    if state.warnings:
        meta["warnings"] = state.warnings
    return [
        Trajectory(
            id=f"{NAME}:{ident}",
            format=NAME,
            source_path=str(path),
            steps=state.steps,
            events=state.events,
            deliverable=Deliverable(final_message=final, files=files),
            task_id=run.group("task") if run else None,
            instruction=invocation.instruction,
            model=invocation.model,
            harness="codex",
            method=run.group("method") if run else None,
            cwd=invocation.cwd,
            usage=state.usage,
            clip_policy=policy.name,
            meta=meta,
        )
    ]

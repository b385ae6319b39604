"""Pi coding-agent sessions (badlogic/pi-mono, ``packages/coding-agent``), session format versions 1 to 3.

The format, from ``docs/session.md``, ``src/core/session-manager.ts`` and ``src/core/messages.ts``:

- Line 1 is the header ``{"type": "session", "version"?, "id", "timestamp", "cwd", ...}``; no ``version`` means 1.
  Version 1 headers also carry ``provider``/``modelId``/``thinkingLevel``.
- Version 1 entries are linear. From version 2 every entry has ``id``/``parentId`` and the entries form a tree;
  Pi sets the leaf to the last entry of the file on load, and what the model saw is the path from that leaf to the
  root (``buildSessionContext``). Entries off that path (abandoned branches) are not part of the trajectory and
  are only counted in ``meta``. Version 3 renamed the message role ``hookMessage`` to ``custom``.
- Entry types: ``message`` (an AgentMessage: ``user``, ``assistant``, ``toolResult``, ``bashExecution``,
  ``custom``/``hookMessage``, ...), ``model_change``, ``thinking_level_change``, ``compaction`` (``summary``,
  ``firstKeptEntryId``; version 1: ``firstKeptEntryIndex`` into the file's entries, header included),
  ``branch_summary``, ``custom_message``, ``custom``, ``label``, ``session_info``.
- Assistant content blocks are ``text``, ``thinking`` and ``toolCall {id, name, arguments}``; a ``toolResult``
  message answers the call with the same ``toolCallId`` (linked by id, never by position).

Pi's tools shorten their own output and the session logs the shortened text with a notice, so ``shown == output``;
``TRUNCATION_NOTICES`` recognises those notices in every wording the tools have used. The Pi message walk
(:class:`PiTimeline`) is shared with the DCI-Agent-Lite reader, which records the same messages.
"""

from __future__ import annotations

import dataclasses
import posixpath
import re
import shlex
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from rtlab.errors import ReaderError
from rtlab.ingest._clipping import ClipPolicy, get_policy
from rtlab.ingest.readers._base import (
    ReadOptions,
    call_command,
    checked_field,
    deliverable_file,
    parse_arguments,
    read_command,
    typed,
)
from rtlab.ingest.readers._frames import (
    NoticeKind,
    output_frames,
    read_tool_reply,
    truncation_notices,
    whole,
)
from rtlab.ingest.readers._registry import FileFacts, FileShape
from rtlab.ingest.readers._tolerant import SKIPPED_ERRORS, skipped_because
from rtlab.io import head_json_lines, iter_json_lines
from rtlab.records import (
    Action,
    Deliverable,
    DeliverableFile,
    Event,
    EventKind,
    Step,
    TokenUsage,
    Trajectory,
)

NAME = "pi"
FILE_SHAPE: FileShape = "json-lines"
"""A file this reader is given (not a folder) is read by ``rtlab.io.iter_json_lines`` alone, its refusal let
out: a file that iterator refuses holds no step for it (``_registry.FileShape``)."""

LOOKS_FOR = 'a .jsonl file whose first line is a Pi session header {"type": "session", "id": ..., "cwd": ...}'

HARNESS = "pi"
LATEST_VERSION = 3

# ---------------------------------------------------------------------------------------------------------
# Truncation notices

_NOTICE_TAIL = 2000  # tools append their notices at the end (bash errors add one status line after it)


def _resolve(kind: NoticeKind, args: dict[str, Any]) -> Literal["clip", "window"]:
    if kind == "limit":
        return "window" if args.get("limit") is not None else "clip"
    return kind


def notice_kind(
    text: str | None, args: dict[str, Any], details: Any = None
) -> Literal["clip", "window"] | None:
    """``clip`` when the tool shortened its output, ``window`` when only the model's own window ended, else None.

    Looks for :data:`TRUNCATION_NOTICES` in the tail of ``text`` and at the structured ``details`` newer tools log
    (``truncation.truncated``, ``linesTruncated``, ``matchLimitReached``/``resultLimitReached``/``entryLimitReached``).
    """
    notices = truncation_notices(text[-_NOTICE_TAIL:]) if text else []
    if not notices and not isinstance(details, dict):  # most results: no notice, no details
        return None
    kinds = {_resolve(n.kind, args) for n in notices}
    if isinstance(details, dict):
        truncation = details.get("truncation")
        if (isinstance(truncation, dict) and truncation.get("truncated") is True) or details.get(
            "linesTruncated"
        ):
            kinds.add("clip")
        if any(details.get(k) for k in ("matchLimitReached", "resultLimitReached", "entryLimitReached")):
            kinds.add(_resolve("limit", args))
    if "clip" in kinds:
        return "clip"
    return "window" if "window" in kinds else None


# ---------------------------------------------------------------------------------------------------------
# Commands


def _q(value: Any) -> str:
    return shlex.quote(str(value))


def tool_command(tool: str, args: dict[str, Any]) -> str:
    """The shell command a Pi tool call amounts to: the command for ``bash``, an equivalent for the file tools.

    ``read PATH [OFFSET [LIMIT]]`` (a limit without an offset starts at Pi's default line 1), ``write PATH``,
    ``edit PATH``, ``ls PATH``, ``find PATH -name PATTERN``, ``grep -rn [-i] [-F] [-C N] [--include=GLOB]
    PATTERN PATH``; any other tool, or a call missing its main argument, gives ``tool {json args}``.
    """
    path = args.get("path")
    if tool == "bash" and isinstance(args.get("command"), str):
        return args["command"]
    if tool == "read" and isinstance(path, str):
        return read_command(path, args.get("offset"), args.get("limit"))
    if tool in ("write", "edit") and isinstance(path, str):
        return f"{tool} {path}"
    where = path if isinstance(path, str) and path else "."
    if tool == "ls":
        return f"ls {_q(where)}"
    if tool == "find" and isinstance(args.get("pattern"), str):
        return f"find {_q(where)} -name {_q(args['pattern'])}"
    if tool == "grep" and isinstance(args.get("pattern"), str):
        flags = ["-rn"]
        if args.get("ignoreCase"):
            flags.append("-i")
        if args.get("literal"):
            flags.append("-F")
        if isinstance(args.get("context"), int) and args["context"] > 0:
            flags.append(f"-C {args['context']}")
        if isinstance(args.get("glob"), str):
            flags.append(f"--include={_q(args['glob'])}")
        return f"grep {' '.join(flags)} {_q(args['pattern'])} {_q(where)}"
    return call_command(tool, args)


# ---------------------------------------------------------------------------------------------------------
# Message helpers


def content_text(content: Any, path: Path, line: int | None, where: str) -> str:
    """The text blocks of a Pi message ``content`` (a string or a list of blocks), joined with newlines.

    Image blocks carry no text and are left out (Pi's read tool logs a text note beside each image).
    """
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if not isinstance(content, list):
        raise ReaderError(
            path, f"expected a string or a list, got {type(content).__name__}", line=line, field=where
        )
    texts = []
    for i, block in enumerate(content):
        if not isinstance(block, dict):
            raise ReaderError(
                path, f"expected an object, got {type(block).__name__}", line=line, field=f"{where}[{i}]"
            )
        if block.get("type") == "text":
            texts.append(checked_field(block, "text", str, path, line, f"{where}[{i}]"))
    return "\n".join(texts)


def iso_from_ms(ms: Any) -> str | None:
    """A Pi message ``timestamp`` (epoch milliseconds) as ISO-8601 UTC like Pi's own ``toISOString()``."""
    if isinstance(ms, bool) or not isinstance(ms, int | float):
        return None
    try:
        moment = datetime.fromtimestamp(ms / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.isoformat(timespec="milliseconds").replace("+00:00", "Z")


_NUMBER = (int, float)
"""A JSON number (a tuple: ``int | float`` would be made again at every test)."""


def _number(value: Any) -> float:
    return value if isinstance(value, _NUMBER) and not isinstance(value, bool) else 0


def _bash_execution_text(message: dict[str, Any]) -> str:
    """What Pi's ``convertToLlm`` shows the model for a user ``!`` command (messages.ts bashExecutionToText)."""
    text = f"Ran `{message.get('command', '')}`\n"
    output = message.get("output")
    text += f"```\n{output}\n```" if output else "(no output)"
    exit_code = message.get("exitCode")
    if message.get("cancelled"):
        text += "\n\n(command cancelled)"
    elif isinstance(exit_code, int) and exit_code != 0:
        text += f"\n\nCommand exited with code {exit_code}"
    if message.get("truncated") and message.get("fullOutputPath"):
        text += f"\n\n[Output truncated. Full output: {message['fullOutputPath']}]"
    return text


_EXIT = re.compile(r"Command exited with code (\d+)\s*$")


def _exit_code(tool: str, text: str, is_error: bool) -> int | None:
    """Pi's bash tool returns normally only for exit code 0 and reports others as an error ending in the code."""
    if tool != "bash":
        return None
    if not is_error:
        return 0
    found = _EXIT.search(text)
    return int(found.group(1)) if found else None


# ---------------------------------------------------------------------------------------------------------
# The shared walk over Pi messages


@dataclass
class PiParse:
    """What :class:`PiTimeline` made of a run's messages."""

    steps: list[Step]
    """The tool calls in order, answered or not."""
    events: list[Event]
    """Messages, reasoning, compactions and other entries that are not tool calls."""
    usage: TokenUsage | None
    """Token counts summed over the assistant messages; ``None`` when none carried usage."""
    instruction: str | None
    """The first non-empty user message: the task as the agent received it."""
    final_message: str | None
    """The text of the last assistant message that had text."""
    model: str | None
    """Model id of the last assistant message."""
    provider: str | None
    """Provider of the last assistant message, where it names one."""
    models: dict[str, int]
    """``provider/model`` -> number of assistant messages."""
    written: dict[str, str]
    """Path -> content of each successful ``write`` call, last write wins, in order of last write."""
    edited_after_write: list[str]
    """Files a successful ``write`` created and a later ``edit`` changed (their written content is then stale)."""
    notice_kinds: dict[int, str]
    """Step index -> ``clip`` or ``window`` where the output carries a truncation notice."""
    orphan_results: int
    """Tool results whose call id matched no open call (kept as ``other`` events and warned about)."""


@dataclass
class _Usage:
    input: float = 0
    output: float = 0
    cache_read: float = 0
    total: float = 0
    cost: float = 0
    seen: bool = False

    def add(self, usage: dict[str, Any]) -> None:
        fresh, out = _number(usage.get("input")), _number(usage.get("output"))
        read, write = _number(usage.get("cacheRead")), _number(usage.get("cacheWrite"))
        self.input += fresh + read + write
        self.output += out
        self.cache_read += read
        self.total += _number(usage.get("totalTokens")) or fresh + out + read + write
        cost = usage.get("cost")
        self.cost += _number(cost.get("total")) if isinstance(cost, dict) else 0
        self.seen = True

    def result(self) -> TokenUsage | None:
        if not self.seen:
            return None
        return TokenUsage(
            input_tokens=int(self.input),
            output_tokens=int(self.output),
            cached_input_tokens=int(self.cache_read),
            total_tokens=int(self.total),
            cost_usd=self.cost,
        )


@dataclass
class PiTimeline:
    """Turns Pi AgentMessages, in order, into steps and events with one ``seq`` counter across both.

    Used by the Pi session reader and by the DCI-Agent-Lite reader (whose runner records Pi RPC messages).
    """

    path: Path
    """The file being read, for error messages and warnings."""
    cwd: str | None
    """The session's working directory (given to every step)."""
    warnings: list[str]
    """Where recoverable oddities are reported (unknown roles, orphan results, reused call ids)."""
    steps: list[Step] = dataclasses.field(default_factory=list)
    """The tool calls so far, in order."""
    events: list[Event] = dataclasses.field(default_factory=list)
    """The other entries so far, in order."""
    _seq: int = 0
    """The next position on the timeline shared by steps and events."""
    _pending: dict[str, Step] = dataclasses.field(default_factory=dict)
    """Call id -> the call still waiting for its result."""
    _answered: set[str] = dataclasses.field(default_factory=set)
    """Call ids that already got their result."""
    _usage: _Usage = dataclasses.field(default_factory=_Usage)
    """Token counts summed over the assistant messages."""
    _instruction: str | None = None
    """The first non-empty user message."""
    _final: str | None = None
    """The text of the last assistant message that had text."""
    _model: tuple[str | None, str | None] = (None, None)
    """``(provider, model)`` of the last assistant message that named a model."""
    _models: dict[str, int] = dataclasses.field(default_factory=dict)
    """``provider/model`` -> number of assistant messages."""
    _written: dict[str, str] = dataclasses.field(default_factory=dict)
    """Path -> content of each successful ``write``, last write wins."""
    _edited: list[str] = dataclasses.field(default_factory=list)
    """Written files a later ``edit`` changed, in order."""
    _notices: dict[int, str] = dataclasses.field(default_factory=dict)
    """Step index -> ``clip`` or ``window`` for outputs that carry a truncation notice."""
    _orphans: int = 0
    """Tool results that matched no open call."""
    _unknown_roles: set[str] = dataclasses.field(default_factory=set)
    """Message roles already warned about (one warning per role)."""
    _early: dict[str, tuple[dict[str, Any], int | None, str | None, str, Event]] = dataclasses.field(
        default_factory=dict
    )
    """Results that came before any call with their id (a log out of order): ``(message, line, timestamp,
    field, the 'other' event standing for it)``, given to the call when it comes."""

    def _next(self) -> int:
        self._seq += 1
        return self._seq - 1

    def event(
        self,
        kind: EventKind,
        text: str = "",
        *,
        role: str | None = None,
        timestamp: str | None = None,
        line: int | None = None,
        data: dict[str, Any] | None = None,
    ) -> Event:
        """Append an event at the current point of the timeline."""
        # positional: the dataclass's __init__ called with keywords costs about twice as much
        ev = Event(kind, text, role, self._next(), timestamp, line, data or {})
        self.events.append(ev)
        return ev

    def message(self, message: Any, *, line: int | None, timestamp: str | None, where: str) -> list[int]:
        """Add one AgentMessage; returns the indices of the steps (tool calls) it opened."""
        role = checked_field(message, "role", str, self.path, line, where)
        if role == "assistant":
            return self._assistant(message, line, timestamp, where)
        if role == "toolResult":
            self._tool_result(message, line, timestamp, where)
        else:
            self._context_message(role, message, line, timestamp, where)
        return []

    def _context_message(
        self, role: str, message: dict[str, Any], line: int | None, timestamp: str | None, where: str
    ) -> None:
        """A message that is neither a call nor a result: user text, user ``!`` commands, extension messages."""
        if role in ("user", "system", "custom", "hookMessage"):
            text = content_text(message.get("content"), self.path, line, f"{where}.content")
            if role == "user" and self._instruction is None and text.strip():
                self._instruction = text
            if role == "system":
                self.event("system", text, role="system", timestamp=timestamp, line=line)
            elif role == "user":
                self.event("message", text, role="user", timestamp=timestamp, line=line)
            else:  # v3 renamed hookMessage to custom; Pi hands both to the model as user messages
                data = {
                    "type": role,
                    "customType": message.get("customType"),
                    "display": message.get("display"),
                }
                self.event("message", text, role="user", timestamp=timestamp, line=line, data=data)
        elif role == "bashExecution":
            keys = ("command", "exitCode", "cancelled", "truncated", "excludeFromContext")
            data = {"type": role, **{k: message.get(k) for k in keys}}
            text = _bash_execution_text(message)
            self.event("message", text, role="user", timestamp=timestamp, line=line, data=data)
        elif role in ("branchSummary", "compactionSummary"):
            text = str(message.get("summary", ""))
            self.event("compaction", text, timestamp=timestamp, line=line, data={"type": role})
        else:
            if role not in self._unknown_roles:
                self.warnings.append(
                    f"{self.path}:{line}: unknown message role {role!r} kept as an 'other' event"
                )
                self._unknown_roles.add(role)
            self.event("other", timestamp=timestamp, line=line, data={"role": role})

    def _assistant(
        self, message: dict[str, Any], line: int | None, timestamp: str | None, where: str
    ) -> list[int]:
        content = checked_field(message, "content", list, self.path, line, where)
        provider, model = message.get("provider"), message.get("model")
        if isinstance(model, str):
            self._model = (provider if isinstance(provider, str) else None, model)
            key = f"{provider}/{model}" if isinstance(provider, str) else model
            self._models[key] = self._models.get(key, 0) + 1
        if isinstance(message.get("usage"), dict):
            self._usage.add(message["usage"])
        opened: list[int] = []
        texts: list[str] = []
        for i, block in enumerate(content):
            at = f"{where}.content[{i}]"
            if not isinstance(block, dict) or not isinstance(block.get("type"), str):
                self.warnings.append(
                    f"{self.path}:{line} [{at}]: a content block without a type; block not understood, skipped"
                )
                continue
            kind = block["type"]
            if kind == "text":
                text = checked_field(block, "text", str, self.path, line, at)
                if text.strip():
                    texts.append(text)
                    self.event("message", text, role="assistant", timestamp=timestamp, line=line)
            elif kind == "thinking":
                thinking = block.get("thinking")
                text = thinking if isinstance(thinking, str) else ""
                self.event("reasoning", text, role="assistant", timestamp=timestamp, line=line)
            elif kind == "toolCall":
                try:  # what _tolerant.record does, without an object a call
                    opened.append(self._tool_call(block, line, timestamp, at))
                except SKIPPED_ERRORS as exc:
                    self.warnings.append(skipped_because(exc, self.path, line, f"tool call {at}"))
        if texts:
            self._final = "".join(texts)
        stop, error = message.get("stopReason"), message.get("errorMessage")
        if stop in ("error", "aborted") or isinstance(error, str):
            text = error if isinstance(error, str) else str(stop)
            self.event(
                "error", text, role="assistant", timestamp=timestamp, line=line, data={"stopReason": stop}
            )
        return opened

    def _tool_call(self, block: dict[str, Any], line: int | None, timestamp: str | None, where: str) -> int:
        call_id = checked_field(block, "id", str, self.path, line, where)
        tool = checked_field(block, "name", str, self.path, line, where)
        args, args_error = parse_arguments(block.get("arguments"))
        step = Step(
            index=len(self.steps),
            tool=tool,
            command=tool_command(tool, args),
            args=args,
            call_id=call_id,
            cwd=self.cwd,
            started_at=timestamp,
            seq=self._next(),
            line=line,
            args_error=args_error,
        )
        if call_id in self._pending or call_id in self._answered:
            self.warnings.append(
                f"{self.path}:{line}: tool call id {call_id!r} used twice; results go to the latest"
            )
        self._pending[call_id] = step
        self.steps.append(step)
        early = self._early.pop(call_id, None)
        if early is not None:
            message, at, stamp, where_at, stand_in = early
            self.events.remove(stand_in)
            self._orphans -= 1
            self.warnings.append(
                f"{self.path}:{at}: tool result for call {call_id!r} came before its call (line {line}); "
                "paired by id"
            )
            self._tool_result(message, at, stamp, where_at)
        return step.index

    def _tool_result(
        self, message: dict[str, Any], line: int | None, timestamp: str | None, where: str
    ) -> None:
        call_id = checked_field(message, "toolCallId", str, self.path, line, where)
        text = content_text(message.get("content"), self.path, line, f"{where}.content")
        step = self._pending.pop(call_id, None)
        if step is None:
            self._orphans += 1
            data = {"toolCallId": call_id, "toolName": message.get("toolName"), "orphan": True}
            stand_in = self.event("other", text, role="tool", timestamp=timestamp, line=line, data=data)
            if call_id in self._answered or call_id in self._early:
                self.warnings.append(
                    f"{self.path}:{line}: tool result for answered call {call_id!r} (a call id seen twice); kept "
                    "as an 'other' event"
                )
            else:  # its call may come later: it waits (said in finish if it never does)
                self._early[call_id] = (message, line, timestamp, where, stand_in)
            return
        self._answered.add(call_id)
        step.output = step.shown = text
        step.is_error = message.get("isError") is True
        step.ended_at = timestamp
        step.exit_code = _exit_code(step.tool, text, step.is_error)
        found = notice_kind(text, step.args, message.get("details"))
        if found:
            self._notices[step.index] = found
        target = step.args.get("path")
        if isinstance(target, str) and not step.is_error:
            if step.tool == "write" and isinstance(step.args.get("content"), str):
                self._written.pop(target, None)
                self._written[target] = step.args["content"]
            elif step.tool == "edit" and target in self._written and target not in self._edited:
                self._edited.append(target)

    def finish(self) -> PiParse:
        """The steps and events so far; calls still waiting for a result stay unanswered (output None), and
        results whose call never came are said in the warnings (they stay ``other`` events)."""
        for call_id, (_, line, *_rest) in self._early.items():
            self.warnings.append(
                f"{self.path}:{line}: tool result for unknown call {call_id!r} (no call in the file has its id); "
                "kept as an 'other' event"
            )
        self._early.clear()
        for step in self.steps:
            step.clipped = self._notices.get(step.index) == "clip"
        provider, model = self._model
        return PiParse(
            steps=self.steps,
            events=self.events,
            usage=self._usage.result(),
            instruction=self._instruction,
            final_message=self._final,
            model=model,
            provider=provider,
            models=dict(self._models),
            written=dict(self._written),
            edited_after_write=list(self._edited),
            notice_kinds=dict(self._notices),
            orphan_results=self._orphans,
        )


def apply_policy(steps: Iterable[Step], policy: ClipPolicy) -> None:
    """Replace ``shown`` by ``policy.apply(output)`` (for ``--clip``); a shortened text marks the step clipped."""
    for step in steps:
        if step.output is not None:
            step.shown = policy.apply(step.output)
            step.clipped = step.clipped or step.shown != step.output


def written_files(written: dict[str, str]) -> list[DeliverableFile]:
    """Deliverable files for the contents ``write`` calls wrote."""
    return [
        deliverable_file(path, content.encode("utf-8"), origin="write_tool")
        for path, content in written.items()
    ]


def parse_meta(parse: PiParse) -> dict[str, Any]:
    """The ``meta`` facts both Pi-based readers record about the message walk."""
    meta: dict[str, Any] = {"models": parse.models}
    if parse.provider:
        meta["provider"] = parse.provider
    kinds = list(parse.notice_kinds.values())
    meta["n_clipped_notices"] = kinds.count("clip")
    meta["n_window_notices"] = kinds.count("window")
    if parse.edited_after_write:
        meta["written_files_edited_later"] = parse.edited_after_write
    if parse.orphan_results:
        meta["n_orphan_results"] = parse.orphan_results
    return meta


# ---------------------------------------------------------------------------------------------------------
# Session files


_EMPTY_REPLIES = frozenset({"No matches found", "No files found matching pattern", "(empty directory)"})
"""What Pi's grep, find and ls tools print when they found nothing."""
_SUFFIX = re.compile(r"\.[A-Za-z0-9_]{1,10}$")


def type_step(step: Step) -> None:
    """Pi's tools in harness-neutral terms: ``bash`` runs a command line; ``read`` shows a file; ``write`` and
    ``edit`` change one; ``grep`` prints ``path:N: text`` relative to the folder searched (a file searched:
    its name); ``find`` and ``ls`` print paths relative to the folder given. Frames: Pi's exit status and
    truncation notices (and any other harness words :func:`output_frames` knows)."""
    tool, args, shown = step.tool, step.args, step.shown or ""
    path = args.get("path")
    if tool == "bash" and isinstance(args.get("command"), str):
        step.action = Action.shell(args["command"])
        step.frames = output_frames(shown, step.command, clipped=step.clipped, harness="pi")
    elif tool == "read" and isinstance(path, str):
        step.action, step.frames = read_tool_reply(shown, path, clipped=step.clipped, harness="pi")
        if step.action.kind == "read":
            step.action = Action.read(path, _int(args.get("offset")), _int(args.get("limit")))
    elif tool in ("write", "edit") and isinstance(path, str):
        step.action = Action(tool, path=path)  # type: ignore[arg-type]  # tool is "write" or "edit"
    elif tool == "ls" or (tool in ("find", "grep") and isinstance(args.get("pattern"), str)):
        where = path if isinstance(path, str) and path else "."
        if tool == "grep":
            base = posixpath.dirname(where) if _SUFFIX.search(where) else where
            step.action = Action("search", pattern=args["pattern"], base=base)
        else:
            step.action = Action("list", pattern=args.get("pattern"), base=where)
        empty = shown.strip() in _EMPTY_REPLIES
        step.frames = (
            whole(shown) if empty else output_frames(shown, step.command, clipped=False, harness="pi")
        )
    else:
        step.action = Action.other(tool)


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _is_header(value: Any) -> bool:
    return isinstance(value, dict) and value.get("type") == "session" and isinstance(value.get("id"), str)


def sniff(path: Path) -> bool:
    """A ``.jsonl`` file whose first record (lines that are not JSON passed over) is a session header."""
    if not path.is_file() or path.suffix != ".jsonl":
        return False
    head = head_json_lines(path, 5)
    return bool(head) and _is_header(head[0])


ENTRY_TYPES = frozenset(
    {
        "message",
        "model_change",
        "thinking_level_change",
        "compaction",
        "branch_summary",
        "custom_message",
        "custom",
        "label",
        "session_info",
    }
)
"""The session entry types of Pi's session format (``docs/session.md``, versions 1 to 3) after the header."""


@dataclass
class _Entry:
    line: int
    data: dict[str, Any]
    id: str
    parent_id: str | None


def _entries(path: Path, lines: list[tuple[int, Any]], version: int, warnings: list[str]) -> list[_Entry]:
    """Session entries with their tree links; version 1 files are linear, so each entry's parent is the previous."""
    entries: list[_Entry] = []
    seen: set[str] = set()
    for lineno, data in lines:
        try:
            checked_field(data, "type", str, path, lineno)
            if version < 2:
                entry = _Entry(lineno, data, f"line-{lineno}", entries[-1].id if entries else None)
            else:
                entry_id = checked_field(data, "id", str, path, lineno)
                parent = data.get("parentId")
                if "parentId" not in data:
                    warnings.append(
                        f"{path}:{lineno} [parentId]: missing field; repaired: the entry before it taken as its parent"
                    )
                    parent = entries[-1].id if entries else None
                elif parent is not None and not isinstance(parent, str):
                    warnings.append(
                        f"{path}:{lineno} [parentId]: expected str or null, got {type(parent).__name__}; "
                        "repaired: the entry before it taken as its parent"
                    )
                    parent = entries[-1].id if entries else None
                if entry_id in seen:
                    warnings.append(
                        f"{path}:{lineno} [id]: duplicate entry id {entry_id!r}; the repeat is skipped"
                    )
                    continue
                entry = _Entry(lineno, data, entry_id, parent)
        except ReaderError as exc:
            warnings.append(skipped_because(exc, path, lineno, "entry"))
            continue
        if data["type"] not in ENTRY_TYPES:
            warnings.append(f"{path}:{lineno}: unknown entry type {data['type']!r}; kept as an 'other' event")
        seen.add(entry.id)
        entries.append(entry)
    return entries


def _branch(path: Path, entries: list[_Entry], warnings: list[str]) -> list[_Entry]:
    """The path from the last entry (Pi's leaf on load) back to the root, in root-to-leaf order."""
    by_id = {e.id: e for e in entries}
    branch: list[_Entry] = []
    seen: set[str] = set()
    current = entries[-1] if entries else None
    while current is not None:
        if current.id in seen:
            warnings.append(
                f"{path}:{current.line} [parentId]: parentId links form a cycle; the branch starts after it"
            )
            break
        seen.add(current.id)
        branch.append(current)
        parent = current.parent_id
        if parent is not None and parent not in by_id:
            warnings.append(f"{path}:{current.line}: parentId {parent!r} names no entry; treated as the root")
        current = by_id.get(parent) if parent is not None else None
    branch.reverse()
    return branch


def _count_tool_calls(entries: Iterable[_Entry]) -> int:
    n = 0
    for e in entries:
        message = e.data.get("message")
        if (
            e.data.get("type") == "message"
            and isinstance(message, dict)
            and message.get("role") == "assistant"
        ):
            content = message.get("content")
            if isinstance(content, list):
                n += sum(1 for b in content if isinstance(b, dict) and b.get("type") == "toolCall")
    return n


def _first_kept_id(entry: _Entry, header_and_entries: list[Any]) -> str | None:
    """``firstKeptEntryId``, or for version 1 the entry at ``firstKeptEntryIndex`` (the header is index 0)."""
    kept = entry.data.get("firstKeptEntryId")
    if isinstance(kept, str):
        return kept
    index = entry.data.get("firstKeptEntryIndex")
    if isinstance(index, int) and 0 < index < len(header_and_entries):
        return header_and_entries[index].id
    return None


def _session_entry(timeline: PiTimeline, entry: _Entry, unknown: set[str]) -> list[int]:
    """Add one non-compaction entry of the branch to the timeline; returns the steps it opened."""
    data, line = entry.data, entry.line
    kind = data["type"]
    ts = got if isinstance(got := data.get("timestamp"), str) else None
    if kind == "message":
        message = checked_field(data, "message", dict, timeline.path, line)
        return timeline.message(message, line=line, timestamp=ts, where="message")
    if kind == "model_change":
        text = f"model: {data.get('provider')}/{data.get('modelId')}"
        payload = {"type": kind, "provider": data.get("provider"), "modelId": data.get("modelId")}
        timeline.event("system", text, timestamp=ts, line=line, data=payload)
    elif kind == "thinking_level_change":
        payload = {"type": kind, "thinkingLevel": data.get("thinkingLevel")}
        timeline.event(
            "system", f"thinking level: {data.get('thinkingLevel')}", timestamp=ts, line=line, data=payload
        )
    elif kind == "branch_summary":
        payload = {"type": kind, "fromId": data.get("fromId"), "fromHook": data.get("fromHook")}
        timeline.event("compaction", str(data.get("summary", "")), timestamp=ts, line=line, data=payload)
    elif kind == "custom_message":
        text = content_text(data.get("content"), timeline.path, line, "content")
        payload = {"type": kind, "customType": data.get("customType"), "display": data.get("display")}
        timeline.event("message", text, role="user", timestamp=ts, line=line, data=payload)
    elif kind == "custom":
        timeline.event(
            "other", timestamp=ts, line=line, data={"type": kind, "customType": data.get("customType")}
        )
    elif kind == "label":
        label = got if isinstance(got := data.get("label"), str) else ""
        timeline.event(
            "other", label, timestamp=ts, line=line, data={"type": kind, "targetId": data.get("targetId")}
        )
    elif kind == "session_info":
        name = got if isinstance(got := data.get("name"), str) else ""
        timeline.event("other", name, timestamp=ts, line=line, data={"type": kind})
    else:
        unknown.add(kind)
        timeline.event("other", timestamp=ts, line=line, data={"type": kind})
    return []


def _walk(
    timeline: PiTimeline, branch: list[_Entry], header_and_entries: list[Any], meta: dict[str, Any]
) -> dict[str, Any]:
    """Add the branch to the timeline; compaction events record the steps their summary replaced."""
    position = {e.id: p for p, e in enumerate(branch)}
    step_position: dict[int, int] = {}
    unknown: set[str] = set()
    compacted: set[int] = set()
    last_model_change: tuple[Any, Any] | None = None
    for p, entry in enumerate(branch):
        data = entry.data
        if data["type"] == "compaction":
            kept = _first_kept_id(entry, header_and_entries)
            cut = position.get(kept) if kept is not None else None
            if cut is None or cut > p:
                timeline.warnings.append(
                    f"{timeline.path}:{entry.line}: compaction's first kept entry {kept!r} is not on the branch "
                    "before it; everything before the compaction counts as compacted"
                )
                cut = p
            gone = sorted(i for i, sp in step_position.items() if sp < cut)
            compacted.update(gone)
            ts = data.get("timestamp") if isinstance(data.get("timestamp"), str) else None
            payload = {
                "type": "compaction",
                "firstKeptEntryId": kept,
                "tokensBefore": data.get("tokensBefore"),
                "fromHook": data.get("fromHook"),
                "compacted_steps": gone,
            }
            timeline.event(
                "compaction", str(data.get("summary", "")), timestamp=ts, line=entry.line, data=payload
            )
            continue
        if data["type"] == "model_change":
            last_model_change = (data.get("provider"), data.get("modelId"))
        try:  # what _tolerant.record does, without an object an entry
            for index in _session_entry(timeline, entry, unknown):
                step_position[index] = p
        except SKIPPED_ERRORS as exc:
            timeline.warnings.append(skipped_because(exc, timeline.path, entry.line, "entry"))
    if compacted:
        meta["compacted_steps"] = sorted(compacted)
    if unknown:
        meta["unknown_entry_types"] = sorted(unknown)
    return {"last_model_change": last_model_change}


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: the file's
    first line is a session header (an object of type ``session``; :func:`read` refuses any other)."""
    if not facts.is_file:
        return True
    lines = facts.lines
    return bool(lines) and isinstance(lines[0], dict) and lines[0].get("type") == "session"


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory per session file: the branch from the last entry to the root."""
    warnings: list[str] = []
    lines = list(iter_json_lines(path, warnings))
    if not lines:
        raise ReaderError(path, "file is empty")
    header_line, header = lines[0]
    if not isinstance(header, dict) or header.get("type") != "session":
        raise ReaderError(
            path, 'first line is not a Pi session header (type "session")', line=header_line, field="type"
        )
    version = header.get("version", 1)
    if isinstance(version, bool) or not isinstance(version, int):
        raise ReaderError(
            path, f"expected an integer, got {type(version).__name__}", line=header_line, field="version"
        )
    if version > LATEST_VERSION:
        warnings.append(
            f"{path}: session version {version} is newer than {LATEST_VERSION}; read as version 3"
        )
    cwd = header.get("cwd") if isinstance(header.get("cwd"), str) else None
    entries = _entries(path, lines[1:], version, warnings)
    branch = _branch(path, entries, warnings)
    on_branch = {e.id for e in branch}
    off_branch = [e for e in entries if e.id not in on_branch]

    meta: dict[str, Any] = {"session_version": version}
    timeline = PiTimeline(path, cwd, warnings)
    walked = _walk(timeline, branch, [header, *entries], meta)
    parse = timeline.finish()
    policy = get_policy(options.clip or "none")
    apply_policy(parse.steps, policy)

    provider, model = parse.provider, parse.model
    if model is None and walked["last_model_change"]:
        provider, model = walked["last_model_change"]
    if model is None:
        provider, model = header.get("provider"), header.get("modelId")
    meta.update(parse_meta(parse))
    if provider and "provider" not in meta:
        meta["provider"] = provider
    meta.update(
        {
            "session_id": header.get("id"),
            "session_timestamp": header.get("timestamp")
            if isinstance(header.get("timestamp"), str)
            else None,
            "n_entries": len(entries),
            "n_entries_off_path": len(off_branch),
            "n_tool_calls_off_path": _count_tool_calls(off_branch),
        }
    )
    for key in ("parentSession", "branchedFrom"):
        if isinstance(header.get(key), str):
            meta[key] = header[key]
    if warnings:
        meta["warnings"] = warnings

    timestamps = [e.data.get("timestamp") for e in branch if isinstance(e.data.get("timestamp"), str)]
    session_id = header.get("id") if isinstance(header.get("id"), str) else path.stem
    return [
        Trajectory(
            id=f"{NAME}:{session_id}",
            format=NAME,
            source_path=str(path),
            steps=parse.steps,
            events=parse.events,
            deliverable=Deliverable(final_message=parse.final_message, files=written_files(parse.written)),
            instruction=parse.instruction,
            model=model if isinstance(model, str) else None,
            harness=HARNESS,
            cwd=cwd,
            started_at=timestamps[0] if timestamps else meta["session_timestamp"],
            ended_at=timestamps[-1] if timestamps else None,
            usage=parse.usage,
            clip_policy=policy.name,
            meta=meta,
        )
    ]

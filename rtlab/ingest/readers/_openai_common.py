"""What the OpenAI chat and Responses readers share: content-part text, step commands, id linking, sniffing.

Both formats are message logs the model saw itself, so ``Step.shown`` is the logged output under the default
policy ``none``. The command rules here (shell, read, write, generic) are the one definition both readers use.
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest._clipping import ClipPolicy, get_policy
from rtlab.ingest.readers._base import (
    ReadOptions,
    call_command,
    compact_json,
    deliverable_file,
    read_command,
    submission_event,
    tab_action,
    unparsed,
)
from rtlab.ingest.readers._frames import command_parts, listed_commands, output_frames, read_tool_reply
from rtlab.io import head_bytes, parse_json
from rtlab.records import Action, DeliverableFile, Event, EventKind, Step, TokenUsage

# ---------------------------------------------------------------------------------------------------------
# Step commands

SHELL_TOOLS = frozenset({"bash", "shell", "execute_bash", "run", "terminal", "exec_command", "local_shell"})
READ_TOOLS = frozenset({"read", "read_file", "view", "cat"})
WRITE_TOOLS = frozenset({"write", "write_file", "create_file"})
EDITOR_TOOLS = frozenset({"str_replace_editor", "str_replace_based_edit_tool"})
"""Editors whose ``command`` argument is a sub-command (``view``, ``create``, ...), not a shell command."""
PATH_KEYS = ("path", "file_path", "filename", "file")
_PATH_KEY_SET = frozenset(PATH_KEYS)
"""A call whose arguments hold none of :data:`PATH_KEYS` (a shell call's) names no file: told by one C test."""
OFFSET_KEYS = ("offset", "start_line")
LIMIT_KEYS = ("limit",)
CONTENT_KEYS = ("content", "file_text")


def shell_text(value: Any) -> str | None:
    """A shell command from a string or an argv list (joined with ``shlex.join``); ``None`` otherwise."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and value and all(isinstance(v, str) for v in value):
        return shlex.join(value)
    return None


def _first(args: dict[str, Any], keys: tuple[str, ...], kinds: type | tuple[type, ...]) -> Any:
    for key in keys:
        value = args.get(key)
        if isinstance(value, kinds) and not isinstance(value, bool):
            return value
    return None


def _shell_command(tool: str, args: dict[str, Any]) -> str | None:
    """The shell command a call runs: ``command``/``cmd`` (string or argv) or ``commands`` (one per line)."""
    for key in ("command", "cmd"):
        text = shell_text(args.get(key))
        if text is not None:
            return text
    commands = args.get("commands")
    if isinstance(commands, list) and commands and all(isinstance(c, str) for c in commands):
        return "\n".join(commands)
    if tool in SHELL_TOOLS and isinstance(args.get("input"), str):
        return args["input"]  # a custom (free-form) shell tool: its input is the command
    return None


def read_target(tool: str, args: dict[str, Any]) -> tuple[str, Any, Any] | None:
    """``(path, offset, limit)`` when the call reads a file, else ``None``."""
    path = None if _PATH_KEY_SET.isdisjoint(args) else _first(args, PATH_KEYS, str)
    if path is None:
        return None
    if tool in EDITOR_TOOLS:
        if args.get("command") != "view":
            return None
        rng = args.get("view_range")
        if isinstance(rng, list) and len(rng) == 2 and all(isinstance(v, int) for v in rng):
            start, end = rng
            return path, start, (end - start + 1 if end >= start else None)
        return path, None, None
    if tool in READ_TOOLS:
        return path, _first(args, OFFSET_KEYS, (int, str)), _first(args, LIMIT_KEYS, (int, str))
    return None


def write_target(tool: str, args: dict[str, Any]) -> str | None:
    """The path a call writes (write tools, an editor's ``create``, an ``apply_patch`` create/update)."""
    path = None if _PATH_KEY_SET.isdisjoint(args) else _first(args, PATH_KEYS, str)
    if path is None:
        return None
    if tool in WRITE_TOOLS:
        return path
    if tool in EDITOR_TOOLS and args.get("command") == "create":
        return path
    if tool == "apply_patch" and args.get("type") in ("create_file", "update_file"):
        return path
    return None


ANY_SHELL_TOOLS = SHELL_TOOLS | frozenset(
    {"command_execution", "execute_command", "run_command", "run_shell_command", "shell_command", "cmd"}
)
"""Tool names whose command is a shell command line in logs of harnesses rtlab does not know by name."""


def type_step(step: Step) -> None:
    """A call of a generic tool-calling log in harness-neutral terms, from its tool name and arguments: shell
    tools (:data:`ANY_SHELL_TOOLS`) run a command line (several, each in a ``Command:`` frame, when the call
    lists ``commands``); read tools and an editor's ``view`` show a file; write tools, an editor's ``create``
    and ``apply_patch`` write one; ``tab_*`` calls operate the tab. The log's harness is unknown, so every
    harness frame rtlab knows is looked for."""
    tool, args, shown, command = step.tool, step.args, step.shown or "", step.command or ""
    raw = unparsed(args)
    target = None if raw else read_target(tool, args)
    written = None if raw else write_target(tool, args)
    if tool in ANY_SHELL_TOOLS:
        commands = listed_commands(args)
        parts = command_parts(shown, commands, clipped=step.clipped) if commands else None
        if parts is not None:
            step.action, step.frames = Action("shell", command=command, parts=parts[0]), parts[1]
        else:
            step.action = Action.shell(command)
            step.frames = output_frames(shown, command, clipped=step.clipped)
    elif target is not None:
        path, offset, limit = target
        step.action, step.frames = read_tool_reply(shown, path, clipped=step.clipped)
        if step.action.kind == "read":
            step.action = Action.read(path, _line(offset), _line(limit))
    elif written is not None:
        step.action = Action("write", path=written)
    else:
        step.action = tab_action(tool) or Action.other(tool)


def _line(value: Any) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    return int(value) if isinstance(value, str) and value.isdigit() else None


def step_command(tool: str, args: dict[str, Any]) -> str:
    """Step.command: ``read PATH [OFFSET [LIMIT]]``, ``write PATH``, the shell command, or ``tool {json args}``.

    Arguments that were not valid JSON give ``tool RAW`` with the raw text.
    """
    if unparsed(args):
        return call_command(tool, args)
    target = read_target(tool, args)
    if target is not None:
        return read_command(*target)
    written = write_target(tool, args)
    if written is not None:
        return f"write {written}"
    if tool not in EDITOR_TOOLS:
        shell = _shell_command(tool, args)
        if shell is not None:
            return shell
    return call_command(tool, args)


# ---------------------------------------------------------------------------------------------------------
# Content parts

_TEXT_KEY = {
    "text": "text",
    "input_text": "text",
    "output_text": "text",
    "summary_text": "text",
    "reasoning_text": "text",
    "refusal": "refusal",
    "logs": "logs",
}


def _part_detail(part: dict[str, Any]) -> str | None:
    """A short name for a non-text part: its file name, id or (non-``data:``) URL."""
    nested = part.get(part.get("type", ""))
    for obj in (part, nested if isinstance(nested, dict) else {}):
        for key in ("filename", "file_id", "url", "image_url", "file_url"):
            value = obj.get(key)
            if isinstance(value, str) and value and not value.startswith("data:"):
                return value
    return None


def part_text(part: Any) -> str:
    """The text of one content part; a non-text part (image, audio, file) becomes ``[type: name]``."""
    if isinstance(part, str):
        return part
    if not isinstance(part, dict):
        return compact_json(part)
    kind = part.get("type")
    key = _TEXT_KEY.get(kind) if isinstance(kind, str) else None
    if key is None and isinstance(part.get("text"), str):
        key = "text"
    if key is not None and isinstance(part.get(key), str):
        return part[key]
    detail = _part_detail(part)
    label = kind if isinstance(kind, str) else "part"
    return f"[{label}: {detail}]" if detail else f"[{label}]"


def content_text(content: Any, path: Path, line: int | None, name: str) -> str:
    """Text of a message's or output's content: a string as is, a list of parts joined with newlines."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part_text(p) for p in content)
    if isinstance(content, dict):
        return part_text(content)
    raise ReaderError(
        path, f"expected text or a list of content parts, got {type(content).__name__}", line=line, field=name
    )


# ---------------------------------------------------------------------------------------------------------
# Building a trajectory: events and steps in order, results linked to calls by id


def join_field(where: str, key: str) -> str:
    """A field path: ``messages[3]`` + ``role`` -> ``messages[3].role``; ``""`` + ``role`` -> ``role``."""
    return f"{where}.{key}" if where else key


@dataclass
class Timeline:
    """Steps and events of one conversation in log order, with calls awaiting their results by id."""

    path: Path
    policy: ClipPolicy
    steps: list[Step] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    now: str | None = None
    """The timestamp of the record being read, for logs whose records carry one (``None`` otherwise): a call
    appended now starts then (``Step.started_at``), a result recorded now ends then (``Step.ended_at``), and
    an event appended now is stamped with it."""
    _pending: dict[str, list[Step]] = field(default_factory=dict)
    _seen: set[str] = field(default_factory=set)
    _early: dict[str, tuple[int | None, Callable[[], None], Event, str | None]] = field(default_factory=dict)
    """Results that came before any call with their id: ``(line, handle it again, the event standing for it, the
    field holding the id)``."""
    _seq: int = 0

    def _next_seq(self) -> int:
        self._seq += 1
        return self._seq - 1

    def event(
        self, kind: EventKind, text: str, line: int | None, role: str | None = None, **data: Any
    ) -> Event:
        """Append an event at the next position of the timeline."""
        # positional: the dataclass's __init__ called with keywords costs about twice as much
        ev = Event(kind, text, role, self._next_seq(), self.now, line, data)
        self.events.append(ev)
        return ev

    def call(
        self, tool: str, args: dict[str, Any], line: int | None, *, call_id: str | None = None, **extra: Any
    ) -> Step:
        """Append a tool call (unanswered until :meth:`answer` or :meth:`finish` gives it a result)."""
        command = extra.pop("command", None) or step_command(tool, args)
        extra.setdefault("started_at", self.now)  # a reader's own time for the call wins
        step = Step(
            index=len(self.steps), tool=tool, command=command, args=args, call_id=call_id, seq=self._next_seq(),
            line=line, **extra,
        )  # fmt: skip
        self.steps.append(step)
        if call_id is not None:
            if call_id in self._pending:
                self.warnings.append(
                    f"{self.path}:{line}: call id {call_id!r} is used by more than one open call"
                )
            self._pending.setdefault(call_id, []).append(step)
            self._seen.add(call_id)
            early = self._early.pop(call_id, None)
            if early is not None:  # its result came first (a log written out of order): paired by id
                at, again, stand_in, name = early
                self.events.remove(stand_in)
                where = f"{self.path}:{at}" + (f" [{name}]" if name else "")
                self.warnings.append(
                    f"{where}: result for call id {call_id!r} came before its call (line {line}); paired by id"
                )
                again()
        return step

    def _settled(self, step: Step) -> None:
        """``step`` no longer awaits a result by its id."""
        if step.call_id is not None and step in self._pending.get(step.call_id, []):
            self._pending[step.call_id].remove(step)
            if not self._pending[step.call_id]:
                del self._pending[step.call_id]

    def submission(self, step: Step, output: str, **data: Any) -> Event:
        """A call whose result the model never received (a final submission) as the event it is
        (:func:`~rtlab.ingest.readers._base.submission_event`), no longer awaiting a result."""
        self._settled(step)
        return submission_event(self.steps, self.events, step, output, **data)

    def give(self, step: Step, output: str | None, **extra: Any) -> None:
        """Give ``step`` a result that names its call otherwise than by id (by tool name or position, as Cline's
        text results do): recorded as :meth:`finish` records it, and the call no longer awaits one by id (a
        later result with its id is a second one)."""
        self._settled(step)
        self.finish(step, output, **extra)

    def unknown(self, call_id: str) -> bool:
        """No call with ``call_id`` has come yet (its result, if this is one, came first)."""
        return call_id not in self._seen

    def hold(
        self, call_id: str, text: str, line: int | None, again: Callable[[], None], name: str | None = None
    ) -> None:
        """A result whose call has not come: kept as an ``other`` event until a call with ``call_id`` comes,
        then handled ``again`` (it pairs then); still waiting when the log ends, it is said by :meth:`close`
        (``name``: the field holding the id)."""
        stand_in = self.event("other", text, line, role="tool", call_id=call_id, orphan_result=True)
        if call_id in self._early:  # a second result for the same unseen id: the first stays an event
            self._early[call_id][2].data["duplicate_result"] = True
        self._early[call_id] = (line, again, stand_in, name)

    def close(self) -> None:
        """The log has ended: results whose call never came are said (they stay ``other`` events)."""
        for call_id, (line, _, _, name) in self._early.items():
            where = f"{self.path}:{line}" if line is not None else str(self.path)
            if name:
                where += f" [{name}]"
            self.warnings.append(
                f"{where}: result for call id {call_id!r} matches no tool call in the file; kept as an 'other' event"
            )
        self._early.clear()

    def open_call(self, call_id: str) -> Step | None:
        """The earliest call with ``call_id`` still awaiting its result (the one :meth:`answer` would give it
        to), or ``None``."""
        open_calls = self._pending.get(call_id)
        return open_calls[0] if open_calls else None

    def answer(self, call_id: str, output: str, line: int | None, name: str, **extra: Any) -> Step | None:
        """Give the earliest open call with ``call_id`` its result. A result for a call that already has one is
        kept as an ``other`` event (``None`` returned), said in the warnings; an id no call had raises (a
        reader holds such a result first: :meth:`unknown`, :meth:`hold`)."""
        open_calls = self._pending.get(call_id)
        if not open_calls and call_id in self._seen:
            where = (f"{self.path}:{line}" if line is not None else str(self.path)) + (
                f" [{name}]" if name else ""
            )
            self.warnings.append(
                f"{where}: result for call id {call_id!r}: the id already has a result (a call id seen twice); "
                "kept as an 'other' event"
            )
            self.event("other", output, line, role="tool", call_id=call_id, duplicate_result=True)
            return None
        if not open_calls:
            raise ReaderError(
                self.path, f"result for call id {call_id!r}: the id matches no earlier tool call", line=line,
                field=name,
            )  # fmt: skip
        step = open_calls.pop(0)
        if not open_calls:
            del self._pending[call_id]
        self.finish(step, output, **extra)
        return step

    def finish(self, step: Step, output: str | None, **extra: Any) -> None:
        """Record a call's result; ``shown`` is the output under the clip policy."""
        step.output = output
        step.shown = None if output is None else self.policy.apply(output)
        step.clipped = output is not None and step.shown != output
        if self.now is not None:
            step.ended_at = self.now
        for key, value in extra.items():
            setattr(step, key, value)


def clip_policy(options: ReadOptions) -> ClipPolicy:
    """The policy ``options.clip`` names, or ``none``: the log holds what the model saw."""
    return get_policy(options.clip or "none")


def written_files(steps: list[Step]) -> list[DeliverableFile]:
    """Files written by answered, successful write calls; the last write of a path wins."""
    files: dict[str, DeliverableFile] = {}
    for step in steps:
        target = write_target(step.tool, step.args)
        if target is None or not step.answered or step.is_error:
            continue
        content = _first(step.args, CONTENT_KEYS, str)
        if content is None:
            files[target] = DeliverableFile(path=target, origin="write_tool")
        else:
            files[target] = deliverable_file(target, content.encode("utf-8"), origin="write_tool")
    return list(files.values())


def tool_names(tools: Any) -> list[str]:
    """Names of the tools a request declared (``function.name``, ``name`` or the built-in ``type``)."""
    names: list[str] = []
    if not isinstance(tools, list):
        return names
    for tool in tools:
        if not isinstance(tool, dict):
            continue
        fn = tool.get("function")
        name = fn.get("name") if isinstance(fn, dict) else tool.get("name", tool.get("type"))
        if isinstance(name, str):
            names.append(name)
    return names


def _int(obj: Any, *keys: str) -> int | None:
    for key in keys[:-1]:
        obj = obj.get(key) if isinstance(obj, dict) else None
    value = obj.get(keys[-1]) if isinstance(obj, dict) else None
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def usage_from(usage: Any) -> TokenUsage | None:
    """Token usage from a Chat Completions (``prompt_tokens``...) or Responses (``input_tokens``...) object."""
    if not isinstance(usage, dict):
        return None

    def either(responses: tuple[str, ...], chat: tuple[str, ...]) -> int | None:
        value = _int(usage, *responses)
        return value if value is not None else _int(usage, *chat)

    result = TokenUsage(
        input_tokens=either(("input_tokens",), ("prompt_tokens",)),
        output_tokens=either(("output_tokens",), ("completion_tokens",)),
        cached_input_tokens=either(
            ("input_tokens_details", "cached_tokens"), ("prompt_tokens_details", "cached_tokens")
        ),
        reasoning_tokens=either(
            ("output_tokens_details", "reasoning_tokens"), ("completion_tokens_details", "reasoning_tokens")
        ),
        total_tokens=_int(usage, "total_tokens"),
    )
    return None if result == TokenUsage() else result


def iso_time(value: Any, warnings: list[str] | None = None, where: str = "") -> str | None:
    """A Unix time in seconds (``created_at``) as an ISO-8601 UTC string; ISO strings pass through. A number
    no date has (``1e300``, NaN) gives ``None``, said in ``warnings`` (``where``: the file, line and field)."""
    if isinstance(value, str):
        return value
    if isinstance(value, int | float) and not isinstance(value, bool):
        try:
            return datetime.fromtimestamp(value, tz=UTC).isoformat()
        except (OverflowError, OSError, ValueError):
            if warnings is not None:
                warnings.append(f"{where}: {value!r} is not a Unix time rtlab can represent; left out")
    return None


def trajectory_id(name: str, path: Path, suffix: int | None = None) -> str:
    """``<format>:<folder>/<file stem>``, plus ``:<line>`` when a file holds one conversation per line."""
    base = f"{name}:{path.resolve().parent.name}/{path.stem}"
    return base if suffix is None else f"{base}:{suffix}"


# ---------------------------------------------------------------------------------------------------------
# Sniffing

SNIFF_FULL_PARSE = 8 * 1024 * 1024
"""JSON files up to this size are parsed whole when sniffing; larger ones are judged by their first element."""
SNIFF_LINES = 20
SNIFF_HEAD = 1024 * 1024
SNIFF_LINE_MAX = 16 * 1024 * 1024

_LIST_KEY = re.compile(r'"(messages|input|output)"\s*:\s*\[')


def _head_document(text: str) -> Any:
    """A big JSON file's opening as a stand-in document: its first list element, under its key if any."""
    decoder = json.JSONDecoder()
    stripped = text.lstrip()
    try:
        if stripped.startswith("["):
            rest = stripped[1:].lstrip()
            return [decoder.raw_decode(rest)[0]]
        if stripped.startswith("{"):
            match = _LIST_KEY.search(stripped)
            if match is None:
                return None
            rest = stripped[match.end() :].lstrip()
            return {match.group(1): [decoder.raw_decode(rest)[0]]}
    except json.JSONDecodeError:
        return None
    return None


def _sniff_json(path: Path) -> Any:
    if path.stat().st_size <= SNIFF_FULL_PARSE:
        return parse_json(path.read_bytes())
    return _head_document(head_bytes(path, SNIFF_HEAD).decode("utf-8", errors="ignore"))


def _sniff_jsonl(path: Path) -> list[Any]:
    values: list[Any] = []
    budget = SNIFF_HEAD
    with open(path, "rb") as fh:
        while len(values) < SNIFF_LINES and budget > 0:
            raw = fh.readline(SNIFF_LINE_MAX if not values else budget)
            if not raw:
                break
            budget -= len(raw)
            if not raw.strip():
                continue
            try:
                values.append(parse_json(raw))
            except (json.JSONDecodeError, UnicodeDecodeError):
                if not values:
                    raise
                break  # a line cut by the budget or a truncated last line: judge what came before
    return values


def is_document(path: Path) -> bool:
    """Whether ``path`` holds one JSON document (a ``.json`` file, or a ``.jsonl`` file that is one object
    pretty-printed over several lines, as a converter that picked the wrong extension writes it) rather than
    JSON lines."""
    if path.suffix == ".json":
        return True
    head = head_bytes(path, 4096).removeprefix(b"\xef\xbb\xbf").lstrip()
    first = head.split(b"\n", 1)[0].strip()
    return first in (b"{", b"[") or (first.startswith((b"{", b"[")) and first.endswith((b",", b"{", b"[")))


def sniff_sample(path: Path) -> tuple[str, Any] | None:
    """For sniffing: ``("json", document)`` or ``("jsonl", first values)``; ``None`` if not readable JSON."""
    try:
        if not path.is_file() or path.suffix not in (".json", ".jsonl"):
            return None
        if is_document(path):
            doc = _sniff_json(path)
            return None if doc is None else ("json", doc)
        values = _sniff_jsonl(path)
        return ("jsonl", values) if values else None
    except (OSError, ValueError, RecursionError):
        return None


def all_match(values: list[Any], test: Callable[[Any], bool]) -> bool:
    """Non-empty and every value passes ``test``."""
    return bool(values) and all(test(v) for v in values)


def sniff_log(
    path: Path, *, is_conversation: Callable[[Any], bool], is_items: Callable[[list[Any]], bool]
) -> bool:
    """Whether ``path`` holds one conversation object, a list (or JSON lines) of entries ``is_items`` accepts,
    or a list of conversation objects: the layouts both OpenAI formats are stored in."""
    sample = sniff_sample(path)
    if sample is None:
        return False
    kind, doc = sample
    if kind == "json" and isinstance(doc, dict):
        return is_conversation(doc)
    if not isinstance(doc, list):
        return False
    return is_items(doc) or all_match(doc, is_conversation)

"""OpenHands V1 (software-agent-sdk) logs: persisted conversation folders and evaluation ``output.jsonl`` files.

Events (OpenHands/software-agent-sdk, ``openhands-sdk/openhands/sdk/event/``) are JSON objects named by ``kind``:
``ActionEvent`` (llm_convertible/action.py: ``tool_name``, ``tool_call_id``, ``tool_call``, ``action`` (the typed
call, with its own ``kind``; ``null`` when the call could not be executed), ``thought``, ``reasoning_content``,
``thinking_blocks``, ``responses_reasoning_item``, ``llm_response_id``), ``ObservationEvent``
(llm_convertible/observation.py: ``observation`` (with its ``kind``), ``action_id``, ``tool_call_id``,
``extended_content``), ``UserRejectObservation`` (``rejection_reason``), ``AgentErrorEvent`` (``error``, answering a
``tool_call_id``), ``MessageEvent`` (llm_convertible/message.py: ``source``, ``llm_message``),
``SystemPromptEvent``, ``Condensation`` / ``CondensationSummaryEvent`` / ``CondensationRequest``,
``ConversationStateUpdateEvent``, ``ConversationErrorEvent``, ``PauseEvent`` / ``InterruptEvent`` and events that
carry nothing for rtlab (``TokenEvent``, ``LLMCompletionLogEvent``, ``StreamingDeltaEvent``, ...).

Units, each one trajectory:

- A **conversation folder** (``ConversationState`` persistence, conversation/state.py, event_store.py,
  persistence_const.py): ``base_state.json`` (``id``, ``agent.llm.model``, ``workspace.working_dir``,
  ``execution_status``, ``stats.usage_to_metrics``) beside ``events/event-NNNNN-<event id>.json``, one event a
  file (``model_dump_json(exclude_none=True)``, so absent fields are defaults), read in index order; the empty
  ``events/.eventlog.lock`` is the SDK's lock. The folder is the unit: naming its ``events`` folder reads the
  conversation (an ``events`` folder with no ``base_state.json`` beside it is read alone, without model or
  usage), and naming a folder of conversations (the SDK's ``conversations/``) reads each, as any folder walk
  does.
- A line of an **evaluation output** (OpenHands/benchmarks ``benchmarks/utils/models.py`` ``EvalOutput``, one
  ``model_dump_json()`` a line, detected by content whatever the file's name): ``instance_id`` (the task),
  ``instruction``, ``metadata`` (``llm.model``, ``openhands_sdk_version``), ``history`` (the events), ``metrics``
  (usage), ``test_result``, ``error``. Provenance: every step and event carries the file's line; errors name
  ``history[i]``. In a folder, ``line`` is the event's index plus one and errors name the event's file.

Steps: an ``ActionEvent`` paired with the ``ObservationEvent`` whose ``action_id`` is its ``id`` (else the first
unanswered call with the same ``tool_call_id``), a ``UserRejectObservation``, or an ``AgentErrorEvent`` with its
``tool_call_id`` (an error result). A call with none of these stays unanswered. ``Step.args`` is the typed action
(its fields and ``kind``), or the call's parsed arguments when the SDK could not build one. The builtin
``think`` and ``task_tracker`` calls are steps too (they get an observation); a ``finish`` that ended the
conversation is an event (``data["submission"]``): its observation was never sent to the model (docs/ARCHITECTURE.md,
"What a step is"), unlike one the user went on after. The deliverable's final
message is the agent's last word: ``finish``'s message, or an agent ``MessageEvent`` after it (a conversation the
user went on with).

What the model was shown is an observation's ``to_llm_content`` (plus the event's ``extended_content``), which
the log does not hold: :func:`render` rebuilds it from the logged fields as the SDK does. A terminal observation
(``ExecuteBashObservation`` with an ``output`` field before SDK 1.0, ``content`` from 1.0, ``TerminalObservation``
from 1.3: openhands-tools/openhands/tools/execute_bash/definition.py @ ef5cb95b, terminal/definition.py @
4f4c68c1) renders as ``metadata.prefix`` + output + ``metadata.suffix`` + ``\\n[Current working directory: D]``
+ ``\\n[Python interpreter: P]`` + ``\\n[Command finished with exit code N]`` (when the exit code is not -1),
the error header in front, and that text is cut to 30,000 characters by ``maybe_truncate`` (clip policy
``openhands-sdk``, :class:`rtlab.ingest._clipping.OpenHandsSdkClip`). Other observations render their text parts
after ``Observation.ERROR_MESSAGE_HEADER`` when ``is_error`` (tool/schema.py), or before SDK 1.0 each class's own
field (``output``, ``error``, ``message``, ``content``), and every text part is capped at 50,000 characters
(``Message._maybe_truncate_tool_text``, llm/message.py). ``Step.output`` is the logged result text itself (the
terminal's output, the text of ``content``). The SDK's own words in ``shown`` (error header, prefix, suffix,
working-directory, interpreter and exit-code lines, ``<response clipped>`` notices, the editor's header and
notes) are frames (``_frames`` rules for ``openhands-v1``). Image parts are not text and are left out of
``shown`` (counted in ``meta["image_parts"]``).
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest._clipping import ClipPolicy, OpenHandsSdkClip, get_policy
from rtlab.ingest.readers._base import (
    ReadOptions,
    call_command,
    compact_json,
    deliverable_file,
    parse_arguments,
    read_command,
    submission_event,
    typed,
)
from rtlab.ingest.readers._frames import SDK_CLIP_MARKER, SDK_ERROR_HEADERS, output_frames, read_tool_reply
from rtlab.ingest.readers._openhands_eval import (
    eval_generation,
    iter_eval_lines,
    may_hold_histories,
    metrics_usage,
)
from rtlab.ingest.readers._registry import FileFacts, FileShape
from rtlab.ingest.readers._tolerant import record
from rtlab.ingest.readers.openhands import _read_range
from rtlab.io import field as get_field
from rtlab.io import load_json
from rtlab.records import Action, Deliverable, DeliverableFile, Event, EventKind, Step, Trajectory

NAME = "openhands-v1"
FILE_SHAPE: FileShape = "json-lines"
"""A file this reader is given (not a folder) is read by ``rtlab.io.iter_json_lines`` alone, its refusal let
out: a file that iterator refuses holds no step for it (``_registry.FileShape``)."""

LOOKS_FOR = (
    "an OpenHands V1 (software-agent-sdk) conversation folder (base_state.json and events/event-NNNNN-<id>.json, "
    "or its events folder), or an evaluation output.jsonl whose history holds V1 events ({'kind': 'ActionEvent', "
    "...})"
)
DEFAULT_CLIP = "openhands-sdk"

BASE_STATE = "base_state.json"
EVENTS_DIR = "events"
LOCK_FILE = ".eventlog.lock"
EVENT_FILE = re.compile(r"^event-(?P<idx>\d{5,})-(?P<event_id>[0-9a-fA-F\-]{8,})\.json$")
"""``EVENT_NAME_RE`` of conversation/persistence_const.py (``{idx:05d}`` grows past five digits after 99,999)."""

SHELL_ACTIONS = frozenset({"ExecuteBashAction", "TerminalAction"})
"""The terminal tool's action: ``ExecuteBashAction`` before SDK 1.3 (tool ``execute_bash``, ``terminal`` from 1.0),
``TerminalAction`` after."""
SHELL_OBSERVATIONS = frozenset({"ExecuteBashObservation", "TerminalObservation"})
EDITOR_ACTIONS = frozenset({"FileEditorAction", "StrReplaceEditorAction", "PlanningFileEditorAction"})
"""The file editor (``file_editor``; ``str_replace_editor`` in the first SDK releases; the planning agent's)."""
EDITOR_CHANGES = {"create": "write", "str_replace": "edit", "insert": "edit", "undo_edit": "edit"}
FILE_WRITERS = {"WriteFileAction": "write", "EditAction": "edit"}
"""The gemini-style tools (tools/gemini/): ``write_file`` and ``edit`` change ``file_path``. Their ``read_file``
and ``list_directory`` replies have a format of their own that capture does not read yet: they stay ``other``."""
LEGACY_ERROR_AS_IS = frozenset(
    {"FileEditorObservation", "StrReplaceEditorObservation", "PlanningFileEditorObservation"}
)
"""Before SDK 1.0 the editor showed a failed call's ``error`` bare; browser, glob and grep wrote ``Error: ...``."""

EVENT_KINDS: dict[str, EventKind] = {
    "SystemPromptEvent": "system",
    "MessageEvent": "message",
    "Condensation": "compaction",
    "CondensationRequest": "compaction",
    "CondensationSummaryEvent": "compaction",
    "ConversationStateUpdateEvent": "system",
    "ConversationErrorEvent": "error",
    "AgentErrorEvent": "error",
    "PauseEvent": "system",
    "InterruptEvent": "system",
    "TokenEvent": "other",
    "LLMCompletionLogEvent": "other",
    "StreamingDeltaEvent": "other",
    "HookExecutionEvent": "other",
    "ACPToolCallEvent": "other",
    "ObservationEvent": "other",
    "UserRejectObservation": "other",
}
"""Event kinds that are not tool calls, and what they become (observations here are those answering no call)."""

TERMINAL_SAVE_PREFIX_SINCE = (1, 19, 1)
"""From SDK 1.19.1 a saved terminal output is ``terminal_output_<hash>.txt`` (``bash_output_`` before)."""


# ---------------------------------------------------------------------------------------------------------
# Detection and layout


@dataclass(frozen=True)
class _Folder:
    """Where a conversation's files are: ``base_state.json`` (if any) and the events folder."""

    root: Path
    base_state: Path | None
    events: Path


def _is_event_folder(folder: Path) -> bool:
    try:
        return any(EVENT_FILE.match(e.name) for e in os.scandir(folder) if e.is_file())
    except OSError:
        return False


def _folder(path: Path) -> _Folder | None:
    """The conversation at ``path``: a folder with ``base_state.json`` and ``events/``, or its ``events``
    folder (with or without ``base_state.json`` beside it)."""
    try:
        if not path.is_dir():
            return None
        if (path / BASE_STATE).is_file() and (path / EVENTS_DIR).is_dir():
            return _Folder(path, path / BASE_STATE, path / EVENTS_DIR)
        if path.name == EVENTS_DIR and ((path.parent / BASE_STATE).is_file() or _is_event_folder(path)):
            state = path.parent / BASE_STATE
            return _Folder(path.parent, state if state.is_file() else None, path)
    except OSError:
        return None
    return None


def sniff(path: Path) -> bool:
    """A conversation folder (or its ``events`` folder), or an eval output whose first history holds V1 events."""
    return _folder(path) is not None or eval_generation(path) == "v1"


# ---------------------------------------------------------------------------------------------------------
# What the model was shown


def _text_parts(content: Any) -> tuple[list[str], int]:
    """The text parts of a content list (``TextContent``) and how many image parts it had."""
    texts: list[str] = []
    images = 0
    for part in content if isinstance(content, list) else []:
        if isinstance(part, dict) and isinstance(part.get("text"), str):
            texts.append(part["text"])
        elif isinstance(part, dict) and (part.get("type") == "image" or "image_urls" in part):
            images += 1
    return texts, images


def _text(value: Any) -> str:
    return value if isinstance(value, str) else ""


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else []


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


@dataclass
class Rendered:
    """An observation as the log holds it and as the model got it."""

    output: str
    """The logged result text (the terminal's output, the text of ``content``, a legacy field)."""
    parts: list[str]
    """The text parts ``to_llm_content`` gives, before the SDK's clipping."""
    terminal: bool = False
    """The last part is a terminal's rendered text (``maybe_truncate`` to 30,000 applies to it)."""
    images: int = 0
    """Image parts left out."""
    approximate: bool = False
    """The observation's kind is unknown and its fields were shown as JSON."""


def render(obs: dict[str, Any], tool_name: str) -> Rendered:
    """``to_llm_content`` of a logged observation (see the module docstring for the sources), unclipped."""
    kind = obs.get("kind") if isinstance(obs.get("kind"), str) else ""
    content = obs.get("content")
    modern = isinstance(content, list)
    texts, images = _text_parts(content) if modern else ([], 0)
    header = [SDK_ERROR_HEADERS[0]] if modern and obs.get("is_error") is True else []
    if kind in SHELL_OBSERVATIONS:
        meta = _obj(obs.get("metadata"))
        output = "".join(texts) if modern else _text(obs.get("output"))
        prefix = meta.get("prefix") if isinstance(meta.get("prefix"), str) else ""
        suffix = meta.get("suffix") if isinstance(meta.get("suffix"), str) else ""
        ret = f"{prefix}{output}{suffix}"
        if isinstance(meta.get("working_dir"), str) and meta["working_dir"]:
            ret += f"\n[Current working directory: {meta['working_dir']}]"
        if isinstance(meta.get("py_interpreter_path"), str) and meta["py_interpreter_path"]:
            ret += f"\n[Python interpreter: {meta['py_interpreter_path']}]"
        code = _int(meta.get("exit_code"))
        code = -1 if code is None else code  # CmdOutputMetadata.exit_code defaults to -1
        if code != -1:
            ret += f"\n[Command finished with exit code {code}]"
        if not modern and obs.get("error") is True:
            ret = SDK_ERROR_HEADERS[1] + ret
        return Rendered(output, [*header, ret], terminal=True, images=images)
    if modern:
        if kind == "MCPToolObservation" and not (texts and texts[0].startswith("[Tool '")):
            # before SDK 1.0 the executed line was added when rendering, not stored in content
            name = obs.get("tool_name") if isinstance(obs.get("tool_name"), str) else tool_name
            first = f"[Tool '{name}' executed.]\n" + (
                SDK_ERROR_HEADERS[0] if obs.get("is_error") is True else ""
            )
            return Rendered("".join(texts), [first, *texts], images=images)
        return Rendered("".join(texts), [*header, *texts], images=images)
    error = obs.get("error")
    if isinstance(error, str) and error:
        text = error if kind in LEGACY_ERROR_AS_IS else f"Error: {error}"
        return Rendered(text, [text])
    for key in ("output", "message", "content"):
        if isinstance(obs.get(key), str):
            return Rendered(obs[key], [obs[key]])
    text = compact_json({k: v for k, v in obs.items() if k != "kind"})
    return Rendered(text, [text], approximate=True)


def _version(text: str | None) -> tuple[int, ...] | None:
    m = re.match(r"v?(\d+)\.(\d+)(?:\.(\d+))?", text or "")
    return tuple(int(g) for g in m.groups() if g is not None) if m else None


def type_step(step: Step) -> None:
    """The SDK's typed actions in harness-neutral terms (from ``args["kind"]``): the terminal runs a shell
    command line (keystrokes to a running command, ``is_input``, and the empty command that fetches more of its
    output are ``other``: they run no new command); the file editor's ``view`` shows a file (``view_range`` ->
    offset and limit, ``cat -n`` numbering) or lists a folder, ``create`` writes and ``str_replace`` /
    ``insert`` / ``undo_edit`` edit ``path``; ``write_file`` / ``edit`` change ``file_path``; everything else
    (finish, think, task_tracker, browser, MCP, delegation, calls the SDK could not execute) is ``other``. Frames:
    the SDK's words (``openhands-v1`` rules)."""
    args, shown = step.args, step.shown or ""
    kind = args.get("kind") if isinstance(args.get("kind"), str) else None
    step.frames = output_frames(shown, "", clipped=step.clipped, harness="openhands-v1")
    path = args.get("path")
    if kind in SHELL_ACTIONS:
        command = args.get("command")
        if args.get("is_input") is True or not isinstance(command, str) or not command.strip():
            step.action = Action.other(step.tool)
        else:
            step.action = Action.shell(command)
    elif kind in EDITOR_ACTIONS and isinstance(path, str) and args.get("command") == "view":
        step.action, step.frames = read_tool_reply(shown, path, clipped=step.clipped, harness="openhands-v1")
        if step.action.kind == "read":
            step.action = Action.read(path, *_read_range(args))
    elif kind in EDITOR_ACTIONS and isinstance(path, str) and args.get("command") in EDITOR_CHANGES:
        step.action = Action(EDITOR_CHANGES[args["command"]], path=path)  # type: ignore[arg-type]
    elif kind in FILE_WRITERS and isinstance(args.get("file_path"), str):
        step.action = Action(FILE_WRITERS[kind], path=args["file_path"])  # type: ignore[arg-type]
    else:
        step.action = Action.other(step.tool)


def _command(tool: str, args: dict[str, Any]) -> str:
    """``Step.command``: the shell command, ``read PATH [OFFSET [LIMIT]]``, ``write PATH``, ``edit PATH``, or
    ``tool {json}`` (keystrokes to a running command included)."""
    kind = args.get("kind")
    fields = {k: v for k, v in args.items() if k != "kind"}
    if kind in SHELL_ACTIONS and isinstance(args.get("command"), str):
        if args.get("is_input") is not True and args["command"].strip():
            return args["command"]
        return call_command(tool, {"command": args["command"], "is_input": args.get("is_input") is True})
    path = args.get("path")
    if kind in EDITOR_ACTIONS and isinstance(path, str):
        if args.get("command") == "view":
            return read_command(path, *_read_range(args))
        if args.get("command") in EDITOR_CHANGES:
            return f"{EDITOR_CHANGES[args['command']]} {path}"
    if kind in FILE_WRITERS and isinstance(args.get("file_path"), str):
        return f"{FILE_WRITERS[kind]} {args['file_path']}"
    return call_command(tool, fields)


# ---------------------------------------------------------------------------------------------------------
# Reading


@dataclass
class _Raw:
    """One event with where it came from: its file (a folder's event file, or the eval output), the line for
    provenance, and the field prefix errors name."""

    ev: dict[str, Any]
    file: Path
    line: int | None
    where: str

    @property
    def at(self) -> int | None:
        """The line errors name: the eval output's; none for an event file (the file is named)."""
        return self.line if self.where else None


@dataclass
class _Builder:
    """Walks one conversation's events in order, pairing calls with the results that name them."""

    source: Path
    policy: ClipPolicy
    harness_version: str | None = None
    cwd: str | None = None
    steps: list[Step] = field(default_factory=list)
    events: list[Event] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)
    final_message: str | None = None
    instruction: str | None = None
    images: int = 0
    approximate: int = 0
    stamps: list[str] = field(default_factory=list)
    _by_action: dict[str, Step] = field(default_factory=dict)
    _by_call: dict[str, list[Step]] = field(default_factory=dict)
    _writes: dict[str, DeliverableFile] = field(default_factory=dict)
    _early: dict[str, tuple[_Raw, str, Event]] = field(default_factory=dict)
    """Results that came before any call with their ``tool_call_id`` (a log out of order): ``(raw, kind, the
    event standing for it)``, given to the call when it comes."""
    _seq: int = 0

    def next_seq(self) -> int:
        self._seq += 1
        return self._seq - 1

    def event(self, raw: _Raw, kind: EventKind, text: str, role: str | None = None, **data: Any) -> None:
        ev = raw.ev
        data = {"kind": ev.get("kind"), **({"id": ev["id"]} if isinstance(ev.get("id"), str) else {}), **data}
        self.events.append(
            Event(
                kind=kind,
                text=text,
                role=role,
                seq=self.next_seq(),
                timestamp=ev.get("timestamp") if isinstance(ev.get("timestamp"), str) else None,
                line=raw.line,
                data=data,
            )
        )

    def feed(self, raw: _Raw) -> None:
        ev, path, line, where = raw.ev, raw.file, raw.at, raw.where
        if not isinstance(ev, dict):
            raise ReaderError(
                path, f"expected an event object, got {type(ev).__name__}", line=line, field=where or None
            )
        kind = get_field(ev, "kind", str, path, line, where)
        if isinstance(ev.get("timestamp"), str):
            self.stamps.append(ev["timestamp"])
        if kind == "ActionEvent":
            self._action(raw)
        elif kind in ("ObservationEvent", "UserRejectObservation", "AgentErrorEvent"):
            self._result(raw, kind)
        elif kind == "MessageEvent":
            self._message(raw)
        elif kind == "SystemPromptEvent":
            prompt = ev.get("system_prompt")
            text = _text(prompt.get("text")) if isinstance(prompt, dict) else _text(prompt)
            tools = _list(ev.get("tools"))
            names = [t.get("name") or t.get("title") for t in tools if isinstance(t, dict)]
            self.event(raw, "system", text, "system", tools=[n for n in names if isinstance(n, str)])
        elif kind in ("Condensation", "CondensationSummaryEvent"):
            forgotten = ev.get("forgotten_event_ids")
            extra: dict[str, Any] = {"forgotten": len(forgotten)} if isinstance(forgotten, list) else {}
            self.event(raw, "compaction", _text(ev.get("summary")), **extra)
        elif kind == "ConversationStateUpdateEvent":
            value = ev.get("value")
            state: dict[str, Any] = {"value": value} if isinstance(value, str | int | float | bool) else {}
            self.event(raw, "system", _text(ev.get("key")), key=ev.get("key"), **state)
        elif kind == "ConversationErrorEvent":
            self.event(raw, "error", f"{_text(ev.get('code'))}: {_text(ev.get('detail'))}".strip(": "))
        elif kind in EVENT_KINDS:
            self.event(raw, EVENT_KINDS[kind], "")
        else:
            self.warnings.append(f"{self._where(raw)}: unknown event kind {kind!r} kept as an 'other' event")
            self.event(raw, "other", "")

    def _where(self, raw: _Raw) -> str:
        return f"{raw.file}:{raw.line}" if raw.where else str(raw.file)

    def _reasoning(self, raw: _Raw, holder: dict[str, Any]) -> None:
        """Reasoning the model sent with a call or message: ``reasoning_content``, thinking blocks, a Responses
        reasoning item's summary and content."""
        texts: list[tuple[str, str]] = []
        if isinstance(holder.get("reasoning_content"), str) and holder["reasoning_content"].strip():
            texts.append(("reasoning_content", holder["reasoning_content"]))
        for block in holder.get("thinking_blocks") or []:
            if (
                isinstance(block, dict)
                and isinstance(block.get("thinking"), str)
                and block["thinking"].strip()
            ):
                texts.append(("thinking", block["thinking"]))
        item = holder.get("responses_reasoning_item")
        if isinstance(item, dict):
            lines = [
                s for s in (item.get("summary") or []) + (item.get("content") or []) if isinstance(s, str)
            ]
            if any(s.strip() for s in lines):
                texts.append(("responses_reasoning_item", "\n".join(lines)))
        for source, text in texts:
            self.event(raw, "reasoning", text, "assistant", source=source)

    def _action(self, raw: _Raw) -> None:
        ev, path, line, where = raw.ev, raw.file, raw.at, raw.where
        tool = get_field(ev, "tool_name", str, path, line, where)
        call_id = get_field(ev, "tool_call_id", str, path, line, where)
        event_id = get_field(ev, "id", str, path, line, where)
        thought, _ = _text_parts(ev.get("thought"))
        if "".join(thought).strip():
            self.event(raw, "reasoning", "".join(thought), "assistant", source="thought")
        self._reasoning(raw, ev)
        action = ev.get("action")
        args_error = None
        if action is not None:
            args = get_field(ev, "action", dict, path, line, where)
        else:
            call = _obj(ev.get("tool_call"))
            args, args_error = parse_arguments(call.get("arguments"))
        step = Step(
            index=len(self.steps),
            tool=tool,
            command=_command(tool, args),
            args=args,
            args_error=args_error,
            call_id=call_id,
            cwd=self.cwd if args.get("kind") in SHELL_ACTIONS else None,
            started_at=ev.get("timestamp") if isinstance(ev.get("timestamp"), str) else None,
            seq=self.next_seq(),
            line=raw.line,
        )
        self.steps.append(step)
        self._by_action[event_id] = step
        self._by_call.setdefault(call_id, []).append(step)
        early = self._early.pop(call_id, None)
        if early is not None:  # its result came first: paired by id all the same
            result, result_kind, stand_in = early
            self.events.remove(stand_in)
            self.warnings.append(
                f"{self._where(result)}: {result_kind} for tool call {call_id!r} came before its call; paired by id"
            )
            self._result(result, result_kind)
        if args.get("kind") == "FinishAction" and isinstance(args.get("message"), str):
            self.final_message = args["message"]

    def _answered(self, raw: _Raw) -> Step | None:
        """The call a result answers: by ``action_id``, else the first open call with its ``tool_call_id``."""
        ev = raw.ev
        action_id = ev.get("action_id")
        if isinstance(action_id, str):
            step = self._by_action.get(action_id)
            if step is not None and not step.answered:
                return step
        for step in self._by_call.get(ev.get("tool_call_id") or "", []):
            if not step.answered:
                return step
        return None

    def _result(self, raw: _Raw, kind: str) -> None:
        ev, path, line, where = raw.ev, raw.file, raw.at, raw.where
        get_field(ev, "tool_call_id", str, path, line, where)
        step = self._answered(raw)
        if kind == "ObservationEvent":
            obs = get_field(ev, "observation", dict, path, line, where)
            tool_name = _text(ev.get("tool_name"))
            shown = render(obs, tool_name)
            extended, images = _text_parts(ev.get("extended_content"))
            shown.parts += extended
            shown.images += images
        elif kind == "UserRejectObservation":
            reason = ev.get("rejection_reason")
            reason = reason if isinstance(reason, str) else "User rejected the action"
            shown = Rendered(reason, [f"Action rejected: {reason}"])
        else:
            error = get_field(ev, "error", str, path, line, where)
            shown = Rendered(error, [error])
        if step is None:
            self.event(
                raw,
                "error" if kind == "AgentErrorEvent" else "other",
                shown.output,
                "tool",
                tool_call_id=ev.get("tool_call_id"),
            )
            call_id = ev["tool_call_id"]
            if call_id not in self._by_call and call_id not in self._early:  # its call may come later
                self._early[call_id] = (raw, kind, self.events[-1])
            else:
                self.warnings.append(
                    f"{self._where(raw)}: {kind} for tool call {call_id!r} answers no open call"
                )
            return
        self._fill(step, raw, kind, shown)

    def _fill(self, step: Step, raw: _Raw, kind: str, rendered: Rendered) -> None:
        ev = raw.ev
        obs = _obj(ev.get("observation"))
        self.images += rendered.images
        self.approximate += rendered.approximate
        parts = rendered.parts
        shown_parts = [
            self._clip(p, obs, terminal=rendered.terminal and i == len(parts) - 1)
            for i, p in enumerate(parts)
        ]
        step.output = rendered.output
        step.shown = "".join(shown_parts)
        step.clipped = shown_parts != parts or SDK_CLIP_MARKER.search(rendered.output) is not None
        step.ended_at = ev.get("timestamp") if isinstance(ev.get("timestamp"), str) else None
        meta = _obj(obs.get("metadata"))
        if rendered.terminal:
            code = _int(obs.get("exit_code"))
            code = _int(meta.get("exit_code")) if code is None else code
            step.exit_code = None if code == -1 else code
            if isinstance(meta.get("working_dir"), str) and meta["working_dir"]:
                self.cwd = meta["working_dir"]
        error = obs.get("error")
        step.is_error = (
            kind != "ObservationEvent"
            or obs.get("is_error") is True
            or error is True
            or (isinstance(error, str) and bool(error))
            or step.exit_code not in (None, 0)
        )
        if not step.is_error:
            self._note_write(step, obs)

    def _clip(self, text: str, obs: dict[str, Any], *, terminal: bool) -> str:
        policy = self.policy
        if not isinstance(policy, OpenHandsSdkClip):
            return policy.apply(text)
        if not terminal:
            return policy.message(text)
        save_dir = obs.get("full_output_save_dir")
        if isinstance(save_dir, str) and save_dir:
            since = _version(self.harness_version) or (0,)
            prefix = "terminal" if since >= TERMINAL_SAVE_PREFIX_SINCE else "bash"
            return policy.apply_saved(text, save_dir, prefix)
        return policy.apply(text)

    def _note_write(self, step: Step, obs: dict[str, Any]) -> None:
        """A file the agent wrote with a file tool: its content where the log holds it (the editor's
        ``new_content`` after the change, ``file_text`` of a ``create``, ``content`` of ``write_file``)."""
        args, kind = step.args, step.args.get("kind")
        if (
            kind in EDITOR_ACTIONS
            and args.get("command") in EDITOR_CHANGES
            and isinstance(args.get("path"), str)
        ):
            target = args["path"]
            content = obs.get("new_content")
            if not isinstance(content, str) and args.get("command") == "create":
                content = args.get("file_text")
        elif kind in FILE_WRITERS and isinstance(args.get("file_path"), str):
            target = args["file_path"]
            content = args.get("content") if kind == "WriteFileAction" else None
        else:
            return
        if isinstance(content, str):
            found = deliverable_file(target, content.encode("utf-8", "surrogatepass"), origin="write_tool")
        else:
            found = DeliverableFile(path=target, origin="write_tool")
        self._writes[target] = found

    def _message(self, raw: _Raw) -> None:
        ev, path, line, where = raw.ev, raw.file, raw.at, raw.where
        message = get_field(ev, "llm_message", dict, path, line, where)
        source = _text(ev.get("source"))
        texts, _ = _text_parts(message.get("content"))
        text = "\n".join(texts) if texts else _text(message.get("content"))
        self._reasoning(raw, message)
        role = (
            "user"
            if source == "user"
            else "assistant"
            if source == "agent"
            else _text(message.get("role")) or None
        )
        extra: dict[str, Any] = {"source": source}
        for key in ("sender", "activated_skills"):
            if ev.get(key):
                extra[key] = ev[key]
        extended, _ = _text_parts(ev.get("extended_content"))
        if extended:
            extra["extended_content"] = "\n".join(extended)
        self.event(raw, "message", text, role, **extra)
        if source == "user" and self.instruction is None and text.strip():
            self.instruction = text
        if source == "agent" and text.strip():
            self.final_message = text

    def _final_finish(self) -> None:
        """A ``finish`` call that ended the conversation is an event, not a step: its observation was never
        sent to the model (the SDK stops after it; only a conversation the user went on with sends it). It
        becomes an ``other`` event in its place (``data["submission"]``, with its message and output)."""
        if not self.steps:
            return
        last = self.steps[-1]
        if last.args.get("kind") != "FinishAction" or not last.answered:
            return
        if any(e.seq > last.seq and e.role in ("assistant", "user") for e in self.events):
            return  # the conversation went on: the model saw it
        submission_event(self.steps, self.events, last, last.output)

    def trajectory(self, ident: str, source_path: str, **fields: Any) -> Trajectory:
        for call_id, (raw, kind, _) in self._early.items():
            self.warnings.append(
                f"{self._where(raw)}: {kind} for tool call {call_id!r} answers no open call (no call in the "
                "log has its id)"
            )
        self._early.clear()
        self._final_finish()
        meta: dict[str, Any] = fields.pop("meta", {})
        unanswered = [s.call_id for s in self.steps if not s.answered]
        if unanswered:
            meta["unanswered_calls"] = unanswered
        if self.images:
            meta["image_parts"] = self.images
        if self.approximate:
            self.warnings.append(
                f"{self.approximate} observation(s) of a kind rtlab does not render: shown is their fields as JSON"
            )
        if self.warnings:
            meta["warnings"] = self.warnings
        return Trajectory(
            id=ident,
            format=NAME,
            source_path=source_path,
            steps=self.steps,
            events=self.events,
            deliverable=Deliverable(final_message=self.final_message, files=list(self._writes.values())),
            harness="openhands",
            harness_version=self.harness_version,
            started_at=self.stamps[0] if self.stamps else None,
            ended_at=self.stamps[-1] if self.stamps else None,
            clip_policy=self.policy.name,
            meta=meta,
            **fields,
        )


def _model(llm: Any) -> str | None:
    model = llm.get("model") if isinstance(llm, dict) else None
    return model if isinstance(model, str) and model else None


def _read_folder(path: Path, layout: _Folder, options: ReadOptions) -> Trajectory:
    state: dict[str, Any] = {}
    if layout.base_state is not None:
        loaded = load_json(layout.base_state)
        if not isinstance(loaded, dict):
            raise ReaderError(layout.base_state, f"expected an object, got {type(loaded).__name__}")
        state = loaded
    files: dict[int, Path] = {}
    warnings: list[str] = []
    for entry in sorted(os.scandir(layout.events), key=lambda e: e.name):
        if not entry.is_file() or entry.name == LOCK_FILE:
            continue
        m = EVENT_FILE.match(entry.name)
        if m is None:
            warnings.append(f"{EVENTS_DIR}/{entry.name}: not an event file name; skipped")
            continue
        idx = int(m.group("idx"))
        if idx in files:
            warnings.append(
                f"{entry.path}: a second event file with index {idx} (first: {files[idx].name}); skipped"
            )
            continue
        files[idx] = Path(entry.path)
    if not files:
        raise ReaderError(layout.events, "no event files (event-NNNNN-<id>.json) in this folder")
    missing = sorted(set(range(max(files) + 1)) - set(files))
    if missing:
        warnings.append(f"{len(missing)} event index(es) missing from {EVENTS_DIR}/ (first: {missing[0]})")
    agent = _obj(state.get("agent"))
    workspace = _obj(state.get("workspace"))
    cwd = workspace.get("working_dir") if isinstance(workspace.get("working_dir"), str) else None
    builder = _Builder(path, get_policy(options.clip or DEFAULT_CLIP), cwd=cwd)
    builder.warnings.extend(warnings)
    for idx in sorted(files):
        with record(builder.warnings, files[idx], None, "event file"):
            file_warnings: list[str] = []
            ev = load_json(files[idx], file_warnings)
            builder.warnings.extend(file_warnings)
            if isinstance(ev, dict) and isinstance(ev.get("id"), str):
                stem_id = EVENT_FILE.match(files[idx].name).group("event_id")  # type: ignore[union-attr]
                if stem_id != ev["id"]:
                    builder.warnings.append(
                        f"{files[idx].name}: event id {ev['id']!r} differs from its file name"
                    )
            builder.feed(_Raw(ev, files[idx], idx + 1, ""))
    meta: dict[str, Any] = {"n_events": len(files), "layout": "conversation folder"}
    for key in ("id", "execution_status", "max_iterations"):
        if isinstance(state.get(key), str | int) and not isinstance(state.get(key), bool):
            meta["conversation_id" if key == "id" else key] = state[key]
    tools = _list(agent.get("tools"))
    names = [t.get("name") for t in tools if isinstance(t, dict) and isinstance(t.get("name"), str)]
    if names:
        meta["tools"] = names
    if layout.base_state is None:
        builder.warnings.append(
            f"no {BASE_STATE} beside {EVENTS_DIR}/: model, usage and working folder unknown"
        )
    meta["harness_version_note"] = "not recorded: a persisted conversation carries no SDK version"
    stats = _obj(state.get("stats"))
    per_use = stats.get("usage_to_metrics") or stats.get("service_to_metrics")
    usage = None
    if isinstance(per_use, dict):
        for metrics in per_use.values():
            one = metrics_usage(metrics)
            if one is not None:
                usage = one if usage is None else usage + one
        if len(per_use) > 1:
            meta["usage_ids"] = sorted(per_use)
    conv_id = state.get("id") if isinstance(state.get("id"), str) and state.get("id") else layout.root.name
    return builder.trajectory(
        f"{NAME}:{conv_id}",
        str(layout.root if layout.base_state is not None else layout.events),
        instruction=builder.instruction,
        model=_model(agent.get("llm")),
        cwd=cwd,
        usage=usage,
        meta=meta,
    )


_VERSION_KEYS = ("openhands_sdk_version", "agent_sdk_version", "sdk_version", "version")


def _read_eval(path: Path, options: ReadOptions) -> list[Trajectory]:
    warnings: list[str] = []
    found: list[Trajectory] = []
    policy = get_policy(options.clip or DEFAULT_CLIP)
    for ev in iter_eval_lines(NAME, path, warnings):
        version = next(
            (ev.metadata[k] for k in _VERSION_KEYS if isinstance(ev.metadata.get(k), str) and ev.metadata[k]),
            None,
        )
        builder = _Builder(path, policy, harness_version=version)
        for i, raw in enumerate(ev.history):
            with record(builder.warnings, path, ev.line, f"event history[{i}]"):
                builder.feed(_Raw(raw, path, ev.line, f"history[{i}]"))
        if not ev.history:
            builder.warnings.append(f"line {ev.line}: the history is empty")
        meta = {"n_events": len(ev.history), "layout": "eval output", **ev.meta()}
        if version is None:
            meta["harness_version_note"] = "not recorded: the eval metadata names no SDK version"
        found.append(
            builder.trajectory(
                ev.id,
                str(path),
                task_id=ev.instance_id,
                instruction=builder.instruction or ev.text("instruction"),
                model=_model(ev.metadata.get("llm")),
                usage=metrics_usage(ev.record.get("metrics")),
                meta=meta,
            )
        )
    for t in found:
        if warnings:
            t.meta.setdefault("warnings", []).extend(warnings)
    return found


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: a file is
    read as an evaluation output (:func:`may_hold_histories`); a folder is offered as it is."""
    return not facts.is_file or may_hold_histories(facts.lines)


@typed(type_step)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory per conversation folder, or per line of an evaluation output."""
    path = Path(path)
    layout = _folder(path)
    if layout is not None:
        return [_read_folder(path, layout, options)]
    if path.is_dir():
        raise ReaderError(
            path, f"not a conversation folder: no {BASE_STATE} with an {EVENTS_DIR}/ folder beside it"
        )
    return _read_eval(path, options)

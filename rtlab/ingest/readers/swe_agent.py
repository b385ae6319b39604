"""SWE-agent ``.traj`` files: the trajectory and the model history SWE-agent saves for every instance it runs.

A ``.traj`` is one JSON object. What the format's source says (SWE-agent/SWE-agent):

- 1.x: ``sweagent/types.py`` (``TrajectoryStep``: ``action``, ``observation``, ``response``, ``thought``,
  ``execution_time``, ``state``, ``query``, ``extra_info``; ``HistoryItem``: ``role``, ``content`` (text or
  parts), ``message_type``, ``agent``, ``is_demo``, ``thought``, ``action``, ``tool_calls``, ``tool_call_ids``,
  ``thinking_blocks``; ``AgentInfo``: ``model_stats``, ``exit_status``, ``submission``, ``swe_agent_version``
  ...). ``sweagent/agent/agents.py``: ``get_trajectory_data`` / ``save_trajectory`` write ``{trajectory,
  history, info, replay_config, environment}`` (``replay_config`` a JSON string, a dict in 1.0);
  ``add_step_to_history`` puts the model's output and then the observation rendered into
  ``next_step_template`` (``..._no_output_template`` when blank, ``..._truncated_observation_template`` past
  ``max_observation_length``) into the history; ``step`` appends the step's ``state`` read *after* the
  action; ``forward_with_handling`` adds a requeried output (format error, blocked action, bash syntax
  error) to the trajectory but not to the history; ``attempt_autosubmission_after_error`` ends a run with a
  step that has no action. ``RetryAgent`` saves ``attempts`` and the chosen attempt's fields.
  ``sweagent/agent/history_processors.py``: ``LastNObservations`` shows all but the last ``n`` observations
  as ``Old environment output: (N lines omitted)`` in later queries; the saved history keeps them whole.
- 0.7: ``sweagent/agent/agents.py`` @ v0.7.0: ``save_trajectory`` writes ``{environment, trajectory, history,
  info}``; ``_run_step`` reads the ``state`` (a JSON string) *before* the action; ``forward`` puts each model
  output into the history, and the next user message carries the observation; format errors and blocked
  actions are requeried out of both. ``sweagent/environment/swe_env.py``: the harness's own actions
  (``exit_cost``, ``exit_context``, ``exit_format``, ``exit_error``, ``exit_api``, ``exit_forfeit``,
  ``skip``). The run's ``args.yaml`` (written beside the ``.traj``) names the model.
- The commands: ``config/commands/defaults.sh``, ``search.sh``, ``edit_linting.sh`` @ v0.7.0; ``tools/windowed``,
  ``tools/search``, ``tools/edit_anthropic`` (``str_replace_editor``), ``tools/windowed_edit_*`` @ 1.x.

Provenance: a step's ``line`` (and its thought's) is its 1-based position in ``trajectory``; the other
events' is their position in ``history``.

Each ``trajectory[]`` item the model issued is one step; ``shown`` is the history message that carried its
observation to the model (the observation inside the template, whose words are frames), ``output`` the
observation as the trajectory holds it. A result that never became a history message (the last ``submit``
of 0.7) was never shown: that call is an ``other`` event (``data["not_shown"]``, its output kept), not an
answered step (docs/ARCHITECTURE.md, "What a step is"). Requeried outputs and the harness's own exit actions
are events.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import yaml

from rtlab.errors import ReaderError
from rtlab.ingest._clipping import get_policy
from rtlab.ingest.readers._base import (
    ReadOptions,
    call_command,
    parse_arguments,
    read_command,
    submission_event,
    typed,
)
from rtlab.ingest.readers._frames import (
    SWE_CLIP_NOTE,
    merged,
    read_tool_reply,
    shifted,
    swe_agent_notices,
    swe_agent_search,
    swe_agent_span,
    swe_agent_window,
)
from rtlab.ingest.readers._openai_common import content_text, trajectory_id
from rtlab.ingest.readers._registry import FileFacts
from rtlab.ingest.readers._tolerant import skipped_because
from rtlab.io import field, head_bytes, head_text, load_json, parse_json, read_text
from rtlab.records import Action, Deliverable, Event, Frame, Step, TokenUsage, Trajectory
from rtlab.text import split_shell_words

NAME = "swe-agent"
LOOKS_FOR = (
    'a SWE-agent .traj: a JSON object whose "trajectory" list holds steps ({"action", "observation", '
    '"response", "thought", ...}), with its "history" and "info" (0.7 and 1.x)'
)
HARNESS_ACTIONS = frozenset(
    {"exit_context", "exit_cost", "exit_error", "exit_format", "exit_api", "exit_forfeit", "skip"}
)
"""Actions SWE-agent 0.7 writes into the trajectory itself when it ends a run (the model issued none of them)."""

WINDOW_COMMANDS = frozenset({"open", "goto", "scroll_up", "scroll_down"})
"""Commands that show a window of a file (a read, taken from the window shown)."""
EDIT_COMMANDS = frozenset({"edit", "insert"})
"""Commands that change the open file (the file the window after them names)."""
LIST_COMMANDS = frozenset({"search_dir", "find_file"})
"""Search commands whose output is one path a line."""
KNOWN_COMMANDS = (
    WINDOW_COMMANDS
    | EDIT_COMMANDS
    | LIST_COMMANDS
    | {"create", "search_file", "str_replace_editor", "filemap", "submit", "exit", "skip"}
)
SIGNATURES: dict[str, tuple[str, ...]] = {
    "open": ("path", "line_number"),
    "goto": ("line_number",),
    "create": ("filename",),
    "search_dir": ("search_term", "dir"),
    "search_file": ("search_term", "file"),
    "find_file": ("file_name", "dir"),
    "edit": ("search", "replace", "replace-all"),
    "insert": ("text", "line"),
    "filemap": ("file_path",),
    "submit": ("argument",),
}
"""Argument names of the text commands, as their tools' ``config.yaml`` / ``@yaml`` docs name them (the same
names function-calling logs give)."""
EDITOR_FLAGS = {"--file_text": 1, "--view_range": 2, "--old_str": 1, "--new_str": 1, "--insert_line": 1}
"""``str_replace_editor``'s flags and how many values each takes (its ``argparse`` in tools/edit_anthropic)."""

_FAILED = re.compile(
    r"\A(?:No file open\. Use the `?open`? command first\.|Usage: |Error: |File .* not found$|Directory .* not found"
    r"|Your proposed edit has introduced new syntax error|No replacement was performed|Invalid `view_range`"
    r"|Parameter `\w+` is required|The path .* does not exist|File already exists at: |The command .* was "
    r"cancelled because it took more than)",
    re.MULTILINE,
)
_LINT_EDIT = re.compile(r"\Aedit\s+(\d+):(\d+)[^\n]*\n?(.*?)(?:\n?end_of_edit\s*)?\Z", re.DOTALL)
_DOC_NAME = re.compile(r"^([\w-]+):\n  docstring:", re.MULTILINE)
_CURRENT_DIR = re.compile(r"^\(Current directory: (?P<dir>[^\n)]+)\)", re.MULTILINE)
_CAT_N_LINE = re.compile(r"^ *(\d+)\t", re.MULTILINE)

_LOOKAHEAD = 5
"""Trajectory items looked past for the one whose output a history entry holds (SWE-agent requeries at most
``max_requeries``, 3 by default, times)."""
_SNIFF_SHORT = 8 * 1024
_SNIFF_HEAD = 256 * 1024
_TRAJECTORY_KEY = re.compile(r'"trajectory"\s*:\s*\[\s*')
_STEP_KEYS = (
    "action",
    "observation",
    "response",
    "thought",
    "state",
    "execution_time",
    "query",
    "extra_info",
)
_FIRST_STEP_KEY = re.compile(r'\{\s*"(?:' + "|".join(_STEP_KEYS) + r')"\s*:')


# ---------------------------------------------------------------------------------------------------------
# Detection


def sniff(path: Path) -> bool:
    """A JSON object whose head holds a ``"trajectory"`` list of SWE-agent steps (its first key one of
    ``TrajectoryStep``'s), or an empty one beside ``"history"`` and ``"info"``; any file name. ``trajectory``
    comes first (1.x), after ``environment`` (0.7) or inside the first of ``attempts`` (``RetryAgent``), so
    a short head decides; only an empty trajectory needs a longer look."""
    head = head_text(path, _SNIFF_SHORT)
    if not head.startswith("{"):
        return False
    found = _TRAJECTORY_KEY.search(head)
    if found is None:
        return False
    if head.startswith("]", found.end()):
        head = head_bytes(path, _SNIFF_HEAD).decode("utf-8", errors="ignore")
        return '"history"' in head and '"info"' in head
    return _FIRST_STEP_KEY.match(head, found.end()) is not None


# ---------------------------------------------------------------------------------------------------------
# Commands: the action string (or function call) -> tool, arguments; typing from the window shown


def _words(text: str) -> list[str] | None:
    try:
        return split_shell_words(text)
    except ValueError:
        return None


def _number(value: Any) -> Any:
    return int(value) if isinstance(value, str) and value.isdigit() else value


def text_arguments(name: str, text: str) -> dict[str, Any]:
    """The arguments of a SWE-agent command written as text (``open "src/x.py" 100``, ``edit 10:20\\n...\\n
    end_of_edit``, ``str_replace_editor view /x --view_range 1 40``), named as the tool's docs name them."""
    if name == "edit" and (lint := _LINT_EDIT.match(text)) is not None:
        return {
            "start_line": int(lint.group(1)),
            "end_line": int(lint.group(2)),
            "replacement_text": lint.group(3),
        }
    words = _words(text)
    if words is None:
        return {"_raw": text}
    rest = words[1:]
    if name == "str_replace_editor":
        args: dict[str, Any] = {}
        positional = ["command", "path"]
        i = 0
        while i < len(rest):
            word = rest[i]
            if word in EDITOR_FLAGS:
                n = EDITOR_FLAGS[word]
                values = rest[i + 1 : i + 1 + n]
                key = word[2:]
                args[key] = [_number(v) for v in values] if n > 1 else _number(values[0]) if values else None
                i += 1 + n
            else:
                if positional:
                    args[positional.pop(0)] = word
                i += 1
        return args
    names = SIGNATURES.get(name)
    if names is None:
        return {"args": rest} if rest else {}
    args = {key: _number(value) for key, value in zip(names, rest, strict=False)}
    if len(rest) > len(names):
        args["_extra"] = rest[len(names) :]
    return args


def parse_command(
    action: str, tool_call: dict[str, Any] | None, commands: frozenset[str]
) -> tuple[str, dict[str, Any], str | None]:
    """``(tool, args, args_error)`` of a step: a function call's name and arguments where the history holds
    one, else the text action's first word when it names a SWE-agent command, else ``bash`` (a shell line)."""
    if tool_call is not None:
        fn = tool_call.get("function")
        name = fn.get("name") if isinstance(fn, dict) else None
        if isinstance(name, str) and name:
            args, error = parse_arguments(fn.get("arguments") if isinstance(fn, dict) else None)
            return name, args, error
    text = action.strip()
    word = text.split(None, 1)[0] if text else ""
    if word != "bash" and (word in KNOWN_COMMANDS or word in commands):
        return word, text_arguments(word, text), None
    return "bash", {"command": text}, None


def _shell_line(step: Step) -> str:
    command = step.args.get("command")
    return command if isinstance(command, str) else step.command


def type_step(step: Step) -> None:
    """SWE-agent's commands in harness-neutral terms. ``open``/``goto``/``scroll_*`` read the file their window's
    header names, from the first to the last line number shown (``line_numbers``: each line starts ``N:``);
    ``str_replace_editor view`` reads (``cat -n`` lines) or lists a folder; ``search_file`` shows lines of
    one file; ``search_dir`` and ``find_file`` list paths; ``create`` writes; ``edit``, ``insert`` and the
    editor's ``str_replace``/``insert`` change a file; ``bash`` and any other line are shell commands;
    ``submit`` and other tools are ``other``. Frames: the template around the observation in the message, the
    window's header and notes, the search tools' headers and counts, clip notices."""
    tool, args, shown = step.tool, step.args, step.shown or ""
    start, end, found = swe_agent_span(shown, step.output)
    frames = found + swe_agent_notices(shown, start, end)
    action: Action
    if tool == "bash":
        action = Action.shell(_shell_line(step))
    elif tool in WINDOW_COMMANDS or tool == "create":
        window = swe_agent_window(shown, start, end)
        if window is not None:
            frames += window.frames
        if tool == "create":
            target = args.get("filename")
            target = target if isinstance(target, str) else window.path if window else None
            action = Action("write", path=target) if target else Action.other(tool)
        elif window is not None and window.first is not None and window.last is not None:
            limit = window.last - window.first + 1
            action = Action("read", path=window.path, offset=window.first, limit=limit, line_numbers=True)
        else:
            action = Action.other(tool)  # nothing was shown: "No file open", "File x not found"
    elif tool in EDIT_COMMANDS:
        window = swe_agent_window(shown, start, end)
        if window is not None:
            frames += window.frames
        action = Action("edit", path=window.path) if window is not None else Action.other(tool)
    elif tool == "str_replace_editor":
        action, editor_frames = _editor(step, args, shown, start, end)
        frames += editor_frames
    elif tool in LIST_COMMANDS or tool == "search_file":
        where, search_frames = swe_agent_search(shown, start, end)
        frames += search_frames
        if tool != "search_file":
            action = Action("list")
        elif where is not None:
            action = Action("read", path=where)
        else:
            action = Action.other(tool)
    elif tool == "filemap" and isinstance(args.get("file_path"), str):
        action = Action.read(args["file_path"])
    else:
        action = Action.other(tool)
    step.action = action
    step.frames = merged(frames)


def _editor(step: Step, args: dict[str, Any], shown: str, start: int, end: int) -> tuple[Action, list[Frame]]:
    """``str_replace_editor``: ``view`` of a file (``cat -n`` lines, offset and limit from the numbers shown)
    or of a folder (a list); ``create`` writes; ``str_replace``, ``insert``, ``undo_edit`` change the file."""
    sub, target = args.get("command"), args.get("path")
    if not isinstance(target, str):
        return Action.other(step.tool), []
    if sub == "view":
        inner = shown[start:end]
        action, found = read_tool_reply(inner, target, clipped=step.clipped, harness="openhands")
        frames = shifted(found, start)
        if action.kind == "read":
            numbers = [int(m.group(1)) for m in _CAT_N_LINE.finditer(inner)]
            first = min(numbers, default=None)
            limit = max(numbers) - first + 1 if first is not None else None
            action = Action("read", path=target, offset=first, limit=limit, line_numbers=bool(numbers))
        return action, frames
    if sub == "create":
        return Action("write", path=target), []
    if sub in ("str_replace", "insert", "undo_edit"):
        return Action("edit", path=target), []
    return Action.other(step.tool), []


def step_command(step: Step) -> str:
    """Step.command once the step is typed: the shell line, ``read PATH OFFSET LIMIT`` for a read, else
    ``tool {json args}``."""
    action = step.action
    if action is not None and action.kind == "shell":
        return action.command or ""
    if action is not None and action.kind == "read" and action.path:
        return read_command(action.path, action.offset, action.limit)
    return call_command(step.tool, step.args)


# ---------------------------------------------------------------------------------------------------------
# Reading


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: the file is
    one document (read as :func:`read` reads it), an object with a ``trajectory`` or with a list of
    ``attempts`` (:func:`_read_runs`; any other object lacks the ``trajectory`` field a run needs)."""
    doc = facts.document
    return isinstance(doc, dict) and ("trajectory" in doc or isinstance(doc.get("attempts"), list))


@typed(type_step)  # every step typed (after type_step: the decorator needs it)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory per ``.traj`` (one per attempt for a ``RetryAgent`` file that kept no chosen attempt)."""
    path = Path(path)
    loaded: list[str] = []
    data = load_json(path, loaded)
    if not isinstance(data, dict):
        raise ReaderError(path, f"expected a JSON object (a SWE-agent .traj), got {type(data).__name__}")
    found = _read_runs(path, data, options)
    for t in found:
        if loaded:
            t.meta["warnings"] = [*loaded, *t.meta.get("warnings", [])]
    return found


def _read_runs(path: Path, data: dict[str, Any], options: ReadOptions) -> list[Trajectory]:
    """The trajectories of one ``.traj`` object: the run, or each attempt of a ``RetryAgent`` file."""
    attempts = data.get("attempts")
    if "trajectory" not in data and isinstance(attempts, list) and attempts:
        found = []
        for k, attempt in enumerate(attempts):
            if not isinstance(attempt, dict):
                raise ReaderError(
                    path, f"expected an object, got {type(attempt).__name__}", field=f"attempts[{k}]"
                )
            merged_data = {
                **attempt,
                "replay_config": data.get("replay_config"),
                "environment": data.get("environment"),
            }
            found.append(_Run(path, merged_data, options, where=f"attempts[{k}]", suffix=k).build())
        return found
    return [_Run(path, data, options).build()]


def _state(value: Any, path: Path, where: str) -> dict[str, Any]:
    """A step's ``state``: a dict (1.x) or a JSON string (0.7); ``{}`` when absent."""
    if value is None or value == "":
        return {}
    if isinstance(value, str):
        try:
            value = parse_json(value)
        except json.JSONDecodeError as exc:
            raise ReaderError(path, f"state is not valid JSON: {exc.msg}", field=where) from None
    if not isinstance(value, dict):
        raise ReaderError(path, f"expected an object, got {type(value).__name__}", field=where)
    return value


def _known(value: Any) -> str | None:
    """A state's path: ``None`` for SWE-agent's ``n/a`` and empty values."""
    return value if isinstance(value, str) and value and value != "n/a" else None


def _replay_config(path: Path, value: Any, warnings: list[str]) -> dict[str, Any]:
    if isinstance(value, str):
        try:
            value = parse_json(value)
        except json.JSONDecodeError as exc:
            warnings.append(
                f"replay_config is not valid JSON ({exc.msg}): model and task id not read from it"
            )
            return {}
    return value if isinstance(value, dict) else {}


def _get(obj: Any, *keys: str) -> Any:
    for key in keys:
        obj = obj.get(key) if isinstance(obj, dict) else None
    return obj


def _args_yaml_model(path: Path, warnings: list[str]) -> str | None:
    """The model a 0.7 run's ``args.yaml`` (beside its ``.traj`` files) names: ``agent.model.model_name``."""
    args_file = path.parent / "args.yaml"
    if not args_file.is_file():
        return None
    try:
        doc = yaml.safe_load(read_text(args_file))
    except (yaml.YAMLError, ReaderError) as exc:
        warnings.append(f"{args_file.name} beside the file could not be read: {exc}")
        return None
    name = _get(doc, "agent", "model", "model_name")
    return name if isinstance(name, str) else None


class _Run:
    """One SWE-agent run: trajectory items paired with the history entries that carried them to the model."""

    def __init__(
        self,
        path: Path,
        data: dict[str, Any],
        options: ReadOptions,
        where: str = "",
        suffix: int | None = None,
    ):
        self.path = path
        self.data = data
        self.options = options
        self.where = where
        self.suffix = suffix
        self.warnings: list[str] = []
        self.steps: list[Step] = []
        self.events: list[Event] = []
        self.meta: dict[str, Any] = {}
        self.instruction: str | None = None
        self.step_of_observation: dict[int, int] = {}
        """History position of an observation message -> the step it carried."""
        self.items = []
        for i, raw in enumerate(field(data, "trajectory", list, path, None, where)):
            try:
                self.items.append(self._item(i, raw))
            except ReaderError as exc:  # one step not understood: said, the others read
                self.warnings.append(skipped_because(exc, path, i + 1, "trajectory step"))
        history = data.get("history")
        if history is None:
            history = []
        if not isinstance(history, list):
            self.warnings.append(
                f"{path} [{self._field('history')}]: expected a list, got {type(history).__name__}; "
                "read without a history"
            )
            history = []
        self.history = []
        for i, h in enumerate(history):
            try:
                self.history.append(self._entry(i, h))
            except ReaderError as exc:
                self.warnings.append(skipped_because(exc, path, i + 1, "history entry"))
        info = data.get("info")
        if info is not None and not isinstance(info, dict):
            raise ReaderError(
                path, f"expected an object, got {type(info).__name__}", field=self._field("info")
            )
        self.info: dict[str, Any] = info or {}
        self.replay = _replay_config(path, data.get("replay_config"), self.warnings)
        self.modern = bool(
            "replay_config" in data
            or "swe_agent_version" in self.info
            or any("message_type" in h for _, h in self.history)
            or any("query" in item or "extra_info" in item for item in self.items)
        )
        """1.x: the state is read after each action (0.7: before), and a blank action ends a run."""

    def _field(self, name: str) -> str:
        return f"{self.where}.{name}" if self.where else name

    def _item(self, i: int, raw: Any) -> dict[str, Any]:
        where = self._field(f"trajectory[{i}]")
        if not isinstance(raw, dict):
            raise ReaderError(self.path, f"expected an object, got {type(raw).__name__}", field=where)
        field(raw, "action", str, self.path, None, where)
        for key in ("observation", "response", "thought"):
            value = raw.get(key)
            if value is not None and not isinstance(value, str):
                raise ReaderError(
                    self.path, f"expected str, got {type(value).__name__}", field=f"{where}.{key}"
                )
        return {**raw, "state": _state(raw.get("state"), self.path, f"{where}.state"), "_line": i + 1}

    def _entry(self, i: int, raw: Any) -> tuple[int, dict[str, Any]]:
        where = self._field(f"history[{i}]")
        field(raw, "role", str, self.path, None, where)
        content = raw.get("content")
        if content is not None and not isinstance(content, str | list):
            raise ReaderError(
                self.path, f"expected text or a list of content parts, got {type(content).__name__}",
                field=f"{where}.content",
            )  # fmt: skip
        return i, raw

    def _text(self, pos: int, entry: dict[str, Any]) -> str:
        return content_text(entry.get("content"), self.path, None, self._field(f"history[{pos}].content"))

    # --- the walk ---------------------------------------------------------------------------------------

    def _event(self, kind: Any, text: str, line: int | None, role: str | None = None, **data: Any) -> None:
        self.events.append(
            Event(
                kind=kind, text=text, role=role, seq=len(self.steps) + len(self.events), line=line, data=data
            )
        )

    def _walk(self) -> None:
        """History entries in order, each assistant entry with the trajectory item it logged (matched by action
        and output, in order) and the observation message after it."""
        main = next((h.get("agent") for _, h in self.history if isinstance(h.get("agent"), str)), None)
        entries = [(pos, h) for pos, h in self.history if main is None or h.get("agent", main) == main]
        if len(entries) < len(self.history):
            self.meta["other_agent_entries"] = len(self.history) - len(entries)
        records: list[tuple[str, int, dict[str, Any]]] = []  # (kind, position, entry)
        open_action = False
        for pos, h in entries:
            role = h["role"]
            if h.get("is_demo"):
                records.append(("demo", pos, h))
            elif role == "assistant":
                records.append(("assistant", pos, h))
                open_action = True
            elif role in ("user", "tool") and open_action:
                records.append(("observation", pos, h))
                open_action = False
            else:
                records.append((role, pos, h))
        if not self.history:
            self.warnings.append("no history: shown is each step's observation as the trajectory holds it")
            for i, item in enumerate(self.items):
                self._emit(i, item, None, None)
            return
        assistants = [k for k, r in enumerate(records) if r[0] == "assistant"]
        matched: dict[int, int] = {}  # record index -> item index
        j = 0
        for i, item in enumerate(self.items):
            if j == len(assistants):
                break
            record = records[assistants[j]]
            if item["action"] != record[2].get("action"):
                continue  # a requeried output (1.x) or a step the history does not hold
            later = self.items[i + 1 : i + 1 + _LOOKAHEAD]
            if not self._same(item, record) and any(self._same(other, record) for other in later):
                continue  # a requery with the same action; the output the history holds comes next
            matched[assistants[j]] = i
            j += 1
        next_item = 0
        instruction_seen = False
        for k, (kind, pos, h) in enumerate(records):
            line = pos + 1
            if kind == "observation":
                continue  # given to the step of the assistant entry before it
            if kind == "assistant":
                if k not in matched:
                    self.warnings.append(f"history[{pos}]: an assistant entry that no trajectory step logged")
                    self._event("message", self._text(pos, h), line, role="assistant", unmatched=True)
                    continue
                i = matched[k]
                for skipped in range(next_item, i):
                    self._emit(skipped, self.items[skipped], None, None, requeried=True)
                obs = records[k + 1] if k + 1 < len(records) and records[k + 1][0] == "observation" else None
                self._emit(i, self.items[i], (pos, h), (obs[1], obs[2]) if obs else None)
                next_item = i + 1
            elif kind == "system":
                self._event("system", self._text(pos, h), line, role="system")
            elif kind == "demo":
                self._event("other", self._text(pos, h), line, role=h["role"], demonstration=True)
            else:
                text = self._text(pos, h)
                if h["role"] not in ("user", "tool", "system", "assistant"):
                    self.warnings.append(
                        f"{self.path}:{line}: history[{pos}]: unknown role {h['role']!r}; kept as a message event"
                    )
                self._event("message", text, line, role=h["role"])
                if not instruction_seen and h["role"] == "user":
                    self.instruction = text
                    instruction_seen = True
        for rest in range(next_item, len(self.items)):
            self._emit(rest, self.items[rest], None, None, requeried=True)

    def _same(self, item: dict[str, Any], record: tuple[str, int, dict[str, Any]]) -> bool:
        """The item logged this history entry: the same action and the same model output."""
        _, pos, h = record
        return item["action"] == h.get("action") and (item.get("response") or "") == self._text(pos, h)

    def _emit(
        self,
        i: int,
        item: dict[str, Any],
        asst: tuple[int, dict[str, Any]] | None,
        obs: tuple[int, dict[str, Any]] | None,
        *,
        requeried: bool = False,
    ) -> None:
        action = item["action"]
        observation = item.get("observation")
        thought = item.get("thought") or ""
        line = item.get("_line", i + 1)
        if asst is not None:
            for block in asst[1].get("thinking_blocks") or []:
                if isinstance(block, dict) and isinstance(block.get("thinking"), str) and block["thinking"]:
                    self._event("reasoning", block["thinking"], line, role="assistant")
        if requeried and not (observation or "").strip():
            self.meta["n_requeried"] = self.meta.get("n_requeried", 0) + 1
            self._event(
                "error", item.get("response") or thought, line, role="assistant", action=action, requeried=True,
            )  # fmt: skip
            return
        harness = action.strip() in HARNESS_ACTIONS or (self.modern and not action.strip())
        if harness:
            shown = self._text(*obs) if obs is not None else None
            self._event(
                "error",
                thought or action,
                line,
                role="assistant",
                action=action,
                observation=observation,
                shown=shown,
            )
            return
        if thought.strip():
            self._event("message", thought, line, role="assistant")
        self._step(i, item, asst, obs, requeried=requeried)

    def _step(
        self,
        i: int,
        item: dict[str, Any],
        asst: tuple[int, dict[str, Any]] | None,
        obs: tuple[int, dict[str, Any]] | None,
        *,
        requeried: bool,
    ) -> None:
        calls = asst[1].get("tool_calls") if asst is not None else None
        tool_call = calls[0] if isinstance(calls, list) and calls and isinstance(calls[0], dict) else None
        if isinstance(calls, list) and len(calls) > 1:
            self.warnings.append(
                f"trajectory[{i}]: {len(calls)} tool calls in one output; the first is the step"
            )
        tool, args, error = parse_command(item["action"], tool_call, self.commands)
        output = item.get("observation")
        unseen = False  # its output never became a history message: the model did not receive it
        if self.options.clip:
            shown = None if output is None else get_policy(self.options.clip).apply(output)
            clipped = shown != output
        else:
            if obs is not None:
                shown = self._text(*obs)
            elif not self.history or requeried:
                shown = output  # no history to say otherwise, or a step the history does not hold (1.x: an
                # output retried with its observation in a requery the history does not keep)
            else:
                shown = "" if output is not None else None
                self.meta["n_not_in_history"] = self.meta.get("n_not_in_history", 0) + 1
                unseen = output is not None
            clipped = bool(shown and output and output not in shown and SWE_CLIP_NOTE in shown)
        before = self.before[i]
        call_id = tool_call.get("id") if tool_call is not None else None
        if call_id is None and obs is not None:
            ids = obs[1].get("tool_call_ids")
            call_id = ids[0] if isinstance(ids, list) and ids and isinstance(ids[0], str) else None
        step = Step(
            index=len(self.steps),
            tool=tool,
            command="",
            args=args,
            output=output,
            shown=shown,
            clipped=clipped,
            is_error=bool(output and _failed(tool, output)),
            call_id=call_id if isinstance(call_id, str) else None,
            cwd=_known(before.get("working_dir")),
            seq=len(self.steps) + len(self.events),
            line=item.get("_line", i + 1),
            args_error=error,
        )
        type_step(step)
        step.command = step_command(step)
        self.steps.append(step)
        if unseen:  # the run ended on it (the last submit of 0.7): an event, not an answered step
            submission_event(self.steps, self.events, step, output, not_shown=True)
            return
        if obs is not None:
            self.step_of_observation[obs[0]] = step.index
        if requeried:
            self.meta.setdefault("steps_not_in_history", []).append(step.index)

    # --- the run ----------------------------------------------------------------------------------------

    def _states_before(self) -> list[dict[str, Any]]:
        """The state each action ran in: 0.7 logs it with the step; 1.x logs the state after, so the previous
        logged state (the first step's working directory from the instance message's ``(Current directory:
        X)``)."""
        if not self.modern:
            return [item["state"] for item in self.items]
        first: dict[str, Any] = {}
        for _, h in self.history:
            if h["role"] in ("user", "tool") and not h.get("is_demo"):
                found = _CURRENT_DIR.search(content_text(h.get("content"), self.path, None, "content"))
                if found:
                    first = {"working_dir": found.group("dir")}
                break
        before = [first]
        for item in self.items[:-1]:
            before.append(item["state"] or before[-1])  # a requeried output logs no state: nothing ran
        return before

    def _commands(self) -> frozenset[str]:
        """Command names the run's docs list (the system prompt's, 1.x ``tools.command_docs``)."""
        docs = [self._text(pos, h) for pos, h in self.history if h["role"] == "system"]
        tools_docs = _get(self.replay, "agent", "tools", "command_docs")
        if isinstance(tools_docs, str):
            docs.append(tools_docs)
        return frozenset(name for text in docs for name in _DOC_NAME.findall(text))

    def build(self) -> Trajectory:
        self.commands = self._commands()
        self.before = self._states_before()
        self._walk()
        info, replay = self.info, self.replay
        raw_stats = info.get("model_stats")
        stats: dict[str, Any] = raw_stats if isinstance(raw_stats, dict) else {}
        usage = _usage(stats)
        model = _get(replay, "agent", "model", "name")
        if not isinstance(model, str):
            configs = _get(replay, "agent", "agent_configs")
            names = [_get(c, "model", "name") for c in configs] if isinstance(configs, list) else []
            names = [n for n in names if isinstance(n, str)]
            model = names[0] if names else None
            if len(set(names)) > 1:
                self.meta["models"] = sorted(set(names))
        if model is None and not self.modern:
            model = _args_yaml_model(self.path, self.warnings)
        task_id = _get(replay, "problem_statement", "id")
        if not isinstance(task_id, str):
            task_id = self.path.name[: -len(".traj")] if self.path.name.endswith(".traj") else self.path.stem
        submission = info.get("submission")
        meta = self.meta
        meta["schema"] = "swe-agent-1" if self.modern else "swe-agent-0.7"
        for key in ("environment",):
            if isinstance(self.data.get(key), str):
                meta[key] = self.data[key]
        for key in ("exit_status", "swe_rex_version", "swe_agent_hash", "best_attempt_idx"):
            if info.get(key) is not None:
                meta[key] = info[key]
        if isinstance(submission, str):
            meta["submission"] = submission
        if isinstance(stats.get("api_calls"), int):
            meta["api_calls"] = stats["api_calls"]
        if isinstance(self.data.get("attempts"), list):
            meta["attempts"] = len(self.data["attempts"])
        self._history_processors()
        if not self.modern and info.get("swe_agent_version") is None:
            meta["harness_version_note"] = "not recorded: a 0.7-era .traj names no SWE-agent version"
        if self.warnings:
            meta["warnings"] = self.warnings
        cwd = next((s.cwd for s in self.steps if s.cwd), None)
        version = info.get("swe_agent_version")
        return Trajectory(
            id=trajectory_id(NAME, self.path, self.suffix),
            format=NAME,
            source_path=str(self.path),
            steps=self.steps,
            events=self.events,
            deliverable=Deliverable(
                final_message=submission if isinstance(submission, str) and submission else None
            ),
            task_id=task_id,
            instruction=self.instruction,
            model=model,
            harness="swe-agent",
            harness_version=version if isinstance(version, str) else None,
            cwd=cwd,
            usage=usage,
            clip_policy=self.options.clip or ("swe-agent-1" if self.modern else "none"),
            meta=meta,
        )

    def _history_processors(self) -> None:
        """What the model saw of old observations later: 1.x ``last_n_observations`` shows all but the last ``n``
        as ``Old environment output: (N lines omitted)`` (the saved history keeps them whole). The steps whose
        observation the last query saw elided go to ``meta["elided_later"]`` (the elided range only grows)."""
        agent = _get(self.replay, "agent")
        processors = _get(agent, "history_processors")
        if processors is None and isinstance(_get(agent, "history_processor"), dict):
            processors = [agent["history_processor"]]  # 1.0 named one processor
        if not isinstance(processors, list):
            if not self.modern:
                self.meta["history_processor"] = "not recorded in a 0.7 .traj"
            return
        self.meta["history_processors"] = [p.get("type") for p in processors if isinstance(p, dict)]
        observations: list[int] = []  # history positions of observation messages, in order
        seen_at_last_query = 0
        for pos, h in self.history:
            if h.get("is_demo"):
                continue
            if h.get("message_type") == "observation":
                observations.append(pos)
            elif h["role"] == "assistant":
                seen_at_last_query = len(observations)
        elided: set[int] = set()
        for p in processors:
            if (
                not isinstance(p, dict)
                or p.get("type") != "last_n_observations"
                or not isinstance(p.get("n"), int)
            ):
                continue
            polling = p["polling"] if isinstance(p.get("polling"), int) and p["polling"] > 0 else 1
            cut = max(0, (seen_at_last_query // polling) * polling - p["n"])
            # LastNObservations._get_omit_indices: observation_indices[1:cut] (the first is the instance message)
            elided |= {
                self.step_of_observation[pos]
                for pos in observations[1:cut]
                if pos in self.step_of_observation
            }
        if elided:
            self.meta["elided_later"] = sorted(elided)


_HARNESS_FAILURE = re.compile(
    r"EXECUTION TIMED OUT|COMMAND FAILED TO EXECUTE|BROKEN PIPE ERROR|EXECUTION FAILED OR COMMAND MALFORMED"
    r"|\AThe command .* was cancelled because it took more than"
)
"""The harness's words for a command that timed out or could not run (0.7 ``SWEEnv.step``; 1.x
``command_cancelled_timeout_template``)."""


def _failed(tool: str, output: str) -> bool:
    """The command failed by the harness's or its tool's own words (a shell line's exit status is not
    logged, so a shell step fails only when the harness says so)."""
    if _HARNESS_FAILURE.search(output):
        return True
    return tool != "bash" and (bool(_FAILED.search(output)) or "Your changes have NOT been applied" in output)


def _usage(stats: dict[str, Any]) -> TokenUsage | None:
    """``info.model_stats``: ``tokens_sent``, ``tokens_received``, ``instance_cost`` (the run's, with the
    0.7 summarizer's calls)."""

    def number(key: str) -> Any:
        value = stats.get(key)
        return value if isinstance(value, int | float) and not isinstance(value, bool) else None

    sent, received, cost = number("tokens_sent"), number("tokens_received"), number("instance_cost")
    if sent is None and received is None and cost is None:
        return None
    return TokenUsage(
        input_tokens=int(sent) if sent is not None else None,
        output_tokens=int(received) if received is not None else None,
        cost_usd=float(cost) if cost is not None else None,
    )

"""OpenHands v0 event lists: the ``traj_*.json`` files OpenHands writes with ``trajectories_path`` set.

The file is a JSON list of serialised events (``openhands/events/serialization/event.py``): an action carries
``action`` and ``args``, an observation carries ``observation``, ``content``, ``extras`` and ``cause`` (the id of
the action it answers). A runnable action (``RUNNABLE``) with its observation is a step, linked by
``cause == id``; everything else becomes an event. The server's ``GET /api/conversations/{id}/trajectory``
answer (``{"trajectory": [...]}``) and objects with a ``history`` or ``events`` list are read the same way.

An evaluation harness's ``output.jsonl`` (one ``EvalOutput`` a line, ``evaluation/utils/shared.py``: SWE-bench,
Multi-SWE-bench, ... run by ``CodeActAgent``) is read a trajectory per line (detected by content, whatever its
name: :mod:`rtlab.ingest.readers._openhands_eval`): its ``history`` is such an event list, ``instance_id`` the
task, ``metadata.llm_config.model`` the model, the version in ``metadata.eval_output_dir`` the harness version,
``metrics`` the usage, and ``test_result`` (the patch), ``error`` and the line number go to ``meta``. Steps and
events of a line carry that line; errors name ``history[i]``.

What the model saw: OpenHands cuts observations in the middle (:class:`rtlab.ingest._clipping.OpenHandsClip`) except
browser and file-read observations, which ``CodeActAgent`` / ``ConversationMemory`` pass whole. For browser
steps the 0.14.x agent sent the page's accessibility tree (``get_agent_obs_text``), which the trajectory file
does not keep, so ``shown`` there is the logged page text (noted in ``meta["shown_note"]``). The prefix and
suffix OpenHands wraps around an observation (``OBSERVATION:``, ``[Command finished with exit code N]``,
the interpreter prompt) are not part of ``shown``.
"""

from __future__ import annotations

import ast
import re
import warnings
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest._clipping import OPENHANDS_TRUNCATION_MARKER, get_policy
from rtlab.ingest.readers._base import ReadOptions, call_command, parse_arguments, read_command, typed
from rtlab.ingest.readers._frames import SDK_CLIP_MARKER, output_frames, read_tool_reply
from rtlab.ingest.readers._openhands_eval import (
    eval_generation,
    is_eval_output,
    iter_eval_lines,
    may_hold_histories,
    metrics_usage,
    v0_version,
)
from rtlab.ingest.readers._registry import FileFacts
from rtlab.ingest.readers._tolerant import SKIPPED_ERRORS, skipped_because
from rtlab.io import field, head_text, load_json
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

NAME = "openhands"
LOOKS_FOR = (
    "a JSON file (any name) holding an OpenHands v0 event list (objects with id, source and action/observation), "
    "or an object wrapping one under trajectory/history/events; or a V0 evaluation output.jsonl"
)
DEFAULT_CLIP = "openhands-v0"

RUNNABLE = frozenset(
    {"run", "run_ipython", "read", "write", "edit", "browse", "browse_interactive", "call_tool_mcp"}
)
"""Action types that execute something (``runnable = True`` in ``openhands/events/action/*.py``)."""

UNCLIPPED = frozenset({"browse", "read"})
"""Observation types OpenHands hands to the model without ``truncate_content``."""

WRAPPER_KEYS = ("trajectory", "history", "events")

ACTION_KINDS: dict[str, EventKind] = {
    "message": "message",
    "system": "system",
    "finish": "message",
    "reject": "message",
    "think": "reasoning",
    "recall": "other",
    "delegate": "other",
    "condensation": "compaction",
    "condensation_request": "compaction",
    "summarize": "compaction",
    "change_agent_state": "system",
    "task_tracking": "plan",
    "null": "other",
}

OBSERVATION_KINDS: dict[str, EventKind] = {
    "error": "error",
    "agent_state_changed": "system",
    "condense": "compaction",
    "recall": "system",
    "think": "reasoning",
    "task_tracking": "plan",
    "message": "message",
    "chat": "message",
    "null": "other",
}

_TASK_FILE = re.compile(r"^traj_(?P<task>.+?)-image(?:-(?P<suffix>.+))?$")
_SOURCES = ("agent", "user", "environment")


def sniff(path: Path) -> bool:
    """A JSON file (any name) whose head shows OpenHands events: ``id``, ``source`` and ``action``/``observation``;
    or an evaluation ``output.jsonl`` (any name) whose first history holds such events."""
    if eval_generation(path) == "v0":
        return True
    head = head_text(path, 65536)
    if head.startswith("{"):
        keys = "|".join(WRAPPER_KEYS)
        if not re.search(rf'"(?:{keys})"\s*:\s*\[\s*\{{', head):
            return False
    elif not re.match(r"\[\s*\{", head):
        return False
    return bool(
        re.search(r'"id"\s*:\s*-?\d', head)
        and re.search(rf'"source"\s*:\s*"(?:{"|".join(_SOURCES)})"', head)
        and re.search(r'"(?:action|observation)"\s*:\s*"', head)
    )


def _event_list(
    path: Path, data: Any, *, line: int | None = None, warnings: list[str] | None = None
) -> list[dict[str, Any]]:
    """The list of event objects, unwrapped and checked for the fields linking depends on. ``line``: the
    events are the ``history`` of that line of an eval output (errors then name ``history[i]``). An event
    without them is left out and said in ``warnings`` (raised without a list); a list with none left raises."""
    if isinstance(data, dict):
        key = next((k for k in WRAPPER_KEYS if isinstance(data.get(k), list)), None)
        if key is None:
            raise ReaderError(
                path, f"expected a list of events or an object with one of {list(WRAPPER_KEYS)}"
            )
        data = data[key]
    if not isinstance(data, list):
        raise ReaderError(path, f"expected a JSON list of OpenHands events, got {type(data).__name__}")
    if not data:
        raise ReaderError(path, "the event list is empty")
    seen: dict[int, int] = {}
    kept: list[dict[str, Any]] = []
    first: ReaderError | None = None
    for pos, ev in enumerate(data, 1):
        at, where = _position(pos - 1, line)
        try:
            _check_event(path, ev, at, where, seen, pos)
        except ReaderError as exc:
            if warnings is None:
                raise
            first = first or exc
            warnings.append(skipped_because(exc, path, at, "event"))
            continue
        kept.append(ev)
    if not kept and first is not None:
        raise first
    return kept


def _check_event(path: Path, ev: Any, at: int, where: str, seen: dict[int, int], pos: int) -> None:
    """Raise what makes ``ev`` unusable as an event: not an object, no ``id`` / ``source``, an id seen before,
    neither action nor observation, a linking field of the wrong type."""
    if not isinstance(ev, dict):
        raise ReaderError(path, f"event is {type(ev).__name__}, not an object", line=at, field=where or None)
    # each field's type tested here, and field() (which says what is wrong) called only where it is wrong
    eid = ev.get("id")
    if not isinstance(eid, int) or not isinstance(ev.get("source"), str):
        eid = field(ev, "id", int, path, at, where)
        field(ev, "source", str, path, at, where)
    if eid in seen:
        raise ReaderError(
            path,
            f"duplicate event id {eid} (first at position {seen[eid]})",
            line=at,
            field=_join(where, "id"),
        )
    if "action" in ev:
        if not isinstance(ev["action"], str):
            field(ev, "action", str, path, at, where)
    elif "observation" in ev:
        if not isinstance(ev["observation"], str):
            field(ev, "observation", str, path, at, where)
        cause = ev.get("cause")
        if cause is not None and not isinstance(cause, int):
            field(ev, "cause", int, path, at, where)
        if "content" in ev and not isinstance(ev["content"], str):
            field(ev, "content", str, path, at, where)
        if "extras" in ev and not isinstance(ev["extras"], dict):
            field(ev, "extras", dict, path, at, where)
    else:
        raise ReaderError(
            path, "event has neither 'action' nor 'observation'", line=at, field=_join(where, "action")
        )
    metadata = ev.get("tool_call_metadata")
    if metadata is not None and not isinstance(metadata, dict):
        field(ev, "tool_call_metadata", dict, path, at, where)
    seen[eid] = pos


def _position(index: int, line: int | None) -> tuple[int, str]:
    """Where event ``index`` is, for provenance and errors: its list position in an event-list file; in an eval
    output, the file's line and ``history[index]``."""
    return (index + 1, "") if line is None else (line, f"history[{index}]")


def _join(where: str, key: str) -> str:
    return f"{where}.{key}" if where else key


def _text(value: Any) -> str:
    """A thought or message as text (newer OpenHands logs some thoughts as ``{"text": ...}``)."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict) and isinstance(value.get("text"), str):
        return value["text"]
    return ""


def _exit_code(extras: dict[str, Any]) -> int | None:
    """``extras.exit_code`` (before PR 4881) or ``extras.metadata.exit_code`` (after)."""
    code = extras.get("exit_code")
    if code is None and isinstance(extras.get("metadata"), dict):
        code = extras["metadata"].get("exit_code")
    return code if isinstance(code, int) and not isinstance(code, bool) else None


def _working_dir(extras: dict[str, Any]) -> str | None:
    meta = extras.get("metadata")
    wd = meta.get("working_dir") if isinstance(meta, dict) else None
    return wd if isinstance(wd, str) and wd else None


def command_for(action: str, args: dict[str, Any], path: Path, line: int, where: str = "args") -> str:
    """The command string for a runnable action (``run`` -> its shell command, ``read`` -> ``read PATH ...``);
    ``where`` names the arguments in errors."""
    if action == "run":
        return field(args, "command", str, path, line, where)
    if action == "run_ipython":
        return field(args, "code", str, path, line, where)
    if action == "browse_interactive":
        return "browse " + field(args, "browser_actions", str, path, line, where)
    if action == "browse":
        return "browse " + field(args, "url", str, path, line, where)
    if action == "read":
        return _read_command(field(args, "path", str, path, line, where), args)
    if action == "write":
        return "write " + field(args, "path", str, path, line, where)
    if action == "edit":
        target = field(args, "path", str, path, line, where)
        return ("write " if args.get("command") == "create" else "edit ") + target
    if action == "call_tool_mcp":
        name = field(args, "name", str, path, line, where)
        arguments = args.get("arguments")
        return call_command(name, arguments if isinstance(arguments, dict) else {})
    return call_command(action, args)


def _read_command(target: str, args: dict[str, Any]) -> str:
    """``read PATH OFFSET LIMIT`` from OpenHands' line range (:func:`_read_range`)."""
    return read_command(target, *_read_range(args))


def _read_range(args: dict[str, Any]) -> tuple[int | None, int | None]:
    """``(offset, limit)`` (1-based first line, line count) of OpenHands' line range: ``view_range`` [first,
    last] (1-based, last -1 = to the end) or ``start``/``end`` (0-based start, exclusive end, -1 = to the end)."""
    rng = args.get("view_range")
    if isinstance(rng, list) and len(rng) == 2 and all(isinstance(v, int) for v in rng):
        first, last = rng
        return first, None if last == -1 else last - first + 1
    start, end = args.get("start", 0), args.get("end", -1)
    start = start if isinstance(start, int) else 0
    end = end if isinstance(end, int) else -1
    if start == 0 and end == -1:
        return None, None
    return start + 1, None if end == -1 else end - start


def type_step(step: Step) -> None:
    """OpenHands' actions in harness-neutral terms: ``run`` is a shell command line (its output may begin with
    the terminal's echo of it); ``run_ipython`` is Python code, or a ``file_editor(...)`` call that views a
    file (a read) or changes one; ``read`` shows a file (with the editor's ``cat -n`` header, or a folder
    view); ``write`` and ``edit`` change a file. Frames: OpenHands' middle-cut marker, the echo, the header."""
    tool, args, shown, command = step.tool, step.args, step.shown or "", step.command or ""
    path = args.get("path")
    if tool == "run":
        step.action = Action.shell(command)
        step.frames = output_frames(shown, command, clipped=step.clipped, harness="openhands")
    elif tool == "run_ipython":
        editor = _file_editor(command)
        if editor is None:
            step.action = Action("script", command=command, language="python")
            step.frames = output_frames(shown, command, clipped=step.clipped, harness="openhands")
        elif editor[0] == "view":
            step.action, step.frames = read_tool_reply(
                shown, editor[1], clipped=step.clipped, harness="openhands"
            )
        else:
            step.action = Action("write", path=editor[1])
    elif tool == "read" and isinstance(path, str):
        step.action, step.frames = read_tool_reply(shown, path, clipped=step.clipped, harness="openhands")
        if step.action.kind == "read":
            step.action = Action.read(path, *_read_range(args))
    elif tool in ("write", "edit") and isinstance(path, str):
        step.action = Action("write" if command.startswith("write ") else "edit", path=path)
    else:
        step.action = Action.other(tool)


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: an
    evaluation output's trajectories are its lines' histories (:func:`may_hold_histories`: a history, not
    empty, on a line :func:`rtlab.io.iter_json_lines` gives; its refusal :func:`read` lets out); any other file is one document (read as :func:`read` reads it), a list of events or an object holding one
    under a :data:`WRAPPER_KEYS` key (:func:`_event_list` refuses anything else)."""
    if is_eval_output(facts.path):
        return may_hold_histories(facts.lines)
    doc = facts.document
    return (
        isinstance(doc, list)
        or isinstance(doc, dict)
        and any(isinstance(doc.get(k), list) for k in WRAPPER_KEYS)
    )


@typed(type_step)  # every step typed (after type_step: the decorator needs it)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory per event-list file, or per line of an evaluation output."""
    path = Path(path)
    if is_eval_output(path):
        return _read_eval(path, options)
    warnings: list[str] = []
    events = _event_list(path, load_json(path, warnings), warnings=warnings)
    t = _Builder(path, events, options).build()
    if warnings:
        t.meta["warnings"] = [*warnings, *t.meta.get("warnings", [])]
    return [t]


def _read_eval(path: Path, options: ReadOptions) -> list[Trajectory]:
    """An evaluation ``output.jsonl`` (``EvalOutput`` per line, evaluation/utils/shared.py): each line's
    ``history`` read as an event list, with the line's instance id, model, version, metrics and results."""
    warnings: list[str] = []
    found: list[Trajectory] = []
    for ev in iter_eval_lines(NAME, path, warnings):
        events = _event_list(path, ev.history, line=ev.line, warnings=warnings) if ev.history else []
        t = _Builder(path, events, options, line=ev.line).build()
        llm = ev.metadata.get("llm_config")
        model = llm.get("model") if isinstance(llm, dict) else None
        if isinstance(model, str) and model:
            responses = t.meta.pop("models", None) or ([t.model] if t.model else [])
            if responses and responses != [model]:
                t.meta["response_models"] = responses
            t.model = model
        t.id, t.task_id = ev.id, ev.instance_id
        t.instruction = t.instruction or ev.text("instruction")
        t.harness_version = v0_version(ev.metadata.get("eval_output_dir"))
        t.usage = metrics_usage(ev.record.get("metrics")) or t.usage
        t.meta.update(ev.meta())
        if not events:
            t.meta.setdefault("warnings", []).append(f"line {ev.line}: the history is empty")
        found.append(t)
    for t in found:
        if warnings:
            t.meta.setdefault("warnings", []).extend(warnings)
    return found


def _file_editor(code: str) -> tuple[str, str] | None:
    """``(sub-command, path)`` of a ``file_editor(**{...})`` call in ``run_ipython`` code, or ``None``."""
    if "file_editor" not in code:
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(code)
    except (SyntaxError, ValueError, RecursionError):
        return None
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "file_editor":
            values: dict[str, object] = {}
            for kw in node.keywords:
                try:
                    if kw.arg is None:
                        values.update(ast.literal_eval(kw.value))
                    else:
                        values[kw.arg] = ast.literal_eval(kw.value)
                except (ValueError, TypeError, SyntaxError):
                    continue
            sub, path = values.get("command"), values.get("path")
            if isinstance(sub, str) and isinstance(path, str):
                return sub, path
    return None


def _model_response(ev: dict[str, Any]) -> dict[str, Any] | None:
    tcm = ev.get("tool_call_metadata")
    resp = tcm.get("model_response") if isinstance(tcm, dict) else None
    return resp if isinstance(resp, dict) else None


def _usage(events: list[dict[str, Any]]) -> TokenUsage | None:
    """Token counts summed once per model response (one response can carry several tool calls), each count
    over the responses that give it (``None`` when none does), as ``TokenUsage``'s ``+`` sums them."""
    seen: set[str] = set()
    counts: dict[str, list[int]] = {
        "input_tokens": [],
        "output_tokens": [],
        "cached_input_tokens": [],
        "reasoning_tokens": [],
        "total_tokens": [],
    }
    for ev in events:
        resp = _model_response(ev)
        if resp is None or not isinstance(resp.get("usage"), dict):
            continue
        rid = str(resp.get("id"))
        if rid in seen:
            continue
        seen.add(rid)
        u = resp["usage"]
        prompt_details = (
            u.get("prompt_tokens_details") if isinstance(u.get("prompt_tokens_details"), dict) else {}
        )
        compl_details = (
            u.get("completion_tokens_details") if isinstance(u.get("completion_tokens_details"), dict) else {}
        )
        cached = prompt_details.get("cached_tokens")
        if cached is None:
            cached = u.get("cache_read_input_tokens")
        one = {
            "input_tokens": _int(u.get("prompt_tokens")),
            "output_tokens": _int(u.get("completion_tokens")),
            "cached_input_tokens": _int(cached),
            "reasoning_tokens": _int(compl_details.get("reasoning_tokens")),
            "total_tokens": _int(u.get("total_tokens")),
        }
        for name, count in one.items():
            if count is not None:
                counts[name].append(count)
    total = TokenUsage(**{k: sum(v) if v else None for k, v in counts.items()}) if seen else None
    costs = [
        ev["llm_metrics"]["accumulated_cost"]
        for ev in events
        if isinstance(ev.get("llm_metrics"), dict)
        and isinstance(ev["llm_metrics"].get("accumulated_cost"), int | float)
    ]
    if costs:
        total = (total or TokenUsage()) + TokenUsage(cost_usd=float(max(costs)))
    return total


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _final_message(args: dict[str, Any], ev: dict[str, Any]) -> str:
    """``final_thought``, else ``outputs.content``, else ``thought``, else the event's message."""
    outputs = args.get("outputs")
    content = outputs.get("content") if isinstance(outputs, dict) else None
    for candidate in (args.get("final_thought"), content, _text(args.get("thought")), ev.get("message")):
        if isinstance(candidate, str) and candidate.strip():
            return candidate
    return ""


class _Builder:
    """Walks one event list in order, pairing runnable actions with the observations that name them."""

    def __init__(
        self, path: Path, events: list[dict[str, Any]], options: ReadOptions, *, line: int | None = None
    ):
        self.path = path
        self.events = events
        self.line = line
        self.policy = get_policy(options.clip or DEFAULT_CLIP)
        self.steps: list[Step] = []
        self.timeline: list[Event] = []
        self.warnings: list[str] = []
        self.seq = 0
        self.answer: dict[int, int] = self._answers()
        self.consumed = set(self.answer.values())
        self.final_message: str | None = None
        self.last_agent_message: str | None = None

    def _answers(self) -> dict[int, int]:
        """Action id -> list index of the first observation whose ``cause`` is that id (runnable agent actions)."""
        runnable = {
            ev["id"] for ev in self.events if ev.get("action") in RUNNABLE and ev.get("source") == "agent"
        }
        out: dict[int, int] = {}
        position = {ev["id"]: i for i, ev in enumerate(self.events)}
        for i, ev in enumerate(self.events):
            cause = ev.get("cause") if "observation" in ev else None
            if cause is not None and cause in runnable and cause not in out:
                out[cause] = i
                if position[cause] > i:
                    line, _ = _position(i, self.line)
                    self.warnings.append(
                        f"{self.path}:{line}: observation {ev['id']} came before its action (event {cause}, a "
                        "log out of order); paired by its cause"
                    )
        return out

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq - 1

    def build(self) -> Trajectory:
        ids = {ev["id"] for ev in self.events}
        shell_dir: str | None = None  # the bash session's directory as last reported (newer logs only)
        for i, ev in enumerate(self.events):
            try:  # what _tolerant.record does, without an object an event
                if "action" not in ev:
                    if i not in self.consumed:
                        self._observation_event(i, ev, ids)
                elif ev["action"] in RUNNABLE and ev["source"] == "agent":
                    self._step(i, ev, shell_dir if ev["action"] == "run" else None)
                    j = self.answer.get(ev["id"])
                    if j is not None:
                        shell_dir = _working_dir(self.events[j].get("extras") or {}) or shell_dir
                else:
                    self._action_event(i, ev)
            except SKIPPED_ERRORS as exc:
                self.warnings.append(skipped_because(exc, self.path, _position(i, self.line)[0], "event"))
        return self._trajectory()

    def _step(self, i: int, ev: dict[str, Any], cwd: str | None) -> None:
        line, where = _position(i, self.line)
        args, args_error = parse_arguments(ev.get("args"))
        thought = _text(args.get("thought"))
        if thought.strip():
            self.timeline.append(
                Event(
                    kind="reasoning",
                    text=thought,
                    role="assistant",
                    seq=self.next_seq(),
                    timestamp=ev.get("timestamp"),
                    line=line,
                    data={"id": ev["id"], "action": ev["action"]},
                )
            )
        if args_error:
            command = f"{ev['action']} {args.get('_raw')}"
        else:
            command = command_for(ev["action"], args, self.path, line, _join(where, "args"))
        step = Step(
            index=len(self.steps),
            tool=ev["action"],
            command=command,
            args=args,
            args_error=args_error,
            call_id=str(ev["id"]),
            cwd=cwd,
            started_at=ev.get("timestamp"),
            seq=self.next_seq(),
            line=line,
        )
        j = self.answer.get(ev["id"])
        if j is not None:
            self._fill_result(step, self.events[j])
        self.steps.append(step)

    def _fill_result(self, step: Step, obs: dict[str, Any]) -> None:
        extras = obs.get("extras") or {}
        output = obs.get("content", "")
        step.output = output
        if obs["observation"] in UNCLIPPED:
            step.shown = output
        else:
            step.shown = self.policy.apply(output)
        step.clipped = (
            step.shown != output
            or OPENHANDS_TRUNCATION_MARKER in output
            or SDK_CLIP_MARKER.search(output) is not None
        )
        step.exit_code = _exit_code(extras)
        step.is_error = (
            obs["observation"] in ("error", "user_rejected")
            or (step.exit_code is not None and step.exit_code != 0)
            or extras.get("error") is True
        )
        step.ended_at = obs.get("timestamp")

    def _action_event(self, i: int, ev: dict[str, Any]) -> None:
        action, source = ev["action"], ev["source"]
        args, _ = parse_arguments(ev.get("args"))
        kind = ACTION_KINDS.get(action, "other")
        data: dict[str, Any] = {"id": ev["id"], "action": action}
        role: str | None = None
        if action == "message":
            text = _text(args.get("content")) or _text(ev.get("message"))
            role = "user" if source == "user" else "assistant"
            if source == "agent":
                self.last_agent_message = text
        elif action == "finish":
            text = _final_message(args, ev)
            role = "assistant"
            self.final_message = text
            for key in ("outputs", "task_completed"):
                if args.get(key) not in (None, {}, ""):
                    data[key] = args[key]
        elif action == "think":
            text, role = _text(args.get("thought")), "assistant"
        elif action == "system":
            text, role = _text(args.get("content")), "system"
        else:
            text = _text(ev.get("message"))
            if action == "change_agent_state":
                data["agent_state"] = args.get("agent_state")
            if action not in ACTION_KINDS and action not in RUNNABLE:
                self.warnings.append(f"event {ev['id']}: unknown action type {action!r} kept as an event")
        if action in RUNNABLE:
            data["source"] = source
        self.timeline.append(
            Event(
                kind=kind,
                text=text or "",
                role=role,
                seq=self.next_seq(),
                timestamp=ev.get("timestamp"),
                line=_position(i, self.line)[0],
                data=data,
            )
        )

    def _observation_event(self, i: int, ev: dict[str, Any], ids: set[int]) -> None:
        obs = ev["observation"]
        if ev.get("cause") is not None and ev["cause"] not in ids:
            self.warnings.append(f"event {ev['id']}: cause {ev['cause']} names no event in the file")
        extras = ev.get("extras") or {}
        data: dict[str, Any] = {"id": ev["id"], "observation": obs}
        if ev.get("cause") is not None:
            data["cause"] = ev["cause"]
        for key in ("agent_state", "error_id", "reason"):
            if isinstance(extras.get(key), str | int | float | bool):
                data[key] = extras[key]
        text = ev.get("content") or _text(ev.get("message"))
        self.timeline.append(
            Event(
                kind=OBSERVATION_KINDS.get(obs, "other"),
                text=text or "",
                role="tool" if ev.get("cause") is not None else None,
                seq=self.next_seq(),
                timestamp=ev.get("timestamp"),
                line=_position(i, self.line)[0],
                data=data,
            )
        )

    def _written_files(self) -> list[DeliverableFile]:
        """Paths the agent wrote or edited with file tools (the log does not hold their final content)."""
        paths: list[str] = []
        for s in self.steps:
            if s.tool in ("write", "edit") and s.answered and not s.is_error:
                target = s.args.get("path")
                if isinstance(target, str) and target not in paths:
                    paths.append(target)
        return [DeliverableFile(path=p, origin="write_tool") for p in paths]

    def _trajectory(self) -> Trajectory:
        stem = self.path.stem
        m = _TASK_FILE.match(stem)
        models: list[str] = []
        for ev in self.events:
            resp = _model_response(ev)
            if resp and isinstance(resp.get("model"), str) and resp["model"] not in models:
                models.append(resp["model"])
        instruction = next(
            (
                _text(ev["args"].get("content")) or _text(ev.get("message"))
                for ev in self.events
                if ev.get("action") == "message"
                and ev["source"] == "user"
                and isinstance(ev.get("args"), dict)
            ),
            None,
        )
        meta: dict[str, Any] = {"n_events": len(self.events)}
        if m:
            meta["task_image"] = stem[len("traj_") :]
        if len(models) > 1:
            meta["models"] = models
        if any(s.tool in ("browse", "browse_interactive") for s in self.steps):
            meta["shown_note"] = (
                "browser steps: OpenHands passes browser observations uncut, but in 0.14.x the model received "
                "the page's accessibility tree, which the trajectory file does not keep; shown is the logged "
                "page text"
            )
        if self.warnings:
            meta["warnings"] = self.warnings
        stamps = [ev["timestamp"] for ev in self.events if isinstance(ev.get("timestamp"), str)]
        return Trajectory(
            id=f"{NAME}:{stem}",
            format=NAME,
            source_path=str(self.path),
            steps=self.steps,
            events=self.timeline,
            deliverable=Deliverable(
                final_message=self.final_message
                if self.final_message is not None
                else self.last_agent_message,
                files=self._written_files(),
            ),
            task_id=m.group("task") if m else None,
            instruction=instruction,
            model=models[0] if models else None,
            harness="openhands",
            started_at=stamps[0] if stamps else None,
            ended_at=stamps[-1] if stamps else None,
            usage=_usage(self.events),
            clip_policy=self.policy.name,
            meta=meta,
        )

"""Harbor's ATIF (Agent Trajectory Interchange Format), read and written.

ATIF is the trajectory format of the Harbor framework (RFC 0001, ``docs/rfcs/0001-trajectory-format.md`` in
laude-institute/harbor; the v1.4 and v1.5 texts are in ``shared/real/wild/atif/SPEC__*.md``) and of tools that
convert to it. Its Pydantic models (harbor ``src/harbor/models/trajectories/*.py``, read in the harbor 0.26.0
wheel) define versions up to ATIF-v1.8. A trajectory is an object::

    {"schema_version": "ATIF-v1.5", "session_id": ..., "trajectory_id": ... (v1.7), "agent": {"name",
     "version", "model_name", "tool_definitions", "extra"}, "steps": [...], "notes", "final_metrics",
     "continued_trajectory_ref", "extra", "subagent_trajectories" (v1.7)}

and each step ``{"step_id": 1.., "timestamp", "source": "system"|"user"|"agent", "model_name", "message":
str | [content parts] (v1.6), "reasoning_content", "tool_calls": [{"tool_call_id", "function_name",
"arguments", "extra" (v1.7)}], "observation": {"results": [{"source_call_id", "content",
"subagent_trajectory_ref", "extra" (v1.7)}]}, "metrics": {"prompt_tokens" (cached included),
"completion_tokens", "cached_tokens", "cost_usd", ..., "extra"}, "is_copied_context", "extra"}``.

Layouts read (the content decides, never the file name): one trajectory object in a file; a JSON **array**
of trajectories (openagents' ``sample-trajectories.json``); one trajectory per line; and openagents'
streamed JSONL (``src/atif/streaming-writer.ts``): a first line ``{"__header__": true, "schema_version",
"session_id", "agent", "created_at", "parent_session_id"}`` then one step per line, with ``final_metrics`` in
the ``<session>.index.json`` written beside it (read when present). Embedded ``subagent_trajectories`` (v1.7)
become their own trajectories with ``parent_id`` and the ``parent_call_id`` of the call whose result names
them.

``Step.line`` is the step's position in ``steps`` (from 1) in a JSON document, its file line in JSON lines.

Steps (inspect_scout ``src/inspect_scout/sources/_atif/events.py`` maps ATIF to chat messages the same way):
an agent step's ``tool_calls`` are answered by the ``observation.results`` naming them in
``source_call_id``; a result without an id answers the step's unanswered calls in order (counted in
``meta["results_by_order"]``); a result answering no call is kept as a ``tool`` event. ``system`` and
``user`` steps, agent messages and ``reasoning_content`` become events (a system step whose ``extra`` has
``context_management`` is a compaction, as inspect_scout reads it); the first user message is the
instruction. The root's and the agent's ``extra`` are kept in ``meta``, a step's in its events' ``data``.

Terminus 2 (harbor ``src/harbor/agents/terminus_2/terminus_2.py``) answers a model's turn with a JSON (or
XML) object ``{"analysis", "plan", "commands": [{"keystrokes", "duration"}], "task_complete"}`` whose
keystrokes it types into a tmux pane; the pane's new text is the observation. Its ATIF holds the batch as
``bash_command`` tool calls (``{"keystrokes", "duration"}``) whose one shared result has no
``source_call_id`` when the batch had several commands; in ``raw_content`` mode, and in exports of its chat
history (OpenThoughts-Agent), there are no tool calls and the keystrokes are in the agent's message. rtlab
reads every such batch as **one shell step** (tool ``bash_command``; several calls merged, their ids in the
args): its command is the command lines the keystrokes typed, its output the pane's text, which is in the
step's observation or, in chat-history exports, in the next user step (one that opens as Terminus 2's
observations do: ``New Terminal Output:``, ``Current Terminal Screen:``, ``Current terminal state:``, a
warnings or timeout notice). :func:`type_step` splits the pane into each command's output between the shell
prompts (``_frames.terminal_parts``).

What the model saw: an ATIF observation is what the producer recorded as the tool's result, which for
Harbor's agents is what went back to the model (Terminus 2 already cut to 10000 bytes, its marker kept), so
the default clip policy is ``none`` and a known clip marker in the text marks the step clipped. Harbor's
Claude Code adapter writes the tool result followed by ``[stdout]``/``[stderr]``/``[metadata]`` chunks of its
own (``agents/installed/claude_code.py`` ``_format_tool_result``); those are not framed. Token usage: the
``final_metrics`` totals where given, field by field, else the steps' ``metrics`` summed.

:func:`write_atif` writes a trajectory of any format as ATIF-v1.5 (:data:`EXPORT_VERSION`), the newest
version the RFC texts at hand define (v1.6-v1.8 add multimodal parts, ``trajectory_id``, per-call ``extra``
and embedded sub-agents, none of which the export needs, and a v1.5 file is valid for every Harbor since):
one ATIF step per rtlab step (an agent step with one tool call and, when answered, its result: what the
model was shown) or event. The facts ATIF has no field for (the logged output where it differs from what
was shown, clipping, frames, typed action, exit code, deliverable files, task id, run labels, ...) go under
``extra["rtlab"]``, so reading the file back gives the same steps.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, TypeGuard

from rtlab.errors import ReaderError, RtlabError
from rtlab.ingest._clipping import ClipPolicy
from rtlab.ingest.readers._base import ReadOptions, call_command, compact_json, parse_arguments, typed
from rtlab.ingest.readers._frames import has_clip_marker, terminal_cwd, terminal_parts
from rtlab.ingest.readers._openai_common import (
    clip_policy,
    step_command,
    written_files,
)
from rtlab.ingest.readers._openai_common import type_step as generic_type_step
from rtlab.ingest.readers._registry import FileFacts
from rtlab.ingest.readers._tolerant import SKIPPED_ERRORS, skipped_because
from rtlab.io import atomic_open, head_text, iter_json_lines, load_json, parse_json, read_text
from rtlab.records import (
    SCHEMA,
    SCHEMA_VERSION,
    Action,
    Deliverable,
    Event,
    EventKind,
    Step,
    TokenUsage,
    Trajectory,
    trajectory_from_dict,
    trajectory_to_dict,
)

NAME = "atif"
LOOKS_FOR = (
    'JSON with "schema_version": "ATIF-v..." in its first 64 KiB: one trajectory, an array of them, one per '
    'line, or JSON lines opening with {"__header__": true, ...} (any file name)'
)

KNOWN_VERSIONS = tuple(f"ATIF-v1.{n}" for n in range(9))
"""The versions harbor 0.26.0's ``Trajectory.schema_version`` accepts."""
EXPORT_VERSION = "ATIF-v1.5"
"""The version :func:`write_atif` writes."""
EXPORT_SCHEMA = "rtlab.atif-export"
"""``extra["rtlab"]["schema"]`` of files rtlab wrote: their steps are restored from ``extra["rtlab"]``."""

_SOURCES = ("system", "user", "agent")
_SNIFF_BYTES = 65536
_VERSION_KEY = re.compile(r'"schema_version"\s*:\s*"ATIF-')
"""``schema_version`` as a key with an ATIF value; a key when its opening quote is not escaped (not inside a
JSON string: :func:`_names_version`). Opening with its words, so that a search finds them at C speed (a
look-behind in front would make it try every position)."""


def _names_version(head: str) -> bool:
    """Whether ``head`` holds :data:`_VERSION_KEY` whose opening quote is not escaped (the first such)."""
    pos = 0
    while (m := _VERSION_KEY.search(head, pos)) is not None:
        if m.start() == 0 or head[m.start() - 1] != "\\":
            return True
        pos = m.start() + 1
    return False


# ---------------------------------------------------------------------------------------------------------
# Sniffing


def sniff(path: Path) -> bool:
    """JSON (or JSON lines) whose first 64 KiB name an ATIF ``schema_version`` as a key, whatever the name."""
    head = head_text(path, _SNIFF_BYTES)
    if not (head.startswith("{") or re.match(r"\[\s*\{", head)):
        return False
    return _names_version(head)


# ---------------------------------------------------------------------------------------------------------
# Terminus 2's keystrokes

_TMUX_ENTER = frozenset({"Enter", "C-m", "KPEnter", "C-j", "^M", "^J"})
"""Keys tmux sends as Enter (terminus_2 ``tmux_session.py`` ``_ENTER_KEYS``)."""
_TMUX_KEY = re.compile(
    r"^(?:[CMS]-\S|\^\S|Escape|Tab|BTab|BSpace|Space|Up|Down|Left|Right|Home|End|PageUp|PageDown|PPage|NPage"
    r"|IC|DC|F\d{1,2})$"
)
"""A keystroke string tmux ``send-keys`` reads as a key name, not as text."""
_TERMINAL_OPENING = re.compile(
    r"(?:Current terminal state:\n|New Terminal Output:\n|Current Terminal Screen:\n"
    r"|Previous response had warnings:\n|Previous command:\n)"
)
"""How Terminus 2's observations open: a user step opening so answers the keystrokes before it."""


def keystrokes(args: dict[str, Any]) -> list[str] | None:
    """The keystrokes of a Terminus 2 call: ``{"keystrokes"}`` (one ``bash_command`` call) or ``{"commands":
    [{"keystrokes"}, ...]}`` (a batch); ``None`` when the arguments hold none."""
    if isinstance(args.get("keystrokes"), str):
        return [args["keystrokes"]]
    commands = args.get("commands")
    if isinstance(commands, list) and commands:
        keys = [c.get("keystrokes") for c in commands if isinstance(c, dict)]
        if len(keys) == len(commands) and all(isinstance(k, str) for k in keys):
            return keys  # type: ignore[return-value]
    return None


def typed_lines(keys: list[str]) -> list[str]:
    """The command lines keystrokes typed and ran: text up to each newline (or Enter key); another key
    (``C-c``) drops the line being typed; text typed after the last newline never ran."""
    lines: list[str] = []
    current = ""
    for k in keys:
        if k in _TMUX_ENTER:
            lines.append(current)
            current = ""
        elif _TMUX_KEY.match(k):
            current = ""
        else:
            *done, current = (current + k).split("\n")
            lines.extend(done)
    return lines


def _message_commands(text: str) -> list[dict[str, Any]] | None:
    """The ``commands`` of a Terminus 2 reply: the first JSON object in the text with a ``commands`` list and
    an ``analysis`` or ``plan`` (the parser's required fields, ``terminus_json_plain_parser.py``), or the
    ``<keystrokes>`` inside an XML reply's ``<commands>`` (``terminus_xml_plain_parser.py``: raw text)."""
    decoder = json.JSONDecoder()
    pos = text.find("{")
    while pos >= 0:
        try:
            value, _ = decoder.raw_decode(text, pos)
        except ValueError:
            value = None
        if (
            isinstance(value, dict)
            and isinstance(value.get("commands"), list)
            and ("analysis" in value or "plan" in value)
        ):
            commands = [
                c for c in value["commands"] if isinstance(c, dict) and isinstance(c.get("keystrokes"), str)
            ]
            return commands or None
        pos = text.find("{", pos + 1)
    if "<keystrokes" in text and "<commands>" in text:
        found = re.findall(r"<keystrokes([^>]*)>(.*?)</keystrokes>", text, re.S)
        out = []
        for attrs, keys in found:
            m = re.search(r'duration="([\d.]+)"', attrs)
            out.append({"keystrokes": keys, **({"duration": float(m.group(1))} if m else {})})
        return out or None
    return None


# ---------------------------------------------------------------------------------------------------------
# Typing steps


def _generic_name(tool: str) -> str:
    """The tool's name as the generic rules know it: ``Read``, ``Bash`` (Claude Code) are ``read``, ``bash``."""
    return tool.lower()


def type_step(step: Step) -> None:
    """ATIF steps in harness-neutral terms: Terminus 2 keystrokes (any call whose arguments hold
    ``keystrokes``) are a shell step, one part per command line found echoed in the pane, framed by
    ``_frames.terminal_parts``; ``execute_ipython_cell`` (OpenHands' CodeAct tool as Harbor logs it) runs
    Python; every other call is typed by the generic rules of tool-calling logs (``_openai_common``), on its
    lower-cased name."""
    keys = keystrokes(step.args)
    shown = step.shown or ""
    if keys is not None:
        lines = typed_lines(keys)
        if not any(line.strip() for line in lines):
            step.action = Action.other(step.tool)
            step.frames = terminal_parts(shown, [], clipped=step.clipped)[1]
            return
        parts, frames = terminal_parts(shown, lines, clipped=step.clipped)
        step.action = (
            Action("shell", command=step.command, parts=parts) if parts else Action.shell(step.command)
        )
        step.frames = frames
        return
    if step.tool == "execute_ipython_cell" and isinstance(step.args.get("code"), str):
        step.action = Action("script", command=step.args["code"], language="python")
        return
    name = _generic_name(step.tool)
    if name == step.tool:  # the generic rules set the action and frames only: the step itself is typed
        generic_type_step(step)
        return
    probe = replace(step, tool=name)
    generic_type_step(probe)
    step.action, step.frames = probe.action, probe.frames


def _command(tool: str, args: dict[str, Any]) -> str:
    """Step.command: the command lines typed for keystrokes, else the generic rule on the lower-cased name."""
    keys = keystrokes(args)
    if keys is not None:
        lines = [line for line in typed_lines(keys) if line.strip()]
        return "\n".join(lines) if lines else call_command(tool, args)
    if set(args) == {"_raw"}:
        return call_command(tool, args)
    name = _generic_name(tool)
    command = step_command(name, args)
    generic = call_command(name, args)
    # call_command is the tool's name, then what its arguments give: the same after either name
    return tool + generic[len(name) :] if command == generic else command


# ---------------------------------------------------------------------------------------------------------
# Reading


def _is_version(value: Any) -> TypeGuard[str]:
    """Whether a trajectory object's ``schema_version`` names an ATIF version (else it is refused)."""
    return isinstance(value, str) and value.startswith("ATIF-")


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: the file's
    trajectory objects (:func:`_documents`: the file as one document, an object or a list of them, else its
    lines, a stream's header among them) are read only when one names an ATIF version; whichever reading
    :func:`read` takes, an object with one is among the document's or the lines' values."""
    doc = facts.document
    values = doc if isinstance(doc, list) else [doc]
    return any(isinstance(v, dict) and _is_version(v.get("schema_version")) for v in [*values, *facts.lines])


@typed(type_step)  # every step typed (after type_step: the decorator needs it)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """Every trajectory in the file (embedded sub-agents after their parent)."""
    path = Path(path)
    docs = _documents(path)
    ids = [_base_id(doc.data, path) for doc in docs]
    out: list[Trajectory] = []
    for k, doc in enumerate(docs):
        tid = ids[k] if ids.count(ids[k]) == 1 else f"{ids[k]}:{k + 1}"
        out.extend(_Builder(path, doc, options, tid).build())
    return out


@dataclass
class _Document:
    """One trajectory object of a file, where it is, and how to name its steps' lines and fields."""

    data: dict[str, Any]
    where: str
    """Field path of the object in the file (``[2]`` in an array; empty for a whole file or a line)."""
    line: int | None
    """Its line, for a trajectory per line or a stream's header; ``None`` for a JSON document."""
    step_lines: list[int] | None = None
    """A stream's steps' file lines."""
    layout: str = "object"
    """``object``, ``array``, ``lines`` (a trajectory per line) or ``stream`` (a header, then steps)."""
    warnings: list[str] = field(default_factory=list)
    """What reading the file's lines found (a cut-off last line)."""
    index_status: str | None = None
    """A stream's ``status`` in the index file beside it."""


def _documents(path: Path) -> list[_Document]:
    """The trajectory objects of a file in any of its layouts (see the module docstring)."""
    warnings: list[str] = []
    text = read_text(path, warnings)
    if not text.strip():
        raise ReaderError(path, "file is empty")
    try:
        doc = parse_json(text)
    except json.JSONDecodeError:
        first = text.lstrip("\ufeff \t\r\n").split("\n", 1)[0]
        try:
            parse_json(first)
        except json.JSONDecodeError:
            doc = load_json(path, warnings)  # one document, read as far as it can be repaired
        else:
            return _lines(path)  # JSON lines: their faults (bytes included) said by iter_json_lines
    if warnings and isinstance(doc, dict | list):
        found = _from_document(path, doc)
        found[0].warnings.extend(warnings)
        return found
    return _from_document(path, doc)


def _from_document(path: Path, doc: Any) -> list[_Document]:
    """The trajectory objects of a file that is one JSON document."""
    if isinstance(doc, dict):
        if doc.get("__header__") is True:  # a stream of a header alone
            return [_stream(path, [(1, doc)], [])]
        return [_Document(doc, "", None)]
    if isinstance(doc, list):
        if not doc:
            raise ReaderError(path, "the file holds an empty list, not ATIF trajectories")
        for k, item in enumerate(doc):
            if not isinstance(item, dict):
                raise ReaderError(
                    path, f"expected an ATIF trajectory object, got {type(item).__name__}", field=f"[{k}]"
                )
        return [_Document(item, f"[{k}]", None, layout="array") for k, item in enumerate(doc)]
    raise ReaderError(path, f"expected an ATIF trajectory object, got JSON {type(doc).__name__}")


def _lines(path: Path) -> list[_Document]:
    warnings: list[str] = []
    values = list(iter_json_lines(path, warnings))
    if not values:
        raise ReaderError(path, "no JSON lines")
    line, first = values[0]
    if isinstance(first, dict) and first.get("__header__") is True:
        doc = _stream(path, values[:1], values[1:])
        doc.warnings.extend(warnings)
        return [doc]
    docs = []
    for line, value in values:
        if not isinstance(value, dict):
            warnings.append(
                f"{path}:{line}: expected an ATIF trajectory object, got {type(value).__name__}; skipped"
            )
            continue
        docs.append(_Document(value, "", line, layout="lines"))
    if docs:
        docs[-1].warnings.extend(warnings)
    return docs


def _stream(path: Path, header: list[tuple[int, Any]], steps: list[tuple[int, Any]]) -> _Document:
    """openagents' streamed layout: the header's fields, then the steps, one a line."""
    _, head = header[0]
    data = {k: v for k, v in head.items() if k != "__header__"}
    data["steps"] = [value for _, value in steps]
    index = _index_file(path) or {}
    if isinstance(index.get("final_metrics"), dict) and "final_metrics" not in data:
        data["final_metrics"] = index["final_metrics"]
    status = index.get("status") if isinstance(index.get("status"), str) else None
    lines = [line for line, _ in steps]
    return _Document(data, "", header[0][0], step_lines=lines, layout="stream", index_status=status)


def _index_file(path: Path) -> dict[str, Any] | None:
    """The ``<session>.index.json`` openagents writes beside ``<session>.atif.jsonl``, if there is one."""
    if not path.name.endswith(".atif.jsonl"):
        return None
    index = path.with_name(path.name[: -len(".atif.jsonl")] + ".index.json")
    try:
        value = parse_json(index.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _base_id(data: dict[str, Any], path: Path) -> str:
    for key in ("trajectory_id", "session_id"):
        value = data.get(key)
        if isinstance(value, str) and value:
            return f"{NAME}:{value}"
    return f"{NAME}:{path.resolve().parent.name}/{path.stem}"


def _obj(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def _int(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _num(value: Any) -> float | None:
    return float(value) if isinstance(value, int | float) and not isinstance(value, bool) else None


def _metrics_usage(metrics: Any) -> TokenUsage | None:
    """A step's ``metrics`` as token usage (``prompt_tokens`` counts cached tokens too, as rtlab's input does)."""
    if not isinstance(metrics, dict):
        return None
    extra = _obj(metrics.get("extra"))
    usage = TokenUsage(
        input_tokens=_int(metrics.get("prompt_tokens")),
        output_tokens=_int(metrics.get("completion_tokens")),
        cached_input_tokens=_int(metrics.get("cached_tokens")),
        reasoning_tokens=_int(extra.get("reasoning_tokens")),
        cost_usd=_num(metrics.get("cost_usd")),
    )
    return None if usage == TokenUsage() else usage


def _final_usage(final: Any, summed: TokenUsage | None) -> TokenUsage | None:
    """``final_metrics`` totals where given, field by field; the steps' sums for the rest."""
    if not isinstance(final, dict):
        return summed
    extra = _obj(final.get("extra"))
    base = summed or TokenUsage()
    usage = TokenUsage(
        input_tokens=_pick(_int(final.get("total_prompt_tokens")), base.input_tokens),
        output_tokens=_pick(_int(final.get("total_completion_tokens")), base.output_tokens),
        cached_input_tokens=_pick(_int(final.get("total_cached_tokens")), base.cached_input_tokens),
        reasoning_tokens=_pick(_int(extra.get("reasoning_tokens")), base.reasoning_tokens),
        total_tokens=base.total_tokens,
        cost_usd=_pick(_num(final.get("total_cost_usd")), base.cost_usd),
    )
    return None if usage == TokenUsage() else usage


def _pick(first: Any, second: Any) -> Any:
    return second if first is None else first


def _content_text(value: Any) -> tuple[str, bool]:
    """A message or result as text, and whether it was of a type the spec allows: a string, or (v1.6) a list of
    content parts (``text`` parts' text; an image or audio part as ``[image: PATH]``)."""
    if value is None:
        return "", True
    if isinstance(value, str):
        return value, True
    if isinstance(value, list) and all(isinstance(p, dict) for p in value):
        texts = []
        for part in value:
            kind = part.get("type")
            if kind == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            else:
                source = part.get("source") if isinstance(part.get("source"), dict) else {}
                where = source.get("path")
                texts.append(f"[{kind}: {where}]" if isinstance(where, str) else f"[{kind}]")
        return "\n".join(texts), True
    return compact_json(value), False


# --- the rtlab records inside extra["rtlab"] --------------------------------------------------------------

_BARE = {"schema": SCHEMA, "version": SCHEMA_VERSION, "id": "", "format": "", "source_path": ""}


def _step_dict(step: Step) -> dict[str, Any]:
    return trajectory_to_dict(Trajectory(id="", format="", source_path="", steps=[step]))["steps"][0]


def _event_dict(event: Event) -> dict[str, Any]:
    return trajectory_to_dict(Trajectory(id="", format="", source_path="", events=[event]))["events"][0]


def _step_from(data: dict[str, Any], where: str) -> Step:
    return trajectory_from_dict({**_BARE, "steps": [data]}, where).steps[0]


def _event_from(data: dict[str, Any], where: str) -> Event:
    return trajectory_from_dict({**_BARE, "events": [data]}, where).events[0]


_STEP_FROM_ATIF = ("index", "tool", "args", "output", "shown", "seq", "line")
"""Step fields an export carries in ATIF's own fields (or that reading sets), not under ``extra["rtlab"]``."""
_TRAJECTORY_RESTORED = (
    "model",
    "harness",
    "harness_version",
    "usage",
    "deliverable",
    "task_id",
    "instruction",
    "method",
    "variant",
    "run",
    "cwd",
    "started_at",
    "ended_at",
    "parent_call_id",
)
"""Trajectory fields a file rtlab exported gives back as they were."""


class _Builder:
    """Walks one trajectory object's steps in order: events, tool calls and their results."""

    def __init__(
        self,
        path: Path,
        doc: _Document,
        options: ReadOptions,
        tid: str,
        parent: Trajectory | None = None,
        parent_call: str | None = None,
    ):
        self.path = path
        self.doc = doc
        self.data = doc.data
        self.options = options
        self.policy: ClipPolicy = clip_policy(options)
        self.id = tid
        self.parent = parent
        self.steps: list[Step] = []
        self.events: list[Event] = []
        self.warnings: list[str] = list(doc.warnings)
        self.pending: dict[str, list[Step]] = {}
        self.answered_ids: set[str] = set()
        self.awaiting_pane: Step | None = None  # a Terminus 2 batch whose pane is the next user step
        self.usage: TokenUsage | None = None
        self.counts: dict[str, int] = {}
        self.subagent_calls: dict[str, str] = {}  # trajectory_id -> the call whose result names it
        self.models: list[str] = []
        self.parent_call = parent_call
        self.step_ids_off = False  # a step_id out of sequence was reported (once)
        rt = self.data.get("extra", {}).get("rtlab") if isinstance(self.data.get("extra"), dict) else None
        self.rtlab = rt if isinstance(rt, dict) and rt.get("schema") == EXPORT_SCHEMA else None

    # --- where things are ------------------------------------------------------------------------------

    def line(self, i: int) -> int | None:
        if self.doc.step_lines is not None:
            return self.doc.step_lines[i]
        return self.doc.line if self.doc.line is not None else i + 1

    def where(self, i: int, key: str = "") -> str:
        prefix = (
            ""
            if self.doc.step_lines is not None
            else f"{self.doc.where}{'.' if self.doc.where else ''}steps[{i}]"
        )
        return f"{prefix}.{key}" if prefix and key else prefix or key

    def loc(self, i: int, key: str = "") -> str:
        """Where a step's field is, for warnings: its line in a JSON-lines file, then its field path."""
        where = self.where(i, key)
        if self.doc.layout in ("object", "array"):
            return where
        return f"line {self.line(i)}" + (f", {where}" if where else "")

    def error(self, i: int, message: str, key: str = "") -> ReaderError:
        return ReaderError(self.path, message, line=self.line(i), field=self.where(i, key) or None)

    def count(self, what: str) -> None:
        self.counts[what] = self.counts.get(what, 0) + 1

    # --- timeline --------------------------------------------------------------------------------------

    def seq(self) -> int:
        return len(self.steps) + len(self.events)

    def event(self, kind: EventKind, text: str, i: int, role: str | None, ts: Any, **data: Any) -> Event:
        ev = Event(
            kind=kind,
            text=text,
            role=role,
            seq=self.seq(),
            timestamp=ts if isinstance(ts, str) else None,
            line=self.line(i),
            data=data,
        )
        self.events.append(ev)
        return ev

    def call(
        self, tool: str, args: dict[str, Any], args_error: str | None, call_id: str | None, i: int, ts: Any
    ) -> Step:
        step = Step(
            index=len(self.steps),
            tool=tool,
            command=_command(tool, args),
            args=args,
            args_error=args_error,
            call_id=call_id,
            started_at=ts if isinstance(ts, str) else None,
            seq=self.seq(),
            line=self.line(i),
        )
        self.steps.append(step)
        if call_id is not None:
            if call_id in self.pending:
                self.warnings.append(
                    f"{self.loc(i)}: tool_call_id {call_id!r} is used by more than one open call"
                )
            self.pending.setdefault(call_id, []).append(step)
        return step

    def finish(self, step: Step, output: str, ts: Any, extra: Any = None) -> None:
        """Give a call its result; ``shown`` is the result under the clip policy (the result as is by default)."""
        if step.call_id is not None and step in self.pending.get(step.call_id, []):
            self.pending[step.call_id].remove(step)
            if not self.pending[step.call_id]:
                del self.pending[step.call_id]
            self.answered_ids.add(step.call_id)
        step.output = output
        step.shown = self.policy.apply(output)
        step.clipped = step.shown != output or has_clip_marker(output)
        step.ended_at = ts if isinstance(ts, str) else step.started_at
        if isinstance(extra, dict):
            flag = next(
                (extra[k] for k in ("is_error", "tool_result_is_error") if isinstance(extra.get(k), bool)),
                None,
            )
            step.is_error = bool(flag)
            step.exit_code = _int(extra.get("exit_code"))
            if step.exit_code not in (None, 0):
                step.is_error = True
        if keystrokes(step.args) is not None:
            step.cwd = terminal_cwd(step.shown or "")

    # --- building --------------------------------------------------------------------------------------

    def build(self) -> list[Trajectory]:
        version = self.data.get("schema_version")
        if not _is_version(version):
            raise ReaderError(
                self.path,
                f"schema_version is {version!r}, not an ATIF version",
                line=self.doc.line,
                field=self._top("schema_version"),
            )
        if version not in KNOWN_VERSIONS:
            self.warnings.append(
                f"schema_version {version!r} is newer than the versions rtlab knows; read as ATIF-v1.8"
            )
        agent = self.data.get("agent")
        if not isinstance(agent, dict):
            raise ReaderError(
                self.path,
                f"expected the agent object, got {type(agent).__name__}",
                line=self.doc.line,
                field=self._top("agent"),
            )
        steps = self.data.get("steps")
        if not isinstance(steps, list):
            raise ReaderError(
                self.path,
                f"expected a list of steps, got {type(steps).__name__}",
                line=self.doc.line,
                field=self._top("steps"),
            )
        for i, raw in enumerate(steps):
            try:
                self._step(i, raw)
            except SKIPPED_ERRORS as exc:  # one step not understood: said, the others read
                self.warnings.append(skipped_because(exc, self.path, self.line(i), "step"))
        trajectory = self._trajectory(agent, version, len(steps))
        out = [trajectory]
        subs = self.data.get("subagent_trajectories")
        if isinstance(subs, list):
            for k, sub in enumerate(subs):
                if not isinstance(sub, dict):
                    raise ReaderError(
                        self.path,
                        "expected an embedded ATIF trajectory object",
                        line=self.doc.line,
                        field=self._top(f"subagent_trajectories[{k}]"),
                    )
                name = sub["trajectory_id"] if isinstance(sub.get("trajectory_id"), str) else str(k + 1)
                where = self._top(f"subagent_trajectories[{k}]") or ""
                child = _Builder(
                    self.path,
                    _Document(sub, where, self.doc.line),
                    self.options,
                    f"{self.id}/{name}",
                    trajectory,
                    self.subagent_calls.get(name),
                )
                out.extend(child.build())
        return out

    def _top(self, key: str) -> str:
        return f"{self.doc.where}.{key}" if self.doc.where else key

    def _step(self, i: int, raw: Any) -> None:
        if not isinstance(raw, dict):
            raise self.error(i, f"expected a step object, got {type(raw).__name__}")
        source = raw.get("source")
        if source not in _SOURCES:
            raise self.error(i, f"source is {source!r}; expected one of {', '.join(_SOURCES)}", "source")
        step_id = raw.get("step_id")
        if _int(step_id) is None:
            raise self.error(i, f"step_id is {step_id!r}, not an integer", "step_id")
        if step_id != i + 1 and not self.step_ids_off:
            self.step_ids_off = True
            self.warnings.append(f"{self.loc(i, 'step_id')}: {step_id}, expected {i + 1} (sequential from 1)")
        text, ok = _content_text(raw.get("message"))
        if not ok:
            self.warnings.append(
                f"{self.loc(i, 'message')}: not a string or a list of content parts; kept as JSON"
            )
        if raw.get("is_copied_context") is True:
            self.count("copied_context_steps")
        ts = raw.get("timestamp")
        rt = raw.get("extra", {}).get("rtlab") if self.rtlab and isinstance(raw.get("extra"), dict) else None
        if isinstance(rt, dict):
            self._restored(i, raw, rt, text, ts)
            return
        if source == "agent":
            self._agent(i, raw, text, ts)
            return
        if source == "user" and self.awaiting_pane is not None and _TERMINAL_OPENING.match(text):
            self.finish(self.awaiting_pane, text, ts)
            self.awaiting_pane = None
            self.count("panes_from_user_steps")
            return
        self.awaiting_pane = None
        extra = _obj(raw.get("extra"))
        data: dict[str, Any] = {"step_id": step_id, **({"extra": extra} if extra else {})}
        if source == "user":
            self.event("message", text, i, "user", ts, **data)
        else:
            kind: EventKind = "compaction" if "context_management" in extra else "system"
            self.event(kind, text, i, "system", ts, **data)
        self._results(i, raw, [], ts)

    def _agent(self, i: int, raw: dict[str, Any], text: str, ts: Any) -> None:
        self.awaiting_pane = None
        model = raw.get("model_name")
        if isinstance(model, str) and model not in self.models:
            self.models.append(model)
        usage = _metrics_usage(raw.get("metrics"))
        if usage is not None:
            self.usage = usage if self.usage is None else self.usage + usage
        data: dict[str, Any] = {"step_id": raw.get("step_id")}
        if _obj(raw.get("extra")):
            data["extra"] = raw["extra"]
        reasoning = raw.get("reasoning_content")
        if isinstance(reasoning, str) and reasoning.strip():
            self.event("reasoning", reasoning, i, "assistant", ts, **data)
        if text.strip():
            self.event("message", text, i, "assistant", ts, **data)
        calls = raw.get("tool_calls")
        if calls is not None and not isinstance(calls, list):
            raise self.error(i, f"expected a list of tool calls, got {type(calls).__name__}", "tool_calls")
        parsed = [self._parse_call(i, j, c) for j, c in enumerate(calls or [])]
        results = self._result_list(i, raw)
        linked = {r.get("source_call_id") for r in results if isinstance(r.get("source_call_id"), str)}
        unlinked = sum(1 for r in results if not r.get("source_call_id"))
        batch = [c for c in parsed if keystrokes(c[1]) is not None and c[0] not in linked]
        made: list[Step] = []
        if len(batch) >= 2 and unlinked:
            self.count("merged_keystroke_batches")
            first = True
            for call_id, args, args_error, tool in parsed:
                if any(call_id == b[0] for b in batch):
                    if first:
                        merged = [{**b[1], "tool_call_id": b[0]} for b in batch]
                        made.append(self.call(tool, {"commands": merged}, None, call_id, i, ts))
                        first = False
                    continue
                made.append(self.call(tool, args, args_error, call_id, i, ts))
        else:
            made = [
                self.call(tool, args, args_error, call_id, i, ts)
                for call_id, args, args_error, tool in parsed
            ]
        if not parsed and results and not linked:
            commands = _message_commands(text)
            if commands is not None:
                made.append(self.call("bash_command", {"commands": commands}, None, None, i, ts))
                self.count("keystroke_batches_from_messages")
        self._results(i, raw, made, ts)
        if not parsed and not results:
            commands = _message_commands(text)
            if commands is not None:
                self.awaiting_pane = self.call("bash_command", {"commands": commands}, None, None, i, ts)
                self.count("keystroke_batches_from_messages")

    def _parse_call(self, i: int, j: int, c: Any) -> tuple[str | None, dict[str, Any], str | None, str]:
        key = f"tool_calls[{j}]"
        if not isinstance(c, dict):
            raise self.error(i, f"expected a tool call object, got {type(c).__name__}", key)
        call_id = c.get("tool_call_id")
        if not isinstance(call_id, str):
            raise self.error(i, f"tool_call_id is {call_id!r}, not a string", f"{key}.tool_call_id")
        tool = c.get("function_name")
        if not isinstance(tool, str) or not tool:
            raise self.error(i, f"function_name is {tool!r}, not a name", f"{key}.function_name")
        args, args_error = parse_arguments(c.get("arguments"))
        return call_id or None, args, args_error, tool

    def _result_list(self, i: int, raw: dict[str, Any]) -> list[dict[str, Any]]:
        obs = raw.get("observation")
        if obs is None:
            return []
        if not isinstance(obs, dict) or not isinstance(obs.get("results"), list):
            raise self.error(i, "expected an observation object with a results list", "observation")
        for k, r in enumerate(obs["results"]):
            if not isinstance(r, dict):
                raise self.error(
                    i, f"expected a result object, got {type(r).__name__}", f"observation.results[{k}]"
                )
            sid = r.get("source_call_id")
            if sid is not None and not isinstance(sid, str):
                raise self.error(
                    i, f"source_call_id is {sid!r}, not a string", f"observation.results[{k}].source_call_id"
                )
        return obs["results"]

    def _results(self, i: int, raw: dict[str, Any], made: list[Step], ts: Any) -> None:
        """Answer the step's calls: by ``source_call_id``, then by order; a result answering none is an event."""
        by_order = list(made)
        leftover: list[tuple[int, dict[str, Any], str]] = []
        for k, r in enumerate(self._result_list(i, raw)):
            key = f"observation.results[{k}]"
            text, ok = _content_text(r.get("content"))
            if not ok:
                self.warnings.append(
                    f"{self.loc(i, key + '.content')}: not a string or content parts; kept as JSON"
                )
            refs = r.get("subagent_trajectory_ref")
            sid = r.get("source_call_id") or None
            step = None
            if sid is not None:
                here = [s for s in made if s.call_id == sid and not s.answered]
                if here:
                    step = here[0]
                elif self.pending.get(sid):
                    step = self.pending[sid][0]
                    self.warnings.append(f"{self.loc(i, key)}: answers call {sid!r} of an earlier step")
                else:
                    why = "already has a result" if sid in self.answered_ids else "matches no tool call"
                    raise self.error(i, f"source_call_id {sid!r} {why}", f"{key}.source_call_id")
            if step is not None:
                self.finish(step, text, ts, r.get("extra"))
                if step in by_order:
                    by_order.remove(step)
            else:
                leftover.append((k, r, text))
            if isinstance(refs, list):
                self._subagent_refs(refs, step)
        for k, r, text in leftover:
            open_calls = [s for s in by_order if not s.answered]
            if open_calls:
                self.finish(open_calls[0], text, ts, r.get("extra"))
                by_order.remove(open_calls[0])
                if keystrokes(open_calls[0].args) is None:
                    self.count("results_by_order")
            else:
                kind: EventKind = "system" if raw.get("source") == "system" else "other"
                self.event(kind, text, i, "tool", ts, step_id=raw.get("step_id"), result=k)
                if raw.get("source") == "agent":
                    self.count("results_answering_no_call")

    def _subagent_refs(self, refs: list[Any], step: Step | None) -> None:
        for ref in refs:
            if not isinstance(ref, dict):
                continue
            self.count("subagent_refs")
            tid = ref.get("trajectory_id")
            if isinstance(tid, str) and step is not None and step.call_id is not None:
                self.subagent_calls[tid] = step.call_id

    def _restored(self, i: int, raw: dict[str, Any], rt: dict[str, Any], text: str, ts: Any) -> None:
        """A step rtlab exported: the rtlab step or event as it was (``extra["rtlab"]``), its tool, arguments
        and shown text from the ATIF fields. With ``--clip`` the logged output is clipped anew and the step is
        typed again (by :func:`type_step`), since its recorded frames belong to the old shown text."""
        where = self.where(i, "extra.rtlab")
        if isinstance(rt.get("step"), dict):
            calls = raw.get("tool_calls")
            if not (isinstance(calls, list) and len(calls) == 1):
                raise self.error(i, "an exported step holds exactly one tool call", "tool_calls")
            call_id, args, _, tool = self._parse_call(i, 0, calls[0])
            results = self._result_list(i, raw)
            shown = _content_text(results[0].get("content"))[0] if results else None
            data = dict(rt["step"])
            output = data.pop("output", shown)
            if self.options.clip is not None and output is not None:
                shown = self.policy.apply(output)
                data["clipped"] = shown != output or has_clip_marker(output)
                data.pop("action", None)
                data.pop("frames", None)
            data.update(
                index=len(self.steps),
                tool=tool,
                args=args,
                output=output,
                shown=shown,
                seq=self.seq(),
                line=self.line(i),
            )
            try:
                self.steps.append(_step_from(data, where))
            except ValueError as exc:
                raise self.error(i, str(exc), "extra.rtlab.step") from None
        elif isinstance(rt.get("event"), dict):
            results = self._result_list(i, raw)
            if results:
                text = _content_text(results[0].get("content"))[0]
            elif isinstance(raw.get("reasoning_content"), str):
                text = raw["reasoning_content"]
            data = {**rt["event"], "text": text, "seq": self.seq(), "line": self.line(i)}
            try:
                self.events.append(_event_from(data, where))
            except ValueError as exc:
                raise self.error(i, str(exc), "extra.rtlab.event") from None
        else:
            raise self.error(i, "expected a step or an event", "extra.rtlab")

    # --- the trajectory --------------------------------------------------------------------------------

    def _trajectory(self, agent: dict[str, Any], version: str, n_atif: int) -> Trajectory:
        meta: dict[str, Any] = {"schema_version": version, "n_atif_steps": n_atif, "layout": self.doc.layout}
        for key in ("session_id", "trajectory_id", "notes", "continued_trajectory_ref", "extra"):
            if self.data.get(key) not in (None, "", {}):
                meta[key] = self.data[key]
        if isinstance(agent.get("extra"), dict) and agent["extra"]:
            meta["agent_extra"] = agent["extra"]
        tools = agent.get("tool_definitions")
        if isinstance(tools, list):
            meta["tool_definitions"] = [
                t["function"]["name"]
                for t in tools
                if isinstance(t, dict)
                and isinstance(t.get("function"), dict)
                and isinstance(t["function"].get("name"), str)
            ]
        final = self.data.get("final_metrics")
        if isinstance(final, dict) and _int(final.get("total_steps")) is not None:
            meta["total_steps"] = final["total_steps"]
        if self.doc.index_status is not None:
            meta["index_status"] = self.doc.index_status
        meta.update(self.counts)
        if len(self.models) > 1:
            meta["models"] = self.models
        unanswered_batch = [s for s in self.steps if not s.answered and keystrokes(s.args) is not None]
        if self.counts.get("keystroke_batches_from_messages") and unanswered_batch:
            meta["unanswered_keystroke_batches"] = len(unanswered_batch)
        if not self.steps and any(e.role == "tool" for e in self.events):
            self.warnings.append("no tool calls: every observation result is kept as an event")
        if self.warnings:
            meta["warnings"] = self.warnings
        timeline: list[Step | Event] = sorted([*self.steps, *self.events], key=lambda x: x.seq)
        stamps = [x.started_at if isinstance(x, Step) else x.timestamp for x in timeline]
        stamps = [s for s in stamps if s]
        model = agent.get("model_name") if isinstance(agent.get("model_name"), str) else None
        parent_id = self.parent.id if self.parent is not None else None
        if parent_id is None and isinstance(self.data.get("parent_session_id"), str):
            parent_id = f"{NAME}:{self.data['parent_session_id']}"
        t = Trajectory(
            id=self.id,
            format=NAME,
            source_path=str(self.path),
            steps=self.steps,
            events=self.events,
            deliverable=self._deliverable(),
            instruction=next((e.text for e in self.events if e.role == "user" and e.kind == "message"), None),
            model=model or (self.models[0] if self.models else None),
            harness=agent.get("name") if isinstance(agent.get("name"), str) else None,
            harness_version=agent.get("version") if isinstance(agent.get("version"), str) else None,
            started_at=stamps[0] if stamps else None,
            ended_at=stamps[-1] if stamps else None,
            usage=_final_usage(final, self.usage),
            clip_policy=self.policy.name,
            meta=meta,
            parent_id=parent_id,
            parent_call_id=self.parent_call,
        )
        if self.rtlab is not None:
            self._restore_trajectory(t)
        return t

    def _deliverable(self) -> Deliverable:
        final = None
        for s in self.steps:
            if s.tool in ("finish", "mark_task_complete", "done") and isinstance(s.args.get("message"), str):
                final = s.args["message"]
        if final is None:
            final = next(
                (e.text for e in reversed(self.events) if e.role == "assistant" and e.kind == "message"), None
            )
        generic = [
            s if s.tool == _generic_name(s.tool) else replace(s, tool=_generic_name(s.tool))
            for s in self.steps
        ]
        return Deliverable(final_message=final, files=written_files(generic))

    def _restore_trajectory(self, t: Trajectory) -> None:
        assert self.rtlab is not None
        data = self.rtlab.get("trajectory")
        if not isinstance(data, dict):
            raise ReaderError(
                self.path,
                "expected the exported trajectory's fields",
                line=self.doc.line,
                field=self._top("extra.rtlab.trajectory"),
            )
        try:
            original = trajectory_from_dict(data, self._top("extra.rtlab.trajectory"))
        except ValueError as exc:
            raise ReaderError(
                self.path, str(exc), line=self.doc.line, field=self._top("extra.rtlab.trajectory")
            ) from None
        for name in _TRAJECTORY_RESTORED:
            setattr(t, name, getattr(original, name))
        if self.options.clip is None:
            t.clip_policy = original.clip_policy
        t.meta = {
            **{k: v for k, v in t.meta.items() if k not in ("extra", "notes")},
            "exported_from": {
                "id": original.id,
                "format": original.format,
                "source_path": original.source_path,
            },
            **({"exported_meta": original.meta} if original.meta else {}),
        }
        if original.parent_id is not None:
            t.parent_id = f"{NAME}:{original.parent_id}"


# ---------------------------------------------------------------------------------------------------------
# Writing


def _iso(value: str | None) -> str | None:
    """``value`` when it is a timestamp ATIF accepts (ISO 8601, as Harbor's ``Step`` validates it), else None."""
    if not value:
        return None
    try:
        datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return value


def _event_step(event: Event) -> dict[str, Any]:
    """An event as an ATIF step: a user or system message, an agent message or reasoning, a tool's words."""
    out: dict[str, Any]
    if event.role == "user":
        out = {"source": "user", "message": event.text}
    elif event.role == "assistant":
        out = {"source": "agent", "message": ""}
        if event.kind == "reasoning":
            out["reasoning_content"] = event.text
        else:
            out["message"] = event.text
    elif event.role == "tool":
        out = {"source": "system", "message": "", "observation": {"results": [{"content": event.text}]}}
    else:
        out = {"source": "system", "message": event.text}
    data = _event_dict(event)
    for key in ("text", "seq", "line"):
        data.pop(key, None)
    out["extra"] = {"rtlab": {"event": data}}
    ts = _iso(event.timestamp)
    return {"timestamp": ts, **out} if ts else out


def _tool_step(step: Step, call_id: str) -> dict[str, Any]:
    """A tool call as an agent step with one call and, when answered, its result: what the model was shown."""
    data = _step_dict(step)
    for key in _STEP_FROM_ATIF:
        data.pop(key, None)
    data["call_id"] = step.call_id
    if step.output is not None and step.output != step.shown:
        data["output"] = step.output
    out: dict[str, Any] = {
        "source": "agent",
        "message": "",
        "tool_calls": [{"tool_call_id": call_id, "function_name": step.tool, "arguments": step.args}],
    }
    if step.answered:
        shown = step.shown if step.shown is not None else step.output
        out["observation"] = {"results": [{"source_call_id": call_id, "content": shown}]}
    out["extra"] = {"rtlab": {"step": data}}
    ts = _iso(step.started_at)
    return {"timestamp": ts, **out} if ts else out


def write_atif(t: Trajectory) -> dict[str, Any]:
    """The trajectory as an ATIF-v1.5 object (see the module docstring): one step per rtlab step or event in
    timeline order, ``final_metrics`` from its usage, rtlab's own facts under ``extra["rtlab"]``."""
    steps: list[dict[str, Any]] = []
    used: set[str] = set()
    for item in t.timeline():
        if isinstance(item, Step):
            call_id = (
                item.call_id if item.call_id and item.call_id not in used else f"rtlab-call-{item.index}"
            )
            used.add(call_id)
            steps.append(_tool_step(item, call_id))
        else:
            steps.append(_event_step(item))
    if not steps:
        raise ValueError(f"{t.id}: no steps or events; ATIF needs at least one step")
    steps = [{"step_id": k + 1, **s} for k, s in enumerate(steps)]
    agent: dict[str, Any] = {"name": t.harness or "unknown", "version": t.harness_version or "unknown"}
    if t.model:
        agent["model_name"] = t.model
    rest = trajectory_to_dict(replace(t, steps=[], events=[], task=None, judgement=None))
    out: dict[str, Any] = {
        "schema_version": EXPORT_VERSION,
        "session_id": t.id,
        "agent": agent,
        "steps": steps,
        "notes": (
            f"Exported by rtlab from a {t.format} log: one step per tool call (its observation is "
            "what the model was shown) or per message or event; what ATIF has no field for is under extra.rtlab."
        ),
    }
    if t.usage is not None:
        u = t.usage
        final: dict[str, Any] = {
            "total_prompt_tokens": u.input_tokens,
            "total_completion_tokens": u.output_tokens,
            "total_cached_tokens": u.cached_input_tokens,
            "total_cost_usd": u.cost_usd,
        }
        final = {k: v for k, v in final.items() if v is not None}
        if u.reasoning_tokens is not None:
            final["extra"] = {"reasoning_tokens": u.reasoning_tokens}
        final["total_steps"] = len(steps)
        out["final_metrics"] = final
    out["extra"] = {"rtlab": {"schema": EXPORT_SCHEMA, "version": 1, "trajectory": rest}}
    return out


def write_atif_file(t: Trajectory, path: str | Path) -> Path:
    """Write one trajectory as ATIF JSON to ``path`` atomically (owner-only: it holds what the agent read)."""
    path = Path(path)
    doc = write_atif(t)
    with atomic_open(path, private=True) as fh:
        json.dump(doc, fh, ensure_ascii=False, indent=1)
        fh.write("\n")
    return path


def export_name(trajectory_id: str) -> str:
    """``<safe id>.json``: the id with every character but letters, digits, ``.``, ``_``, ``-`` replaced, no
    leading dot, and a short hash of the id when that changed it (so two ids never share a name)."""
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", trajectory_id).lstrip(".")[:150] or "trajectory"
    if safe != trajectory_id:
        safe = f"{safe}-{hashlib.sha256(trajectory_id.encode('utf-8')).hexdigest()[:10]}"
    return f"{safe}.json"


@dataclass
class ExportResult:
    """What :func:`export_atif` wrote, and the trajectories it could not write."""

    written: list[Path] = field(default_factory=list)
    """The files written, in the trajectories' order."""
    failures: list[tuple[str, str]] = field(default_factory=list)
    """``(trajectory id, error)`` for each trajectory not written."""


def export_atif(
    trajectories: Iterable[Trajectory], out_dir: str | Path, *, strict: bool = False
) -> ExportResult:
    """Write each trajectory to ``out_dir/<safe id>.json`` (:func:`export_name`; a second trajectory with the
    same id gets ``-2``, ...). One that cannot be written is recorded and the rest go on; with ``strict`` the
    first failure raises :class:`RtlabError`. No file is ever written outside ``out_dir``."""
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    root = out.resolve()
    result = ExportResult()
    taken: set[str] = set()
    for t in trajectories:
        name = export_name(t.id)
        n = 1
        while name in taken:
            n += 1
            name = f"{export_name(t.id)[: -len('.json')]}-{n}.json"
        taken.add(name)
        target = root / name
        try:
            if target.resolve().parent != root:
                raise RtlabError(f"{name}: would be written outside {root}")
            result.written.append(write_atif_file(t, target))
        except (RtlabError, OSError, ValueError, TypeError) as exc:
            if strict:
                raise RtlabError(f"{t.id}: could not be written as ATIF: {exc}") from exc
            result.failures.append((t.id, str(exc)))
    return result

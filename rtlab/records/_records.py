"""The vocabulary of rtlab: trajectories, steps, tasks and judgements, and their versioned JSONL form.

Every reader produces these records and every analysis consumes them. The JSONL form round-trips exactly:
``trajectory_from_dict(trajectory_to_dict(t)) == t`` for every trajectory a reader can produce. A step and a
trajectory render themselves in a notebook (``_repr_html_``, ``_repr_pretty_``) with the renderers at the end of
this module, made of :mod:`rtlab.display`'s primitives.
"""

from __future__ import annotations

from dataclasses import MISSING, dataclass, field, fields
from typing import Any, Literal

from rtlab.display import Span, block, escape, marked_text, one_line, side_by_side, table, text_table

SCHEMA = "rtlab.trajectory"
SCHEMA_VERSION = 3
"""2 added ``Step.action`` and ``Step.frames``; 3 added ``Trajectory.warnings`` (a version-2 file's
``meta["warnings"]`` strings are read into it). Files of version 1 are still read (their steps are typed by the
reader of their format)."""

EventKind = Literal[
    "message",  # assistant or user text outside tool calls
    "plan",  # todo-list / plan updates
    "reasoning",  # visible reasoning or thinking blocks
    "error",  # harness or provider errors
    "compaction",  # context compaction / summary entries
    "system",  # system prompt, model or setting changes, phases
    "other",
]


@dataclass
class TokenUsage:
    """Token counts a harness recorded for a run or a call; ``None`` where the log does not say."""

    input_tokens: int | None = None
    """Prompt tokens, including cached ones."""
    output_tokens: int | None = None
    """Completion tokens, including reasoning tokens."""
    cached_input_tokens: int | None = None
    """Prompt tokens served from a cache."""
    reasoning_tokens: int | None = None
    """Reasoning tokens, where the provider reports them."""
    total_tokens: int | None = None
    """Prompt and completion tokens together, as reported (Pi: the parts summed where a message omits it)."""
    cost_usd: float | None = None
    """Cost the harness recorded, in US dollars."""

    def __add__(self, other: TokenUsage) -> TokenUsage:
        def add(a: Any, b: Any) -> Any:
            return b if a is None else a if b is None else a + b

        return TokenUsage(
            **{f.name: add(getattr(self, f.name), getattr(other, f.name)) for f in fields(self)}
        )


STATUS_PREFIX = "[tab] "
"""How the environment's status line begins: on tab runs it is appended to every observation, after
:data:`STATUS_SEPARATOR`, so a recorded tab run's shown texts end with one."""
STATUS_SEPARATOR = "\n\n"


def status_start(text: str) -> int:
    """Where a status line that the environment appended to ``text`` begins (with its separator), else
    ``len(text)``: the status line is the last line, after a blank line (or the whole text)."""
    if text.startswith(STATUS_PREFIX) and "\n" not in text:
        return 0
    # the last line, found from the end (no copy of the text, no scan past it: this runs on every step a
    # reader frames): a status line when it opens with the prefix after a blank line
    last = text.rfind("\n")
    if last >= 1 and text[last - 1] == "\n" and text.startswith(STATUS_PREFIX, last + 1):
        return last - 1
    return len(text)


def _stored_init(cls: type) -> type:
    """Give the frozen dataclass ``cls`` an ``__init__`` that stores its fields straight into the instance's
    ``__dict__``: the one ``dataclass`` makes calls ``object.__setattr__`` a field (``Action``, 14 fields:
    1.7 us a call against 0.5). The same parameters, defaults and values, made from ``fields(cls)``, so
    equality, hashing, ``repr``, ``dataclasses.replace`` and immutability stay the dataclass's own. For a
    class with no ``__post_init__``, no default factory and no ``init=False`` field."""
    params: list[str] = []
    stores: list[str] = []
    defaults: dict[str, Any] = {}
    for f in fields(cls):
        if not f.init or f.default_factory is not MISSING or hasattr(cls, "__post_init__"):
            raise TypeError(f"{cls.__name__}.{f.name}: not a plain field")
        if f.default is MISSING:
            params.append(f.name)
        else:
            defaults[f"_default_{f.name}"] = f.default
            params.append(f"{f.name}=_default_{f.name}")
        stores.append(f"    stored[{f.name!r}] = {f.name}\n")
    source = f"def __init__(self, {', '.join(params)}):\n    stored = self.__dict__\n{''.join(stores)}"
    namespace: dict[str, Any] = {}
    exec(source, dict(defaults), namespace)  # noqa: S102  (the source is made from the field names only)
    init = namespace["__init__"]
    init.__qualname__ = f"{cls.__qualname__}.__init__"
    init.__module__ = cls.__module__
    cls.__init__ = init  # type: ignore[misc]
    return cls


ActionKind = Literal["shell", "script", "read", "write", "edit", "search", "list", "tab", "other"]
"""What a tool call did, in terms that name no harness."""

FrameKind = Literal["frame", "clip"]
"""``frame``: the harness's own words in a tool's output (a header, a notice, an echo of the command, an exit
status); ``clip``: a marker where the harness cut the output (content was left out there)."""


@_stored_init
@dataclass(frozen=True)
class Frame:
    """A span of ``Step.shown`` that is not command output: the harness wrote it."""

    start: int
    """Offset of its first character in ``Step.shown``."""
    end: int
    """Offset just past its last character."""
    kind: FrameKind
    """``frame`` (harness words) or ``clip`` (a clip marker: the output on either side is cut there)."""


@_stored_init
@dataclass(frozen=True)
class Action:
    """What one tool call did, as the reader of its harness states it for the environment.

    The environment decides what a step read, listed and wrote from this action, the step's shown text and
    its frames only; it knows no harness. Which fields apply depends on ``kind``:

    - ``shell``: ``command`` is a shell command line (POSIX shell syntax); a call that ran several command
      lines (one output each) lists them in ``parts``, each with the span of its output.
    - ``script``: ``command`` is a program in ``language`` (``python``) that the harness ran.
    - ``read``: the file ``path`` was shown, from line ``offset`` (1-based) for ``limit`` lines where given.
    - ``write`` / ``edit``: the file ``path`` was created or overwritten / changed.
    - ``search``: the output is ``path:line`` search results (``grep -rn`` style) for ``pattern``; paths in it
      are relative to ``base``.
    - ``list``: the output is a list of paths, one a line, relative to ``base``.
    - ``tab``: the agent operated the environment's tab (``op``: add, resolve, list, show).
    - ``other``: anything else (``name``: the tool); nothing is read from its output.
    """

    kind: ActionKind
    """What the call did."""
    command: str | None = None
    """``shell``: the command line; ``script``: the program text."""
    language: str | None = None
    """``script``: the language of ``command`` (``python``)."""
    path: str | None = None
    """``read``, ``write``, ``edit``: the file, as the agent named it."""
    offset: int | None = None
    """``read``: the first line shown, 1-based; ``None`` for the start of the file."""
    limit: int | None = None
    """``read``: how many lines were asked for; ``None`` for no limit."""
    pattern: str | None = None
    """``search``: what was searched for."""
    base: str | None = None
    """``search``, ``list``: the folder the output's paths are relative to; ``None`` for the working directory."""
    line_numbers: bool = False
    """``search``: every result line carries its line number (``path:N:text``); ``read``: every shown line
    starts with its line number (SWE-agent's ``N:`` window, an editor's ``cat -n`` view)."""
    op: str | None = None
    """``tab``: the tab operation."""
    name: str | None = None
    """``other``: the tool's name."""
    parts: tuple[Action, ...] = ()
    """``shell``: the command lines of a call that ran several, in order, each with its ``output`` span."""
    output: tuple[int, int] | None = None
    """For a part: the span of ``Step.shown`` that is its output; ``None`` for a whole step (all of it but the
    frames)."""
    exit_code: int | None = None
    """For a part: its exit status, where the harness printed one."""

    @classmethod
    def shell(cls, command: str) -> Action:
        """A shell command line."""
        return cls("shell", command=command)

    @classmethod
    def read(cls, path: str, offset: int | None = None, limit: int | None = None) -> Action:
        """A file shown to the model."""
        return cls("read", path=path, offset=offset, limit=limit)

    @classmethod
    def other(cls, name: str) -> Action:
        """A call rtlab reads nothing from."""
        return cls("other", name=name)


@dataclass
class Step:
    """One tool call together with its result: the unit the environment observes."""

    index: int
    """Position among the trajectory's tool calls, from 0 (unanswered calls included)."""
    tool: str
    """Tool name as the harness logged it (``shell``, ``read``, ``command_execution``, ...)."""
    command: str
    """The shell command for shell tools; an equivalent such as ``read PATH offset limit`` for read-like tools."""
    args: dict[str, Any] = field(default_factory=dict)
    """Parsed call arguments; ``{"_raw": text}`` when the logged arguments were not valid JSON."""
    output: str | None = None
    """The result exactly as the log holds it; ``None`` when the call never got a result."""
    shown: str | None = None
    """What the model actually received for this call, after the harness's clipping."""
    clipped: bool = False
    """The harness shortened the output before the model saw it (by its clip policy, or a truncation notice)."""
    is_error: bool = False
    """The harness or the tool marked the call as failed (non-zero exit, error flag, error observation)."""
    exit_code: int | None = None
    """The command's exit status where the log gives or implies one (shell tools), else ``None``."""
    call_id: str | None = None
    """The harness's id for the call, used to link call and result."""
    cwd: str | None = None
    """Working directory the call ran in, where known."""
    started_at: str | None = None
    """ISO-8601 timestamps, as logged."""
    ended_at: str | None = None
    """When the result was logged (ISO-8601, as logged)."""
    seq: int = 0
    """Position in the trajectory's whole timeline (steps and events interleaved)."""
    line: int | None = None
    """1-based line (or list position) of the call in the source file, for provenance."""
    args_error: str | None = None
    """Why the logged arguments could not be parsed, if they could not."""
    action: Action | None = None
    """What the call did, in harness-neutral terms (set by the reader); ``None``: nothing is captured from it."""
    frames: tuple[Frame, ...] = ()
    """Spans of ``shown`` that the harness wrote (headers, notices, clip markers), in order, not overlapping; set
    by the reader from ``shown``, so a ``shown`` changed by hand needs its frames found again."""

    @property
    def answered(self) -> bool:
        """False for a call that never got a result (a run cut off mid-command)."""
        return self.output is not None

    def _repr_html_(self) -> str:
        """The notebook display: what was shown beside what was logged, frames and clip marked."""
        return step_html(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """The plain-text display (IPython's), one line instead of the whole dataclass."""
        p.text(step_text(self))


@dataclass
class Event:
    """Something in the trajectory that is not a tool call: a message, a plan update, an error, ..."""

    kind: EventKind
    """What the event is (see :data:`EventKind`)."""
    text: str = ""
    """Its text (the message, the plan, the error, ...); empty when it has none."""
    role: str | None = None
    """``assistant``, ``user``, ``system`` or ``tool`` where that applies."""
    seq: int = 0
    """Position in the trajectory's whole timeline (steps and events interleaved)."""
    timestamp: str | None = None
    """ISO-8601 timestamp, as logged."""
    line: int | None = None
    """1-based line (or list position) of the entry in the source file, for provenance."""
    data: dict[str, Any] = field(default_factory=dict)
    """Structured payload kept from the log (e.g. the todo items of a plan update)."""


@dataclass
class DeliverableFile:
    """A file the agent delivered: found in the run's output folder or written by a write tool."""

    path: str
    """The path as the agent or the benchmark named it."""
    local_path: str | None = None
    """Where rtlab found the file on disk at ingest time, if it did."""
    content: str | None = None
    """The text content where the file is text and available; ``None`` for binary files (use ``local_path``)."""
    size: int | None = None
    """Size in bytes."""
    sha256: str | None = None
    """Hex SHA-256 of the file's bytes, where rtlab read them."""
    origin: Literal["output_dir", "write_tool", "listed"] = "output_dir"
    """How rtlab knows of the file: present in the output folder, written by a tool call, or only named."""


@dataclass
class Deliverable:
    """What the agent handed in: its final message and the files it wrote."""

    final_message: str | None = None
    """The agent's last message (its answer), where it wrote one."""
    files: list[DeliverableFile] = field(default_factory=list)
    """The files it delivered, wrote or only named (see :attr:`DeliverableFile.origin`)."""


@dataclass
class RubricItem:
    """One gradable item of a task: a Workspace-Bench rubric, a TheAgentCompany checkpoint, an OfficeQA answer."""

    index: int
    """Position in the task's rubric, from 0; the judge's verdicts refer to it."""
    text: str
    """What the item asks for, as the benchmark words it."""
    type: str | None = None
    """Rubric type (``Outcome Evaluation``, ...) or checkpoint kind, where the benchmark gives one."""
    points: float = 1.0
    """What the item is worth: a TheAgentCompany checkpoint's points, else 1."""


@dataclass
class Task:
    """A benchmark task: the instruction, its rubric and the facts about its inputs."""

    id: str
    """The benchmark's own task id (Workspace-Bench absolute id, OfficeQA uid or ``oqa-N``, task folder)."""
    benchmark: str
    """Name of the benchmark (``workspace-bench``, ``officeqa``, ``theagentcompany``)."""
    instruction: str = ""
    """The task as the benchmark states it to the agent."""
    rubric: list[RubricItem] = field(default_factory=list)
    """The gradable items, in the benchmark's order."""
    expected_outputs: list[str] = field(default_factory=list)
    """Deliverable file names the task asks for."""
    source_files: list[str] = field(default_factory=list)
    """Files the task needs (Workspace-Bench data manifest, OfficeQA source files)."""
    dependency_graph: list[tuple[str, str]] = field(default_factory=list)
    """Edges ``(from, to)`` between source files, as the benchmark states them."""
    answer: str | None = None
    """Reference answer, for benchmarks that have one (OfficeQA)."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Benchmark-specific facts kept from the task files (difficulty, tolerance, services, ...)."""


@dataclass
class ItemResult:
    """The judge's verdict on one rubric item."""

    index: int
    """The :attr:`RubricItem.index` of the item judged."""
    passed: bool
    """The judge passed the item (a point-scored checkpoint passes only with all its points)."""
    score: float | None = None
    """Points earned, for point-scored items; ``None`` where the item is pass/fail."""
    evidence: str | None = None
    """The judge's stated reason or quoted evidence, where it gives one."""
    confidence: float | None = None
    """The judge's own confidence, as it reported it."""


@dataclass
class Judgement:
    """A judge's or grader's results for one trajectory."""

    items: list[ItemResult] = field(default_factory=list)
    """One verdict per rubric item the judge rated, in the order of its file."""
    judge: str | None = None
    """Judge model or grader name and version."""
    source_path: str | None = None
    """The judge's or grader's file the results were read from."""
    summary: dict[str, Any] = field(default_factory=dict)
    """The judge file's own summary (totals as the judge reported them)."""

    @property
    def n_passed(self) -> int:
        return sum(1 for it in self.items if it.passed)


WarningKind = Literal[
    "not-json",  # a line that is not JSON at all (a stray stderr line, a banner)
    "invalid-json",  # a record that starts as JSON but does not parse
    "truncated",  # the last record cut off (a log cut off mid-write)
    "repaired",  # a record read after a repair (an invalid backslash escape, a lone surrogate)
    "unknown-record",  # a record of a type the reader does not know (kept as an event or skipped)
    "bad-record",  # a record with a missing or mistyped field, skipped or read in part
    "orphan-result",  # a result whose call is not in the file (or came after it: paired anyway)
    "duplicate-id",  # a call id seen twice
    "no-steps",  # a file with content from which the reader found no tool call
    "join",  # a benchmark's files beside the run disagree with it
    "other",  # anything else the reader noticed
]
"""What kind of fault a :class:`ReadWarning` reports."""


@dataclass(frozen=True)
class ReadWarning:
    """Something a reader skipped, repaired or could not understand in a log, and where: the rest was read."""

    path: str
    """The file the fault is in (a run folder's log, or the log itself)."""
    line: int | None
    """The 1-based line (or list position) of the record at fault, where it has one."""
    reason: str
    """What is wrong and what was done about it (skipped, repaired, kept as an event)."""
    kind: WarningKind = "other"
    """Which kind of fault (see :data:`WarningKind`): what ``rtlab info`` counts by."""
    field: str | None = None
    """The field at fault in the record (``message.content[0].id``), where one is."""

    def __str__(self) -> str:
        where = self.path if self.line is None else f"{self.path}:{self.line}"
        if self.field:
            where += f" [{self.field}]"
        return f"{where}: {self.reason}"


@dataclass
class Trajectory:
    """A recorded agent run in rtlab's canonical form."""

    id: str
    """Unique run id, ``<format>:<run, session or file name>``; item keys are built from it."""
    format: str
    """Name of the reader that produced it (``codex``, ``g2b``, ``openhands``, ``pi``, ``dci``, ``openai-chat``, ...)."""
    source_path: str
    """The file or run folder the reader read; benchmark files and ``run.json`` are looked for beside it. Read
    through ``rtlab.ingest`` (and so in replays, the store, the viewer and the canonical JSONL), it is in the one
    form of ``rtlab.ingest.unit_path``, whatever route reached the unit: absolute, every symbolic link and
    ``..`` on the way resolved, the unit's own name kept (a unit that is itself a link stays where it was
    found). A trajectory read back from canonical JSONL keeps the one it was written with."""
    steps: list[Step] = field(default_factory=list)
    """The tool calls, in the order they were made."""
    events: list[Event] = field(default_factory=list)
    """Everything else the log holds (messages, plans, errors, ...), in order."""
    deliverable: Deliverable = field(default_factory=Deliverable)
    """What the agent handed in."""
    task_id: str | None = None
    """The benchmark task worked on: from the run's folder or file name, its benchmark or ``run.json``."""
    instruction: str | None = None
    """The instruction the agent received, as it received it."""
    model: str | None = None
    """The model the run used, as the log names it (or ``run.json`` states it)."""
    harness: str | None = None
    """The harness that wrote the log (``codex``, ``pi``, ...); OpenAI logs name none (``run.json`` may)."""
    harness_version: str | None = None
    """The harness's version, where the log records it (Codex exec streams carry none)."""
    benchmark: str | None = None
    """Name of the benchmark adapter that attached ``task`` and ``judgement``."""
    method: str | None = None
    """Method or arm (``DCI``, ``RunningTab``, ``plain``, ...)."""
    variant: str | None = None
    """Ablation or configuration variant within a method."""
    run: str | None = None
    """Run / seed label."""
    cwd: str | None = None
    """The agent's starting working directory."""
    started_at: str | None = None
    """When the run started (ISO-8601), from the log's start time or its first timestamp."""
    ended_at: str | None = None
    """When the run ended (ISO-8601), from the log's end time or its last timestamp."""
    usage: TokenUsage | None = None
    """Token counts for the whole run (summed over its calls where the log gives them per call)."""
    clip_policy: str | None = None
    """Name of the clipping policy that produced ``Step.shown``."""
    task: Task | None = None
    """The benchmark task, once an adapter found it beside the source."""
    judgement: Judgement | None = None
    """The judge's results for this run, once an adapter found them."""
    meta: dict[str, Any] = field(default_factory=dict)
    """Format-specific facts worth keeping (ids, flags, counts)."""
    parent_id: str | None = None
    """For a sub-agent's or side chain's run: the ``id`` of the trajectory that started it; ``None`` for a top run."""
    parent_call_id: str | None = None
    """For a sub-agent's run: the ``call_id`` of the parent's step that started it (its ``Task`` call), when known."""
    warnings: list[ReadWarning] = field(default_factory=list)
    """What reading (and joining) this run skipped, repaired or did not understand, each naming file, line and
    reason; empty for a log read whole. ``--strict`` refuses a run with any; ``rtlab info`` counts them."""

    @property
    def answered_steps(self) -> list[Step]:
        return [s for s in self.steps if s.answered]

    @property
    def n_steps(self) -> int:
        """Tool calls that got a result; calls cut off mid-command are kept but not counted."""
        return sum(1 for s in self.steps if s.answered)

    @property
    def chars_logged(self) -> int:
        return sum(len(s.output) for s in self.steps if s.output is not None)

    @property
    def chars_shown(self) -> int:
        return sum(len(s.shown) for s in self.steps if s.shown is not None)

    def timeline(self) -> list[Step | Event]:
        """Steps and events in the order they happened."""
        return sorted([*self.steps, *self.events], key=lambda x: x.seq)

    def _repr_html_(self) -> str:
        """The notebook display: the run's facts and a compact step table (long runs truncated with counts)."""
        return trajectory_html(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """The plain-text display (IPython's): the same facts and table, not the whole dataclass."""
        p.text(trajectory_text(self))


# ---------------------------------------------------------------------------------------------------------
# Serialisation


def _plain(obj: Any) -> Any:
    """Dataclass -> JSON-ready dict, keeping only fields that differ from their defaults (smaller lines)."""
    if hasattr(obj, "__dataclass_fields__"):
        out: dict[str, Any] = {}
        for f in fields(obj):
            value = getattr(obj, f.name)
            default = f.default_factory() if callable(f.default_factory) else f.default
            if value == default and f.name not in _ALWAYS.get(type(obj).__name__, ()):
                continue
            out[f.name] = _plain(value)
        return out
    if isinstance(obj, list | tuple):
        return [_plain(v) for v in obj]
    if isinstance(obj, dict):
        return {k: _plain(v) for k, v in obj.items()}
    return obj


_ALWAYS: dict[str, frozenset[str]] = {
    "Trajectory": frozenset({"id", "format", "source_path"}),
    "Step": frozenset({"index", "tool", "command"}),
    "Event": frozenset({"kind", "text"}),
    "DeliverableFile": frozenset({"path"}),
    "RubricItem": frozenset({"index", "text"}),
    "Task": frozenset({"id"}),
    "ItemResult": frozenset({"index", "passed"}),
    "Action": frozenset({"kind"}),
    "ReadWarning": frozenset({"path", "line", "reason", "kind"}),
}
"""Fields written even when they hold their default, per record."""


def _build(cls: type, data: dict[str, Any], where: str) -> Any:
    if not isinstance(data, dict):
        raise ValueError(f"{where}: expected an object, got {type(data).__name__}")
    known = {f.name for f in fields(cls)}
    unknown = set(data) - known
    if unknown:
        raise ValueError(f"{where}: unknown field(s) {sorted(unknown)} for {cls.__name__}")
    kwargs = dict(data)
    nested = _NESTED.get(cls, {})
    for name, (sub, many) in nested.items():
        if name in kwargs and kwargs[name] is not None:
            if many:
                kwargs[name] = [_build(sub, v, f"{where}.{name}[{i}]") for i, v in enumerate(kwargs[name])]
            else:
                kwargs[name] = _build(sub, kwargs[name], f"{where}.{name}")
    if cls is Task and "dependency_graph" in kwargs:
        kwargs["dependency_graph"] = [tuple(e) for e in kwargs["dependency_graph"]]
    for name in _TUPLES.get(cls, ()):
        if isinstance(kwargs.get(name), list):
            kwargs[name] = tuple(tuple(v) if isinstance(v, list) else v for v in kwargs[name])
    try:
        return cls(**kwargs)
    except TypeError as exc:
        raise ValueError(f"{where}: {exc}") from None


_NESTED: dict[type, dict[str, tuple[type, bool]]] = {
    Trajectory: {
        "steps": (Step, True),
        "events": (Event, True),
        "deliverable": (Deliverable, False),
        "usage": (TokenUsage, False),
        "task": (Task, False),
        "judgement": (Judgement, False),
        "warnings": (ReadWarning, True),
    },
    Step: {"action": (Action, False), "frames": (Frame, True)},
    Action: {"parts": (Action, True)},
    Deliverable: {"files": (DeliverableFile, True)},
    Task: {"rubric": (RubricItem, True)},
    Judgement: {"items": (ItemResult, True)},
}


_TUPLES: dict[type, tuple[str, ...]] = {Step: ("frames",), Action: ("parts", "output")}
"""Fields held as tuples (JSON gives lists)."""


def trajectory_to_dict(t: Trajectory) -> dict[str, Any]:
    """The canonical JSON object for a trajectory, with its schema name and version first."""
    return {"schema": SCHEMA, "version": SCHEMA_VERSION, **_plain(t)}


def trajectory_from_dict(data: dict[str, Any], where: str = "trajectory") -> Trajectory:
    """Inverse of :func:`trajectory_to_dict`; raises ``ValueError`` naming the offending field."""
    data = dict(data)
    schema, version = data.pop("schema", None), data.pop("version", None)
    if schema != SCHEMA:
        raise ValueError(f"{where}: field 'schema' is {schema!r}, expected {SCHEMA!r}")
    if not isinstance(version, int) or version > SCHEMA_VERSION:
        raise ValueError(
            f"{where}: field 'version' is {version!r}; this rtlab reads versions <= {SCHEMA_VERSION}"
        )
    return _build(Trajectory, data, where)


def item_key(trajectory_id: str, rubric_index: int) -> str:
    """The item key of a failed rubric item: ``<trajectory id>#<rubric index>``."""
    return f"{trajectory_id}#{rubric_index}"


# ---------------------------------------------------------------------------------------------------------
# Display: how a trajectory and a step look in a notebook (``_repr_html_``) and as plain text
# (``_repr_pretty_``). A trajectory is a compact step table: tool, command, characters logged and shown,
# clipped, and the files its typed action names (a file tool's path; what a shell command read is capture's to
# say, so the replay's table shows the files captured). A step is what was shown beside what was logged, with
# the harness's frames dimmed and its clip markers marked. The HTML primitives are :mod:`rtlab.display`'s.
# The renderers live beside the records they render, so no record module imports a display module.

STEP_COLUMNS = ("step", "tool", "command", "logged", "shown", "clipped", "action", "file")
"""The columns of a trajectory's step table."""


def step_row(s: Step) -> list[Any]:
    """One step's row of the step table."""
    a = s.action
    named = (a.path or a.base or a.pattern or "") if a is not None else ""
    return [
        s.index,
        s.tool,
        one_line(s.command, 100),
        len(s.output) if s.output is not None else "—",
        len(s.shown) if s.shown is not None else "—",
        s.clipped,
        a.kind if a is not None else "",
        named,
    ]


def _head(t: Trajectory) -> list[tuple[str, str]]:
    judged = ""
    if t.judgement is not None and t.judgement.items:
        passed = sum(1 for i in t.judgement.items if i.passed)
        judged = f"{passed}/{len(t.judgement.items)} rubric items passed"
    facts = [
        ("trajectory", t.id),
        ("format", t.format),
        ("model", t.model or ""),
        ("benchmark", t.benchmark or ""),
        ("task", t.task_id or ""),
        ("run", " ".join(x for x in (t.method, t.variant, t.run) if x)),
        ("steps", f"{t.n_steps:,} answered of {len(t.steps):,}"),
        ("characters", f"{t.chars_logged:,} logged, {t.chars_shown:,} shown"),
        ("judge", judged),
    ]
    return [(k, v) for k, v in facts if v]


def trajectory_html(t: Trajectory) -> str:
    """The notebook display of a trajectory: its facts, then the step table (long runs truncated with counts)."""
    facts = "".join(f"<b>{escape(k)}</b> {escape(v)}<br>" for k, v in _head(t))
    rows = [step_row(s) for s in t.steps]
    return block(f"<div>{facts}</div>", table(STEP_COLUMNS, rows, what="steps"))


def trajectory_text(t: Trajectory) -> str:
    """The plain-text display of a trajectory: the same facts and table."""
    facts = "\n".join(f"{k}: {v}" for k, v in _head(t))
    return facts + "\n" + text_table(STEP_COLUMNS, [step_row(s) for s in t.steps], what="steps")


def frame_spans(s: Step) -> list[Span]:
    """The step's frames as spans of its shown text: clip markers and the harness's own words."""
    return [Span(f.start, f.end, "clip" if f.kind == "clip" else "frame", f.kind) for f in s.frames]


def step_html(s: Step, reads: list[Span] | None = None) -> str:
    """The notebook display of a step: the command, then what was shown (frames dimmed, clip marked, ``reads``
    highlighted) beside what was logged when the two differ."""
    head = (
        f"<b>step {s.index}</b> · {escape(s.tool)}"
        + (" · <b>clipped</b>" if s.clipped else "")
        + (" · error" if s.is_error else "")
        + (f" · exit {s.exit_code}" if s.exit_code is not None else "")
        + f"<pre>{escape(s.command)}</pre>"
    )
    if s.output is None:
        return block(head, '<div class="note">no result (the call was cut off)</div>')
    shown = s.shown or ""
    spans = frame_spans(s) + list(reads or [])
    shown_html = marked_text(shown, spans)
    if shown == s.output:
        return block(head, f"<h4>shown = logged ({len(shown):,} characters)</h4>", shown_html)
    return block(
        head,
        side_by_side(
            (f"shown ({len(shown):,} characters)", shown_html),
            (f"logged ({len(s.output):,} characters)", marked_text(s.output)),
        ),
    )


def step_text(s: Step) -> str:
    """The plain-text display of a step: a one-line header and the command."""
    size = (
        "no result" if s.output is None else f"{len(s.output or ''):,} logged, {len(s.shown or ''):,} shown"
    )
    return f"step {s.index} {s.tool} ({size}{', clipped' if s.clipped else ''}): {one_line(s.command, 200)}"

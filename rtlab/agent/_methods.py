"""The methods compared in the paper, each one policy over the same agent loop (defined in ``docs/METHODS.md``).

A policy says what the model is told (:attr:`Policy.instructions`, after the common system prompt), which tools
it gets beyond ``read`` / ``bash`` / ``write`` (:attr:`Policy.tools`), answers those tools' calls
(:meth:`Policy.call`), and may answer the model's stop with one more user message (:meth:`Policy.on_stop`):

- **DCI** (:class:`Plain`): direct workspace interaction, nothing more.
- **TODO** (:class:`Todo`): a ``todo`` tool holding the model's list of items with a status each; the model
  sets the whole list at each call, the reply shows it back. The list lives only in the conversation.
- **Self-Refine** (:class:`SelfRefine`): when the model first stops, it is asked once to read its deliverable,
  critique it against the task and revise it; the next stop ends the run.
- **Self-Tracking** (:class:`SelfTracking`): a ``notes`` tool where the model keeps requirement notes and reading
  notes (values with their file) in its own words; ``list`` shows them back.
- **RunningTab** (:class:`RunningTabPolicy`): the environment-side tab (:class:`rtlab.environment.Environment`
  with a :class:`~rtlab.environment.TabConfig`, the full tab or one of its ablations): the tab tools, a status
  line on every observation, the finish check once at the first stop with requirements open.

Model-kept records (the todo list, the notes) are also events of kind ``plan`` (what
:func:`rtlab.environment.replay` keeps as ``model_kept``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal

from rtlab.agent._tools import function
from rtlab.environment import ABLATIONS, TAB_TOOLS, TOOLS, AblationName, Environment, TabConfig

MethodName = Literal["dci", "todo", "self-refine", "self-tracking", "runningtab"]
METHODS: tuple[MethodName, ...] = ("dci", "todo", "self-refine", "self-tracking", "runningtab")
METHOD_LABELS: dict[MethodName, str] = {
    "dci": "DCI",
    "todo": "TODO",
    "self-refine": "Self-Refine",
    "self-tracking": "Self-Tracking",
    "runningtab": "RunningTab",
}
"""The ``method`` label each run is given (the arms' names in :mod:`rtlab.analysis` and ``rtlab synth``)."""
REFINE_PREFIX = "[self-refine]"
"""How the Self-Refine request starts (the scripted agent of :mod:`rtlab.llm` looks for it)."""
REFINE_MESSAGE = (
    f"{REFINE_PREFIX} Before you finish: read your deliverable back, critique it against every part of the task "
    "(what is missing, what is wrong, what the files you read do not support), then revise it with write. "
    "Stop when it is revised."
)
TODO_STATUSES = ("pending", "in_progress", "done")
NOTE_KINDS = ("requirement", "reading")

BASE_PROMPT = (
    "You do knowledge work in a workspace: a folder of files, your working directory. Find and read the files "
    "the task needs with the tools (read a file; run bash commands such as ls, find, grep, head, python3), then "
    "write the deliverable the task asks for with the write tool, where the task says. Work on your own: no "
    "one will answer questions. When the deliverable is written, stop (answer without a tool call)."
)


@dataclass(frozen=True)
class Reply:
    """A policy's answer to a tool call: the text the model reads, and an event to record, if any."""

    text: str
    """What the model reads."""
    is_error: bool = False
    """The call was refused (bad arguments)."""
    plan: dict[str, Any] | None = None
    """The model-kept record after this call (the event ``plan``'s data), if it changed."""


class Policy:
    """DCI's policy, and the base of the others: no extra tools, no extra message."""

    label = "DCI"
    instructions = ""
    tools: list[dict[str, Any]] = []

    def __init__(self) -> None:
        self.variant: str | None = None
        self.environment: Environment | None = None

    @property
    def tool_names(self) -> frozenset[str]:
        return frozenset(t["function"]["name"] for t in self.tools)

    def call(self, tool: str, args: dict[str, Any]) -> Reply:
        """Answer a call of one of :attr:`tools` (never raises: mistakes are replies)."""
        return Reply(f"{tool}: not a tool of this run.", is_error=True)

    def on_stop(self, *, wrote: bool) -> str | None:
        """A user message when the model stops (``wrote``: it has written a file), or ``None`` to end the run."""
        return None

    def describe(self) -> dict[str, Any]:
        """The policy's settings, for ``run.json``."""
        return {"method": self.label, "variant": self.variant, "tools": sorted(self.tool_names)}


class Plain(Policy):
    """DCI: direct workspace interaction with read, bash and write only."""


@dataclass
class _TodoItem:
    text: str
    status: str


class Todo(Policy):
    """TODO: a todo list the model keeps through the ``todo`` tool."""

    label = "TODO"
    instructions = (
        "Keep a todo list of what the task asks with the todo tool: set it before you start (one item per thing "
        "the deliverable needs), and update it as you go (status pending, in_progress or done). Each call "
        "replaces the whole list."
    )
    tools = [
        function(
            "todo",
            "Set your todo list (the whole list each time): items with text and status pending, in_progress or "
            "done. The reply shows the list.",
            {
                "items": {
                    "type": "array",
                    "items": {
                        "type": "object",
                        "properties": {
                            "text": {"type": "string"},
                            "status": {"type": "string", "enum": list(TODO_STATUSES)},
                        },
                        "required": ["text", "status"],
                    },
                }
            },
            ["items"],
        )
    ]

    def __init__(self) -> None:
        super().__init__()
        self.items: list[_TodoItem] = []

    def call(self, tool: str, args: dict[str, Any]) -> Reply:
        if tool != "todo":
            return super().call(tool, args)
        items = args.get("items")
        if not isinstance(items, list):
            return Reply("todo: items must be a list of {text, status} objects.", is_error=True)
        parsed = []
        for i, item in enumerate(items):
            if not isinstance(item, dict) or not isinstance(item.get("text"), str):
                return Reply(f"todo: item {i} must be an object with a text.", is_error=True)
            status = item.get("status", "pending")
            if status not in TODO_STATUSES:
                return Reply(
                    f"todo: item {i} has status {status!r}; use {', '.join(TODO_STATUSES)}.", is_error=True
                )
            parsed.append(_TodoItem(item["text"], status))
        self.items = parsed
        marks = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]"}
        lines = [f"{marks[i.status]} {i.text}" for i in self.items] or ["(the list is empty)"]
        plan = {"tool": "todo", "items": [{"text": i.text, "status": i.status} for i in self.items]}
        return Reply("Todo list:\n" + "\n".join(lines), plan=plan)


class SelfRefine(Policy):
    """Self-Refine: at the first stop, one request to critique and revise the deliverable."""

    label = "Self-Refine"

    def __init__(self, rounds: int = 1) -> None:
        super().__init__()
        self.rounds = rounds
        self.asked = 0

    def on_stop(self, *, wrote: bool) -> str | None:
        if self.asked >= self.rounds:
            return None
        self.asked += 1
        return REFINE_MESSAGE

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "rounds": self.rounds}


@dataclass
class _Note:
    kind: str
    text: str


class SelfTracking(Policy):
    """Self-Tracking: requirement and reading notes the model keeps through the ``notes`` tool."""

    label = "Self-Tracking"
    instructions = (
        "Keep your own notes with the notes tool: first a requirement note for each thing the task asks, then, "
        "after each file you read, a reading note with the values you will need and the file they come from. "
        "notes with action list shows all of them. Write the deliverable from your notes."
    )
    tools = [
        function(
            "notes",
            "Add a note (kind requirement or reading, with its text) or list every note (action list).",
            {
                "action": {"type": "string", "enum": ["add", "list"]},
                "kind": {"type": "string", "enum": list(NOTE_KINDS)},
                "text": {"type": "string"},
            },
            [],
        )
    ]

    def __init__(self) -> None:
        super().__init__()
        self.notes: list[_Note] = []

    def call(self, tool: str, args: dict[str, Any]) -> Reply:
        if tool != "notes":
            return super().call(tool, args)
        action = args.get("action") or ("add" if "text" in args else "list")
        if action == "list":
            lines = [f"N{i} ({n.kind}) {n.text}" for i, n in enumerate(self.notes, 1)] or ["(no notes yet)"]
            return Reply("Notes:\n" + "\n".join(lines))
        if action != "add":
            return Reply(f"notes: action must be add or list, not {action!r}.", is_error=True)
        kind, text = args.get("kind", "reading"), args.get("text")
        if kind not in NOTE_KINDS or not isinstance(text, str) or not text.strip():
            return Reply("notes: add needs kind (requirement or reading) and a text.", is_error=True)
        self.notes.append(_Note(kind, text))
        plan = {"tool": "notes", "notes": [{"kind": n.kind, "text": n.text} for n in self.notes]}
        return Reply(f"Noted N{len(self.notes)} ({kind}).", plan=plan)


class RunningTabPolicy(Policy):
    """RunningTab: the environment-side tab (or one ablation of it)."""

    label = "RunningTab"
    instructions = (
        "The environment keeps a tab for this task beside you: every file you read is logged as a read-log "
        "entry (Lk), every file listed but never opened is a candidate, and a status line after each tool "
        "result says what is open. State each requirement of the task with tab_add first. Before you resolve "
        "them, review with tab_list (each open requirement beside the entries and candidates that match it); "
        "resolve each with tab_resolve: done citing the read-log entry that supports it, or unavailable with "
        "a reason. tab_show shows an entry as you read it."
    )
    tools = TOOLS

    def __init__(self, ablation: AblationName = "full") -> None:
        super().__init__()
        if ablation not in ABLATIONS:
            raise ValueError(f"unknown ablation {ablation!r}; known: {', '.join(ABLATIONS)}")
        self.config = TabConfig.ablation(ablation)
        self.variant = None if ablation == "full" else ablation

    def start(self, task: str, cwd: str | None) -> Environment:
        """The environment for one run (the task text the tab ranks candidates against, the working directory;
        ``None`` where the harness records none, as an Inspect log)."""
        self.environment = Environment(task, config=self.config, cwd=cwd, root=cwd)
        return self.environment

    def call(self, tool: str, args: dict[str, Any]) -> Reply:
        assert self.environment is not None
        if tool not in TAB_TOOLS:
            return super().call(tool, args)
        return Reply(self.environment.call(tool, args))

    def on_stop(self, *, wrote: bool) -> str | None:
        assert self.environment is not None
        return self.environment.finish()

    def describe(self) -> dict[str, Any]:
        return {**super().describe(), "tab": self.config.name}


def make_policy(method: str, ablation: str | None = None, **options: Any) -> Policy:
    """The policy of a method (``--method``, ``--ablation``); a bad name is a ``ValueError`` naming the choices."""
    if method not in METHODS:
        raise ValueError(f"unknown method {method!r}; known: {', '.join(METHODS)}")
    if ablation not in (None, "full") and method != "runningtab":
        raise ValueError(f"--ablation {ablation} applies to runningtab only")
    if method == "runningtab":
        return RunningTabPolicy(ablation or "full")  # type: ignore[arg-type]  # checked inside
    if method == "todo":
        return Todo()
    if method == "self-refine":
        return SelfRefine(int(options.get("rounds", 1)))
    if method == "self-tracking":
        return SelfTracking()
    return Plain()

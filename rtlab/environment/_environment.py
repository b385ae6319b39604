"""The environment that runs beside an agent and keeps its tab: the same object serves replay and a live agent.

For every tool call the harness hands the environment the step (:meth:`Environment.observe`): the environment
captures which files were read or only listed into the tab (unless capture is switched off) and returns what
the model reads, the step's shown text with the status line appended after a blank line. Tab tool calls
(``tab_add``, ``tab_resolve``, ``tab_list``, ``tab_show``; :data:`TOOLS` defines them for the OpenAI API)
are executed by :meth:`Environment.call`, which answers mistakes with text for the model and never raises;
their replies get the status line too. When the agent stops, :meth:`Environment.finish` gives the finish
check at most once.

Evaluators read the run without the tab: :func:`evaluator_view` drops tab calls, renumbers the steps and
removes the status lines (and finish-check messages) the environment added.
"""

from __future__ import annotations

import copy
import dataclasses
import json
from typing import TYPE_CHECKING, Any, Protocol

from rtlab.environment._tab import FINISH_PREFIX, Tab, TabConfig
from rtlab.records import STATUS_SEPARATOR, Step, Trajectory, status_start

if TYPE_CHECKING:
    from rtlab.environment._capture import Capture
    from rtlab.environment._workspace import Workspace

"""Between an observation and the status line the environment appends."""


class CaptureFn(Protocol):
    """The signature of :func:`rtlab.environment._capture.capture_step`, the default capture."""

    def __call__(
        self,
        step: Step,
        *,
        cwd: str | None = None,
        root: str | None = None,
        workspace: Workspace | None = None,
    ) -> Capture: ...


def function_tool(
    name: str, description: str, properties: dict[str, Any], required: list[str]
) -> dict[str, Any]:
    """An OpenAI function-tool definition, its parameters a closed JSON-schema object (the tab's tools, and the
    live harness's workspace tools and methods' tools)."""
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


TOOLS: list[dict[str, Any]] = [
    function_tool(
        "tab_add",
        "Add a requirement to the task's tab: one thing the deliverable must contain or satisfy (a value, a "
        "section, a check). It stays open until you resolve it.",
        {
            "text": {
                "type": "string",
                "description": "The requirement, in a few words of the task's own terms.",
            }
        },
        ["text"],
    ),
    function_tool(
        "tab_resolve",
        "Resolve an open requirement: status 'done' with cite = the read-log entry (Lk) whose content supports "
        "it (refused when that entry's path and excerpt share no word with the requirement), or status "
        "'unavailable' with a reason.",
        {
            "id": {"type": "string", "description": "The requirement id, e.g. R2."},
            "status": {"type": "string", "enum": ["done", "unavailable"]},
            "cite": {"type": "string", "description": "For done: the read-log entry id, e.g. L7."},
            "reason": {"type": "string", "description": "For unavailable: why the task cannot have it."},
        },
        ["id", "status"],
    ),
    function_tool(
        "tab_list",
        "Review the tab: each open requirement beside the read-log entries that best match it and the most "
        "relevant files that were listed but never opened.",
        {},
        [],
    ),
    function_tool(
        "tab_show",
        "Show a read-log entry: the excerpt exactly as you were shown it, with its file path and command.",
        {"id": {"type": "string", "description": "The read-log entry id, e.g. L3."}},
        ["id"],
    ),
]
TAB_TOOLS: frozenset[str] = frozenset(t["function"]["name"] for t in TOOLS)
_PARAMS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {
    t["function"]["name"]: (
        tuple(t["function"]["parameters"]["required"]),
        tuple(
            p
            for p in t["function"]["parameters"]["properties"]
            if p not in t["function"]["parameters"]["required"]
        ),
    )
    for t in TOOLS
}


def tab_tool(step: Step) -> str | None:
    """The tab tool a step called (``tab_add``, ``tab_resolve``, ``tab_list``, ``tab_show``): its own name, or
    for a tab tool reached under another name (``mcp__tab__tab_add`` through ``rtlab tab serve``) the one its
    reader typed it as (``Action("tab", op="add")``); ``None`` for any other step."""
    if step.tool in TAB_TOOLS:
        return step.tool
    action = step.action
    if action is not None and action.kind == "tab" and f"tab_{action.op}" in TAB_TOOLS:
        return f"tab_{action.op}"
    return None


def is_tab_call(step: Step) -> bool:
    """True for a call of one of the tab tools (:func:`tab_tool`)."""
    return tab_tool(step) is not None


def with_status(text: str, status: str) -> str:
    """``text`` with the status line appended after a blank line (just the status line for an empty text)."""
    return f"{text}{STATUS_SEPARATOR}{status}" if text else status


def strip_status(text: str) -> str:
    """Undo :func:`with_status`: drop a trailing status line the environment appended, if there is one."""
    return text[: status_start(text)]


class Environment:
    """Observes an agent's steps, captures reads into the tab, runs tab calls and issues the finish check."""

    def __init__(
        self,
        task: str,
        *,
        config: TabConfig | None = None,
        cwd: str | None = None,
        root: str | None = None,
        workspace: Workspace | None = None,
        capture: CaptureFn | None = None,
    ) -> None:
        self.config = config or TabConfig()
        self.tab = Tab(task, self.config)
        self.cwd = cwd
        self.root = root
        self.workspace = workspace
        self._capture = capture
        self._next_step = 0
        self.finish_issued = False

    def observe(self, step: Step) -> str:
        """What the model reads for ``step``: its shown text plus the status line, after capturing into the tab.

        A tab call is routed to :meth:`call` (its reply is not a read of any file).
        """
        tool = tab_tool(step)
        if tool is not None:
            return self.call(tool, step.args, step=step.index)
        self.record(step)
        return with_status(step.shown or "", self.tab.status_line())

    def record(self, step: Step) -> None:
        """Capture a step that is not a tab call into the tab: :meth:`observe` without composing what the model
        reads (replay keeps only the status line)."""
        self._next_step = max(self._next_step, step.index + 1)
        if self.config.capture and step.answered:
            shown = step.shown or ""
            kept = status_start(shown)  # a recorded tab run's last line: what the model read of the tab
            if kept < len(shown):
                frames = tuple(f for f in step.frames if f.end <= kept)
                step = dataclasses.replace(step, shown=shown[:kept], frames=frames)
            captured = self._capture_fn()(
                step, cwd=step.cwd or self.cwd, root=self.root, workspace=self.workspace
            )
            self.tab.record(step.index, step.command, captured)

    def _capture_fn(self) -> CaptureFn:
        if self._capture is None:
            from rtlab.environment._capture import capture_step

            self._capture = capture_step
        return self._capture

    def call(self, tool: str, arguments: dict[str, Any] | str | None, *, step: int | None = None) -> str:
        """Run a tab tool with the model's arguments (an object or its JSON text); mistakes come back as text."""
        if step is None:
            step = self._next_step
        self._next_step = max(self._next_step, step + 1)
        return with_status(self._run(tool, arguments, step), self.tab.status_line())

    def _run(self, tool: str, arguments: dict[str, Any] | str | None, step: int) -> str:
        if tool not in TAB_TOOLS:
            return f"{tool}: not a tab tool (the tab tools are {', '.join(sorted(TAB_TOOLS))})."
        args, problem = _parse(tool, arguments)
        if problem:
            return f"{tool}: {problem}"
        if tool == "tab_add":
            return self.tab.add(args["text"], step=step).text
        if tool == "tab_resolve":
            reply = self.tab.resolve(
                args["id"], args["status"], cite=args.get("cite"), reason=args.get("reason"), step=step
            )
            return reply.text
        if tool == "tab_show":
            return self.tab.show(args["id"]).text
        return self.tab.review().render()

    def finish(self) -> str | None:
        """The finish check: open requirements listed once, when the agent stops; ``None`` otherwise."""
        if not self.config.finish_check or self.finish_issued:
            return None
        message = self.tab.finish_message()
        if message is not None:
            self.finish_issued = True
        return message


def _parse(tool: str, arguments: dict[str, Any] | str | None) -> tuple[dict[str, Any], str | None]:
    """Check the model's arguments against the tool's parameters: all strings, required ones present."""
    if isinstance(arguments, dict) and set(arguments) == {"_raw"}:
        arguments = arguments["_raw"]  # a logged call whose arguments were not valid JSON
    if arguments is None or (isinstance(arguments, str) and not arguments.strip()):
        arguments = {}
    if isinstance(arguments, str):
        try:
            arguments = json.loads(arguments)
        except json.JSONDecodeError as exc:
            return (
                {},
                f"the arguments are not valid JSON ({exc.msg} at position {exc.pos}); send a JSON object.",
            )
    if not isinstance(arguments, dict):
        return {}, f"the arguments must be a JSON object, not {type(arguments).__name__}."
    required, optional = _PARAMS[tool]
    unknown = sorted(set(arguments) - set(required) - set(optional))
    if unknown:
        takes = ", ".join(required + optional) or "no arguments"
        return {}, f"unexpected argument(s) {', '.join(unknown)}; {tool} takes {takes}."
    missing = [name for name in required if arguments.get(name) is None]
    if missing:
        return {}, f"missing argument(s) {', '.join(missing)}."
    wrong = [name for name, value in arguments.items() if value is not None and not isinstance(value, str)]
    if wrong:
        return {}, f"argument(s) {', '.join(wrong)} must be strings."
    return arguments, None


def evaluator_view(trajectory: Trajectory) -> Trajectory:
    """A copy of the run as evaluators read it: no tab calls (steps renumbered from 0), no status lines and no
    finish-check messages."""
    view = copy.deepcopy(trajectory)
    kept = [s for s in view.steps if not is_tab_call(s)]
    for index, step in enumerate(kept):
        step.index = index
        if step.shown is not None:
            step.shown = strip_status(step.shown)
        if step.output is not None:
            step.output = strip_status(step.output)
    view.steps = kept
    view.events = [e for e in view.events if not e.text.startswith(FINISH_PREFIX)]
    return view

"""One harness session's method and tab, rebuilt from its journal and kept in step with it.

A :class:`LiveSession` is a method's policy (:func:`rtlab.agent.make_policy`: the full tab, one of its
ablations, or a baseline) over the session's events: the tool calls the harness reported (``observe``: the
step is built by the harness's reader rules and recorded into the tab), the calls of the method's own tools
(``call``), and the agent's stops (``stop``: the finish check, or the baseline's stop message). The same
:meth:`LiveSession.apply` serves live events and the journal's, so a session rebuilt from its journal is the
session that wrote it. :class:`Sessions` holds the live sessions of one process, each synchronised with its
journal under the session's lock before every use.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

from rtlab.agent import RunningTabPolicy, make_policy
from rtlab.environment import TAB_TOOLS, tab_tool
from rtlab.errors import RtlabError
from rtlab.harnesses._names import HOOK_TOOLS
from rtlab.harnesses._store import SessionFiles, SessionStore
from rtlab.ingest import claude_code_hook_step, codex_hook_step
from rtlab.records import Step

Harness = Literal["claude-code", "codex"]
HARNESSES: tuple[Harness, ...] = ("claude-code", "codex")
StepBuilder = Callable[..., Step]
SNAPSHOT_EVERY = 10
"""``tab.json`` is rewritten after every event but tool results, and after every tenth of those."""


_STEP_BUILDERS: dict[str, StepBuilder] = {"claude-code": claude_code_hook_step, "codex": codex_hook_step}
"""Each harness's rule for the step a tool event stands for: its reader's (one definition of what was shown)."""


@dataclass(frozen=True)
class Observation:
    """What the session made of one tool event."""

    step: Step
    """The step as the harness's reader rules build and type it (``shown`` ``None``: not rebuilt)."""
    status: str | None
    """The status line to give the model after the result; ``None`` when the method keeps no tab, or for a
    call of the method's own tools (their reply already carries it)."""
    own_tool: bool = False
    """The event is a call of the method's own tools (a tab call through MCP): nothing to add."""
    response: Any = None
    """The tool's output object as the hook gave it (``tool_response``): what an answer replacing it reshapes."""


class LiveSession:
    """A method over one harness session: its policy, its step counter, what it wrote."""

    def __init__(self, session_id: str, begin: dict[str, Any]) -> None:
        self.session_id = session_id
        self.harness: str = begin["harness"]
        self.method: str = begin["method"]
        self.ablation: str = begin.get("ablation") or "full"
        self.task: str = begin.get("task") or ""
        self.cwd: str | None = begin.get("cwd")
        self.created: float = begin.get("time", 0.0)
        self.policy = make_policy(self.method, self.ablation if self.method == "runningtab" else None)
        self.environment = (
            self.policy.start(self.task, self.cwd or "")
            if isinstance(self.policy, RunningTabPolicy)
            else None
        )
        self.next_step = 0
        self.wrote = False
        self.stops = 0
        self.applied = 1  # the journal's begin event

    @property
    def tool_names(self) -> frozenset[str]:
        """The method's own tools (the tab tools for RunningTab; ``todo``, ``notes`` for two baselines)."""
        return self.policy.tool_names

    def status_line(self) -> str | None:
        return self.environment.tab.status_line() if self.environment is not None else None

    def apply(self, event: dict[str, Any]) -> Any:
        """Apply one journal event; returns what it answers (an :class:`Observation`, a reply text, a stop
        message or ``None``)."""
        kind = event["kind"]
        if kind == "observe":
            return self._observe(event)
        if kind == "call":
            return self._call(str(event["tool"]), event.get("args"))
        if kind == "stop":
            self.stops += 1
            return self.policy.on_stop(wrote=self.wrote)
        if kind == "prompt":
            return None
        raise RtlabError(f"session {self.session_id}: unknown journal event kind {kind!r}")

    def _observe(self, event: dict[str, Any]) -> Observation:
        build = _STEP_BUILDERS[event.get("harness") or self.harness]
        step = build(
            self.next_step,
            str(event["tool_name"]),
            event.get("tool_input"),
            event.get("tool_response"),
            call_id=event.get("tool_use_id"),
            cwd=event.get("cwd") or self.cwd,
        )
        if tab_tool(step) is not None or _mcp_tool(step.tool) in self.tool_names | frozenset(HOOK_TOOLS):
            return Observation(step, None, own_tool=True)  # a call of this server's tools: not a step of work
        response = event.get("tool_response")
        self.next_step += 1
        if step.action is not None and step.action.kind in ("write", "edit") and not step.is_error:
            self.wrote = True
        if self.environment is None:
            return Observation(step, None, response=response)
        self.environment.record(step)
        return Observation(step, self.environment.tab.status_line(), response=response)

    def _call(self, tool: str, args: Any) -> str:
        index = self.next_step
        self.next_step += 1
        if self.environment is not None and tool in TAB_TOOLS:
            return self.environment.call(tool, args, step=index)
        if not isinstance(args, dict):
            args = {}
        return self.policy.call(tool, args).text

    def snapshot(self) -> dict[str, Any]:
        """``tab.json``: the session, its method and, for RunningTab, the tab (its excerpts included)."""
        snap: dict[str, Any] = {
            "session_id": self.session_id,
            "harness": self.harness,
            "method": self.method,
            "ablation": self.ablation if self.method == "runningtab" else None,
            "cwd": self.cwd,
            "steps": self.next_step,
            "stops": self.stops,
            "events": self.applied,
        }
        if self.environment is not None:
            snap["status_line"] = self.environment.tab.status_line()
            snap["finish_issued"] = self.environment.finish_issued
            snap["tab"] = self.environment.tab.to_dict()
        return snap


def _mcp_tool(tool: str) -> str | None:
    """The server's own name of an MCP tool as the harnesses name it (``mcp__tab__todo`` -> ``todo``)."""
    return tool.rsplit("__", 1)[-1] if tool.startswith("mcp__") and tool.count("__") >= 2 else None


class Sessions:
    """The sessions one process serves, each kept in step with its journal."""

    def __init__(
        self, store: SessionStore, *, method: str = "runningtab", ablation: str | None = None
    ) -> None:
        make_policy(method, ablation)  # a bad name fails here, before any session is made
        self.store = store
        self.method = method
        self.ablation = ablation or "full"
        self._live: dict[str, LiveSession] = {}

    def run(
        self,
        session_id: str,
        event: dict[str, Any],
        *,
        harness: str,
        cwd: str | None = None,
        task: str | None = None,
    ) -> tuple[LiveSession, Any]:
        """Apply ``event`` to the session (made when new, with this process's method; resumed from its journal
        otherwise), write it to the journal and the snapshot; returns the session and the event's answer."""
        files = self.store.session(session_id)
        with files.locked():
            live = self._synced(files, harness=harness, cwd=cwd, task=task)
            answer = live.apply(event)
            live.applied += 1
            files.write_event(live.applied, {**event, "pid": os.getpid()})  # which process applied it
            if event["kind"] != "observe" or live.next_step % SNAPSHOT_EVERY == 0:
                files.write_snapshot(live.snapshot())
        return live, answer

    def get(self, session_id: str, *, harness: str, cwd: str | None = None) -> LiveSession:
        """The session, made or brought up to date with its journal."""
        files = self.store.session(session_id)
        with files.locked():
            return self._synced(files, harness=harness, cwd=cwd, task=None)

    def _synced(self, files: SessionFiles, *, harness: str, cwd: str | None, task: str | None) -> LiveSession:
        live = self._live.get(files.session_id)
        if live is None:
            events = files.read_events(0)
            if events:
                _, begin = events[0]
                if begin.get("kind") != "begin":
                    raise RtlabError(f"{files.events_dir}: the journal does not start with its begin event")
                live = LiveSession(files.session_id, begin)
                events = events[1:]
            else:
                begin = {
                    "kind": "begin",
                    "session_id": files.session_id,
                    "harness": harness,
                    "method": self.method,
                    "ablation": self.ablation,
                    "task": task or "",
                    "cwd": cwd,
                    "time": time.time(),
                }
                live = LiveSession(files.session_id, begin)
                files.write_event(1, begin)
            self._live[files.session_id] = live
        else:
            events = files.read_events(live.applied)
        for number, event in events:
            live.apply(event)
            live.applied = number
        return live

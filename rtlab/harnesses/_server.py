"""``rtlab tab serve``: the MCP server (stdio) that holds the tab of the harness session it serves.

Its tools are of two kinds:

- **the method's tools**, which the model calls: for RunningTab the tab tools of
  :data:`rtlab.environment.TOOLS` (``tab_add``, ``tab_resolve``, ``tab_list``, ``tab_show``; the same names,
  descriptions and parameter schemas), for the TODO and Self-Tracking baselines their ``todo`` / ``notes``;
  none for DCI and Self-Refine. Replies are plain text (``structured_output=False``), mistakes included (the
  environment never raises on them).
- **the hooks' tools**, which the harness's hooks call with the hook's own event (Claude Code's ``mcp_tool``
  hooks): ``observe`` (a ``PostToolUse``: capture the result and answer with the hook JSON that puts the
  status line inside what the model reads), ``finish_check`` (a ``Stop``: block once with the open
  requirements), ``prompt`` (a ``UserPromptSubmit``: the task text, when the session is new), ``bind`` (a
  ``PreToolUse`` of this server's tools: which session the model's next call belongs to).

A harness starts one server process per session (Claude Code and Codex both do), but the model's tool calls
carry no session id: the server serves the session its hooks last named (``bind`` runs right before each of
the model's calls of this server's tools), and every hook event names its own session, so concurrent
sessions, each with its server, never share a tab. Every tool's answer is applied to the session's journal
first (:class:`rtlab.harnesses._session.Sessions`), so a restart resumes the tab.
"""

from __future__ import annotations

import inspect
import json
import os
import threading
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtlab.errors import RtlabError
from rtlab.harnesses import _claude_code, _codex
from rtlab.harnesses._claude_code import stop_answer
from rtlab.harnesses._names import HOOK_TOOLS, SERVER
from rtlab.harnesses._session import Sessions
from rtlab.harnesses._store import SessionStore

_ANSWERS = {"claude-code": _claude_code.post_tool_use_answer, "codex": _codex.post_tool_use_answer}
"""Each harness's ``PostToolUse`` answer (the status line inside the result, or beside it)."""

if TYPE_CHECKING:
    from mcp.server.mcpserver import MCPServer

NO_SESSION = (
    "{tool}: the tab has no session yet. Its hooks name the session before each call; install them with "
    "`rtlab tab install claude-code` (or codex) in the project."
)
_HOOK_DESCRIPTION = " Called by the harness's hooks with their event, not by the model."


def _value(text: Any) -> Any:
    """A hook field as Claude Code's ``mcp_tool`` input templated it (``${tool_response}``: an object becomes its
    JSON text): JSON text of an object or list is parsed back, the rest kept."""
    if isinstance(text, str) and text[:1] in ("{", "["):
        try:
            return json.loads(text)
        except ValueError:
            return text
    return text


def _refuse(message: str) -> None:
    """A hook tool's input is wrong: an MCP tool error carrying ``message`` (the SDK hides other exceptions)."""
    try:
        from mcp.server.mcpserver.exceptions import ToolError
    except ModuleNotFoundError:
        raise ValueError(message) from None
    raise ToolError(message)


class TabServer:
    """The sessions behind one server process and the session it serves now."""

    def __init__(self, sessions: Sessions, *, harness: str = "claude-code") -> None:
        self.sessions = sessions
        self.harness = harness
        self.bound: str | None = None
        self.cwd: str | None = None
        self._lock = threading.Lock()

    # -- the hooks' tools --------------------------------------------------------------------------------

    def bind(self, session_id: str, cwd: str | None = None) -> str:
        """Serve ``session_id`` from now on (made if new); answers with no hook output (``{}``)."""
        with self._lock:
            self._bind(session_id, cwd)
            self.sessions.get(session_id, harness=self.harness, cwd=self.cwd)
        return "{}"

    def _bind(self, session_id: str, cwd: str | None) -> None:
        if not session_id:
            _refuse("session_id is empty: the hook's input must template it (${session_id})")
        self.bound = session_id
        self.cwd = cwd or self.cwd

    def prompt(self, session_id: str, prompt: str = "", cwd: str | None = None) -> str:
        """A prompt the user submitted: the task text of a session it starts."""
        with self._lock:
            self._bind(session_id, cwd)
            self.sessions.run(
                session_id,
                {"kind": "prompt", "prompt": prompt},
                harness=self.harness,
                cwd=self.cwd,
                task=prompt,
            )
        return "{}"

    def observe(
        self,
        session_id: str,
        tool_name: str,
        tool_input: Any = None,
        tool_response: Any = None,
        tool_use_id: str | None = None,
        cwd: str | None = None,
    ) -> str:
        """A tool result (``PostToolUse``): recorded into the tab; answers with the hook's JSON."""
        return self._observe(
            session_id, tool_name, _value(tool_input), _value(tool_response), tool_use_id, cwd
        )

    def _observe(
        self,
        session_id: str,
        tool_name: str,
        tool_input: Any,
        tool_response: Any,
        tool_use_id: str | None,
        cwd: str | None,
    ) -> str:
        """:meth:`observe` with the event's values as they are (a forwarded event is JSON already: a command's
        output that reads as JSON stays the text it is)."""
        event = {
            "kind": "observe",
            "harness": self.harness,
            "tool_name": tool_name,
            "tool_input": tool_input,
            "tool_response": tool_response,
            "tool_use_id": tool_use_id or None,
            "cwd": cwd or None,
        }
        with self._lock:
            self._bind(session_id, cwd)
            _, observation = self.sessions.run(session_id, event, harness=self.harness, cwd=self.cwd)
        return json.dumps(_ANSWERS[self.harness](observation), ensure_ascii=False)

    def finish_check(self, session_id: str, stop_hook_active: Any = None, cwd: str | None = None) -> str:
        """The agent stops (``Stop``): the method's stop message once, as a block; else no hook output."""
        with self._lock:
            self._bind(session_id, cwd)
            _, message = self.sessions.run(session_id, {"kind": "stop"}, harness=self.harness, cwd=self.cwd)
        return json.dumps(stop_answer(message), ensure_ascii=False)

    def handle(self, event: dict[str, Any]) -> dict[str, Any]:
        """A whole hook event as a command hook reads it from stdin (Codex's, forwarded): the hook's answer."""
        kind = event.get("hook_event_name")
        session_id = event.get("session_id")
        if not isinstance(session_id, str) or not session_id:
            _refuse("the hook event has no session_id")
        assert isinstance(session_id, str)
        cwd = event.get("cwd") if isinstance(event.get("cwd"), str) else None
        if kind == "UserPromptSubmit":
            answer = self.prompt(session_id, str(event.get("prompt") or ""), cwd)
        elif kind == "PreToolUse":
            answer = self.bind(session_id, cwd)
        elif kind == "PostToolUse":
            answer = self._observe(
                session_id,
                str(event.get("tool_name") or ""),
                event.get("tool_input"),
                event.get("tool_response"),
                event.get("tool_use_id") if isinstance(event.get("tool_use_id"), str) else None,
                cwd,
            )
        elif kind == "Stop":
            answer = self.finish_check(session_id, event.get("stop_hook_active"), cwd)
        else:
            return {}
        result = json.loads(answer)
        return result if isinstance(result, dict) else {}

    def listen(self, path: Path) -> None:
        """Answer forwarded hook events on the Unix socket ``path`` (owner-only), in a daemon thread."""
        import socketserver

        state = self
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        os.chmod(path.parent, 0o700)
        path.unlink(missing_ok=True)

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                try:
                    answer = state.handle(json.loads(self.rfile.read() or b"{}"))
                except (
                    Exception
                ) as exc:  # a bad event: said to the hook, which reports it; the server goes on
                    answer = {"systemMessage": f"rtlab tab: {exc}"}
                self.wfile.write(json.dumps(answer, ensure_ascii=False).encode())

        server = socketserver.ThreadingUnixStreamServer(str(path), Handler)
        os.chmod(path, 0o600)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        self._socket = (server, path)

    def close(self) -> None:
        """Stop listening and remove the socket."""
        socket = getattr(self, "_socket", None)
        if socket is not None:
            socket[0].shutdown()
            socket[0].server_close()
            socket[1].unlink(missing_ok=True)

    # -- the model's tools -------------------------------------------------------------------------------

    def call(self, tool: str, args: dict[str, Any]) -> str:
        """A call of one of the method's tools by the model, in the bound session."""
        with self._lock:
            if self.bound is None:
                return NO_SESSION.format(tool=tool)
            args = {k: v for k, v in args.items() if v is not None}
            _, reply = self.sessions.run(
                self.bound, {"kind": "call", "tool": tool, "args": args}, harness=self.harness, cwd=self.cwd
            )
        return str(reply)


def _method_tool(server: TabServer, name: str, properties: dict[str, Any]) -> Callable[..., str]:
    """A function with one keyword parameter per property of the tool's schema, calling :meth:`TabServer.call`
    (the schema the model sees is the tool definition's own, set after registration)."""

    def tool(**kwargs: Any) -> str:
        return server.call(name, kwargs)

    params = [
        inspect.Parameter(p, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=Any) for p in properties
    ]
    tool.__signature__ = inspect.Signature(params, return_annotation=str)  # type: ignore[attr-defined]
    tool.__annotations__ = {p: Any for p in properties} | {"return": str}
    tool.__name__ = name
    return tool


def build_server(
    store: SessionStore | None = None,
    *,
    method: str = "runningtab",
    ablation: str | None = None,
    harness: str = "claude-code",
) -> tuple[MCPServer, TabServer]:
    """The MCP server of ``rtlab tab serve`` and the state behind it (``mcp`` is the optional extra ``mcp``)."""
    try:
        from mcp.server.mcpserver import MCPServer
    except ModuleNotFoundError as exc:  # the optional extra
        raise RtlabError(
            "rtlab tab serve needs the MCP SDK 2.x: pip install 'rtlab[mcp]' (mcp>=2,<3)"
        ) from exc
    from mcp.server.mcpserver.tools import Tool

    sessions = Sessions(store or SessionStore(), method=method, ablation=ablation)
    state = TabServer(sessions, harness=harness)
    tools = []
    for definition in _policy_tools(method, ablation):
        fn = definition["function"]
        tool = Tool.from_function(
            _method_tool(state, fn["name"], fn["parameters"]["properties"]),
            name=fn["name"],
            description=fn["description"],
            structured_output=False,
        )
        tool.parameters = fn["parameters"]  # the definition's schema, exactly (the function takes any values)
        tools.append(tool)
    server: MCPServer = MCPServer(SERVER, instructions=_instructions(method, ablation) or None, tools=tools)
    for name in HOOK_TOOLS:
        hook_tool = getattr(state, name)
        doc = (hook_tool.__doc__ or "").split("\n")[0]
        server.add_tool(hook_tool, description=doc + _HOOK_DESCRIPTION, structured_output=False)
    return server, state


def _policy_tools(method: str, ablation: str | None) -> list[dict[str, Any]]:
    from rtlab.agent import make_policy

    return list(make_policy(method, ablation).tools)


def _instructions(method: str, ablation: str | None) -> str:
    from rtlab.agent import make_policy

    return make_policy(method, ablation).instructions


def serve(
    store: SessionStore | None = None,
    *,
    method: str = "runningtab",
    ablation: str | None = None,
    harness: str = "claude-code",
) -> None:
    """Serve over stdio until the harness closes the pipe; for Codex, also answer its forwarded hook events on
    ``servers/<harness pid>.sock`` in the state folder."""
    store = store or SessionStore()
    server, state = build_server(store, method=method, ablation=ablation, harness=harness)
    if harness == "codex":
        state.listen(_codex.socket_path(store.root, os.getppid()))
    try:
        server.run("stdio")
    finally:
        state.close()


def hook_answer(
    event: dict[str, Any],
    store: SessionStore | None = None,
    *,
    method: str = "runningtab",
    ablation: str | None = None,
    harness: str = "codex",
    forwarded: bool = True,
) -> dict[str, Any]:
    """``rtlab tab hook codex``: the answer to one hook event, from the running server of this harness process
    (forwarded; ``forwarded=False``: the caller tried already), else applied to the session's journal here."""
    store = store or SessionStore()
    if forwarded:
        answer = _codex.forward(store.root, event)
        if answer is not None:
            return answer
    state = TabServer(Sessions(store, method=method, ablation=ablation), harness=harness)
    return state.handle(event)

"""Codex: the hook answers, the command hook that forwards each event to the running server, and the project
settings that run them.

Codex (0.171.0) has command hooks only (no ``mcp_tool``), in Claude Code's format (``hooks.json``), so each
event reaches the tab through ``rtlab tab hook codex``: it reads the event from stdin and forwards it to the
``rtlab tab serve --harness codex`` process of the same Codex session, over the Unix socket that server opened
in the state folder (``servers/<pid>.sock``, ``pid`` the Codex process both are children of: the hook looks
for its ancestors' sockets). The server answers as for Claude Code's ``mcp_tool`` hooks (the same
:class:`rtlab.harnesses._server.TabServer`), so one process holds the tab and every event binds the session
the model's next tab call belongs to. Without a server to reach (Codex started without it, or it died), the
hook applies the event to the session's journal itself (the journal and its lock keep both in step).

What the model gets (verified against 0.171.0 with a scripted Responses server):

- ``PostToolUse``: the status line as ``hookSpecificOutput.additionalContext`` (a ``developer`` message placed
  before the tool's output): Codex 0.171.0 does not apply ``updatedToolOutput`` to ``exec_command``.
- ``Stop``: ``{"decision": "block", "reason": ...}`` once (a user message ``<hook_prompt ...>``; the turn
  goes on): the finish check.

Untrusted hooks are skipped silently by ``codex exec``: a non-interactive run needs the project trusted
(``[projects."<dir>"] trust_level = "trusted"`` in ``~/.codex/config.toml``, or ``/hooks`` interactively) or
``--dangerously-bypass-hook-trust``.
"""

from __future__ import annotations

import json
import os
import shlex
import socket
from pathlib import Path
from typing import TYPE_CHECKING, Any

from rtlab.harnesses._names import HOOK_TOOLS, SERVER

if TYPE_CHECKING:  # this module is what a hook process imports to forward an event: nothing heavy
    from rtlab.harnesses._session import Observation

HOOK_EVENTS = ("UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop")
TRUST_NOTE = (
    "Codex runs project hooks only in trusted projects; `codex exec` skips untrusted hooks silently: trust the "
    'project ([projects."DIR"] trust_level = "trusted" in ~/.codex/config.toml, or /hooks), or pass '
    "--dangerously-bypass-hook-trust"
)


def post_tool_use_answer(observation: Observation) -> dict[str, Any]:
    """The ``PostToolUse`` answer: the status line as additional context (``{}`` for the tab's own calls)."""
    if observation.own_tool or observation.status is None:
        return {}
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": observation.status}}


def hooks_json(hook_command: list[str]) -> dict[str, Any]:
    """The ``hooks`` entries ``rtlab tab install codex`` adds to ``.codex/hooks.json``."""
    command = {"type": "command", "command": shlex.join(hook_command), "timeout": 30}
    return {
        "UserPromptSubmit": [{"hooks": [command]}],
        "PreToolUse": [{"matcher": f"mcp__{SERVER}__.*", "hooks": [command]}],
        "PostToolUse": [{"matcher": "*", "hooks": [command]}],
        "Stop": [{"hooks": [command]}],
    }


def mcp_server_toml(serve_command: list[str]) -> str:
    """The ``[mcp_servers.tab]`` table ``rtlab tab install codex`` appends to ``.codex/config.toml``. Its tools are
    approved (``default_tools_approval_mode``, Codex >= 0.116, openai/codex#17843): under a sandbox other than
    ``danger-full-access`` Codex otherwise asks before every MCP call, and ``codex exec`` (approval policy
    ``never``) refuses them ("MCP tool call requires approval", seen with 0.171.0 and ``workspace-write``)."""
    args = ", ".join(json.dumps(a) for a in serve_command[1:])
    hidden = ", ".join(json.dumps(t) for t in HOOK_TOOLS)  # Codex's hooks reach the server by its socket
    return (
        f"\n[mcp_servers.{SERVER}]\ncommand = {json.dumps(serve_command[0])}\nargs = [{args}]\n"
        f'disabled_tools = [{hidden}]\ndefault_tools_approval_mode = "approve"\n'
    )


# --- forwarding ----------------------------------------------------------------------------------------------


def socket_path(state_dir: Path, pid: int) -> Path:
    """Where the server serving the harness process ``pid`` listens."""
    return state_dir / "servers" / f"{pid}.sock"


def ancestors(pid: int | None = None, depth: int = 6) -> list[int]:
    """This process's parent, grandparent, ... (Linux ``/proc``), nearest first."""
    found: list[int] = []
    pid = os.getpid() if pid is None else pid
    for _ in range(depth):
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        parent = int(stat.rsplit(")", 1)[1].split()[1])  # the field after the state, past the command's ")"
        if parent <= 1:
            break
        found.append(parent)
        pid = parent
    return found


def forward(
    state_dir: Path, event: dict[str, Any], *, timeout: float = 20.0, pids: list[int] | None = None
) -> dict[str, Any] | None:
    """Send ``event`` to the server of this hook's harness process (``pids``: where to look, by default this
    process's ancestors); its answer, or ``None`` when no such server listens."""
    for pid in ancestors() if pids is None else pids:
        path = socket_path(state_dir, pid)
        if not path.exists():
            continue
        try:
            with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                s.settimeout(timeout)
                s.connect(str(path))
                s.sendall(json.dumps(event).encode() + b"\n")
                s.shutdown(socket.SHUT_WR)
                data = b""
                while chunk := s.recv(65536):
                    data += chunk
        except (ConnectionRefusedError, FileNotFoundError):
            continue  # a server that is gone (its pid reused): try the next, then the journal
        answer = json.loads(data or b"{}")
        return answer if isinstance(answer, dict) else {}
    return None

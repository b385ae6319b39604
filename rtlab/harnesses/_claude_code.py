"""Claude Code: the hook answers of ``rtlab tab serve`` and the project settings that call it.

Claude Code (>= 2.1.121 for ``updatedToolOutput`` on every tool; ``mcp_tool`` hooks since 2.1.118) calls the
server's hook tools through ``mcp_tool`` hooks, each ``input`` templated from the hook's event
(``${session_id}``, ``${tool_input}``: an object arrives as its JSON text). The tool's text is read back as the
hook's JSON answer:

- ``PostToolUse`` → ``observe``: the status line inside the ``tool_result`` the model reads, after the result
  as Claude Code shows it (rebuilt from ``tool_response`` by its reader's rules,
  :func:`rtlab.ingest.claude_code_shown`) and a blank line, as rtlab's own harness gives it, through
  ``hookSpecificOutput.updatedToolOutput``. Claude Code 2.1.332 checks a replacement against the tool's output
  shape (a string for a built-in tool is refused: "does not match Read's output shape; using original
  output"), so the replacement is the tool's own output object: for ``Bash`` ``stdout`` = the shown text +
  the status line (``stderr`` emptied, its text being in the shown text), for an MCP tool the text. ``Read``
  numbers every line of its ``content``, so a status line put there would read as lines of the file: for
  ``Read`` and every tool whose shown text rtlab does not rebuild, the status line comes as
  ``additionalContext`` (a separate system message right after the result), the result left as it is.
- ``Stop`` → ``finish_check``: ``{"decision": "block", "reason": ...}`` once, with the open requirements.
"""

from __future__ import annotations

from typing import Any

from rtlab.environment import with_status
from rtlab.harnesses._names import HOOK_TOOLS, SERVER
from rtlab.harnesses._session import Observation

SHELL_TOOLS = frozenset({"Bash"})
"""Claude Code's shell tool, whose output object carries the shown text in ``stdout``."""


def post_tool_use_answer(observation: Observation) -> dict[str, Any]:
    """The ``PostToolUse`` hook's JSON for one observed tool result (``{}``: leave the result as it is)."""
    if observation.own_tool or observation.status is None:
        return {}
    step, status, response = observation.step, observation.status, observation.response
    updated: Any = None
    if step.shown is not None and step.tool in SHELL_TOOLS and isinstance(response, dict):
        updated = {**response, "stdout": with_status(step.shown, status), "stderr": "", "interrupted": False}
        updated.pop("backgroundTaskId", None)  # its notice is in the shown text already
    elif step.shown is not None and step.tool.startswith("mcp__") and isinstance(response, str):
        updated = with_status(step.shown, status)
    if updated is None:
        return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": status}}
    return {"hookSpecificOutput": {"hookEventName": "PostToolUse", "updatedToolOutput": updated}}


def stop_answer(message: str | None) -> dict[str, Any]:
    """The ``Stop`` hook's JSON: a block with the finish check's text, or nothing (let the agent stop)."""
    return {"decision": "block", "reason": message} if message else {}


def _mcp_hook(tool: str, fields: tuple[str, ...]) -> dict[str, Any]:
    return {
        "type": "mcp_tool",
        "server": SERVER,
        "tool": tool,
        "input": {name: "${" + name + "}" for name in fields},
    }


def hook_settings() -> dict[str, list[dict[str, Any]]]:
    """The ``hooks`` entries ``rtlab tab install claude-code`` adds to ``.claude/settings.json``."""
    return {
        "UserPromptSubmit": [{"hooks": [_mcp_hook("prompt", ("session_id", "cwd", "prompt"))]}],
        "PreToolUse": [
            {"matcher": f"mcp__{SERVER}__.*", "hooks": [_mcp_hook("bind", ("session_id", "cwd"))]}
        ],
        "PostToolUse": [
            {
                "matcher": "*",
                "hooks": [
                    _mcp_hook(
                        "observe",
                        ("session_id", "cwd", "tool_name", "tool_input", "tool_response", "tool_use_id"),
                    )
                ],
            }
        ],
        "Stop": [{"hooks": [_mcp_hook("finish_check", ("session_id", "cwd", "stop_hook_active"))]}],
    }


def denied_tools() -> list[str]:
    """``permissions.deny`` entries that take the hooks' tools out of the model's tool list (the hooks still
    call them: checked with 2.1.332)."""
    return [f"mcp__{SERVER}__{tool}" for tool in HOOK_TOOLS]


def mcp_server_entry(command: list[str], env: dict[str, str] | None = None) -> dict[str, Any]:
    """The ``.mcp.json`` ``mcpServers.tab`` entry: ``command`` is ``rtlab tab serve ...`` as a list."""
    entry: dict[str, Any] = {"type": "stdio", "command": command[0], "args": command[1:]}
    if env:
        entry["env"] = env
    return entry

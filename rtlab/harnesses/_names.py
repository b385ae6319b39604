"""The names the harnesses' settings and the server share (light: a hook process imports it)."""

from __future__ import annotations

SERVER = "tab"
"""The MCP server's name in the harness's settings: its tools reach the model as ``mcp__tab__tab_add``, ..."""
HOOK_TOOLS: tuple[str, ...] = ("observe", "finish_check", "prompt", "bind")
"""The server's tools that only the hooks call, kept out of the model's tool list by the settings install writes
(Claude Code's ``permissions.deny``, Codex's ``disabled_tools``)."""

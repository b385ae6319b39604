"""The names the harnesses' settings and the server share (light: a hook process imports it)."""

from __future__ import annotations

import os
from pathlib import Path

SERVER = "tab"
"""The MCP server's name in the harness's settings: its tools reach the model as ``mcp__tab__tab_add``, ..."""
HOOK_TOOLS: tuple[str, ...] = ("observe", "finish_check", "prompt", "bind")
"""The server's tools that only the hooks call, kept out of the model's tool list by the settings install writes
(Claude Code's ``permissions.deny``, Codex's ``disabled_tools``)."""
STATE_ENV = "RTLAB_TAB_STATE"
"""The environment variable naming the state folder (``--state-dir`` wins over it; :func:`default_state_dir`)."""


def default_state_dir() -> Path:
    """``$RTLAB_TAB_STATE``, else ``$XDG_STATE_HOME/rtlab/tab``, else ``~/.local/state/rtlab/tab``."""
    if os.environ.get(STATE_ENV):
        return Path(os.environ[STATE_ENV])
    base = os.environ.get("XDG_STATE_HOME") or str(Path.home() / ".local" / "state")
    return Path(base) / "rtlab" / "tab"

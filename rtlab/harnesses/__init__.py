"""The tab inside other harnesses: Claude Code and Codex sessions get the paper's tab (or a baseline) from
``rtlab tab serve``, an MCP server holding one :class:`rtlab.environment.Environment` per harness session, fed
by the harness's hooks; ``rtlab tab install`` / ``uninstall`` write and remove the project settings. The
session's journal and tab live outside the workspace, owner-only (``_store``); what the model was shown is
rebuilt by rtlab's reader of that harness (:mod:`rtlab.ingest`), so live capture is what replay of the
harness's own log captures. ``rtlab experiment --agent claude-code|codex`` runs the CLI itself as the agent of each
run of a grid, the method installed this way (``_experiment``)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.harnesses._claude_code import hook_settings as hook_settings
    from rtlab.harnesses._claude_code import post_tool_use_answer as post_tool_use_answer
    from rtlab.harnesses._claude_code import stop_answer as stop_answer
    from rtlab.harnesses._codex import forward as forward
    from rtlab.harnesses._experiment import CLI_AGENTS as CLI_AGENTS
    from rtlab.harnesses._experiment import CliAgent as CliAgent
    from rtlab.harnesses._experiment import CliNotFoundError as CliNotFoundError
    from rtlab.harnesses._experiment import CliRunConfig as CliRunConfig
    from rtlab.harnesses._experiment import cli_runner as cli_runner
    from rtlab.harnesses._experiment import find_cli as find_cli
    from rtlab.harnesses._experiment import run_cli_agent as run_cli_agent
    from rtlab.harnesses._install import INSTALLERS as INSTALLERS
    from rtlab.harnesses._install import InstallReport as InstallReport
    from rtlab.harnesses._install import install_claude_code as install_claude_code
    from rtlab.harnesses._install import install_codex as install_codex
    from rtlab.harnesses._install import serve_command as serve_command
    from rtlab.harnesses._install import uninstall as uninstall
    from rtlab.harnesses._server import TabServer as TabServer
    from rtlab.harnesses._server import build_server as build_server
    from rtlab.harnesses._server import hook_answer as hook_answer
    from rtlab.harnesses._server import serve as serve
    from rtlab.harnesses._session import HARNESSES as HARNESSES
    from rtlab.harnesses._session import Harness as Harness
    from rtlab.harnesses._session import LiveSession as LiveSession
    from rtlab.harnesses._session import Observation as Observation
    from rtlab.harnesses._session import Sessions as Sessions
    from rtlab.harnesses._store import SessionStore as SessionStore
    from rtlab.harnesses._store import default_state_dir as default_state_dir

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._claude_code": ("hook_settings", "post_tool_use_answer", "stop_answer"),
        "._codex": ("forward",),
        "._experiment": (
            "CLI_AGENTS",
            "CliAgent",
            "CliNotFoundError",
            "CliRunConfig",
            "cli_runner",
            "find_cli",
            "run_cli_agent",
        ),
        "._install": (
            "INSTALLERS",
            "InstallReport",
            "install_claude_code",
            "install_codex",
            "serve_command",
            "uninstall",
        ),
        "._server": ("TabServer", "build_server", "hook_answer", "serve"),
        "._session": ("HARNESSES", "Harness", "LiveSession", "Observation", "Sessions"),
        "._store": ("SessionStore", "default_state_dir"),
    },
)

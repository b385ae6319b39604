"""``rtlab tab install`` / ``uninstall``: the project settings that run the tab in a harness, merged into what is
there and taken out again exactly. (Codex: :func:`install_codex`, ``.codex/config.toml`` and ``hooks.json``.)

For Claude Code, install adds to the project folder:

- ``.mcp.json``: ``mcpServers.tab`` (``rtlab tab serve`` with its options);
- ``.claude/settings.json``: the ``mcp_tool`` hooks (:func:`rtlab.harnesses._claude_code.hook_settings`),
  each matcher group appended to the event's list after the groups already there, ``"tab"`` in
  ``enabledMcpjsonServers`` (the project server approved, so ``claude -p`` uses it), and the hooks' own tools
  in ``permissions.deny`` (out of the model's tool list; the hooks still call them);
- ``.claude/rtlab-tab.json``: the install record, what was added and which files and keys were new.

Nothing is overwritten: a server named ``tab`` that is not this one is refused, hooks already present are not
added twice. Uninstall reads the record and removes exactly those additions (a key or file install made is
removed when it is empty again); without a record it removes the entries that are recognisably rtlab's.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from rtlab.errors import RtlabError
from rtlab.harnesses._claude_code import denied_tools, hook_settings, mcp_server_entry
from rtlab.harnesses._codex import TRUST_NOTE, mcp_server_toml
from rtlab.harnesses._codex import hooks_json as codex_hooks
from rtlab.harnesses._names import SERVER
from rtlab.io import atomic_open

RECORD = Path(".claude") / "rtlab-tab.json"
"""The install record, beside the settings it describes."""


@dataclass
class InstallReport:
    """What install or uninstall did, for the command's report."""

    folder: Path
    """The project folder."""
    changed: list[Path] = field(default_factory=list)
    """Files written (merged into or created)."""
    removed: list[Path] = field(default_factory=list)
    """Files removed (created by install and empty again)."""
    notes: list[str] = field(default_factory=list)
    """What the user should know (an entry already there, the trust a harness needs)."""


def serve_command(
    harness: str,
    *,
    state_dir: str | Path | None = None,
    method: str = "runningtab",
    ablation: str | None = None,
    python: str | None = None,
) -> list[str]:
    """``rtlab tab serve`` as the harness will start it (this interpreter, an absolute state folder), with the
    method and ablation it serves: the command ``rtlab tab install`` writes into the settings."""
    cmd = [python or sys.executable, "-m", "rtlab", "tab", "serve", "--harness", harness]
    if state_dir:
        cmd += ["--state-dir", os.path.abspath(state_dir)]
    if method != "runningtab":
        cmd += ["--method", method]
    if ablation not in (None, "full"):
        cmd += ["--ablation", str(ablation)]
    return cmd


def _load(path: Path) -> dict[str, Any]:
    if not path.exists():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as exc:
        raise RtlabError(f"{path}: not valid JSON ({exc}); fix or move it, rtlab merges into it") from exc
    if not isinstance(data, dict):
        raise RtlabError(f"{path}: holds {type(data).__name__}, not a JSON object")
    return data


def _write(path: Path, data: dict[str, Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with atomic_open(path) as f:
        json.dump(data, f, indent=2, ensure_ascii=False)
        f.write("\n")


def _object(data: dict[str, Any], key: str, path: Path) -> dict[str, Any]:
    value = data.setdefault(key, {})
    if not isinstance(value, dict):
        raise RtlabError(f"{path} [{key}]: holds {type(value).__name__}, not an object")
    return value


def _list(data: dict[str, Any], key: str, path: Path) -> list[Any]:
    value = data.setdefault(key, [])
    if not isinstance(value, list):
        raise RtlabError(f"{path} [{key}]: holds {type(value).__name__}, not a list")
    return value


def _remove_hook_groups(hooks: dict[str, Any], record: dict[str, Any]) -> list[str]:
    """Remove from ``hooks`` (a settings file's ``hooks`` object) exactly the groups the install ``record`` says
    it added, wherever they still are; the events the record names."""
    events = record.get("hooks") or {}
    for event, groups in events.items():
        present = hooks.get(event)
        if isinstance(present, list):
            for group in groups:
                if group in present:
                    present.remove(group)
    return list(events)


def _begin(folder: str | Path, record: str | Path) -> tuple[Path, InstallReport, Path | None]:
    """An install's start: the project folder (which must exist), its report, and where its install record goes
    (``None``, with a note in the report, when the tab is installed there already)."""
    folder = Path(folder).resolve()
    if not folder.is_dir():
        raise RtlabError(f"{folder}: no such folder")
    report = InstallReport(folder)
    record_path = folder / record
    if record_path.exists():
        report.notes.append(
            f"already installed ({record_path}); run `rtlab tab uninstall` first to change it"
        )
        return folder, report, None
    return folder, report, record_path


def install_claude_code(
    folder: str | Path, serve_command: list[str], *, env: dict[str, str] | None = None
) -> InstallReport:
    """Add the tab's server and hooks to the Claude Code project ``folder`` (merging, never clobbering)."""
    folder, report, record_path = _begin(folder, RECORD)
    if record_path is None:
        return report
    mcp_path, settings_path = folder / ".mcp.json", folder / ".claude" / "settings.json"
    record: dict[str, Any] = {
        "harness": "claude-code",
        "created_files": [],
        "created_keys": [],
        "mcp_server": None,
        "hooks": {},
        "enabled_server": False,
    }
    had_claude_dir = (folder / ".claude").is_dir()

    mcp = _load(mcp_path)
    if not mcp_path.exists():
        record["created_files"].append(".mcp.json")
    if "mcpServers" not in mcp:
        record["created_keys"].append(".mcp.json:mcpServers")
    servers = _object(mcp, "mcpServers", mcp_path)
    entry = mcp_server_entry(serve_command, env)
    if SERVER in servers and servers[SERVER] != entry:
        raise RtlabError(
            f"{mcp_path} [mcpServers.{SERVER}]: a different server named {SERVER!r} is configured; rtlab does not "
            "replace it (remove it, or run `rtlab tab uninstall` if an older rtlab install wrote it)"
        )
    if SERVER not in servers:
        servers[SERVER] = entry
        record["mcp_server"] = entry

    settings = _load(settings_path)
    if not settings_path.exists():
        record["created_files"].append(".claude/settings.json")
    if "hooks" not in settings:
        record["created_keys"].append(".claude/settings.json:hooks")
    hooks = _object(settings, "hooks", settings_path)
    for event, groups in hook_settings().items():
        if event not in hooks:
            record["created_keys"].append(f".claude/settings.json:hooks.{event}")
        present = _list(hooks, event, settings_path)
        added = [g for g in groups if g not in present]
        present.extend(added)
        if added:
            record["hooks"][event] = added
    if "permissions" not in settings:
        record["created_keys"].append(".claude/settings.json:permissions")
    permissions = _object(settings, "permissions", settings_path)
    if "deny" not in permissions:
        record["created_keys"].append(".claude/settings.json:permissions.deny")
    deny = _list(permissions, "deny", settings_path)
    record["denied"] = [rule for rule in denied_tools() if rule not in deny]
    deny.extend(record["denied"])
    if "enabledMcpjsonServers" not in settings:
        record["created_keys"].append(".claude/settings.json:enabledMcpjsonServers")
    enabled = _list(settings, "enabledMcpjsonServers", settings_path)
    if SERVER not in enabled:
        enabled.append(SERVER)
        record["enabled_server"] = True

    if not had_claude_dir:
        record["created_files"].append(".claude/")
    _write(mcp_path, mcp)
    _write(settings_path, settings)
    _write(record_path, record)
    report.changed += [mcp_path, settings_path, record_path]
    return report


def uninstall(folder: str | Path) -> InstallReport:
    """Remove what ``install`` added to the project ``folder`` for each harness (by its record; without one,
    Claude Code's entries that are recognisably rtlab's)."""
    folder = Path(folder).resolve()
    report = InstallReport(folder)
    if (folder / CODEX_RECORD).exists():
        _uninstall_codex(folder, report)
    if (folder / RECORD).exists() or (folder / ".mcp.json").exists() or not (folder / CODEX_RECORD).exists():
        _uninstall_claude_code(folder, report)
    return report


def _uninstall_claude_code(folder: Path, report: InstallReport) -> None:
    record_path = folder / RECORD
    mcp_path, settings_path = folder / ".mcp.json", folder / ".claude" / "settings.json"
    if record_path.exists():
        record = _load(record_path)
    else:
        report.notes.append(
            f"no install record ({record_path}): removing the entries rtlab recognises as its own"
        )
        record = {
            "created_files": [],
            "created_keys": [],
            "mcp_server": "recognise",
            "hooks": hook_settings(),
            "enabled_server": False,
        }
    created_keys = set(record.get("created_keys") or [])

    def tidy(data: dict[str, Any], key: str, name: str) -> None:
        """Drop ``data[key]`` (recorded as ``name``) when install made it and it is empty again."""
        if name in created_keys and key in data and not data[key]:
            del data[key]

    if mcp_path.exists():
        mcp = _load(mcp_path)
        servers = mcp.get("mcpServers")
        if isinstance(servers, dict) and SERVER in servers:
            mine = record.get("mcp_server")
            if servers[SERVER] == mine or (mine == "recognise" and _is_rtlab_server(servers[SERVER])):
                del servers[SERVER]
        tidy(mcp, "mcpServers", ".mcp.json:mcpServers")
        _write_or_remove(mcp_path, mcp, ".mcp.json" in (record.get("created_files") or []), report)
    if settings_path.exists():
        settings = _load(settings_path)
        hooks = settings.get("hooks")
        if isinstance(hooks, dict):
            for event in _remove_hook_groups(hooks, record):
                tidy(hooks, event, f".claude/settings.json:hooks.{event}")
            tidy(settings, "hooks", ".claude/settings.json:hooks")
        permissions = settings.get("permissions")
        if isinstance(permissions, dict):
            deny = permissions.get("deny")
            if isinstance(deny, list):
                for rule in record.get("denied") or []:
                    if rule in deny:
                        deny.remove(rule)
            tidy(permissions, "deny", ".claude/settings.json:permissions.deny")
            tidy(settings, "permissions", ".claude/settings.json:permissions")
        enabled = settings.get("enabledMcpjsonServers")
        if record.get("enabled_server") and isinstance(enabled, list) and SERVER in enabled:
            enabled.remove(SERVER)
        tidy(settings, "enabledMcpjsonServers", ".claude/settings.json:enabledMcpjsonServers")
        _write_or_remove(
            settings_path, settings, ".claude/settings.json" in (record.get("created_files") or []), report
        )
    if record_path.exists():
        record_path.unlink()
        report.removed.append(record_path)
    claude_dir = folder / ".claude"
    if (
        ".claude/" in (record.get("created_files") or [])
        and claude_dir.is_dir()
        and not any(claude_dir.iterdir())
    ):
        claude_dir.rmdir()
        report.removed.append(claude_dir)


def _write_or_remove(path: Path, data: dict[str, Any], created: bool, report: InstallReport) -> None:
    if created and not data:
        path.unlink()
        report.removed.append(path)
    else:
        _write(path, data)
        report.changed.append(path)


def _is_rtlab_server(entry: Any) -> bool:
    args = entry.get("args") if isinstance(entry, dict) else None
    return isinstance(args, list) and any(args[i : i + 2] == ["tab", "serve"] for i in range(len(args)))


# --- Codex -------------------------------------------------------------------------------------------------

CODEX_RECORD = Path(".codex") / "rtlab-tab.json"


def install_codex(
    folder: str | Path, serve_command: list[str], hook_command: list[str] | None = None
) -> InstallReport:
    """Add the tab's server (``.codex/config.toml``: ``[mcp_servers.tab]``, appended) and command hooks
    (``.codex/hooks.json``, merged) to the Codex project ``folder``; the project must be trusted for Codex to
    run them (:data:`rtlab.harnesses._codex.TRUST_NOTE`)."""
    import tomllib

    folder, report, record_path = _begin(folder, CODEX_RECORD)
    if record_path is None:
        return report
    hook_command = hook_command or _hook_command(serve_command)
    codex_dir = folder / ".codex"
    config_path, hooks_path = codex_dir / "config.toml", codex_dir / "hooks.json"
    record: dict[str, Any] = {
        "harness": "codex",
        "created_files": [],
        "created_keys": [],
        "toml": None,
        "hooks": {},
    }
    if not codex_dir.is_dir():
        record["created_files"].append(".codex/")
    text = config_path.read_text(encoding="utf-8") if config_path.exists() else ""
    try:
        config = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise RtlabError(f"{config_path}: not valid TOML ({exc}); fix it, rtlab appends to it") from exc
    block = mcp_server_toml(serve_command)
    present = (config.get("mcp_servers") or {}).get(SERVER)
    if present is not None and present != tomllib.loads(block)["mcp_servers"][SERVER]:
        raise RtlabError(
            f"{config_path} [mcp_servers.{SERVER}]: a different server named {SERVER!r} is configured; rtlab does "
            "not replace it"
        )
    if present is None:
        if not config_path.exists():
            record["created_files"].append(".codex/config.toml")
        record["toml"] = block
        codex_dir.mkdir(parents=True, exist_ok=True)
        with atomic_open(config_path) as f:
            f.write(text + ("\n" if text and not text.endswith("\n") else "") + block)
        report.changed.append(config_path)
    hooks_file = _load(hooks_path)
    if not hooks_path.exists():
        record["created_files"].append(".codex/hooks.json")
    if "hooks" not in hooks_file:
        record["created_keys"].append("hooks")
    hooks = _object(hooks_file, "hooks", hooks_path)
    for event, groups in codex_hooks(hook_command).items():
        if event not in hooks:
            record["created_keys"].append(f"hooks.{event}")
        have = _list(hooks, event, hooks_path)
        added = [g for g in groups if g not in have]
        have.extend(added)
        if added:
            record["hooks"][event] = added
    _write(hooks_path, hooks_file)
    _write(record_path, record)
    report.changed += [hooks_path, record_path]
    report.notes.append(TRUST_NOTE)
    return report


def _hook_command(serve_command: list[str]) -> list[str]:
    """The lean hook (:mod:`rtlab.harnesses.hook` run as a file, without the site packages: what ``rtlab tab hook
    codex`` runs, at the cost of Python's bare start) with the server's interpreter, state folder and method."""
    from rtlab.harnesses import hook

    i = serve_command.index("serve")
    options = list(serve_command[i + 1 :])
    if "--harness" in options:
        j = options.index("--harness")
        del options[j : j + 2]
    return [serve_command[0], "-I", "-S", str(Path(hook.__file__).resolve()), *options]


def _uninstall_codex(folder: Path, report: InstallReport) -> None:
    record_path = folder / CODEX_RECORD
    record = _load(record_path)
    created = record.get("created_files") or []
    created_keys = set(record.get("created_keys") or [])
    config_path, hooks_path = folder / ".codex" / "config.toml", folder / ".codex" / "hooks.json"
    block = record.get("toml")
    if isinstance(block, str) and config_path.exists():
        text = config_path.read_text(encoding="utf-8")
        if block in text:
            text = text.replace(block, "", 1)
            if ".codex/config.toml" in created and not text.strip():
                config_path.unlink()
                report.removed.append(config_path)
            else:
                with atomic_open(config_path) as f:
                    f.write(text)
                report.changed.append(config_path)
        else:
            report.notes.append(
                f"{config_path}: the [mcp_servers.{SERVER}] table install wrote was changed; left as it is"
            )
    if hooks_path.exists():
        hooks_file = _load(hooks_path)
        hooks = hooks_file.get("hooks")
        if isinstance(hooks, dict):
            for event in _remove_hook_groups(hooks, record):
                if f"hooks.{event}" in created_keys and event in hooks and not hooks[event]:
                    del hooks[event]
            if "hooks" in created_keys and not hooks:
                del hooks_file["hooks"]
        _write_or_remove(hooks_path, hooks_file, ".codex/hooks.json" in created, report)
    record_path.unlink()
    report.removed.append(record_path)
    codex_dir = folder / ".codex"
    if ".codex/" in created and codex_dir.is_dir() and not any(codex_dir.iterdir()):
        codex_dir.rmdir()
        report.removed.append(codex_dir)


INSTALLERS: dict[str, Callable[..., InstallReport]] = {
    "claude-code": install_claude_code,
    "codex": install_codex,
}
"""``rtlab tab install HARNESS``: each harness's installer."""

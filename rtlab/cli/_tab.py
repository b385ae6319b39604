"""The tab in other harnesses: ``rtlab tab serve`` (the MCP server a Claude Code or Codex session starts),
``rtlab tab install`` / ``uninstall`` (the project settings that run it) and ``rtlab tab show`` (a session's
tab as stored)."""

from __future__ import annotations

import argparse
import json
import sys

from rtlab.cli._common import existing_folder
from rtlab.cli._options import command, method_options

TITLE = "the tab in Claude Code and Codex"
"""The heading of these commands in ``rtlab --help``."""
HARNESSES = ("claude-code", "codex")
"""The harnesses the tab runs in (``rtlab.harnesses.HARNESSES``)."""


def _state_option(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "--state-dir",
        metavar="DIR",
        help="where the sessions' tabs are kept, owner-only and outside the workspace (default: "
        "$RTLAB_TAB_STATE, else $XDG_STATE_HOME/rtlab/tab, else ~/.local/state/rtlab/tab)",
    )


def _serve_command(args: argparse.Namespace) -> list[str]:
    """``rtlab tab serve`` with this command's options, as the harness will start it (this interpreter)."""
    from rtlab.harnesses import serve_command

    return serve_command(args.harness, state_dir=args.state_dir, method=args.method, ablation=args.ablation)


def cmd_serve(args: argparse.Namespace) -> int:
    from rtlab.harnesses import SessionStore, serve

    serve(SessionStore(args.state_dir), method=args.method, ablation=args.ablation, harness=args.harness)
    return 0


def cmd_install(args: argparse.Namespace) -> int:
    from rtlab.agent import make_policy
    from rtlab.harnesses import INSTALLERS

    make_policy(args.method, args.ablation)  # a bad combination is refused before anything is written
    report = INSTALLERS[args.harness](args.folder, _serve_command(args))
    for path in report.changed:
        print(f"wrote {path}")
    for note in report.notes:
        print(f"note: {note}")
    if report.changed:
        cli = (
            "Claude Code (claude, or claude -p ...)"
            if args.harness == "claude-code"
            else "Codex (codex, codex exec ...)"
        )
        print(
            f"installed: the tab's MCP server and hooks. Start {cli} in the folder; remove them with "
            f"`rtlab tab uninstall {report.folder}`."
        )
    return 0


def cmd_hook(args: argparse.Namespace) -> int:
    from rtlab.harnesses import hook

    return hook.run(sys.stdin.read(), args.state_dir, method=args.method, ablation=args.ablation)


def cmd_uninstall(args: argparse.Namespace) -> int:
    from rtlab.harnesses import uninstall

    report = uninstall(args.folder)
    for path in report.changed:
        print(f"rewrote {path}")
    for path in report.removed:
        print(f"removed {path}")
    for note in report.notes:
        print(f"note: {note}")
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from rtlab.errors import RtlabError
    from rtlab.harnesses import Sessions, SessionStore

    store = SessionStore(args.state_dir)
    if args.session is None:
        for session_id in store.session_ids():
            print(session_id)
        return 0
    files = store.session(args.session)
    if not files.exists():
        raise RtlabError(f"{files.path}: no session {args.session!r} in {store.root}")
    snapshot = Sessions(store).get(args.session, harness="claude-code").snapshot()  # from the journal
    if args.json:
        print(json.dumps(snapshot, indent=1, ensure_ascii=False))
    else:
        print(snapshot.get("status_line") or f"{snapshot['method']}: no tab")
        for r in (snapshot.get("tab") or {}).get("requirements", []):
            print(f"{r['id']} {r['status']}{' ' + r['cite'] if r.get('cite') else ''}: {r['text']}")
        for e in (snapshot.get("tab") or {}).get("read_log", []):
            print(f"{e['id']} step {e['step']} {e['path']} ({e['chars']} chars)")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the family's commands to ``sub``, the parser's subcommands."""

    def usage(args: argparse.Namespace) -> int:
        tab.print_help(sys.stderr)
        return 2

    tab = command(
        sub,
        "tab",
        usage,
        help="run the paper's tab (or a baseline) inside Claude Code or Codex: serve, install, hook, uninstall, show",
        description="The environment-side tab inside other harnesses: an MCP server holding one tab per "
        "harness session, fed by the harness's hooks.",
    )
    verbs = tab.add_subparsers(dest="verb", metavar="VERB")
    p = command(
        verbs,
        "serve",
        cmd_serve,
        help="the MCP server (stdio) the harness starts",
        description="Serve the tab tools and the hooks' tools over MCP stdio: one tab per harness session, "
        "stored atomically and owner-only in the state folder, resumed on restart.",
    )
    method_options(p, required=False)
    p.add_argument("--harness", choices=HARNESSES, default="claude-code", help="whose hooks call it")
    _state_option(p)
    p = command(
        verbs,
        "install",
        cmd_install,
        help="add the tab's server and hooks to a project's settings",
        description="Merge the tab's MCP server and hooks into the project folder's settings, never replacing "
        "what is there: Claude Code's .mcp.json and mcp_tool hooks in .claude/settings.json, or Codex's "
        "[mcp_servers.tab] in .codex/config.toml and command hooks in .codex/hooks.json (Codex runs them only in "
        "a trusted project, or with --dangerously-bypass-hook-trust). `rtlab tab uninstall` removes them.",
    )
    p.add_argument("harness", choices=HARNESSES, metavar="HARNESS", help="claude-code or codex")
    p.add_argument("folder", nargs="?", default=".", type=existing_folder, metavar="DIR", help="the project")
    method_options(p, required=False)
    _state_option(p)
    p = command(
        verbs,
        "hook",
        cmd_hook,
        help="a command hook: forward the event on stdin to the running server (Codex)",
        description="Read one hook event (JSON) from stdin, forward it to the `rtlab tab serve` of the same "
        "harness process (else apply it to the session's journal) and print the hook's answer.",
    )
    p.add_argument("harness", choices=("codex",), metavar="HARNESS", help="codex")
    method_options(p, required=False)
    _state_option(p)
    p = command(
        verbs,
        "uninstall",
        cmd_uninstall,
        help="remove exactly what install added",
        description="Remove the tab's server and hooks that `rtlab tab install` added to the project folder.",
    )
    p.add_argument("folder", nargs="?", default=".", type=existing_folder, metavar="DIR", help="the project")
    p = command(
        verbs,
        "show",
        cmd_show,
        help="list the stored sessions, or show one session's tab",
        description="The sessions in the state folder, or one session's tab, rebuilt from its journal.",
    )
    p.add_argument("session", nargs="?", metavar="SESSION_ID")
    p.add_argument("--json", action="store_true", help="the stored snapshot as JSON")
    _state_option(p)

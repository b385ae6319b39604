"""The command hook's lean entry point. ``rtlab tab install codex`` writes it as ``PYTHON -I -S .../hook.py
[--state-dir DIR] [--method M] [--ablation A]`` (also runnable as ``python -m rtlab.harnesses.hook``; ``rtlab
tab hook codex`` is the same with rtlab's command line around it): it reads one hook event (JSON) from stdin,
forwards it to the ``rtlab tab serve`` of the same harness process and prints the hook's answer.

Codex starts a process per event, so forwarding pays Python's start, and nothing more: run as a script without
the site packages (``-S``: no editable-install finder, no ``.pth`` files), this file puts the folder holding the
``rtlab`` package on the path itself and imports only the standard library and the light
:mod:`rtlab.harnesses._codex` / :mod:`rtlab.harnesses._names`. When no server answers (Codex started without it,
or it died), the event is applied to the session's journal here; that needs rtlab's full imports, so a lean
process hands the event to ``python -m rtlab.harnesses.hook --apply`` (the same interpreter with its site)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

if __name__ == "__main__" and not __package__:  # run as a file (the lean command): find the package beside it
    sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from rtlab.harnesses._codex import forward  # noqa: E402  (light: the standard library only)
from rtlab.harnesses._names import default_state_dir  # noqa: E402


def _apply_here(event: dict[str, Any], state: Path, *, method: str, ablation: str | None) -> dict[str, Any]:
    """The event applied to the session's journal by this process (rtlab's full imports)."""
    from rtlab.harnesses._server import hook_answer
    from rtlab.harnesses._store import SessionStore

    return hook_answer(
        event, SessionStore(state), method=method, ablation=ablation, harness="codex", forwarded=False
    )


def _lean() -> bool:
    """This process runs without the site packages (the lean command's ``-S``): rtlab's full imports (the
    journal, the MCP SDK) are out of its reach."""
    return bool(sys.flags.no_site)


def run(
    event_text: str,
    state_dir: str | Path | None,
    *,
    method: str = "runningtab",
    ablation: str | None = None,
    apply: bool = False,
) -> int:
    """Print the answer to the event in ``event_text``; a failure is said on stderr with status 1 (Codex and
    Claude Code take any status but 0 and 2 as a non-blocking error: a hook never breaks the agent's turn)."""
    try:
        event = json.loads(event_text or "{}")
        if not isinstance(event, dict):
            raise ValueError("the hook event on stdin is not a JSON object")
        state = Path(state_dir) if state_dir else default_state_dir()
        reply = None if apply else forward(state, event)
        if reply is None and _lean():
            return _apply_in_full(event_text, state, method=method, ablation=ablation)
        if reply is None:
            reply = _apply_here(event, state, method=method, ablation=ablation)
    except Exception as exc:
        print(f"rtlab tab hook: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(reply, ensure_ascii=False))
    return 0


def _apply_in_full(event_text: str, state: Path, *, method: str, ablation: str | None) -> int:
    """No server answered a lean hook: the same interpreter, with its site packages, applies the event."""
    argv = [
        sys.executable,
        "-m",
        "rtlab.harnesses.hook",
        "--apply",
        "--state-dir",
        str(state),
        "--method",
        method,
    ]
    if ablation:
        argv += ["--ablation", ablation]
    done = subprocess.run(argv, input=event_text, capture_output=True, text=True, check=False)
    sys.stdout.write(done.stdout)
    sys.stderr.write(done.stderr)
    return done.returncode


def _parse(argv: list[str]) -> tuple[str | None, str, str | None, bool]:
    """``--state-dir DIR --method M --ablation A --apply``, by hand: argparse alone costs a few milliseconds of
    every tool call."""
    state_dir, method, ablation, apply = None, "runningtab", None, False
    it = iter(argv)
    for arg in it:
        if arg == "--apply":
            apply = True
        elif arg in ("--state-dir", "--method", "--ablation"):
            value = next(it, None)
            if value is None:
                raise SystemExit(f"rtlab tab hook: {arg} needs a value")
            if arg == "--state-dir":
                state_dir = value
            elif arg == "--method":
                method = value
            else:
                ablation = value
        elif arg in ("-h", "--help"):
            print(__doc__)
            raise SystemExit(0)
        else:
            raise SystemExit(f"rtlab tab hook: unknown argument {arg!r}")
    return state_dir, method, ablation, apply


def main(argv: list[str] | None = None) -> int:
    state_dir, method, ablation, apply = _parse(sys.argv[1:] if argv is None else argv)
    return run(sys.stdin.read(), state_dir, method=method, ablation=ablation, apply=apply)


if __name__ == "__main__":
    sys.exit(main())

"""The command hook's lean entry point: ``python -m rtlab.harnesses.hook [--state-dir DIR] [--method M]
[--ablation A]`` reads one hook event (JSON) from stdin, forwards it to the ``rtlab tab serve`` of the same
harness process and prints the hook's answer; ``rtlab tab hook codex`` is the same with rtlab's command line
around it. Codex starts a process per event, so this module imports nothing heavy before it knows it must
apply the event itself (no server answered): forwarding costs Python's start and a socket round trip."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from rtlab.harnesses._codex import forward
from rtlab.harnesses._store import default_state_dir


def answer(
    event: Any, state_dir: str | Path | None, *, method: str = "runningtab", ablation: str | None = None
) -> dict[str, Any]:
    """The hook's answer to ``event``: the running server's, else the event applied to the journal here."""
    if not isinstance(event, dict):
        raise ValueError("the hook event on stdin is not a JSON object")
    state = Path(state_dir) if state_dir else default_state_dir()
    reply = forward(state, event)
    if reply is not None:
        return reply
    from rtlab.harnesses._server import hook_answer
    from rtlab.harnesses._store import SessionStore

    return hook_answer(
        event, SessionStore(state), method=method, ablation=ablation, harness="codex", forwarded=False
    )


def run(
    event_text: str, state_dir: str | Path | None, *, method: str = "runningtab", ablation: str | None = None
) -> int:
    """Print the answer to the event in ``event_text``; a failure is said on stderr with status 1 (Codex and
    Claude Code take any status but 0 and 2 as a non-blocking error: a hook never breaks the agent's turn)."""
    try:
        reply = answer(json.loads(event_text or "{}"), state_dir, method=method, ablation=ablation)
    except Exception as exc:
        print(f"rtlab tab hook: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(reply, ensure_ascii=False))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m rtlab.harnesses.hook", description=__doc__.split("\n")[0]
    )
    parser.add_argument("--state-dir")
    parser.add_argument("--method", default="runningtab")
    parser.add_argument("--ablation")
    args = parser.parse_args(argv)
    return run(sys.stdin.read(), args.state_dir, method=args.method, ablation=args.ablation)


if __name__ == "__main__":
    sys.exit(main())

"""No escape (issue 19, item 4): reads under ``--workspace`` never touch anything outside the root, checked by an
audit of every file rtlab opens (``sys.addaudithook``: the ``open`` event of ``open()``, ``io.open``,
``Path.read_bytes``, ...; ``os.scandir`` / ``os.listdir`` for listings) and, where strace is installed, by a
syscall trace of a child process (``open`` / ``openat``), not only by path checks.

The workspace holds the tricks a hostile log or workspace can play: a link inside the root to a file outside
(``leak.txt``), a linked folder leading out (``outdir/``), and an agent whose commands name ``..``, absolute
paths outside its root and ``/proc/self/root/...``; the run is replayed with ``rtlab replay --workspace``
in-process while every open is recorded. A property over generated paths drives the workspace's own reads.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from rtlab.cli import main
from rtlab.environment import Workspace
from rtlab.runner import _replay_many

SECRET = "SECRET-OUTSIDE-THE-ROOT: the quarterly margin was 41.7 percent"

_recording: list[list[str]] = []  # the recorders active now; the hook itself can never be removed


def _hook(event: str, args: tuple) -> None:
    if not _recording:
        return
    if event == "open" and args and isinstance(args[0], str | bytes | os.PathLike):
        path = os.fsdecode(args[0])
    elif event in ("os.scandir", "os.listdir") and args and isinstance(args[0], str | bytes | os.PathLike):
        path = os.fsdecode(args[0])
    else:
        return
    _recording[-1].append(os.path.abspath(path))


sys.addaudithook(_hook)


@contextmanager
def opened() -> Iterator[list[str]]:
    """Every path opened (or listed) inside the block, absolute, in order."""
    seen: list[str] = []
    _recording.append(seen)
    try:
        yield seen
    finally:
        _recording.pop()


def _resolved(path: str) -> str:
    try:
        return os.path.realpath(path)
    except (OSError, RuntimeError):
        return path


def _world(tmp_path: Path) -> tuple[Path, Path, Path]:
    """``(workspace, outside, log)``: a workspace with links leading out, a folder outside it, and a chat log
    whose agent (rooted at ``/work/ws``) tries every way out."""
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text(SECRET + "\n", encoding="utf-8")
    ws = tmp_path / "ws"
    (ws / "docs").mkdir(parents=True)
    (ws / "docs" / "notes.md").write_text("Inside the workspace: the margin target is 38 percent.\n")
    (ws / "leak.txt").symlink_to(outside / "secret.txt")
    (ws / "outdir").symlink_to(outside, target_is_directory=True)
    (ws / "docs" / "up").symlink_to(tmp_path)  # a link to the root's parent
    secret = outside / "secret.txt"
    tries = [
        "cat docs/notes.md",
        "cat ../outside/secret.txt",
        f"cat /work/ws/../../{secret.relative_to(tmp_path)}",
        f"cat {secret}",
        f"cat /proc/self/root{secret}",
        "cat leak.txt",
        "cat outdir/secret.txt",
        "cat docs/up/outside/secret.txt",
        "ls -la outdir docs/up /proc/self/root/etc",
        "grep -rn margin . ../outside /proc/self/root" + str(outside),
    ]
    messages: list[dict] = [
        {"role": "system", "content": "You are a helpful agent."},
        {"role": "user", "content": "Find the margin in /work/ws."},
    ]
    for i, command in enumerate(tries):
        call = f"call_{i}"
        args = json.dumps({"command": f"cd /work/ws && {command}"})
        messages.append(
            {
                "role": "assistant",
                "content": "",
                "tool_calls": [
                    {"id": call, "type": "function", "function": {"name": "execute_bash", "arguments": args}}
                ],
            }
        )
        shown = "docs/notes.md:1:the margin target is 38 percent\n" + SECRET if "grep" in command else SECRET
        messages.append({"role": "tool", "tool_call_id": call, "name": "execute_bash", "content": shown})
    messages.append({"role": "assistant", "content": "The margin was 41.7 percent."})
    log = tmp_path / "run.jsonl"
    log.write_text("\n".join(json.dumps(m) for m in messages) + "\n", encoding="utf-8")
    return ws, outside, log


def _outside_root(paths: list[str], ws: Path, allowed: set[str]) -> list[str]:
    """The opened paths that lead outside the workspace, the given files and Python's own installation."""
    root = _resolved(str(ws))
    python = {_resolved(p) for p in {sys.prefix, sys.base_prefix, str(Path(__file__).resolve().parents[1])}}
    bad = []
    for p in paths:
        real = _resolved(p)
        if real == root or real.startswith(root + os.sep) or real in allowed:
            continue
        if any(real.startswith(base + os.sep) for base in python):
            continue  # modules imported on first use, package data
        bad.append(p)
    return bad


@pytest.mark.parametrize("command", ["replay", "show"])
def test_workspace_reads_never_leave_the_root(tmp_path: Path, capsys, command: str) -> None:
    ws, outside, log = _world(tmp_path)
    argv = [command, str(log), "--workspace", str(ws), "--agent-root", "/work/ws", "--no-join"]
    if command == "show":
        argv += ["--step", "9"]
    main(argv)  # warm: modules imported, so what the audit sees next is the run's own files
    capsys.readouterr()
    _replay_many._open_workspace.cache_clear()  # and the workspace read again, not from this process's cache
    with opened() as seen:
        code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Traceback" not in err
    inside = [p for p in seen if _resolved(p).startswith(_resolved(str(ws)) + os.sep)]
    assert inside, "the audit saw no workspace read at all: the test would prove nothing"
    assert _resolved(str(ws / "docs" / "notes.md")) in {_resolved(p) for p in seen}
    assert not [p for p in seen if _resolved(p).startswith(_resolved(str(outside)))]
    assert not [p for p in seen if "/proc/self/root" in p]
    assert _outside_root(seen, ws, {_resolved(str(log))}) == []


_PARTS = st.sampled_from(
    [
        "..",
        ".",
        "docs",
        "notes.md",
        "leak.txt",
        "outdir",
        "secret.txt",
        "up",
        "outside",
        "proc",
        "self",
        "root",
        "",
        "~",
    ]
)


@settings(max_examples=300, derandomize=True, deadline=None, database=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])  # fmt: skip
@given(
    parts=st.lists(_PARTS, min_size=1, max_size=7),
    absolute=st.sampled_from(["", "/", "/proc/self/root/", "//"]),
)
def test_generated_paths_never_open_outside(tmp_path_factory, parts: list[str], absolute: str) -> None:
    """Whatever path an agent names, the workspace opens only files inside its root (300 generated paths)."""
    base = tmp_path_factory.getbasetemp() / "escape"
    if not (base / "ws").exists():
        _world(base if base.mkdir(parents=True, exist_ok=True) is None else base)
    ws = Workspace(base / "ws", agent_root="/work/ws")
    path = absolute + "/".join(parts)
    with opened() as seen:
        local = ws.to_local(path) if path.startswith(("/", "~")) else path
        if local is not None:
            ws.read_text(local)
            ws.exists(local)
            ws.is_file(local)
    assert _outside_root(seen, base / "ws", set()) == [], path


@pytest.mark.skipif(shutil.which("strace") is None, reason="strace is not installed")
def test_no_open_outside_the_root_under_a_syscall_trace(tmp_path: Path) -> None:
    """The same run in a child process under ``strace -f -e trace=open,openat``: every open the kernel saw, C
    libraries' included (what an audit hook in Python cannot see)."""
    ws, outside, log = _world(tmp_path)
    trace = tmp_path / "trace.txt"
    argv = ["strace", "-f", "-qq", "-e", "trace=open,openat", "-o", str(trace), sys.executable, "-m", "rtlab"]
    argv += ["replay", str(log), "--workspace", str(ws), "--agent-root", "/work/ws", "--no-join", "--json"]
    argv += ["--out", str(tmp_path / "tables")]
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[1]))
    done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0 and "ptrace" in done.stderr:
        pytest.skip(f"strace cannot trace here: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stderr[-2000:]
    opened = re.findall(r'open(?:at)?\((?:AT_FDCWD|\d+), "([^"]*)"', trace.read_text(encoding="utf-8"))
    assert any(p.startswith(str(ws)) for p in opened), (
        "the trace saw no workspace read: it would prove nothing"
    )
    real_outside = _resolved(str(outside))
    assert not [p for p in opened if _resolved(p).startswith(real_outside) or "/proc/self/root" in p]
    assert not [p for p in opened if os.path.realpath(p).startswith(real_outside)]

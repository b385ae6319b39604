"""The tab in Claude Code and Codex: what a hook costs per tool call (the goal: a median under 50 ms, under 5% of
a typical model turn of a few seconds).

    python bench/tab_hooks.py [--calls N]

Part 1, Claude Code's path: ``rtlab tab serve`` started as Claude Code starts it (a stdio subprocess), called
through the MCP SDK's client as the ``mcp_tool`` hooks call it: ``observe`` with a ``PostToolUse`` event (a
``Read`` of a 40-line file and an ``ls`` of 30 files, alternating: capture, the journal event, the snapshot) and
the model's ``tab_add`` / ``tab_list``. Round trip per call, from the client's request to its answer, at the start
of a session and after N tool calls. Part 2, Codex's path: the command hook as Codex runs it (a new process per
event: Python's start, the imports, the forward over the Unix socket, the answer) against a listening server,
as installed (``python -I -S .../rtlab/harnesses/hook.py``: no site packages), as ``python -m
rtlab.harnesses.hook`` and through rtlab's command line (``rtlab tab hook codex``);
and the socket's round trip alone (the server's work on the event included).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rtlab.harnesses import SessionStore, build_server  # noqa: E402
from rtlab.harnesses._codex import forward, socket_path  # noqa: E402
from rtlab.harnesses._install import _hook_command  # noqa: E402

SID = "bench-session"
CWD = "/work/proj"
LINES = "\n".join(f"row {i}: revenue {1000 + i} for region {i % 7}" for i in range(40)) + "\n"
LISTING = "".join(f"report_{i:02d}_2024.csv\n" for i in range(30))


def read_event(i: int) -> dict[str, Any]:
    path = f"{CWD}/data/part_{i}.txt"
    response = {
        "type": "text",
        "file": {"filePath": path, "content": LINES, "numLines": 41, "startLine": 1, "totalLines": 41},
    }
    return {"tool_name": "Read", "tool_input": {"file_path": path}, "tool_response": response}


def ls_event(i: int) -> dict[str, Any]:
    response = {"stdout": LISTING, "stderr": "", "interrupted": False, "isImage": False}
    return {"tool_name": "Bash", "tool_input": {"command": f"ls data/d{i}"}, "tool_response": response}


def hook_input(event: dict[str, Any], i: int) -> dict[str, str]:
    """The ``observe`` input as Claude Code templates it (objects as JSON text)."""
    return {
        "session_id": SID,
        "cwd": CWD,
        "tool_name": event["tool_name"],
        "tool_input": json.dumps(event["tool_input"]),
        "tool_response": json.dumps(event["tool_response"]),
        "tool_use_id": f"toolu_{i}",
    }


def ms(values: list[float]) -> str:
    values = sorted(values)
    p90 = values[int(0.9 * (len(values) - 1))]
    return f"median {statistics.median(values) * 1000:7.2f} ms   p90 {p90 * 1000:7.2f} ms   n={len(values)}"


async def claude_code(calls: int, state: Path) -> None:
    from mcp import Client, StdioServerParameters

    params = StdioServerParameters(
        command=sys.executable, args=["-m", "rtlab", "tab", "serve", "--state-dir", str(state)], cwd=str(ROOT)
    )
    async with Client(params) as client:
        await client.call_tool(
            "prompt", {"session_id": SID, "cwd": CWD, "prompt": "Report revenue 2024 per region"}
        )
        times: list[float] = []
        tab: list[float] = []
        for i in range(calls):
            event = read_event(i) if i % 2 == 0 else ls_event(i)
            start = time.perf_counter()
            await client.call_tool("observe", hook_input(event, i))
            times.append(time.perf_counter() - start)
            if i % 10 == 9:
                start = time.perf_counter()
                await client.call_tool("bind", {"session_id": SID, "cwd": CWD})
                await client.call_tool("tab_add", {"text": f"revenue of region {i % 7} in 2024 ({i})"})
                await client.call_tool("tab_list", {})
                tab.append((time.perf_counter() - start) / 3)
    first, last = times[: min(50, calls)], times[-min(50, calls) :]
    print("Claude Code: mcp_tool hook -> rtlab tab serve (stdio subprocess), per call")
    print(f"  observe, all {calls} tool calls     {ms(times)}")
    print(f"  observe, first 50                 {ms(first)}")
    print(f"  observe, last 50 (session of {calls}) {ms(last)}")
    print(f"  bind / tab_add / tab_list (mean of 3) {ms(tab)}")


def codex(calls: int, state: Path) -> None:
    store = SessionStore(state)
    _, server = build_server(store, harness="codex")
    server.listen(socket_path(state, os.getpid()))  # the hook processes below are this process's children
    try:
        lean: list[float] = []
        module: list[float] = []
        spawned: list[float] = []
        installed = _hook_command([sys.executable, "-m", "rtlab", "tab", "serve"])[1:]
        direct: list[float] = []
        for i in range(calls):
            event = {"session_id": SID, "cwd": CWD, "hook_event_name": "PostToolUse", **ls_event(i)}
            event["tool_name"], event["tool_response"] = "Bash", LISTING  # Codex's shape: the raw output
            for command, times in (
                (installed, lean),  # what `rtlab tab install codex` writes: the file, no site packages
                (["-m", "rtlab.harnesses.hook"], module),  # the same module with the site packages
                (["-m", "rtlab", "tab", "hook", "codex"], spawned),  # the same through rtlab's command line
            ):
                event["tool_input"] = {"command": f"ls data/d{i}/{len(times)}"}
                start = time.perf_counter()
                out = subprocess.run(
                    [sys.executable, *command, "--state-dir", str(state)],
                    input=json.dumps(event),
                    capture_output=True,
                    text=True,
                    cwd=ROOT,
                    check=True,
                )
                times.append(time.perf_counter() - start)
                assert "additionalContext" in out.stdout, out.stdout + out.stderr
            start = time.perf_counter()
            answer = forward(state, {**event, "tool_input": {"command": f"ls data/e{i}"}}, pids=[os.getpid()])
            direct.append(time.perf_counter() - start)
            assert answer is not None and "additionalContext" in json.dumps(answer)
    finally:
        server.close()
    print("Codex: command hook `rtlab tab hook codex` (a process per event) -> the server's socket")
    print(f"  python -I -S .../hook.py (installed) {ms(lean)}")
    print(f"  python -m rtlab.harnesses.hook    {ms(module)}")
    print(f"  rtlab tab hook codex              {ms(spawned)}")
    print(f"  the socket round trip alone       {ms(direct)}")
    start = time.perf_counter()
    subprocess.run([sys.executable, "-c", "pass"], check=True)
    bare = time.perf_counter() - start
    start = time.perf_counter()
    subprocess.run([sys.executable, "-I", "-S", "-c", "pass"], check=True)
    bare_s = time.perf_counter() - start
    print(f"  (a bare `python -c pass` here:  {bare * 1000:.1f} ms; with -I -S: {bare_s * 1000:.1f} ms)")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--calls", type=int, default=300)
    parser.add_argument("--codex-calls", type=int, default=30)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        asyncio.run(claude_code(args.calls, Path(tmp) / "claude"))
        codex(args.codex_calls, Path(tmp) / "codex")


if __name__ == "__main__":
    main()

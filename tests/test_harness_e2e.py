"""End to end with the real Claude Code and Codex CLIs (npm @anthropic-ai/claude-code and @openai/codex, pinned in
tools/npm/package.json and installed into build/npm by .ci/run) against scripted local model servers on 127.0.0.1
(Anthropic Messages, OpenAI Responses): no login, no network. The scripted model reads a file, runs a command, adds a requirement, tries to stop early once,
resolves the requirement citing the read, and stops. Checked: the status line inside the tool results the server
received, the finish check once, the tab on disk, and rtlab's Claude Code reader reading the CLI's own session
log back with the tab calls typed as tab steps, whose replay reproduces the status lines the model saw."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from harness_fakes import AnthropicFake, ResponsesFake, blocks, result_text, texts

pytest.importorskip("mcp", reason="the MCP SDK (pip install 'rtlab[mcp]') is needed for rtlab tab serve")

NPM = ROOT / "build" / "npm"
PINNED = json.loads((ROOT / "tools" / "npm" / "package.json").read_text())["dependencies"]


def cli(name: str, package: str) -> Path:
    """The pinned CLI installed by .ci/run, or a skip naming what to install."""
    binary = NPM / "node_modules" / ".bin" / name
    if shutil.which("node") is None:
        pytest.skip(f"node is not installed: {package} needs Node.js >= 20 (then .ci/run installs it)")
    if not binary.exists():
        pytest.skip(
            f"{package}@{PINNED[package]} is not installed: mkdir -p build/npm && cp tools/npm/package.json build/npm/ "
            "&& npm install --prefix build/npm (what .ci/run does)"
        )
    return binary


def test_claude_code_runs_with_the_tab(tmp_path: Path) -> None:
    claude = cli("claude", "@anthropic-ai/claude-code")
    version = subprocess.run([str(claude), "--version"], capture_output=True, text=True, timeout=60)
    assert version.stdout.startswith(PINNED["@anthropic-ai/claude-code"]), version.stdout
    project, home, state = tmp_path / "proj", tmp_path / "home", tmp_path / "state"
    project.mkdir()
    home.mkdir()
    (project / "notes.txt").write_text("Revenue 2024: 12 million\nCosts 2024: 3 million\n")
    (project / "data").mkdir()
    (project / "data" / "revenue_2024.csv").write_text("quarter,revenue\nQ1,3\n")

    def script(body: dict[str, Any]) -> dict[str, Any]:
        if not body.get("tools"):  # a side request (a title, a summary): not the agent's loop
            return {"text": "ok"}
        done = len(blocks(body, "tool_result"))
        blocked = any("[tab] finish check" in t for t in texts(body, "user"))
        moves: list[dict[str, Any]] = [
            {"tool": "Read", "input": {"file_path": str(project / "notes.txt")}},
            {"tool": "Bash", "input": {"command": "ls data", "description": "List data"}},
            {"tool": "mcp__tab__tab_add", "input": {"text": "revenue 2024"}},
        ]
        if done < len(moves):
            return moves[done]
        if done == len(moves) and not blocked:
            return {"text": "Revenue 2024 was 12 million."}  # the early stop: R1 is still open
        if done == len(moves):
            return {"tool": "mcp__tab__tab_resolve", "input": {"id": "R1", "status": "done", "cite": "L1"}}
        return {"text": "Revenue 2024 was 12 million (notes.txt)."}

    from rtlab.cli import main

    assert main(["tab", "install", "claude-code", str(project), "--state-dir", str(state)]) == 0
    with AnthropicFake(script) as fake:
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            "ANTHROPIC_BASE_URL": fake.url,
            "ANTHROPIC_API_KEY": "dummy",
            "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
            "ENABLE_TOOL_SEARCH": "false",  # the MCP tools in the request, not behind ToolSearch
        }
        run = subprocess.run(
            [str(claude), "-p", "Report the 2024 revenue from notes.txt", "--model", "claude-sonnet-4-5",
             "--output-format", "stream-json", "--verbose", "--allowedTools", "Read", "Bash", "mcp__tab"],
            cwd=project, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    agent = [r for r in fake.requests if r.get("tools")]
    offered = {t["name"] for t in agent[0]["tools"] if t["name"].startswith("mcp__")}
    assert offered == {"mcp__tab__tab_add", "mcp__tab__tab_resolve", "mcp__tab__tab_list", "mcp__tab__tab_show"}
    results = [result_text(b) for b in blocks(agent[-1], "tool_result")]
    assert len(results) == 4
    read, bash, added, resolved = results
    assert read.startswith("1\tRevenue 2024: 12 million\n2\tCosts 2024: 3 million\n")
    assert (
        "PostToolUse:Read hook additional context: [tab] 0 open · 1 read-log entry from 1 file · 0 candidates"
        in read
    )
    assert bash.startswith("revenue_2024.csv\n\n[tab] 0 open · 1 read-log entry from 1 file · 1 candidate")
    assert added.startswith(
        "Added R1: revenue 2024\n\n[tab] 1 open (R1) · 1 read-log entry from 1 file · 1 candidate"
    )
    assert resolved.startswith(
        "R1 done, citing L1 (notes.txt).\n\n[tab] 0 open · 1 read-log entry from 1 file"
    )
    finish = [t for t in texts(agent[-1], "user") if "[tab] finish check" in t]
    blocking = [t for t in finish if "Stop hook blocking error" in t]  # Claude Code adds a feedback text too
    assert len(blocking) == 1 and "R1 revenue 2024" in blocking[0]  # blocked once, with the open requirement

    sessions = list((state / "sessions").iterdir())
    assert len(sessions) == 1
    snapshot = json.loads((sessions[0] / "tab.json").read_text())
    assert snapshot["tab"]["task"] == "Report the 2024 revenue from notes.txt"
    assert snapshot["tab"]["requirements"][0] | {"step_added": 0, "step_resolved": 0} == {
        "id": "R1", "text": "revenue 2024", "status": "done", "cite": "L1", "reason": None, "step_added": 0,
        "step_resolved": 0, "origin": "agent", "proposed_by": None,
    }  # fmt: skip
    assert [e["path"] for e in snapshot["tab"]["read_log"]] == ["notes.txt"]
    assert [c["path"] for c in snapshot["tab"]["candidates"]] == ["data/revenue_2024.csv"]
    assert snapshot["finish_issued"] is True and snapshot["stops"] == 2

    # the loop closes: the CLI's own session log, read by rtlab, replayed
    from rtlab.environment import replay, strip_status
    from rtlab.ingest import ReadOptions, get_reader

    logs = list((home / ".claude" / "projects").glob("*/*.jsonl"))
    assert len(logs) == 1 and logs[0].stem == snapshot["session_id"]
    (trajectory,) = get_reader("claude-code-session").read(logs[0], ReadOptions())
    kinds = [
        (s.tool, s.action.kind if s.action else None, s.action.op if s.action else None)
        for s in trajectory.steps
    ]
    assert kinds == [
        ("Read", "read", None),
        ("Bash", "shell", None),
        ("mcp__tab__tab_add", "tab", "add"),
        ("mcp__tab__tab_resolve", "tab", "resolve"),
    ]
    replayed = replay(trajectory, requirements="trajectory")
    assert [r.kind for r in replayed.records] == ["observe", "observe", "tab_call", "tab_call"]
    for step, record in zip(trajectory.steps, replayed.records, strict=True):
        shown = step.shown or ""
        if strip_status(shown) != shown:  # the status line the model read inside the result
            assert shown.endswith(record.status_line), (step.index, shown, record.status_line)
    assert replayed.tab.requirements[0].status == "done"
    assert [e.path for e in replayed.tab.read_log] == ["notes.txt"]
    feedback = [e for e in trajectory.events if "[tab] finish check" in e.text]
    assert len(feedback) == 1
    stream = tmp_path / "run.stream.jsonl"  # the run's stream-json output, read by the other Claude Code reader
    stream.write_text(run.stdout)
    (streamed,) = get_reader("claude-code-stream").read(stream, ReadOptions())
    assert [(s.tool, s.action.kind if s.action else None) for s in streamed.steps] == [k[:2] for k in kinds]
    print(sys.version)  # noqa: T201  (the interpreter that served the tab, for a failing run's log)


def test_codex_runs_with_the_tab(tmp_path: Path) -> None:
    codex = cli("codex", "@openai/codex")
    version = subprocess.run([str(codex), "--version"], capture_output=True, text=True, timeout=60)
    assert version.stdout.strip() == f"codex-cli {PINNED['@openai/codex']}", version.stdout
    if shutil.which("git") is None:
        pytest.skip("git is not installed: Codex reads a project's .codex/ only inside a repository")
    project, home, codex_home, state = (
        tmp_path / "proj",
        tmp_path / "home",
        tmp_path / "codex",
        tmp_path / "state",
    )
    for folder in (project / "data", home, codex_home):
        folder.mkdir(parents=True)
    (project / "notes.txt").write_text("Revenue 2024: 12 million\n")
    (project / "data" / "revenue_2024.csv").write_text("quarter,revenue\nQ1,3\n")
    subprocess.run(["git", "init", "-q", str(project)], check=True)

    def script(body: dict[str, Any]) -> dict[str, Any]:
        items = body.get("input", [])
        done = sum(1 for i in items if i.get("type") == "function_call_output")
        blocked = any("[tab] finish check" in json.dumps(i) for i in items if i.get("role") == "user")
        moves: list[dict[str, Any]] = [
            {"tool": "exec_command", "input": {"cmd": "cat notes.txt"}},
            {"tool": "exec_command", "input": {"cmd": "ls data"}},
            {"tool": "tab_add", "namespace": "mcp__tab", "input": {"text": "revenue 2024"}},
        ]
        if done < len(moves):
            return moves[done]
        if done == len(moves) and not blocked:
            return {"text": "Revenue 2024 was 12 million."}  # the early stop
        if done == len(moves):
            return {
                "tool": "tab_resolve",
                "namespace": "mcp__tab",
                "input": {"id": "R1", "status": "done", "cite": "L1"},
            }
        return {"text": "Revenue 2024 was 12 million (notes.txt)."}

    from rtlab.cli import main

    assert main(["tab", "install", "codex", str(project), "--state-dir", str(state)]) == 0
    with ResponsesFake(script) as fake:
        (codex_home / "config.toml").write_text(
            'model = "fake-model"\nmodel_provider = "fake"\n[model_providers.fake]\nname = "fake"\n'
            f'base_url = "{fake.url}"\nenv_key = "FAKE_KEY"\nwire_api = "responses"\n'
            f'[projects."{project}"]\ntrust_level = "trusted"\n'  # the project's .codex/ is read when trusted
        )
        env = {
            "PATH": os.environ["PATH"],
            "HOME": str(home),
            "CODEX_HOME": str(codex_home),
            "FAKE_KEY": "dummy",
        }
        run = subprocess.run(
            [str(codex), "exec", "--json", "--skip-git-repo-check", "--dangerously-bypass-hook-trust",
             "--sandbox", "danger-full-access", "Report the 2024 revenue from notes.txt"],
            cwd=project, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    assert run.returncode == 0, run.stderr[-2000:]
    items = fake.requests[-1]["input"]
    developer = [
        i["content"][0]["text"] for i in items if i.get("role") == "developer" and "[tab]" in json.dumps(i)
    ]
    assert developer == [
        "[tab] 0 open · 1 read-log entry from 1 file · 0 candidates",  # after cat notes.txt
        "[tab] 0 open · 1 read-log entry from 1 file · 1 candidate",  # after ls data
    ]
    outputs = [i["output"] for i in items if i.get("type") == "function_call_output"]
    tab_replies = ["\n".join(p["text"] for p in o) for o in outputs if isinstance(o, list)]
    assert tab_replies[0].endswith(
        "Added R1: revenue 2024\n\n[tab] 1 open (R1) · 1 read-log entry from 1 file · 1 candidate"
    )
    assert tab_replies[1].endswith(
        "R1 done, citing L1 (notes.txt).\n\n[tab] 0 open · 1 read-log entry from 1 file · 1 candidate"
    )
    blocks_ = [i for i in items if i.get("role") == "user" and "[tab] finish check" in json.dumps(i)]
    assert len(blocks_) == 1 and "R1 revenue 2024" in json.dumps(blocks_[0])  # the Stop block, once

    (session,) = (state / "sessions").iterdir()
    snapshot = json.loads((session / "tab.json").read_text())
    assert snapshot["harness"] == "codex" and snapshot["finish_issued"] is True
    assert [(r["id"], r["status"], r["cite"]) for r in snapshot["tab"]["requirements"]] == [
        ("R1", "done", "L1")
    ]
    events = [json.loads(p.read_text()) for p in sorted((session / "events").iterdir())]
    # every tool event and stop forwarded to the one server process (the prompt's hook may run before Codex has
    # started the server: it is then applied to the journal by the hook process, which the server reads back)
    assert len({e["pid"] for e in events if e["kind"] in ("observe", "call", "stop")}) == 1

    from rtlab.environment import replay
    from rtlab.ingest import ReadOptions, get_reader

    (rollout,) = (codex_home / "sessions").rglob("rollout-*.jsonl")
    (trajectory,) = get_reader("codex-rollout").read(rollout, ReadOptions())
    assert [(s.action.kind, s.action.op) for s in trajectory.steps if s.action] == [
        ("shell", None), ("shell", None), ("tab", "add"), ("tab", "resolve"),
    ]  # fmt: skip
    replayed = replay(trajectory, requirements="trajectory")
    said = [e.text for e in trajectory.events if e.role == "developer" and e.text.startswith("[tab] ")]
    assert said == [
        r.status_line for r in replayed.records[:2]
    ]  # the status lines the model read, reproduced
    assert replayed.tab.requirements[0].status == "done"

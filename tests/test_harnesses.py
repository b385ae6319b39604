"""The tab inside Claude Code (rtlab.harnesses, `rtlab tab ...`): the MCP server through the SDK's own client,
in process (every tool, every error), the hook answers to the exact event JSON Claude Code sends (the payload
shapes of ../shared/notes/tab-in-other-harnesses.md, checked against Claude Code 2.1.332), the session store
(owner-only, resumed, never shared between sessions) and install / uninstall round trips."""

from __future__ import annotations

import asyncio
import json
import os
import stat
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("mcp", reason="the MCP SDK (pip install 'rtlab[mcp]') is needed for rtlab tab serve")

from mcp import Client  # noqa: E402

import rtlab.harnesses.hook  # noqa: E402
from rtlab.cli import main  # noqa: E402
from rtlab.environment import TOOLS  # noqa: E402
from rtlab.harnesses import SessionStore, build_server, hook_settings, install_claude_code, uninstall  # noqa: E402
from rtlab.ingest import claude_code_hook_step, claude_code_shown  # noqa: E402

SID = "5b3c8a7e-1f4d-4d2a-9c1e-0a1b2c3d4e5f"
OTHER = "0f9e8d7c-6b5a-4c3d-8e2f-1a2b3c4d5e6f"
NOTES = "Revenue 2024: 12 million\nCosts 2024: 3 million\n"


def read_event(session: str = SID, cwd: str = "/work/proj") -> dict[str, Any]:
    """A PostToolUse event of Read as Claude Code 2.1.332 sends it (stdin JSON; observed end to end)."""
    return {
        "session_id": session,
        "transcript_path": f"/home/u/.claude/projects/-work-proj/{session}.jsonl",
        "cwd": cwd,
        "permission_mode": "default",
        "hook_event_name": "PostToolUse",
        "tool_name": "Read",
        "tool_input": {"file_path": f"{cwd}/notes.txt"},
        "tool_response": {
            "type": "text",
            "file": {
                "filePath": f"{cwd}/notes.txt",
                "content": NOTES,
                "numLines": 3,
                "startLine": 1,
                "totalLines": 3,
            },
        },
        "tool_use_id": "toolu_01",
        "duration_ms": 3,
    }


def bash_event(session: str = SID, cwd: str = "/work/proj") -> dict[str, Any]:
    return {
        "session_id": session,
        "cwd": cwd,
        "hook_event_name": "PostToolUse",
        "tool_name": "Bash",
        "tool_input": {"command": "ls data", "description": "List data"},
        "tool_response": {
            "stdout": "\nsales_2024.csv\nnotes.txt\n",
            "stderr": "",
            "interrupted": False,
            "isImage": False,
            "noOutputExpected": False,
        },
        "tool_use_id": "toolu_02",
    }


def templated(event: dict[str, Any], fields: dict[str, str]) -> dict[str, Any]:
    """What an mcp_tool hook's ``input`` becomes for ``event``: each ``${name}`` replaced by the field, an object
    by its JSON text (Claude Code's substitution)."""
    out = {}
    for key, template in fields.items():
        value = event.get(template[2:-1])
        out[key] = (
            "" if value is None else json.dumps(value) if isinstance(value, (dict, list)) else str(value)
        )
    return out


HOOKS = {g["hooks"][0]["tool"]: g["hooks"][0]["input"] for groups in hook_settings().values() for g in groups}


def run(coro: Any) -> Any:
    return asyncio.run(coro)


def text(result: Any) -> str:
    assert len(result.content) == 1
    return str(result.content[0].text)


# --- the server in process, through the SDK's client --------------------------------------------------------


def test_tools_are_the_environment_tools_and_the_hooks(tmp_path: Path) -> None:
    server, _ = build_server(SessionStore(tmp_path))

    async def go() -> Any:
        async with Client(server) as client:
            return (await client.list_tools()).tools

    tools = {t.name: t for t in run(go())}
    assert set(tools) == {
        "tab_add",
        "tab_resolve",
        "tab_list",
        "tab_show",
        "observe",
        "finish_check",
        "prompt",
        "bind",
    }
    for definition in TOOLS:
        fn = definition["function"]
        assert tools[fn["name"]].description == fn["description"]
        assert tools[fn["name"]].input_schema == fn["parameters"]  # one definition of the tab tools


def test_a_session_end_to_end_through_every_tool(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    server, state = build_server(store)
    read, bash = read_event(), bash_event()

    async def go() -> list[str]:
        out = []
        async with Client(server) as c:
            out.append(
                text(await c.call_tool("tab_add", {"text": "revenue 2024"}))
            )  # before any hook: no session
            out.append(
                text(
                    await c.call_tool(
                        "prompt", {"session_id": SID, "cwd": "/work/proj", "prompt": "Report revenue 2024"}
                    )
                )
            )
            out.append(text(await c.call_tool("bind", {"session_id": SID, "cwd": "/work/proj"})))
            out.append(text(await c.call_tool("observe", templated(read, HOOKS["observe"]))))
            out.append(text(await c.call_tool("observe", templated(bash, HOOKS["observe"]))))
            out.append(text(await c.call_tool("tab_add", {"text": "revenue 2024"})))
            out.append(text(await c.call_tool("tab_add", {})))  # missing argument: text for the model
            out.append(text(await c.call_tool("tab_show", {"id": "L9"})))  # no such entry
            out.append(text(await c.call_tool("tab_show", {"id": "L1"})))
            out.append(
                text(await c.call_tool("tab_resolve", {"id": "R1", "status": "done", "cite": "L2"}))
            )  # no L2
            out.append(text(await c.call_tool("tab_list", {})))
            stop = templated(
                {"session_id": SID, "cwd": "/work/proj", "stop_hook_active": False}, HOOKS["finish_check"]
            )
            out.append(text(await c.call_tool("finish_check", stop)))
            out.append(text(await c.call_tool("finish_check", {**stop, "stop_hook_active": "true"})))
            out.append(text(await c.call_tool("tab_resolve", {"id": "R1", "status": "done", "cite": "L1"})))
        return out

    (
        no_session,
        prompt,
        bind,
        on_read,
        on_bash,
        added,
        missing,
        no_entry,
        shown,
        refused,
        review,
        block,
        second_stop,
        resolved,
    ) = run(go())
    assert "no session yet" in no_session and "rtlab tab install claude-code" in no_session
    assert prompt == bind == "{}"
    status_1 = "[tab] 0 open · 1 read-log entry from 1 file · 0 candidates"
    assert json.loads(on_read) == {
        "hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": status_1}
    }
    updated = json.loads(on_bash)["hookSpecificOutput"]["updatedToolOutput"]
    assert (
        updated["stdout"]
        == "sales_2024.csv\nnotes.txt\n\n[tab] 0 open · 1 read-log entry from 1 file · 2 candidates"
    )
    assert updated["stderr"] == "" and updated["interrupted"] is False
    assert added.startswith("Added R1: revenue 2024\n\n[tab] 1 open (R1)")
    assert missing.startswith("tab_add: missing argument(s) text.")
    assert "L9" in no_entry and shown.startswith("L1 ")
    assert "L2" in refused and "R1 done" not in refused
    assert "R1" in review
    assert json.loads(block)["decision"] == "block"
    assert "[tab] finish check: 1 requirement is still open.\nR1 revenue 2024" in json.loads(block)["reason"]
    assert second_stop == "{}"  # the finish check is issued once
    assert resolved.startswith("R1 done, citing L1")
    snapshot = json.loads((tmp_path / "state" / "sessions" / SID / "tab.json").read_text())
    assert snapshot["tab"]["task"] == "Report revenue 2024"
    assert [r["status"] for r in snapshot["tab"]["requirements"]] == ["done"]
    assert snapshot["tab"]["read_log"][0]["path"] == "notes.txt" and snapshot["finish_issued"] is True
    assert state.bound == SID


def test_hook_tool_errors(tmp_path: Path) -> None:
    server, _ = build_server(SessionStore(tmp_path))

    async def go() -> list[Any]:
        async with Client(server) as c:
            return [
                await c.call_tool("bind", {"session_id": ""}),
                await c.call_tool("observe", {"session_id": SID}),  # no tool_name
                await c.call_tool("tab_add", {"text": "x"}),
            ]

    empty, incomplete, unbound = run(go())
    assert empty.is_error and "session_id is empty" in text(empty)
    assert incomplete.is_error and "tool_name" in text(incomplete)
    assert "no session yet" in text(unbound)


def test_store_is_private_and_resumes_after_a_restart(tmp_path: Path) -> None:
    store = SessionStore(tmp_path / "state")
    server, _ = build_server(store)

    async def first() -> None:
        async with Client(server) as c:
            await c.call_tool("bind", {"session_id": SID, "cwd": "/work/proj"})
            await c.call_tool("observe", templated(read_event(), HOOKS["observe"]))
            await c.call_tool("tab_add", {"text": "revenue 2024"})

    run(first())
    folder = tmp_path / "state" / "sessions" / SID
    for path in [tmp_path / "state", tmp_path / "state" / "sessions", folder, folder / "events"]:
        assert stat.S_IMODE(path.stat().st_mode) == 0o700, path
    for path in (folder / "events").iterdir():
        assert stat.S_IMODE(path.stat().st_mode) == 0o600, path
    assert stat.S_IMODE((folder / "tab.json").stat().st_mode) == 0o600

    restarted, _ = build_server(SessionStore(tmp_path / "state"))  # a new process: the journal is all it has

    async def second() -> str:
        async with Client(restarted) as c:
            await c.call_tool("bind", {"session_id": SID, "cwd": "/work/proj"})
            return text(await c.call_tool("tab_resolve", {"id": "R1", "status": "done", "cite": "L1"}))

    assert run(second()).startswith("R1 done, citing L1 (notes.txt).\n\n[tab] 0 open · 1 read-log entry")


def test_concurrent_sessions_never_share_a_tab(tmp_path: Path) -> None:
    store = SessionStore(tmp_path)
    one, _ = build_server(store)
    two, _ = build_server(store)

    async def session(server: Any, sid: str, requirement: str, read: bool) -> list[str]:
        async with Client(server) as c:
            await c.call_tool("bind", {"session_id": sid, "cwd": "/work/proj"})
            if read:
                await c.call_tool("observe", templated(read_event(sid), HOOKS["observe"]))
            added = text(await c.call_tool("tab_add", {"text": requirement}))
            listed = text(await c.call_tool("tab_list", {}))
            return [added, listed]

    async def both() -> list[list[str]]:
        return list(
            await asyncio.gather(
                session(one, SID, "revenue 2024", True), session(two, OTHER, "headcount", False)
            )
        )

    (added_1, list_1), (added_2, list_2) = run(both())
    assert added_1.startswith("Added R1: revenue 2024") and "1 read-log entry" in added_1
    assert added_2.startswith("Added R1: headcount") and "0 read-log entries" in added_2
    assert "headcount" not in list_1 and "revenue" not in list_2


def test_baselines_and_ablations_are_options(tmp_path: Path) -> None:
    server, _ = build_server(SessionStore(tmp_path), method="todo")

    async def go() -> tuple[set[str], str, str]:
        async with Client(server) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            await c.call_tool("bind", {"session_id": SID})
            observed = text(await c.call_tool("observe", templated(bash_event(), HOOKS["observe"])))
            stop = text(await c.call_tool("finish_check", {"session_id": SID, "stop_hook_active": "false"}))
            return names, observed, stop

    names, observed, stop = run(go())
    assert "todo" in names and "tab_add" not in names
    assert observed == "{}" and stop == "{}"  # no tab: nothing added to what the model reads, no finish check
    _, state = build_server(SessionStore(tmp_path / "nf"), ablation="no-finish-check")
    assert state.sessions.ablation == "no-finish-check"
    with pytest.raises(ValueError, match="applies to runningtab only"):
        build_server(SessionStore(tmp_path), method="dci", ablation="no-review")


# --- what the model was shown, by the reader's rules ----------------------------------------------------------


def test_shown_text_is_rebuilt_with_the_readers_rules() -> None:
    event = read_event()
    assert claude_code_shown("Read", event["tool_input"], event["tool_response"]) == (
        "1\tRevenue 2024: 12 million\n2\tCosts 2024: 3 million\n3\t"
    )  # what Claude Code 2.1.332's session log holds for this Read (the e2e run; its request trims the tab)
    bash = {"stdout": "\n\nout\n", "stderr": "warn\n", "interrupted": True}
    assert claude_code_shown("Bash", {"command": "x"}, bash) == (
        "out\nwarn\n<error>Command was aborted before completion</error>"
    )
    # Glob and Grep: the output objects Claude Code 2.1.332 gave its hook, and the text its model was shown
    glob = {
        "filenames": ["data/costs.csv", "data/revenue_2024.csv"],
        "durationMs": 39,
        "numFiles": 2,
        "truncated": False,
    }
    assert claude_code_shown("Glob", {"pattern": "**/*.csv"}, glob) == "data/costs.csv\ndata/revenue_2024.csv"
    content = {
        "mode": "content",
        "numFiles": 0,
        "filenames": [],
        "content": "notes.txt:1:Revenue 2024: 12 million",
    }
    assert (
        claude_code_shown("Grep", {"pattern": "Revenue"}, content) == "notes.txt:1:Revenue 2024: 12 million"
    )
    files = {"mode": "files_with_matches", "filenames": ["data/revenue_2024.csv"], "numFiles": 1}
    assert claude_code_shown("Grep", {"pattern": "q,r"}, files) == "Found 1 file\ndata/revenue_2024.csv"
    count = {"mode": "count", "numFiles": 1, "filenames": [], "content": "data/costs.csv:1", "numMatches": 1}
    assert claude_code_shown("Grep", {"pattern": "x"}, count) == (
        "data/costs.csv:1\n\nFound 1 total occurrence across 1 file."
    )
    assert (
        claude_code_shown("Glob", {"pattern": "*"}, {**glob, "truncated": True}) is None
    )  # its notice: unknown
    assert claude_code_shown("WebFetch", {"url": "x"}, {"result": "page"}) is None
    step = claude_code_hook_step(4, "Read", event["tool_input"], event["tool_response"], cwd="/work/proj")
    assert (
        step.action is not None and step.action.kind == "read" and step.command == "read /work/proj/notes.txt"
    )
    tab = claude_code_hook_step(5, "mcp__tab__tab_resolve", {"id": "R1"}, "R1 done")
    assert tab.action is not None and (tab.action.kind, tab.action.op) == ("tab", "resolve")


# --- install / uninstall -----------------------------------------------------------------------------------


def test_install_merges_and_uninstall_removes_exactly_what_it_added(tmp_path: Path) -> None:
    project = tmp_path / "proj"
    (project / ".claude").mkdir(parents=True)
    before_settings = {
        "model": "opus",
        "hooks": {
            "PostToolUse": [
                {"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "ruff format"}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "notify-send done"}]}],
        },
        "enabledMcpjsonServers": ["github"],
    }
    before_mcp = {"mcpServers": {"github": {"command": "gh-mcp", "args": []}}}
    (project / ".claude" / "settings.json").write_text(json.dumps(before_settings))
    (project / ".mcp.json").write_text(json.dumps(before_mcp))
    local = project / ".claude" / "settings.local.json"
    local.write_text('{"permissions": {"allow": ["Bash(ls:*)"]}}')

    assert main(["tab", "install", "claude-code", str(project), "--state-dir", str(tmp_path / "st")]) == 0
    settings = json.loads((project / ".claude" / "settings.json").read_text())
    assert settings["hooks"]["PostToolUse"][0] == before_settings["hooks"]["PostToolUse"][0]  # kept, first
    assert settings["hooks"]["PostToolUse"][1]["hooks"][0]["tool"] == "observe"
    assert settings["hooks"]["Stop"][1]["hooks"][0] == {
        "type": "mcp_tool",
        "server": "tab",
        "tool": "finish_check",
        "input": {"session_id": "${session_id}", "cwd": "${cwd}", "stop_hook_active": "${stop_hook_active}"},
    }
    assert settings["enabledMcpjsonServers"] == ["github", "tab"]
    assert settings["permissions"]["deny"] == [
        "mcp__tab__observe",
        "mcp__tab__finish_check",
        "mcp__tab__prompt",
        "mcp__tab__bind",
    ]  # the hooks' tools out of the model's tool list
    mcp = json.loads((project / ".mcp.json").read_text())
    assert mcp["mcpServers"]["github"] == before_mcp["mcpServers"]["github"]
    assert mcp["mcpServers"]["tab"]["args"][-4:] == [
        "--harness",
        "claude-code",
        "--state-dir",
        str(tmp_path / "st"),
    ]
    assert main(["tab", "install", "claude-code", str(project)]) == 0  # again: nothing added twice
    assert json.loads((project / ".claude" / "settings.json").read_text()) == settings

    assert main(["tab", "uninstall", str(project)]) == 0
    assert json.loads((project / ".claude" / "settings.json").read_text()) == before_settings
    assert json.loads((project / ".mcp.json").read_text()) == before_mcp
    assert local.read_text() == '{"permissions": {"allow": ["Bash(ls:*)"]}}'
    assert sorted(p.name for p in (project / ".claude").iterdir()) == ["settings.json", "settings.local.json"]


def test_install_into_a_bare_folder_and_out_again(tmp_path: Path) -> None:
    report = install_claude_code(tmp_path, ["rtlab", "tab", "serve"])
    assert {p.name for p in report.changed} == {".mcp.json", "settings.json", "rtlab-tab.json"}
    uninstall(tmp_path)
    assert list(tmp_path.iterdir()) == []  # every file and folder install made is gone


def test_install_never_replaces_another_server_named_tab(tmp_path: Path) -> None:
    from rtlab.errors import RtlabError

    (tmp_path / ".mcp.json").write_text(json.dumps({"mcpServers": {"tab": {"command": "other"}}}))
    with pytest.raises(RtlabError, match=r"\.mcp\.json \[mcpServers\.tab\]: a different server"):
        install_claude_code(tmp_path, ["rtlab", "tab", "serve"])
    assert json.loads((tmp_path / ".mcp.json").read_text()) == {"mcpServers": {"tab": {"command": "other"}}}
    assert not (tmp_path / ".claude").exists()


def test_state_dir_default_is_outside_the_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from rtlab.harnesses import default_state_dir

    monkeypatch.delenv("RTLAB_TAB_STATE", raising=False)
    monkeypatch.setenv("XDG_STATE_HOME", str(tmp_path / "xdg"))
    assert default_state_dir() == tmp_path / "xdg" / "rtlab" / "tab"
    monkeypatch.setenv("RTLAB_TAB_STATE", str(tmp_path / "here"))
    assert default_state_dir() == tmp_path / "here"
    assert os.path.isabs(str(default_state_dir()))


# --- Codex: command hooks forwarded to the running server -------------------------------------------------------


def codex_event(kind: str, session: str = SID, **fields: Any) -> dict[str, Any]:
    """A Codex 0.171.0 hook event as its command hooks read it from stdin (observed end to end)."""
    return {
        "session_id": session,
        "turn_id": "01a24eb2-e235-7822-a71e-5524c1af8dc1",
        "transcript_path": f"/home/u/.codex/sessions/2026/12/07/rollout-2026-12-07T04-11-15-{session}.jsonl",
        "cwd": "/work/proj",
        "hook_event_name": kind,
        "model": "gpt-5",
        "permission_mode": "bypassPermissions",
        **fields,
    }


def test_codex_events_are_forwarded_to_the_server_of_the_same_harness_process(tmp_path: Path) -> None:
    from rtlab.harnesses import hook_answer as hook
    from rtlab.harnesses._codex import socket_path

    store = SessionStore(tmp_path)
    _, state = build_server(store, harness="codex")
    state.listen(
        socket_path(tmp_path, os.getppid())
    )  # as `rtlab tab serve --harness codex` does, child of the harness
    try:
        answers = [
            hook(codex_event("UserPromptSubmit", prompt="Report revenue 2024"), store),
            hook(codex_event("PostToolUse", tool_name="Bash", tool_input={"command": "cat notes.txt"},
                             tool_response=NOTES, tool_use_id="call_1"), store),
            hook(codex_event("PreToolUse", tool_name="mcp__tab__tab_add", tool_input={"text": "revenue 2024"},
                             tool_use_id="call_2"), store),
        ]  # fmt: skip
        added = state.call("tab_add", {"text": "revenue 2024"})  # the model's call, in the session just bound
        answers.append(
            hook(codex_event("PostToolUse", tool_name="mcp__tab__tab_add", tool_input={"text": "revenue 2024"},
                             tool_response={"content": [{"type": "text", "text": added}], "isError": False}), store)
        )  # fmt: skip
        answers.append(
            hook(codex_event("Stop", stop_hook_active=False, last_assistant_message="Done."), store)
        )
        answers.append(
            hook(codex_event("Stop", stop_hook_active=True, last_assistant_message="Done."), store)
        )
    finally:
        state.close()
    prompt, on_cat, bind, on_add, stop, again = answers
    assert prompt == bind == on_add == again == {}
    assert on_cat == {
        "hookSpecificOutput": {
            "hookEventName": "PostToolUse",
            "additionalContext": "[tab] 0 open · 1 read-log entry from 1 file · 0 candidates",
        }
    }
    assert added.startswith("Added R1: revenue 2024\n\n[tab] 1 open (R1) · 1 read-log entry from 1 file")
    assert stop["decision"] == "block" and "R1 revenue 2024" in stop["reason"]
    events = sorted((tmp_path / "sessions" / SID / "events").iterdir())
    assert {json.loads(p.read_text())["pid"] for p in events[1:]} == {os.getpid()}  # one process held the tab
    assert not socket_path(tmp_path, os.getppid()).exists()  # removed when the server closed


def test_codex_output_that_reads_as_json_stays_text(tmp_path: Path) -> None:
    _, state = build_server(SessionStore(tmp_path), harness="codex")
    output = '{"revenue_2024": 12}\n'
    event = codex_event(
        "PostToolUse", tool_name="Bash", tool_input={"command": "cat data.json"}, tool_response=output
    )
    assert "1 read-log entry" in json.dumps(state.handle(event))
    live = state.sessions.get(SID, harness="codex")
    assert live.environment is not None and live.environment.tab.read_log[0].excerpt == output


def test_codex_hook_without_a_server_applies_the_event_to_the_journal(tmp_path: Path) -> None:
    from rtlab.harnesses import hook_answer as hook

    store = SessionStore(tmp_path)
    event = codex_event(
        "PostToolUse", tool_name="Bash", tool_input={"command": "cat notes.txt"}, tool_response=NOTES
    )
    assert hook(event, store)["hookSpecificOutput"]["additionalContext"].startswith(
        "[tab] 0 open · 1 read-log entry"
    )
    _, state = build_server(store, harness="codex")  # a server started later resumes what the hook wrote
    state.bind(SID)
    assert "1 read-log entry from 1 file" in state.call("tab_add", {"text": "revenue 2024"})


def test_codex_install_and_uninstall_round_trip(tmp_path: Path) -> None:
    import tomllib

    project = tmp_path / "proj"
    (project / ".codex").mkdir(parents=True)
    config = 'model = "gpt-5"\n\n[mcp_servers.github]\ncommand = "gh-mcp"\n'
    (project / ".codex" / "config.toml").write_text(config)
    hooks_before = {
        "hooks": {"PostToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "log.sh"}]}]}
    }
    (project / ".codex" / "hooks.json").write_text(json.dumps(hooks_before))
    assert main(["tab", "install", "codex", str(project), "--state-dir", str(tmp_path / "st")]) == 0
    parsed = tomllib.loads((project / ".codex" / "config.toml").read_text())
    assert parsed["model"] == "gpt-5" and parsed["mcp_servers"]["github"] == {"command": "gh-mcp"}
    assert parsed["mcp_servers"]["tab"]["args"][-5:] == [
        "serve",
        "--harness",
        "codex",
        "--state-dir",
        str(tmp_path / "st"),
    ]
    assert parsed["mcp_servers"]["tab"]["disabled_tools"] == ["observe", "finish_check", "prompt", "bind"]
    assert parsed["mcp_servers"]["tab"]["default_tools_approval_mode"] == "approve"  # codex exec would refuse them
    hooks = json.loads((project / ".codex" / "hooks.json").read_text())["hooks"]
    assert hooks["PostToolUse"][0] == hooks_before["hooks"]["PostToolUse"][0]
    command = hooks["Stop"][0]["hooks"][0]["command"]
    hook_file = Path(rtlab.harnesses.hook.__file__).resolve()
    assert command.endswith(f"-I -S {hook_file} --state-dir {tmp_path / 'st'}")  # the lean hook: no site
    assert main(["tab", "uninstall", str(project)]) == 0
    assert (project / ".codex" / "config.toml").read_text() == config
    assert json.loads((project / ".codex" / "hooks.json").read_text()) == hooks_before
    assert sorted(p.name for p in (project / ".codex").iterdir()) == ["config.toml", "hooks.json"]
    assert not (project / ".mcp.json").exists() and not (project / ".claude").exists()


def test_rtlab_tab_show_lists_sessions_and_rebuilds_a_tab_from_its_journal(
    tmp_path: Path, capsys: Any
) -> None:
    server, _ = build_server(SessionStore(tmp_path))

    async def go() -> None:
        async with Client(server) as c:
            await c.call_tool(
                "observe", templated(read_event(), HOOKS["observe"])
            )  # no snapshot yet: one tool result
            await c.call_tool("observe", templated(read_event(OTHER), HOOKS["observe"]))

    run(go())
    assert not (tmp_path / "sessions" / SID / "tab.json").exists()
    assert main(["tab", "show", "--state-dir", str(tmp_path)]) == 0
    assert sorted(capsys.readouterr().out.split()) == sorted([SID, OTHER])
    assert main(["tab", "show", SID, "--state-dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("[tab] 0 open · 1 read-log entry from 1 file · 0 candidates\nL1 step 0 notes.txt")
    assert main(["tab", "show", "nope", "--state-dir", str(tmp_path)]) == 2


def test_the_lean_hook_command_forwards_and_falls_back_to_the_journal(tmp_path: Path) -> None:
    import subprocess
    import sys

    from rtlab.harnesses._codex import socket_path
    from rtlab.harnesses._install import _hook_command

    command = _hook_command([sys.executable, "-m", "rtlab", "tab", "serve", "--state-dir", str(tmp_path)])
    assert command[1:3] == ["-I", "-S"]  # no site packages: Python's bare start and the standard library
    event = codex_event(
        "PostToolUse", tool_name="Bash", tool_input={"command": "cat notes.txt"}, tool_response=NOTES
    )

    def run() -> dict[str, Any]:
        done = subprocess.run(command, input=json.dumps(event), capture_output=True, text=True, check=True)
        assert done.stderr == ""
        return json.loads(done.stdout)

    # no server: the lean process hands the event to the full interpreter, which applies it to the journal
    first = run()["hookSpecificOutput"]["additionalContext"]
    assert first.startswith("[tab] 0 open · 1 read-log entry from 1 file")
    # a server of this (the hook's parent) process: the event is forwarded to it, which resumes the journal
    _, state = build_server(SessionStore(tmp_path), harness="codex")
    state.listen(socket_path(tmp_path, os.getpid()))
    try:
        second = run()["hookSpecificOutput"]["additionalContext"]  # the same read again: a second entry
        assert second.startswith("[tab] 0 open · 2 read-log entries from 1 file")
        events = sorted((tmp_path / "sessions" / SID / "events").iterdir())
        assert json.loads(events[-1].read_text())["pid"] == os.getpid()  # the server wrote the second event
    finally:
        state.close()

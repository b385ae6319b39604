"""``rtlab experiment --agent claude-code|codex``: the real CLIs (tools/npm/package.json's pinned versions, in
build/npm) as the agent of each run of a small grid (one simulated-world task x RunningTab and DCI), driven by the
scripted local model servers of tests/harness_fakes.py on 127.0.0.1. Checked: the run folders (the CLI's own log,
labels, the deliverable, the tab, the marker), rtlab reading the experiment folder back with the tab calls as tab
steps and replaying it, resume (a second call makes no run and no model request), the key in no file, and the
error that names what to install when a CLI is missing."""

from __future__ import annotations

import gzip
import json
import re
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import ROOT
from harness_fakes import AnthropicFake, ResponsesFake, blocks, texts
from test_agent import TASK_ID, make_world
from test_harness_e2e import cli

from rtlab.agent import COMPLETE, load_experiment, load_task, run_experiment
from rtlab.cli import main
from rtlab.environment import replay
from rtlab.errors import RtlabError
from rtlab.harnesses import CliNotFoundError, CliRunConfig, cli_runner, run_cli_agent
from rtlab.ingest import ingest

KEY = "sk-test-0123456789-never-written"
ANSWER = "Q3 capex: see notes."


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_world(tmp_path_factory.mktemp("cliexp"))


def _config(tmp: Path, world: Path, agent: str, model: str, base_url: str, sandbox: str = "none") -> Path:
    path = tmp / "experiment.json"
    config = {
        "tasks": [f"{world}:{TASK_ID}"],
        "methods": ["runningtab", "dci"],
        "models": [model],
        "runs": 1,
        "base_url": base_url,
        "agent": agent,
        "time_limit": 240,
        "sandbox": sandbox,
    }
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def _workdir(body: dict[str, Any]) -> str:
    """The run's working directory, as the CLI tells the model (Claude Code's environment reminder, Codex's
    environment context)."""
    found = re.search(r"Primary working directory: ([^\\\s\"<]+)|<cwd>([^<]+)</cwd>", json.dumps(body))
    assert found, "no working directory in the request"
    return found.group(1) or found.group(2)


def _check_folders(out: Path, agent: str, harness_log: str) -> list[Path]:
    folders = sorted(p.parent for p in out.rglob(COMPLETE))
    assert [f.relative_to(out / "runs").parts[1] for f in folders] == ["DCI", "RunningTab"]
    for folder in folders:
        marker = json.loads((folder / COMPLETE).read_text())
        assert marker["agent"] == agent and marker["end_reason"] == "finished" and marker["steps"] >= 3
        labels = json.loads((folder / "run.json").read_text())
        assert labels["harness"] == agent and labels["agent"]["cli"] == agent
        assert labels["agent"]["exit_status"] == 0 and labels["agent"]["cli_version"]
        assert (folder / "output" / "q3_capex_update.md").read_text().strip() == ANSWER
        assert (folder / "metadata.json").is_file()  # the task, for the Workspace-Bench adapter
        assert len(list(folder.glob(harness_log))) == 1
        assert (folder / f"{'claude' if agent == 'claude-code' else 'codex'}.stdout.jsonl.gz").is_file()
        assert not list(folder.glob(".*"))  # no workspace copy, home or state left in the run folder
        for path in folder.rglob("*"):  # the key reached the CLI by its environment only
            if path.is_file():
                data = path.read_bytes()
                if path.suffix == ".gz":
                    data = gzip.decompress(data)
                assert KEY.encode() not in data, path
    tab = json.loads((folders[1] / "tab.json").read_text())
    assert [(r["id"], r["status"], r["cite"]) for r in tab["tab"]["requirements"]] == [("R1", "done", "L1")]
    assert tab["finish_issued"] is True
    assert not (folders[0] / "tab.json").exists() or "requirements" not in (
        json.loads((folders[0] / "tab.json").read_text()).get("tab") or {}
    )
    return folders


def _check_read_back(out: Path, agent: str) -> None:
    result = ingest([out])
    trajectories = sorted(result.trajectories, key=lambda t: t.method or "")
    assert [(t.method, t.harness, t.task_id, t.run) for t in trajectories] == [
        ("DCI", agent, TASK_ID, "1"),
        ("RunningTab", agent, TASK_ID, "1"),
    ]
    dci, tab = trajectories
    assert not [s for s in dci.steps if s.action and s.action.kind == "tab"]
    assert [s.action.op for s in tab.steps if s.action and s.action.kind == "tab"] == ["add", "resolve"]
    assert tab.task is not None and tab.task.id == TASK_ID  # the benchmark's task joined from metadata.json
    for t in trajectories:  # the deliverable as the run left it in outputs/, whichever tool wrote it
        assert [(f.path, f.origin, f.content) for f in t.deliverable.files] == [
            ("outputs/q3_capex_update.md", "output_dir", ANSWER + "\n")
        ]
    if agent == "claude-code":
        assert tab.warnings == [] and dci.warnings == []  # 2.1.332's bookkeeping records are known
    replayed = replay(tab, requirements="trajectory")
    assert replayed.tab.requirements[0].status == "done"
    assert main(["replay", str(out), "--json", "--requirements", "trajectory"]) == 0


def test_claude_code_as_the_agent_of_an_experiment(world: Path, tmp_path: Path, monkeypatch, capsys) -> None:
    claude = cli("claude", "@anthropic-ai/claude-code")
    pytest.importorskip("mcp", reason="the MCP SDK (pip install 'rtlab[mcp]') is needed for rtlab tab serve")
    task = load_task(f"{world}:{TASK_ID}")
    prompts: set[str] = set()

    def script(body: dict[str, Any]) -> dict[str, Any]:
        if not body.get("tools"):  # a side request (a title): not the agent's loop
            return {"text": "ok"}
        prompts.update(t for t in texts(body, "user") if t.startswith(task.task.instruction[:40]))
        cwd = _workdir(body)
        has_tab = any(t["name"] == "mcp__tab__tab_add" for t in body["tools"])
        done = len(blocks(body, "tool_result"))
        blocked = any("[tab] finish check" in t for t in texts(body, "user"))
        moves: list[dict[str, Any]] = [
            {"tool": "Read", "input": {"file_path": f"{cwd}/Templates/status_update_template.md"}},
            {"tool": "Bash", "input": {"command": "ls Templates", "description": "List templates"}},
        ]
        if has_tab:
            moves.append({"tool": "mcp__tab__tab_add", "input": {"text": "the Q3 capex update"}})
        moves.append(
            {"tool": "Write", "input": {"file_path": f"{cwd}/{task.deliverable}", "content": ANSWER + "\n"}}
        )
        if done < len(moves):
            return moves[done]
        if has_tab and done == len(moves):
            if not blocked:
                return {"text": "Done."}  # the early stop: R1 is open, the finish check blocks it
            return {"tool": "mcp__tab__tab_resolve", "input": {"id": "R1", "status": "done", "cite": "L1"}}
        return {"text": "Done: outputs/q3_capex_update.md."}

    out = tmp_path / "exp"
    with AnthropicFake(script) as fake:
        config = load_experiment(_config(tmp_path, world, "claude-code", "claude-sonnet-4-5", fake.url))
        runner = cli_runner("claude-code", binary=str(claude), work_root=str(tmp_path / "work"))
        result = run_experiment(config, out, api_key=KEY, runner=runner)
        assert result.failed == [] and len(result.done) == 2, result.failed
        assert {r["arm"]: r["finished"] for r in result.rows} == {"DCI": 1, "RunningTab": 1}
        assert all(h.get("x-api-key") == KEY for h in fake.headers)  # the key reached the server
        assert prompts == {task.prompt}  # the task as the first user message, whole
        requests = len(fake.requests)
        again = run_experiment(config, out, api_key=KEY, runner=runner)  # resume: nothing left to do
        assert again.done == [] and len(again.skipped) == 2 and len(fake.requests) == requests
        # the command line does the same (the runs' private folders under $XDG_CACHE_HOME/rtlab/cli-runs)
        monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
        config_file = _config(tmp_path, world, "rtlab", "claude-sonnet-4-5", fake.url)
        command = ["experiment", str(config_file), "--out", str(out), "--api-key", KEY]
        assert main([*command, "--agent", "claude-code", "--agent-binary", str(claude)]) == 0
        assert "0 runs made, 2 already finished, 0 failed" in capsys.readouterr().out
        assert main(command) == 2  # made by Claude Code: not to be mixed with rtlab's own agent's runs
        assert "made by agent 'claude-code'" in capsys.readouterr().err
        other = tmp_path / "exp-cli"  # a new experiment through the command line, each run judged
        cli_agent = ["--agent", "claude-code", "--agent-binary", str(claude), "--sim-judge"]
        assert main([*command[:3], str(other), *command[4:], *cli_agent]) == 0
        assert "2 runs made" in capsys.readouterr().out
        assert (
            len(list(other.rglob(COMPLETE))) == len(list(other.rglob("rubrics_judge--sim-judge.json"))) == 2
        )
        assert list((tmp_path / "cache" / "rtlab" / "cli-runs").iterdir()) == []
    assert main(["score", str(other), "--by", "method"]) == 0  # the judged deliverables, scored per arm
    assert "RunningTab" in capsys.readouterr().out
    _check_folders(out, "claude-code", "*-*-*-*-*.jsonl")
    _check_read_back(out, "claude-code")
    # an unfinished run (its marker gone) is redone from scratch by the same command, through the CLI
    (folder,) = [p.parent for p in out.rglob(COMPLETE) if "DCI" in p.parts]
    (folder / COMPLETE).unlink()
    with AnthropicFake(script) as fake:
        config.base_url = fake.url
        third = run_experiment(config, out, api_key=KEY, runner=runner)
        assert [Path(s.run_dir) for s in third.done] == [folder] and len(third.skipped) == 1
    assert len(list(folder.glob("*-*-*-*-*.jsonl"))) == 1  # the old session file went with the old run


def test_codex_as_the_agent_of_an_experiment(world: Path, tmp_path: Path) -> None:
    codex = cli("codex", "@openai/codex")
    pytest.importorskip("mcp", reason="the MCP SDK (pip install 'rtlab[mcp]') is needed for rtlab tab serve")
    if shutil.which("git") is None:
        pytest.skip("git is not installed: Codex reads a project's .codex/ only inside a repository")
    task = load_task(f"{world}:{TASK_ID}")

    def script(body: dict[str, Any]) -> dict[str, Any]:
        items = body.get("input", [])
        cwd = _workdir(body)
        has_tab = "tab_add" in json.dumps(body.get("tools", []))
        done = sum(1 for i in items if i.get("type") == "function_call_output")
        blocked = any("[tab] finish check" in json.dumps(i) for i in items if i.get("role") == "user")
        target = f"{cwd}/{task.deliverable}"
        moves: list[dict[str, Any]] = [
            {"tool": "exec_command", "input": {"cmd": "cat Templates/status_update_template.md"}},
            {"tool": "exec_command", "input": {"cmd": "ls Templates"}},
        ]
        if has_tab:
            moves.append(
                {"tool": "tab_add", "namespace": "mcp__tab", "input": {"text": "the Q3 capex update"}}
            )
        moves.append(
            {
                "tool": "exec_command",
                "input": {"cmd": f"mkdir -p outputs && printf '{ANSWER}\\n' > '{target}'"},
            }
        )
        if done < len(moves):
            return moves[done]
        if has_tab and done == len(moves):
            if not blocked:
                return {"text": "Done."}
            return {
                "tool": "tab_resolve",
                "namespace": "mcp__tab",
                "input": {"id": "R1", "status": "done", "cite": "L1"},
            }
        return {"text": "Done: outputs/q3_capex_update.md."}

    out = tmp_path / "exp"
    # Codex's own sandbox (workspace-write), which does not start under the temporary folder: the runs' private
    # folders go under build/ for this test
    (ROOT / "build").mkdir(exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="cliexp-test-", dir=ROOT / "build"))
    try:
        with ResponsesFake(script) as fake:
            config = load_experiment(
                _config(tmp_path, world, "codex", "fake-model", fake.url, sandbox="auto")
            )
            runner = cli_runner("codex", binary=str(codex), work_root=str(work))
            result = run_experiment(config, out, api_key=KEY, runner=runner)
            assert result.failed == [] and len(result.done) == 2, result.failed
            requests = len(fake.requests)
            again = run_experiment(config, out, api_key=KEY, runner=runner)
            assert again.done == [] and len(again.skipped) == 2 and len(fake.requests) == requests
        assert list(work.iterdir()) == []  # each run's private folder removed
    finally:
        shutil.rmtree(work, ignore_errors=True)
    outputs = [
        i for r in fake.requests for i in r.get("input", []) if i.get("type") == "function_call_output"
    ]
    assert not [
        o for o in outputs if "requires approval" in json.dumps(o) or "codex-linux-sandbox" in json.dumps(o)
    ]
    _check_folders(out, "codex", "rollout-*.jsonl")
    _check_read_back(out, "codex")


def test_a_missing_cli_is_said_with_what_to_install(world: Path, tmp_path: Path, capsys) -> None:
    with pytest.raises(CliNotFoundError, match="npm install -g @openai/codex"):
        cli_runner("codex", binary=str(tmp_path / "no-codex"))
    config = _config(tmp_path, world, "rtlab", "m", "http://127.0.0.1:9/v1")
    out = tmp_path / "exp"
    code = main(
        [
            "experiment",
            str(config),
            "--out",
            str(out),
            "--agent",
            "claude-code",
            "--agent-binary",
            str(tmp_path),
        ]
    )
    assert code == 2 and not out.exists()  # refused before any run
    assert "@anthropic-ai/claude-code" in capsys.readouterr().err
    with pytest.raises(
        RtlabError, match="does not start under the temporary folder"
    ):  # said, not a silent failure
        run_cli_agent(
            load_task(f"{world}:{TASK_ID}"),
            CliRunConfig("codex", Path(sys.executable), "dci", "m", api_key=KEY, work_root=str(tmp_path)),
            tmp_path / "run",
        )
    assert not (tmp_path / "run").exists()
    # the agent package alone cannot run a CLI
    with pytest.raises(ValueError, match="rtlab.harnesses.cli_runner"):
        run_experiment(load_experiment(_config(tmp_path, world, "codex", "m", "http://127.0.0.1:9/v1")), out)


def _fake_claude(path: Path, session: Path, *, before: str = "", status: int = 0) -> Path:
    """A stand-in for ``claude`` (no Node needed): it writes the 2.1.332 session fixture where Claude Code keeps
    its sessions under its ``HOME``, prints stream-json's init and result, and the key it was given (on stdout and
    stderr) as a careless CLI might."""
    session_id = json.loads(session.read_text().splitlines()[0])["sessionId"]
    path.write_text(
        "#!/bin/sh\n"
        'if [ "$1" = "--version" ]; then echo "2.1.332 (Claude Code)"; exit 0; fi\n'
        f"{before}\n"
        'mkdir -p "$HOME/.claude/projects/-home-user-proj"\n'
        f'cp "{session}" "$HOME/.claude/projects/-home-user-proj/{session_id}.jsonl"\n'
        f'echo \'{{"type":"system","subtype":"init","session_id":"{session_id}"}}\'\n'
        'echo "{\\"type\\":\\"note\\",\\"key\\":\\"$ANTHROPIC_API_KEY\\"}"\n'
        'echo "using key $ANTHROPIC_API_KEY" >&2\n'
        'echo \'{"type":"result","subtype":"success","num_turns":6,"total_cost_usd":0.1}\'\n'
        f"exit {status}\n"
    )
    path.chmod(0o755)
    return path


def test_a_cli_run_folder_without_node(world: Path, fixtures: Path, tmp_path: Path) -> None:
    # the run folder, the key masked in everything written, the time limit, a CLI that writes no log, and the
    # redo of the unfinished folder it leaves, with a stand-in for the CLI
    session = fixtures / "claude-code-2.1.332" / "session.jsonl"
    task = load_task(f"{world}:{TASK_ID}")

    def config(binary: Path, **kw: Any) -> CliRunConfig:
        return CliRunConfig("claude-code", binary, "runningtab", "claude-sonnet-4-5", api_key=KEY, **kw)

    work = tmp_path / "work"
    out = tmp_path / "run"
    summary = run_cli_agent(
        task, config(_fake_claude(tmp_path / "claude", session), work_root=str(work)), out
    )
    assert (summary.end_reason, summary.steps, summary.turns) == ("finished", 4, 6)
    assert (summary.prompt_tokens, summary.completion_tokens) == (60, 30)
    stdout = gzip.decompress((out / "claude.stdout.jsonl.gz").read_bytes()).decode()
    assert '"key":"***"' in stdout and KEY not in stdout
    assert (out / "claude.stderr.txt").read_text() == "using key ***\n"
    labels = json.loads((out / "run.json").read_text())
    assert labels["agent"]["cli_version"] == "2.1.332 (Claude Code)"
    assert labels["agent"]["cli_result"] == {"subtype": "success", "num_turns": 6, "total_cost_usd": 0.1}
    assert (labels["method"], labels["variant"], labels["harness"]) == ("RunningTab", None, "claude-code")
    (t,) = ingest([out]).trajectories
    assert (t.method, t.harness, t.task_id, t.n_steps, t.warnings) == (
        "RunningTab",
        "claude-code",
        TASK_ID,
        4,
        [],
    )
    assert list(work.iterdir()) == []
    with pytest.raises(FileExistsError, match="finished run"):
        run_cli_agent(task, config(tmp_path / "claude", work_root=str(work)), out)

    slow = _fake_claude(tmp_path / "slow-claude", session, before="sleep 30")
    other = tmp_path / "slow"
    began = time.monotonic()
    with pytest.raises(RtlabError, match="wrote no session log"):  # killed before it wrote anything
        run_cli_agent(task, config(slow, work_root=str(work), time_limit=1.0), other)
    assert time.monotonic() - began < 20 and not (other / COMPLETE).exists()
    late = _fake_claude(tmp_path / "late-claude", session, before="trap '' TERM")  # writes, then is killed
    late.write_text(late.read_text().replace("exit 0\n", "sleep 30\n"))
    summary = run_cli_agent(
        task, config(late, work_root=str(work), time_limit=2.0), other
    )  # the folder redone
    assert summary.end_reason == "time_limit" and summary.steps == 4 and (other / COMPLETE).is_file()

    failing = _fake_claude(tmp_path / "failing-claude", session, status=3)
    third = tmp_path / "failing"
    summary = run_cli_agent(task, config(failing, work_root=str(work)), third)
    assert summary.end_reason == "server_error"  # it wrote its log, then failed: said, the run kept
    assert json.loads((third / "run.json").read_text())["agent"]["stderr_tail"] == "using key ***\n"

"""The tasks ``rtlab run`` works and the client behind it: real Workspace-Bench and OfficeQA tasks run against the
simulated server and read back joined with their benchmark; ``LLMClient`` keeps tool calls (cached, redacted); the
command line runs, judges a simulated task and refuses a folder it did not write."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from test_agent import TASK_ID, UNCONFINED, make_world

from rtlab.agent import RunConfig, TaskError, load_task, run_agent
from rtlab.cli import main
from rtlab.ingest import ingest
from rtlab.llm import LLMClient, SimulatedServer, malformed_call


@pytest.fixture(scope="module")
def server():
    with SimulatedServer() as srv:
        yield srv


def _read(out: Path):
    result = ingest([out])
    assert not result.failures
    (t,) = result.trajectories
    return t


def test_a_workspace_bench_task_folder_runs_and_joins_its_task(real: Path, server, tmp_path: Path) -> None:
    folder = real / "workspace-bench" / "task-3-files"
    task = load_task(str(folder))
    assert (
        task.kind == "workspace-bench"
        and task.deliverable == "outputs/project_dependency_deduplication_list.md"
    )
    config = RunConfig(
        method="runningtab", model="rtlab-simulated", base_url=server.base_url, sandbox=UNCONFINED
    )
    assert run_agent(task, config, tmp_path / "run").end_reason == "finished"
    t = _read(tmp_path / "run")
    assert t.benchmark == "workspace-bench" and t.task_id == "3" and len(t.task.rubric) == 21
    assert t.deliverable.files[0].path == task.deliverable
    assert not any(
        "metadata.json" in (s.shown or "") for s in t.steps if s.tool == "bash"
    )  # rubrics not copied


def test_a_lite_table_row_needs_its_files(real: Path) -> None:
    table = real / "workspace-bench" / "lite_metadata" / "task_lite_clean_en_metadata_table.csv"
    with pytest.raises(TaskError, match="--files"):
        load_task(f"{table}:3")
    task = load_task(f"{table}:3", files=real / "workspace-bench" / "task-3-files")
    assert task.task.id == "3" and json.loads(task.sidecars["metadata.json"])["rubrics"]


def test_an_officeqa_question_runs_over_the_bulletins_and_joins_its_task(
    real: Path, server, tmp_path: Path
) -> None:
    questions = real / "officeqa" / "questions" / "officeqa_pro.csv"
    task = load_task(f"{questions}:UID0001")
    assert task.kind == "officeqa" and task.task.id == "oqa-0" and task.workspace.name.startswith("treasury")
    config = RunConfig(method="dci", model="rtlab-simulated", base_url=server.base_url, sandbox=UNCONFINED)
    assert run_agent(task, config, tmp_path / "run").end_reason == "finished"
    t = _read(tmp_path / "run")
    assert t.benchmark == "officeqa" and t.task is not None and t.task.answer == "2,602"
    assert t.meta["agent"]["task_kind"] == "officeqa"


def test_a_task_that_is_not_one_is_named(tmp_path: Path) -> None:
    with pytest.raises(TaskError, match="no such file"):
        load_task(str(tmp_path / "nothing:1"))
    (tmp_path / "x.txt").write_text("hi", encoding="utf-8")
    with pytest.raises(TaskError, match="not a task"):
        load_task(str(tmp_path / "x.txt"))


def test_the_client_keeps_tool_calls_caches_them_and_redacts_their_arguments(server, tmp_path: Path) -> None:
    key = "sk-live-abcdefghijklmnop"
    server.reset()
    leaked = malformed_call("write", '{"path": "a", "content": "key sk-live-abcdefghijklmnop"}')
    server.script(leaked)
    client = LLMClient(base_url=server.base_url, api_key=key, cache_dir=tmp_path / "cache")
    request = {
        "model": "rtlab-simulated",
        "messages": [{"role": "user", "content": "the task"}],
        "tools": [{"type": "function", "function": {"name": "write", "parameters": {"type": "object"}}}],
    }
    first = client.complete(request)
    assert first.ok and first.finish_reason == "tool_calls" and first.content is None
    (call,) = first.tool_calls or []
    assert call["function"]["name"] == "write" and key not in call["function"]["arguments"]
    again = client.complete(request)
    assert again.cached and again.tool_calls == first.tool_calls and server.n_requests == 1
    for path in (tmp_path / "cache").rglob("*.json"):
        assert key not in path.read_text(encoding="utf-8")


def test_the_command_line_runs_judges_a_simulated_task_and_refuses_a_foreign_folder(
    server, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    world = make_world(tmp_path)
    out = tmp_path / "run"
    args = [
        f"{world}:{TASK_ID}",
        "--method",
        "dci",
        "--model",
        "rtlab-simulated",
        "--base-url",
        server.base_url,
        "--sandbox",
        UNCONFINED,
    ]
    assert main(["run", *args, "--out", str(out), "--sim-judge"]) == 0
    said = capsys.readouterr().out
    assert "finished after" in said and "SIMULATED world's deterministic judge" in said
    t = _read(out)
    assert t.judgement is not None and len(t.judgement.items) == len(t.task.rubric)
    assert main(["run", *args, "--out", str(out)]) == 2  # a finished run is never overwritten
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "thesis.tex").write_text("keep me", encoding="utf-8")
    assert main(["run", *args, "--out", str(foreign)]) == 2
    assert (foreign / "thesis.tex").read_text(encoding="utf-8") == "keep me"

"""The live agent harness (rtlab.agent) against the simulated server over HTTP: every method and ablation writes a
run that ingests with its labels, task and deliverable, and replaying a RunningTab run gives every tab reply and
status line the live run gave, step by step; malformed calls, length stops, refusals and server errors are
recorded, never a crash."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rtlab.agent import RunConfig, load_task, run_agent
from rtlab.environment import TabConfig, evaluator_view, replay
from rtlab.ingest import ingest
from rtlab.llm import (
    LLMClient,
    SimulatedServer,
    http_error,
    length_stop,
    malformed_call,
    refuse,
    unknown_tool_call,
)
from rtlab.records import STATUS_SEPARATOR, status_start

SMALL_WORLD = json.loads(
    (Path(__file__).parent / "fixtures" / "agent_world.json").read_text(encoding="utf-8")
)
"""The one-task world of the README's example (``rtlab synth --config tests/fixtures/agent_world.json``)."""
UNCONFINED = "none"
"""The sandbox of the live loop's tests: the scripted agent's commands run unconfined (``--sandbox none``), inside
the run's own temporary copy of the workspace, so these tests need no bubblewrap. Confinement is tested where it is
the subject: tests/test_agent_sandbox.py and ``test_a_run_under_bubblewrap_gives_the_same_tab`` (both need bubblewrap
and skip without it)."""
TASK_ID = "sim-operations-01"
ARMS = [
    ("dci", None),
    ("todo", None),
    ("self-refine", None),
    ("self-tracking", None),
    ("runningtab", None),
    ("runningtab", "no-capture"),
    ("runningtab", "no-review"),
    ("runningtab", "no-evidence-check"),
    ("runningtab", "no-finish-check"),
]


def make_world(root: Path) -> Path:
    """A one-task simulated world (``rtlab synth``, about 5 s)."""
    from rtlab.synth import SynthConfig, generate

    return generate(root / "world", SynthConfig.from_dict(SMALL_WORLD))


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_world(tmp_path_factory.mktemp("agent"))


@pytest.fixture(scope="module")
def server():
    with SimulatedServer() as srv:
        yield srv


def _run(world: Path, server: SimulatedServer, out: Path, method: str, ablation: str | None = None, **kw):
    kw.setdefault("sandbox", UNCONFINED)
    config = RunConfig(
        method=method, ablation=ablation, model="rtlab-simulated", base_url=server.base_url, **kw
    )
    return run_agent(load_task(f"{world}:{TASK_ID}"), config, out)


def _read(out: Path):
    result = ingest([out])
    assert not result.failures
    (t,) = result.trajectories
    return t


@pytest.mark.parametrize(("method", "ablation"), ARMS)
def test_every_method_writes_a_run_rtlab_reads_and_replay_reproduces_the_tab(
    world: Path, server: SimulatedServer, tmp_path: Path, method: str, ablation: str | None
) -> None:
    summary = _run(world, server, tmp_path / "run", method, ablation)
    assert summary.end_reason == "finished"
    t = _read(tmp_path / "run")
    labels = {"dci": "DCI", "todo": "TODO", "self-refine": "Self-Refine", "self-tracking": "Self-Tracking"}
    assert (
        t.method == labels.get(method, "RunningTab")
        and t.variant == ablation
        and t.model == "rtlab-simulated"
    )
    assert t.benchmark == "workspace-bench" and t.task is not None and t.task.id == TASK_ID and t.task.rubric
    assert t.meta["agent"]["context"] == "keep-all" and t.meta["agent"]["end_reason"] == "finished"
    assert (
        t.clip_policy == "openhands-v0"
        and t.usage is not None
        and t.usage.input_tokens == summary.prompt_tokens
    )
    (delivered,) = t.deliverable.files
    assert delivered.path == f"outputs/{t.task.expected_outputs[0]}"
    assert (tmp_path / "run" / "output" / t.task.expected_outputs[0]).read_text(
        encoding="utf-8"
    ) == delivered.content
    assert not (tmp_path / "run" / ".workspace").exists()
    assert all(s.action is not None for s in t.steps)
    tools = {s.tool for s in t.steps}
    if method == "todo":
        assert "todo" in tools and any(e.kind == "plan" for e in t.events)
    if method == "self-tracking":
        assert "notes" in tools and any(e.kind == "plan" for e in t.events)
    if method == "self-refine":
        assert sum(s.tool == "write" for s in t.steps) == 2  # the draft, then the revision asked for once
    if method != "runningtab":
        assert not any(s.tool.startswith("tab_") for s in t.steps)
        assert not any(STATUS_SEPARATOR + "[tab]" in (s.shown or "") for s in t.steps)
        return
    r = replay(t, requirements="trajectory", config=TabConfig.ablation(ablation or "full"))
    calls = 0
    for rec, step in zip(r.records, t.steps, strict=True):
        if rec.kind == "tab_call":
            calls += 1
            assert rec.reply == step.output == step.shown
        else:  # the status line the live environment appended is the replayed tab's after the same step
            shown = step.shown or ""
            assert shown[status_start(shown) :].lstrip("\n") == rec.status_line
    assert calls >= 5  # four requirements stated, the review, the resolutions
    view = evaluator_view(t)
    assert not any(s.tool.startswith("tab_") for s in view.steps)
    assert not any("[tab]" in (s.shown or "") for s in view.steps)


def test_a_run_under_bubblewrap_gives_the_same_tab(
    world: Path, server: SimulatedServer, tmp_path: Path
) -> None:
    """The same scripted RunningTab run confined by bubblewrap (commands see the copy at ``/workspace``) and
    unconfined: the same tool calls, the same tab replies, the same deliverable; the status lines the live
    environment appended under bubblewrap are the replayed tab's."""
    from rtlab.agent import bwrap_works

    if (why := bwrap_works()) is not None:
        pytest.skip(f"no bubblewrap confinement here: {why}")
    assert _run(world, server, tmp_path / "boxed", "runningtab", sandbox="bwrap").end_reason == "finished"
    assert _run(world, server, tmp_path / "open", "runningtab").end_reason == "finished"
    boxed, unboxed = _read(tmp_path / "boxed"), _read(tmp_path / "open")
    assert boxed.cwd == "/workspace" and unboxed.cwd != "/workspace"
    assert [s.tool for s in boxed.steps] == [s.tool for s in unboxed.steps]
    assert [s.output for s in boxed.steps if s.tool.startswith("tab_")] == [
        s.output for s in unboxed.steps if s.tool.startswith("tab_")
    ]
    assert [f.content for f in boxed.deliverable.files] == [f.content for f in unboxed.deliverable.files]
    r = replay(boxed, requirements="trajectory")
    for rec, step in zip(r.records, boxed.steps, strict=True):
        if rec.kind != "tab_call":
            shown = step.shown or ""
            assert shown[status_start(shown) :].lstrip("\n") == rec.status_line


def test_no_finish_check_ablation_leaves_requirements_open_and_the_full_tab_asks_once(
    world: Path, server: SimulatedServer, tmp_path: Path
) -> None:
    _run(world, server, tmp_path / "full", "runningtab")
    _run(world, server, tmp_path / "off", "runningtab", "no-finish-check")
    full, off = _read(tmp_path / "full"), _read(tmp_path / "off")
    asked = [e for e in full.events if e.role == "user" and e.text.startswith("[tab] finish check")]
    assert len(asked) <= 1
    assert not [e for e in off.events if e.text.startswith("[tab] finish check")]


def test_malformed_calls_length_stops_and_server_errors_are_recorded_not_crashes(
    world: Path, server: SimulatedServer, tmp_path: Path
) -> None:
    server.reset()
    server.script(malformed_call(), unknown_tool_call(), length_stop(), http_error(500))
    client = LLMClient(base_url=server.base_url, cache=False, max_attempts=1)
    config = RunConfig(
        method="runningtab", model="rtlab-simulated", base_url=server.base_url, sandbox=UNCONFINED
    )
    summary = run_agent(load_task(f"{world}:{TASK_ID}"), config, tmp_path / "run", client=client)
    assert summary.end_reason == "finished"
    t = _read(tmp_path / "run")
    bad, unknown = t.steps[0], t.steps[1]
    assert bad.tool == "read" and bad.is_error and bad.args_error and "not valid JSON" in (bad.shown or "")
    assert (
        unknown.tool == "browse_web"
        and unknown.is_error
        and "not a tool of this run" in (unknown.shown or "")
    )
    reasons = [e.data.get("reason") for e in t.events if e.kind == "error"]
    assert reasons == ["length", "server_error"]  # the cut reply, then the failed request; the run went on
    assert t.meta["agent"]["turns"] == summary.turns
    # the tab was never disturbed: replay still reproduces it
    r = replay(t, requirements="trajectory")
    assert all(
        rec.reply == s.output for rec, s in zip(r.records, t.steps, strict=True) if rec.kind == "tab_call"
    )


def test_a_refusal_and_repeated_server_errors_end_the_run_with_a_reason(
    world: Path, server: SimulatedServer, tmp_path: Path
) -> None:
    client = LLMClient(base_url=server.base_url, cache=False, max_attempts=1)
    config = RunConfig(method="dci", model="rtlab-simulated", base_url=server.base_url, sandbox=UNCONFINED)
    server.reset()
    server.script(refuse("I can't help with that."))
    assert (
        run_agent(load_task(f"{world}:{TASK_ID}"), config, tmp_path / "a", client=client).end_reason
        == "refusal"
    )
    server.script(http_error(500), http_error(500), http_error(500))
    summary = run_agent(load_task(f"{world}:{TASK_ID}"), config, tmp_path / "b", client=client)
    assert summary.end_reason == "server_error" and summary.turns == 3 and summary.steps == 0
    labels = json.loads((tmp_path / "b" / "run.json").read_text(encoding="utf-8"))
    assert labels["agent"]["end_reason"] == "server_error"
    assert _read(tmp_path / "b").n_steps == 0


def test_the_request_carries_the_method_tools_and_no_key(
    world: Path, server: SimulatedServer, tmp_path: Path
) -> None:
    server.reset()
    config = RunConfig(
        method="todo",
        model="rtlab-simulated",
        base_url=server.base_url,
        api_key="sk-secret-0123456789",
        sandbox=UNCONFINED,
    )
    run_agent(load_task(f"{world}:{TASK_ID}"), config, tmp_path / "run")
    first = server.requests[0]
    names = [t["function"]["name"] for t in first["tools"]]
    assert names == ["read", "bash", "write", "todo"]
    for path in (tmp_path / "run").rglob("*"):
        if path.is_file():
            assert "sk-secret-0123456789" not in path.read_text(encoding="utf-8", errors="replace")


def test_context_policy_drops_old_outputs_past_its_budget(
    world: Path, server: SimulatedServer, tmp_path: Path
) -> None:
    server.reset()
    _run(world, server, tmp_path / "run", "dci", context="drop-old-outputs:2000")
    t = _read(tmp_path / "run")
    assert t.meta["agent"]["context"] == "drop-old-outputs:2000"
    dropped = [e for e in t.events if e.kind == "compaction"]
    assert dropped
    last = server.requests[-1]["messages"]
    assert any("dropped by the context policy drop-old-outputs:2000" in str(m.get("content")) for m in last)


def test_limits_and_a_rejected_request_end_the_run_with_their_reason(
    world: Path, server: SimulatedServer, tmp_path: Path
) -> None:
    server.reset()
    assert _run(world, server, tmp_path / "turns", "dci", max_turns=2).end_reason == "max_turns"
    assert server.n_requests == 2
    assert _run(world, server, tmp_path / "time", "dci", time_limit=-1).end_reason == "time_limit"
    assert server.n_requests == 2  # past the limit before the first turn: no request
    server.script(http_error(400))
    summary = _run(world, server, tmp_path / "bad", "dci")
    assert summary.end_reason == "client_error" and summary.turns == 0
    t = _read(tmp_path / "bad")
    assert [e.data.get("reason") for e in t.events if e.kind == "error"] == ["client_error"]


def test_token_counts_are_the_servers_summed_over_the_turns(
    world: Path, server: SimulatedServer, tmp_path: Path
) -> None:
    server.reset()
    summary = _run(world, server, tmp_path / "run", "runningtab")
    # the simulated server counts a prompt as ceil(characters of its messages' contents / 4) tokens
    expected = sum(
        -(-len("".join(str(m.get("content") or "") for m in r["messages"])) // 4) for r in server.requests
    )
    assert summary.turns == server.n_requests and summary.prompt_tokens == expected
    assert any(s.tool == "tab_show" for s in _read(tmp_path / "run").steps)

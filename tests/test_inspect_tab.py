"""The tab inside Inspect AI (rtlab.inspect): every arm and ablation run by Inspect itself against its ``mockllm``
provider (scripted tool calls, ``usage`` set on each output so no tokenizer is fetched) and against rtlab's
simulated model over HTTP on 127.0.0.1; the ``.eval`` logs read back by rtlab's Inspect reader and replayed.

No test reaches the network: a fixture refuses every connection and name lookup that is not the loopback.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any, get_args

import pytest
from conftest import ROOT

pytest.importorskip("inspect_ai", reason="the inspect extra: pip install -e '.[inspect]' (make install does)")

from inspect_ai import Task, eval  # noqa: E402
from inspect_ai.dataset import Sample  # noqa: E402
from inspect_ai.log import EvalLog, EvalSample  # noqa: E402
from inspect_ai.model import (  # noqa: E402
    ChatMessageAssistant,
    ChatMessageTool,
    GenerateConfig,
    ModelOutput,
    ModelUsage,
    get_model,
)
from inspect_ai.tool import ToolCall  # noqa: E402

import rtlab  # noqa: E402
from rtlab.environment import FINISH_PREFIX, TAB_TOOLS, TabConfig, replay  # noqa: E402
from rtlab.ingest import OPENHANDS_TRUNCATION_MARKER, POLICIES  # noqa: E402
from rtlab.inspect import SETTINGS_KEY, STEPS_KEY, TAB_KEY, ClipName, runningtab  # noqa: E402
from rtlab.records import STATUS_PREFIX, Trajectory, status_start  # noqa: E402

pytestmark = pytest.mark.usefixtures("loopback_only")  # a test that tries the network fails


@pytest.fixture()
def workspace(tmp_path: Path) -> Path:
    folder = tmp_path / "ws"
    folder.mkdir()
    (folder / "revenue.txt").write_text("Revenue 2024: 1,234 million\n", encoding="utf-8")
    (folder / "weather.txt").write_text("Sunny skies over the harbour\n", encoding="utf-8")
    (folder / "staff.csv").write_text("name,role\nAda,analyst\n", encoding="utf-8")
    return folder


def out(tool: str, args: dict[str, Any]) -> ModelOutput:
    """A scripted tool call, its usage set (mockllm would otherwise count tokens with a downloaded encoding)."""
    output = ModelOutput.for_tool_call("mockllm/model", tool, args)
    output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return output


def run(
    outputs: list[ModelOutput],
    log_dir: Path,
    task: str = "What was the revenue in 2024?",
    config: GenerateConfig | None = None,
    **options: Any,
) -> tuple[EvalLog, EvalSample]:
    model = get_model("mockllm/model", custom_outputs=outputs)
    t = Task(
        dataset=[Sample(input=task, target="1,234")],
        solver=runningtab(**options),
        sandbox="local",
        message_limit=60,
        config=config or GenerateConfig(),
    )
    [log] = eval(t, model=model, log_dir=str(log_dir), display="none")
    assert log.status == "success", log.error
    assert log.samples is not None
    [sample] = log.samples
    assert sample.error is None, sample.error
    return log, sample


def transcript_tools(sample: EvalSample) -> list[dict[str, Any]]:
    return [m for m in sample.store["rtlab_tab:transcript"] if m["role"] == "tool"]


def read_back(log: EvalLog) -> Trajectory:
    assert log.location
    result = rtlab.ingest([log.location])
    [trajectory] = result.trajectories
    return trajectory


def assert_replay_equals_live(log: EvalLog, sample: EvalSample) -> Trajectory:
    """The loop closed: the log read back by rtlab's reader, replayed, gives every status line and tab reply
    the live agent gave, step by step."""
    trajectory = read_back(log)
    live = sample.store[STEPS_KEY]
    tools = [m["function"] for m in transcript_tools(sample)]
    assert [s.tool for s in trajectory.steps] == tools
    for step in trajectory.steps:
        if step.tool in TAB_TOOLS:
            assert step.action is not None and step.action.kind == "tab"
    config = TabConfig.ablation(sample.store[SETTINGS_KEY]["ablation"])  # as `rtlab replay --ablation`
    replayed = {r.step: r for r in replay(trajectory, config=config, requirements="trajectory").records}
    assert live, "the live agent recorded no step"
    for given in live:
        record = replayed[given["step"]]
        assert record.tool == given["tool"]
        if given["status"] is not None:
            assert record.status_line == given["status"], given
        if given["tool"] in TAB_TOOLS:
            assert record.reply == given["reply"], given
    # and what the model read ends with the status line the replay computes
    for step in trajectory.steps:
        if step.tool != "submit" and step.shown and status_start(step.shown) < len(step.shown):
            assert step.shown.endswith(replayed[step.index].status_line)
    return trajectory


def scorer_text(sample: EvalSample) -> str:
    return "\n".join(m.text for m in sample.messages)


def assert_tab_out_of_scorer_view(sample: EvalSample) -> None:
    for message in sample.messages:
        if isinstance(message, ChatMessageAssistant):
            assert not any(c.function in TAB_TOOLS | {"submit"} for c in message.tool_calls or [])
        if isinstance(message, ChatMessageTool):
            assert message.function not in TAB_TOOLS | {"submit"}
            assert STATUS_PREFIX not in message.text
    assert FINISH_PREFIX not in scorer_text(sample)


# --- the package ---------------------------------------------------------------------------------------------


def test_import_rtlab_does_not_import_inspect_ai() -> None:
    code = "import sys, rtlab, rtlab.inspect; sys.exit(1 if 'inspect_ai' in sys.modules else 0)"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


def test_clip_names_are_rtlabs_policies() -> None:
    assert set(get_args(ClipName)) == set(POLICIES)


def test_options_are_checked() -> None:
    with pytest.raises(ValueError, match="applies to method=runningtab only"):
        runningtab(method="todo", ablation="no-review")
    with pytest.raises(ValueError, match="tools="):
        runningtab(tools="bash,shell")
    with pytest.raises(ValueError, match="unknown"):
        runningtab(clip="nope")  # type: ignore[arg-type]


# --- RunningTab and its ablations ----------------------------------------------------------------------------


def full_script(ws: Path) -> list[ModelOutput]:
    return [
        out("tab_add", {"text": "revenue 2024"}),
        out("submit", {"answer": "too early"}),
        out("bash", {"command": f"ls {ws}"}),
        out("bash", {"command": f"cat {ws}/revenue.txt"}),
        out("tab_list", {}),
        out("tab_resolve", {"id": "R1", "status": "done", "cite": "L1"}),
        out("submit", {"answer": "1,234 million"}),
    ]


def test_runningtab_full(workspace: Path, tmp_path: Path) -> None:
    log, sample = run(full_script(workspace), tmp_path / "logs")
    tools = transcript_tools(sample)
    # the finish check refused the first submission, once; the second counted
    refused = [m for m in tools if m["function"] == "submit"]
    assert len(refused) == 1 and refused[0]["error"]["message"].startswith(FINISH_PREFIX)
    assert sample.output.completion == "1,234 million"
    # the status line in each tool result the model read (the refused submission is the finish check itself)
    for message in tools:
        if message["function"] != "submit":
            text = (
                message["content"] if isinstance(message["content"], str) else message["content"][0]["text"]
            )
            assert status_start(text) < len(text), message
    tab = sample.store[TAB_KEY]
    assert [(r["id"], r["status"], r["cite"]) for r in tab["requirements"]] == [("R1", "done", "L1")]
    assert [e["path"].rsplit("/", 1)[-1] for e in tab["read_log"]] == ["revenue.txt"]
    assert {c["path"].rsplit("/", 1)[-1] for c in tab["candidates"]} == {"weather.txt", "staff.csv"}
    assert_tab_out_of_scorer_view(sample)
    trajectory = assert_replay_equals_live(log, sample)
    assert trajectory.meta["messages_from"] == "store.rtlab_tab:transcript"
    assert (trajectory.method, trajectory.variant) == ("RunningTab", None)  # the arm's labels, as rtlab run's
    # the accepted submission never reached the model: an event, not a step
    assert [s.tool for s in trajectory.steps].count("submit") == 1


@pytest.mark.parametrize("ablation", ["full", "no-evidence-check"])
def test_done_without_supporting_entry(workspace: Path, tmp_path: Path, ablation: str) -> None:
    script = [
        out("tab_add", {"text": "revenue 2024"}),
        out("bash", {"command": f"cat {workspace}/weather.txt"}),
        out("tab_resolve", {"id": "R1", "status": "done", "cite": "L1"}),
        out("submit", {"answer": "x"}),
        out("submit", {"answer": "x"}),
    ]
    log, sample = run(script, tmp_path / "logs", ablation=ablation)
    [resolve] = [s for s in sample.store[STEPS_KEY] if s["tool"] == "tab_resolve"]
    status = sample.store[TAB_KEY]["requirements"][0]["status"]
    refused = [m for m in transcript_tools(sample) if m["function"] == "submit"]
    if ablation == "full":
        assert resolve["reply"].startswith("Refused by the evidence check") and status == "open"
        # R1 still open: the finish check refused the first submission, and only the first
        assert len(refused) == 1 and refused[0]["error"]["message"].startswith(FINISH_PREFIX)
    else:
        assert resolve["reply"].startswith("R1 done") and status == "done"
        assert refused == []  # nothing open: the first submission counted
    assert sample.output.completion == "x"
    assert_replay_equals_live(log, sample)


def test_no_finish_check(workspace: Path, tmp_path: Path) -> None:
    script = [out("tab_add", {"text": "revenue 2024"}), out("submit", {"answer": "x"})]
    log, sample = run(script, tmp_path / "logs", ablation="no-finish-check")
    assert not any(m["function"] == "submit" for m in transcript_tools(sample))
    assert sample.output.completion == "x"
    assert sample.store["rtlab_tab:finish"] == []


def test_no_capture(workspace: Path, tmp_path: Path) -> None:
    script = [out("bash", {"command": f"cat {workspace}/revenue.txt"}), out("submit", {"answer": "x"})]
    log, sample = run(script, tmp_path / "logs", ablation="no-capture")
    [step] = sample.store[STEPS_KEY]
    assert "0 read-log entries" in step["status"]
    assert sample.store[TAB_KEY]["read_log"] == []
    assert_replay_equals_live(log, sample)


def test_no_review_lists_without_matches(workspace: Path, tmp_path: Path) -> None:
    script = [
        out("tab_add", {"text": "revenue 2024"}),
        out("bash", {"command": f"cat {workspace}/revenue.txt"}),
        out("tab_list", {}),
        out("submit", {"answer": "x"}),
        out("submit", {"answer": "x"}),
    ]
    replies = {}
    for ablation in ("full", "no-review"):
        _, sample = run(script, tmp_path / ablation, ablation=ablation)
        [listed] = [s for s in sample.store[STEPS_KEY] if s["tool"] == "tab_list"]
        replies[ablation] = listed["reply"]
    assert replies["full"].startswith("[tab] review") and "L1" in replies["full"].split("\n\n")[0]
    assert not replies["no-review"].startswith("[tab] review")


def test_calls_of_one_turn_run_and_are_captured_in_order(workspace: Path, tmp_path: Path) -> None:
    """One turn reads a file, states a requirement and resolves it citing what it just read: the calls run one
    at a time in the model's order, each captured before the next (Inspect would run parallel-safe tools at
    once), so the citation holds, as it does in the replay."""
    turn = out("bash", {"command": f"cat {workspace}/revenue.txt"})
    for tool, args in (
        ("bash", {"command": f"cat {workspace}/staff.csv"}),
        ("tab_add", {"text": "revenue 2024"}),
        ("tab_resolve", {"id": "R1", "status": "done", "cite": "L1"}),
    ):
        turn.message.tool_calls.append(ToolCall(id=f"call_{tool}", function=tool, arguments=args))  # type: ignore[union-attr]
    log, sample = run([turn, out("submit", {"answer": "x"})], tmp_path / "logs")
    steps = sample.store[STEPS_KEY]
    tools = ["bash", "bash", "tab_add", "tab_resolve"]
    assert [s["tool"] for s in steps] == tools and [s["step"] for s in steps] == [0, 1, 2, 3]
    assert steps[3]["reply"].startswith("R1 done, citing L1") and "revenue.txt" in steps[3]["reply"]
    assert_replay_equals_live(log, sample)


def test_inspect_truncation_captured_as_the_model_saw_it(workspace: Path, tmp_path: Path) -> None:
    big = workspace / "ledger.txt"
    big.write_text("".join(f"entry {i}: revenue {1000 + i}\n" for i in range(2000)), encoding="utf-8")
    script = [out("bash", {"command": f"cat {big}"}), out("submit", {"answer": "x"})]
    log, sample = run(script, tmp_path / "logs", config=GenerateConfig(max_tool_output=4000))
    trajectory = assert_replay_equals_live(log, sample)
    [step] = trajectory.steps
    assert step.clipped and any(f.kind == "clip" for f in step.frames)
    [entry, *more] = sample.store[TAB_KEY]["read_log"]
    assert "START_TOOL_OUTPUT" not in entry["excerpt"] and "END_TOOL_OUTPUT" not in entry["excerpt"]
    assert not any("START_TOOL_OUTPUT" in e["excerpt"] for e in more)


def test_clip_policy(workspace: Path, tmp_path: Path) -> None:
    big = workspace / "ledger.txt"
    big.write_text("".join(f"entry {i}: revenue {1000 + i}\n" for i in range(3000)), encoding="utf-8")
    script = [out("bash", {"command": f"cat {big}"}), out("submit", {"answer": "x"})]
    config = GenerateConfig(max_tool_output=1_000_000)  # rtlab's clip alone
    log, sample = run(script, tmp_path / "logs", config=config, clip="openhands-v0")
    [tool] = transcript_tools(sample)
    assert (
        OPENHANDS_TRUNCATION_MARKER.strip() in tool["content"] and len(tool["content"]) < big.stat().st_size
    )
    [span] = sample.store["rtlab_tab:clips"].values()
    trajectory = assert_replay_equals_live(log, sample)
    [step] = trajectory.steps
    assert step.clipped and (span[0], span[1], "clip") in [(f.start, f.end, f.kind) for f in step.frames]
    excerpts = [e["excerpt"] for e in sample.store[TAB_KEY]["read_log"]]
    # head and tail, never across the cut
    assert len(excerpts) == 2 and not any("truncated" in e for e in excerpts)


# --- the baselines ---------------------------------------------------------------------------------------------


def test_dci_has_no_tab(workspace: Path, tmp_path: Path) -> None:  # and no status line
    script = [out("bash", {"command": f"cat {workspace}/revenue.txt"}), out("submit", {"answer": "x"})]
    log, sample = run(script, tmp_path / "logs", method="dci")
    [tool] = transcript_tools(sample)
    assert STATUS_PREFIX not in str(tool["content"])
    assert TAB_KEY not in sample.store
    assert sample.output.completion == "x"


def test_todo_and_self_tracking_are_model_kept(workspace: Path, tmp_path: Path) -> None:
    todo = [
        out("todo", {"items": [{"text": "revenue", "status": "pending"}]}),
        out("submit", {"answer": "x"}),
    ]
    _, sample = run(todo, tmp_path / "todo", method="todo")
    [reply] = sample.store[STEPS_KEY]
    assert reply["reply"].startswith("Todo list:") and reply["status"] is None
    assert sample.store["rtlab_tab:plans"][0]["tool"] == "todo"
    assert_tab_out_of_scorer_view(sample)
    notes = [
        out("notes", {"action": "add", "kind": "requirement", "text": "revenue"}),
        out("submit", {"answer": "x"}),
    ]
    _, sample = run(notes, tmp_path / "notes", method="self-tracking")
    assert sample.store[STEPS_KEY][0]["reply"] == "Noted N1 (requirement)."


def test_self_refine_asks_once(workspace: Path, tmp_path: Path) -> None:
    script = [out("submit", {"answer": "a"}), out("submit", {"answer": "b"})]
    _, sample = run(script, tmp_path / "logs", method="self-refine")
    [refused] = [m for m in transcript_tools(sample) if m["function"] == "submit"]
    assert refused["error"]["message"].startswith("[self-refine]")
    assert sample.output.completion == "b"


# --- the command line, and an OpenAI-compatible provider over HTTP ------------------------------------------


TASK_FILE = """
from inspect_ai import Task, task
from inspect_ai.dataset import Sample
from inspect_ai.model import ModelOutput, ModelUsage, get_model


def out(tool, args):
    output = ModelOutput.for_tool_call("mockllm/model", tool, args)
    output.usage = ModelUsage(input_tokens=10, output_tokens=5, total_tokens=15)
    return output


@task
def tiny():
    outputs = [
        out("tab_add", {{"text": "revenue 2024"}}),
        out("bash", {{"command": "cat {ws}/revenue.txt"}}),
        out("tab_list", {{}}),
        out("tab_resolve", {{"id": "R1", "status": "done", "cite": "L1"}}),
        out("submit", {{"answer": "1,234"}}),
    ]
    return Task(
        dataset=[Sample(input="What was the revenue in 2024?", target="1,234")],
        model=get_model("mockllm/model", custom_outputs=outputs),
        sandbox="local",
        message_limit=30,
    )
"""


def test_inspect_eval_command_line(workspace: Path, tmp_path: Path) -> None:
    task_file = tmp_path / "tiny.py"
    task_file.write_text(TASK_FILE.format(ws=workspace), encoding="utf-8")
    inspect = Path(sys.executable).with_name("inspect")
    logs = tmp_path / "logs"
    env = {**os.environ, "INSPECT_LOG_DIR": str(logs)}
    command = [
        str(inspect),
        "eval",
        task_file.name,
        "--solver",
        "rtlab/runningtab",
        "-S",
        "ablation=no-review",
    ]
    done = subprocess.run(
        command + ["--display", "none"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr[-3000:]
    [path] = sorted(logs.glob("*.eval"))
    from inspect_ai.log import read_eval_log

    log = read_eval_log(str(path))
    assert log.samples is not None
    [sample] = log.samples
    assert sample.store["rtlab_tab:settings"]["ablation"] == "no-review"
    [listed] = [s for s in sample.store[STEPS_KEY] if s["tool"] == "tab_list"]
    assert not listed["reply"].startswith("[tab] review")
    assert_tab_out_of_scorer_view(sample)
    trajectory = assert_replay_equals_live(log, sample)
    assert (trajectory.method, trajectory.variant) == ("RunningTab", "no-review")


def test_against_rtlab_simulated_model_over_http(workspace: Path, tmp_path: Path) -> None:
    from rtlab.llm import SIMULATED_MODEL, SimulatedServer, unknown_tool_call

    with SimulatedServer() as server:
        server.script(unknown_tool_call("read"))  # a first turn calling a tool Inspect does not offer
        model = get_model(f"openai-api/rtlab/{SIMULATED_MODEL}", base_url=server.base_url, api_key="none")
        t = Task(
            dataset=[
                Sample(
                    input="Report the revenue in 2024 from the files. Give the headcount of the Paris office.",
                    target="1,234",
                    files={p.name: str(p) for p in workspace.iterdir()},  # copied into the sandbox's folder
                )
            ],
            solver=runningtab(),
            sandbox="local",
            message_limit=40,
        )
        [log] = eval(t, model=model, log_dir=str(tmp_path / "logs"), display="none")
    assert log.samples is not None
    [sample] = log.samples
    tools = [m["function"] for m in transcript_tools(sample)]
    assert "tab_add" in tools and "bash" in tools and "tab_list" in tools
    assert [e["path"] for e in sample.store[TAB_KEY]["read_log"]]  # what bash read (`sed -n`) was captured
    # Inspect refuses a call of a tool it does not offer, and the refusal the model reads carries the status line
    refused = [m for m in transcript_tools(sample) if m.get("error") and m["function"] != "submit"]
    assert [m["function"] for m in refused] == ["read"]
    assert all(STATUS_PREFIX in m["error"]["message"] for m in refused)
    # offered no `read` / `write`, the simulated agent reads and writes with bash and stops by submitting; its
    # first submission (the headcount, which no file states, still open) is refused by the finish check; it marks
    # that requirement unavailable and the second submission counts
    submits = [m for m in transcript_tools(sample) if m["function"] == "submit"]
    assert len(submits) == 1 and FINISH_PREFIX in submits[0]["error"]["message"]
    assert sample.output.completion.startswith("# Deliverable") and "1,234" in sample.output.completion
    assert [r["status"] for r in sample.store[TAB_KEY]["requirements"]] == ["done", "unavailable"]
    assert_tab_out_of_scorer_view(sample)
    assert_replay_equals_live(log, sample)


def test_the_loopback_guard_refuses_the_network() -> None:
    import socket

    with pytest.raises(AssertionError, match="name lookup attempted"):
        socket.getaddrinfo("openaipublic.blob.core.windows.net", 443)
    with socket.socket() as s, pytest.raises(AssertionError, match="network access attempted"):
        s.connect(("192.0.2.1", 443))

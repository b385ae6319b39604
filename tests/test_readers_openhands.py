"""The OpenHands v0 event-list reader: a hand-made fixture, edge cases, and the real TheAgentCompany runs."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import warnings_of

from rtlab.cli import main
from rtlab.environment import replay
from rtlab.errors import ReaderError
from rtlab.ingest import OPENHANDS_TRUNCATION_MARKER, detect, ingest
from rtlab.ingest.readers import openhands
from rtlab.ingest.readers._base import ReadOptions
from rtlab.records import trajectory_from_dict, trajectory_to_dict

OPTS = ReadOptions()
STRICT = ReadOptions(strict=True)
TAC_RUNNABLE = {
    "run",
    "run_ipython",
    "read",
    "write",
    "edit",
    "browse",
    "browse_interactive",
    "call_tool_mcp",
}


def _write(tmp_path: Path, events: Any, name: str = "traj_t-image.json") -> Path:
    path = tmp_path / name
    path.write_text(json.dumps(events), encoding="utf-8")
    return path


def _msg(eid: int, text: str = "do it") -> dict[str, Any]:
    return {"id": eid, "source": "user", "message": text, "action": "message", "args": {"content": text}}


def _run(eid: int, command: str = "ls") -> dict[str, Any]:
    return {
        "id": eid,
        "source": "agent",
        "message": f"Running command: {command}",
        "action": "run",
        "args": {"command": command},
    }


def _obs(eid: int, cause: int, content: str, kind: str = "run", **extras: Any) -> dict[str, Any]:
    return {
        "id": eid,
        "source": "agent",
        "cause": cause,
        "observation": kind,
        "content": content,
        "extras": extras,
    }


@pytest.fixture(scope="module")
def demo(fixtures: Path):
    (t,) = openhands.read(fixtures / "openhands" / "traj_demo-task-image.json", OPTS)
    return t


# --- the hand-made fixture -------------------------------------------------------------------------------


def test_fixture_is_claimed(fixtures: Path) -> None:
    assert openhands.sniff(fixtures / "openhands" / "traj_demo-task-image.json")


def test_fixture_trajectory_fields(demo) -> None:
    assert demo.id == "openhands:traj_demo-task-image"
    assert demo.format == "openhands"
    assert demo.task_id == "demo-task"
    assert demo.model == "gemini-1.5-pro"
    assert demo.harness == "openhands"
    assert demo.instruction == "Complete the task in /instruction/task.md"
    assert demo.clip_policy == "openhands-v0"
    assert demo.started_at == "2024-12-07T06:19:34.452680"
    assert demo.ended_at == "2024-12-07T06:19:55.000000"
    assert demo.meta["task_image"] == "demo-task-image"
    assert "shown_note" in demo.meta
    assert not demo.warnings


def test_fixture_steps_linked_by_cause(demo) -> None:
    assert [s.command for s in demo.steps] == [
        "cat /instruction/task.md",
        "print(2 + 3)",
        "ls /nonexistent",
        "browse goto('http://the-agent-company.com:3000/home')",
        "read /workspace/notes.txt 1 20",
        "write /workspace/answer.txt",
        "cat /workspace/answer.txt",
    ]
    assert [s.tool for s in demo.steps] == [
        "run",
        "run_ipython",
        "run",
        "browse_interactive",
        "read",
        "edit",
        "run",
    ]
    assert [s.index for s in demo.steps] == list(range(7))
    assert [s.call_id for s in demo.steps] == ["3", "5", "6", "9", "11", "13", "17"]
    assert [s.line for s in demo.steps] == [3, 5, 6, 9, 11, 13, 17]
    # ids 5 and 6 are both answered after both ran: observation 7 answers 5, observation 8 answers 6
    assert demo.steps[1].output == "5\n[Jupyter current working directory: /outputs]"
    assert demo.steps[2].output == "ls: cannot access '/nonexistent': No such file or directory"
    assert [s.exit_code for s in demo.steps] == [0, None, 2, None, None, None, None]
    assert [s.is_error for s in demo.steps] == [False, False, True, True, False, False, False]
    assert demo.steps[0].started_at == "2024-12-07T06:19:38.052716"
    assert demo.steps[0].ended_at == "2024-12-07T06:19:38.166255"


def test_fixture_unanswered_call(demo) -> None:
    last = demo.steps[-1]
    assert (last.output, last.shown, last.answered, last.ended_at) == (None, None, False, None)
    assert demo.n_steps == 6
    assert len(demo.steps) == 7


def test_fixture_cwd_from_reported_shell_directory(demo) -> None:
    # only the newer metadata.working_dir of `ls` reports it; it applies to later shell commands
    assert [s.cwd for s in demo.steps] == [None, None, None, None, None, None, "/workspace"]


def test_fixture_shown_equals_output_for_short_results(demo) -> None:
    for s in demo.answered_steps:
        assert s.shown == s.output
        assert not s.clipped


def test_fixture_events_and_timeline(demo) -> None:
    seen = [(x.kind, x.text[:20]) if hasattr(x, "kind") else ("step", x.tool) for x in demo.timeline()]
    assert seen == [
        ("message", "Complete the task in"),
        ("system", ""),
        ("reasoning", "Let me read the task"),
        ("step", "run"),
        ("step", "run_ipython"),
        ("step", "run"),
        ("step", "browse_interactive"),
        ("step", "read"),
        ("reasoning", "Writing the answer."),
        ("step", "edit"),
        ("error", "Function 'finish/' n"),
        ("reasoning", "I should double-chec"),
        ("step", "run"),
        ("message", "The answer 5 is in /"),
    ]
    assert sorted(x.seq for x in demo.timeline()) == list(range(14))
    state = next(e for e in demo.events if e.kind == "system")
    assert state.data == {"id": 1, "observation": "agent_state_changed", "agent_state": "running"}
    finish = demo.events[-1]
    assert finish.role == "assistant" and finish.data == {
        "id": 18,
        "action": "finish",
        "task_completed": "true",
    }


def test_fixture_deliverable(demo) -> None:
    assert demo.deliverable.final_message == "The answer 5 is in /workspace/answer.txt."
    assert [(f.path, f.origin) for f in demo.deliverable.files] == [("/workspace/answer.txt", "write_tool")]


def test_fixture_usage_counts_each_response_once(demo) -> None:
    # chatcmpl-aaa once, chatcmpl-bbb carries two tool calls and is counted once
    u = demo.usage
    assert (u.input_tokens, u.output_tokens, u.total_tokens) == (4384 + 4500, 29 + 20, 4413 + 4520)
    assert (u.cached_input_tokens, u.reasoning_tokens, u.cost_usd) == (4000, 5, None)


def test_fixture_round_trip(demo) -> None:
    assert trajectory_from_dict(trajectory_to_dict(demo)) == demo


# --- clipping ----------------------------------------------------------------------------------------------


def _long_run(tmp_path: Path, content: str, kind: str = "run") -> Path:
    action = (
        _run(1)
        if kind == "run"
        else {
            "id": 1,
            "source": "agent",
            "action": "browse_interactive",
            "args": {"browser_actions": "goto('http://x')"},
        }
    )
    return _write(tmp_path, [_msg(0), action, _obs(2, 1, content, kind)])


def test_long_output_is_cut_in_the_middle(tmp_path: Path) -> None:
    content = "a" * 20_000 + "b" * 20_000
    (t,) = openhands.read(_long_run(tmp_path, content), OPTS)
    step = t.steps[0]
    assert step.output == content
    assert step.shown == "a" * 15_000 + OPENHANDS_TRUNCATION_MARKER + "b" * 15_000
    assert step.clipped
    assert t.chars_logged == 40_000 and t.chars_shown == 30_000 + len(OPENHANDS_TRUNCATION_MARKER)


def test_browser_output_is_not_cut(tmp_path: Path) -> None:
    content = "p" * 40_000
    (t,) = openhands.read(_long_run(tmp_path, content, kind="browse"), OPTS)
    assert t.steps[0].shown == content and not t.steps[0].clipped


def test_clip_option_overrides_default(tmp_path: Path) -> None:
    (t,) = openhands.read(_long_run(tmp_path, "z" * 40_000), ReadOptions(clip="none"))
    assert t.clip_policy == "none"
    assert t.steps[0].shown == t.steps[0].output and not t.steps[0].clipped


def test_editor_clip_notice_is_a_clip_frame(tmp_path: Path) -> None:
    # openhands-aci's editor (V0 OpenHands from 2025) cuts a long view itself and says so
    notice = (
        "<response clipped><NOTE>Due to the max output limit, only part of this file has been shown to you. You "
        "should retry this tool after you have searched inside the file with `grep -n` in order to find the line "
        "numbers of what you are looking for.</NOTE>"
    )
    content = (
        "Here's the result of running `cat -n` on /w/a.c:\n     1\tint a;\n     2\tint b" + notice + "\n"
    )
    read = {"id": 1, "source": "agent", "action": "read", "args": {"path": "/w/a.c"}}
    (t,) = openhands.read(_write(tmp_path, [read, _obs(2, 1, content, kind="read")]), OPTS)
    step = t.steps[0]
    assert step.clipped and step.shown == content
    assert [(f.kind, step.shown[f.start : f.end]) for f in step.frames] == [
        ("frame", "Here's the result of running `cat -n` on /w/a.c:\n"),
        ("clip", notice),
    ]


def test_truncation_notice_in_log_marks_clipped(tmp_path: Path) -> None:
    content = "head" + OPENHANDS_TRUNCATION_MARKER + "tail"
    (t,) = openhands.read(_long_run(tmp_path, content), OPTS)
    assert t.steps[0].shown == content and t.steps[0].clipped


# --- other shapes ------------------------------------------------------------------------------------------


def test_wrapper_object_is_read(tmp_path: Path, fixtures: Path) -> None:
    events = json.loads((fixtures / "openhands" / "traj_demo-task-image.json").read_text())
    path = _write(tmp_path, {"trajectory": events}, name="conversation.json")
    assert openhands.sniff(path)
    (t,) = openhands.read(path, OPTS)
    assert t.id == "openhands:conversation" and t.task_id is None
    assert t.n_steps == 6


def test_invalid_arguments_kept_raw(tmp_path: Path) -> None:
    action = {"id": 1, "source": "agent", "action": "run", "args": '{"command": "ls'}
    (t,) = openhands.read(_write(tmp_path, [action, _obs(2, 1, "x")]), OPTS)
    step = t.steps[0]
    assert step.args == {"_raw": '{"command": "ls'}
    assert step.args_error and "not valid JSON" in step.args_error
    assert step.command == 'run {"command": "ls'


def test_unknown_action_and_dangling_cause_warn(tmp_path: Path) -> None:
    events = [_msg(0), {"id": 1, "source": "agent", "action": "teleport", "args": {}}, _obs(2, 99, "late")]
    (t,) = openhands.read(_write(tmp_path, events), OPTS)
    assert t.n_steps == 0
    assert [e.kind for e in t.events] == ["message", "other", "other"]
    assert [w.reason for w in t.warnings][:2] == [
        "event 1: unknown action type 'teleport' kept as an event",
        "event 2: cause 99 names no event in the file",
    ]
    assert [w.kind for w in t.warnings][2:] == ["no-steps"]  # and no tool call in the file (issue 24)


def test_second_observation_for_one_action_is_an_event(tmp_path: Path) -> None:
    events = [_run(1), _obs(2, 1, "first"), _obs(3, 1, "boom", kind="error")]
    (t,) = openhands.read(_write(tmp_path, events), OPTS)
    assert t.steps[0].output == "first"
    assert [(e.kind, e.text, e.data.get("cause")) for e in t.events] == [("error", "boom", 1)]


def test_error_observation_answers_its_action(tmp_path: Path) -> None:
    (t,) = openhands.read(_write(tmp_path, [_run(1), _obs(2, 1, "runtime died", kind="error")]), OPTS)
    assert t.steps[0].is_error and t.steps[0].output == "runtime died"


def test_file_actions_commands(tmp_path: Path) -> None:
    events = [
        {"id": 1, "source": "agent", "action": "read", "args": {"path": "/a.txt", "start": 0, "end": -1}},
        {"id": 2, "source": "agent", "action": "read", "args": {"path": "/a.txt", "start": 3, "end": 9}},
        {"id": 3, "source": "agent", "action": "write", "args": {"path": "/b.txt", "content": "hi"}},
        {"id": 4, "source": "agent", "action": "edit", "args": {"path": "/c.py", "command": "str_replace"}},
        {"id": 5, "source": "agent", "action": "browse", "args": {"url": "http://x"}},
        {
            "id": 6,
            "source": "agent",
            "action": "call_tool_mcp",
            "args": {"name": "fetch", "arguments": {"u": 1}},
        },
    ]
    (t,) = openhands.read(_write(tmp_path, events), OPTS)
    assert [s.command for s in t.steps] == [
        "read /a.txt",
        "read /a.txt 4 6",  # start 3 (0-based), end 9 (exclusive): lines 4-9, 6 lines
        "write /b.txt",
        "edit /c.py",
        "browse http://x",
        'fetch {"u":1}',
    ]
    assert t.n_steps == 0


# --- sniffing ----------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("chat.json", '[{"role": "user", "content": "hi"}]'),
        ("events.jsonl", '{"id": 0, "source": "user", "action": "message"}\n'),
        ("empty.json", ""),
        ("obj.json", '{"id": 0, "source": "user", "action": "message"}'),
    ],
)
def test_sniff_rejects_other_files(tmp_path: Path, name: str, text: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    assert not openhands.sniff(path)


def test_sniff_goes_by_content_not_by_name(tmp_path: Path) -> None:
    # an event list saved under another name (a CI system's agent_log.txt) is still OpenHands' (issue #13)
    path = tmp_path / "notes.txt"
    path.write_text('[{"id": 0, "source": "user", "action": "message"}]', encoding="utf-8")
    assert openhands.sniff(path)


def test_sniff_rejects_folders_and_bad_bytes(tmp_path: Path) -> None:
    assert not openhands.sniff(tmp_path)
    assert not openhands.sniff(tmp_path / "missing.json")
    bad = tmp_path / "bad.json"
    bad.write_bytes(b"\xff\xfe[\x00")
    assert not openhands.sniff(bad)


# --- bad input ---------------------------------------------------------------------------------------------


def _error(tmp_path: Path, text: str | bytes) -> ReaderError:
    path = tmp_path / "traj_bad-image.json"
    if isinstance(text, bytes):
        path.write_bytes(text)
    else:
        path.write_text(text, encoding="utf-8")
    with pytest.raises(ReaderError) as info:
        openhands.read(path, STRICT)
    assert info.value.path == str(path)
    return info.value


def test_invalid_json_names_line(tmp_path: Path) -> None:
    err = _error(tmp_path, '[\n{"id": 0, "source": "user", "action": "message"},\n{"id": 1 "source"}\n]')
    assert err.line == 3


def test_truncated_file_names_line(tmp_path: Path) -> None:
    err = _error(tmp_path, '[\n{"id": 0, "source": "user", "action": "message"},\n{"id": 1, "sou')
    assert err.line == 3


def test_empty_file(tmp_path: Path) -> None:
    assert "empty" in _error(tmp_path, "").message


def test_empty_list(tmp_path: Path) -> None:
    assert "empty" in _error(tmp_path, "[]").message


def test_non_utf8(tmp_path: Path) -> None:
    err = _error(tmp_path, b'[\n{"id": 0, "source": "user", "message": "caf\xe9", "action": "message"}]')
    assert "UTF-8" in err.message and err.line == 2


def test_missing_id_names_field_and_position(tmp_path: Path) -> None:
    err = _error(
        tmp_path, json.dumps([_msg(0), {"source": "agent", "action": "run", "args": {"command": "ls"}}])
    )
    assert (err.line, err.field) == (2, "id")


def test_missing_source(tmp_path: Path) -> None:
    err = _error(tmp_path, json.dumps([{"id": 0, "action": "message", "args": {}}]))
    assert (err.line, err.field) == (1, "source")


def test_neither_action_nor_observation(tmp_path: Path) -> None:
    err = _error(tmp_path, json.dumps([{"id": 0, "source": "agent", "message": "?"}]))
    assert (err.line, err.field) == (1, "action")


def test_missing_command(tmp_path: Path) -> None:
    err = _error(
        tmp_path, json.dumps([{"id": 0, "source": "agent", "action": "run", "args": {"thought": ""}}])
    )
    assert (err.line, err.field) == (1, "args.command")


def test_bad_cause_and_duplicate_id(tmp_path: Path) -> None:
    err = _error(tmp_path, json.dumps([_run(1), {**_obs(2, 1, "x"), "cause": "1"}]))
    assert (err.line, err.field) == (2, "cause")
    err = _error(tmp_path, json.dumps([_run(1), _obs(1, 1, "x")]))
    assert (err.line, err.field) == (2, "id")


def test_wrong_top_level(tmp_path: Path) -> None:
    assert "list" in _error(tmp_path, "42").message
    assert "trajectory" in _error(tmp_path, '{"foo": 1}').message
    err = _error(tmp_path, "[1]")
    assert err.line == 1


# --- real TheAgentCompany runs -----------------------------------------------------------------------------

EXPECTED_STEPS = {
    "traj_ds-janusgraph-exercise-image.json": 6,
    "traj_finance-qualified-bill-ask-for-reimburse-image.json": 5,
    "traj_pm-schedule-meeting-1-image.json": 29,
    "traj_pm-schedule-meeting-2-image-claude.json": 21,
    "traj_pm-send-hello-message-image.json": 4,
    "traj_qa-escalate-emergency-image.json": 12,
    "traj_sde-create-new-repo-image.json": 3,
    "traj_sde-run-janusgraph-image.json": 11,
}


@pytest.fixture(scope="module")
def real_runs(real: Path) -> dict[str, Any]:
    folder = real / "theagentcompany" / "openhands-trajectories"
    result = ingest([folder])
    return {
        "folder": folder,
        "result": result,
        "by_name": {Path(t.source_path).name: t for t in result.trajectories},
    }


def _answered_runnable(raw: list[dict[str, Any]]) -> int:
    causes = {ev["cause"] for ev in raw if "observation" in ev and ev.get("cause") is not None}
    return sum(1 for ev in raw if ev.get("action") in TAC_RUNNABLE and ev["id"] in causes)


def test_real_all_ingest(real_runs) -> None:
    result = real_runs["result"]
    assert result.failures == []
    assert sorted(real_runs["by_name"]) == sorted(EXPECTED_STEPS)
    assert {t.format for t in result.trajectories} == {"openhands"}


def test_real_step_counts_match_raw_json(real_runs) -> None:
    for name, t in real_runs["by_name"].items():
        raw = json.loads((real_runs["folder"] / name).read_text(encoding="utf-8"))
        assert t.n_steps == _answered_runnable(raw) == EXPECTED_STEPS[name], name
        assert len(t.steps) == sum(1 for ev in raw if ev.get("action") in TAC_RUNNABLE), name
        assert trajectory_from_dict(trajectory_to_dict(t)) == t


def test_real_usage_matches_distinct_responses(real_runs) -> None:
    for name, t in real_runs["by_name"].items():
        raw = json.loads((real_runs["folder"] / name).read_text(encoding="utf-8"))
        responses = {
            ev["tool_call_metadata"]["model_response"]["id"]: ev["tool_call_metadata"]["model_response"][
                "usage"
            ]
            for ev in raw
            if ev.get("tool_call_metadata")
        }
        assert t.usage.input_tokens == sum(u["prompt_tokens"] for u in responses.values()), name
        assert t.usage.output_tokens == sum(u["completion_tokens"] for u in responses.values()), name


def test_real_nothing_is_clipped(real_runs) -> None:
    # the longest observation in these runs is 9,975 characters, under OpenHands' 30,000
    steps = [s for t in real_runs["by_name"].values() for s in t.answered_steps]
    assert max(len(s.output) for s in steps) == 9975
    assert sum(s.clipped for s in steps) == 0
    assert all(s.shown == s.output for s in steps)


def test_real_schedule_meeting_1(real_runs) -> None:
    t = real_runs["by_name"]["traj_pm-schedule-meeting-1-image.json"]
    assert t.id == "openhands:traj_pm-schedule-meeting-1-image"
    assert t.task_id == "pm-schedule-meeting-1"
    assert t.model == "gemini-1.5-pro"
    assert t.n_steps == 29
    assert t.steps[0].command == "cat /instruction/task.md"
    assert t.steps[0].exit_code == 0
    assert t.steps[1].command == "browse goto('http://the-agent-company.com:3000/home')"
    assert sum(s.is_error for s in t.steps) == 27  # browser observations flagged error: true
    assert [e.kind for e in t.events] == ["message", "reasoning", "error", "message"]
    assert t.instruction == "Complete the task in /instruction/task.md"
    assert t.deliverable.final_message == "All done! What's next on the agenda?"
    assert (t.usage.input_tokens, t.usage.output_tokens, t.usage.total_tokens) == (1703330, 1389, 1704719)
    assert (t.started_at, t.ended_at) == ("2024-12-10T03:46:53.161553", "2024-12-10T03:52:58.447836")


def test_real_claude_run(real_runs) -> None:
    t = real_runs["by_name"]["traj_pm-schedule-meeting-2-image-claude.json"]
    assert t.task_id == "pm-schedule-meeting-2"
    assert t.model == "claude-3-7-sonnet-20250219"
    assert t.n_steps == 21
    assert t.steps[0].command == "browse goto('http://the-agent-company.com:3000/home')"
    assert t.steps[13].command == (
        'echo "Meeting scheduled for Friday during regular business hours." > /workspace/conclusion.txt'
    )
    assert t.steps[14].output == "Meeting scheduled for Friday during regular business hours."
    assert (t.steps[13].cwd, t.steps[14].cwd) == (None, "/outputs")
    assert [s.exit_code for s in t.steps[13:15]] == [0, 0]
    assert (t.usage.input_tokens, t.usage.output_tokens, t.usage.cached_input_tokens) == (
        230619,
        3212,
        112376,
    )
    assert t.usage.cost_usd == pytest.approx(0.87950055)
    assert t.deliverable.final_message.startswith(
        "I have successfully completed the task of scheduling a meeting"
    )
    assert sum(1 for e in t.events if e.kind == "message" and e.role == "user") == 3


# --- evaluation output.jsonl (EvalOutput per line, evaluation/utils/shared.py) -----------------------------


def _eval_record(instance: str, events: list[Any], **extra: Any) -> dict[str, Any]:
    return {
        "instance_id": instance,
        "test_result": {"git_patch": "diff --git a/x b/x\n"},
        "instruction": f"Fix {instance}",
        "metadata": {
            "agent_class": "CodeActAgent",
            "llm_config": {"model": "openai/my-model", "max_message_chars": 30000},
            "max_iterations": 50,
            "eval_output_dir": "evaluation/outputs/ds-train/CodeActAgent/my-model_maxiter_50_N_v0.35.0-no-hint-run_1",
            "start_time": "2025-04-30 16:31:22",
            "git_commit": "b5338c69d6661dad658ead0d7217bf5bb9d482da",
            "dataset": "ds-train",
        },
        "history": events,
        "metrics": {
            "accumulated_cost": 0.5,
            "accumulated_token_usage": {
                "model": "default",
                "prompt_tokens": 1000,
                "completion_tokens": 50,
                "cache_read_tokens": 200,
                "cache_write_tokens": 0,
                "response_id": "",
            },
        },
        "error": None,
        "instance": {"instance_id": instance},
        **extra,
    }


def _eval_file(tmp_path: Path, records: list[dict[str, Any]], name: str = "output.jsonl") -> Path:
    path = tmp_path / name
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def test_eval_output_is_read_a_trajectory_per_line(tmp_path: Path) -> None:
    first = [_msg(0, "Fix a"), _run(1, "cat a.py"), _obs(2, 1, "print(1)\n", exit_code=0)]
    second = [_msg(0, "Fix b"), _run(1, "false"), _obs(2, 1, "", exit_code=1), _run(3, "ls")]
    path = _eval_file(
        tmp_path, [_eval_record("a", first), _eval_record("b", second, error="RuntimeError: max iterations")]
    )
    for name in ("output.jsonl", "output.txt"):  # detected by content, whatever its name
        path = path.rename(tmp_path / name)
        assert openhands.sniff(path) and detect(path) == "openhands"
    a, b = openhands.read(path, OPTS)
    base = f"openhands:{tmp_path.name}/output"
    assert (a.id, b.id) == (f"{base}:a", f"{base}:b")
    assert (a.task_id, a.model, a.harness_version) == ("a", "openai/my-model", "0.35.0")
    assert a.instruction == "Fix a" and a.format == "openhands" and a.clip_policy == "openhands-v0"
    assert (a.usage.input_tokens, a.usage.output_tokens, a.usage.cached_input_tokens) == (1000, 50, 200)
    assert (a.usage.total_tokens, a.usage.cost_usd) == (1050, 0.5)
    assert a.meta["eval_test_result"] == {"git_patch": "diff --git a/x b/x\n"}
    assert a.meta["git_commit"].startswith("b5338c69") and a.meta["agent_class"] == "CodeActAgent"
    assert (a.meta["eval_line"], b.meta["eval_line"]) == (1, 2)
    assert [s.line for s in a.steps] == [1] and [e.line for e in a.events] == [1]
    assert a.n_steps == 1 and a.steps[0].command == "cat a.py" and a.steps[0].output == "print(1)\n"
    assert b.n_steps == 1 and len(b.steps) == 2 and b.steps[0].exit_code == 1
    assert b.meta["eval_error"] == "RuntimeError: max iterations"
    assert not a.warnings


def test_eval_output_errors_name_line_and_history_position(tmp_path: Path) -> None:
    bad = [_msg(0), {"id": 1, "source": "agent", "action": "run", "args": {"thought": ""}}]
    path = _eval_file(tmp_path, [_eval_record("ok", [_msg(0)]), _eval_record("bad", bad)])
    with pytest.raises(ReaderError) as info:
        openhands.read(path, STRICT)
    assert (info.value.line, info.value.field) == (2, "history[1].args.command")
    path = _eval_file(tmp_path, [_eval_record("dup", [_msg(0), _msg(0)])])
    with pytest.raises(ReaderError) as info:
        openhands.read(path, STRICT)
    assert (info.value.line, info.value.field) == (1, "history[1].id")
    path.write_text(json.dumps({"instance_id": 7, "history": []}) + "\n")
    with pytest.raises(ReaderError) as info:
        openhands.read(path, STRICT)
    assert info.value.field == "instance_id"


def test_eval_output_empty_history_and_cut_last_line(tmp_path: Path) -> None:
    path = _eval_file(tmp_path, [_eval_record("empty", []), _eval_record("cut", [_msg(0)])])
    path.write_text(path.read_text()[:-40])  # the last line stops mid-write
    (t,) = openhands.read(path, OPTS)
    assert t.task_id == "empty" and t.n_steps == 0 and t.instruction == "Fix empty"
    assert (t.warnings[0].line, t.warnings[0].reason) == (1, "the history is empty")
    assert "last line is not complete JSON" in warnings_of(t)[1]


def test_eval_output_of_v1_events_is_not_v0(tmp_path: Path) -> None:
    v1 = {"kind": "ActionEvent", "id": "9f2cce60-840c-42e1-916a-575cac0ea87e", "source": "agent"}
    path = _eval_file(tmp_path, [_eval_record("x", [v1])])
    assert not openhands.sniff(path) and detect(path) == "openhands-v1"


MULTI_SWE_BENCH = {"ponylang__ponyc-4595": 21, "ponylang__ponyc-4593": 32, "ponylang__ponyc-4588": 48}


@pytest.fixture(scope="module")
def multi_swe_bench(real: Path) -> Path:
    return real / "wild" / "openhands" / "openhands__multi_swe_bench__examples__output.jsonl"


def test_real_eval_output_counts(multi_swe_bench: Path, capsys) -> None:
    assert detect(multi_swe_bench) == "openhands"
    found = {t.task_id: t for t in openhands.read(multi_swe_bench, OPTS)}
    raw = {r["instance_id"]: r["history"] for r in map(json.loads, multi_swe_bench.read_text().splitlines())}
    assert list(found) == list(raw) == list(MULTI_SWE_BENCH)
    for instance, t in found.items():
        assert t.n_steps == _answered_runnable(raw[instance]) == MULTI_SWE_BENCH[instance], instance
        assert len(t.steps) == sum(1 for ev in raw[instance] if ev.get("action") in TAC_RUNNABLE)
        assert (t.model, t.harness_version) == ("openai/openrouter-llama-4-maverick", "0.35.0")
        assert t.meta["response_models"] == ["meta-llama/llama-4-maverick"]
        assert not t.warnings
        assert trajectory_from_dict(trajectory_to_dict(t)) == t
    # the harness's own totals (its metrics), not a sum over the responses the events carry
    assert (
        found["ponylang__ponyc-4588"].usage.input_tokens,
        found["ponylang__ponyc-4588"].usage.output_tokens,
    ) == (
        938015,
        5627,
    )
    assert found["ponylang__ponyc-4588"].meta["eval_error"].startswith("RuntimeError: Agent reached maximum")
    assert main(["replay", str(multi_swe_bench)]) == 0
    assert capsys.readouterr().out.count("read-log entries") == 3


def test_real_eval_output_hand_check_ponyc_4595(multi_swe_bench: Path) -> None:
    t = openhands.read(multi_swe_bench, OPTS)[0]
    assert t.task_id == "ponylang__ponyc-4595"
    parser = "/workspace/ponylang__ponyc__0.1/src/libponyc/ast/parser.c"
    # steps 0-3: `ls -l` of the repository, src, src/libponyc and src/libponyc/ast (listings, no content);
    # 4, 6, 8: the editor's view of parser.c (whole, cut by the editor); 5, 7: `grep -n` in parser.c printed
    # one of its lines each; 9, 10, 12: views of parser.c lines 650-700, 650-655 and 690-697; 11: an edit that
    # failed (old_str not found); 13: the edit, whose reply shows a snippet (an edit, not a read); 14-20: a
    # test file written by echo, ponyc not found, make failing, `find` printing one path (listed)
    assert [s.action.kind for s in t.steps] == ["shell"] * 4 + ["read", "shell"] * 2 + ["read"] * 3 + [
        "edit",
        "read",
        "edit",
    ] + ["shell"] * 7
    assert [(s.action.offset, s.action.limit) for s in t.steps if s.action.kind == "read"] == [
        (None, None),
        (None, None),
        (None, None),
        (650, 51),
        (650, 6),
        (690, 8),
    ]
    # the whole-file views were cut by the editor (openhands-aci) at 16,000 characters of the file: its
    # `<response clipped><NOTE>...` notice is a clip frame, and no excerpt holds it
    assert [s.index for s in t.steps if s.clipped] == [4, 6, 8]
    assert all([f.kind for f in t.steps[i].frames] == ["frame", "clip"] for i in (4, 6, 8))
    read_log = replay(t).tab.read_log
    assert [(e.step, e.path) for e in read_log] == [(i, parser) for i in (4, 5, 6, 7, 8, 9, 10, 12)]
    assert not any("<response clipped>" in e.excerpt for e in read_log)
    assert t.deliverable.final_message.startswith("The issue with the `ponyc` compiler segfaulting")

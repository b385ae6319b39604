"""The mini-swe-agent reader: a hand-made 1.1 run, inline cases for 1.1's text-based models and for the older
``mini-swe-agent-1`` format, the ``mini-swe-agent`` clip policy against the harness's own template, and the
four real files of ``wild/mini-swe-agent``. Also: the generic chat reader no longer reads such a file as 0
steps without a word."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import warnings_of, wild_folder

from rtlab.cli import main
from rtlab.environment import replay
from rtlab.errors import ReaderError
from rtlab.ingest import MiniSweAgentClip, get_policy
from rtlab.ingest.readers import ReadOptions, detect, mini_swe_agent, openai_chat
from rtlab.records import trajectory_from_dict, trajectory_to_dict

RUN = Path("mini-swe-agent") / "calc__calc-7.traj.json"


def read_one(path: Path, clip: str | None = None, strict: bool = False):
    (t,) = mini_swe_agent.read(path, ReadOptions(clip=clip, strict=strict))
    return t


def body(step) -> str:
    """The shown text less its frames: what the command printed."""
    out, pos = [], 0
    for f in step.frames:
        out.append(step.shown[pos : f.start])
        pos = f.end
    return "".join(out) + step.shown[pos:]


def write(path: Path, doc: Any) -> Path:
    path.write_text(json.dumps(doc), encoding="utf-8")
    return path


def observation(out: str, code: int = 0) -> str:
    """mini-swe-agent's swebench observation template for an output under 10,000 characters."""
    return f"<returncode>{code}</returncode>\n<output>\n{out}</output>"


# ---------------------------------------------------------------------------------------------------------
# The hand-made 1.1 run: parallel tool calls, an exception, a format error, the submission


@pytest.fixture(scope="module")
def run(fixtures: Path):
    return read_one(fixtures / RUN)


def test_fixture_is_claimed_under_any_name(fixtures: Path, tmp_path: Path) -> None:
    assert detect(fixtures / RUN) == "mini-swe-agent"
    for name in ("x.json", "x.md", "x"):
        shutil.copy(fixtures / RUN, tmp_path / name)
        assert detect(tmp_path / name) == "mini-swe-agent", name


def test_fixture_trajectory_fields(run) -> None:
    t = run
    assert (t.id, t.task_id, t.model) == (
        "mini-swe-agent:mini-swe-agent/calc__calc-7.traj",
        "calc__calc-7",
        "openai/gpt-5-mini",
    )
    assert (t.harness, t.harness_version, t.cwd, t.clip_policy) == (
        "mini-swe-agent",
        "2.2.7",
        "/testbed",
        "mini-swe-agent",
    )
    # usage summed over the responses; the cost is the run's (info.model_stats.instance_cost)
    assert (t.usage.input_tokens, t.usage.output_tokens, t.usage.cached_input_tokens) == (12000, 205, 8700)
    assert t.usage.cost_usd == 0.0012
    assert t.meta["exit_status"] == "Submitted" and t.meta["api_calls"] == 6
    assert t.meta["response_models"] == ["gpt-5-mini-2025-08-07"]
    assert t.deliverable.final_message == t.meta["submission"]
    assert t.deliverable.final_message.startswith("diff --git a/calc/ops.py")
    assert (t.started_at, t.ended_at) == ("2026-01-05T10:00:02+00:00", "2026-01-05T10:01:20+00:00")
    assert t.instruction.startswith("<pr_description>")


def test_fixture_steps(run) -> None:
    t = run
    assert t.n_steps == len(t.steps) == 5
    assert [s.call_id for s in t.steps] == [f"call_{k}" for k in range(1, 6)]
    assert [s.action.kind for s in t.steps] == ["shell"] * 5
    ls, cat, imp, grep, sed = t.steps
    assert ls.command == "ls -la" and ls.line == cat.line == 3  # two calls of one reply
    assert ls.output.startswith("total 16\n") and ls.shown == observation(ls.output)
    assert body(ls) == ls.output and body(cat) == cat.output  # <returncode>, <output> wrappers framed
    assert (imp.exit_code, imp.is_error) == (-1, True)
    assert (
        imp.shown.startswith("<exception>An error occurred while executing the command") and body(imp) == ""
    )
    assert (grep.exit_code, grep.is_error) == (0, False)
    assert (grep.started_at, grep.ended_at) == ("2026-01-05T10:01:10+00:00", "2026-01-05T10:01:11+00:00")
    # the submitting command: its output became the submission and no message; the model never saw it, so it
    # is an event, not an answered step (issue 24)
    (submit,) = [e for e in t.events if e.data.get("submission")]
    assert submit.data["call_id"] == "call_6" and submit.data["output"] == t.meta["submission"]
    assert t.meta["submission_event"] == submit.seq


def test_fixture_events(run) -> None:
    kinds = [(e.kind, e.role) for e in run.events]
    assert kinds == [
        ("system", "system"),
        ("message", "user"),
        ("message", "assistant"),
        ("message", "assistant"),
        ("error", "user"),
        ("message", "assistant"),
        ("message", "assistant"),
        ("message", "assistant"),
        ("other", "assistant"),
        ("system", "exit"),
    ]  # fmt: skip  (the submission an event, issue 24)
    assert run.events[4].data == {"interrupt_type": "FormatError"}
    assert [x.seq for x in run.timeline()] == list(range(len(run.steps) + len(run.events)))


def test_fixture_replay(run) -> None:
    r = replay(run)
    # cat ... | head -16 showed the module's head; grep -rn showed one line of it; ls -la only listed
    assert [(e.step, e.path) for e in r.tab.read_log] == [(1, "calc/ops.py"), (3, "calc/ops.py")]
    assert sorted(r.tab.candidates) == ["setup.py"]


def test_fixture_round_trip(run) -> None:
    assert trajectory_from_dict(trajectory_to_dict(run)) == run


def test_clip_option_applies_a_policy_to_the_raw_output(fixtures: Path) -> None:
    t = read_one(fixtures / RUN, clip="none")
    assert t.clip_policy == "none" and t.steps[0].shown == t.steps[0].output


# ---------------------------------------------------------------------------------------------------------
# Inline 1.1 and 1 cases


def _v2(messages: list[dict[str, Any]], **info: Any) -> dict[str, Any]:
    return {
        "info": {"model_stats": {"instance_cost": 0.0, "api_calls": 1}, "mini_version": "2.3.0",
                 "config": {"model": {"model_name": "m"}, "environment": {"cwd": "/repo"}}, **info},
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1.1",
    }  # fmt: skip


SYSTEM = {"role": "system", "content": "You are a helpful assistant."}
TASK = {"role": "user", "content": "Fix it."}


def _call(cid: str, command: str) -> dict[str, Any]:
    return {
        "role": "assistant",
        "content": "",
        "extra": {"actions": [{"command": command, "tool_call_id": cid}]},
    }


def _result(cid: str, out: str, code: int = 0) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": cid, "content": observation(out, code),
            "extra": {"raw_output": out, "returncode": code, "exception_info": ""}}  # fmt: skip


def test_long_output_shows_head_and_tail(tmp_path: Path) -> None:
    out = "".join(f"line {k:05d}\n" for k in range(1500))  # 16,500 characters
    shown = "<returncode>0</returncode>\n" + MiniSweAgentClip().apply(out)
    doc = _v2([SYSTEM, TASK, _call("c1", "cat big.txt"),
               {"role": "tool", "tool_call_id": "c1", "content": shown, "extra": {"raw_output": out, "returncode": 0}}])  # fmt: skip
    (step,) = read_one(write(tmp_path / "t.traj.json", doc)).steps
    assert step.clipped and step.output == out and step.shown == shown
    clip = [f for f in step.frames if f.kind == "clip"]
    assert len(clip) == 1 and step.shown[clip[0].start :].startswith(
        "\n</output_head>\n<elided_chars>\n6500 characters"
    )
    assert body(step) == out[:5000] + out[-5000:]


def test_text_based_model_results_are_user_messages(tmp_path: Path) -> None:
    doc = _v2([
        SYSTEM, TASK,
        {"role": "assistant", "content": "```mswea_bash_command\npwd\n```", "extra": {"actions": [{"command": "pwd"}]}},
        {"role": "user", "content": observation("/repo\n"), "extra": {"raw_output": "/repo\n", "returncode": 0}},
        {"role": "user", "content": "Please keep going."},
    ])  # fmt: skip
    t = read_one(write(tmp_path / "t.traj.json", doc))
    (step,) = t.steps
    assert (step.command, step.output, step.call_id, step.cwd) == ("pwd", "/repo\n", None, "/repo")
    assert [(e.kind, e.role, e.text) for e in t.events][-1] == ("message", "user", "Please keep going.")


def test_limits_exceeded_and_open_calls(tmp_path: Path) -> None:
    doc = _v2([SYSTEM, TASK, _call("c1", "ls"),
               {"role": "exit", "content": "LimitsExceeded", "extra": {"exit_status": "LimitsExceeded", "submission": ""}}],
              exit_status="LimitsExceeded")  # fmt: skip
    t = read_one(write(tmp_path / "t.traj.json", doc))
    assert t.n_steps == 0 and len(t.steps) == 1 and not t.steps[0].answered
    assert t.events[-1].kind == "error" and t.events[-1].data == {"exit_status": "LimitsExceeded"}


def test_submission_with_several_open_calls(tmp_path: Path) -> None:
    both = {"role": "assistant", "content": "", "extra": {"actions": [
        {"command": "git diff > p.txt", "tool_call_id": "a"},
        {"command": "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat p.txt", "tool_call_id": "b"}]}}  # fmt: skip
    doc = _v2(
        [
            SYSTEM,
            TASK,
            both,
            {
                "role": "exit",
                "content": "PATCH",
                "extra": {"exit_status": "Submitted", "submission": "PATCH"},
            },
        ]
    )
    t = read_one(write(tmp_path / "t.traj.json", doc))
    assert [s.answered for s in t.steps] == [False]  # the first ran, but its output never came back
    (submit,) = [e for e in t.events if e.data.get("submission")]  # the submission: an event (issue 24)
    assert submit.data["output"] == "PATCH" and submit.data["call_id"] == "b"


def _v1(messages: list[Any], **info: Any) -> dict[str, Any]:
    return {
        "info": {"exit_status": "Submitted", "submission": "", "model_stats": {"instance_cost": 0.01, "api_calls": 4},
                 "mini_version": "1.13.4", "config": {"agent": {}, "model": {"model_name": "anthropic/claude"},
                                                       "environment": {"cwd": ""}}, **info},
        "messages": messages,
        "trajectory_format": "mini-swe-agent-1",
    }  # fmt: skip


def test_v1_format_errors_timeouts_and_submission(tmp_path: Path) -> None:
    timeout = (
        "The last command <command>sleep 99</command> timed out and has been killed.\nThe output of the command "
        "was:\n <output>\nwaiting\n</output>\nPlease try another command and make sure to avoid those requiring "
        "interactive input."
    )
    doc = _v1([
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": [{"type": "text", "text": "Create hello.txt"}]},
        {"role": "assistant", "content": "THOUGHT: two at once\n\n```bash\nls\n```\n\n```bash\npwd\n```"},
        {"role": "user", "content": "Please always provide EXACTLY ONE action in triple backticks, found 2 actions."},
        {"role": "assistant", "content": "THOUGHT: wait\n\n```bash\nsleep 99\n```"},
        {"role": "user", "content": timeout},
        {"role": "assistant", "content": "THOUGHT: write it\n\n```bash\necho hi > hello.txt && cat hello.txt\n```"},
        {"role": "user", "content": [{"type": "text", "text": observation("hi\n"), "cache_control": {"type": "ephemeral"}}]},
        {"role": "assistant", "content": "THOUGHT: done\n\n```bash\necho COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT\n```"},
        {"role": "user", "content": ""},
    ])  # fmt: skip
    t = read_one(write(tmp_path / "t.json", doc))
    assert [s.command for s in t.steps] == ["sleep 99", "echo hi > hello.txt && cat hello.txt"]
    sleep, echo = t.steps
    assert sleep.is_error and sleep.exit_code is None and body(sleep) == "waiting"
    assert (echo.exit_code, echo.output, body(echo)) == (
        0,
        observation("hi\n"),
        "hi\n",
    )  # v1 logs no raw output
    (submit,) = [e for e in t.events if e.data.get("submission")]  # never shown: an event (issue 24)
    assert submit.text == "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" and submit.data["output"] == ""
    assert [e.kind for e in t.events if e.role == "user"] == ["message", "error", "system"]
    assert t.instruction == "Create hello.txt" and t.cwd is None
    assert [(e.step, e.path) for e in replay(t).tab.read_log] == [(1, "hello.txt")]


def test_v1_action_regex_by_version(tmp_path: Path) -> None:
    reply = {"role": "assistant", "content": "```bash \nls\n```"}  # a space after the tag
    messages = [
        {"role": "system", "content": "s"},
        {"role": "user", "content": "t"},
        reply,
        {"role": "user", "content": observation("a\n")},
    ]
    assert read_one(write(tmp_path / "new.json", _v1(messages, exit_status="LimitsExceeded"))).n_steps == 1
    old = _v1(messages, exit_status="LimitsExceeded", mini_version="1.5.0")  # before 1.12: ```bash\n only
    assert read_one(write(tmp_path / "old.json", old)).n_steps == 0
    custom = _v1(messages, exit_status="LimitsExceeded")
    custom["info"]["config"]["agent"]["action_regex"] = r"<cmd>(.*?)</cmd>"
    assert read_one(write(tmp_path / "custom.json", custom)).n_steps == 0


@pytest.mark.parametrize(
    ("doc", "where"),
    [
        ([], None),
        ({"info": {}}, "messages"),
        ({"info": [], "messages": []}, "info"),
        ({"info": {}, "messages": [], "trajectory_format": "mini-swe-agent-9"}, "trajectory_format"),
        (_v2([SYSTEM, {"content": "x"}]), "messages[1].role"),
        (_v2([SYSTEM, {"role": "wizard", "content": "x"}]), "messages[1].role"),
        (_v2([SYSTEM, TASK, _result("nope", "x")]), "messages[2].tool_call_id"),
        (
            _v2([SYSTEM, TASK, {"role": "assistant", "content": "", "extra": {"actions": {}}}]),
            "messages[2].extra.actions",
        ),
        (
            _v2([SYSTEM, TASK, {"role": "assistant", "content": "", "extra": {"actions": [{"cmd": "ls"}]}}]),
            "messages[2].extra.actions[0].command",
        ),
        (_v2([SYSTEM, {"role": "user", "content": 7}]), "messages[1].content"),
    ],
)
def test_malformed_files_name_the_field(tmp_path: Path, doc: Any, where: str | None) -> None:
    with pytest.raises(ReaderError) as err:
        read_one(write(tmp_path / "bad.traj.json", doc), strict=True)
    assert err.value.field == where


def test_sniff_looks_at_head_and_tail(tmp_path: Path) -> None:
    # trajectory_format comes after the messages: a big file shows it only at its end
    doc = {
        "info": {"model_stats": {}},
        "messages": [{"role": "user", "content": "x" * 200_000}],
        "trajectory_format": "mini-swe-agent-1",
    }
    assert mini_swe_agent.sniff(write(tmp_path / "big.json", doc))
    for other in (
        {"messages": [{"role": "user", "content": "hi"}]},
        {"trajectory": [{"action": "ls"}], "history": [], "info": {}},
        [{"role": "user", "content": "mini_version"}],
    ):
        assert not mini_swe_agent.sniff(write(tmp_path / "o.json", other)), other
    assert not mini_swe_agent.sniff(tmp_path)


# ---------------------------------------------------------------------------------------------------------
# The clip policy against mini-swe-agent's own template (jinja2, as the harness renders it)


def test_policy_matches_the_harness_template(real: Path) -> None:
    jinja2 = pytest.importorskip("jinja2")
    path = real / "wild" / "mini-swe-agent" / "mini__deepseek_chat_dev__sqlfluff__sqlfluff-2419.traj.json"
    if not path.is_file():
        pytest.skip(f"no {path}")
    template = json.loads(path.read_text(encoding="utf-8"))["info"]["config"]["model"]["observation_template"]
    render = jinja2.Template(template, undefined=jinja2.StrictUndefined).render
    policy = get_policy("mini-swe-agent")
    for out in ("", "one line\n", "x" * 9_999, "y\n" * 5_000, "é" * 12_345):
        shown = render(output={"output": out, "returncode": 3, "exception_info": ""})
        expected = "<returncode>3</returncode>\n" + (
            f"<output>\n{out}</output>" if len(out) < 10_000 else policy.apply(out)
        )
        assert shown == expected, len(out)


# ---------------------------------------------------------------------------------------------------------
# The real files of wild/mini-swe-agent

EXPECTED_STEPS = {  # each run's submitting command is an event, not an answered step (issue 24)
    "mini__deepseek_chat_dev__sqlfluff__sqlfluff-2419.traj.json": 47,
    "mini__deepseek_reasoner_dev__pvlib__pvlib-python-1154.traj.json": 0,
    "mini__eval_example__astropy__astropy-12907.traj.json": 63,
    "xelron-harbor-rfc__mini-swe-agent-trajectory.json": 2,
}


@pytest.fixture(scope="module")
def wild(real: Path) -> Path:
    return wild_folder(real, "mini-swe-agent")


@pytest.fixture(scope="module")
def runs(wild: Path) -> dict[str, Any]:
    return {p.name: read_one(p) for p in sorted(wild.glob("*.json"))}


def _raw_steps(raw: dict[str, Any]) -> int:
    """Answered commands counted from the raw JSON. 1.1: one ``tool`` (or ``raw_output`` user) message per
    answered call (the submitting call has none: its output became the submission, never shown). 1: the user
    messages right after a reply with exactly one ```bash block, but the last (the submission)."""
    messages = raw["messages"]
    if raw["trajectory_format"] == "mini-swe-agent-1.1":
        return sum(1 for m in messages if m["role"] == "tool" or "raw_output" in m.get("extra", {}))
    count = 0
    for m, after in zip(messages, messages[1:], strict=False):
        if m["role"] == "assistant" and after["role"] == "user" and m["content"].count("```bash") == 1:
            count += 1
    submitted = raw["info"].get("exit_status") == "Submitted" and "COMPLETE_TASK" in messages[-2]["content"]
    return count - int(submitted)


def test_real_files_are_detected_and_counted(wild: Path, runs: dict[str, Any]) -> None:
    assert sorted(runs) == sorted(EXPECTED_STEPS)
    for name, t in runs.items():
        assert detect(wild / name) == "mini-swe-agent", name
        raw = json.loads((wild / name).read_text(encoding="utf-8"))
        assert t.n_steps == _raw_steps(raw) == EXPECTED_STEPS[name], name
        assert trajectory_from_dict(trajectory_to_dict(t)) == t


def test_real_files_replay_through_the_cli(wild: Path, capsys) -> None:
    for name in EXPECTED_STEPS:
        assert main(["replay", str(wild / name)]) == 0, name
    capsys.readouterr()


def test_real_frames_leave_exactly_the_raw_output(runs: dict[str, Any]) -> None:
    # 1.1 logs the raw output beside the message: the frames must cut the message down to it exactly, and
    # the policy applied to the raw output must give what the message holds (no output here reached 10,000)
    checked = 0
    for name, t in runs.items():
        for s in t.answered_steps:
            if t.meta["trajectory_format"] == "mini-swe-agent-1.1":
                assert body(s) == s.output, (name, s.index)
                assert s.shown.endswith(get_policy("mini-swe-agent").apply(s.output) + "</output>")
                assert not s.clipped
                checked += 1
    assert checked == 47 + 63


def test_real_timeout_run(runs: dict[str, Any]) -> None:
    t = runs["mini__deepseek_reasoner_dev__pvlib__pvlib-python-1154.traj.json"]
    # the one model call timed out at the provider: no reply, no command; the exit is an error event
    assert (t.n_steps, len(t.steps), t.meta["exit_status"], t.meta["api_calls"]) == (0, 0, "Timeout", 1)
    assert t.events[-1].kind == "error" and t.events[-1].text.startswith("litellm.Timeout")
    assert t.deliverable.final_message is None
    assert [w.kind for w in t.warnings] == ["no-steps"]  # a file with content and no command: said (issue 24)


def test_real_astropy_run(runs: dict[str, Any]) -> None:
    t = runs["mini__eval_example__astropy__astropy-12907.traj.json"]
    assert (t.model, t.harness_version, t.meta["response_models"]) == (
        "deepseek/deepseek-chat",
        "2.3.0",
        ["deepseek-v4-flash"],
    )
    assert t.meta["info_keys_not_read"] == ["patch_repair"]
    assert t.steps[1].command == "cd /testbed && cat astropy/modeling/separable.py"
    assert len(t.steps[1].output) == 9878 and not t.steps[1].clipped  # the longest output, under 10,000


def test_real_sqlfluff_run_hand_checked(runs: dict[str, Any]) -> None:
    t = runs["mini__deepseek_chat_dev__sqlfluff__sqlfluff-2419.traj.json"]
    assert (t.model, t.task_id, t.usage.cost_usd) == (
        "deepseek/deepseek-chat",
        "sqlfluff__sqlfluff-2419",
        0.019431048,
    )
    r = replay(t)
    reads = [(e.step, e.path) for e in r.tab.read_log]
    # Read from the run, command by command:
    expected = [
        (1, "src/sqlfluff/rules/L060.py"),  # cat ./src/sqlfluff/rules/L060.py
        # grep -r "instead of" ./src/sqlfluff/rules/ | head -20: matching lines of six rule files
        (2, "src/sqlfluff/rules/L032.py"), (2, "src/sqlfluff/rules/L004.py"), (2, "src/sqlfluff/rules/L003.py"),
        (2, "src/sqlfluff/rules/L031.py"), (2, "src/sqlfluff/rules/L055.py"), (2, "src/sqlfluff/rules/L060.py"),
        (3, "src/sqlfluff/rules/L055.py"),  # cat L055.py
        (4, "src/sqlfluff/rules/L007.py"),  # grep -r LintResult ... | grep -i "description\|message": one line
        (5, "src/sqlfluff/rules/L007.py"),  # cat L007.py | head -100
        # (6: find ... | xargs grep -l "class LintResult" only names core/rules/base.py)
        (7, "src/sqlfluff/core/rules/base.py"),  # grep -A 20 "class LintResult" base.py
        (8, "src/sqlfluff/rules/L001.py"), (8, "src/sqlfluff/rules/L002.py"), (8, "src/sqlfluff/rules/L003.py"),
        # (9: cat L001.py | grep ... printed nothing, exit 1)
        (10, "src/sqlfluff/rules/L028.py"), (10, "src/sqlfluff/rules/L019.py"), (10, "src/sqlfluff/rules/L032.py"),
        (10, "src/sqlfluff/rules/L004.py"), (10, "src/sqlfluff/rules/L003.py"),  # grep -r "description="
        (11, "src/sqlfluff/rules/L028.py"),  # cat L028.py | grep -B5 -A5 "description="
        # (12-18: a heredoc writes test_l060.sql, sqlfluff is installed and run: lint output, no file text)
        (19, "src/sqlfluff/rules/L060.py"),  # cat L060.py again, before rewriting it (20: cp; 21: heredoc)
        (27, "test/fixtures/rules/std_rule_cases/L060.yml"),  # cat (26: find ... | xargs grep -l only named it)
        (33, "test/rules/std_test.py"),  # head -50
        (35, "test_l060.sql"),  # cat of the file the agent wrote and sqlfluff fixed
        (36, "src/sqlfluff.egg-info/SOURCES.txt"), (36, "src/sqlfluff/rules/L060.py"),  # grep -r "L060" ...
        (37, "src/sqlfluff/rules/L060.py"),  # grep -r "instead of.*or"
        (39, "src/sqlfluff/rules/L060.py"), (39, "src/sqlfluff/rules/L060.py.backup"),  # grep -r "not in {"
        (44, "test_comprehensive.sql"),  # grep -n COALESCE test_comprehensive.sql | head -10
        (46, "patch.txt"),  # cat patch.txt (45 wrote it with git diff)
        # (echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && cat patch.txt: the submission, never shown: an event)
    ]  # fmt: skip
    assert reads == expected
    (submit,) = [e for e in t.events if e.data.get("submission")]
    assert (
        submit.data["output"] == t.meta["submission"]
        and "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT" in submit.text
    )


def test_real_v1_file(runs: dict[str, Any]) -> None:
    t = runs["xelron-harbor-rfc__mini-swe-agent-trajectory.json"]
    assert (t.meta["trajectory_format"], t.model, t.task_id) == (
        "mini-swe-agent-1",
        "anthropic/claude-3-5-sonnet-20241022",
        None,
    )
    assert [s.command for s in t.steps] == ['echo "Hello, world!" > hello.txt', "cat hello.txt"]
    assert [e.text for e in t.events if e.data.get("submission")] == [
        "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
    ]
    assert [(e.step, e.path) for e in replay(t).tab.read_log] == [(1, "hello.txt")]


# ---------------------------------------------------------------------------------------------------------
# The generic chat reader on such a file: it says it cannot pair the commands


def test_openai_chat_warns_about_text_command_turns(wild: Path) -> None:
    (t,) = openai_chat.read(wild / "xelron-harbor-rfc__mini-swe-agent-trajectory.json", ReadOptions())
    assert t.n_steps == 0 and t.meta["text_command_turns"] == 3
    assert "fenced command block" in warnings_of(t)[0] and "--format mini-swe-agent" in warnings_of(t)[0]


def test_openai_chat_warning_only_for_command_turns(tmp_path: Path) -> None:
    chat = [
        {"role": "user", "content": "Write me a python function."},
        {"role": "assistant", "content": "```python\ndef f():\n    return 1\n```"},
        {"role": "user", "content": "Thanks!"},
    ]
    (t,) = openai_chat.read(write(tmp_path / "c.json", chat), ReadOptions())
    assert [w.kind for w in t.warnings] == ["no-steps"]  # no command-turn warning; the file has no tool call
    chat[1]["content"] = "Run this:\n```\nls -la\n```"
    (t,) = openai_chat.read(write(tmp_path / "c.json", chat), ReadOptions())
    assert t.meta["text_command_turns"] == 1


def test_other_wild_files_are_not_claimed(real: Path) -> None:
    for path in sorted((real / "wild").rglob("*")):
        if (
            path.is_file()
            and path.parent.name not in ("mini-swe-agent", "swe-agent")
            and path.name != "README.md"
        ):
            assert detect(path) not in ("mini-swe-agent", "swe-agent"), path

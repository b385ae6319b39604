"""The SWE-agent ``.traj`` reader: a hand-made 0.7 run, hand-made 1.x cases built inline, and the four real
files of ``wild/swe-agent`` (two commit0 runs of the 0.7 era, a function-calling demonstration, an EnIGMA
demonstration)."""

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
from rtlab.ingest import SweAgentTruncation, get_policy
from rtlab.ingest.readers import ReadOptions, detect, swe_agent
from rtlab.records import trajectory_from_dict, trajectory_to_dict

RUN = Path("swe-agent") / "0_7_run" / "a1b2c3.traj"


def read_one(path: Path, clip: str | None = None, strict: bool = False):
    (t,) = swe_agent.read(path, ReadOptions(clip=clip, strict=strict))
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


# ---------------------------------------------------------------------------------------------------------
# The hand-made 0.7 run (tests/fixtures/swe-agent/0_7_run): every command kind of 0.7's tools


@pytest.fixture(scope="module")
def run07(fixtures: Path):
    return read_one(fixtures / RUN)


def test_fixture_is_claimed_under_any_name(fixtures: Path, tmp_path: Path) -> None:
    assert detect(fixtures / RUN) == "swe-agent"
    for name in ("run.json", "run.md", "run"):
        copy = tmp_path / name
        shutil.copy(fixtures / RUN, copy)
        assert detect(copy) == "swe-agent", name


def test_fixture_trajectory_fields(run07) -> None:
    t = run07
    assert (t.id, t.format, t.task_id) == ("swe-agent:0_7_run/a1b2c3", "swe-agent", "a1b2c3")
    assert (t.harness, t.harness_version, t.model) == ("swe-agent", None, "gpt-4-0613")  # model: args.yaml
    assert t.cwd == "/testbed" and t.clip_policy == "none"
    assert (t.usage.input_tokens, t.usage.output_tokens, t.usage.cost_usd) == (51234, 1789, 0.42)
    assert t.meta["schema"] == "swe-agent-0.7" and t.meta["exit_status"] == "submitted"
    assert t.meta["environment"] == "swe_main" and t.meta["api_calls"] == 13
    assert t.deliverable.final_message == t.meta["submission"]
    assert t.deliverable.final_message.startswith("diff --git a/calc/ops.py b/calc/ops.py")
    assert t.instruction.startswith("We're currently solving the following issue")
    assert not t.warnings


def test_fixture_steps_are_typed_from_the_window_shown(run07) -> None:
    t = run07
    assert t.n_steps == len(t.steps) == 12  # the submit, never shown, is an event (issue 24)
    kinds = [(s.tool, s.action.kind) for s in t.steps]
    assert kinds == [
        ("bash", "shell"), ("find_file", "list"), ("search_dir", "list"), ("open", "read"),
        ("scroll_down", "read"), ("search_file", "read"), ("edit", "edit"), ("goto", "other"),
        ("count_lines", "other"), ("create", "write"), ("bash", "shell"), ("bash", "shell"),
    ]  # fmt: skip
    opened, scrolled = t.steps[3], t.steps[4]
    assert opened.command == "read /testbed/calc/ops.py 1 100"
    assert (opened.action.path, opened.action.offset, opened.action.limit) == ("/testbed/calc/ops.py", 1, 100)
    assert opened.action.line_numbers
    # 0.7's scroll_down prints its window twice (_constrain_line, then _print): one read of lines 51-150
    assert scrolled.command == "read /testbed/calc/ops.py 51 100"
    assert t.steps[5].action.path == "/testbed/calc/ops.py"  # search_file: the file its header names
    assert t.steps[6].action.path == "/testbed/calc/ops.py"  # edit: the window after it names the file
    assert t.steps[6].args == {"start_line": 5, "end_line": 5, "replacement_text": "    return a + b"}
    assert t.steps[9].action.path == "tests/test_add.py"
    assert t.steps[0].command == "ls" and t.steps[0].args == {"command": "ls"}
    assert (
        t.steps[8].command == 'count_lines {"args":["calc/ops.py"]}'
    )  # a command the system prompt documents
    assert all(s.cwd == "/testbed" for s in t.steps)  # 0.7 logs the state each action ran in


def test_fixture_frames_leave_what_the_tools_printed(run07) -> None:
    t = run07
    ls, found, searched, opened = t.steps[0], t.steps[1], t.steps[2], t.steps[3]
    # the message is the observation inside next_step_template; the template is the harness's
    assert ls.shown == "calc\nsetup.py\ntests\n(Open file: n/a)\n(Current directory: /testbed)\nbash-$"
    assert ls.output == "calc\nsetup.py\ntests" and body(ls) == ls.output
    assert body(found) == "/testbed/calc/__init__.py\n/testbed/calc/ops.py"
    assert body(searched) == "/testbed/calc/ops.py\n/testbed/tests/test_ops.py\n"
    window = body(opened)
    assert window.startswith('1:"""Arithmetic helpers for the calc package."""\n')
    assert window.endswith("100:# table entry 99: reserved\n") and "more lines" not in window
    assert body(t.steps[5]) == "    return a - b\n"  # search_file: "Line 5:" is the tool's
    assert t.steps[10].shown.startswith("Your command ran successfully and did not produce any output.")
    assert body(t.steps[10]) == ""  # the no-output template: all harness words
    assert body(t.steps[11]) == "...."  # 0.7's timeout notice is a frame
    assert not any(s.clipped for s in t.steps)


def test_fixture_errors_and_the_unshown_submission(run07) -> None:
    t = run07
    assert [s.index for s in t.steps if s.is_error] == [7, 11]  # goto's error; the timed-out command
    # the run ended: its output never sent to the model, so the submit is an event, not a step (issue 24)
    (submit,) = [e for e in t.events if e.data.get("submission")]
    assert submit.data["tool"] == "submit" and submit.data["output"].startswith("diff --git")
    assert submit.data["not_shown"] and t.meta["n_not_in_history"] == 1


def test_fixture_events(run07) -> None:
    t = run07
    kinds = [(e.kind, e.role) for e in t.events]
    assert kinds[:3] == [("system", "system"), ("other", "user"), ("message", "user")]
    assert t.events[1].data == {"demonstration": True}
    thoughts = [e for e in t.events if e.role == "assistant" and not e.data.get("submission")]
    assert len(thoughts) == 13 and thoughts[0].text == "First I will look at the repository layout.\n"
    order = t.timeline()
    assert [type(x).__name__ for x in order[3:6]] == ["Event", "Step", "Event"]  # thought, step, thought
    assert [x.seq for x in order] == list(range(len(order)))


def test_fixture_replay_reads_only_what_was_shown(run07) -> None:
    r = replay(run07)
    reads = [(e.step, e.path) for e in r.tab.read_log]
    # open (3), scroll_down's two windows (4), search_file's matching line (5); the edit's window is the
    # model's own text, the listings (1, 2) only list
    assert reads == [(3, "calc/ops.py"), (4, "calc/ops.py"), (4, "calc/ops.py"), (5, "calc/ops.py")]
    assert r.tab.read_log[3].excerpt == "    return a - b\n"
    assert sorted(r.tab.candidates) == ["calc/__init__.py", "setup.py", "tests/test_ops.py"]


def test_fixture_round_trip(run07) -> None:
    assert trajectory_from_dict(trajectory_to_dict(run07)) == run07


def test_clip_option_applies_a_policy_to_the_observation(fixtures: Path) -> None:
    t = read_one(fixtures / RUN, clip="none")
    assert t.clip_policy == "none"
    assert t.steps[0].shown == t.steps[0].output == "calc\nsetup.py\ntests"
    short = read_one(fixtures / RUN, clip="swe-agent-1")
    assert short.steps[3].shown == short.steps[3].output  # under 100,000 characters


def test_without_args_yaml_the_model_is_unknown(fixtures: Path, tmp_path: Path) -> None:
    copy = tmp_path / "a1b2c3.traj"
    shutil.copy(fixtures / RUN, copy)
    assert read_one(copy).model is None
    (tmp_path / "args.yaml").write_text("agent: [unclosed\n", encoding="utf-8")
    t = read_one(copy)
    assert t.model is None and "args.yaml beside the file could not be read" in warnings_of(t)[0]


# ---------------------------------------------------------------------------------------------------------
# 1.x cases built inline: function calls, the editor, a requery, truncation, elision, autosubmission


def _modern(**over: Any) -> dict[str, Any]:
    view_obs = "Here's the result of running `cat -n` on /testbed/pkg/mod.py:\n     3\tb = 2\n     4\tc = 3\n     5\td = 4\n"
    long_obs = "L" * 120
    items = [
        {"action": "str_replace_editor view /testbed/pkg/mod.py  --view_range 3 5", "observation": view_obs,
         "response": "Look at mod.py.", "thought": "Look at mod.py.", "execution_time": 0.2,
         "state": {"working_dir": "/testbed/pkg", "open_file": "n/a"}, "query": [], "extra_info": {}},
        {"action": "", "observation": "", "response": "I will look around.", "thought": "I will look around.",
         "execution_time": 0.0, "state": {}, "query": [], "extra_info": {}},
        {"action": "cat big.log", "observation": long_obs, "response": "Read the log.", "thought": "Read the log.",
         "execution_time": 0.1, "state": {"working_dir": "/testbed/pkg"}, "query": [], "extra_info": {}},
        {"action": "ls", "observation": "a.py\nb.py", "response": "List.", "thought": "List.",
         "execution_time": 0.1, "state": {"working_dir": "/testbed"}, "query": [], "extra_info": {}},
        {"action": "", "observation": "Exited (autosubmitted)", "response": "Exit due to cost limit",
         "thought": "Exit due to cost limit", "execution_time": 0.0, "state": {}, "query": [], "extra_info": {}},
    ]  # fmt: skip

    def call(i: int, name: str, args: dict[str, Any]) -> dict[str, Any]:
        return {
            "id": f"call_{i}",
            "type": "function",
            "function": {"name": name, "arguments": json.dumps(args)},
        }

    def asst(item: dict[str, Any], calls: list[dict[str, Any]] | None) -> dict[str, Any]:
        return {"role": "assistant", "content": item["response"], "thought": item["thought"], "action": item["action"],
                "agent": "main", "tool_calls": calls, "message_type": "action"}  # fmt: skip

    def obs(text: str, call_id: str | None) -> dict[str, Any]:
        entry = {"role": "tool" if call_id else "user", "content": [{"type": "text", "text": text}],
                 "agent": "main", "message_type": "observation"}  # fmt: skip
        if call_id:
            entry["tool_call_ids"] = [call_id]
        return entry

    clipped_note = get_policy("swe-agent-1")
    assert isinstance(clipped_note, SweAgentTruncation)
    history = [
        {"role": "system", "content": "SETTING: you are an autonomous programmer.", "agent": "main", "message_type": "system_prompt"},
        {"role": "user", "content": "Fix the issue.\n(Open file: n/a)\n(Current directory: /testbed)\nbash-$", "agent": "main",
         "message_type": "observation"},
        asst(items[0], [call(0, "str_replace_editor", {"command": "view", "path": "/testbed/pkg/mod.py", "view_range": [3, 5]})]),
        obs("OBSERVATION:\n" + view_obs, "call_0"),
        asst(items[2], [call(2, "bash", {"command": "cat big.log"})]),
        obs("OBSERVATION:\n" + SweAgentTruncation(max_chars=50).apply(long_obs), "call_2"),
        asst(items[3], [call(3, "bash", {"command": "ls"})]),
        obs("OBSERVATION:\na.py\nb.py", "call_3"),
        asst(items[4], None),
        obs("OBSERVATION:\nExited (autosubmitted)", None),
    ]  # fmt: skip
    replay_config = {
        "agent": {"model": {"name": "claude-sonnet-4"}, "templates": {"max_observation_length": 50},
                  "history_processors": [{"type": "last_n_observations", "n": 1}]},
        "problem_statement": {"id": "pkg__pkg-7", "type": "text"},
    }  # fmt: skip
    doc = {
        "trajectory": items,
        "history": history,
        "info": {"swe_agent_version": "1.1.0", "swe_rex_version": "1.2.0", "exit_status": "submitted (exit_cost)",
                 "submission": "diff --git a/pkg/mod.py b/pkg/mod.py\n",
                 "model_stats": {"instance_cost": 1.5, "tokens_sent": 1000, "tokens_received": 200, "api_calls": 5}},
        "replay_config": json.dumps(replay_config),  # 1.x writes model_dump_json()
        "environment": "main",
    }  # fmt: skip
    doc.update(over)
    return doc


@pytest.fixture
def modern(tmp_path: Path):
    return read_one(write(tmp_path / "pkg__pkg-7.traj", _modern()))


def test_modern_fields(modern) -> None:
    t = modern
    assert (t.task_id, t.model, t.harness_version, t.clip_policy) == (
        "pkg__pkg-7",
        "claude-sonnet-4",
        "1.1.0",
        "swe-agent-1",
    )
    assert t.meta["schema"] == "swe-agent-1" and t.meta["exit_status"] == "submitted (exit_cost)"
    assert t.meta["swe_rex_version"] == "1.2.0"
    assert (t.usage.input_tokens, t.usage.output_tokens, t.usage.cost_usd) == (1000, 200, 1.5)
    assert t.instruction.startswith("Fix the issue.") and t.cwd == "/testbed"


def test_modern_steps_requery_and_autosubmission(modern) -> None:
    t = modern
    # items 0, 2, 3 are steps; item 1 (a format error requeried out of the history) and item 4 (the
    # autosubmission after the cost limit) are events
    assert t.n_steps == 3 and [s.line for s in t.steps] == [1, 3, 4]
    view, cat, ls = t.steps
    assert (view.tool, view.call_id) == ("str_replace_editor", "call_0")
    assert (view.action.kind, view.action.path, view.action.offset, view.action.limit) == (
        "read",
        "/testbed/pkg/mod.py",
        3,
        3,
    )
    assert view.command == "read /testbed/pkg/mod.py 3 3"
    assert (
        body(view) == "     3\tb = 2\n     4\tc = 3\n     5\td = 4\n"
    )  # "OBSERVATION:" and the cat -n header framed
    assert (cat.command, cat.call_id) == ("cat big.log", "call_2")
    # 1.x logs the state after each action: a command ran in the directory the step before left
    assert [s.cwd for s in t.steps] == ["/testbed", "/testbed/pkg", "/testbed/pkg"]
    errors = [e for e in t.events if e.kind == "error"]
    assert [e.data.get("requeried") for e in errors] == [True, None]
    assert (
        errors[1].text == "Exit due to cost limit"
        and errors[1].data["shown"] == "OBSERVATION:\nExited (autosubmitted)"
    )
    assert t.meta["n_requeried"] == 1


def test_modern_truncated_observation_is_clipped(modern) -> None:
    cat = modern.steps[1]
    assert cat.clipped and cat.output == "L" * 120
    assert body(cat) == "L" * 50
    assert cat.frames[-1].kind == "clip" and cat.shown[cat.frames[-1].start :].startswith(
        "<response clipped><NOTE>"
    )


def test_modern_elision_by_last_n_observations(modern) -> None:
    # the last query (the autosubmission's) saw the instance message and three observations; with n = 1
    # LastNObservations elided observations 1-2: those of steps 0 and 1
    assert modern.meta["history_processors"] == ["last_n_observations"]
    assert modern.meta["elided_later"] == [0, 1]
    assert modern.steps[0].shown.startswith(
        "OBSERVATION:\nHere's the result"
    )  # shown keeps what it got first


def test_replay_config_as_object_and_retry_attempts(tmp_path: Path) -> None:
    doc = _modern()
    doc["replay_config"] = json.loads(doc["replay_config"])  # 1.0 kept an object
    assert read_one(write(tmp_path / "a.traj", doc)).model == "claude-sonnet-4"
    attempts = {
        "attempts": [{k: doc[k] for k in ("trajectory", "history", "info")}] * 2,
        "replay_config": doc["replay_config"],
    }
    found = swe_agent.read(write(tmp_path / "b.traj", attempts), ReadOptions())
    assert [t.id for t in found] == [
        "swe-agent:" + tmp_path.name + "/b:0",
        "swe-agent:" + tmp_path.name + "/b:1",
    ]
    assert [t.n_steps for t in found] == [3, 3]


def test_no_history_uses_the_observations(tmp_path: Path) -> None:
    doc = _modern()
    del doc["history"]
    t = read_one(write(tmp_path / "x.traj", doc))
    assert [w.reason for w in t.warnings] == [
        "no history: shown is each step's observation as the trajectory holds it"
    ]
    assert t.steps[0].shown == t.steps[0].output


def test_an_unlogged_history_entry_is_a_warning(tmp_path: Path) -> None:
    doc = _modern()
    doc["history"].insert(
        8, {"role": "assistant", "content": "x", "action": "pwd", "agent": "main", "message_type": "action"}
    )
    t = read_one(write(tmp_path / "x.traj", doc))
    assert "history[8]: an assistant entry that no trajectory step logged" in [w.reason for w in t.warnings]
    assert t.n_steps == 3


# ---------------------------------------------------------------------------------------------------------
# Command text and detection


@pytest.mark.parametrize(
    ("text", "tool", "args"),
    [
        ('open "src/my file.py" 40', "open", {"path": "src/my file.py", "line_number": 40}),
        ("goto 12", "goto", {"line_number": 12}),
        (
            "edit 3:4\nx = 1\ny = 2\nend_of_edit\n",
            "edit",
            {"start_line": 3, "end_line": 4, "replacement_text": "x = 1\ny = 2"},
        ),
        ("edit 'a = 1' 'a = 2'", "edit", {"search": "a = 1", "replace": "a = 2"}),
        (
            "str_replace_editor view /x.py --view_range 1 40",
            "str_replace_editor",
            {"command": "view", "path": "/x.py", "view_range": [1, 40]},
        ),
        (
            "search_dir 'def f' src extra",
            "search_dir",
            {"search_term": "def f", "dir": "src", "_extra": ["extra"]},
        ),
        ("open 'unterminated", "open", {"_raw": "open 'unterminated"}),
        ("grep -rn foo .", "bash", {"command": "grep -rn foo ."}),
        ("bash -c 'ls'", "bash", {"command": "bash -c 'ls'"}),
    ],
)
def test_text_commands(text: str, tool: str, args: dict[str, Any]) -> None:
    assert swe_agent.parse_command(text, None, frozenset()) == (tool, args, None)


def test_sniff_rejects_other_files(tmp_path: Path, fixtures: Path) -> None:
    openhands = write(tmp_path / "oh.json", {"trajectory": [{"id": 0, "source": "agent", "action": "run"}]})
    mini = write(
        tmp_path / "m.json",
        {"info": {"mini_version": "2.2.7"}, "messages": [], "trajectory_format": "mini-swe-agent-1.1"},
    )
    chat = write(tmp_path / "c.json", [{"role": "user", "content": "hi"}])
    for path in (openhands, mini, chat, tmp_path, tmp_path / "missing.traj"):
        assert not swe_agent.sniff(path), path
    (tmp_path / "cut.traj").write_text('{"trajectory": [{"act', encoding="utf-8")
    assert not swe_agent.sniff(tmp_path / "cut.traj")
    assert swe_agent.sniff(write(tmp_path / "empty.traj", {"trajectory": [], "history": [], "info": {}}))


@pytest.mark.parametrize(
    ("doc", "where"),
    [
        ([1, 2], None),
        ({"trajectory": {}}, "trajectory"),
        ({"trajectory": [{"observation": "x"}]}, "trajectory[0].action"),
        ({"trajectory": [{"action": "ls", "observation": 5}]}, "trajectory[0].observation"),
        ({"trajectory": [{"action": "ls", "state": "{bad"}]}, "trajectory[0].state"),
        ({"trajectory": [], "history": [{"role": "user", "content": 3}]}, "history[0].content"),
        ({"trajectory": [], "history": [{"content": "x"}]}, "history[0].role"),
        ({"trajectory": [], "history": {}}, "history"),
    ],
)
def test_malformed_files_name_the_field(tmp_path: Path, doc: Any, where: str | None) -> None:
    with pytest.raises(ReaderError) as err:
        read_one(write(tmp_path / "bad.traj", doc), strict=True)
    assert err.value.field == where and err.value.path == str(tmp_path / "bad.traj")


# ---------------------------------------------------------------------------------------------------------
# The real files of wild/swe-agent

EXPECTED_STEPS = {  # the last submit of the first three never reached the model: an event (issue 24)
    "sweagent__commit0__portalocker_madeup_cmd__97af1e.traj": 2,
    "sweagent__commit0__simpy_madeup_test__97af1e.traj": 1,
    "sweagent__demo__ctf__crypto__BabyEncryption.traj": 15,
    "sweagent__demo__marshmallow-1867__function_calling_replace.traj": 11,
}


@pytest.fixture(scope="module")
def wild(real: Path) -> Path:
    return wild_folder(real, "swe-agent")


@pytest.fixture(scope="module")
def runs(wild: Path) -> dict[str, Any]:
    return {p.name: read_one(p) for p in sorted(wild.glob("*.traj"))}


def _raw_steps(raw: dict[str, Any]) -> int:
    """Answered commands counted from the raw JSON: trajectory items with an action the model issued (not a
    harness exit action, not blank) that were executed (an observation, or an entry in the history), less the
    last when the history ends on its assistant entry (its result never reached the model: issue 24)."""
    history_actions = [h.get("action") for h in raw.get("history", []) if h.get("role") == "assistant"]
    harness = {"exit_context", "exit_cost", "exit_error", "exit_format", "exit_api", "exit_forfeit", "skip"}
    count = 0
    for item in raw["trajectory"]:
        action = item["action"].strip()
        if action and action not in harness and (item["observation"] is not None):
            if item["observation"].strip() or item["action"] in history_actions:
                count += 1
    history = [h for h in raw.get("history", []) if not h.get("is_demo")]
    return count - int(bool(history) and history[-1]["role"] == "assistant")


def test_real_files_are_detected_and_counted(wild: Path, runs: dict[str, Any]) -> None:
    assert sorted(runs) == sorted(EXPECTED_STEPS)
    for name, t in runs.items():
        assert detect(wild / name) == "swe-agent", name
        raw = json.loads((wild / name).read_text(encoding="utf-8"))
        assert t.n_steps == _raw_steps(raw) == EXPECTED_STEPS[name], name
        assert trajectory_from_dict(trajectory_to_dict(t)) == t


def test_real_files_replay_through_the_cli(wild: Path, capsys) -> None:
    for name in EXPECTED_STEPS:
        assert main(["replay", str(wild / name)]) == 0, name
    capsys.readouterr()


def test_real_observations_sit_inside_the_messages(runs: dict[str, Any]) -> None:
    # every step's observation is found whole in the message that carried it, so the frames are exactly the
    # template's words around it (plus the tools' own); nothing in these runs was truncated
    for name, t in runs.items():
        for s in t.steps:
            assert not s.clipped, (name, s.index)
            if s.shown:
                assert s.output in s.shown, (name, s.index)


def test_real_simpy_run_hand_checked(runs: dict[str, Any]) -> None:
    t = runs["sweagent__commit0__simpy_madeup_test__97af1e.traj"]
    assert (t.usage.cost_usd, t.usage.input_tokens, t.meta["api_calls"]) == (0.163938, 28461, 2)
    # The model's first reply invents a whole session (ls -R, open core.py, ... with made-up outputs) before
    # its last command block; SWE-agent ran only `open /testbed/src/simpy/resources/container.py` and showed
    # its window (88 lines). The second reply again invents an edit and test run, and SWE-agent ran `submit`.
    # So the model was shown exactly one file: container.py (step 0). core.py, which it "opened" in its own
    # text, was never shown to it.
    assert [s.command for s in t.steps] == ["read /testbed/src/simpy/resources/container.py 1 88"]
    assert [e.text for e in t.events if e.data.get("submission")] == ["submit"]  # never shown: an event
    r = replay(t)
    assert [(e.step, e.path) for e in r.tab.read_log] == [(0, "src/simpy/resources/container.py")]
    excerpt = r.tab.read_log[0].excerpt
    assert excerpt.startswith('1:"""\n2:Resource for sharing homogeneous matter') and excerpt.endswith(
        "88:        get = BoundClass(ContainerGet)"
    )


def test_real_portalocker_run_hand_checked(runs: dict[str, Any]) -> None:
    t = runs["sweagent__commit0__portalocker_madeup_cmd__97af1e.traj"]
    # Both edits ran with no file open ("No file open. Use the `open` command first."), then `submit`; the
    # `git reset`, `ls -l` and `open portalocker.py` in the replies are the model's inventions: nothing was read.
    assert [s.tool for s in t.steps] == ["edit", "edit"]  # the submit, never shown: an event (issue 24)
    assert [s.is_error for s in t.steps] == [True, True]
    assert [s.action.kind for s in t.steps] == ["other", "other"]
    assert replay(t).tab.read_log == []
    assert t.deliverable.final_message is None and t.meta["exit_status"] == "submitted"


def test_real_ctf_demo_hand_checked(runs: dict[str, Any]) -> None:
    t = runs["sweagent__demo__ctf__crypto__BabyEncryption.traj"]
    # open chall.py (0) and again (6), open decrypt.py (9): the three windows the model was shown; create
    # (1) and the edits show the model's own text; python runs print no file; msg.enc was never shown
    r = replay(t)
    assert [(e.step, e.path) for e in r.tab.read_log] == [(0, "chall.py"), (6, "chall.py"), (9, "decrypt.py")]
    assert t.deliverable.final_message == "HTB{l00k_47_y0u_r3v3rs1ng_3qu4710n5_c0ngr475}"
    assert [s.index for s in t.steps if s.is_error] == [7, 8, 10]  # edits the linter refused
    # the demonstration's history skips item 8 (its thought repeats item 9's): shown is its observation
    assert t.meta["steps_not_in_history"] == [8]
    (submit,) = [e for e in t.events if e.data.get("submission")]  # never shown: an event (issue 24)
    assert submit.text == 'submit {"argument":"HTB{l00k_47_y0u_r3v3rs1ng_3qu4710n5_c0ngr475}"}'


def test_real_function_calling_demo_hand_checked(runs: dict[str, Any]) -> None:
    t = runs["sweagent__demo__marshmallow-1867__function_calling_replace.traj"]
    assert (t.model, t.task_id, t.clip_policy) == (
        "gpt-4o",
        "marshmallow-code__marshmallow-1867",
        "swe-agent-1",
    )
    assert [s.tool for s in t.steps] == [
        "create", "insert", "bash", "bash", "find_file", "open", "edit", "edit", "bash", "bash", "submit",
    ]  # fmt: skip
    # open "src/marshmallow/fields.py" 1474 showed lines 1457-1556 (with CRLF line ends): the one file read;
    # find_file only listed it, ls -F listed the top folder
    r = replay(t)
    assert [(e.step, e.path) for e in r.tab.read_log] == [(5, "src/marshmallow/fields.py")]
    assert t.steps[5].command == "read src/marshmallow/fields.py 1457 100"
    # history_processor last_n_observations (n=5): the final query showed the first five outputs elided
    assert t.meta["elided_later"] == [0, 1, 2, 3, 4]
    assert t.steps[6].is_error and not t.steps[7].is_error


@pytest.mark.parametrize(
    ("shown", "observation", "kept"),
    [
        ("y\n(Open file: n/a)\n(Current directory: y)\nbash-$", "y", "y"),  # 0.7: first
        ("OBSERVATION:\nOBS", "OBS", "OBS"),  # 1.x: last, though "OBS" begins the template too
        ("Observation: a\nb", "a\nb", "a\nb"),
        ("no such text", "zzz", "no such text"),  # not found: the whole message, no frames
    ],
)
def test_observation_found_in_its_template(shown: str, observation: str, kept: str) -> None:
    from rtlab.ingest.readers._frames import swe_agent_span

    start, end, frames = swe_agent_span(shown, observation)
    assert shown[start:end] == kept
    assert all(f.end <= start or f.start >= end for f in frames)

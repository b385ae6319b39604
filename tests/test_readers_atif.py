"""Harbor's ATIF, both ways: the reader (hand-made fixtures, edge cases, the wild files) and ``rtlab export``
(valid ATIF by the spec's own rules and by Harbor's models, read back by rtlab to the same steps)."""

from __future__ import annotations

import copy
import json
import os
import shutil
import subprocess
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest
from conftest import FIXTURES, ROOT, warnings_of, wild_folder

from rtlab.cli import main
from rtlab.errors import ReaderError, RtlabError
from rtlab.ingest import read_unit, write_jsonl
from rtlab.ingest.readers import FORMATS, atif, detect, discover, get_reader
from rtlab.ingest.readers._base import ReadOptions
from rtlab.records import Frame, TokenUsage, trajectory_from_dict, trajectory_to_dict

OPTS = ReadOptions()
STRICT = ReadOptions(strict=True)
HERE = FIXTURES / "atif"


def read_one(path: Path, options: ReadOptions = OPTS):
    (t,) = atif.read(path, options)
    return t


def write(tmp_path: Path, doc: Any, name: str = "trajectory.json") -> Path:
    path = tmp_path / name
    text = doc if isinstance(doc, str) else json.dumps(doc)
    path.write_text(text, encoding="utf-8")
    return path


def traj(*steps: dict[str, Any], **top: Any) -> dict[str, Any]:
    """A minimal valid ATIF-v1.5 trajectory around ``steps`` (step ids filled in)."""
    return {
        "schema_version": "ATIF-v1.5",
        "session_id": "s-1",
        "agent": {"name": "demo", "version": "1.0"},
        "steps": [{"step_id": i + 1, **s} for i, s in enumerate(steps)],
        **top,
    }


def agent(message: str = "", **fields: Any) -> dict[str, Any]:
    return {"source": "agent", "message": message, **fields}


def call(cid: str, name: str, **args: Any) -> dict[str, Any]:
    return {"tool_call_id": cid, "function_name": name, "arguments": args}


def results(*items: tuple[str | None, str]) -> dict[str, Any]:
    return {"results": [({"source_call_id": sid} if sid else {}) | {"content": c} for sid, c in items]}


# --- detection -------------------------------------------------------------------------------------------


def test_fixtures_are_claimed_whatever_their_name(tmp_path: Path) -> None:
    for name in ("harbor_tools.json", "terminus_tool_calls.json", "stream.atif.jsonl"):
        assert detect(HERE / name) == "atif"
        for other in ("run.txt", "trajectory.md", "noext"):
            copy_ = tmp_path / f"{Path(name).stem}-{other}"
            shutil.copy(HERE / name, copy_)
            assert detect(copy_) == "atif", copy_
    assert detect(HERE / "stream.index.json") is None  # the stream's sidecar is no trajectory


def test_array_and_header_lines_are_claimed(tmp_path: Path) -> None:
    assert atif.sniff(write(tmp_path, [traj(agent("hi"))], "a.json"))
    header = {"__header__": True, "schema_version": "ATIF-v1.4", "session_id": "s", "agent": {}}
    assert atif.sniff(write(tmp_path, json.dumps(header) + "\n", "s.log"))


@pytest.mark.parametrize(
    ("name", "text"),
    [
        ("other.json", json.dumps({"schema_version": "2.0", "steps": []})),
        ("chat.json", json.dumps([{"role": "user", "content": 'see {"schema_version": "ATIF-v1.5"}'}])),
        ("spec.md", '# ATIF\n\n```json\n{"schema_version": "ATIF-v1.5"}\n```\n'),
        ("empty.json", ""),
        ("list.json", "[1, 2]"),
    ],
)
def test_sniff_rejects_other_files(tmp_path: Path, name: str, text: str) -> None:
    assert not atif.sniff(write(tmp_path, text, name))


def test_sniff_rejects_folders_and_claims_no_other_fixture(tmp_path: Path) -> None:
    assert not atif.sniff(tmp_path)
    others = [p for p in FIXTURES.rglob("*") if p.is_file() and HERE not in p.parents]
    assert others and not [p for p in others if atif.sniff(p)]
    samples = [p for p in (ROOT / "data" / "sample").rglob("*") if p.is_file()]
    assert not [p for p in samples if atif.sniff(p)]


# --- a Harbor-style run with native tool calls -----------------------------------------------------------


@pytest.fixture(scope="module")
def tools():
    return read_one(HERE / "harbor_tools.json")


def test_tools_trajectory_fields(tools) -> None:
    t = tools
    assert (t.id, t.format, t.harness, t.harness_version, t.model) == (
        "atif:demo-tools-0001",
        "atif",
        "claude-code",
        "2.0.31",
        "claude-sonnet-4-5",
    )
    assert t.instruction == "Summarise the Q3 budget in /data/budget.csv.\n[image: images/chart.png]"
    assert (t.started_at, t.ended_at) == ("2025-11-03T09:00:00Z", "2025-11-03T09:00:20Z")
    assert t.clip_policy == "none"
    assert t.meta["schema_version"] == "ATIF-v1.7" and t.meta["extra"] == {
        "task": "budget-q3",
        "trial": "budget-q3__abc123",
    }
    assert t.meta["agent_extra"] == {"permission_mode": "bypassPermissions"}
    assert t.meta["tool_definitions"] == ["Bash", "Read"]
    assert t.meta["results_by_order"] == 1 and not t.warnings


def test_tools_usage_prefers_final_metrics_field_by_field(tools) -> None:
    # final_metrics gives prompt and completion totals; cached tokens, reasoning tokens and cost are summed
    assert tools.usage == TokenUsage(
        input_tokens=7800,
        output_tokens=175,
        cached_input_tokens=2200,
        reasoning_tokens=12,
        cost_usd=pytest.approx(0.014),
    )


def test_tools_steps_linked_by_id_and_by_order(tools) -> None:
    s = tools.steps
    assert [(x.tool, x.command, x.call_id, x.answered) for x in s] == [
        ("Bash", "ls /data", "toolu_01", True),
        ("Read", "read /data/budget.csv 1 3", "toolu_02", True),
        ("Read", "read /data/notes.txt", "toolu_03", True),
        ("Bash", "cat /data/missing.csv", "toolu_04", True),
        ("Write", "write /out/summary.md", "toolu_05", True),
        ("finish", 'finish {"message":"Q3 total: 4434.5 (see /out/summary.md)"}', "toolu_06", False),
    ]
    assert tools.n_steps == 5
    # the results of step 4 come in reverse order: each goes to the call it names
    assert s[1].output == "quarter,total\nQ2,4100\nQ3,4434.5\n" and s[2].output == "Q3 closed on 30 Sep.\n"
    # step 5's result names no call: it answers the step's one call, and Harbor's error flag is kept
    assert s[3].output.startswith("cat: /data/missing.csv") and s[3].is_error
    assert all(x.shown == x.output and not x.clipped for x in s if x.answered)
    assert [x.line for x in s] == [3, 4, 4, 5, 6, 8]


def test_tools_steps_typed_on_their_lower_cased_names(tools) -> None:
    kinds = [(x.action.kind, x.action.path) for x in tools.steps]
    assert kinds == [
        ("shell", None),
        ("read", "/data/budget.csv"),
        ("read", "/data/notes.txt"),
        ("shell", None),
        ("write", "/out/summary.md"),
        ("other", None),
    ]
    assert (tools.steps[1].action.offset, tools.steps[1].action.limit) == (1, 3)


def test_tools_events_in_order(tools) -> None:
    timeline = [(x.kind, x.role) if hasattr(x, "kind") else ("step", x.tool) for x in tools.timeline()]
    assert timeline == [
        ("system", "system"),
        ("message", "user"),
        ("reasoning", "assistant"),
        ("message", "assistant"),
        ("step", "Bash"),
        ("step", "Read"),
        ("step", "Read"),
        ("step", "Bash"),
        ("step", "Write"),
        ("compaction", "system"),
        ("message", "assistant"),
        ("step", "finish"),
    ]


def test_tools_deliverable(tools) -> None:
    d = tools.deliverable
    assert d.final_message == "Q3 total: 4434.5 (see /out/summary.md)"  # the finish call's message
    assert [(f.path, f.content, f.origin) for f in d.files] == [
        ("/out/summary.md", "Q3 total: 4434.5\n", "write_tool")
    ]


def test_tools_canonical_round_trip(tools) -> None:
    assert trajectory_from_dict(json.loads(json.dumps(trajectory_to_dict(tools)))) == tools


# --- Terminus 2 ------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def terminus():
    return read_one(HERE / "terminus_tool_calls.json")


def test_terminus_batches_are_one_step_each(terminus) -> None:
    s = terminus.steps
    assert [(x.tool, x.command, x.call_id, x.answered) for x in s] == [
        ("bash_command", "ls\ncat report.txt", "call_0_1", True),
        ("bash_command", "head -n 2 data.csv", "call_1_1", True),
        (
            "bash_command",
            "cat > notes.md << 'EOF'\n# Notes\nRevenue up 12%\nEOF\nwc -l notes.md",
            "call_2_1",
            True,
        ),
        ("mark_task_complete", "mark_task_complete", "call_2_task_complete", False),
    ]
    # two bash_command calls sharing one result are merged; their ids stay in the arguments
    assert [c["tool_call_id"] for c in s[0].args["commands"]] == ["call_0_1", "call_0_2"]
    assert s[1].args == {"keystrokes": "head -n 2 data.csv\n", "duration": 0.1}
    assert terminus.meta["merged_keystroke_batches"] == 2 and "results_by_order" not in terminus.meta
    assert [x.cwd for x in s] == ["/app", "/app", "/app", None]
    assert terminus.usage == TokenUsage(input_tokens=3300, output_tokens=230, cached_input_tokens=800)


def test_terminus_pane_split_between_prompts(terminus) -> None:
    s = terminus.steps[0]
    parts = [(p.command, s.shown[p.output[0] : p.output[1]]) for p in s.action.parts]
    assert parts == [
        ("ls", "report.txt  data.csv\n"),
        ("cat report.txt", "Revenue grew 12% in Q3.\nCosts were flat.\n"),
    ]
    framed = [s.shown[f.start : f.end] for f in s.frames]
    assert framed == [
        "New Terminal Output:\n",
        "root@4f1c2a9e0b7d:/app# ls\n",
        "root@4f1c2a9e0b7d:/app# cat report.txt\n",
        "root@4f1c2a9e0b7d:/app#\n",
    ]


def test_terminus_heredoc_and_completion_question_are_framed(terminus) -> None:
    s = terminus.steps[2]
    heredoc, wc = s.action.parts
    assert heredoc.command == "cat > notes.md << 'EOF'\n# Notes\nRevenue up 12%\nEOF"
    assert heredoc.output[0] == heredoc.output[1]  # the heredoc printed nothing: its echo is all framed
    assert s.shown[wc.output[0] : wc.output[1]] == "2 notes.md\n"
    framed = [s.shown[f.start : f.end] for f in s.frames]
    assert framed[0] == "Current terminal state:\nNew Terminal Output:\n"
    assert (
        framed[1] == "root@4f1c2a9e0b7d:/app# cat > notes.md << 'EOF'\n> # Notes\n> Revenue up 12%\n> EOF\n"
    )
    assert framed[-1].startswith("\n\nAre you sure you want to mark the task as complete?")


def test_terminus_replay_reads_the_report(terminus) -> None:
    from rtlab.environment import replay

    entries = [(e.step, e.path) for e in replay(terminus).tab.read_log]
    # cat report.txt (step 0) and head data.csv (step 1), relative to the prompt's /app; ls lists, the
    # heredoc writes, wc counts
    assert entries == [(0, "/app/report.txt"), (1, "/app/data.csv")]


def _pane(*blocks: str, opening: str = "New Terminal Output:\n") -> str:
    return opening + "".join(blocks)


P = "root@c0ffee:/work# "


def test_keystrokes_in_the_message_answered_by_an_observation(tmp_path: Path) -> None:
    # raw_content mode: no tool_calls, the pane in an observation result without an id
    msg = json.dumps(
        {"analysis": "a", "plan": "p", "commands": [{"keystrokes": "cat a.txt\n", "duration": 0.1}]}
    )
    pane = _pane(P + "cat a.txt\n", "alpha\n", P.rstrip() + "\n")
    t = read_one(write(tmp_path, traj(agent("Thinking first.\n" + msg, observation=results((None, pane))))))
    (s,) = t.steps
    assert (s.tool, s.command, s.args, s.output, s.call_id) == (
        "bash_command",
        "cat a.txt",
        {"commands": [{"keystrokes": "cat a.txt\n", "duration": 0.1}]},
        pane,
        None,
    )
    assert t.meta["keystroke_batches_from_messages"] == 1
    assert s.shown[s.action.parts[0].output[0] : s.action.parts[0].output[1]] == "alpha\n"


def test_chat_history_export_pane_is_the_next_user_step(tmp_path: Path) -> None:
    # OpenThoughts-style: the pane comes back as the next user message; a user message that is not a pane is not
    msg = json.dumps({"analysis": "", "plan": "", "commands": [{"keystrokes": "ls\n", "duration": 0.1}]})
    pane = _pane(P + "ls\n", "a.txt\n", P.rstrip())
    doc = traj(
        {"source": "user", "message": "List the folder."},
        agent(msg),
        {"source": "user", "message": pane},
        agent(msg),
        {"source": "user", "message": "Please stop."},
        agent(msg),
    )
    t = read_one(write(tmp_path, doc))
    assert [(x.answered, x.line) for x in t.steps] == [(True, 2), (False, 4), (False, 6)]
    assert t.steps[0].output == pane and t.steps[0].ended_at is None
    assert t.meta["panes_from_user_steps"] == 1 and t.meta["unanswered_keystroke_batches"] == 2
    assert [e.text for e in t.events if e.role == "user"] == ["List the folder.", "Please stop."]


def test_xml_replies_and_tmux_keys(tmp_path: Path) -> None:
    reply = (
        "<response><analysis>x</analysis><plan>y</plan><commands>"
        '<keystrokes duration="0.1">python3\n</keystrokes><keystrokes>print(1)</keystrokes>'
        "<keystrokes>C-c</keystrokes><keystrokes>echo ok</keystrokes><keystrokes>Enter</keystrokes>"
        "</commands></response>"
    )
    assert atif.typed_lines(["python3\n", "print(1)", "C-c", "echo ok", "Enter", "vim x"]) == [
        "python3",
        "echo ok",
    ]
    t = read_one(
        write(tmp_path, traj(agent(reply, observation=results((None, "Current Terminal Screen:\n$ ")))))
    )
    (s,) = t.steps
    assert s.command == "python3\necho ok" and s.args["commands"][0] == {
        "keystrokes": "python3\n",
        "duration": 0.1,
    }
    assert s.action.kind == "shell" and s.action.parts == ()  # no prompt echoes the commands: one region


def test_a_message_that_is_no_terminus_reply_is_no_step(tmp_path: Path) -> None:
    # a JSON object with commands but neither analysis nor plan is not Terminus 2's reply format
    text = 'Config: {"commands": [{"keystrokes": "ls\\n"}]}'
    doc = traj(agent(text), {"source": "user", "message": "New Terminal Output:\n$ ls\n"})
    t = read_one(write(tmp_path, doc))
    assert t.steps == [] and [e.role for e in t.events] == ["assistant", "user"]


def test_keystrokes_that_run_nothing_are_other(tmp_path: Path) -> None:
    doc = traj(
        agent(
            tool_calls=[call("c1", "bash_command", keystrokes="", duration=10)],
            observation=results(("c1", _pane("still running...\n"))),
        )
    )
    (s,) = read_one(write(tmp_path, doc)).steps
    assert s.action.kind == "other" and s.command == 'bash_command {"keystrokes":"","duration":10}'
    assert s.frames == (Frame(0, len("New Terminal Output:\n"), "frame"),)


def test_terminus_clip_marker_marks_clipped(tmp_path: Path) -> None:
    marker = "\n[... output limited to 10000 bytes; 52 interior bytes omitted ...]\n"
    pane = _pane(P + "cat big.txt\n", "head" + marker + "tail\n", P.rstrip())
    doc = traj(
        agent(
            tool_calls=[call("c1", "bash_command", keystrokes="cat big.txt\n")],
            observation=results(("c1", pane)),
        )
    )
    (s,) = read_one(write(tmp_path, doc)).steps
    assert s.clipped and s.shown == s.output
    clip = [f for f in s.frames if f.kind == "clip"]
    assert [s.shown[f.start : f.end] for f in clip] == [marker]
    (part,) = s.action.parts
    assert s.shown[part.output[0] : part.output[1]] == "head" + marker + "tail\n"


def test_pane_with_an_unknown_echo_frames_the_prompt_line() -> None:
    from rtlab.ingest.readers._frames import terminal_parts

    shown = "New Terminal Output:\n" + P + "ls -\tl\nx\n" + P + "cat b\nbee\n" + P
    parts, frames = terminal_parts(shown, ["ls -l", "cat b"], clipped=False)
    assert [(p.command, shown[p.output[0] : p.output[1]]) for p in parts] == [("cat b", "bee\n")]
    assert [shown[f.start : f.end] for f in frames] == [
        "New Terminal Output:\n",
        P + "ls -\tl\n",
        P + "cat b\n",
        P,
    ]


def test_wrapped_echo_is_matched() -> None:
    from rtlab.ingest.readers._frames import terminal_parts

    command = "find . -name '*.log' > /output/capture.txt 2>&1"
    shown = "New Terminal Output:\n" + P + command[:30] + "\n" + command[30:] + "\nroot@c0ffee:/work#"
    parts, frames = terminal_parts(shown, [command], clipped=False)
    assert [p.command for p in parts] == [command] and shown[frames[1].start : frames[1].end].endswith(
        "2>&1\n"
    )


# --- other layouts ---------------------------------------------------------------------------------------


def test_stream_reads_header_steps_and_index(tmp_path: Path) -> None:
    t = read_one(HERE / "stream.atif.jsonl")
    assert t.id == "atif:session-2025-11-05T08-00-00-000Z-demo01"
    assert t.parent_id == "atif:session-2025-11-05T07-59-00-000Z-root01"
    assert [(s.tool, s.command, s.line, s.answered) for s in t.steps] == [
        ("read_file", "read src/math.test.ts", 3, True),
        ("run_command", "bun test", 4, True),
        ("edit_file", 'edit_file {"path":"src/math.ts","old":"a + b + 1","new":"a + b"}', 5, False),
    ]
    assert [s.action.kind for s in t.steps] == ["read", "shell", "other"]
    assert t.usage == TokenUsage(input_tokens=1100, output_tokens=50)  # from stream.index.json
    assert t.meta["layout"] == "stream" and t.meta["index_status"] == "in_progress"
    # without the index, the steps' metrics are summed; a cut-off last line is skipped and reported
    lines = (HERE / "stream.atif.jsonl").read_text(encoding="utf-8")
    cut = write(tmp_path, lines + '{"step_id": 5, "source": "ag', "copy.atif.jsonl")
    t2 = read_one(cut)
    assert t2.usage == TokenUsage(input_tokens=1100, output_tokens=50) and t2.n_steps == 2
    assert any("not complete JSON" in w for w in warnings_of(t2))


def test_array_and_one_per_line_layouts(tmp_path: Path) -> None:
    a = traj(agent(tool_calls=[call("c1", "bash", command="pwd")], observation=results(("c1", "/x\n"))))
    b = traj(agent("done"), session_id="s-2")
    ts = atif.read(write(tmp_path, [a, a, b]), OPTS)
    assert [t.id for t in ts] == ["atif:s-1:1", "atif:s-1:2", "atif:s-2"]  # shared ids get their position
    assert [t.n_steps for t in ts] == [1, 1, 0] and ts[0].meta["layout"] == "array"
    lines = atif.read(write(tmp_path, json.dumps(a) + "\n" + json.dumps(b) + "\n", "many.jsonl"), OPTS)
    assert [(t.id, t.n_steps, t.steps[0].line if t.steps else None) for t in lines] == [
        ("atif:s-1", 1, 1),
        ("atif:s-2", 0, None),
    ]


def test_embedded_subagents_are_their_own_trajectories(tmp_path: Path) -> None:
    sub = traj(
        agent(tool_calls=[call("k1", "bash", command="ls")], observation=results(("k1", "a\n"))),
        trajectory_id="sub-1",
    )
    ref = {
        "source_call_id": "c1",
        "content": "delegated",
        "subagent_trajectory_ref": [{"trajectory_id": "sub-1"}],
    }
    doc = traj(
        agent(tool_calls=[call("c1", "delegate", task="look")], observation={"results": [ref]}),
        subagent_trajectories=[sub],
        schema_version="ATIF-v1.7",
    )
    parent, child = atif.read(write(tmp_path, doc), OPTS)
    assert (parent.id, child.id) == ("atif:s-1", "atif:s-1/sub-1")
    assert (child.parent_id, child.parent_call_id) == ("atif:s-1", "c1")
    assert child.steps[0].command == "ls" and parent.meta["subagent_refs"] == 1


def test_system_results_and_unlinked_results_become_events(tmp_path: Path) -> None:
    doc = traj(
        {
            "source": "system",
            "message": "Tool execution results",
            "observation": {"results": [{"content": {"passed": False}}]},
        },
        agent("no call", observation=results((None, "stray"))),
    )
    t = read_one(write(tmp_path, doc))
    assert t.n_steps == 0 and [(e.kind, e.role, e.text) for e in t.events] == [
        ("system", "system", "Tool execution results"),
        ("system", "tool", '{"passed":false}'),
        ("message", "assistant", "no call"),
        ("other", "tool", "stray"),
    ]
    assert t.meta["results_answering_no_call"] == 1
    assert any("kept as JSON" in w for w in warnings_of(t))
    assert any("no tool calls" in w for w in warnings_of(t))


def test_result_for_an_earlier_steps_call_and_string_arguments(tmp_path: Path) -> None:
    doc = traj(
        agent(tool_calls=[{"tool_call_id": "c1", "function_name": "bash", "arguments": '{"command": "ls"}'}]),
        agent(observation=results(("c1", "x\n"))),
        agent(tool_calls=[{"tool_call_id": "c2", "function_name": "bash", "arguments": "{not json"}]),
    )
    t = read_one(write(tmp_path, doc))
    assert t.steps[0].command == "ls" and t.steps[0].output == "x\n"
    assert any("answers call 'c1' of an earlier step" in w for w in warnings_of(t))
    assert (
        t.steps[1].args == {"_raw": "{not json"}
        and t.steps[1].args_error
        and t.steps[1].command == "bash {not json"
    )


def test_clip_option_applies_to_results(tmp_path: Path) -> None:
    doc = traj(
        agent(tool_calls=[call("c1", "bash", command="cat f")], observation=results(("c1", "y" * 40_000)))
    )
    path = write(tmp_path, doc)
    (s,) = read_one(path, ReadOptions(clip="openhands-v0")).steps
    assert (
        s.clipped
        and len(s.shown) < len(s.output)
        and read_one(path, ReadOptions(clip="openhands-v0")).clip_policy == "openhands-v0"
    )
    assert not read_one(path).steps[0].clipped


# --- malformed input -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("doc", "message", "field"),
    [
        (traj({"source": "robot", "message": ""}), "source is 'robot'", "steps[0].source"),
        (traj({"source": "user", "message": "", "step_id": "1"}), "not an integer", "steps[0].step_id"),
        (
            traj(agent(tool_calls=[{"function_name": "bash", "arguments": {}}])),
            "tool_call_id",
            "steps[0].tool_calls[0].tool_call_id",
        ),
        (
            traj(agent(tool_calls=[{"tool_call_id": "c", "arguments": {}}])),
            "function_name",
            "steps[0].tool_calls[0].function_name",
        ),
        (traj(agent(tool_calls={"a": 1})), "list of tool calls", "steps[0].tool_calls"),
        (traj(agent(observation={"results": "x"})), "results list", "steps[0].observation"),
        (
            traj(agent(observation=results(("nope", "x")))),
            "matches no tool call",
            "steps[0].observation.results[0].source_call_id",
        ),
        ({**traj(agent("x")), "schema_version": "1.0"}, "not an ATIF version", "schema_version"),
        ({**traj(agent("x")), "steps": {}}, "list of steps", "steps"),
        ({**traj(agent("x")), "agent": "me"}, "agent object", "agent"),
        ([traj(agent("x")), 3], "expected an ATIF trajectory object", "[1]"),
    ],
)
def test_malformed_records_name_the_field(tmp_path: Path, doc: Any, message: str, field: str) -> None:
    with pytest.raises(ReaderError) as err:
        atif.read(write(tmp_path, doc), STRICT)
    assert message in err.value.message and err.value.field == field


def test_malformed_files(tmp_path: Path) -> None:
    with pytest.raises(ReaderError, match="file is empty"):
        atif.read(write(tmp_path, "  \n"), STRICT)
    # a document cut off is closed after its last whole element (issue 24): here nothing is left to read
    with pytest.raises(ReaderError, match="agent object"):
        atif.read(write(tmp_path, '{"schema_version": "ATIF-v1.5",\n "steps": [\n'), STRICT)
    with pytest.raises(ReaderError, match="empty list"):
        atif.read(write(tmp_path, "[]"), STRICT)
    header = json.dumps(
        {"__header__": True, "schema_version": "ATIF-v1.4", "session_id": "s", "agent": {"name": "a"}}
    )
    with pytest.raises(ReaderError) as err:
        atif.read(
            write(
                tmp_path,
                header + "\n" + json.dumps({"step_id": 1, "source": "x", "message": ""}) + "\n",
                "s.jsonl",
            ),
            STRICT,
        )
    assert err.value.line == 2 and err.value.field == "source"
    good = json.dumps(traj(agent("x"))).encode("utf-8")
    (tmp_path / "bad.json").write_bytes(good[:-1] + b', "x": "\xff"}')
    (t,) = atif.read(tmp_path / "bad.json", OPTS)  # the byte replaced, said (issue 24)
    assert [w.kind for w in t.warnings][0] == "repaired" and "UTF-8" in t.warnings[0].reason
    with pytest.raises(ReaderError, match="UTF-8"):
        atif.read(tmp_path / "bad.json", STRICT)


def test_odd_but_readable_input_warns(tmp_path: Path) -> None:
    doc = traj(agent("a"), agent("b"), schema_version="ATIF-v2.0")
    doc["steps"][1]["step_id"] = 7
    t = read_one(write(tmp_path, doc))
    assert any("newer than the versions rtlab knows" in w for w in warnings_of(t))
    assert any("7, expected 2" in w for w in warnings_of(t))


# --- the wild files --------------------------------------------------------------------------------------

WILD_COUNTS = {
    "openagents__qa-runner__login-trace__trajectory.json": [6],
    "openagents__sample-trajectories.json": [1, 7, 9, 9, 3],
    "openagents__session-2025-12-05T07-45-57-649Z-x8251x.atif.json": [0],
    "openagents__session-2025-12-05T07-45-57-649Z-x8251x.atif.jsonl": [0],
    "scout__harbor-golden__openhands_hello-world.trajectory.json": [1],
}
"""Tool calls (a Terminus 2 batch counts once) that got a result, per trajectory of each file."""

_PANE_OPENINGS = ("New Terminal Output:", "Current Terminal Screen:", "Current terminal state:")


def raw_answered(path: Path) -> list[int]:
    """Per trajectory: answered tool calls, counted from the raw JSON without the reader. A call is answered
    when a result names it, or (a step's results naming no call) when it is the step's first call still open:
    a Terminus batch of keystroke calls counts once. A step without calls whose message holds Terminus
    ``commands`` is one call, answered by its observation or by a pane in the next user step."""
    text = path.read_text(encoding="utf-8")
    try:
        docs = json.loads(text)
    except json.JSONDecodeError:
        lines = [json.loads(x) for x in text.splitlines() if x.strip()]
        docs = {**lines[0], "steps": lines[1:]}
    counts = []
    for doc in docs if isinstance(docs, list) else [docs]:
        n = 0
        steps = doc["steps"]
        for i, step in enumerate(steps):
            if step["source"] != "agent":
                continue
            calls = step.get("tool_calls") or []
            res = (step.get("observation") or {}).get("results", [])
            named = {r.get("source_call_id") for r in res} - {None}
            n += sum(1 for c in calls if c["tool_call_id"] in named)
            loose = [r for r in res if not r.get("source_call_id")]
            keys = [c for c in calls if "keystrokes" in c["arguments"] and c["tool_call_id"] not in named]
            if loose and len(keys) >= 2:
                n += 1
            elif loose and calls:
                n += min(len(loose), len([c for c in calls if c["tool_call_id"] not in named]))
            elif not calls and '"keystrokes"' in step["message"]:
                nxt = steps[i + 1] if i + 1 < len(steps) else None
                pane = (
                    nxt is not None and nxt["source"] == "user" and nxt["message"].startswith(_PANE_OPENINGS)
                )
                n += 1 if loose or pane else 0
        counts.append(n)
    return counts


@pytest.fixture(scope="module")
def wild(real: Path) -> Path:
    return wild_folder(real, "atif")


def test_wild_folder_is_what_the_counts_pin(wild: Path) -> None:
    claimed = sorted(p.name for p in wild.iterdir() if detect(p) == "atif")
    assert claimed == sorted(WILD_COUNTS)
    assert all(detect(p) is None for p in wild.glob("SPEC__*.md"))  # the spec texts hold ATIF only in prose


def test_no_other_real_file_is_claimed(real: Path) -> None:
    others = [p for p in real.rglob("*") if p.is_file() and p.parent.name != "atif"]
    assert len(others) > 40 and [p for p in others if atif.sniff(p)] == []


@pytest.mark.parametrize("name", sorted(WILD_COUNTS))
def test_wild_counts_match_the_raw_records(wild: Path, name: str) -> None:
    path = wild / name
    ts = atif.read(path, OPTS)
    assert [t.n_steps for t in ts] == WILD_COUNTS[name] == raw_answered(path)
    for t in ts:
        assert all(s.action is not None for s in t.steps)
        if t.n_steps == 0:
            assert any("no tool calls" in str(w) for w in t.warnings), t.id


@pytest.mark.parametrize("name", sorted(WILD_COUNTS))
def test_wild_replay_runs(wild: Path, name: str, capsys) -> None:
    assert main(["replay", str(wild / name)]) == 0
    assert "read-log entries" in capsys.readouterr().out


def test_wild_harbor_golden_hello_world(wild: Path) -> None:
    from rtlab.environment import replay

    t = read_one(wild / "scout__harbor-golden__openhands_hello-world.trajectory.json")
    assert (t.harness, t.harness_version, t.model) == ("openhands", "1.1.0", None)
    assert [(s.tool, s.command, s.answered) for s in t.steps] == [
        ("str_replace_editor", "write /app/hello.txt", True),
        (
            "finish",
            'finish {"message":"Task complete. Created /app/hello.txt with \'Hello, world!\'"}',
            False,
        ),
    ]
    assert t.usage == TokenUsage(input_tokens=220, output_tokens=80, cost_usd=0.00135)
    assert [f.path for f in t.deliverable.files] == ["/app/hello.txt"]
    assert t.deliverable.files[0].content == "Hello, world!"
    # Hand check: the run's one answered call creates /app/hello.txt with str_replace_editor (its result is
    # "File created successfully at: /app/hello.txt", no file content); the finish call has no result. The
    # model was shown no file's content, so the read log is empty; the file is a write.
    r = replay(t)
    assert r.tab.read_log == []
    assert [e.text for e in t.events if e.role == "system"][1:] == [
        'Retrieving content for: Create a file called hello.txt with "Hello, world!',
        "Added workspace context",
    ]


def test_wild_terminus_run_read_log_by_hand(wild: Path) -> None:
    from rtlab.environment import replay

    t = atif.read(wild / "openagents__sample-trajectories.json", OPTS)[1]
    assert t.meta["extra"]["task"] == "task_1000" and t.meta["panes_from_user_steps"] == 7
    assert [s.command for s in t.steps] == [
        "ls -la",
        "tree sample_dirs 2>/dev/null || find sample_dirs -type d",
        "find sample_dirs -type f",
        'ls -la /output 2>/dev/null || echo "output directory does not exist"',
        "mkdir -p /output\nfind sample_dirs -maxdepth 3 -type f -iname 'my_file*.log' > /output/command_capture.txt 2>&1",
        "ls -la /output/command_capture.txt\ncat /output/command_capture.txt",
        'echo "Task completed successfully. Exit status: 0. File /output/command_capture.txt created with 109 bytes '
        'containing 3 matching files."',
    ]
    # Hand check, step by step (every pane starts "New Terminal Output:", prompts root@b0947b4b-...:/workspace#):
    # 0 `ls -la` and 1 `tree || find -type d` list folders; 2 `find -type f` lists four files by name only;
    # 3 `ls -la /output` prints the echo's fallback text; 4 `mkdir`, then `find ... > command_capture.txt`:
    # nothing printed, the file is written; 5 `ls -la` of the capture file (a listing), then `cat` of it:
    # its three lines are the only file content the model was shown; 6 `echo` prints a sentence naming the
    # file, not its content. So the read log holds /output/command_capture.txt alone, from step 5, and its
    # excerpt is exactly the three lines, without the prompt lines around them.
    r = replay(t)
    assert [(e.step, e.path) for e in r.tab.read_log] == [(5, "/output/command_capture.txt")]
    shown = t.steps[5].shown
    ls_part, cat_part = t.steps[5].action.parts
    assert shown[cat_part.output[0] : cat_part.output[1]] == (
        "sample_dirs/dir1/my_file1.log\nsample_dirs/dir2/subdir/my_file2.LOG\nsample_dirs/dir2/subdir/my_file_extra.log\n"
    )
    assert all(s.cwd == "/workspace" for s in t.steps)


def test_wild_stream_and_object_of_one_session_agree(wild: Path) -> None:
    a = read_one(wild / "openagents__session-2025-12-05T07-45-57-649Z-x8251x.atif.json")
    b = read_one(wild / "openagents__session-2025-12-05T07-45-57-649Z-x8251x.atif.jsonl")
    assert a.id == b.id and [(e.kind, e.role, e.text) for e in a.events] == [
        (e.kind, e.role, e.text) for e in b.events
    ]
    assert len(a.events) == 11 and a.events[2].text.startswith(
        '{"command":"bun run typecheck","passed":false'
    )
    # the object's final_metrics says 0 tokens; the stream has no index file beside it here
    assert a.usage == TokenUsage(input_tokens=0, output_tokens=0) and b.usage is None


# --- export: valid ATIF ----------------------------------------------------------------------------------

_ROOT_KEYS = {
    "schema_version",
    "session_id",
    "agent",
    "steps",
    "notes",
    "final_metrics",
    "continued_trajectory_ref",
    "extra",
}
_AGENT_KEYS = {"name", "version", "model_name", "tool_definitions", "extra"}
_FINAL_KEYS = {
    "total_prompt_tokens",
    "total_completion_tokens",
    "total_cached_tokens",
    "total_cost_usd",
    "total_steps",
    "extra",
}
_STEP_KEYS = {
    "step_id", "timestamp", "source", "model_name", "reasoning_effort", "message", "reasoning_content",
    "tool_calls", "observation", "metrics", "extra",
}  # fmt: skip
_AGENT_ONLY = {"model_name", "reasoning_effort", "reasoning_content", "tool_calls", "metrics"}
_METRICS_KEYS = {
    "prompt_tokens", "completion_tokens", "cached_tokens", "cost_usd", "prompt_token_ids", "completion_token_ids",
    "logprobs", "extra",
}  # fmt: skip


def spec_problems(doc: Any) -> list[str]:
    """What in ``doc`` breaks ATIF-v1.5 as RFC 0001 (shared/real/wild/atif/SPEC__...v1.5.md) states it: the
    required fields and their types, no field the schema does not list, step_id from 1 in order, sources,
    agent-only fields on agent steps only, and every source_call_id naming a tool_call_id of its step."""
    bad: list[str] = []

    def need(obj: dict[str, Any], key: str, kind: Any, where: str, required: bool = True) -> Any:
        if key not in obj:
            if required:
                bad.append(f"{where}.{key}: missing")
            return None
        value = obj[key]
        if not isinstance(value, kind) or isinstance(value, bool) and kind is not bool:
            bad.append(f"{where}.{key}: {type(value).__name__}")
            return None
        return value

    def only(obj: dict[str, Any], keys: set[str], where: str) -> None:
        bad.extend(f"{where}.{k}: not in the schema" for k in set(obj) - keys)

    if not isinstance(doc, dict):
        return ["root: not an object"]
    only(doc, _ROOT_KEYS, "root")
    version = need(doc, "schema_version", str, "root")
    if version is not None and version != "ATIF-v1.5":
        bad.append(f"root.schema_version: {version}")
    need(doc, "session_id", str, "root")
    need(doc, "notes", str, "root", required=False)
    need(doc, "extra", dict, "root", required=False)
    agent_ = need(doc, "agent", dict, "root")
    if agent_ is not None:
        only(agent_, _AGENT_KEYS, "agent")
        need(agent_, "name", str, "agent")
        need(agent_, "version", str, "agent")
        need(agent_, "model_name", str, "agent", required=False)
    final = need(doc, "final_metrics", dict, "root", required=False)
    if final is not None:
        only(final, _FINAL_KEYS, "final_metrics")
        for key in ("total_prompt_tokens", "total_completion_tokens", "total_cached_tokens", "total_steps"):
            need(final, key, int, "final_metrics", required=False)
        need(final, "total_cost_usd", (int, float), "final_metrics", required=False)
    steps = need(doc, "steps", list, "root") or []
    for i, step in enumerate(steps):
        where = f"steps[{i}]"
        if not isinstance(step, dict):
            bad.append(f"{where}: not an object")
            continue
        only(step, _STEP_KEYS, where)
        if need(step, "step_id", int, where) not in (None, i + 1):
            bad.append(f"{where}.step_id: {step['step_id']}, expected {i + 1}")
        source = need(step, "source", str, where)
        if source is not None and source not in ("system", "user", "agent"):
            bad.append(f"{where}.source: {source}")
        if source != "agent":
            bad.extend(f"{where}.{k}: only for agent steps" for k in _AGENT_ONLY & set(step))
        need(step, "message", str, where)
        ts = need(step, "timestamp", str, where, required=False)
        if ts is not None:
            try:
                datetime.fromisoformat(ts.replace("Z", "+00:00"))
            except ValueError:
                bad.append(f"{where}.timestamp: not ISO 8601")
        need(step, "extra", dict, where, required=False)
        metrics = need(step, "metrics", dict, where, required=False)
        if metrics is not None:
            only(metrics, _METRICS_KEYS, f"{where}.metrics")
        ids: set[str] = set()
        for j, c in enumerate(need(step, "tool_calls", list, where, required=False) or []):
            cw = f"{where}.tool_calls[{j}]"
            if not isinstance(c, dict):
                bad.append(f"{cw}: not an object")
                continue
            only(c, {"tool_call_id", "function_name", "arguments"}, cw)
            if (cid := need(c, "tool_call_id", str, cw)) is not None:
                ids.add(cid)
            need(c, "function_name", str, cw)
            need(c, "arguments", dict, cw)
        obs = need(step, "observation", dict, where, required=False)
        if obs is not None:
            only(obs, {"results"}, f"{where}.observation")
            for k, r in enumerate(need(obs, "results", list, f"{where}.observation") or []):
                rw = f"{where}.observation.results[{k}]"
                if not isinstance(r, dict):
                    bad.append(f"{rw}: not an object")
                    continue
                only(r, {"source_call_id", "content", "subagent_trajectory_ref"}, rw)
                sid = need(r, "source_call_id", str, rw, required=False)
                if sid is not None and sid not in ids:
                    bad.append(f"{rw}.source_call_id: {sid!r} names no tool call of its step")
                need(r, "content", str, rw, required=False)
    return bad


def test_spec_check_finds_what_breaks_the_spec(tools) -> None:
    doc = atif.write_atif(tools)
    assert spec_problems(doc) == []
    broken = copy.deepcopy(doc)
    broken["steps"][2]["step_id"] = 9
    del broken["agent"]["name"]
    broken["steps"][4]["observation"]["results"][0]["source_call_id"] = "elsewhere"
    broken["steps"][0]["tool_calls"] = []
    broken["steps"][1]["message"] = None
    broken["trajectory_id"] = "v1.7 only"
    assert sorted(spec_problems(broken)) == sorted(
        [
            "steps[2].step_id: 9, expected 3",
            "agent.name: missing",
            "steps[4].observation.results[0].source_call_id: 'elsewhere' names no tool call of its step",
            "steps[0].tool_calls: only for agent steps",
            "steps[1].message: NoneType",
            "root.trajectory_id: not in the schema",
        ]
    )


def _samples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """The first file or run folder each format claims under tests/fixtures, data/sample and shared/real
    (wild included), in that order; the canonical format gets a file written from the first sample."""
    found: dict[str, Path] = {}
    roots = [FIXTURES, ROOT / "data" / "sample"]
    from conftest import REAL

    if REAL.is_dir():
        roots.append(REAL)
    for root in roots:
        for unit, fmt in discover(root):
            found.setdefault(fmt, unit)
    if "rtlab" not in found and found:
        unit, fmt = next(iter(found.items()))[1], next(iter(found))
        out = tmp_path_factory.mktemp("canonical") / "canonical.jsonl"
        write_jsonl(read_unit(unit, fmt), out)
        found["rtlab"] = out
    return found


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    return _samples(tmp_path_factory)


_STEP_FIELDS = (
    "tool",
    "command",
    "args",
    "output",
    "shown",
    "clipped",
    "is_error",
    "exit_code",
    "call_id",
    "action",
    "frames",
)
_TRAJECTORY_FIELDS = ("model", "harness", "harness_version", "usage", "deliverable")


def read_log(t) -> list[tuple[int, str, str]]:
    from rtlab.environment import replay

    return [(e.step, e.path, e.command) for e in replay(t).tab.read_log]


@pytest.mark.parametrize("fmt", FORMATS)
def test_export_reads_back_to_the_same_steps(samples: dict[str, Path], fmt: str, tmp_path: Path) -> None:
    if fmt not in samples:
        pytest.skip(f"no sample of format {fmt!r} under tests/fixtures, data/sample or shared/real")
    originals = read_unit(samples[fmt], fmt)
    assert originals
    result = atif.export_atif(originals, tmp_path)
    assert not result.failures and len(result.written) == len(originals)
    for t, path in zip(originals, result.written, strict=True):
        doc = json.loads(path.read_text(encoding="utf-8"))
        assert spec_problems(doc) == [], t.id
        assert detect(path) == "atif"
        (back,) = atif.read(path, OPTS)
        assert len(back.steps) == len(t.steps) and back.n_steps == t.n_steps
        for a, b in zip(t.steps, back.steps, strict=True):
            assert [getattr(b, f) for f in _STEP_FIELDS] == [getattr(a, f) for f in _STEP_FIELDS], (
                t.id,
                a.index,
            )
        assert [getattr(back, f) for f in _TRAJECTORY_FIELDS] == [getattr(t, f) for f in _TRAJECTORY_FIELDS]
        assert [(e.kind, e.text, e.role, e.data) for e in back.events] == [
            (e.kind, e.text, e.role, e.data) for e in t.events
        ]
        assert (back.task_id, back.clip_policy, back.meta["exported_from"]["id"]) == (
            t.task_id,
            t.clip_policy,
            t.id,
        )
        assert back.id == f"atif:{t.id}" and back.format == "atif"
        # and so the environment rebuilds the same read log from it
        assert read_log(back) == read_log(t)


def test_every_wild_atif_trajectory_reads_back(wild: Path, tmp_path: Path) -> None:
    for name in sorted(WILD_COUNTS):
        originals = atif.read(wild / name, OPTS)
        for t, path in zip(originals, atif.export_atif(originals, tmp_path / name).written, strict=True):
            (back,) = atif.read(path, OPTS)
            assert [[getattr(s, f) for f in _STEP_FIELDS] for s in back.steps] == [
                [getattr(s, f) for f in _STEP_FIELDS] for s in t.steps
            ]


def test_export_fields_other_tools_read(tools) -> None:
    doc = atif.write_atif(tools)
    assert doc["schema_version"] == "ATIF-v1.5" and doc["session_id"] == "atif:demo-tools-0001"
    assert doc["agent"] == {"name": "claude-code", "version": "2.0.31", "model_name": "claude-sonnet-4-5"}
    assert doc["final_metrics"] == {
        "total_prompt_tokens": 7800,
        "total_completion_tokens": 175,
        "total_cached_tokens": 2200,
        "total_cost_usd": pytest.approx(0.014),
        "extra": {"reasoning_tokens": 12},
        "total_steps": 12,
    }
    read = next(
        s for s in doc["steps"] if s.get("tool_calls") and s["tool_calls"][0]["function_name"] == "Read"
    )
    assert read["tool_calls"][0] == {
        "tool_call_id": "toolu_02",
        "function_name": "Read",
        "arguments": {"file_path": "/data/budget.csv", "offset": 1, "limit": 3},
    }
    assert read["observation"] == {
        "results": [{"source_call_id": "toolu_02", "content": "quarter,total\nQ2,4100\nQ3,4434.5\n"}]
    }
    assert read["extra"]["rtlab"]["step"]["action"] == {
        "kind": "read",
        "path": "/data/budget.csv",
        "offset": 1,
        "limit": 3,
    }
    finish = doc["steps"][-1]
    assert "observation" not in finish and finish["tool_calls"][0]["function_name"] == "finish"


def test_export_keeps_the_log_where_the_model_saw_less(tmp_path: Path) -> None:
    doc = traj(
        agent(tool_calls=[call("c1", "bash", command="cat f")], observation=results(("c1", "y" * 40_000)))
    )
    (t,) = atif.read(write(tmp_path, doc), ReadOptions(clip="openhands-v0"))
    out = atif.write_atif(t)
    (step,) = [s for s in out["steps"] if s.get("tool_calls")]
    assert step["observation"]["results"][0]["content"] == t.steps[0].shown  # what the model was shown
    assert step["extra"]["rtlab"]["step"]["output"] == "y" * 40_000
    (back,) = atif.read(write(tmp_path, out, "back.json"), OPTS)
    assert (back.steps[0].output, back.steps[0].shown, back.clip_policy) == (
        t.steps[0].output,
        t.steps[0].shown,
        "openhands-v0",
    )


def test_export_gives_ids_to_calls_without_one(tmp_path: Path) -> None:
    doc = traj(
        {"source": "user", "message": "go"},
        agent(json.dumps({"analysis": "", "commands": [{"keystrokes": "ls\n"}]})),
        {"source": "user", "message": "New Terminal Output:\n$ ls\na\n"},
    )
    (t,) = atif.read(write(tmp_path, doc), OPTS)
    assert t.steps[0].call_id is None
    out = atif.write_atif(t)
    (step,) = [s for s in out["steps"] if s.get("tool_calls")]
    assert (
        step["tool_calls"][0]["tool_call_id"]
        == "rtlab-call-0"
        == step["observation"]["results"][0]["source_call_id"]
    )
    (back,) = atif.read(write(tmp_path, out, "back.json"), OPTS)
    assert back.steps[0].call_id is None


def test_write_atif_refuses_an_empty_trajectory() -> None:
    from rtlab.records import Trajectory

    with pytest.raises(ValueError, match="no steps or events"):
        atif.write_atif(Trajectory(id="x", format="codex", source_path="x"))


# --- rtlab export ----------------------------------------------------------------------------------------


def test_export_names_stay_inside_the_folder() -> None:
    assert atif.export_name("plain-id.1") == "plain-id.1.json"
    for tid in ("../../etc/passwd", "/abs/path", "..", "codex:a/b", ".hidden"):
        name = atif.export_name(tid)
        assert "/" not in name and not name.startswith(".") and name.endswith(".json"), name
    assert atif.export_name("a:b") != atif.export_name("a_b")


def test_cli_export_writes_one_file_per_trajectory(tmp_path: Path, capsys) -> None:
    out = tmp_path / "out"
    assert main(["export", str(HERE), "--format", "atif", "-o", str(out)]) == 0
    names = sorted(p.name for p in out.iterdir())
    assert len(names) == 3 and all(n.startswith("atif_") and n.endswith(".json") for n in names)
    assert "wrote 3 ATIF files" in capsys.readouterr().err
    for p in out.iterdir():
        assert detect(p) == "atif" and (p.stat().st_mode & 0o077) == 0
    # the files are read back by every command, as ATIF
    assert main(["replay", str(out)]) == 0


def test_cli_export_reports_a_bad_unit_and_goes_on(tmp_path: Path, capsys) -> None:
    src = tmp_path / "src"
    src.mkdir()
    shutil.copy(HERE / "harbor_tools.json", src / "a.json")
    write(src, traj({"source": "robot", "message": ""}), "b.json")
    out = tmp_path / "out"
    assert main(["export", str(src), "-o", str(out)]) == 3
    err = capsys.readouterr().err
    # b.json's step of an unknown source is skipped with a warning (issue 24); its trajectory, left with no
    # step, is the one export refuses
    assert "skipped atif:s-1" in err and "wrote 1 ATIF files" in err and "1 failed" in err
    assert len(list(out.iterdir())) == 1
    assert main(["export", str(src), "-o", str(tmp_path / "strict"), "--strict"]) == 2
    assert not (tmp_path / "strict").exists() or not list((tmp_path / "strict").iterdir())


def test_cli_export_forces_a_reader_with_from(tmp_path: Path) -> None:
    weird = tmp_path / "x.log"
    shutil.copy(HERE / "harbor_tools.json", weird)
    out = tmp_path / "out"
    assert main(["export", str(weird), "--from", "atif", "-o", str(out)]) == 0
    assert len(list(out.iterdir())) == 1


def test_export_of_a_trajectory_that_cannot_be_written(tmp_path: Path, tools) -> None:
    from rtlab.records import Trajectory

    empty = Trajectory(id="empty", format="codex", source_path="x")
    result = atif.export_atif([empty, tools, tools], tmp_path)
    assert [tid for tid, _ in result.failures] == ["empty"]
    assert [p.name for p in result.written] == [
        atif.export_name(tools.id),
        atif.export_name(tools.id)[: -len(".json")] + "-2.json",  # the same id twice: a second name
    ]
    with pytest.raises(RtlabError, match="could not be written"):
        atif.export_atif([empty], tmp_path, strict=True)
    assert get_reader("atif") is atif


def test_export_passes_harbor_and_inspect_scout(samples: dict[str, Path], tmp_path: Path) -> None:
    """Other tools read the exports: Harbor's pydantic models and ``TrajectoryValidator`` accept every file, and
    Inspect Scout's ATIF source reads each with one tool message per answered call, linked to its call. Both need
    Python >= 3.12, so they run in another interpreter (``tools/atif_check.py``), which ``.ci/run`` sets up and
    names in ``RTLAB_ATIF_CHECK_PYTHON`` (``RTLAB_ATIF_CHECK_PATH``: what it adds to its ``PYTHONPATH``)."""
    python = os.environ.get("RTLAB_ATIF_CHECK_PYTHON")
    if not python:
        pytest.skip(
            "RTLAB_ATIF_CHECK_PYTHON is not set (an interpreter with harbor and inspect-scout; see .ci/run)"
        )
    expected: dict[str, list[int]] = {}
    for fmt, unit in samples.items():
        originals = read_unit(unit, fmt)
        for t, path in zip(originals, atif.export_atif(originals, tmp_path / fmt).written, strict=True):
            # a tool's words with no call (an event of role "tool") are an observation of a system step in
            # ATIF, and Inspect Scout makes a tool message of it that no call owns
            orphans = sum(1 for e in t.events if e.role == "tool")
            expected[str(path)] = [len(t.steps), t.n_steps + orphans, orphans]
    env = {**os.environ, "PYTHONPATH": os.environ.get("RTLAB_ATIF_CHECK_PATH", "")}
    done = subprocess.run(
        [python, str(ROOT / "tools" / "atif_check.py"), str(tmp_path)],
        capture_output=True, text=True, env=env, timeout=600,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    report = json.loads(done.stdout)
    assert {p: r.get("harbor") for p, r in report.items()} == dict.fromkeys(expected, "ok")
    assert {p: r.get("scout") for p, r in report.items()} == expected


def _echo_char_by_char(shown: str, pos: int, text: str, end: int) -> int | None:
    """``_frames._echo`` as it was written first, a character at a time: the rule it must keep."""
    if "\n" not in text and shown.startswith(text, pos, end):
        return pos + len(text)
    i = 0
    while i < len(text):
        if pos >= end:
            return None
        ch = text[i]
        if shown[pos] == ch:
            pos += 1
            if ch == "\n" and shown.startswith("> ", pos):
                pos += 2
            i += 1
        elif shown[pos] == "\n":
            pos += 1  # the pane wrapped the line here
        else:
            return None
    return pos


def test_the_pane_echo_is_found_as_character_by_character() -> None:
    """The echo of typed text, compared a line at a time, ends where the character loop ends it (or both find
    none): on echoes wrapped at random places, ``> `` continuations, noise around them and random panes."""
    import random

    from rtlab.ingest.readers._frames import _echo

    rng = random.Random(29)
    alphabet = "ab\n> "
    found = 0
    for _ in range(20000):
        text = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
        echoed = []
        for ch in text:
            echoed.append("\n" if rng.random() < 0.2 else "")
            echoed.append(ch + ("> " if ch == "\n" and rng.random() < 0.5 else ""))
        noise = ["".join(rng.choice(alphabet) for _ in range(rng.randint(0, 4))) for _ in range(2)]
        shown = noise[0] + "".join(echoed) + noise[1]
        if rng.random() < 0.3:
            shown = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 14)))
        pos = rng.randint(0, len(shown))
        end = rng.randint(pos, len(shown))
        expected = _echo_char_by_char(shown, pos, text, end)
        assert _echo(shown, pos, text, end) == expected, (shown, pos, text, end)
        found += expected is not None
    assert found > 2000  # echoes found, not only refused


def test_the_version_key_is_found_where_its_quote_is_not_escaped() -> None:
    """``schema_version`` found by its words and its quote checked is what the look-behind search found."""
    import random
    import re

    from rtlab.ingest.readers.atif import _names_version

    rng = random.Random(29)
    pieces = ['"schema_version"', ": ", '"ATIF-', "\\", '"', " ", "x", '\\"schema_version": "ATIF-']
    pattern = re.compile(r'(?<!\\)"schema_version"\s*:\s*"ATIF-')
    found = 0
    for _ in range(20000):
        head = "".join(rng.choice(pieces) for _ in range(rng.randint(0, 8)))
        assert _names_version(head) == bool(pattern.search(head)), head
        found += bool(pattern.search(head))
    assert found > 50  # keys found, not only refused

"""The environment: observing steps, tab tool calls (arguments as objects or JSON), the finish check issued once,
the OpenAI tool definitions, the evaluators' view, and each ablation switch changing exactly its part."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

import pytest
from openai.types.chat import ChatCompletionFunctionTool

from rtlab.environment import (
    TOOLS,
    Capture,
    CapturedRead,
    Environment,
    TabConfig,
    evaluator_view,
    is_tab_call,
    strip_status,
    with_status,
)
from rtlab.records import Action, Event, Step, Trajectory

NOTHING = Capture(reads=(), listed=(), written=())


def shell(index: int, command: str, shown: str | None) -> Step:
    return Step(
        index=index, tool="shell", command=command, output=shown, shown=shown, action=Action.shell(command)
    )


def tab_step(index: int, tool: str, args: dict[str, Any]) -> Step:
    return Step(index=index, tool=tool, command=f"{tool} {json.dumps(args)}", args=args, output="", shown="")


@dataclass
class ScriptedCapture:
    """Stands in for capture_step: what each step index read, listed and wrote, and which steps it was asked."""

    plan: dict[int, Capture]
    asked: list[tuple[int, str | None, str | None]] = field(default_factory=list)

    def __call__(
        self, step: Step, *, cwd: str | None = None, root: str | None = None, workspace: Any = None
    ) -> Capture:
        self.asked.append((step.index, cwd, root))
        return self.plan.get(step.index, NOTHING)


LS = "finance/revenue.csv\nfinance/budget_2023.xlsx\nhr/staff_list.csv\n"
REVENUE = "year,amount\n2023,1.2M\n"
STAFF = "name,role\nAna,engineer\n"
PLAN = {
    0: Capture(
        reads=(), listed=("finance/revenue.csv", "finance/budget_2023.xlsx", "hr/staff_list.csv"), written=()
    ),
    3: Capture(reads=(CapturedRead("finance/revenue.csv", REVENUE, 0),), listed=(), written=()),
    4: Capture(reads=(CapturedRead("hr/staff_list.csv", STAFF, 0),), listed=(), written=()),
}


def run_script(
    config: TabConfig, last: tuple[str, dict[str, Any]], capture: ScriptedCapture | None = None
) -> tuple[list[str], str | None, Environment]:
    """One fixed script of observations and tab calls; returns every output, the finish check and the env."""
    capture = capture or ScriptedCapture(PLAN)
    env = Environment("Report the 2023 revenue and the head count", config=config, capture=capture)
    outputs = [
        env.observe(shell(0, "ls -R", LS)),
        env.call("tab_add", {"text": "total revenue 2023"}),
        env.call("tab_add", '{"text": "staff head count"}'),
        env.observe(shell(3, "cat finance/revenue.csv", REVENUE)),
        env.observe(shell(4, "cat hr/staff_list.csv", STAFF)),
        env.call("tab_list", {}),
        env.call("tab_show", {"id": "L1"}),
        env.call("tab_resolve", {"id": "R1", "status": "done", "cite": "L1"}),
        env.observe(shell(8, "echo ok", "ok\n")),
        env.call(*last),
    ]
    return outputs, env.finish(), env


# R2 "staff head count" -> {staff, head, count}; L1 finance/revenue.csv + "year,amount\n2023,1.2M" ->
# {finance, revenue, csv, year, amount, 2023, 1, 2}: no shared term, so the evidence check refuses.
CITE_NO_TERM = ("tab_resolve", {"id": "R2", "status": "done", "cite": "L1"})
SET_ASIDE = ("tab_resolve", {"id": "R2", "status": "unavailable", "reason": "no head count in the files"})


def differing(a: list[str], b: list[str]) -> list[int]:
    assert len(a) == len(b)
    return [i for i, (x, y) in enumerate(zip(a, b, strict=True)) if x != y]


# ---------------------------------------------------------------------------------------------------------
# Observing


def test_observe_captures_and_appends_the_status_line() -> None:
    capture = ScriptedCapture(PLAN)
    env = Environment("task", cwd="/work", root="/work", capture=capture)
    assert (
        env.observe(shell(0, "ls -R", LS))
        == LS + "\n\n[tab] 0 open · 0 read-log entries from 0 files · 3 candidates"
    )
    step = shell(3, "cat finance/revenue.csv", REVENUE)
    step.cwd = "/work/sub"
    out = env.observe(step)
    assert out == REVENUE + "\n\n[tab] 0 open · 1 read-log entry from 1 file · 2 candidates"
    assert capture.asked == [(0, "/work", "/work"), (3, "/work/sub", "/work")]  # the step's own cwd wins
    assert [(e.id, e.step, e.path, e.command) for e in env.tab.read_log] == [
        ("L1", 3, "finance/revenue.csv", "cat finance/revenue.csv")
    ]
    assert strip_status(out) == REVENUE


def test_observe_unanswered_step_reads_nothing_and_shows_the_status_line() -> None:
    capture = ScriptedCapture(PLAN)
    env = Environment("task", capture=capture)
    assert env.observe(shell(3, "cat finance/revenue.csv", None)) == (
        "[tab] 0 open · 0 read-log entries from 0 files · 0 candidates"
    )
    assert capture.asked == [] and env.tab.read_log == []


def test_observe_routes_tab_calls_and_never_captures_their_replies() -> None:
    capture = ScriptedCapture(PLAN)
    env = Environment("task", capture=capture)
    env.observe(shell(3, "cat finance/revenue.csv", REVENUE))
    out = env.observe(tab_step(4, "tab_show", {"id": "L1"}))
    assert out.startswith("L1 · step 3 · finance/revenue.csv\ncommand: cat finance/revenue.csv\n")
    assert capture.asked == [(3, None, None)]
    env.observe(tab_step(5, "tab_add", {"text": "revenue"}))
    assert env.tab.requirements[0].step_added == 5
    assert env.call("tab_add", {"text": "head count"}).startswith("Added R2")
    assert env.tab.requirements[1].step_added == 6  # a live call without a step gets the next index


def test_status_line_round_trip() -> None:
    status = "[tab] 1 open (R1) · 0 read-log entries from 0 files · 0 candidates"
    for text in ["", "x", "a\n\nb", "ends with blank\n\n", "[tab] looks like a status line\nbut is output"]:
        assert strip_status(with_status(text, status)) == text
    assert strip_status("plain output\n") == "plain output\n"


# ---------------------------------------------------------------------------------------------------------
# Tab calls


def reply(env: Environment, tool: str, arguments: Any) -> str:
    return strip_status(env.call(tool, arguments))


def test_call_takes_objects_or_json_text() -> None:
    env = Environment("task", capture=ScriptedCapture({}))
    assert reply(env, "tab_add", {"text": "alpha"}) == "Added R1: alpha"
    assert reply(env, "tab_add", '{"text": "beta"}') == "Added R2: beta"
    assert reply(env, "tab_list", "") == reply(env, "tab_list", None) == reply(env, "tab_list", "{}")
    assert reply(
        env, "tab_resolve", {"id": "R1", "status": "unavailable", "reason": "gone", "cite": None}
    ) == ("R1 unavailable: gone")


@pytest.mark.parametrize(
    ("tool", "arguments", "expected"),
    [
        (
            "tab_add",
            '{"text": "alpha"',
            "tab_add: the arguments are not valid JSON (Expecting ',' delimiter at position 16); send a JSON object.",
        ),
        (
            "tab_add",
            {"_raw": "{text: alpha}"},
            "tab_add: the arguments are not valid JSON (Expecting property name enclosed in double quotes at position 1); send a JSON object.",
        ),
        ("tab_add", "[1, 2]", "tab_add: the arguments must be a JSON object, not list."),
        ("tab_add", {}, "tab_add: missing argument(s) text."),
        ("tab_add", {"text": None}, "tab_add: missing argument(s) text."),
        ("tab_add", {"text": 3}, "tab_add: argument(s) text must be strings."),
        ("tab_show", {"id": "L1", "full": True}, "tab_show: unexpected argument(s) full; tab_show takes id."),
        (
            "tab_list",
            {"filter": "open"},
            "tab_list: unexpected argument(s) filter; tab_list takes no arguments.",
        ),
        ("tab_resolve", {"id": "R1"}, "tab_resolve: missing argument(s) status."),
        (
            "tab_delete",
            {"id": "R1"},
            "tab_delete: not a tab tool (the tab tools are tab_add, tab_list, tab_resolve, tab_show).",
        ),
        (
            "tab_add",
            {"text": "  "},
            "Not added: the requirement text is empty. State one thing the task needs.",
        ),
    ],
)
def test_call_answers_mistakes_with_text(tool: str, arguments: Any, expected: str) -> None:
    env = Environment("task", capture=ScriptedCapture({}))
    out = env.call(tool, arguments)
    assert out == expected + "\n\n[tab] 0 open · 0 read-log entries from 0 files · 0 candidates"
    assert env.tab.requirements == []


def test_tools_are_valid_openai_function_definitions() -> None:
    assert [t["function"]["name"] for t in TOOLS] == ["tab_add", "tab_resolve", "tab_list", "tab_show"]
    for tool in TOOLS:
        ChatCompletionFunctionTool.model_validate(tool)  # the openai client's own schema for a function tool
        params = tool["function"]["parameters"]
        assert params["type"] == "object" and params["additionalProperties"] is False
        assert set(params["required"]) <= set(params["properties"])
        assert all(p["type"] == "string" for p in params["properties"].values())
    resolve = TOOLS[1]["function"]["parameters"]
    assert resolve["required"] == ["id", "status"]
    assert resolve["properties"]["status"]["enum"] == ["done", "unavailable"]
    json.dumps(TOOLS)  # plain JSON


def test_is_tab_call() -> None:
    assert [
        is_tab_call(tab_step(0, name, {})) for name in ("tab_add", "tab_resolve", "tab_list", "tab_show")
    ] == [True] * 4
    assert not is_tab_call(shell(0, "tab_add x", "")) and not is_tab_call(tab_step(0, "todo_list", {}))


# ---------------------------------------------------------------------------------------------------------
# The finish check


def test_finish_check_fires_once_with_the_open_requirements() -> None:
    outputs, finish, env = run_script(TabConfig(), CITE_NO_TERM)
    assert finish == "\n".join(
        [
            "[tab] finish check: 1 requirement is still open.",
            "R2 staff head count",
            "Before finishing, see them beside what you read with tab_list, then tab_resolve each: done citing "
            "a read-log entry (Lk), or unavailable with a reason.",
        ]
    )
    assert env.finish() is None  # issued once, though R2 is still open
    assert env.tab.open_requirements()[0].id == "R2"


def test_finish_check_silent_when_nothing_is_open_and_waits_for_a_real_stop() -> None:
    env = Environment("task", capture=ScriptedCapture({}))
    assert env.finish() is None  # no requirements: nothing, and nothing spent
    env.call("tab_add", {"text": "alpha"})
    env.call("tab_resolve", {"id": "R1", "status": "unavailable", "reason": "n/a"})
    assert env.finish() is None
    env.call("tab_add", {"text": "beta"})
    assert env.finish() == env.tab.finish_message() is not None
    assert env.finish() is None


# ---------------------------------------------------------------------------------------------------------
# Ablations: each switch changes exactly its part (same script, full run against ablated run)


def test_full_run_is_deterministic_and_does_what_the_script_says() -> None:
    outputs, finish, env = run_script(TabConfig(), CITE_NO_TERM)
    again, finish_again, _ = run_script(TabConfig(), CITE_NO_TERM)
    assert (outputs, finish) == (again, finish_again)
    assert strip_status(outputs[7]) == "R1 done, citing L1 (finance/revenue.csv)."
    assert strip_status(outputs[9]).startswith("Refused by the evidence check: L1 (finance/revenue.csv)")
    assert outputs[9].endswith("[tab] 1 open (R2) · 2 read-log entries from 2 files · 1 candidate")


def test_no_capture_empties_l_and_c_and_nothing_else() -> None:
    full_out, full_finish, full = run_script(TabConfig(), SET_ASIDE)
    capture = ScriptedCapture(PLAN)
    abl_out, abl_finish, abl = run_script(TabConfig.ablation("no-capture"), SET_ASIDE, capture)
    assert capture.asked == []  # the environment never even looked
    assert (len(abl.tab.read_log), len(abl.tab.candidates)) == (0, 0)
    assert (len(full.tab.read_log), len(full.tab.candidates)) == (2, 1)
    # observations and tab_add replies: the same text, only the status line's counts differ
    for i in (0, 1, 2, 3, 4, 8):
        assert strip_status(abl_out[i]) == strip_status(full_out[i])
    assert abl_out[4].endswith("[tab] 2 open (R1, R2) · 0 read-log entries from 0 files · 0 candidates")
    assert full_out[4].endswith("[tab] 2 open (R1, R2) · 2 read-log entries from 2 files · 1 candidate")
    # what depends on L: the review has nothing to match, show and cite find no entry
    assert strip_status(abl_out[6]) == "There is no read-log entry 'L1' (the log holds no entries yet)."
    assert (
        strip_status(abl_out[7])
        == "Not resolved: there is no read-log entry 'L1' (the log holds no entries yet)."
    )
    assert differing(full_out, abl_out) == list(range(len(full_out)))  # every status line moved ...
    assert (
        strip_status(abl_out[9]) == strip_status(full_out[9]) == "R2 unavailable: no head count in the files"
    )
    # ... and the requirements were stated alike
    assert [r.text for r in abl.tab.requirements] == [r.text for r in full.tab.requirements]
    assert full_finish is None and abl_finish is not None  # R1 could not be settled without a read log


def test_no_capture_with_own_records_lets_the_agent_cite_its_own_words() -> None:
    """The alternative reading of the no-capture ablation: done may cite the agent's own record."""
    own = TabConfig(capture=False, own_records=True)
    assert own.name == "no-capture+own-records" and TabConfig.ablation("no-capture").own_records is False
    with pytest.raises(ValueError, match="needs capture=False"):
        TabConfig(own_records=True)  # with capture on there is a read log to cite: the option means nothing
    capture = ScriptedCapture(PLAN)
    cite = ("tab_resolve", {"id": "R2", "status": "done", "cite": "staff list: 14 names, so head count 14"})
    out, finish, env = run_script(own, cite, capture)
    assert capture.asked == []  # still nothing captured
    # step 7 cites L1, an entry id: there is none, as under plain no-capture (an id is never taken as words)
    assert (
        strip_status(out[7])
        == "Not resolved: there is no read-log entry 'L1' (the log holds no entries yet)."
    )
    # step 9 cites the agent's words, which share "staff", "head", "count" with R2: accepted as L1
    assert strip_status(out[9]) == "R2 done, citing L1 ((agent record))."
    (entry,) = env.tab.read_log
    assert (entry.origin, entry.path, entry.command, entry.excerpt) == (
        "agent", "(agent record)", "tab_resolve", "staff list: 14 names, so head count 14",
    )  # fmt: skip
    assert env.tab.files_read == 0 and env.tab.to_dict()["read_log"][0]["origin"] == "agent"
    assert finish is not None and "R1" in finish  # R1 stayed open: the finish check lists it
    # words sharing no term with the requirement are refused by the evidence check, and leave no entry
    _, _, refused = run_script(own, ("tab_resolve", {"id": "R2", "status": "done", "cite": "see the files"}))
    assert refused.tab.read_log == [] and refused.tab.requirement("R2").status == "open"
    # the paper's default reading: the same words are no entry id, so done cannot be cited at all
    plain_out, _, plain = run_script(TabConfig.ablation("no-capture"), cite)
    assert strip_status(plain_out[9]).startswith("Not resolved: there is no read-log entry 'staff list")
    assert plain.tab.read_log == [] and plain.tab.requirement("R2").status == "open"


def test_no_review_changes_only_tab_list() -> None:
    full_out, full_finish, full = run_script(TabConfig(), CITE_NO_TERM)
    abl_out, abl_finish, abl = run_script(TabConfig.ablation("no-review"), CITE_NO_TERM)
    assert differing(full_out, abl_out) == [5]
    assert full_finish == abl_finish
    assert strip_status(full_out[5]).startswith(
        "[tab] review · 2 open\nR1 total revenue 2023\n  L1 finance/revenue.csv"
    )
    assert strip_status(abl_out[5]) == "\n".join(
        [
            "[tab] requirements (the review is switched off)",
            "R1 open: total revenue 2023",
            "R2 open: staff head count",
            "read log: 2 entries:",
            "  L1 finance/revenue.csv (step 3)",
            "  L2 hr/staff_list.csv (step 4)",
        ]
    )
    assert full.tab.to_dict() == abl.tab.to_dict() | {"config": "full"}


def test_no_evidence_check_changes_only_the_refused_citation() -> None:
    full_out, _, full = run_script(TabConfig(), CITE_NO_TERM)
    abl_out, _, abl = run_script(TabConfig.ablation("no-evidence-check"), CITE_NO_TERM)
    assert differing(full_out, abl_out) == [9]
    assert strip_status(full_out[9]).startswith("Refused by the evidence check")
    assert strip_status(abl_out[9]) == "R2 done, citing L1 (finance/revenue.csv)."
    assert [r.status for r in full.tab.requirements] == ["done", "open"]
    assert [r.status for r in abl.tab.requirements] == ["done", "done"]
    # a citation that shares a term is accepted either way: the whole run is the same
    set_aside_full, finish_full, _ = run_script(TabConfig(), SET_ASIDE)
    set_aside_abl, finish_abl, _ = run_script(TabConfig.ablation("no-evidence-check"), SET_ASIDE)
    assert (set_aside_full, finish_full) == (set_aside_abl, finish_abl)


def test_no_finish_check_changes_only_the_finish() -> None:
    full_out, full_finish, full = run_script(TabConfig(), CITE_NO_TERM)
    abl_out, abl_finish, abl = run_script(TabConfig.ablation("no-finish-check"), CITE_NO_TERM)
    assert differing(full_out, abl_out) == []
    assert full_finish is not None and abl_finish is None
    assert full.tab.to_dict() == abl.tab.to_dict() | {"config": "full"}


# ---------------------------------------------------------------------------------------------------------
# The evaluators' view


def test_evaluator_view_drops_tab_calls_status_lines_and_the_finish_check() -> None:
    env = Environment("task", capture=ScriptedCapture(PLAN))
    steps = [shell(0, "ls -R", LS), tab_step(1, "tab_add", {"text": "revenue"}), shell(2, "cat x", REVENUE)]
    for step in steps:
        step.shown = step.output = env.observe(step)  # as a log of a RunningTab run would hold them
    steps.append(Step(index=3, tool="tab_list", command="tab_list", output=None, shown=None))  # cut off
    steps.append(shell(4, "cat plain", "no status line here"))
    events = [
        Event(kind="message", text="done", role="assistant", seq=9),
        Event(kind="message", text=env.finish() or "", role="user", seq=10),
    ]
    t = Trajectory(id="x", format="rtlab", source_path="x.jsonl", steps=steps, events=events)
    view = evaluator_view(t)
    assert [(s.index, s.tool, s.command, s.shown, s.output) for s in view.steps] == [
        (0, "shell", "ls -R", LS, LS),
        (1, "shell", "cat x", REVENUE, REVENUE),
        (2, "shell", "cat plain", "no status line here", "no status line here"),
    ]
    assert [e.text for e in view.events] == ["done"]
    assert (
        len(t.steps) == 5 and t.steps[2].index == 2 and t.steps[0].shown.endswith("3 candidates")
    )  # untouched


# ---------------------------------------------------------------------------------------------------------
# With the real capture


def test_environment_with_the_real_capture() -> None:
    listing = "notes.md\nreport_2023.csv\n"
    content = "year,revenue\n2023,42\n"
    env = Environment("Summarise the 2023 report", cwd="/ws", root="/ws")
    env.observe(
        Step(
            index=0,
            tool="shell",
            command="ls",
            output=listing,
            shown=listing,
            cwd="/ws",
            action=Action.shell("ls"),
        )
    )
    assert dict(env.tab.candidates) == {"notes.md": 0, "report_2023.csv": 0}
    env.observe(
        Step(
            index=1,
            tool="shell",
            command="cat report_2023.csv",
            output=content,
            shown=content,
            cwd="/ws",
            action=Action.shell("cat report_2023.csv"),
        )
    )
    # the excerpt is the file's text as shown (whether the final newline belongs to it is capture's call)
    assert [(e.id, e.path, e.excerpt.rstrip("\n")) for e in env.tab.read_log] == [
        ("L1", "report_2023.csv", content.rstrip("\n"))
    ]
    assert dict(env.tab.candidates) == {"notes.md": 0}
    env.call("tab_add", {"text": "revenue 2023"})
    assert strip_status(env.call("tab_resolve", {"id": "R1", "status": "done", "cite": "L1"})) == (
        "R1 done, citing L1 (report_2023.csv)."
    )


def test_a_recorded_status_line_is_not_captured_as_file_content() -> None:
    """A recorded RunningTab run logs each observation with the status line the agent read; replaying it must
    capture the command's output only, exactly as the live environment did."""
    content = "year,revenue\n2023,42\n"
    live = Environment("Summarise the 2023 report", cwd="/ws", root="/ws")
    shown = live.observe(
        Step(
            index=0,
            tool="shell",
            command="cat report_2023.csv",
            output=content,
            shown=content,
            cwd="/ws",
            action=Action.shell("cat report_2023.csv"),
        )
    )
    assert shown == content + "\n\n[tab] 0 open · 1 read-log entry from 1 file · 0 candidates"
    replayed = Environment("Summarise the 2023 report", cwd="/ws", root="/ws")
    replayed.record(
        Step(
            index=0,
            tool="shell",
            command="cat report_2023.csv",
            output=shown,
            shown=shown,
            cwd="/ws",
            action=Action.shell("cat report_2023.csv"),
        )
    )
    assert [e.excerpt for e in replayed.tab.read_log] == [e.excerpt for e in live.tab.read_log]
    assert "[tab]" not in replayed.tab.read_log[0].excerpt

"""Operating styles on hand-made RunningTab runs: the tab replies are the environment's own, the flags are
read off the run by hand in the comments."""

from __future__ import annotations

import math
from typing import Any

import pandas as pd
import pytest
from stepping import typed

from rtlab.analysis import (
    FLAGS,
    STYLE_COLUMNS,
    SUMMARY_COLUMNS,
    offered_candidates,
    operating_styles,
    reading_pass,
    styles_summary,
)
from rtlab.environment import Environment, is_tab_call, read_reply, replay
from rtlab.records import Event, Step, Trajectory

LS = ("bash", "ls data", {}, "a.csv\nb.csv\nnotes.txt\n")  # lists data/a.csv, data/b.csv, data/notes.txt
READ_A = ("read", "read data/a.csv", {"path": "data/a.csv"}, "item,amount\nrent,100\ntotal amount,100\n")
READ_C = ("read", "read data/c.csv", {"path": "data/c.csv"}, "month,value\njan,5\n")
READ_NOTES = ("read", "read data/notes.txt", {"path": "data/notes.txt"}, "notes: summary of the quarter\n")
WRITE = ("write", "write out/report.md", {"path": "out/report.md"}, "Wrote 120 bytes")
EDIT = ("edit", "edit out/report.md", {"path": "out/report.md"}, "Edited out/report.md")
FINISH = "finish"


def tab(tool: str, **args: str) -> tuple[str, str, dict[str, str], None]:
    return (tool, f"{tool} {args}", args, None)


def run(
    tid: str, spec: list[Any], *, model: str = "m1", variant: str | None = None, method: str = "RunningTab"
):
    """A trajectory from (tool, command, args, output) steps and FINISH markers; tab replies and the finish
    check come from a real Environment (with the run's variant) fed the steps in order."""
    from rtlab.environment import TabConfig

    env = Environment("total amount of a and a notes summary", config=TabConfig.ablation(variant or "full"))
    steps, events = [], []
    for seq, item in enumerate(spec):
        if item == FINISH:
            text = env.finish()
            assert text is not None, "the finish check needs open requirements"
            events.append(Event(kind="message", role="user", text=text, seq=seq))
            continue
        tool, command, args, output = item
        step = typed(
            Step(
                index=len(steps), tool=tool, command=command, args=args, output=output, shown=output, seq=seq
            )
        )
        if is_tab_call(step):
            step.output = step.shown = env.observe(step)
        else:
            env.observe(step)
        steps.append(step)
    return Trajectory(
        id=tid, format="hand", source_path="-", steps=steps, events=events, model=model, method=method,
        variant=variant, run="1", task_id="t1",
    )  # fmt: skip


# A: full tab, everything used. R1 and R2 stated; the review shows L1 beside R1 and offers the unopened candidate
# notes.txt beside R2 ("notes summary"), which is then read; R1 done citing L1, deliverable written; the finish
# check lists R2; then show, R2 unavailable, an edit.
A = run(
    "A",
    [
        LS,
        tab("tab_add", text="total amount of a"),
        tab("tab_add", text="notes summary"),
        READ_A,
        READ_C,
        tab("tab_list"),
        READ_NOTES,
        tab("tab_resolve", id="R1", status="done", cite="L1"),
        WRITE,
        FINISH,
        tab("tab_show", id="L1"),
        tab("tab_resolve", id="R2", status="unavailable", reason="no notes in the workspace"),
        EDIT,
    ],
)
# B: no finish check ever; an empty tab_add (refused: nothing stated), a review of nothing, a refused citation
B = run(
    "B",
    [
        READ_A,
        tab("tab_add", text=" "),
        tab("tab_list"),
        tab("tab_resolve", id="R1", status="done", cite="L1"),
        WRITE,
    ],
    model="m2",
    variant="no-finish-check",
)
# C: no-review: tab_list gives the plain listing (L1 shown, but beside no requirement); R1 done citing L1 is
# accepted, yet L1 was never reviewed. All resolved, so no finish check.
C = run(
    "C",
    [
        LS,
        tab("tab_add", text="total amount of a"),
        READ_A,
        tab("tab_list"),
        tab("tab_resolve", id="R1", status="done", cite="L1"),
    ],
    model="m2",
    variant="no-review",
)
# D: a requirement before the finish check, the review only after it, no edit after it
D = run("D", [READ_C, tab("tab_add", text="total amount of a"), FINISH, tab("tab_list")])
DCI = run("E", [READ_A, WRITE], method="DCI")


def test_reviewed_entries_parses_the_review_only() -> None:
    (a_list,) = [s.output for s in A.steps if s.tool == "tab_list"]
    (c_list,) = [s.output for s in C.steps if s.tool == "tab_list"]
    assert "  L1 data/a.csv (step 3) — " in a_list and read_reply("tab_list", a_list).reviewed == {"L1"}
    # L2 (c.csv: month, value, jan) shares no term with either requirement: never shown beside one
    assert "L2" not in read_reply("tab_list", a_list).reviewed
    assert "  L1 data/a.csv (step 2)" in c_list and read_reply("tab_list", c_list).reviewed == set()


def test_flags_by_hand() -> None:
    styles = operating_styles([A, B, C, D, DCI])
    assert list(styles.columns) == list(STYLE_COLUMNS)
    assert styles["trajectory"].tolist() == ["A", "B", "C", "D"]  # DCI is not a RunningTab attempt
    got = styles.set_index("trajectory")
    na = pd.NA
    expected = {
        #    req    review cited  tab>F  edit>F show   cand   finish
        "A": [True, True, True, True, True, True, True, True],
        "B": [False, True, False, na, na, False, False, False],
        "C": [True, True, False, na, na, False, False, False],
        "D": [True, False, False, True, False, False, False, True],
    }
    for tid, flags in expected.items():
        row = got.loc[tid, list(FLAGS)].tolist()
        assert [x is na if f is na else x == f for x, f in zip(row, flags, strict=True)] == [True] * 8, tid
    # distinct files: A read a.csv, c.csv and notes.txt; B and C a.csv; D c.csv
    assert got["n_files"].tolist() == [3, 1, 1, 1]
    assert got.loc["C", "variant"] == "no-review" and got.loc["A", "variant"] is None


def test_replays_supply_files_read() -> None:
    r = replay(A, requirements="trajectory")
    assert r.tab.files_read == 3
    r.trajectory_id = "A"
    fake = replay(B)  # one file, given as A's replay: n_files now comes from it
    fake.trajectory_id = "A"
    assert operating_styles([A], [fake]).loc[0, "n_files"] == 1
    assert operating_styles([A], [r]).loc[0, "n_files"] == 3


def test_listed_candidate_rule() -> None:
    (listing,) = [s for s in A.steps if s.tool == "tab_list"]
    # the review offers notes.txt beside R2 (it shares "notes"); b.csv shares no term with either requirement
    assert read_reply("tab_list", listing.output or "").offered == ("data/notes.txt",)
    assert offered_candidates(A.steps) == {"data/notes.txt": listing.index}
    assert reading_pass(A, offered=offered_candidates(A.steps))[:2] == (3, True)
    # offered after the read, or never offered: not opened through the tab
    assert reading_pass(A, offered={"data/notes.txt": 99})[:2] == (3, False)
    assert reading_pass(A)[:2] == (3, False)
    # the plain listing of the no-review ablation offers nothing
    assert offered_candidates(C.steps) == {}


def test_summary_by_hand() -> None:
    summary = styles_summary(operating_styles([A, B, C, D]))
    assert list(summary.columns) == ["model", *SUMMARY_COLUMNS]
    s = summary.set_index(["model", "flag"])
    # m1 = A, D: review before the check 1 of 2; after-check flags defined for both (both got one)
    assert s.loc[("m1", "review_before_finish"), ["value", "n_true", "n"]].tolist() == [0.5, 1, 2]
    assert s.loc[("m1", "tab_after_finish"), ["value", "n"]].tolist() == [1.0, 2]
    assert s.loc[("m1", "edited_after_finish"), "value"] == 0.5
    # m2 = B, C: no finish check in either, so the after-check shares are undefined (n = 0)
    assert (
        math.isnan(s.loc[("m2", "tab_after_finish"), "value"]) and s.loc[("m2", "tab_after_finish"), "n"] == 0
    )
    assert s.loc[("m2", "requirements_before_finish"), "value"] == 0.5
    assert s.loc[("m2", "opened_candidate"), "value"] == 0 and s.loc[("m2", "finish_check"), "value"] == 0
    # median distinct files: m1 A 2, D 1 -> 1.5; m2 1, 1 -> 1
    assert s.loc[("m1", "n_files"), ["statistic", "value", "n"]].tolist() == ["median", 2.0, 2]
    assert s.loc[("m2", "n_files"), "value"] == 1
    overall = styles_summary(operating_styles([A, B, C, D]), by=[])
    assert overall.set_index("flag").loc["cited_reviewed_entry", "value"] == 0.25


def test_empty_inputs() -> None:
    empty = operating_styles([DCI])
    assert empty.empty and list(empty.columns) == list(STYLE_COLUMNS)
    summary = styles_summary(empty)
    assert summary.empty and list(summary.columns) == ["model", *SUMMARY_COLUMNS]


# ---------------------------------------------------------------------------------------------------------
# "Edited the deliverable after the finish check": every way a step writes the file, from capture


def _bash(command: str, output: str = "") -> tuple[str, str, dict[str, str], str]:
    return ("bash", command, {"command": command}, output)


SHELL_EDITS = {
    "heredoc": "cat > out/report.md <<'EOF'\n# Report\ntotal amount 100\nEOF",
    "redirect": "echo 'total amount: 100' >> out/report.md",
    "sed -i": "sed -i 's/TBD/100/' out/report.md",
    "cp": "cp /tmp/draft.md out/report.md",
    "mv": "mv /tmp/draft.md out/report.md",
    "tee": "printf 'total 100\\n' | tee -a out/report.md",
    "script saving the xlsx": (
        "python3 -c \"import openpyxl; wb = openpyxl.Workbook(); wb.active['A1'] = 100; wb.save('out/report.xlsx')\""
    ),
}


@pytest.mark.parametrize("how", sorted(SHELL_EDITS))
def test_a_shell_edit_after_the_finish_check_is_an_edit(how: str) -> None:
    # D's steps (no edit after its finish check), then the edit by a shell command: edited after the check
    t = run("E", [READ_C, tab("tab_add", text="total amount of a"), FINISH, _bash(SHELL_EDITS[how])])
    assert reading_pass(t).writes[-1][2] == ("out/report.xlsx" if "xlsx" in how else "out/report.md"), how
    (row,) = operating_styles([t]).to_dict(orient="records")
    assert row["edited_after_finish"] is True, how
    # the same edit before the finish check: not after it
    early = run("F", [READ_C, tab("tab_add", text="total amount of a"), _bash(SHELL_EDITS[how]), FINISH])
    assert operating_styles([early]).loc[0, "edited_after_finish"] == False  # noqa: E712 (a pandas boolean)


def test_only_writes_onto_a_delivered_file_count_when_the_run_names_its_deliverable() -> None:
    from rtlab.records import DeliverableFile

    scratch = _bash("cat > /tmp/fix.py <<'EOF'\nprint(1)\nEOF")
    t = run("G", [READ_C, tab("tab_add", text="total amount of a"), FINISH, scratch])
    # no delivered file recorded: any write counts (the scratch script included)
    assert operating_styles([t]).loc[0, "edited_after_finish"] == True  # noqa: E712
    t.deliverable.files.append(DeliverableFile(path="/workspace/out/report.md"))
    # report.md delivered: /tmp/fix.py is not it, so nothing was edited after the check
    assert operating_styles([t]).loc[0, "edited_after_finish"] == False  # noqa: E712
    t.steps.append(typed(Step(index=4, tool="bash", command="sed -i 's/a/b/' out/report.md",
                              args={"command": "sed -i 's/a/b/' out/report.md"}, output="", shown="", seq=9)))  # fmt: skip
    # the same name as the delivered file (compared by name_key): an edit after the check
    assert operating_styles([t]).loc[0, "edited_after_finish"] == True  # noqa: E712

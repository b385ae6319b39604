"""Codebook 2 on hand-made runs of the kinds the shared real runs lack: a value shown in a CSV and missing from
an empty template deliverable, a date shown and changed, five records shown and two delivered, an item about
the output folder in a task with an unopened file; and the anchor parser those rules read."""

from __future__ import annotations

import pandas as pd
import pytest

from rtlab.analysis import diagnose, load_codebook
from rtlab.environment import replay
from rtlab.records import (
    Action,
    Deliverable,
    DeliverableFile,
    ItemResult,
    Judgement,
    RubricItem,
    Step,
    Task,
    Trajectory,
)
from rtlab.text import AnchorIndex, find_anchors

RECORDS = (
    "invoice_id,client,date,amount\n"
    "FA-2023-001,Alice Wong,2023-03-05,$45\n"
    "FA-2023-002,Bob Li,2023-03-09,$120\n"
    "FA-2023-003,Chen Yu,2023-04-01,$78\n"
    "FA-2023-004,Dana Roy,2023-04-11,$310\n"
    "FA-2023-005,Eve Park,2023-05-02,$66\n"
)
TEMPLATE = "invoice_id,client,date,amount\n"  # the template the agent was to fill, delivered empty
SUMMARY = "# Invoices\n\nFA-2023-001 Alice Wong, 2023-03-15.\nFA-2023-002 Bob Li.\n"

ITEMS = [
    ("Does invoices.csv list invoice FA-2023-001 of Alice Wong for $45?", "No evidence of this invoice."),
    ("Is the date of FA-2023-001 given as March 5, 2023?", "The date is not correct."),
    (
        "Are all five records FA-2023-001, FA-2023-002, FA-2023-003, FA-2023-004 and FA-2023-005 reported?",
        "Only some records appear.",
    ),
    ("Is the result saved in the output folder?", "No file found in the output folder."),
]


def make_run(files: list[DeliverableFile]) -> Trajectory:
    calls = [
        ("ls data", "records.csv\nclient_notes.docx\n"),
        ("cat data/records.csv", RECORDS),
        ("python fill.py", "done\n"),
    ]
    steps = [
        Step(i, "shell", cmd, output=out, shown=out, seq=i, action=Action.shell(cmd))
        for i, (cmd, out) in enumerate(calls)
    ]
    task = Task(
        id="inv",
        benchmark="workspace-bench",
        instruction="Fill invoices.csv from the records and write a summary.",
        rubric=[RubricItem(index=i, text=t, type="Outcome Evaluation") for i, (t, _) in enumerate(ITEMS)],
        expected_outputs=["invoices.csv", "summary.md"],
        source_files=["records.csv", "client_notes.docx"],  # client_notes.docx is listed, never opened
    )
    judgement = Judgement(
        items=[ItemResult(index=i, passed=False, evidence=e) for i, (_, e) in enumerate(ITEMS)]
    )
    return Trajectory(
        id="fx:inv",
        format="codex",
        source_path="/nowhere",
        cwd="/ws",
        steps=steps,
        deliverable=Deliverable(final_message=None, files=files),
        task=task,
        judgement=judgement,
    )


NO_VALUES = pd.DataFrame(
    columns=[
        "trajectory",
        "rubric_index",
        "passed",
        "value",
        "number",
        "shown",
        "shown_step",
        "shown_path",
        "delivered",
        "held",
    ]
)


def labels(files: list[DeliverableFile]) -> dict[int, tuple[str, str, str | None]]:
    t = make_run(files)
    return {
        lab.rubric_index: (lab.rule, lab.category, lab.subreason) for lab in diagnose(t, replay(t), NO_VALUES)
    }


def test_value_shown_in_a_csv_missing_from_an_empty_template() -> None:
    got = labels(
        [
            DeliverableFile(path="invoices.csv", content=TEMPLATE, size=len(TEMPLATE)),
            DeliverableFile(path="summary.md", content="# Invoices\n", size=11),
        ]
    )
    # FA-2023-001, Alice Wong and $45 were shown at step 1 and the template was delivered empty: under codebook 1
    # the item named no file, so it was attributed to every source and client_notes.docx (unopened) made it
    # discovery; under 2 it needs records.csv, where its anchors were shown
    assert got[0] == ("R10b", "shown_but_missing", None)


def test_a_date_shown_and_changed_and_records_partly_delivered() -> None:
    got = labels([DeliverableFile(path="summary.md", content=SUMMARY, size=len(SUMMARY))])
    # shown 2023-03-05 (the item writes it March 5, 2023), delivered 2023-03-15: same year and month, altered
    assert got[1] == ("R10a", "dropped_or_distorted", None)
    # five codes shown, two delivered: partial
    assert got[2] == ("R10a", "dropped_or_distorted", None)
    # also item 0: FA-2023-001 and Alice Wong delivered, $45 shown and missing: partial
    assert got[0] == ("R10a", "dropped_or_distorted", None)


def test_an_item_about_the_output_folder_is_never_discovery() -> None:
    got = labels([DeliverableFile(path="summary.md", content=SUMMARY, size=len(SUMMARY))])
    # client_notes.docx was never opened, but the item needs no source file: format / instructions
    assert got[3] == ("R5", "other", "format_instructions")


def test_codebook_2_rules_and_change_log() -> None:
    cb = load_codebook()
    assert [cb.rule(r).category for r in ("R10a", "R10b", "R10c")] == [
        "dropped_or_distorted",
        "shown_but_missing",
        "other",
    ]
    assert "no_source_words" in cb.lexicon.lists and len(cb.changes) >= 3
    from importlib import resources

    v1 = load_codebook(resources.files("rtlab.analysis").joinpath("codebook_v1.json"))  # type: ignore[arg-type]
    assert v1.version == "rtlab-codebook/1.1" and not any(c.startswith("2.0") for c in v1.changes)


@pytest.mark.parametrize(
    ("text", "kind", "keys"),
    [
        ("invoice FA-2023-001 is due", "code", ("FA-2023-001",)),
        ("release V5.15 by", "code", ("V5.15",)),
        ("on March 5, 2023.", "date", ("2023-03-05",)),
        ("on 5 March 2023.", "date", ("2023-03-05",)),
        ("on 2023/3/5.", "date", ("2023-03-05",)),
        ("on 2023年3月5日", "date", ("2023-03-05",)),
        ("on 05/03/2023", "date", ("2023-03-05", "2023-05-03")),  # day-month, then month-day
        ("costs $45 now", "money", ("money",)),
        ("costs RMB 20 now", "money", ("money",)),
        ("weighs 12 kg", "quantity", ("kg",)),
        ("took 3 days", "quantity", ("day",)),
        ("owner Product Manager 4 signs", "name", ("product manager 4",)),
    ],
)
def test_anchor_kinds(text: str, kind: str, keys: tuple[str, ...]) -> None:
    (a,) = find_anchors(text)
    assert (a.kind, a.keys) == (kind, keys)
    assert text[a.start : a.end] == a.text


def test_anchor_matching_and_near_misses() -> None:
    index = AnchorIndex(
        "Invoice fa-2023-001 on 2023-03-07 for USD 45.00, 12kg, product  manager 4; FA-2023-009"
    )
    code, date, money, qty, name = find_anchors("FA-2023-001 March 5, 2023 $45 12 kg Product Manager 4")
    assert all(index.find(a) is not None for a in (code, money, qty, name))
    assert index.find(date) is None and index.near_miss(date).text == "2023-03-07"  # same year and month
    (other,) = find_anchors("FA-2023-004")
    assert (
        index.find(other) is None and index.near_miss(other).text == "FA-2023-009"
    )  # same shape, other digits
    assert AnchorIndex("2024-08-30").near_miss(date) is None  # another year: not an alteration
    # a question word does not start a name; one capitalised word is no name
    assert [a.text for a in find_anchors("Does Development Engineer 2 lead? Alice leads.")] == [
        "Development Engineer 2"
    ]


def test_anchors_frame_reports_shown_delivered_altered_held() -> None:
    from rtlab.analysis import anchors_frame, value_summary

    files = [
        DeliverableFile("summary.md", content=SUMMARY),
        DeliverableFile("invoices.csv", content=TEMPLATE),
    ]
    t = make_run(files)
    frame = anchors_frame([t], [replay(t)])
    got = {
        (int(r.rubric_index), r.value): (r.kind, bool(r.shown), bool(r.delivered), r.altered, bool(r.held))
        for r in frame.itertuples()
    }
    # item 1's date: shown in records.csv (step 1), delivered as 2023-03-15, a near miss
    assert got[(1, "March 5, 2023")] == ("date", True, False, "2023-03-15", True)
    # item 2's records: 001 and 002 delivered, 003-005 shown and missing
    assert [got[(2, f"FA-2023-00{i}")][2] for i in range(1, 6)] == [True, True, False, False, False]
    assert all(got[(2, f"FA-2023-00{i}")][1] for i in range(1, 6))
    # item 0's amount $45 is shown, not delivered (the template is empty)
    assert got[(0, "$45")][:3] == ("money", True, False)
    summary = value_summary(frame)
    # ten anchors (3 in item 0, 2 in item 1, 5 in item 2; item 3 names only a folder), all shown in records.csv;
    # delivered: FA-2023-001 three times (items 0, 1, 2), Alice Wong, FA-2023-002 = 5
    assert (summary["values"], summary["shown"], summary["delivered"], summary["held"]) == (10, 10, 5, 10)
    assert summary["share_shown_missing"] == 0.5  # 5 of the 10 shown are not delivered


def test_a_long_text_is_searched_around_probes_with_the_same_answers() -> None:
    from rtlab.text._anchors import LONG_TEXT

    # a long shown text (over LONG_TEXT) with anchors of every kind among filler that has the probes too
    filler = "Revenue rose 12% in 2023; the 2024 plan lists $5 items per employee. " * 1200
    text = (
        filler
        + "Invoice FA-2023-001 of Alice Wong, dated March 5, 2023, for $45 and 12 kg; 50.4% done by Product Manager 4."
        + filler
    )
    assert len(text) > LONG_TEXT
    probes = find_anchors(
        "FA-2023-001; Alice Wong; 2023-03-05; $45; 12 kg; 50.4%; Product Manager 4; FA-2023-009; 2023-03-06; $46; 13 kg"
    )
    windowed, whole = AnchorIndex(text), AnchorIndex(text)
    whole._anchors  # noqa: B018 - read whole first: the short-text path
    for a in probes:
        w, f = windowed.find(a), whole.find(a)
        assert (w is None) == (f is None), a
        if w is not None and f is not None:
            assert (w.kind, w.text, w.start, w.end) == (f.kind, f.text, f.start, f.end), a
    found = [a.text for a in probes if windowed.find(a) is not None]
    assert found == ["FA-2023-001", "Alice Wong", "2023-03-05", "$45", "12 kg", "50.4%", "Product Manager 4"]

"""The labeler on a hand-made run: one rubric item per codebook rule, with injected values frames."""

from __future__ import annotations

import json

import pandas as pd
import pytest
from conftest import ROOT

from rtlab.analysis import CATEGORIES, CODEBOOK_VERSION, load_codebook
from rtlab.analysis._diagnose import (
    MIN_CONTENT_CHARS,
    breakdown,
    content_id,
    diagnose,
    diagnose_frame,
    failed_items,
    label_to_dict,
    opens_file,
    referred_files,
    same_file,
    task_sources,
)
from rtlab.environment import ReadEntry, replay
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
from rtlab.text import name_key

SOURCES = ["sales_2024.csv", "budget_plan.xlsx", "3f2a9c0d1e4b5a67_minutes_3.txt", "q3_outlook.md"]
SALES = "region,revenue,growth\nNorth,1,234.5,12.5%\nSouth,3,200,-4.1%\nTotal revenue 4,434.5 in 2024\n"
MEMO = "Meeting minutes 3\nThe board noted: revenue recovered in Q4 after the spring slump; no new hires.\n"
REPORT = (
    "# Regional Revenue Review\n\nNorth 1,234.5 and South 3,200. Growth 15.2% year on year.\n"
    "North leads the regions. South declined.\n"
)

# (rubric text, type, judge passed, judge evidence); the index is the position.
ITEMS = [
    (
        "Does the report state the total revenue of 4,434.5 from sales_2024.csv?",
        "Outcome Evaluation",
        False,
        "No evidence of the total revenue in the report.",
    ),
    (
        "Are the North revenue 1,234.5 and the South revenue 3,200 of sales_2024.csv both reported?",
        "Outcome Evaluation",
        True,
        "Both present.",
    ),
    (
        "Does the report give the budget_plan.xlsx total of 9,870?",
        "Outcome Evaluation",
        False,
        "The budget total is not found.",
    ),
    ("Is the output worksheet named `Summary`?", "Basic Evaluation", False, "The sheet is called Sheet1."),
    (
        "Is the average regional revenue in sales_2024.csv 2,217.25?",
        "Outcome Evaluation",
        False,
        "No average is given; cannot be verified.",
    ),
    (
        "Does the report give the South revenue of 3,200 from sales_2024.csv?",
        "Outcome Evaluation",
        False,
        "No evidence of the South revenue; the excerpt was truncated.",
    ),
    (
        "Is the North growth rate in sales_2024.csv 12.5%?",
        "Outcome Evaluation",
        False,
        "The report gives 15.2%, which does not match 12.5%.",
    ),
    (
        "Is the total revenue in sales_2024.csv 4,443.5?",
        "Outcome Evaluation",
        False,
        "The source total is 4,434.5; the rubric incorrectly lists 4,443.5.",
    ),
    (
        "Was the source file sales_2024.csv located and opened?",
        "Basic Evaluation",
        False,
        "The source file was not found in the trace.",
    ),
    (
        'Does the report quote "revenue recovered in Q4" from minutes_3.txt?',
        "Process Evaluation",
        False,
        "The quote is missing.",
    ),
    (
        'Does the summary of sales_2024.csv say "No risks identified"?',
        "Process Evaluation",
        False,
        "Not present.",
    ),
    (
        'Does the report on sales_2024.csv include the sentence "North leads the regions"?',
        "Process Evaluation",
        False,
        "No evidence of this sentence.",
    ),
    (
        "Does the report describe the South trend of sales_2024.csv correctly?",
        "Outcome Evaluation",
        False,
        "The report says South declined, which is inconsistent with the source.",
    ),
    (
        "Are the regions of sales_2024.csv sorted by revenue in descending order?",
        "Process Evaluation",
        False,
        "No evidence of the order.",
    ),
    (
        "Does the report discuss the regional context of sales_2024.csv?",
        "Process Evaluation",
        False,
        "The content is missing.",
    ),
    (
        "Does the report give the Q3 outlook of 5,500 from q3_outlook.md?",
        "Outcome Evaluation",
        False,
        "No outlook figure.",
    ),
    (
        "Is the North revenue of sales_2024.csv and its growth of 12.5% reported together with 1,234.5?",
        "Outcome Evaluation",
        False,
        "Only part of it is reported.",
    ),
]
EXPECTED = {
    0: ("R9", "shown_but_missing", None),
    2: ("R2", "discovery", None),
    3: ("R5", "other", "format_instructions"),
    4: ("R10", "other", "reasoning_computation"),
    5: ("R6", "other", "judge_error"),
    6: ("R8", "dropped_or_distorted", None),
    7: ("R3", "other", "judge_error"),
    8: ("R4", "other", "judge_error"),
    9: ("R11", "shown_but_missing", None),
    10: ("R12", "other", "format_instructions"),
    11: ("R13", "other", "judge_error"),
    12: ("R14", "dropped_or_distorted", None),
    13: ("R15", "other", "reasoning_computation"),
    14: ("R16", "other", "undetermined"),
    15: ("R2", "discovery", None),
    16: ("R7", "dropped_or_distorted", None),
}


def _steps() -> list[Step]:
    calls = [
        ("ls data", "sales_2024.csv\nbudget_plan.xlsx\nq3_outlook.md\n3f2a9c0d1e4b5a67_memo.txt\n"),
        ("cat data/sales_2024.csv", SALES),
        ("cat data/3f2a9c0d1e4b5a67_memo.txt", MEMO),
        ("cat data/q3_outlook.md", "## Outlook\n"),
        ("python make_report.py", "wrote report.md\n"),
    ]
    return [
        Step(i, "shell", cmd, output=out, shown=out, seq=i, action=Action.shell(cmd))
        for i, (cmd, out) in enumerate(calls)
    ]


def make_run(
    *,
    run_id: str = "fixture:1",
    method: str = "plain",
    files: list[DeliverableFile] | None = None,
    final: str | None = None,
    items: list[tuple[str, str, bool, str]] = ITEMS,
    judged: bool = True,
) -> Trajectory:
    """A small Workspace-Bench-like run: four source files (one listed only, one glimpsed, one under another
    name with the same content id), a markdown report and a leftover file from another task."""
    if files is None:
        files = [
            DeliverableFile(
                path="old_task_leftover.txt", content="Leftover 9,999 from another task.\n", size=33
            ),
            DeliverableFile(path="report.md", content=REPORT, size=len(REPORT)),
        ]
    task = Task(
        id="fx",
        benchmark="workspace-bench",
        instruction="Summarise regional revenue from sales_2024.csv and the budget plan into report.md.",
        rubric=[RubricItem(index=i, text=text, type=kind) for i, (text, kind, _, _) in enumerate(items)],
        expected_outputs=["report.md"],
        source_files=SOURCES[:3],
        dependency_graph=[("sales_2024.csv", "budget_plan.xlsx"), ("budget_plan.xlsx", "q3_outlook.md")],
    )
    judgement = Judgement(
        items=[ItemResult(index=i, passed=ok, evidence=ev) for i, (_, _, ok, ev) in enumerate(items)]
    )
    return Trajectory(
        id=run_id,
        format="codex",
        source_path="/nowhere",
        cwd="/ws",
        method=method,
        model="m",
        steps=_steps(),
        deliverable=Deliverable(final_message=final, files=files),
        task=task,
        judgement=judgement if judged else None,
    )


def value_row(
    run: str,
    index: int,
    value: str,
    number: float,
    *,
    shown: bool = False,
    step: int | None = None,
    path: str | None = None,
    delivered: bool = False,
    held: bool = False,
) -> dict:
    return {
        "trajectory": run,
        "rubric_index": index,
        "passed": False,
        "value": value,
        "number": number,
        "shown": shown,
        "shown_step": pd.NA if step is None else step,
        "shown_path": pd.NA if path is None else path,
        "delivered": delivered,
        "held": held,
    }


def values_for(run: str = "fixture:1") -> pd.DataFrame:
    """What values_frame would give for the fixture, written by hand."""
    csv = "data/sales_2024.csv"
    rows = [
        value_row(run, 0, "4,434.5", 4434.5, shown=True, step=1, path=csv, held=True),
        value_row(run, 1, "1,234.5", 1234.5, shown=True, step=1, path=csv, delivered=True, held=True),
        value_row(run, 1, "3,200", 3200, shown=True, step=1, path=csv, delivered=True, held=True),
        value_row(run, 2, "9,870", 9870),
        value_row(run, 4, "2,217.25", 2217.25),
        value_row(run, 5, "3,200", 3200, shown=True, step=1, path=csv, delivered=True, held=True),
        value_row(run, 6, "12.5%", 12.5, shown=True, step=1, path=csv, held=True),
        value_row(run, 7, "4,443.5", 4443.5),
        value_row(run, 15, "5,500", 5500),
        value_row(run, 16, "12.5%", 12.5, shown=True, step=1, path=csv, held=True),
        value_row(run, 16, "1,234.5", 1234.5, shown=True, step=1, path=csv, delivered=True, held=True),
    ]
    return pd.DataFrame(rows)


@pytest.fixture(scope="module")
def labels():
    t = make_run()
    return {label.rubric_index: label for label in diagnose(t, replay(t), values_for())}


# ---------------------------------------------------------------------------------------------------------
# File names


def test_name_key_strips_folders_case_content_id_and_sidecar():
    assert name_key("data/18fec6689633b536_18fec6689633b536_Description_9.TXT") == "description_9.txt"
    assert name_key("Production/Supplier_Table.xls.extracted.md") == "supplier_table.xls"
    assert name_key("a\\b\\Ｒｅｐｏｒｔ.md") == "report.md"
    assert name_key("deadbeef_notes.txt") == "deadbeef_notes.txt"  # 8 hex digits: not a content id


def test_same_file_by_name_or_content_id():
    assert content_id("x/18fec6689633b536_notes_4.txt") == "18fec6689633b536"
    assert content_id("notes_4.txt") is None
    assert same_file("18fec6689633b536_description_9.txt", "version_management/18fec6689633b536_notes_4.txt")
    assert same_file("budget.xlsx", "desktop/finance/Budget.xlsx")
    assert not same_file("18fec6689633b536_description_9.txt", "35ccb5991494324f_notes_3.txt")
    assert not same_file("budget.xlsx", "budget_2.xlsx")


def test_task_sources_add_graph_nodes_once():
    t = make_run()
    assert task_sources(t) == SOURCES  # three manifest names, then q3_outlook.md from the graph
    assert task_sources(Trajectory(id="x", format="codex", source_path="")) == []


def test_referred_files_modes():
    sources = [
        "4-financial-table-income-expense-dashboard.xlsx",
        "5-financial-table-income-expense-profit-statement_visual-charts_.xlsx",
        "development-task-list.xlsx",
    ]
    # a shortened name whose tokens are all in one source's name
    text = "In 5-financial-table-income-expense-profit-statement.xlsx, is the Top 1 expense 3000?"
    assert referred_files(text, sources, format_item=False) == ([sources[1]], "named")
    # tokens of a name, no file name written
    assert referred_files(
        "Is every row of the development task list counted?", sources, format_item=False
    ) == (
        [sources[2]],
        "tokens",
    )
    # a format item that names no file needs none; any other item falls back to every source
    assert referred_files("Is the sheet named Summary?", sources, format_item=True) == ([], "format")
    assert referred_files("Is the total 120?", sources, format_item=False) == (sources, "all")
    # a deliverable's name is not a source
    assert referred_files("Does `report.doc` cover all versions?", sources, format_item=False)[1] == "all"


def test_opens_file_needs_content_beyond_path_and_heading():
    path = "desktop/2-financial-analysis-tables/4-financial-table-income-expense-dashboard.xlsx"
    glimpse = ReadEntry("L1", 0, path, "semfs grep", f"/{path}:## Income Expense Dashboard")
    assert not opens_file(glimpse)
    content = ReadEntry(
        "L2", 1, path, "cat", "Date,Item,Amount\n2021-01-01,Project 1,140\n2021-02-02,Project 2,150"
    )
    assert opens_file(content)
    assert MIN_CONTENT_CHARS == 40


# ---------------------------------------------------------------------------------------------------------
# Rules, one item each


def test_failed_items_are_labelled_and_passed_ones_are_not(labels):
    assert sorted(labels) == sorted(EXPECTED)
    assert 1 not in labels  # passed


@pytest.mark.parametrize("index", sorted(EXPECTED))
def test_each_rule(labels, index):
    label = labels[index]
    assert (label.rule, label.category, label.subreason) == EXPECTED[index]
    assert label.rationale.startswith(f"{label.rule}: ")
    assert label.codebook_version == CODEBOOK_VERSION
    assert label.category in CATEGORIES
    for e in label.evidence:
        assert set(e) == {"step", "path", "excerpt"}
        assert len(e["excerpt"]) <= 202  # 200 characters and the cut marks


def test_shown_but_missing_cites_read_log_entry_and_report(labels):
    ev = labels[0].evidence
    assert ev[0]["step"] == 1 and ev[0]["path"] == "data/sales_2024.csv"
    assert "4,434.5" in ev[0]["excerpt"]
    # nothing delivered: the head of the run's own report (ranked before the leftover file)
    assert ev[-1] == {"step": None, "path": "report.md", "excerpt": ev[-1]["excerpt"]}
    assert ev[-1]["excerpt"].startswith("# Regional Revenue Review")
    assert "held" in labels[0].rationale


def test_discovery_cites_the_listing_step(labels):
    label = labels[2]
    assert "budget_plan.xlsx listed at step 0 as data/budget_plan.xlsx, never opened" in label.rationale
    assert label.evidence[0]["step"] == 0 and label.evidence[0]["path"] == "data/budget_plan.xlsx"
    assert "budget_plan.xlsx" in label.evidence[0]["excerpt"]


def test_discovery_through_a_glimpse(labels):
    label = labels[15]
    assert "seen only as a path and heading at step 3" in label.rationale
    assert label.evidence[0] == {"step": 3, "path": "data/q3_outlook.md", "excerpt": "## Outlook"}


def test_content_id_opens_a_file_under_another_name(labels):
    label = labels[9]  # minutes_3.txt was read as data/3f2a9c0d1e4b5a67_memo.txt
    assert "3f2a9c0d1e4b5a67_minutes_3.txt opened at step 2" in label.rationale
    assert label.evidence[0]["step"] == 2
    assert "revenue recovered in Q4" in label.evidence[0]["excerpt"]


def test_dropped_cites_the_delivered_part(labels):
    ev = labels[16].evidence
    delivered = [e for e in ev if e["step"] is None]
    assert delivered and delivered[0]["path"] == "report.md" and "1,234.5" in delivered[0]["excerpt"]


def test_judge_error_cites_the_delivered_value(labels):
    hits = [e for e in labels[5].evidence if e["step"] is None]
    assert hits[0]["path"] == "report.md" and "3,200" in hits[0]["excerpt"]
    assert "truncated" in labels[5].rationale


def test_quoted_text_delivered_is_cited(labels):
    assert labels[11].evidence[-1]["path"] == "report.md"
    assert "North leads the regions" in labels[11].evidence[-1]["excerpt"]


def test_missing_deliverable_comes_first():
    t = make_run(files=[], final="  ")
    labels = diagnose(t, replay(t), values_for())
    assert {(x.rule, x.category, x.subreason) for x in labels} == {("R1", "other", "missing_deliverable")}
    assert labels[0].evidence == [{"step": 4, "path": None, "excerpt": "wrote report.md"}]


def test_final_message_alone_is_a_deliverable():
    t = make_run(files=[], final="The total revenue is 4,434.5.")
    labels = {x.rubric_index: x for x in diagnose(t, replay(t), values_for())}
    assert labels[3].rule == "R5"
    assert labels[3].evidence[-1]["path"] == "final_message"


def test_no_judgement_no_labels():
    t = make_run(judged=False)
    assert failed_items(t) == []
    assert diagnose(t, replay(t), values_for()) == []


def test_labels_are_deterministic_and_json_ready(labels):
    t = make_run()
    again = {x.rubric_index: x for x in diagnose(t, replay(t), values_for())}
    assert again == labels
    for label in labels.values():
        data = json.loads(json.dumps(label_to_dict(label)))
        assert {"trajectory", "rubric_index", "category", "codebook_version", "evidence"} <= set(data)


def test_a_value_without_a_number_is_located_literally():
    """A value row whose text is not a number still cites where it stands."""
    t = make_run()
    frame = values_for()
    frame.loc[frame["rubric_index"] == 0, "value"] = "Total revenue"
    label = next(x for x in diagnose(t, replay(t), frame) if x.rubric_index == 0)
    assert "Total revenue" in label.evidence[0]["excerpt"]


# ---------------------------------------------------------------------------------------------------------
# Frames and breakdown


@pytest.fixture(scope="module")
def frame():
    runs = [make_run(run_id="fixture:1", method="plain"), make_run(run_id="fixture:2", method="tab")]
    values = pd.concat([values_for("fixture:1"), values_for("fixture:2")], ignore_index=True)
    return diagnose_frame(runs, [replay(t) for t in runs], values=values)


def test_diagnose_frame_has_grouping_columns(frame):
    assert len(frame) == 2 * len(EXPECTED)
    assert set(frame["method"]) == {"plain", "tab"}
    assert (frame["codebook_version"] == CODEBOOK_VERSION).all()
    assert frame.loc[frame["rubric_index"] == 3, "rubric_type"].tolist() == ["Basic Evaluation"] * 2
    assert (frame["n_evidence"] == frame["evidence"].map(len)).all()


def test_breakdown_counts_and_shares(frame):
    table = breakdown(frame, by=["method"])
    plain = table[table["method"] == "plain"].set_index("category")
    # R9 + R11 / R7 + R8 + R14 / R2 x2 / the other ten
    assert plain["lost"].to_dict() == {
        "shown_but_missing": 2,
        "dropped_or_distorted": 3,
        "discovery": 2,
        "other": 9,
    }
    assert plain["share"].sum() == pytest.approx(1.0)
    assert plain.loc["dropped_or_distorted", "share"] == pytest.approx(3 / 16)
    assert (plain["group_lost"] == 16).all()
    assert list(plain.index) == list(CATEGORIES)


def test_breakdown_overall_per_trajectory_and_subreasons(frame):
    overall = breakdown(frame, by=[])
    assert overall["lost"].sum() == 32 and list(overall["category"]) == list(CATEGORIES)
    per_run = breakdown(frame, by=["trajectory"])
    assert len(per_run) == 2 * len(CATEGORIES)
    sub = breakdown(frame, by=["method"], level="subreason")
    plain = sub[sub["method"] == "plain"].set_index("subreason")["lost"].to_dict()
    assert plain["other/judge_error"] == 4
    assert plain["other/format_instructions"] == 2
    assert plain["other/reasoning_computation"] == 2
    assert plain["other/undetermined"] == 1
    assert plain["other/missing_deliverable"] == 0  # every sub-reason listed, zeros included
    assert sum(plain.values()) == 16


def test_breakdown_of_groups_with_zero_in_a_category(frame):
    only_discovery = frame[frame["category"] == "discovery"]
    table = breakdown(only_discovery, by=["method"])
    assert table.groupby("method")["lost"].sum().to_dict() == {"plain": 2, "tab": 2}
    assert table[table["category"] == "other"]["lost"].tolist() == [0, 0]


def test_breakdown_rejects_unknown_level(frame):
    with pytest.raises(ValueError, match="level"):
        breakdown(frame, level="rule")


def test_codebook_lists_every_rule_the_labeler_uses(labels):
    ids = [r.id for r in load_codebook().rules]
    assert {x.rule for x in labels.values()} <= set(ids)


def test_a_quoted_name_the_deliverable_replaced_is_a_distortion() -> None:
    """Codebook 1.1: R11 (shown but missing) yields to R14 when the judge says the deliverable states another
    name; the case the simulated world exposed (its cause is known there)."""
    from rtlab.analysis import ItemFacts, decide
    from rtlab.environment import ReadEntry

    def facts(judge: str, says: dict[str, list[str]]) -> ItemFacts:
        return ItemFacts(
            rubric_index=0,
            text='Names "Project Wagtail" as the recommended profile (source: load_test.md).',
            type=None,
            sources=["load_test.md"],
            referred=["load_test.md"],
            ref_mode="named",
            opened={"load_test.md": [ReadEntry("L1", 3, "load_test.md", "cat load_test.md", "...")]},
            glimpsed={},
            listed={},
            values=[],
            quotes=["Project Wagtail"],
            quotes_shown=[True],
            quotes_delivered=[False],
            format_item=False,
            access_item=False,
            reasoning_item=False,
            judge_evidence=judge,
            judge_says=says,
            has_deliverable=True,
        )

    missing = facts("No evidence of Project Wagtail; not found.", {"absent": ["no evidence", "not found"]})
    replaced = facts("The deliverable gives Project Avocet, not Project Wagtail.", {"mismatch": [", not P"]})
    assert decide(missing)[:2] == ("R11", "shown_but_missing")
    assert decide(replaced)[:2] == ("R14", "dropped_or_distorted")
    never_shown = facts("No evidence of Project Wagtail.", {"absent": ["no evidence"]})
    never_shown.quotes_shown = [False]
    assert decide(never_shown)[:2] == ("R12", "other")


def test_diagnosis_rows_are_the_frame_rows_of_the_replayed_trajectory() -> None:
    # what a worker sends back with replay_paths(each=diagnosis_rows): the rows diagnose_frame makes, and a
    # pickled replay leaves its trajectory behind (the worker already used it)
    import pickle

    from rtlab.analysis._diagnose import diagnose_frame, diagnosis_rows, labels_frame
    from rtlab.environment import replay
    from rtlab.ingest import ingest

    runs = ingest([ROOT / "data" / "sample"]).trajectories
    replays = [replay(t) for t in runs]
    rows = [row for r in replays for row in diagnosis_rows(r)]
    assert len(rows) == 2
    pd.testing.assert_frame_equal(labels_frame(rows), diagnose_frame(runs, replays))
    assert replays[0].trajectory is runs[0]
    assert pickle.loads(pickle.dumps(replays[0])).trajectory is None

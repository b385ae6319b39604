"""The value table on the 15 real Workspace-Bench Codex runs: totals pinned, rows checked by hand."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from rtlab.analysis import deliverable_text, expected_values, value_summary, values_frame
from rtlab.environment import replay
from rtlab.ingest import ingest
from rtlab.records import Trajectory


@pytest.fixture(scope="module")
def runs(real: Path) -> Path:
    return real / "workspace-bench" / "codex-gpt-5.4-runs"


@pytest.fixture(scope="module")
def trajectories(runs: Path) -> dict[str, Trajectory]:
    result = ingest([runs])
    assert not result.failures
    return {t.id: t for t in result.trajectories}


@pytest.fixture(scope="module")
def frame(trajectories: dict[str, Trajectory]) -> pd.DataFrame:
    runs = list(trajectories.values())
    return values_frame(runs, [replay(t) for t in runs])


def row(frame: pd.DataFrame, run: str, index: int, value: str) -> pd.Series:
    (i,) = frame.index[
        (frame["trajectory"] == f"codex:{run}") & (frame["rubric_index"] == index) & (frame["value"] == value)
    ]
    return frame.loc[i]


def step_shown(t: Trajectory, index: int) -> str:
    (step,) = [s for s in t.steps if s.index == index]
    return step.shown or ""


def xlsx_values(path: Path) -> set[object]:
    from openpyxl import load_workbook

    wb = load_workbook(path, data_only=True, read_only=True)
    try:
        return {v for ws in wb.worksheets for r in ws.iter_rows(values_only=True) for v in r if v is not None}
    finally:
        wb.close()


def test_totals(frame: pd.DataFrame, runs: Path) -> None:
    # rows straight from the runs' metadata.json and judge files, without ingest or replay
    expected_rows, verdicts = 0, {}
    for run in sorted(p for p in runs.iterdir() if p.is_dir()):
        rubrics = json.loads((run / "output" / "metadata.json").read_text())["rubrics"]
        expected_rows += sum(len(expected_values(text)) for text in rubrics)
        (judge,) = (run / "output").glob("rubrics_judge--*.json")
        for item in json.loads(judge.read_text())["rubrics"]:
            verdicts[(f"codex:{run.name}", item["index"])] = item["passed"]
    assert len(frame) == expected_rows == 90
    for r in frame.itertuples(index=False):
        assert r.passed == verdicts[(r.trajectory, r.rubric_index)]
    # tasks 15 and 44 expect values (14 and 4 per run); task 95's 12 rubrics hold none
    assert frame.groupby("trajectory").size().to_dict() == {
        **{f"codex:15_{arm}": 14 for arm in ("cloud", "gfs_off", "gfs_on", "nokg", "plain")},
        **{f"codex:44_{arm}": 4 for arm in ("cloud", "gfs_off", "gfs_on", "nokg", "plain")},
    }
    counts = frame.groupby("trajectory")[["shown", "delivered", "held"]].sum()
    assert counts.to_dict("index") == {
        "codex:15_cloud": {"shown": 5, "delivered": 0, "held": 5},
        "codex:15_gfs_off": {"shown": 0, "delivered": 0, "held": 0},
        "codex:15_gfs_on": {"shown": 0, "delivered": 0, "held": 0},
        "codex:15_nokg": {"shown": 0, "delivered": 0, "held": 0},
        "codex:15_plain": {"shown": 12, "delivered": 8, "held": 5},
        "codex:44_cloud": {"shown": 3, "delivered": 4, "held": 0},
        "codex:44_gfs_off": {"shown": 3, "delivered": 4, "held": 0},
        "codex:44_gfs_on": {"shown": 0, "delivered": 3, "held": 0},
        "codex:44_nokg": {"shown": 0, "delivered": 3, "held": 0},
        "codex:44_plain": {"shown": 3, "delivered": 4, "held": 0},
    }
    assert int(frame["shown"].sum()) == 26
    assert int(frame["delivered"].sum()) == 26
    assert int(frame["held"].sum()) == 10
    assert (frame["held"] == frame["shown_path"].notna()).all()
    assert not (frame["held"] & ~frame["shown"]).any()  # an excerpt is part of a shown text


def test_summary(frame: pd.DataFrame) -> None:
    s = value_summary(frame)
    # 26 shown values; 9 of them missing from the deliverable: 15_cloud 576, 3200 (items 8 and 9), 2800, 2500
    # and 15_plain 3200 (items 8 and 9), 2800, 2500; all 9 are held, all 9 are of failed items
    assert (s["values"], s["shown"], s["shown_missing"], s["shown_missing_held"]) == (90, 26, 9, 9)
    assert s["share_shown_missing"] == pytest.approx(9 / 26)  # 34.6% (the paper: 19.8% of 891)
    assert s["share_missing_held"] == 1.0  # (the paper: 94.8%)
    assert (s["failed_shown_missing"], s["failed_shown_missing_held"]) == (9, 9)
    missing = frame[frame["shown"] & ~frame["delivered"]]
    assert sorted(zip(missing["trajectory"], missing["rubric_index"], missing["value"], strict=True)) == [
        ("codex:15_cloud", 7, "576"),
        ("codex:15_cloud", 8, "3200"),
        ("codex:15_cloud", 9, "2500"),
        ("codex:15_cloud", 9, "2800"),
        ("codex:15_cloud", 9, "3200"),
        ("codex:15_plain", 8, "3200"),
        ("codex:15_plain", 9, "2500"),
        ("codex:15_plain", 9, "2800"),
        ("codex:15_plain", 9, "3200"),
    ]


DASHBOARD = "desktop/2-financial-analysis-tables/4-financial-table-income-expense-dashboard.xlsx"
PROFIT = "desktop/2-financial-analysis-tables/5-financial-table-income-expense-profit-statement_visual-charts_.xlsx"
CHARTS = "desktop/2-financial-analysis-tables/6-financial-table-income-and-expense-data-visual-charts.xlsx"
DELIVERED_15 = "output/output/financial-table-key-expense-analysis-concise-version.xlsx"


def test_hand_checked_task_15(frame: pd.DataFrame, trajectories: dict[str, Trajectory], runs: Path) -> None:
    plain = trajectories["codex:15_plain"]
    plain_xlsx = xlsx_values(runs / "15_plain" / DELIVERED_15)

    # 1. 15_plain, rubric 5 "In 4-financial-table-income-expense-dashboard.xlsx, is the Top 1 expense amount
    # 534?" (judge: passed). 534 is a sum the agent computed: first shown at step 6, its own print
    # "{'Income Expense Dashboard': [('Project 2', 534.0), ...", not in any file it read (the dashboard's
    # Expense Details holds daily amounts 140, 150, ...), so not held. Delivered: the xlsx row
    # ('Income Expense Dashboard', 1, 'Project 2', 534).
    r = row(frame, "15_plain", 5, "534")
    assert (r.passed, r.shown, r.shown_step, r.held, r.delivered) == (True, True, 6, False, True)
    assert "('Project 2', 534.0)" in step_shown(plain, 6)
    assert 534 in plain_xlsx

    # 2. 15_plain, rubric 7 "... are the Top 5 expense amounts 534, 576, 436, 424, and 291 respectively?"
    # (judge: failed, "the rubric incorrectly lists the second value as 576"). 576 appears in no observation
    # of this run and not in the xlsx (which has 476).
    r = row(frame, "15_plain", 7, "576")
    assert (r.shown, r.held, r.delivered) == (False, False, False)
    assert 576 not in plain_xlsx and 476 in plain_xlsx

    # 3. 15_plain, rubric 8 "In 6-financial-table-income-and-expense-data-visual-charts.xlsx, is the Top 1
    # expense amount 3200?" (failed). 3200 is January's *income* in that file: shown at step 1, the openpyxl
    # dump "(None, 'Jan', 3200, 1200, 200, ...)", held from that file. The deliverable lists 1500, 1400, 1200.
    r = row(frame, "15_plain", 8, "3200")
    assert (r.shown, r.shown_step, r.shown_path, r.held, r.delivered) == (True, 1, CHARTS, True, False)
    assert "(None, 'Jan', 3200, 1200, 200," in step_shown(plain, 1)
    assert 3200 not in plain_xlsx and {1500, 1400, 1200} <= plain_xlsx

    # 4. 15_plain, rubric 9 "... are the Top 4 expense amounts 3200, 2800, 2500, and 1900 respectively?"
    # 1900 (year-like, kept as a list amount) is in no observation and not delivered.
    r = row(frame, "15_plain", 9, "1900")
    assert (r.shown, r.held, r.delivered) == (False, False, False)
    assert not any("1900" in (s.shown or "") for s in plain.steps)
    assert 1900 not in plain_xlsx

    # 5. 15_plain, rubric 11 "In 5-financial-table-income-expense-profit-statement.xlsx, is the Top 2 expense
    # item Item 3 with amount 1700?" (passed). First shown at step 2 as April's *income* in the profit
    # statement ('5:1700'), a coincidence the value test cannot tell from the expense sum (600 + 1100) the
    # agent computed later; held from that file. Delivered: ('Income Expense Profit Statement', 2, 'Project 3',
    # 1700).
    r = row(frame, "15_plain", 11, "1700")
    assert (r.passed, r.shown_step, r.shown_path, r.held, r.delivered) == (True, 2, PROFIT, True, True)
    assert "'4:Project 4', '5:1700'" in step_shown(plain, 2)
    assert 1700 in plain_xlsx

    # 6. 15_plain, rubric 6 "... is the Top 2 expense amount 476?" (passed): computed, printed at step 6,
    # delivered, not held (no file holds 476).
    r = row(frame, "15_plain", 6, "476")
    assert (r.passed, r.shown_step, r.held, r.delivered) == (True, 6, False, True)
    assert DASHBOARD not in set(frame.loc[frame["value"] == "476", "shown_path"].dropna())

    # 7. 15_cloud, rubric 7, value 576: shown at step 2 by chance, in `semfs grep` output of
    # flagship_store_staff_salary_structure.xlsx (a salary table cell "| 576 |"), held from it; the cloud
    # deliverable holds 1500, 1400, 1200 and category sums such as 611990.68, not 576.
    cloud_xlsx = xlsx_values(runs / "15_cloud" / DELIVERED_15)
    r = row(frame, "15_cloud", 7, "576")
    assert (r.shown_step, r.held, r.delivered) == (2, True, False)
    assert r.shown_path == "flagship_store_operations/budget_data/flagship_store_staff_salary_structure.xlsx"
    assert "| 576  |" in step_shown(trajectories["codex:15_cloud"], 2)
    assert 576 not in cloud_xlsx and 611990.68 in cloud_xlsx

    # 8. 15_gfs_off, rubric 5, value 534: the agent found no source file; its xlsx has "SOURCE INACCESSIBLE"
    # rows and zero placeholders. Not shown, not delivered.
    r = row(frame, "15_gfs_off", 5, "534")
    assert (r.shown, r.held, r.delivered) == (False, False, False)
    gfs_xlsx = xlsx_values(runs / "15_gfs_off" / DELIVERED_15)
    assert "SOURCE INACCESSIBLE" in gfs_xlsx and 534 not in gfs_xlsx


def test_hand_checked_task_44(frame: pd.DataFrame, trajectories: dict[str, Trajectory], runs: Path) -> None:
    # 9. 44_plain, rubric 1 "Does the HTML dashboard display a total of 120 tasks?" (passed). First shown at
    # step 0 by chance: `pwd && ls -la` prints "total 120". Not held (a listing, no file content). Delivered:
    # "Consolidated from 3 Excel sources · 120 tasks total" in DevTask_Dashboard.html.
    r = row(frame, "44_plain", 1, "120")
    assert (r.passed, r.shown_step, r.held, r.delivered) == (True, 0, False, True)
    assert "total 120\n" in step_shown(trajectories["codex:44_plain"], 0)
    html = (runs / "44_plain" / "output" / "output" / "DevTask_Dashboard.html").read_text(encoding="utf-8")
    assert "120 tasks total" in html

    # 10. 44_plain, rubric 9 "Does the HTML dashboard show the average progress as about 50.4%, rounded to one
    # decimal place?" (failed). The agent's script computed it straight into the page: never printed, so not
    # shown; delivered ("Average Progress ... 50.4%").
    r = row(frame, "44_plain", 9, "50.4%")
    assert (r.passed, r.shown, r.held, r.delivered) == (False, False, False, True)
    assert "50.4%" in html
    assert not any("50.4" in (s.shown or "") for s in trajectories["codex:44_plain"].steps)

    # 11. 44_cloud, rubric 1, value 120: shown at step 5, the agent's own print "TOTAL 120" after writing the
    # page; not held; delivered.
    r = row(frame, "44_cloud", 1, "120")
    assert (r.shown_step, r.held, r.delivered) == (5, False, True)
    assert "TOTAL 120" in step_shown(trajectories["codex:44_cloud"], 5)

    # 12. 44_gfs_on, rubric 9, value 50.4%: its pages are a "could not be read" notice and a partial
    # dashboard; neither holds 50.4 (nor does any observation).
    r = row(frame, "44_gfs_on", 9, "50.4%")
    assert (r.shown, r.delivered) == (False, False)
    out = runs / "44_gfs_on" / "output" / "output"
    assert not any("50.4" in p.read_text(encoding="utf-8") for p in out.glob("*.html"))

    # 13. 44_nokg, rubric 1, value 120: never shown, yet delivered: the output folder's page is a failure
    # notice, "Requested consolidation target: 120 development tasks" (the task's own number, restated).
    r = row(frame, "44_nokg", 1, "120")
    assert (r.shown, r.delivered) == (False, True)
    assert "Requested consolidation target: 120 development tasks" in deliverable_text(
        trajectories["codex:44_nokg"]
    )


def test_officeqa_values_come_from_the_answer(real) -> None:
    """OfficeQA's one rubric item is generic text; its expected values are the reference answer's numbers."""
    from rtlab import ingest
    from rtlab.analysis import value_summary, values_frame

    runs = ingest([real / "officeqa" / "g2b-gpt-5.4-traces"]).trajectories
    frame = values_frame(runs, [replay(t) for t in runs])
    assert len(frame) == 32  # every answer of these 32 questions is a single number
    # v2_branch2__oqa-91_s2 answered 19519285 for 19519306: correct within 1% but not the value itself
    row = frame[frame["trajectory"] == "g2b:v2_branch2__oqa-91_s2"].iloc[0]
    assert (row["value"], bool(row["passed"]), bool(row["delivered"])) == ("19519306", True, False)
    s = value_summary(frame)
    assert (s["shown"], s["delivered"], s["held"], s["shown_missing"], s["shown_missing_held"]) == (
        13,
        9,
        7,
        4,
        3,
    )

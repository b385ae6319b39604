"""The labeler on the 15 real Workspace-Bench runs, against labels given by hand.

Each hand label below was decided by reading the rubric item, the judge's evidence, the replayed read log
and the deliverable (xlsx opened with openpyxl, html read as text), applying the codebook's rules in order
as a human annotator. The reasoning is written above each entry; where the deliverable or the trajectory
shows something the labeler cannot read, a small raw-file check in the tests below makes the reasoning
itself verifiable. Where the labeler disagrees, the labeler's actual output is pinned and the entry says
why it differs (the evidence the labeler reads cannot settle the item); no rule was bent to a single case.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

import openpyxl
import pytest

from rtlab.analysis import CODEBOOK_VERSION, breakdown, diagnose_frame
from rtlab.environment import replay
from rtlab.ingest import ingest

RUNS = Path("workspace-bench") / "codex-gpt-5.4-runs"


@dataclass(frozen=True)
class Hand:
    run: str
    index: int
    category: str
    subreason: str | None
    labeler: tuple[str, str, str | None]
    """The labeler's (rule, category, sub-reason), pinned."""

    @property
    def agrees(self) -> bool:
        return (self.category, self.subreason) == self.labeler[1:]


HAND = [
    # 15_plain rubric 7 ("Top 5 expense amounts of file 4 are 534, 576, 436, 424, 291?"). The agent summed the
    # Expense Details sheet of 4-...-dashboard.xlsx per project (step 5 showed every row) and delivered
    # 534, 476, 436, 424, 291. Project 4's rows are 270+130+10+7+32+9+18 = 476 (checked below from the raw
    # output): the rubric's 576 is a typo, and the judge says so ("the rubric incorrectly lists the second
    # value as 576"). R3: judge/rubric error. Labeler agrees.
    Hand("15_plain", 7, "other", "judge_error", ("R3", "other", "judge_error")),
    # 15_plain rubric 8 ("Top 1 expense of file 6 is 3200?"). File 6 was opened at step 1 (monthly Income /
    # Cost / Operating Expense columns and quarterly "Expense Amount" formulas =D5+D6+D7, i.e. Q1 cost
    # 1200+900+1100 = 3200). The agent aggregated its own way, cost + operating expense per month, and
    # delivered Mar 1500 as the top item: a wrong aggregation of read values. R8 (dropped or distorted).
    # Labeler agrees (the judge: "is 1500, not 3200").
    Hand("15_plain", 8, "dropped_or_distorted", None, ("R8", "dropped_or_distorted", None)),
    # 15_plain rubric 9 (top 4 of file 6: 3200, 2800, 2500, 1900): same distortion, 1500, 1500, 1500, 1400
    # delivered. Labeler agrees (R8).
    Hand("15_plain", 9, "dropped_or_distorted", None, ("R8", "dropped_or_distorted", None)),
    # 15_plain rubric 2 (worksheet named `Top5 Expense Item Comparison Table`): openpyxl shows the sheets
    # 'Top 5 Expense Comparison' and 'Expense Bar Chart'. A naming requirement not followed: R5 format.
    # Labeler agrees.
    Hand("15_plain", 2, "other", "format_instructions", ("R5", "other", "format_instructions")),
    # 15_plain rubric 3 (headers "File name", "Expense item rank", "Expense item name", "Expense amount"): the
    # delivered header row is Source File, Rank, Expense Item, Amount. R5 format. Labeler agrees.
    Hand("15_plain", 3, "other", "format_instructions", ("R5", "other", "format_instructions")),
    # 15_plain rubric 4 (15 complete rows of data): the comparison sheet holds exactly 15 complete data rows
    # under its header (checked below). The judge found "no confirmed evidence" because its excerpt of the xlsx
    # showed bare numbers: R6's human condition holds, a judge error. The labeler cannot count rows: 15 is a
    # structural count, not a value written in the deliverable (values.py rule 4), so the item has no expected
    # value, and "header" makes it a format item: R5. Disagreement kept.
    Hand("15_plain", 4, "other", "judge_error", ("R5", "other", "format_instructions")),
    # 15_plain rubric 12 (a bar chart built from all the comparison data; at least one chart object): the
    # 'Expense Bar Chart' sheet holds a BarChart over its 15 rows (checked below). The judge read
    # "hasImage: false" from the file's metadata and saw no chart: judge error. The labeler does not open chart
    # objects inside xlsx files; "chart" makes it a format item: R5. Disagreement kept.
    Hand("15_plain", 12, "other", "judge_error", ("R5", "other", "format_instructions")),
    # 15_plain rubric 14 (a horizontal bar chart, categories on the Y axis): the chart's bar direction is
    # "bar" (horizontal in OOXML; vertical is "col"), so the item holds: judge error. Labeler R5, as above.
    Hand("15_plain", 14, "other", "judge_error", ("R5", "other", "format_instructions")),
    # 15_plain rubric 15 (table above, chart below, same worksheet): the chart is on its own sheet. The point
    # is lost on layout: R5 format. Labeler agrees.
    Hand("15_plain", 15, "other", "format_instructions", ("R5", "other", "format_instructions")),
    # 15_cloud rubric 5 (Top 1 expense of file 4 is 534): the only trace of 4-...-dashboard.xlsx is two semfs
    # search hits showing its path and the heading "## Income Expense Dashboard" (steps 0 and 3); no row of
    # it was ever shown and the deliverable has no rows for it. The file was located but never opened:
    # R2 discovery. Labeler agrees (a read-log entry with under 40 characters of content is a glimpse).
    Hand("15_cloud", 5, "discovery", None, ("R2", "discovery", None)),
    # 15_cloud rubric 8 (Top 1 expense of file 6 is 3200): file 6's table was shown at step 3 (3200 in it)
    # and the delivered xlsx lists file 6 with Mar 1500, Sep 1500, ... (cost + operating expense per month,
    # as in 15_plain): a wrong aggregation, R8 by its human condition. The judge only wrote that 3200 is not
    # there ("无任何证据显示...3200"), so the labeler, which reads mismatch from the judge's words, finds no
    # mismatch, sees 3200 shown and not delivered, and says R9 shown but missing. Disagreement kept.
    Hand("15_cloud", 8, "dropped_or_distorted", None, ("R9", "shown_but_missing", None)),
    # 15_nokg rubric 2 (worksheet name): the sheet is 'Expense Comparison'. The sources were never found,
    # but a sheet name needs none of them: R5 format. Labeler agrees.
    Hand("15_nokg", 2, "other", "format_instructions", ("R5", "other", "format_instructions")),
    # 44_plain rubric 2 (33 P1, 23 P2, 24 P3, 40 P4 tasks): the dashboard's script holds
    # "priority_counts": {"P1": 33, "P2": 23, "P3": 24, "P4": 40} and draws them as bars (checked below); the
    # judge saw a truncated excerpt ("内容被截断") and found nothing: judge error (R6). The labeler has no
    # expected value here (two-digit counts are below values.py's three significant digits) and the judge
    # claims no mismatch: R16 undetermined. Disagreement kept.
    Hand("44_plain", 2, "other", "judge_error", ("R16", "other", "undetermined")),
    # 44_plain rubric 3 (12 participants, Development Engineer 1 to 12): the staffing section "Top Assignees"
    # shows 10 engineers (2 and 11 are cut by a top-10 limit, checked below) and no participant count: part
    # of the read content was dropped (R7's human condition). The labeler has no value (12 follows a label
    # word) and no mismatch claim: R16 under codebook 1.1. Pin updated for codebook 2: the item's anchor
    # "Development Engineer 1" is delivered and the judge found no evidence, so R10c (judge error); the two
    # engineers the top-10 cut are not named in the item, so no anchor shows the drop. Disagreement kept.
    Hand("44_plain", 3, "dropped_or_distorted", None, ("R10c", "other", "judge_error")),
    # 44_plain rubric 6 (120 Java/React entries): the dashboard's tech stack data is
    # {"Java/React": 70, "Java / React": 50}: the two spellings of one stack in the source files were never
    # merged, a wrong aggregation (R8's human condition). The labeler sees 120 delivered (it is the Total Tasks
    # card) and the judge saying it found no data: R6 judge error. A chance match the labeler cannot tell
    # from the real one. Disagreement kept.
    Hand("44_plain", 6, "dropped_or_distorted", None, ("R6", "other", "judge_error")),
    # 44_plain rubric 8 ("No high-risk tasks at this time"): the sentence is nowhere in the deliverable or in
    # any observation; the dashboard has no high-risk list. Required wording never used: R12. Agrees.
    Hand("44_plain", 8, "other", "format_instructions", ("R12", "other", "format_instructions")),
    # 44_plain rubric 9 (average progress about 50.4%): the KPI card reads "Average Progress 50.4%"; the judge
    # said it could not verify ("无法验证"): R6 judge error. Labeler agrees.
    Hand("44_plain", 9, "other", "judge_error", ("R6", "other", "judge_error")),
    # 44_plain rubric 13 (Chart.js 4.4.0): the page draws bars with its own script and never loads Chart.js
    # (checked below). R5 format. Labeler agrees.
    Hand("44_plain", 13, "other", "format_instructions", ("R5", "other", "format_instructions")),
    # 44_plain rubric 15 (timeline ordered by development start date): the page lists upcoming deliveries by
    # testing date and all tasks by priority, risk and progress; no view orders the tasks by start date, an
    # order the agent had to derive from dates it read. R15 reasoning/computation. Labeler agrees.
    Hand("44_plain", 15, "other", "reasoning_computation", ("R15", "other", "reasoning_computation")),
    # 44_cloud rubric 3 (12 participants): the page has a "Unique Assignees 12" card and a table of all twelve
    # engineers (checked below); the judge found "no usable evidence": judge error. Labeler R16 (no value)
    # under codebook 1.1; pin updated for codebook 2: the anchor "Development Engineer 1" is delivered and
    # the judge says it found nothing, R10c judge error. Now agrees.
    Hand("44_cloud", 3, "other", "judge_error", ("R10c", "other", "judge_error")),
    # 44_cloud rubric 4 (10 tasks per engineer): the same table gives 10 for every engineer: judge error.
    # Labeler R16: 10 is too small to be a distinctive value. Disagreement kept (the codebook's example of
    # "undetermined").
    Hand("44_cloud", 4, "other", "judge_error", ("R16", "other", "undetermined")),
    # 44_gfs_off rubric 9 (50.4%): the run wrote model_output/project-management/DevTask_Dashboard.html (69877
    # bytes at step 5); the output folder holds it as DevTask_Dashboard_1.html beside a 4306-byte leftover of
    # another arm, and it reads "Avg Progress 50.4%". The judge saw a truncated excerpt: R6 judge error.
    # Labeler agrees.
    Hand("44_gfs_off", 9, "other", "judge_error", ("R6", "other", "judge_error")),
    # 44_nokg rubric 1 (120 tasks): no development-task file was ever listed or opened; the deliverable is a
    # notice that the sources were not found. R2 discovery. Labeler agrees.
    Hand("44_nokg", 1, "discovery", None, ("R2", "discovery", None)),
    # 95_plain rubric 11 (new features of every version): the manifest's files are stored under content ids
    # (18fec6689633b536_description_9.txt ...); the workspace holds them as
    # version_management/historical_description/<same id>_notes_N.txt, release notes listing the new
    # features. The agent's step-5 listing named them, but it read Desktop/Product_Evaluation/data/
    # evaluation_9/12/15/22.txt (product evaluations) and wrote the report from those. The needed files were
    # never opened: R2 discovery. Labeler agrees (and cites the step-5 listing).
    Hand("95_plain", 11, "discovery", None, ("R2", "discovery", None)),
    # 95_nokg rubric 9 (version numbers and release owners match the original files): the semfs search at
    # step 1 showed every release note whole (V5.15 / Product Manager 4, V8.10 / Product Manager 5, ...;
    # "COMPLETE FILE"), the tab holds them, and the report, written from evaluation_*.txt, has none of them
    # (checked below): shown but missing, for statements (R9's human condition). Codebook 2.0 left it R16
    # undetermined (statements are checked only through quoted text); 2.1 labelled it R15a, other/judge_error
    # (the judge says the sources were never found; the read log shows them opened at step 1). Codebook 2.2
    # derives what the item needs from what was shown: the release notes' records (versions, dates) were
    # shown and the report holds none of them: R9a, shown but missing. Labeler agrees.
    Hand("95_nokg", 9, "shown_but_missing", None, ("R9a", "shown_but_missing", None)),
    # 95_gfs_on rubric 0 (accuracy of all data against the original documents): the four notes files were
    # listed at step 13 (find . | sed -n '1,260p') and never opened; the run delivered a "could not find the
    # sources" notice. R2 discovery. Labeler agrees.
    Hand("95_gfs_on", 0, "discovery", None, ("R2", "discovery", None)),
]


@pytest.fixture(scope="module")
def runs(real: Path) -> Path:
    return real / RUNS


@pytest.fixture(scope="module")
def trajectories(runs: Path):
    result = ingest(sorted(str(p) for p in runs.iterdir() if p.is_dir()))
    assert not result.failures
    return result.trajectories


@pytest.fixture(scope="module")
def frame(trajectories):
    return diagnose_frame(trajectories, [replay(t) for t in trajectories])


def label(frame, run: str, index: int):
    rows = frame[(frame["trajectory"] == f"codex:{run}") & (frame["rubric_index"] == index)]
    assert len(rows) == 1, (run, index)
    return rows.iloc[0]


def raw_outputs(runs: Path, run: str) -> list[str]:
    """``aggregated_output`` of every completed command in the run's raw Codex log, in order."""
    out = []
    for line in (
        (runs / run / "output" / "raw" / "codex_stdout.jsonl").read_text(encoding="utf-8").splitlines()
    ):
        event = json.loads(line)
        item = event.get("item") or {}
        if event.get("type") == "item.completed" and item.get("type") == "command_execution":
            out.append(item.get("aggregated_output") or "")
    return out


def delivered(runs: Path, run: str, name: str) -> Path:
    return runs / run / "output" / "output" / name


# ---------------------------------------------------------------------------------------------------------
# Coverage


def test_one_label_per_failed_item(runs: Path, frame) -> None:
    failed = []
    for folder in sorted(p for p in runs.iterdir() if p.is_dir()):
        (judge,) = (folder / "output").glob("rubrics_judge--*.json")
        data = json.loads(judge.read_text(encoding="utf-8"))
        failed += [(f"codex:{folder.name}", r["index"]) for r in data["rubrics"] if not r["passed"]]
    assert len(failed) == 177
    assert sorted(zip(frame["trajectory"], frame["rubric_index"], strict=True)) == sorted(failed)
    assert (frame["codebook_version"] == CODEBOOK_VERSION).all()
    assert (frame["n_evidence"] > 0).all()  # every label cites something


# ---------------------------------------------------------------------------------------------------------
# Hand labels


def test_hand_labels_cover_enough() -> None:
    assert len(HAND) >= 10
    assert len({h.run for h in HAND}) >= 3
    assert len({h.category for h in HAND}) >= 3
    assert len({(h.run, h.index) for h in HAND}) == len(HAND)


@pytest.mark.parametrize("hand", HAND, ids=lambda h: f"{h.run}#{h.index}")
def test_labeler_against_hand_label(frame, hand: Hand) -> None:
    row = label(frame, hand.run, hand.index)
    assert (row["rule"], row["category"], row["subreason"]) == hand.labeler


def test_agreement_with_hand_labels() -> None:
    agree = [h for h in HAND if h.agrees]
    assert (len(agree), len(HAND)) == (18, 26)  # 16 under codebook 1.1; 44_cloud #3 agrees under 2, 95_nokg #9 under 2.2
    # where they differ, the labeler's view is narrower, never a different reading of the same evidence:
    # the hand label uses the xlsx charts/rows, the html's script data or the judge's unreliable wording
    assert {(h.run, h.index) for h in HAND if not h.agrees} == {
        ("15_plain", 4),
        ("15_plain", 12),
        ("15_plain", 14),
        ("15_cloud", 8),
        ("44_plain", 2),
        ("44_plain", 3),
        ("44_plain", 6),
        ("44_cloud", 4),
    }


# ---------------------------------------------------------------------------------------------------------
# The facts behind the hand reasoning, from the raw files


def test_rubric_typo_15_plain_7(runs: Path) -> None:
    """Project 4's expense rows in file 4 sum to 476, the delivered value; the rubric says 576."""
    (out,) = [o for o in raw_outputs(runs, "15_plain") if o.startswith("[None, 'Expense Register'")]
    amounts = [int(a) for a in re.findall(r"'Project 4', None, (\d+),", out)]
    assert sum(amounts) == 476
    ws = openpyxl.load_workbook(
        delivered(runs, "15_plain", "financial-table-key-expense-analysis-concise-version.xlsx")
    )
    rows = list(ws["Top 5 Expense Comparison"].iter_rows(min_row=2, values_only=True))
    assert [r[3] for r in rows[:5]] == [534, 476, 436, 424, 291]


def test_15_plain_table_and_chart(runs: Path) -> None:
    """15 complete data rows, a horizontal bar chart on its own sheet, and names that differ from the rubric."""
    wb = openpyxl.load_workbook(
        delivered(runs, "15_plain", "financial-table-key-expense-analysis-concise-version.xlsx")
    )
    assert wb.sheetnames == ["Top 5 Expense Comparison", "Expense Bar Chart"]
    table = wb["Top 5 Expense Comparison"]
    header, *rows = [r for r in table.iter_rows(values_only=True) if any(v is not None for v in r)]
    assert header == ("Source File", "Rank", "Expense Item", "Amount")
    assert len(rows) == 15 and all(None not in r for r in rows)
    assert [r[3] for r in rows if r[0] == "Income & Expense Visual Charts"][0] == 1500  # not 3200
    assert table._charts == []
    (chart,) = wb["Expense Bar Chart"]._charts
    assert chart.type == "bar"  # horizontal bars (vertical ones are "col")
    assert chart.title.tx.rich.p[0].r[0].t == "Top 5 Expense Items Comparison"


def test_15_plain_file_6_quarterly_expense_is_3200(trajectories) -> None:
    t = next(t for t in trajectories if t.id == "codex:15_plain")
    shown = t.steps[1].shown
    assert "'Expense Amount'" in shown and "'=D5+D6+D7'" in shown
    costs = dict(re.findall(r"\(None, '(Jan|Feb|Mar)', \d+, (\d+), \d+", shown))
    assert sum(int(v) for v in costs.values()) == 3200


def test_15_cloud_file_4_was_only_glimpsed(trajectories, frame) -> None:
    from rtlab.environment import replay

    t = next(t for t in trajectories if t.id == "codex:15_cloud")
    entries = [
        e
        for e in replay(t).tab.read_log
        if e.path.endswith("4-financial-table-income-expense-dashboard.xlsx")
    ]
    assert [(e.step, e.excerpt.split(":", 1)[1].lstrip("0123456789:")) for e in entries] == [
        (0, "## Income Expense Dashboard"),
        (3, "## Income Expense Dashboard"),
    ]
    row = label(frame, "15_cloud", 5)
    assert "seen only as a path and heading at step 0" in row["rationale"]


def test_44_plain_dashboard_data(runs: Path) -> None:
    page = delivered(runs, "44_plain", "DevTask_Dashboard.html").read_text(encoding="utf-8")
    assert '"priority_counts": {"P1": 33, "P2": 23, "P3": 24, "P4": 40}' in page
    assert '"tech_counts": {"Java/React": 70, "Java / React": 50}' in page
    top = json.loads(re.search(r'"top_assignees": (\{[^}]*\})', page).group(1))
    assert len(top) == 10 and set(top.values()) == {10}
    assert "Development Engineer 2" not in top and "Development Engineer 11" not in top
    assert "Average Progress</div><div class='metric'>50.4%" in page
    assert "chart.js" not in page.lower() and "timeline" not in page.lower()
    assert "No high-risk tasks" not in page


def test_44_cloud_assignees(runs: Path) -> None:
    page = delivered(runs, "44_cloud", "DevTask_Dashboard.html").read_text(encoding="utf-8")
    assert '<div class="label">Unique Assignees</div><div class="metric">12</div>' in page
    counts = re.findall(r"<tr><td>Development Engineer (\d+)</td><td>(\d+)</td></tr>", page)
    assert sorted(int(n) for n, _ in counts) == list(range(1, 13)) and {c for _, c in counts} == {"10"}


def test_44_gfs_off_own_dashboard_is_the_renamed_one(runs: Path) -> None:
    assert any("size 69877" in out for out in raw_outputs(runs, "44_gfs_off"))
    own = delivered(runs, "44_gfs_off", "DevTask_Dashboard_1.html")
    assert own.stat().st_size == 69877
    assert "<div class='label'>Avg Progress</div><div class='metric'>50.4%</div>" in own.read_text(
        encoding="utf-8"
    )


def test_95_sources_live_under_their_content_ids(runs: Path, frame) -> None:
    (listing,) = [out for out in raw_outputs(runs, "95_plain") if "historical_description" in out]
    for cid in ("18fec6689633b536", "35ccb5991494324f", "b4418640fb00a12f", "bec9bfa3d581a4ed"):
        assert f"version_management/historical_description/{cid}_notes_" in listing
    row = label(frame, "95_plain", 11)
    assert {"step": 5, "path": "version_management/historical_description/18fec6689633b536_notes_4.txt"} == {
        k: row["evidence"][0][k] for k in ("step", "path")
    }


def test_95_nokg_release_notes_shown_not_delivered(runs: Path) -> None:
    shown = "\n".join(raw_outputs(runs, "95_nokg"))
    report = delivered(runs, "95_nokg", "followup_iteration_report.md").read_text(encoding="utf-8")
    for version, owner in (
        ("V5.15", "Product Manager 4"),
        ("V8.10", "Product Manager 5"),
        ("V10.20", "Product Manager 3"),
    ):
        assert f"Version: {version}" in shown and f"Release Owner: {owner}" in shown
        assert version not in report and owner not in report
    assert "evaluation_9.txt" in report


# ---------------------------------------------------------------------------------------------------------
# Evidence of agreed labels


def test_evidence_of_a_distortion_cites_the_read_and_the_report(frame) -> None:
    row = label(frame, "15_plain", 8)
    first = row["evidence"][0]
    assert first["step"] == 1
    assert (
        first["path"]
        == "desktop/2-financial-analysis-tables/6-financial-table-income-and-expense-data-visual-charts.xlsx"
    )
    assert "3200" in first["excerpt"]
    last = row["evidence"][-1]
    assert (
        last["step"] is None and last["path"] == "financial-table-key-expense-analysis-concise-version.xlsx"
    )


def test_evidence_of_a_judge_error_cites_the_delivered_value(frame) -> None:
    row = label(frame, "44_plain", 9)
    (cite,) = [e for e in row["evidence"] if e["step"] is None]
    assert cite["path"] == "DevTask_Dashboard.html" and "50.4%" in cite["excerpt"]


# ---------------------------------------------------------------------------------------------------------
# The breakdown on the 15 runs


def failed_by_arm(runs: Path) -> dict[str, int]:
    """Failed rubric items per arm, counted from the raw judge files."""
    counts: dict[str, int] = {}
    for folder in sorted(p for p in runs.iterdir() if p.is_dir()):
        (judge,) = (folder / "output").glob("rubrics_judge--*.json")
        arm = folder.name.split("_", 1)[1]
        rubrics = json.loads(judge.read_text(encoding="utf-8"))["rubrics"]
        counts[arm] = counts.get(arm, 0) + sum(1 for r in rubrics if not r["passed"])
    return counts


def test_breakdown_overall(frame) -> None:
    table = breakdown(frame, by=[]).set_index("category")
    assert table["lost"].to_dict() == {
        "shown_but_missing": 14,  # 2 under codebook 2.1: R9a's twelve items of 95_nokg
        "dropped_or_distorted": 2,
        "discovery": 80,  # 73 under codebook 2.0: R2a's five items; 78 under 2.1: R2b's two of 15_cloud
        "other": 81,
    }
    assert table["share"].round(4).to_dict() == {
        "shown_but_missing": 0.0791,  # 14 / 177
        "dropped_or_distorted": 0.0113,
        "discovery": 0.452,  # 80 / 177
        "other": 0.4576,  # 81 / 177
    }
    assert (table["group_lost"] == 177).all()


def test_breakdown_by_method(runs: Path, frame) -> None:
    table = breakdown(frame, by=["method"])
    assert table.groupby("method")["group_lost"].first().to_dict() == failed_by_arm(runs)
    assert failed_by_arm(runs) == {"cloud": 29, "gfs_off": 41, "gfs_on": 40, "nokg": 42, "plain": 25}
    lost = table.pivot(index="method", columns="category", values="lost")
    assert lost.to_dict("index") == {
        # codebook 2.2's R2b: two items of cloud from other to discovery; R9a: twelve of nokg from other to
        # shown_but_missing
        "cloud": {"discovery": 6, "dropped_or_distorted": 0, "other": 21, "shown_but_missing": 2},
        # codebook 2.1's R2a: two items of gfs_off and nokg, one of gfs_on, from other to discovery
        "gfs_off": {"discovery": 22, "dropped_or_distorted": 0, "other": 19, "shown_but_missing": 0},
        "gfs_on": {"discovery": 31, "dropped_or_distorted": 0, "other": 9, "shown_but_missing": 0},
        "nokg": {"discovery": 20, "dropped_or_distorted": 0, "other": 10, "shown_but_missing": 12},
        "plain": {"discovery": 1, "dropped_or_distorted": 2, "other": 22, "shown_but_missing": 0},
    }


def test_breakdown_by_subreason(frame) -> None:
    table = breakdown(frame, by=[], level="subreason").set_index("subreason")
    assert (
        table["lost"].to_dict()
        == {
            "shown_but_missing": 14,  # 2 under codebook 2.1: R9a's twelve items of 95_nokg
            "dropped_or_distorted": 2,
            "discovery": 80,  # 73 under codebook 2.0: R2a's five items, from other/format_instructions; R2b's 2
            "other/reasoning_computation": 3,  # 7 under 2.1: R2b's two, R9a's two of 95_nokg (R15)
            "other/format_instructions": 56,
            # 10 under codebook 1.1: three R16 items decided by R10c (anchors delivered); 13 under 2.0: ten more R16
            # items of 95_nokg decided by R15a under 2.1 (the judge says the sources were never found; the read log
            # shows them opened); the gold labels 4 of the 10 judge_error, 6 shown_but_missing; 13 under 2.2, whose
            # R9a labels all twelve items of 95_nokg shown_but_missing (records shown, none delivered)
            "other/judge_error": 13,
            "other/missing_deliverable": 0,
            "other/undetermined": 9,  # 22 under codebook 1.1, 19 under 2.0: 9 of 177 = 5.1%, under the 10% aimed at
        }
    )


def test_rules_used_on_the_real_runs(frame) -> None:
    assert (
        frame["rule"].value_counts().to_dict()
        == {
            "R2": 73,
            "R5": 53,  # 58 under codebook 2.0: five items of runs that opened no source are R2a
            "R16": 9,  # 22 under codebook 1.1 (44_plain #3, 44_cloud #3 and one more now R10c), 19 under 2.0
            "R9a": 12,  # codebook 2.2: 95_nokg's items (10 were R15a, 2 R15 under 2.1)
            "R2b": 2,  # codebook 2.2: 15_cloud #10 and #11 (R10 under 2.1)
            "R2a": 5,  # codebook 2.1: an item asking for the sources' data, in a run that opened none  # codebook 2.1: 95_nokg's items whose judge says the opened sources were never found
            "R6": 9,
            "R10c": 3,
            "R15": 3,
            "R12": 3,
            "R9": 2,
            "R8": 2,
            "R3": 1,
        }
    )


def test_codebook_examples_are_hand_labelled_here() -> None:
    """Every real example the codebook cites is one of the hand labels above, in the category it shows."""
    from rtlab.analysis import load_codebook

    hand = {(f"codex:{h.run}", h.index): h for h in HAND}
    cb = load_codebook()
    cited = [(c.key, None, c.example) for c in cb.categories]
    cited += [(c.key, s.key, s.example) for c in cb.categories for s in c.subreasons]
    for category, subreason, ex in cited:
        if ex.run is None:
            continue
        h = hand[(ex.run, ex.rubric_index)]
        if subreason == "undetermined":  # the example shows what the labeler cannot decide
            assert h.labeler[1:] == ("other", "undetermined")
        elif subreason is not None:
            assert (h.category, h.subreason) == (category, subreason)
        else:
            assert h.category == category

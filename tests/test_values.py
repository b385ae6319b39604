"""Distinctive rubric values, deliverable text per format, the value table and its summary (fixture data)."""

from __future__ import annotations

import json
import math
import warnings
import zipfile
from pathlib import Path

import pandas as pd
import pytest

from rtlab.analysis import (
    VALUE_COLUMNS,
    deliverable_text,
    expected_values,
    file_text,
    value_records,
    value_summary,
    values_frame,
)
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

# ---------------------------------------------------------------------------------------------------------
# expected_values on real rubric phrases (Workspace-Bench-Lite task id / rubric index), values by hand

REAL_RUBRICS: list[tuple[str, str, list[float]]] = [
    (
        "15/7",
        "In 4-financial-table-income-expense-dashboard.xlsx, are the Top 5 expense amounts 534, 576, 436, 424, "
        "and 291 respectively?",
        [534, 576, 436, 424, 291],  # the file name's 4 and the label "Top 5" are not values
    ),
    (
        "15/9",
        "In 6-financial-table-income-and-expense-data-visual-charts.xlsx, are the Top 4 expense amounts 3200, "
        "2800, 2500, and 1900 respectively?",
        [3200, 2800, 2500, 1900],  # 1900 is year-like but stands in a list of amounts
    ),
    (
        "15/10",
        "In 5-financial-table-income-expense-profit-statement.xlsx, is the Top 1 expense item Item 2 with amount "
        "3000?",
        [3000],
    ),
    ("15/4", "Does the comparison table contain 15 complete rows of data, excluding the header?", []),
    ("15/2", "Does the new Excel file contain a worksheet named `Top5 Expense Item Comparison Table`?", []),
    (
        "44/2",
        "In the dashboard's priority distribution, are there 33 P1 tasks, 23 P2 tasks, 24 P3 tasks, and 40 P4 "
        "tasks?",
        [],  # two significant digits: not distinctive
    ),
    ("44/1", "Does the HTML dashboard display a total of 120 tasks?", [120]),
    (
        "44/9",
        "Does the HTML dashboard show the average progress as about 50.4%, rounded to one decimal place?",
        [50.4],
    ),
    ("44/13", "Does the HTML dashboard use the Chart.js 4.4.0 library for data visualization?", []),
    ("23/9", "Is the inventory change amount for February 2024 clearly marked as ¥7,025,491?", [7025491]),
    (
        "23/6",
        "Does the report count 6 approved purchase orders, namely PO #1013, #1006, #1007, #1012, #1005, and #1011?",
        [],
    ),
    (
        "33/7",
        "Does the output file show 6,430 community health service centers with beds, and a bed-equipped center "
        "ratio of 63.85%?",
        [6430, 63.85],
    ),
    (
        "33/18",
        'In the "data description" worksheet, does the output file describe the data sources as "1-2-2023.xlsx", '
        '"1-3-2023.xlsx", and "1-12-2023-(-).xlsx"?',
        [],
    ),
    (
        "38/8",
        "In the overall cost statistics table of analysis_cost_results.xlsx, is the total monthly cost 554,569.00 "
        "yuan and the monthly per-capita cost 9,729.28 yuan?",
        [554569.00, 9729.28],
    ),
    (
        "107/2",
        "Are total sales reported at $1,710,971.47, total profit at $288,920.44, and overall profit margin at "
        "16.89%?",
        [1710971.47, 288920.44, 16.89],
    ),
    (
        "107/13",
        "Is the high discount range (>20%) marked in the report with 101 orders and an overall profit margin of "
        "-35.00% (overall loss)?",
        [101, -35.00],
    ),
    (
        "108/2",
        "In the Category×Region summary, is the total sales of Furniture in Central approximately equal to 163797, "
        "and is the total profit approximately equal to -2871.05?",
        [163797, -2871.05],
    ),
    (
        "115/10",
        "Is the file size of 2601.12234v1 correctly given in output2.md as 8348227 bytes?",
        [8348227],  # the arXiv id is not a number
    ),
    ("131/15", "Is the e98f0f4ff6a57f83_embedding.py file size 20187 bytes?", [20187]),
    (
        "137/9",
        "Does Partner 20 have an annual commitment of $121,120,000, revenue target of $462,200,000, and joint "
        "event attendance of 421,300?",
        [121120000, 462200000, 421300],
    ),
    (
        "137/19",
        "Within the annual commitment amounts, is the value for Partner 10 `$62,490,000`, which is below one "
        "hundred million dollars?",
        [62490000],  # a value in backticks is still a value
    ),
    (
        "139/24",
        "Does every date in the range from `2024-02-10` to `2024-02-28` contain exactly 2 scheduled activities?",
        [],
    ),
    (
        "161/8",
        "Is the contact information for Operations Director Chen Siyuan correctly recorded as phone `13900001111` "
        "and email `siyuan.chen@teamsync.com`?",
        [13900001111],
    ),
    (
        "161/0",
        "Does the output file `implementation_checklist.md` include the event's basic information, correctly "
        "recording the theme as `TeamSync 618 Mid-Year Carnival, Grateful Giveback`, and the event period as "
        "June 1, 2025 to June 18, 2025?",
        [],  # 618 is part of a name in backticks; the rest are calendar dates
    ),
    (
        "175/4",
        "Whether the depreciation for this month is ¥417 in the January 2024 record, and whether the accumulated "
        "depreciation is ¥2277",
        [417, 2277],
    ),
    (
        "192/1",
        "Whether to accurately extract the 2024 operating income of 1001592,100 yuan from the annual report of "
        "Juxing Technology, an increase of 66.17% year-on-year, and the net profit attributable to shareholders "
        "of listed companies of 11.5996 million yuan, an increase of 51.12% year-on-year, this set of core data.",
        [1001592100, 66.17, 11599600, 51.12],  # the misplaced comma is the writer's
    ),
    (
        "192/2",
        "Whether the 2024 operating income of 1,594,275,100 yuan was accurately extracted from the Taihu Yuanda "
        "Annual Report, an increase of 4.64% year-on-year, and the net profit attributable to shareholders of "
        "listed companies was 70,510,500 yuan, a decrease of 8.97% year-on-year.",
        [1594275100, 4.64, 70510500, 8.97],
    ),
    ("207/7", "In Li Yuchen's education background, is the study period recorded as 2013.09-2018.07?", []),
    (
        "227/2",
        "Does the extracted data exactly match the source files, for example with `安全报告_3` showing a detection "
        "time of 72 minutes rather than 27 minutes, and the lowest security score correctly recorded as 68 rather "
        "than another value?",
        [],
    ),
    (
        "227/7",
        "Does the analysis correctly derive these four aggregate metrics: average protection coverage of 88.6%, "
        "average security score of 80.4, total affected users of 27,002, and average budget of RMB 3.254 million?",
        [88.6, 80.4, 27002, 3254000],
    ),
    (
        "227/17",
        "Is the total budget in the improvement plan controlled within the average budget of RMB 3.254 million, "
        "with the actual total of about RMB 3.2 million meeting the budget requirement?",
        [3254000],  # "3.2 million": two significant digits
    ),
    (
        "232/1",
        "Does the report extract the following data for Taihu Yuanda in 2024: revenue of RMB 1.594 billion, "
        "year-over-year net profit growth of -8.97%, ROE of 21.26%, and gross margin of 9.15%?",
        [1594000000, -8.97, 21.26, 9.15],
    ),
    (
        "232/0",
        "Does the report extract the following data for Honghai Technology in 2024: revenue of RMB 463 million, "
        "year-over-year revenue growth of +32.09%, ROE of 20.01%, and asset-liability ratio of 55.07%?",
        [463000000, 32.09, 20.01, 55.07],
    ),
    (
        "255/9",
        "Does the report indicate that the minimum balance month is July and the minimum month-end balance is "
        "-88845.19 yuan?",
        [-88845.19],
    ),
    (
        "255/16",
        "Does the current year's accumulated debit data in the monthly capital flow trend table meet: December "
        "Current year's accumulated debit = November Current year's accumulated debit + December Current month's "
        "debit = 17064182.58 + 3003582.95 = 20067765.53?",
        [17064182.58, 3003582.95, 20067765.53],
    ),
    (
        "266/5",
        "Based on the total operating income of 633,947,095.38 yuan, is the total sales of the top five customers "
        "about 119 million yuan?",
        [633947095.38, 119000000],
    ),
    (
        "278/1",
        "Does the data overview section of the report correctly state that the data source is the data of the "
        "purchase and sale inventory management system, and the statistical cycle is 2017?",
        [2017],  # the item asks for the year
    ),
    (
        "281/1",
        "Is the total operating income disclosed in the report for 2021 3987,968,708.00 yuan (about 3.988 billion "
        "yuan), and is the attributable net profit - 178,151,998.89 yuan?",
        [3987968708.00, 3988000000, 178151998.89],
    ),
    (
        "281/6",
        "In the overall vehicle sales structure, is it accurate to list 640 units (-57.30% year-on-year), 26855 "
        "units of light trucks (-21.48% year-on-year), and 41234 units of micro cards (+51.43% year-on-year)?",
        [640, -57.30, 26855, -21.48, 41234, 51.43],
    ),
    (
        "314/2",
        "Are the equipment failure rate data in the logistics work review report from January to May 2024 "
        "sequentially 0.30%, 0.20%, 0.15%, 0.10%, and 0.08%?",
        [],
    ),
    (
        "329/0",
        "Does the `Annual Compensation Data Summary` sheet completely include 4 years of data from 2021 to 2024, "
        "with each row containing the six columns of year, headcount, annual compensation expense, average monthly "
        "compensation per employee, company performance, and performance growth percentage?",
        [2021, 2024],  # the item asks for the years
    ),
    (
        "329/5",
        "Does the `Compensation Growth Trend and Distribution` sheet include salary growth data for 2023-2025, "
        "with increases of 8% in 2023, 6% in 2024, and 5% in 2025?",
        [],
    ),
    (
        "360/0",
        "In the time trend chart of the four major types of cancer in the total population, are the death rates "
        "for lung cancer from 1973 to 1975 7.09 1/100,000, liver cancer 12.54, gastric cancer 19.54, and "
        "esophageal cancer 18.83?",
        [7.09, 12.54, 19.54, 18.83],
    ),
    ("380/14", "Does the future plan list financial goals: $10M in 2024, $15M in 2025, $25M in 2026?", []),
    ("380/15", "Does the future plan state that the planning period is 2024-2026?", [2024, 2026]),
    ("129/14", "Is the year of FaithfulnessofCOT in the output file 2023?", [2023]),
    ("129/0", "Does the output file `bibtex.txt` exist and have a size greater than 2000 bytes?", [2000]),
    (
        "388/5",
        "Does the trend chart page on page 4 of the PPT correctly display the MAU values: 432,000 in January, "
        "458,000 in February, and 473,000 in March?",
        [432000, 458000, 473000],
    ),
    (
        "354/0",
        "Does the 2025 second-half key administrative work advancement execution plan fully cover five core "
        "sections: overall approach, key work advancement list, unfinished module advancement plan, safeguard "
        "measures, and year-end review planning?",
        [],
    ),
    (
        "340/9",
        "Does it clearly specify that the event time is March 22, 2034, from 16:30 to 20:00, and that the event "
        "format is nearby cinema viewing plus birthday dinner, consistent with the planning proposal?",
        [],
    ),
    (
        "72/6",
        "Is it clear in emergency_end_to_end_operation_manual.doc that the person responsible for reporting the "
        "incident information is XX, and the contact number is 138XXXXXXXX?",
        [],
    ),
    (
        "334/2",
        "Does the core comparison table include data rows for the four companies Huili B (900939), Yitai B Share "
        "(900948), Kaima B (900953), and Lingyun B Share (900957)?",
        [900939, 900948, 900953, 900957],  # codes in parentheses are not accounting negatives
    ),
    (
        "286/12",
        "Does the concurrent test method for IntegrationTest_4 have a 3000ms timeout wait set and an assertion "
        "success rate of ≥ 95%?",
        [3000],
    ),
]


@pytest.mark.parametrize(("where", "text", "values"), REAL_RUBRICS, ids=[r[0] for r in REAL_RUBRICS])
def test_expected_values_on_real_rubrics(where: str, text: str, values: list[float]) -> None:
    got = expected_values(text)
    assert [n.value for n in got] == [pytest.approx(v) for v in values]
    for n in got:
        assert text[n.start : n.end] == n.text


def test_curated_set_is_large_and_real(real: Path) -> None:
    import csv

    assert len(REAL_RUBRICS) >= 40
    table = real / "workspace-bench" / "lite_metadata" / "task_lite_clean_en_metadata_table.csv"
    with table.open(encoding="utf-8", newline="") as fh:
        rubrics = {row["absolute_id"]: json.loads(row["rubrics"]) for row in csv.DictReader(fh)}
    for where, text, _ in REAL_RUBRICS:
        task, index = where.split("/")
        assert rubrics[task][int(index)].strip() == text, where
    every = [text for items in rubrics.values() for text in items]
    values = [expected_values(text) for text in every]
    assert sum(len(v) for v in values) == 602  # distinctive values over all 1,850 Lite rubrics
    assert sum(1 for v in values if v) == 342  # rubric items with at least one
    assert (
        sum(1 for items in rubrics.values() if any(expected_values(t) for t in items)) == 65
    )  # of 100 tasks


@pytest.mark.parametrize(
    ("text", "values"),
    [
        ("Is Room 301 booked for 450 guests?", [450]),  # a capitalised label
        ("Is the phone number 13811111111?", [13811111111]),  # "number" is not a label word
        ("Does item 123 cost 4,560 yuan, and page 204 show it?", [4560]),  # label words
        ("Is the engine release 3.125 and the price 999.9?", [999.9]),  # after "release": a version
        ("Does the table contain 120 rows and 250 customers?", [250]),  # structural count
        ("Were all 150 CSV files read, covering 12,345 records?", [12345]),
        ('Is the title "Top 500 Companies of 2023" and the count 731?', [731]),  # quoted title
        ("Is the sheet `Sheet 2024` showing `$62,490,000`?", [62490000]),
        ("Does report_2024_v3.xlsx hold 1,234.5?", [1234.5]),  # a file name
        ("Is the total 120 tasks, i.e. 120 in all?", [120]),  # one value once
        ("On March 18, 2025 was revenue 1,234.5 and on 1 December 2024 was it 2,345.6?", [1234.5, 2345.6]),
        (
            "Are the amounts 3200, 2800, and 1950 respectively?",
            [3200, 2800, 1950],
        ),  # a year-like amount in a list
        ("Does the staff grow by 8% in 2023 and 6% in 2024?", []),
        ("Is the budget 1950 yuan?", [1950]),  # a unit after it
        ("Is the founding year 1998?", [1998]),  # asserted and ends the clause
        ("Is revenue in 2024 higher than in 2023 by 1,234.5?", [1234.5]),  # context years
        ("Does the plan span 2024-2026 with 7,500 users?", [7500]),
        ("Is the plan period 2024 to 2026?", [2024, 2026]),  # a range kept whole
        ("Is the loss (1,234) or ¥(5,678.9) or (2,023)?", [-1234, -5678.9, -2023]),  # accounting negatives
        ("Is the share 8% or 5.0 or 0.08%?", []),  # fewer than three significant digits
        ("Is growth 12.3%, 0.123 or 1.2万?", [12.3, 0.123]),
    ],
)
def test_expected_value_rules(text: str, values: list[float]) -> None:
    assert [n.value for n in expected_values(text)] == [pytest.approx(v) for v in values]


def test_expected_values_keep_text_and_percent() -> None:
    (n,) = expected_values("Is the margin -35.00% (overall loss)?")
    assert (n.text, n.value, n.percent, n.decimals) == ("-35.00%", -35.0, True, 2)
    (n,) = expected_values("the 2024 operating income of 1001592,100 yuan")
    assert (n.text, n.value, n.start, n.end) == ("1001592,100", 1001592100.0, 29, 40)


# ---------------------------------------------------------------------------------------------------------
# Deliverable text


def _write_xlsx(path: Path) -> Path:
    from openpyxl import Workbook

    wb = Workbook()
    ws = wb.active
    ws.title = "Top 5 Costs"
    ws.append(["item", "amount", "share"])
    ws.append(["Cloud hosting", 8450.5, 0.123])
    ws["C2"].number_format = "0.0%"
    ws["B4"] = "=B2*2"  # written by openpyxl: a formula without a cached value
    wb.create_sheet("Notes").append(["approved on", "2024-10-01"])
    wb.save(path)
    return path


def _write_docx(path: Path) -> Path:
    w = "http://schemas.openxmlformats.org/wordprocessingml/2006/main"
    body = (
        f'<w:document xmlns:w="{w}"><w:body>'
        "<w:p><w:r><w:t>Net profit</w:t></w:r><w:r><w:tab/><w:t>(178,151,</w:t></w:r>"
        '<w:r><w:t xml:space="preserve">998.89)</w:t></w:r></w:p>'
        "<w:tbl><w:tr><w:tc><w:p><w:r><w:t>534</w:t></w:r></w:p></w:tc>"
        "<w:tc><w:p><w:r><w:t>476</w:t></w:r></w:p></w:tc></w:tr></w:tbl>"
        "</w:body></w:document>"
    )
    footer = f'<w:ftr xmlns:w="{w}"><w:p><w:r><w:t>Page 1 of 3</w:t></w:r></w:p></w:ftr>'
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("[Content_Types].xml", "<Types/>")
        z.writestr("word/document.xml", body)
        z.writestr("word/footer1.xml", footer)
        z.writestr(
            "word/styles.xml", f'<w:styles xmlns:w="{w}"><w:p><w:r><w:t>999</w:t></w:r></w:p></w:styles>'
        )
    return path


def _text_file(fixtures: Path, name: str) -> DeliverableFile:
    path = fixtures / "values" / name
    return DeliverableFile(path=name, local_path=str(path), content=path.read_text(encoding="utf-8"))


def test_file_text_markdown_and_json(fixtures: Path) -> None:
    md = _text_file(fixtures, "report.md")
    assert file_text(md) == md.content
    assert '"growth": 0.1234' in (file_text(_text_file(fixtures, "data.json")) or "")


def test_file_text_html_drops_styles_keeps_script_data(fixtures: Path) -> None:
    text = file_text(_text_file(fixtures, "dashboard.html")) or ""
    assert "50.4" not in text and "9,999.99" not in text  # CSS and comments are not content
    assert "Amounts\xa0dashboard" in text and "$534" in text  # entities decoded
    assert '"values": [534, 476]' in text  # chart data in scripts is delivered
    assert "<" not in text.replace("<!DOCTYPE", "")


def test_file_text_csv_separates_fields(fixtures: Path) -> None:
    text = file_text(_text_file(fixtures, "table.csv"))
    assert text == "item\tamount\tshare\nProject 2\t534\t476\nCloud, hosting\t1\t234"


def test_file_text_xlsx(tmp_path: Path) -> None:
    xlsx = _write_xlsx(tmp_path / "summary.xlsx")
    text = file_text(DeliverableFile(path="out/summary.xlsx", local_path=str(xlsx)))
    assert (
        text == ("item\tamount\tshare\nCloud hosting\t8450.5\t0.123\n=B2*2\napproved on\t2024-10-01")
    )  # cell values (a percent cell holds its fraction), the formula where nothing was cached; sheet names out


def test_file_text_docx(tmp_path: Path) -> None:
    docx = _write_docx(tmp_path / "memo.docx")
    text = file_text(DeliverableFile(path="memo.docx", local_path=str(docx)))
    assert text == "Net profit\t(178,151,998.89)\n534\n476\nPage 1 of 3"  # runs joined, styles.xml not read


def test_file_text_pptx(tmp_path: Path) -> None:
    a = "http://schemas.openxmlformats.org/drawingml/2006/main"
    slide = (
        f'<p:sld xmlns:p="http://schemas.openxmlformats.org/presentationml/2006/main" xmlns:a="{a}">'
        "<a:p><a:r><a:t>MAU </a:t></a:r><a:r><a:t>473,000</a:t></a:r></a:p><a:p><a:r><a:t>NPS 54.2</a:t></a:r>"
        "</a:p></p:sld>"
    )
    path = tmp_path / "deck.pptx"
    with zipfile.ZipFile(path, "w") as z:
        z.writestr("ppt/slides/slide1.xml", slide)
        z.writestr("ppt/slideLayouts/slideLayout1.xml", slide.replace("473,000", "999,999"))  # not content
    assert file_text(DeliverableFile(path="deck.pptx", local_path=str(path))) == "MAU 473,000\nNPS 54.2"


def test_file_text_unreadable(tmp_path: Path) -> None:
    broken = tmp_path / "broken.xlsx"
    broken.write_bytes(b"not a zip")
    with pytest.warns(UserWarning, match="broken.xlsx"):
        assert file_text(DeliverableFile(path="broken.xlsx", local_path=str(broken))) is None
    assert file_text(DeliverableFile(path="chart.png", local_path=str(broken))) is None  # binary, no content
    assert file_text(DeliverableFile(path="gone.xlsx", local_path=str(tmp_path / "gone.xlsx"))) is None


def test_deliverable_text_joins_message_and_files(fixtures: Path) -> None:
    t = Trajectory(
        id="x",
        format="codex",
        source_path="x",
        deliverable=Deliverable(
            final_message="Done.", files=[_text_file(fixtures, "notes.txt"), DeliverableFile(path="a.png")]
        ),
    )
    assert deliverable_text(t) == "Done.\n\n" + (fixtures / "values" / "notes.txt").read_text()


# ---------------------------------------------------------------------------------------------------------
# The value table on a hand-made run


def _step(index: int, command: str, shown: str | None) -> Step:
    return Step(
        index=index,
        tool="shell",
        command=command,
        output=shown,
        shown=shown,
        seq=index,
        action=Action.shell(command),
    )


def _run(fixtures: Path, tmp_path: Path) -> Trajectory:
    rubric = [
        "Is the total cost 20,450.50 yuan?",  # 0: computed and printed (shown, not held), in report.md
        "Is the cloud hosting cost 8,450.50 and the rent 12000?",  # 1: read; 12000 not delivered
        "Is the growth rate 12.3%?",  # 2: read as the fraction 0.1234; delivered as the xlsx fraction 0.123
        "Is the headcount 2023 employees?",  # 3: only the date 2023-05-01 is shown: not a number
        "Does the report cover 2024?",  # 4: no values
        "Is the budget RMB 3.254 million?",  # 5: never shown; in the final message as 3,254,000
        "Is the completion 50.4%?",  # 6: only in the HTML's CSS: not delivered
        "Are the amounts 534 and 476?",  # 7: a CSV read; in the HTML's chart data
        "Is the net profit -178,151,998.89 yuan?",  # 8: only in the docx, as (178,151,998.89)
    ]
    steps = [
        _step(0, "cat data/costs.csv", "item,amount\nRent,12000\nCloud hosting,8450.50\n"),
        _step(1, 'python3 -c "print(12000+8450.50)"', "20450.5\n"),
        _step(2, "cat data/growth.json", '{"growth": 0.1234, "updated": "2023-05-01"}\n'),
        _step(3, "cat data/amounts.csv", "date,item,amount\n2024-01-05,Project 1,534,476\n"),
        _step(4, "cat data/late.csv", None),  # cut off: never answered
    ]
    files = [
        _text_file(fixtures, "report.md"),
        _text_file(fixtures, "dashboard.html"),
        DeliverableFile(path="summary.xlsx", local_path=str(_write_xlsx(tmp_path / "summary.xlsx"))),
        DeliverableFile(path="memo.docx", local_path=str(_write_docx(tmp_path / "memo.docx"))),
    ]
    verdicts = [True, False, True, False, True, False, False, None, True]
    return Trajectory(
        id="fixture:values",
        format="codex",
        source_path=str(tmp_path),
        cwd="/work",
        steps=steps,
        deliverable=Deliverable(final_message="Budget of 3,254,000 yuan confirmed.", files=files),
        task=Task(
            id="t1",
            benchmark="workspace-bench",
            rubric=[RubricItem(i, text) for i, text in enumerate(rubric)],
        ),
        judgement=Judgement(items=[ItemResult(i, v) for i, v in enumerate(verdicts) if v is not None]),
    )


def test_values_frame_by_hand(fixtures: Path, tmp_path: Path) -> None:
    t = _run(fixtures, tmp_path)
    frame = values_frame([t], [replay(t)])
    assert list(frame.columns) == VALUE_COLUMNS
    NA = None
    rows = [
        (0, True, "20,450.50", 20450.5, True, 1, NA, True, False),
        (1, False, "8,450.50", 8450.5, True, 0, "data/costs.csv", True, True),
        (1, False, "12000", 12000.0, True, 0, "data/costs.csv", False, True),
        (2, True, "12.3%", 12.3, True, 2, "data/growth.json", True, True),
        (3, False, "2023", 2023.0, False, NA, NA, False, False),
        (5, False, "3.254 million", 3254000.0, False, NA, NA, True, False),
        (6, False, "50.4%", 50.4, False, NA, NA, False, False),
        (7, NA, "534", 534.0, True, 3, "data/amounts.csv", True, True),
        (7, NA, "476", 476.0, True, 3, "data/amounts.csv", True, True),
        (8, True, "-178,151,998.89", -178151998.89, False, NA, NA, True, False),
    ]
    got = [
        tuple(None if (not isinstance(v, str) and pd.isna(v)) else v for v in row[1:])
        for row in frame.itertuples(index=False)
    ]
    assert [g[1:] for g in got] == rows
    assert {g[0] for g in got} == {t.source_path}  # every table carries where the run came from
    assert set(frame["trajectory"]) == {"fixture:values"}
    assert frame.dtypes.astype(str).to_dict() == {
        "trajectory": "string",
        "source_path": "string",
        "rubric_index": "int64",
        "passed": "boolean",
        "value": "string",
        "number": "float64",
        "shown": "bool",
        "shown_step": "Int64",
        "shown_path": "string",
        "delivered": "bool",
        "held": "bool",
    }
    # held <=> a read-log entry holds it <=> shown_path is set; held values are shown values
    assert (frame["held"] == frame["shown_path"].notna()).all()
    assert not (frame["held"] & ~frame["shown"]).any()


def test_values_frame_replays_and_edge_cases(fixtures: Path, tmp_path: Path) -> None:
    t = _run(fixtures, tmp_path)
    r = replay(t)
    pd.testing.assert_frame_equal(values_frame([t], {t.id: r}), values_frame([t], [r]))
    with pytest.raises(ValueError, match="not 'fixture:values'"):
        values_frame([t], [replay(Trajectory(id="other", format="codex", source_path="x"))])
    with pytest.raises(ValueError, match="no replay of 'fixture:values'"):  # never replayed behind one's back
        values_frame([t], {"other": r})
    bare = Trajectory(id="bare", format="codex", source_path="x")  # no task: no rows
    empty = values_frame([bare], [replay(bare)])
    assert empty.empty and list(empty.columns) == VALUE_COLUMNS
    t.judgement = None
    assert values_frame([t], [r])["passed"].isna().all()


def test_value_records_are_json(fixtures: Path, tmp_path: Path) -> None:
    t = _run(fixtures, tmp_path)
    records = value_records(values_frame([t], [replay(t)]))
    assert records[0] == {
        "trajectory": "fixture:values",
        "source_path": t.source_path,
        "rubric_index": 0,
        "passed": True,
        "value": "20,450.50",
        "number": 20450.5,
        "shown": True,
        "shown_step": 1,
        "shown_path": None,
        "delivered": True,
        "held": False,
    }
    assert records[7]["passed"] is None
    json.dumps(records)  # plain Python values only


# ---------------------------------------------------------------------------------------------------------
# value_summary


def test_value_summary_arithmetic() -> None:
    rows = [
        # passed, shown, delivered, held
        (True, True, True, True),
        (False, True, False, True),  # shown, missing, held, failed
        (False, True, False, False),  # shown, missing, not held, failed
        (True, True, False, True),  # shown, missing, held, passed
        (pd.NA, True, False, True),  # shown, missing, held, no verdict
        (False, False, True, False),  # not shown
        (False, False, False, False),  # not shown
        (True, True, True, False),
    ]
    frame = pd.DataFrame(rows, columns=["passed", "shown", "delivered", "held"]).astype({"passed": "boolean"})
    s = value_summary(frame)
    assert s["values"] == 8
    assert s["shown"] == 6  # rows 1-5 and 8
    assert s["delivered"] == 3  # rows 1, 6, 8
    assert s["held"] == 4  # rows 1, 2, 4, 5
    assert s["shown_missing"] == 4  # rows 2-5
    assert s["share_shown_missing"] == pytest.approx(4 / 6)
    assert s["shown_missing_held"] == 3  # rows 2, 4, 5
    assert s["share_missing_held"] == pytest.approx(3 / 4)
    assert s["failed_shown_missing"] == 2  # rows 2, 3 (row 5 has no verdict, row 4 passed)
    assert s["failed_shown_missing_held"] == 1  # row 2
    assert s["share_failed_missing_held"] == pytest.approx(1 / 2)


def test_value_summary_empty() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        s = value_summary(pd.DataFrame({c: pd.Series([], dtype=object) for c in VALUE_COLUMNS}))
    assert s["values"] == 0 and s["shown"] == 0
    assert math.isnan(s["share_shown_missing"]) and math.isnan(s["share_missing_held"])


def test_value_rows_are_the_frame_rows_of_the_replayed_trajectory() -> None:
    # what a worker sends back with replay_paths(each=value_rows): values_frame's rows, typed the same way
    from conftest import ROOT

    from rtlab.analysis import value_rows, values_frame, values_table
    from rtlab.environment import replay
    from rtlab.ingest import ingest

    runs = ingest([ROOT / "data" / "sample"]).trajectories
    replays = [replay(t) for t in runs]
    rows = [row for r in replays for row in value_rows(r)]
    pd.testing.assert_frame_equal(values_table(rows), values_frame(runs, replays))
    assert len(rows) > 0

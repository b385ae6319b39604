"""The number parser and the matching rule: formats, things that are not numbers, rounding, near misses, megabytes
(their speed: bench/large_inputs.py)."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest

from rtlab.text import Number, NumberIndex, find_numbers, is_year_like, matches


def one(text: str) -> Number:
    (n,) = find_numbers(text)
    return n


def parsed(text: str) -> list[tuple[str, float]]:
    return [(n.text, n.value) for n in find_numbers(text)]


# ---------------------------------------------------------------------------------------------------------
# find_numbers: formats


def test_number_fields() -> None:
    n = one("revenue was 57,615.04 million yuan")
    assert n == Number(
        value=57615040000.0,
        text="57,615.04 million",
        start=12,
        end=29,
        percent=False,
        scale=1e6,
        decimals=2,
        base=57615.04,
    )
    assert n.ulp == pytest.approx(1e4)
    assert n.significant == 7


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1,234,567", [("1,234,567", 1234567.0)]),
        ("1,234.5 and 1234.50", [("1,234.5", 1234.5), ("1234.50", 1234.5)]),
        ("1,2,3", [("1", 1.0), ("2", 2.0), ("3", 3.0)]),  # not proper groups: the commas separate
        ("1234,56", [("1234", 1234.0), ("56", 56.0)]),
        ("1,2345", [("1", 1.0), ("2345", 2345.0)]),
        ("1001592,100", [("1001592", 1001592.0), ("100", 100.0)]),
        ("3987,968,708.00", [("3987", 3987.0), ("968,708.00", 968708.0)]),
        # a bare fraction is a number (financial tables drop the leading zero: OfficeQA's bulletins write
        # ``| .4 |`` for 0.4); it was not read before codebook 2.1
        ("x = .5", [(".5", 0.5)]),
        ("file.5 and v.5 and ..5", []),
        ("0.5 and 007 and 0006", [("0.5", 0.5)]),  # leading zeros are codes
        ("1.2e-05 and 3E+2", [("1.2e-05", 1.2e-05), ("3E+2", 300.0)]),
    ],
)
def test_digits_groups_decimals(text: str, expected: list[tuple[str, float]]) -> None:
    assert parsed(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("−5 and -5 and +32.09%", [("−5", -5.0), ("-5", -5.0), ("+32.09%", 32.09)]),
        ("2024-2026", [("2024", 2024.0), ("2026", 2026.0)]),  # a hyphen after a digit is a range
        ("x-5", []),  # after a letter: an identifier part
        ("35%-45%", [("35%", 35.0), ("45%", 45.0)]),
        ("(1,234) ($1,234.5) (12.5)", [("(1,234)", -1234.0), ("($1,234.5)", -1234.5), ("(12.5)", -12.5)]),
        ("Huili B (900939), (2023), (1)", [("(900939)", 900939.0), ("(2023)", 2023.0), ("(1)", 1.0)]),
        ("f(120)", [("120", 120.0)]),  # a call's argument, not accounting
        ("-$5 and $-5 and $1,710,971.47", [("-$5", -5.0), ("$-5", -5.0), ("$1,710,971.47", 1710971.47)]),
        (
            "¥7,025,491 ￥88 €12 £3 ₹4",
            [("¥7,025,491", 7025491.0), ("￥88", 88.0), ("€12", 12.0), ("£3", 3.0), ("₹4", 4.0)],
        ),
    ],
)
def test_signs_parentheses_currency(text: str, expected: list[tuple[str, float]]) -> None:
    assert parsed(text) == expected


def test_percent() -> None:
    for text in ("12.3%", "12.3 %", "12.3％", "12.3 percent"):
        n = one(text)
        assert (n.value, n.percent, n.decimals, n.text) == (12.3, True, 1, text)
    n = one("up 5 percentage points")
    assert (n.value, n.percent) == (5.0, True)
    assert one("3‰").percent
    assert not one("12.3 pct").percent


@pytest.mark.parametrize(
    ("text", "value", "scale", "base"),
    [
        ("RMB 1.594 billion", 1.594e9, 1e9, 1.594),
        ("3 Million", 3e6, 1e6, 3.0),
        ("2 thousands", 2e3, 1e3, 2.0),
        ("1.5 hundred million", 1.5e8, 1e8, 1.5),
        ("3.2 ten thousand", 3.2e4, 1e4, 3.2),
        ("$10M", 1e7, 1e6, 10.0),
        ("5k", 5e3, 1e3, 5.0),
        ("318990B", 318990e9, 1e9, 318990.0),
        ("1.5bn", 1.5e9, 1e9, 1.5),
        ("3.2万", 3.2e4, 1e4, 3.2),
        ("3.2 万元", 3.2e4, 1e4, 3.2),
        ("1.5亿", 1.5e8, 1e8, 1.5),
        ("2万亿", 2e12, 1e12, 2.0),
        ("5百万", 5e6, 1e6, 5.0),
        ("8千元", 8e3, 1e3, 8.0),
    ],
)
def test_scale_words(text: str, value: float, scale: float, base: float) -> None:
    n = one(text)
    assert (n.value, n.scale, n.base) == (pytest.approx(value), scale, base)


def test_not_scaled() -> None:
    assert one("5 M").scale == 1  # a spaced single letter is not a scale
    assert one("5千米").scale == 1  # 5 km, not 5000
    assert one("20GB").scale == 1
    assert one("500ms").value == 500


def test_full_width_and_offsets() -> None:
    text = "增长１２．５％，利润３．２万元"
    numbers = find_numbers(text)
    assert [(n.text, n.value, n.percent) for n in numbers] == [
        ("１２．５％", 12.5, True),
        ("３．２万", 32000.0, False),
    ]
    assert [text[n.start : n.end] for n in numbers] == ["１２．５％", "３．２万"]
    assert parsed("营业收入1,594,275,100元") == [("1,594,275,100", 1594275100.0)]  # digits glued to CJK


@pytest.mark.parametrize(
    "text",
    [
        "2024-02-10",
        "2024/2/1",
        "10/02/2024",
        "2024.02.10",
        "discovered in 2024-01",
        "16:30 to 20:00",
        "2021-01-01 00:00:00",
        "Chart.js 4.4.0",
        "192.168.0.1",
        "2013.09-2018.07",
        "1/100,000 and 6/10",
        "desktop/2-financial/4-x.xlsx",
        "ID010 Q3 v1 2025Q1 K12 A35",
        "2601.12234v1 1d0b253770d8fa15 e98f0f4ff6a57f83",
        "2019_Annual_Report description_9.txt PH_11",
        "DES-0006 FA-2023-001 TEMP-TASK-005",
        "PO #1004 user@123 &#36;",
        "Top5 bibtex",
        "138XXXXXXXX",
    ],
)
def test_not_numbers(text: str) -> None:
    assert find_numbers(text) == []


def test_glued_units_and_python_reprs() -> None:
    assert parsed("500ms 5th 3kg 4.92 days") == [("500", 500.0), ("5", 5.0), ("3", 3.0), ("4.92", 4.92)]
    assert parsed("datetime.datetime(2021, 1, 1, 0, 0)") == [
        ("2021", 2021.0),
        ("1", 1.0),
        ("1", 1.0),
        ("0", 0.0),
        ("0", 0.0),
    ]
    assert parsed("[('Project 2', 534.0), ('Project 4', 476.0)]") == [
        ("2", 2.0),
        ("534.0", 534.0),
        ("4", 4.0),
        ("476.0", 476.0),
    ]
    assert parsed("19+45+61+15=140") == [
        ("19", 19.0),
        ("45", 45.0),
        ("61", 61.0),
        ("15", 15.0),
        ("140", 140.0),
    ]
    assert parsed("138****1234") == [("1234", 1234.0)]  # the masked part is not a number


def test_is_year_like() -> None:
    assert is_year_like(one("in 2023")) and is_year_like(one("(1999)"))
    assert not any(
        is_year_like(one(t)) for t in ("2,023", "2023.0", "$2023", "2023%", "2023万", "1899", "2101")
    )


# ---------------------------------------------------------------------------------------------------------
# matches


@pytest.mark.parametrize(
    ("expected", "found"),
    [
        ("1,234.5", "1234.50"),  # formatting
        ("12,345", "1.2345万"),  # scale words on either side
        ("1.2345万", "12345"),
        ("57,615.04 million", "57615040000"),
        ("57,615.04 million", "57,615,043,210"),  # within half of the expected 0.01 million
        ("RMB 463 million", "4.63亿"),
        ("RMB 463 million", "463"),  # a table "in RMB million"
        ("463", "463 million"),
        ("12.3%", "12.34%"),  # rounding the expected precision allows
        ("12.3%", "12.35%"),  # half a unit, inclusive
        ("12.3%", "12.3"),  # a plain number in a "%" column
        ("12.3%", "0.123"),  # a fraction
        ("50.4%", "0.5036"),
        ("1.65", "165%"),
        ("534", "534.0"),
        ("534", "534.4"),
        ("1,710,971.47", "1,710,971"),  # the deliverable rounded: three or more significant digits
        ("1,710,971.47", "$1.71 million"),
        ("12.34%", "12.3%"),
        ("3200", "3.2k"),  # equal values need no significant digits
        ("-8.97%", "8.97%"),  # magnitude: "down 8.97%"
        ("(1,234)", "1,234"),
        ("2023", "2023"),  # no context: a year matches an amount (expected_values decides context)
    ],
)
def test_matches(expected: str, found: str) -> None:
    assert matches(one(expected), one(found))


@pytest.mark.parametrize(
    ("expected", "found"),
    [
        ("1234", "12345"),
        ("12,345", "1,234"),
        ("12.3", "123"),
        ("12.3%", "1.23"),
        ("12.3%", "12.36%"),
        ("1234.5", "1234.56"),  # rounds to 1234.6
        ("534", "534.6"),
        ("50.4%", "50%"),  # two significant digits do not make a rounding
        ("12,345", "1.2万"),
        ("3.254 million", "3.2 million"),
        ("57,615.04 million", "57,615.04 billion"),  # a scaled value is not another scale's base
        ("0.5", "5"),
        ("476", "576"),
    ],
)
def test_near_misses(expected: str, found: str) -> None:
    assert not matches(one(expected), one(found))


def test_match_options() -> None:
    assert not matches(one("-8.97%"), one("8.97%"), signed=True)
    assert matches(one("-8.97%"), one("−8.97%"), signed=True)
    assert not matches(one("12.3%"), one("12.34%"), rounding=False)
    assert matches(one("12.3%"), one("12.30%"), rounding=False)
    assert not matches(one("100"), one("100.9"))
    assert matches(one("100"), one("100.9"), rel_tol=0.01)  # Acc@1%-style tolerance
    assert matches(one("0"), one("0.0"))


# ---------------------------------------------------------------------------------------------------------
# NumberIndex


def test_index_finds_first_in_text_order() -> None:
    text = "costs 1,234.56 then 1234.6 then 1,234.5"
    index = NumberIndex(text)
    found = index.find(one("1,234.6"))
    assert found is not None and found.text == "1,234.56"  # 1234.56 rounds to 1234.6; first in the text
    assert index.find(one("1,235")) is not None  # 1234.56 rounds to 1235 (four significant digits)
    assert index.find(one("1,233")) is None
    assert len(index) == 3


def test_index_csv_pieces_only_on_csv_lines() -> None:
    csv_line = NumberIndex("date,item,amount\n2024-01-05,Project 1,534,476\n")
    prose = NumberIndex("Total: 1,534,476 yuan, up 5%\n")
    digits_only = NumberIndex("534,476,436\n")
    for value in ("534", "476"):
        assert csv_line.find(one(value)) is not None
        assert prose.find(one(value)) is None
    assert csv_line.find(one("1,534,476")) is not None  # the grouped reading stays
    assert digits_only.find(one("534")) is None  # cannot be told from one grouped number
    piece = csv_line.find(one("476"))
    assert piece is not None and "2024-01-05,Project 1,534,476"[piece.start - 17 : piece.end - 17] == "476"


def test_index_percent_fraction_and_scale_readings() -> None:
    index = NumberIndex("progress 0.504, revenue 463 (RMB million), growth 32.09")
    assert index.find(one("50.4%")) is not None
    assert index.find(one("463 million")) is not None
    assert index.find(one("32.09%")) is not None
    assert index.find(one("46.3%")) is None
    assert NumberIndex("").find(one("120")) is None


def test_megabytes_of_output() -> None:
    # how fast: bench/large_inputs.py (find_numbers over these 4 MB, against a bare digit scan)
    line = "(None, datetime.datetime(2021, 5, 1, 0, 0), 'Expense', 'Project 5', 1,234.50, 'Alipay', 12.3%)\n"
    text = line * (4_000_000 // len(line))  # 4 MB of tool output, 8 numbers a line
    numbers = find_numbers(text)
    assert len(numbers) == 8 * (4_000_000 // len(line))
    assert [n.value for n in numbers[:8]] == [n.value for n in find_numbers(line)]
    assert [n.value for n in numbers[-8:]] == [n.value for n in find_numbers(line)]
    plain = "word " * 800_000  # 4 MB without a digit: the cheap first test rejects every position
    assert find_numbers(plain) == []


# ---------------------------------------------------------------------------------------------------------
# Every real rubric


def _lite_rubrics(real: Path) -> list[str]:
    table = real / "workspace-bench" / "lite_metadata" / "task_lite_clean_en_metadata_table.csv"
    with table.open(encoding="utf-8", newline="") as fh:
        return [text for row in csv.DictReader(fh) for text in json.loads(row["rubrics"])]


def test_every_real_rubric_parses(real: Path) -> None:
    rubrics = _lite_rubrics(real)
    assert len(rubrics) == 1850
    numbers = [find_numbers(text) for text in rubrics]
    # 1,014 rubrics hold a digit; 844 of them a number (the rest only dates, ids, file names, versions)
    assert sum(1 for text in rubrics if any(c.isdigit() for c in text)) == 1014
    assert sum(1 for ns in numbers if ns) == 844
    flat = [n for ns in numbers for n in ns]
    assert len(flat) == 1721
    assert sum(n.percent for n in flat) == 255
    assert sum(n.scale != 1 for n in flat) == 38
    assert sum(n.value < 0 for n in flat) == 14
    assert sum("," in n.text for n in flat) == 164
    for text, ns in zip(rubrics, numbers, strict=True):
        for n in ns:  # offsets point at the text as written
            assert text[n.start : n.end] == n.text
    runs = real / "workspace-bench" / "codex-gpt-5.4-runs"
    run_rubrics = [
        text
        for path in sorted(runs.glob("*/output/metadata.json"))
        for text in json.loads(path.read_text())["rubrics"]
    ]
    assert len(run_rubrics) == 220  # 15 runs of tasks 15, 44 and 95
    assert sum(1 for text in run_rubrics if find_numbers(text)) == 95
    assert sum(len(find_numbers(text)) for text in run_rubrics) == 250
    assert set(run_rubrics) <= set(rubrics)  # the runs' rubrics are the Lite table's


def test_number_index_is_kept_for_texts_asked_about_again() -> None:
    from rtlab.text._numbers import _INDEXED_CHARS, number_index

    text = "Revenue 1,234.5 and 12% growth"
    first = number_index(text)
    assert number_index("Revenue 1,234.5 and 12% " + "growth") is first  # equal text, same index
    assert [n.text for n in first.numbers] == [n.text for n in NumberIndex(text).numbers]
    big = "7 " * (_INDEXED_CHARS // 2 + 1)  # past the bound: built anew each time, never held
    assert number_index(big) is not number_index(big)
    assert len(number_index(big)) == len(NumberIndex(big))

"""Codebook 2.1's rules of a wrong one-number answer (rtlab.analysis._operands; R7a-R7c), on hand-made runs of
a question-answering task: a wrong row, a shifted column, the wrong scale, the wrong cell, and the cases the
rules must leave alone (a wrong formula over the right operands, a report that states many numbers)."""

from __future__ import annotations

import pytest

from rtlab.analysis import diagnose
from rtlab.analysis._operands import (
    _FUNCTIONS,
    _Program,
    misbuilt,
    one_number_answer,
    python_programs,
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
from rtlab.text import find_numbers

UTF = (
    "Table 4. Unemployment Trust Fund (millions)\n\n"
    "| Month | Receipts | Balance | Interest |\n"
    "| 1946-June | 1,010.2 | 7449.1 | 105.9 |\n"
    "| 1946-December | 1,120.9 | 7585.3 | 110.4 |\n"
    "| 1947-December | 1,204.6 | 8124.2 | 121.3 |\n"
)
ROW_PROGRAM = (
    "python3 - <<'PY'\n"
    "# real change, CPI-U annual averages\n"
    "bal_1946 = 7449.1\nbal_1947 = 8124.2\ncpi_1946 = 19.5\ncpi_1947 = 22.3\n"
    "ans = bal_1947 - bal_1946 * cpi_1947 / cpi_1946\nprint(round(ans, 1))\nPY"
)
DEBT = (
    "| End of fiscal year | Total | Public debt securities | Agency | Held by the public |\n"
    "| 1960 | 293100 | 286331 | 6770 | 237177 |\n"
    "| 1961 | 295000 | 288971 | 6029 | 238604 |\n"
)
COLUMN_PROGRAM = (
    "python3 -c 'fy1960=237177\nfy1961=238604\ncpi60, cpi61, cpi62 = 29.6, 29.9, 30.2\n"
    "print(abs(fy1961*cpi62/cpi61 - fy1960*cpi62/cpi60))'"
)


def run(shown: str, program: str | None, answer: str, expected: str, *, printed: str = "") -> Trajectory:
    """A one-question run: a table shown, the agent's program (if any), the answer written to output.txt."""
    heading = "Treasury Bulletin, Table FFO-2: receipts and outlays by month (in millions of dollars)\n\n"
    calls = [("cat sources/bulletin.txt", heading + shown)]
    if program is not None:
        calls.append((program, printed))
    steps = [
        Step(i, "shell", cmd, output=out, shown=out, seq=i, action=Action.shell(cmd))
        for i, (cmd, out) in enumerate(calls)
    ]
    task = Task(
        id="q1",
        benchmark="officeqa",
        instruction="Answer the question from the bulletins.",
        rubric=[
            RubricItem(index=0, text="final answer matches the ground truth within tolerance", type="answer")
        ],
        source_files=["bulletin.txt"],
        answer=expected,
    )
    return Trajectory(
        id="fx:q1",
        format="g2b",
        source_path="/nowhere",
        cwd="/ws",
        steps=steps,
        deliverable=Deliverable(
            final_message=answer, files=[DeliverableFile("output.txt", content=answer + "\n")]
        ),
        task=task,
        judgement=Judgement(items=[ItemResult(index=0, passed=False, evidence="")]),
    )


def label(t: Trajectory) -> tuple[str, str, str | None, str]:
    (lab,) = diagnose(t, replay(t))
    return lab.rule, lab.category, lab.subreason, lab.rationale


def test_a_wrong_row_shown_beside_the_right_one_is_a_distortion() -> None:
    # 8124.2 - 7449.1 * 22.3 / 19.5 = -394.514 (the agent's answer, the June balance); with the December row's
    # 7585.3 in the same column: 8124.2 - 7585.3 * 22.3 / 19.5 = -550.271, the expected -550.3 within 0.1%
    t = run(UTF, ROW_PROGRAM, "-394.5", "-550.3", printed="-394.5\n")
    rule, category, _, why = label(t)
    assert (rule, category) == ("R7a", "dropped_or_distorted")
    assert "7449.1 replaced by 7585.3 from the same column" in why and "shown at step 0" in why
    (lab,) = diagnose(t, replay(t))
    assert lab.evidence[0]["step"] == 0 and "7585.3" in lab.evidence[0]["excerpt"]


def test_a_shifted_column_moves_every_operand_of_it() -> None:
    # |238604*30.2/29.9 - 237177*30.2/29.6| = 986.622 (held by the public); with the column of public debt
    # securities, |288971*30.2/29.9 - 286331*30.2/29.6| = 264.632, the expected; one operand alone moved gives
    # neither (e.g. |288971*30.2/29.9 - 237177*30.2/29.6| = 49,892.4)
    t = run(DEBT, COLUMN_PROGRAM, "986.622", "264.632", printed="986.6218250022212\n")
    rule, category, _, why = label(t)
    assert (rule, category) == ("R7a", "dropped_or_distorted")
    assert "the column moved: 237177 by 286331, 238604 by 288971" in why


def test_right_operands_with_a_wrong_formula_stay_reasoning() -> None:
    # both holdings shown and used; (4156876 - 4034853) / 2 = 61011.5 instead of the growth over the mean,
    # 122023 / 4095864.5 = 0.0298 ~ 0.03: no operand swapped in from the table gives 0.03
    shown = "| 2006 - June | 4034853 | 3491421 |\n| 2007 - June | 4156876 | 3589934 |\n"
    program = "python3 -c 'print((4156876 - 4034853) / 2)'"
    t = run(shown, program, "61011.50", "0.03", printed="61011.5\n")
    rule, category, subreason, _ = label(t)
    assert (rule, category, subreason) == ("R10", "other", "reasoning_computation")


def test_the_wrong_scale_and_the_wrong_cell() -> None:
    # 92 (millions, as the table gives it) x 10^6 = 92,000,000, the expected: the wrong scale
    t = run("| Month | Receipts |\n| February | 92 |\n| March | 88 |\n", None, "92", "92000000")
    assert label(t)[:2] == ("R7b", "dropped_or_distorted")
    # the expected 56 is January's cell; the answer 338 copies |-338|, another cell of the same table
    months = "| 2016 - Jan | 1206 | 56 |\n| Feb | 1473 | -353 |\n| 2016 | 1380 | -338 |\n"
    t = run(months, None, "338", "56")
    rule, category, _, why = label(t)
    assert (rule, category) == ("R7c", "dropped_or_distorted") and "-338" in why
    # the same answer where the expected value was never shown: no cell to have copied instead
    t = run("| Feb | 1473 | -353 |\n| 2016 | 1380 | -338 |\n", None, "338", "56")
    assert label(t)[:2] == ("R10", "other")


def test_a_report_is_no_one_number_answer() -> None:
    report = "Q3 review: revenue 1,204.6, balance 7449.1 and 8124.2; growth -394.5 over the year."
    assert one_number_answer([("r.md", report)]) is None
    assert one_number_answer([("out.txt", "2,602\n"), ("final", "The answer is 2602.")]).value == 2602
    assert one_number_answer([("out.txt", "12 or 13")]) is None
    t = run(UTF, ROW_PROGRAM, report, "-550.3", printed="-394.5\n")
    expected = find_numbers("-550.3")[0]
    assert misbuilt(t, expected, [("report.md", report)]) is None
    # the answer is the expected value: nothing misbuilt
    assert misbuilt(t, expected, [("out.txt", "-550.3")]) is None


def test_programs_found_in_commands_and_the_interpreter_rules() -> None:
    step = Step(0, "shell", "", action=Action.shell("cd w && python3 -c 'print(1+2)' | tee x"))
    assert python_programs(step) == ["print(1+2)"]
    step = Step(0, "shell", "", action=Action.shell(ROW_PROGRAM))
    assert python_programs(step)[0].startswith("# real change")
    step = Step(0, "python", "", action=Action("script", command="print(2)", language="python"))
    assert python_programs(step) == ["print(2)"]
    step = Step(0, "shell", "", action=Action.shell("python3 analyse.py data.csv"))
    assert python_programs(step) == []  # the program's text is not in the log
    assert _Program("from statistics import pstdev as sd\nx = [1.0, 3.0]\nprint(sd(x))").run() == [1.0]
    assert _Program("import math, numpy as np\nx = 2\nx **= 3\nprint(f'{x:.1f} {math.sqrt(16)}')").run() == [
        8.0,
        4.0,
    ]
    assert "sd" not in _FUNCTIONS  # an import binds a name for that run only
    # what it cannot re-run changes none of its data and prints no number: a file read as a statement, a
    # library it does not know, a power too large to compute
    assert _Program("open('f').read()\nprint(1)").run() == [1.0]
    assert _Program("import numpy as np\nprint(np.mean([1, 2]))\nprint(2 ** 999)").run() == []
    with pytest.raises(Exception):  # noqa: B017 - _Unsupported, private: a loop past the budget
        _Program("x = 0\nfor i in range(10 ** 6):\n    x += i\nprint(x)").run()


def test_a_row_of_the_same_name_in_another_table_and_a_program_with_data() -> None:
    # an estimate row and, in a later bulletin, the actual row of the same year; the agent's program keeps the
    # pairs in a dict by year (keys and years are names, never operands), loops over them, and reads a file
    # first (a name it cannot re-run, never used after)
    estimate = "| Fiscal year | Total | On-budget | Off-budget |\n| 2000 | 2025191 | 1544455 | 480583 |\n"
    estimate += "| 2001 - Est | 2136946 | 1633076 | 503870 |\n"
    actual = "Receipts, actual (millions)\n\n| Fiscal year | Total | On-budget | Off-budget |\n"
    actual += "| 2000 | 2025191 | 1544455 | 480583 |\n| 2001 | 1991044 | 1483525 | 507519 |\n"
    program = (
        "python3 - <<'PY'\nfrom pathlib import Path\ntext = Path('sources/b.txt').read_text()\n"
        "pairs = {2000: (1544455, 480583), 2001: (1633076, 503870)}\nratio = []\n"
        "for year in sorted(pairs):\n    on, off = pairs[year]\n    ratio.append(off / on)\n"
        "print(round(sum(ratio) / len(ratio), 4))\nPY"
    )
    # the agent: (480583/1544455 + 503870/1633076) / 2 = (0.311167 + 0.308540) / 2 = 0.3099; with the actual
    # 2001 row: (0.311167 + 507519/1483525) / 2 = (0.311167 + 0.342103) / 2 = 0.3266
    t = run(estimate, program, "0.3099", "0.3266", printed="0.3099\n")
    t.steps.insert(1, Step(1, "shell", "cat sources/b2.txt", output=actual, shown=actual, seq=1))
    t.steps[1].action = Action.shell("cat sources/b2.txt")
    t.steps[2].index = t.steps[2].seq = 2
    rule, category, _, why = label(t)
    assert (rule, category) == ("R7a", "dropped_or_distorted")
    assert "the row moved to the row '2001' of another table: 1633076 by 1483525, 503870 by 507519" in why
    assert _Program(program.split("\n", 1)[1].rsplit("PY", 1)[0]).run() == [0.3099]
    # keys, subscripts and years are no operands
    p = _Program("rows = {2001: 1633076}\nx = rows[2001] * 2\nprint(x)")
    assert sorted((n.value, id(n) in p.keys) for n in p.literals) == [
        (2, False),
        (2001, True),
        (2001, True),
        (1633076, False),
    ]
    # a name bound to what it cannot re-run is unknown, and so is all computed from it: printed, nothing
    assert _Program(
        "import json\nd = json.load(open('f'))\nx = d['x'] * 2\nprint(x)\nprint(3 * 4)"
    ).run() == [12.0]

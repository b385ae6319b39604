"""Large inputs: the speed claims the test suite used to time, each against a baseline measured in the same run.

    python bench/large_inputs.py [--repeat N]

The tests keep what these inputs must give (counts, paths, scores) and no clock; the time is measured here.

1. Numbers: ``rtlab.text.find_numbers`` over 4 MB of tool output (8 numbers a line) and over 4 MB without a
   digit. Baseline: one ``re.finditer`` pass of a bare digit-run pattern over the same text (scanning it at all).
2. Capture: ``capture_step`` of ``cat``, ``find`` and ``grep -rn`` steps whose outputs are 0.8-1 MB, and of the
   same steps on a tenth of the output. Baseline: ``str.splitlines`` of the output. Growth = time per byte at
   full size over time per byte at a tenth (1.00: linear).
3. OfficeQA: ``score_answer`` of a 12-item list ground truth against 24 comma-separated 3-digit pieces (an
   unrelated answer and the same list), whose C(23, 11) = 1,352,078 readings the official code enumerates
   (~16 s). Baseline: the same pair of answers for a 2-item list (4 pieces).

The budgets the tests used to assert on the wall clock (find_numbers 4 MB < 3 s, 4 MB without digits < 1 s, each
capture < 2 s, both long-list scores < 2 s) are printed as goals beside the times.
"""

from __future__ import annotations

import argparse
import re
import sys
from functools import partial
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _timing import best  # noqa: E402

from rtlab.environment import capture_step  # noqa: E402
from rtlab.ingest.benchmarks.officeqa_scorer import score_answer  # noqa: E402
from rtlab.records import Action, Step  # noqa: E402
from rtlab.text import find_numbers  # noqa: E402

AGENT_ROOT = "/home/agent/ws"
DIGITS = re.compile(r"\d+")
LINE = "(None, datetime.datetime(2021, 5, 1, 0, 0), 'Expense', 'Project 5', 1,234.50, 'Alipay', 12.3%)\n"


def outputs(scale: int) -> list[tuple[str, str]]:
    """The capture steps of the old megabyte test (``scale`` 10) or a tenth of them (``scale`` 1)."""
    body = "\n".join(
        f"line {i}: the quick brown fox jumps over the lazy dog {i * 7919 % 10007}"
        for i in range(1600 * scale)
    )
    listing = "\n".join(f"./dir{i % 97}/sub{i % 13}/file_{i}.txt" for i in range(3000 * scale))
    grep = "\n".join(f"./d{i % 40}/f{i % 400}.txt:{i}:match {i}" for i in range(3000 * scale))
    return [("cat big.txt", body), ("find . -type f", listing), ("grep -rn match .", grep)]


def scan(text: str) -> int:
    """The baseline of part 1: digit runs found by one bare regular-expression pass."""
    return sum(1 for _ in DIGITS.finditer(text))


def capture(command: str, shown: str) -> object:
    step = Step(
        index=0, tool="shell", command=command, output=shown, shown=shown, action=Action.shell(command)
    )
    found = capture_step(step, cwd=AGENT_ROOT, root=AGENT_ROOT)
    assert found.reads or found.listed, f"{command}: capture found nothing, so nothing would be timed"
    return found


def goal(seconds: float, budget: float) -> str:
    return f"< {budget:g} s {'met' if seconds < budget else 'NOT met'}"


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    r = args.repeat
    print(f"rtlab large-input benchmark (best of {r}); ratio = rtlab / baseline of the same run")

    print("\nPart 1: find_numbers over 4 MB; baseline = re.finditer(r'\\d+') over the same text")
    print(
        f"{'text':<26}{'MB':>6}{'numbers':>10}{'base ms':>9}{'rtlab ms':>10}{'ratio':>8}  former test budget"
    )
    numbered = LINE * (4_000_000 // len(LINE))
    plain = "word " * 800_000
    for name, text, budget in (("8 numbers a line", numbered, 3.0), ("no digit", plain, 1.0)):
        n = len(find_numbers(text))
        base = best(partial(scan, text), r)
        ours = best(partial(find_numbers, text), r)
        print(
            f"{name:<26}{len(text) / 1e6:>6.2f}{n:>10,}{base * 1e3:>9.1f}{ours * 1e3:>10.1f}{ours / base:>8.1f}"
            f"  {goal(ours, budget)}"
        )

    print("\nPart 2: capture of one step with a large output; baseline = str.splitlines of the output;")
    print("growth = (time / byte at full size) / (time / byte at a tenth of it)")
    print(
        f"{'command':<20}{'MB':>6}{'base ms':>9}{'rtlab ms':>10}{'ratio':>8}{'tenth ms':>10}{'growth':>8}"
        "  former test budget"
    )
    for (command, shown), (_, tenth) in zip(outputs(10), outputs(1), strict=True):
        base = best(shown.splitlines, r)
        ours = best(partial(capture, command, shown), r)
        small = best(partial(capture, command, tenth), r)
        growth = (ours / len(shown)) / (small / len(tenth))
        print(
            f"{command:<20}{len(shown) / 1e6:>6.2f}{base * 1e3:>9.1f}{ours * 1e3:>10.1f}{ours / base:>8.1f}"
            f"{small * 1e3:>10.1f}{growth:>8.2f}  {goal(ours, 2.0)}"
        )

    print("\nPart 3: OfficeQA list answers; baseline = the same answers to a 2-item list (4 pieces)")
    print(f"{'ground truth':<26}{'pieces':>7}{'base ms':>9}{'rtlab ms':>10}{'ratio':>8}  former test budget")
    long_gt = "[" + ", ".join(f"{i}00,{i}11" for i in range(1, 13)) + "]"
    long_answers = (
        ",".join(f"{100 + i},{200 + i}" for i in range(1, 13)),
        ",".join(f"{i}00,{i}11" for i in range(1, 13)),
    )
    short_gt = "[100,111, 200,211]"
    short_answers = ("101,201,102,202", "100,111,200,211")
    assert [score_answer(long_gt, a, 0.0) for a in long_answers] == [0.0, 1.0]
    assert [score_answer(short_gt, a, 0.0) for a in short_answers] == [0.0, 1.0]
    base = best(lambda: [score_answer(short_gt, a, 0.0) for a in short_answers], r)
    ours = best(lambda: [score_answer(long_gt, a, 0.0) for a in long_answers], r)
    print(
        f"{'12 items':<26}{24:>7}{base * 1e3:>9.2f}{ours * 1e3:>10.2f}{ours / base:>8.1f}  {goal(ours, 2.0)}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

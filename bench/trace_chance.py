"""How often the trace of a computed answer finds it by chance (rtlab issue 25, pattern 5), measured on
questions the rules were not written from.

    python bench/trace_chance.py [REAL] [--others 4] [--seed 0] [--write]

For every OfficeQA question of ``officeqa/questions/officeqa_full.csv`` whose answer is one number and whose
source bulletins are all in ``officeqa/treasury_bulletins_transformed_subset`` (REAL defaults to
``../shared/real`` beside the clone; without it the script says so and exits 0), the expected value is searched
(:func:`rtlab.analysis._expressions.find_expression`) over:

- its own bulletins: what a run that printed them whole would have been shown. A find there is the expected
  value standing as the question's quantity, or a chance hit: an upper bound on what the trace can explain;
- ``--others`` other bulletins per question (drawn with ``--seed``), as many as its own: a find there is a chance
  hit (or, rarely, the same quantity reprinted in another issue). Its rate is what a run that printed a large,
  unrelated table risks: the digits of the answer taken for the answer.

Both the way what was shown is searched (``shown``) and the way source files are (``sources``, strict: half
the question's quantity terms). Nothing is fitted: the rules are fixed; this measures them. ``--write`` replaces
the ``## Trace by chance`` section of ``bench/RESULTS.md`` (atomically).
"""

from __future__ import annotations

import argparse
import csv
import random
import sys
import time
from collections import Counter
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

HEADING = "## Trace by chance"
"""The section of bench/RESULTS.md this script's output stands under."""
QUESTIONS = Path("officeqa/questions/officeqa_full.csv")
BULLETINS = Path("officeqa/treasury_bulletins_transformed_subset")


def questions(real: Path) -> list[tuple[str, str, str, list[str]]]:
    """(uid, question, answer, source files) of every question with one number for an answer whose files are
    all in the bulletins folder."""
    from rtlab.text import find_numbers

    have = {p.name for p in (real / BULLETINS).iterdir()}
    out = []
    with open(real / QUESTIONS, encoding="utf-8", newline="") as fh:
        for row in csv.DictReader(fh):
            files = [f.strip() for f in row["source_files"].splitlines() if f.strip()]
            if files and all(f in have for f in files) and len(find_numbers(row["answer"])) == 1:
                out.append((row["uid"], row["question"], row["answer"], files))
    return out


def measure(real: Path, *, others: int, seed: int) -> list[str]:
    """The section's lines."""
    from rtlab.analysis._expressions import SourceFolder, find_expression
    from rtlab.text import find_numbers

    folder = SourceFolder(real / BULLETINS)
    every = sorted(p.name for p in (real / BULLETINS).iterdir())
    qs = questions(real)
    rng = random.Random(seed)
    draws = {
        uid: [rng.sample([f for f in every if f not in files], len(files)) for _ in range(others)]
        for uid, _, _, files in qs
    }
    start = time.perf_counter()
    lines = [
        f"{len(qs)} questions (one-number answers, bulletins here), {others} draws of other bulletins each "
        f"(seed {seed}):",
        "",
        "| search | found in its own bulletins | found in other bulletins (chance) | own finds by kind | chance finds by "
        "kind | searches cut |",
        "|---|---|---|---|---|---|",
    ]
    for mode, strict in (("shown", False), ("sources", True)):
        own = chance = cut = 0
        kinds: Counter[str] = Counter()
        own_kinds: Counter[str] = Counter()
        for uid, question, answer, files in qs:
            target = find_numbers(answer)[0]
            search = find_expression(folder.tables(files), target, question, strict=strict)
            cut += search.cut
            if search.found is not None:
                own += 1
                own_kinds[search.found.kind] += 1
            for drawn in draws[uid]:
                search = find_expression(folder.tables(drawn), target, question, strict=strict)
                cut += search.cut
                if search.found is not None:
                    chance += 1
                    kinds[search.found.kind] += 1
        searches = len(qs) * others
        lines.append(
            f"| {mode} | {own} of {len(qs)} ({own / max(len(qs), 1):.1%}) | {chance} of {searches} "
            f"({chance / max(searches, 1):.1%}) | {', '.join(f'{k} {n}' for k, n in sorted(own_kinds.items()))} "
            f"| {', '.join(f'{k} {n}' for k, n in sorted(kinds.items()))} | {cut} of {searches + len(qs)} |"
        )
    lines += ["", f"({time.perf_counter() - start:.0f} s)", ""]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "real", nargs="?", default=str(ROOT.parent / "shared" / "real"), help="real-data folder"
    )
    parser.add_argument("--others", type=int, default=4, help="draws of other bulletins per question")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--write", action="store_true", help=f"replace bench/RESULTS.md's {HEADING!r} section"
    )
    args = parser.parse_args(argv)
    real = Path(args.real)
    missing = [p for p in (real / QUESTIONS, real / BULLETINS) if not p.exists()]
    if missing:
        print(f"trace_chance: skipped, not found: {', '.join(map(str, missing))}")
        return 0
    body = "\n".join([HEADING, "", *measure(real, others=args.others, seed=args.seed)])
    print(body)
    if args.write:
        from diagnosis import write_section

        write_section(ROOT / "bench" / "RESULTS.md", body, heading=HEADING)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

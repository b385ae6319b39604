"""The rule labels against the careful human labels of the shared real runs, per task and per rule: how far the
diagnosis generalizes (rtlab issue 25).

    python bench/diagnosis.py [REAL] [--n-boot 1000] [--write]

REAL is the folder of real data (default ``../shared/real`` beside the clone); without it the script says so
and exits 0. For Workspace-Bench (``workspace-bench/codex-gpt-5.4-runs`` against ``workspace-bench/
gold_labels.csv``) and OfficeQA (``officeqa/g2b-gpt-5.4-traces`` against ``officeqa/gold_labels.csv``) it
labels every failed rubric item with the rules (:func:`rtlab.annotation.rule_labels`, with the tasks' source
files where a folder near the runs holds them: ``sources="auto"``) and prints, as markdown:

- Cohen's kappa over all items and over the clear ones, with a bootstrap interval, and the agreement count;
  the source folder used, and the agreement without it;
- per task (a Workspace-Bench task, an OfficeQA question: ``Trajectory.task_id``): n, agreement, kappa, over
  all and over the clear items (:func:`rtlab.annotation.agree_with_gold` with ``by="task"``); an undefined
  kappa (one class on both sides) is ``n/a`` with the reason;
- per rule: the items it labelled, those it decided (not ``other/undetermined``), its precision on the gold;
- leave one task out: for each task, agreement and kappa on its items beside those on the benchmark's other
  tasks, the task's items decided by a rule that decides no item of another task (a rule only this task's runs
  exercise), and the agreement the other tasks' per-rule precision predicts for the task's items (their
  decided items, each counted at its rule's precision elsewhere; rules unseen elsewhere left out). Nothing is
  fitted: the rules are fixed, and this only sets each task beside the others.

``--write`` replaces the ``## Diagnosis against the gold`` section of ``bench/RESULTS.md`` with this output
(written atomically). Times are wall-clock seconds for reading, replaying and labelling.
"""

from __future__ import annotations

import argparse
import math
import sys
import textwrap
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rtlab.annotation import GoldAgreement, agree_with_gold, read_gold_labels, rule_labels  # noqa: E402

if TYPE_CHECKING:
    import pandas as pd

HEADING = "## Diagnosis against the gold"
"""The section of bench/RESULTS.md this script's output stands under."""
BENCHMARKS = (
    ("Workspace-Bench", "workspace-bench/codex-gpt-5.4-runs", "workspace-bench/gold_labels.csv"),
    ("OfficeQA", "officeqa/g2b-gpt-5.4-traces", "officeqa/gold_labels.csv"),
)
"""(name, runs folder, gold file), relative to the real-data folder."""


def label_runs(folder: Path, *, sources: bool = True) -> tuple[pd.DataFrame, int, float, list[Path]]:
    """The rule labels (long form, with ``rule`` and ``task_id``) of every run under ``folder``, the number of
    trajectories, the seconds taken and the folders of source files used: with ``sources``, those found near
    the runs (``sources="auto"``, :class:`rtlab.analysis.SourceFinder`), else none."""
    from rtlab.analysis import SourceFinder
    from rtlab.environment import replay
    from rtlab.ingest import ingest

    start = time.perf_counter()
    trajectories = ingest(sorted(str(p) for p in folder.iterdir() if p.is_dir())).trajectories
    finder = SourceFinder() if sources else None
    labels = rule_labels(trajectories, [replay(t) for t in trajectories], sources=finder)
    return labels, len(trajectories), time.perf_counter() - start, finder.used if finder else []


def number(value: Any, digits: int = 3) -> str:
    """A table cell: ``n/a`` for an undefined value, else the value (floats to ``digits`` decimals)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    if isinstance(value, float):
        return f"{value:.{digits}f}"
    return str(value)


def table(frame: pd.DataFrame, columns: list[str]) -> list[str]:
    """``frame``'s ``columns`` as a markdown table."""
    lines = ["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
    for row in frame[columns].to_dict("records"):
        lines.append("| " + " | ".join(number(row[c]) for c in columns) + " |")
    return lines


def overall(report: GoldAgreement) -> list[str]:
    """Kappa and agreement over all items and the clear ones."""
    lines = []
    for r in report.summary.to_dict("records"):
        agree = round(r["agreement"] * r["n"]) if r["n"] else 0
        lines.append(
            f"- {r['subset']}: kappa {number(r['kappa'])} [{number(r['kappa_low'])}, {number(r['kappa_high'])}], "
            f"{agree} of {r['n']} agree ({number(r['agreement'])}); {r['n_gold']} gold items"
        )
    if len(report.unlabelled):
        lines.append(f"- not labelled by the rules: {', '.join(report.unlabelled['item'])}")
    return lines


def leave_one_task_out(gold: pd.DataFrame, labels: pd.DataFrame, report: GoldAgreement) -> pd.DataFrame:
    """Per task: its items' agreement beside the other tasks', and what the other tasks' rule precision
    predicts for it (module docstring)."""
    import pandas as pd

    items = report.items
    assert report.groups is not None
    rows = []
    for task in report.groups["group"]:
        mine = items[items["task_id"].fillna("(unknown)") == task]
        rest_gold = gold[~gold["run"].isin(set(mine["run"]))]
        rest = agree_with_gold(rest_gold, labels, n_boot=0) if len(rest_gold) else None
        precision: dict[str, float] = {}
        if rest is not None and rest.rules is not None:
            precision = {r["rule"]: r["precision"] for r in rest.rules.to_dict("records") if r["decided"] > 0}
        here = report.groups.set_index("group").loc[task]
        decided = mine[mine["decided"].astype(bool)]
        unseen = decided[~decided["rule"].isin(list(precision))]
        seen = decided[decided["rule"].isin(list(precision))]
        predicted = float(seen["rule"].map(precision).mean()) if len(seen) else math.nan
        rest_all = rest.summary.set_index("subset").loc["all"] if rest is not None else None
        rows.append(
            {
                "task": task,
                "n": int(here["n"]),
                "agreement": here["agreement"],
                "kappa": here["kappa"],
                "rest n": int(rest_all["n"]) if rest_all is not None else 0,
                "rest agreement": rest_all["agreement"] if rest_all is not None else math.nan,
                "rest kappa": rest_all["kappa"] if rest_all is not None else math.nan,
                "decided": len(decided),
                "by rules unseen elsewhere": f"{len(unseen)} ({int(unseen['agree'].sum())} agree)"
                + (f": {', '.join(sorted(set(unseen['rule'])))}" if len(unseen) else ""),
                "agreement, rules seen elsewhere": float(seen["agree"].mean()) if len(seen) else math.nan,
                "predicted by their precision elsewhere": predicted,
            }
        )
    return pd.DataFrame(rows)


def benchmark(name: str, runs: Path, gold_path: Path, *, n_boot: int) -> list[str]:
    """The section's part for one benchmark."""
    labels, n_runs, seconds, used = label_runs(runs)
    gold = read_gold_labels(gold_path)
    report = agree_with_gold(gold, labels, by="task", n_boot=n_boot)
    if used:  # what the source files add: the same runs labelled without them
        bare = agree_with_gold(gold, label_runs(runs, sources=False)[0], n_boot=0).summary.set_index("subset")
        found = ", ".join(
            str(p.relative_to(runs.parent)) if p.is_relative_to(runs.parent) else str(p) for p in used
        )
        sourced = (
            f'- source files found near the runs (`sources="auto"`): {found}; without them: kappa over all '
            f"{number(bare.loc['all', 'kappa'])}, {round(bare.loc['all', 'agreement'] * bare.loc['all', 'n'])} of "
            f"{bare.loc['all', 'n']} agree"
        )
    else:
        sourced = (
            "- no folder near the runs holds their tasks' source files: traced through what was shown only"
        )
    assert report.groups is not None and report.rules is not None
    summary = report.summary.set_index("subset")
    agree = int(report.items["agree"].sum())
    targets = (
        f"issue 25's targets on the shared gold: kappa over all > 0.80 (now {number(summary.loc['all', 'kappa'])}),"
        f" over clear >= 0.95 (now {number(summary.loc['clear', 'kappa'])})"
        if name == "Workspace-Bench"
        else f"issue 25's target on the shared gold: at least 15 of {len(gold)} agree (now {agree})"
    )
    lines = [
        f"### {name}: {n_runs} trajectories, {len(labels)} failed items labelled in {seconds:.1f} s "
        f"({runs.name} against {gold_path.name})",
        "",
        *overall(report),
        sourced,
        f"- {targets}",
        "",
        "Per category (all items, gold as the truth):",
        "",
        *table(
            report.scores[report.scores["subset"] == "all"],
            ["category", "precision", "recall", "f1", "support"],
        ),
        "",
        "Per task (n/a: kappa undefined, the note says why; 0 by construction: one side gives one class):",
        "",
        *table(
            report.groups.rename(columns={"group": "task"}),
            [
                "task",
                "n_gold",
                "n",
                "agree",
                "agreement",
                "kappa",
                "n_clear",
                "agreement_clear",
                "kappa_clear",
                "note",
            ],
        ),
        "",
        "Per rule (decided: not `other/undetermined`; precision: decided items whose gold category is the rule's):",
        "",
        *table(
            report.rules, ["rule", "labels", "items", "abstained", "decided", "correct", "precision", "low"]
        ),
        "",
        "Leave one task out (rest: the benchmark's other tasks; the last two columns: the task's decided items "
        "whose rule decides items of other tasks too, their agreement and their rules' mean precision there):",
        "",
        *table(
            leave_one_task_out(gold, labels, report),
            [
                "task",
                "n",
                "agreement",
                "kappa",
                "rest n",
                "rest agreement",
                "rest kappa",
                "decided",
                "by rules unseen elsewhere",
                "agreement, rules seen elsewhere",
                "predicted by their precision elsewhere",
            ],
        ),
        "",
    ]
    return lines


def write_section(results: Path, body: str, *, heading: str = HEADING) -> None:
    """Replace (or append) the ``heading`` section of ``results`` with ``body``, atomically."""
    from rtlab.io import atomic_open

    text = results.read_text(encoding="utf-8")
    lines = text.splitlines(keepends=True)
    start = next((i for i, line in enumerate(lines) if line.rstrip("\n") == heading), None)
    if start is None:
        new = text.rstrip("\n") + "\n\n" + body
    else:
        end = next((i for i in range(start + 1, len(lines)) if lines[i].startswith("## ")), len(lines))
        new = "".join(lines[:start]) + body + ("\n" + "".join(lines[end:]) if end < len(lines) else "")
    with atomic_open(results) as fh:
        fh.write(new)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "real", nargs="?", default=str(ROOT.parent / "shared" / "real"), help="real-data folder"
    )
    parser.add_argument("--n-boot", type=int, default=1000, help="bootstrap resamples for kappa's interval")
    parser.add_argument(
        "--write", action="store_true", help=f"replace bench/RESULTS.md's {HEADING!r} section"
    )
    args = parser.parse_args(argv)
    real = Path(args.real)
    missing = [p for _, runs, gold in BENCHMARKS for p in (real / runs, real / gold) if not p.exists()]
    if missing:
        print(f"bench/diagnosis.py: skipped: no real data ({', '.join(map(str, missing))} not found)")
        return 0
    out = []
    for name, runs, gold in BENCHMARKS:
        out += benchmark(name, real / runs, real / gold, n_boot=args.n_boot)
    text = "\n".join(out)
    print(text)
    if args.write:
        from rtlab.analysis import load_codebook

        intro = (
            f"`bench/diagnosis.py`: the rule labels (codebook {load_codebook().version}) of the shared real runs "
            "against their careful human labels (`../shared/real/*/gold_labels.csv`), per task and per rule, "
            "and each task set beside the others (leave one task out: a report, nothing fitted). Kappa is "
            "scikit-learn's: `n/a` where both sides give one class (undefined), 0 where one side does. "
            f"{args.n_boot} bootstrap resamples over items; {time.strftime('%Y-%m-%d', time.gmtime())}. Re-run "
            "after changing the rules: `.venv/bin/python bench/diagnosis.py --write`."
        )
        body = f"{HEADING}\n\n{textwrap.fill(intro, width=110, break_on_hyphens=False)}\n\n{text}\n"
        write_section(ROOT / "bench" / "RESULTS.md", body)
        print(f"wrote the {HEADING!r} section of bench/RESULTS.md", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

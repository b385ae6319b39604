"""``rtlab agree --gold --by task|run|rule`` and the per-rule table: kappa, agreement and counts per group on a
hand-made label set whose numbers are worked out by hand below, the undefined cases decided as scikit-learn
decides them (one class on both sides: ``nan``, said in the text and ``null`` in JSON; one class on one side:
0), each rule's decided items and precision, and the long form's optional columns."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pandas as pd
import pytest

from rtlab.annotation import (
    LABEL_COLUMNS,
    OPTIONAL_LABEL_COLUMNS,
    agree_with_gold,
    cohen_kappa_score,
    long_form,
    read_gold_labels,
)
from rtlab.cli import main

S, R, D, OT = "shown_but_missing", "dropped_or_distorted", "discovery", "other"
GOLD_HEADER = "run,rubric_index,rubric,category,subreason,clear,step,path,excerpt,deliverable_has,reasoning\n"

# (run, index, gold, gold sub-reason, clear, label, sub-reason, rule, confidence); the run's task below.
ROWS = [
    ("a", 0, S, "", True, S, None, "R9", "high"),
    ("a", 1, S, "", True, OT, "undetermined", "R16", "low"),  # the rule abstains
    ("a", 2, D, "", True, D, None, "R2", "high"),
    ("a", 3, OT, "judge_error", False, D, None, "R2", "high"),
    ("b", 0, D, "", True, D, None, "R2", "high"),
    ("b", 1, D, "", True, D, None, "R2", "low"),
    ("b", 2, D, "", True, OT, "format_instructions", "R5", "high"),
    ("c", 0, OT, "format_instructions", True, OT, "format_instructions", "R5", "high"),
    ("c", 1, OT, "format_instructions", False, OT, "format_instructions", "R5", "high"),
    ("d", 0, R, "", True, None, None, None, None),  # nobody labelled run d: its task is unknown
]
TASK = {"a": "7", "b": "12", "c": "oqa-3"}

# Task 7 (run a), four items. Confusion (gold rows, annotator columns): S -> S 1, OT 1; D -> D 1; OT -> D 1.
# p_o = 2/4; gold marginals S2 D1 OT1, annotator's S1 D2 OT1; p_e = (2*1 + 1*2 + 1*1) / 16 = 5/16;
# kappa = (8/16 - 5/16) / (11/16) = 3/11.
# Its three clear items (a#3 out): gold S S D, annotator S OT D; p_o = 2/3; p_e = (2*1 + 1*1) / 9 = 3/9;
# kappa = (6/9 - 3/9) / (6/9) = 1/2.
KAPPA_7, KAPPA_7_CLEAR = 3 / 11, 1 / 2
# Task 12 (run b): gold gives all three D, the annotator D D OT. Confusion D -> D 2, OT 1; expected counts
# E = r s / N: E(D, D) = 3*2/3 = 2, E(D, OT) = 3*1/3 = 1. Kappa = 1 - (off-diagonal observed 1) / (off-diagonal
# expected 1) = 0, whatever the agreement (2/3): one class on the gold's side.
# Task oqa-3 (run c): both give both items OT: the only cell is (OT, OT), E(OT, OT) = 2, nothing off the
# diagonal: 0/0, undefined (scikit-learn: nan). Its one clear item likewise.
# Run d: no label, so no task: group "(unknown)", n 0.

# Per rule (precision: decided items whose gold category is the rule's):
#   R2: a#2 D/D yes, a#3 OT/D no, b#0 yes, b#1 yes (low confidence) -> 4 decided, 3 correct, 3/4, 1 low
#   R5: b#2 D/OT no, c#0 yes, c#1 yes                               -> 3 decided, 2 correct, 2/3
#   R9: a#0 yes                                                     -> 1 decided, 1 correct, 1
#   R16: a#1 other/undetermined: abstained                          -> 0 decided, precision undefined
RULES = {
    "R2": ("discovery 4", 4, 0, 4, 3, 3 / 4, 1),
    "R5": ("other/format_instructions 3", 3, 0, 3, 2, 2 / 3, 0),
    "R9": ("shown_but_missing 1", 1, 0, 1, 1, 1.0, 0),
    "R16": ("other/undetermined 1", 1, 1, 0, 0, math.nan, 0),
}


def gold_csv(path: Path) -> Path:
    lines = [GOLD_HEADER]
    for run, i, g, gsub, clear, *_ in ROWS:
        lines.append(f'{run},{i},"item {i}",{g},{gsub},{str(clear).lower()},,,,,why\n')
    path.write_text("".join(lines), encoding="utf-8")
    return path


def labels_frame(*, task: bool = True, rule: bool = True) -> pd.DataFrame:
    rows = []
    for run, i, *_, label, sub, rule_id, confidence in ROWS:
        if label is None:
            continue
        row = {
            "item": f"codex:{run}#{i}",
            "annotator": "rules",
            "label": label,
            "subreason": sub,
            "codebook_version": "v",
            "rationale": f"{rule_id}: because",
            "evidence": "[]",
        }
        if rule:
            row |= {"rule": rule_id, "confidence": confidence}
        if task:
            row["task_id"] = TASK[run]
        rows.append(row)
    return pd.DataFrame(rows)


@pytest.fixture
def gold(tmp_path: Path) -> pd.DataFrame:
    return read_gold_labels(gold_csv(tmp_path / "g.csv"))


def test_per_task_kappa_agreement_and_undefined_cases_by_hand(gold: pd.DataFrame) -> None:
    report = agree_with_gold(gold, labels_frame(), by="task", n_boot=0)
    groups = report.groups
    assert groups is not None and report.by == "task"
    # natural order (7 before 12), the unknown group last
    assert groups["group"].tolist() == ["7", "12", "oqa-3", "(unknown)"]
    g = groups.set_index("group")
    assert g.loc["7", ["n_gold", "n", "agree", "n_clear"]].tolist() == [4, 4, 2, 3]
    assert g.loc["7", "agreement"] == pytest.approx(0.5)
    assert g.loc["7", "kappa"] == pytest.approx(KAPPA_7)
    assert g.loc["7", "kappa_clear"] == pytest.approx(KAPPA_7_CLEAR)
    assert g.loc["7", "agreement_clear"] == pytest.approx(2 / 3)
    assert g.loc["7", "note"] == ""
    # the same as the pairwise kappa (checked against scikit-learn in test_agreement.py)
    assert KAPPA_7 == pytest.approx(cohen_kappa_score([S, S, D, OT], [S, OT, D, D]))
    assert g.loc["12", "kappa"] == 0.0 and g.loc["12", "agreement"] == pytest.approx(2 / 3)
    assert g.loc["12", "note"] == "0 by construction: gold all discovery"
    assert math.isnan(g.loc["oqa-3", "kappa"]) and math.isnan(g.loc["oqa-3", "kappa_clear"])
    assert g.loc["oqa-3", "agreement"] == 1.0
    assert g.loc["oqa-3", "note"] == "undefined: both all other"
    assert math.isnan(cohen_kappa_score([OT, OT], [OT, OT]))  # scikit-learn's nan too
    assert g.loc["(unknown)", ["n_gold", "n", "agree"]].tolist() == [1, 0, 0]
    assert (
        math.isnan(g.loc["(unknown)", "agreement"])
        and g.loc["(unknown)", "note"] == "no item labelled by both"
    )
    # the items carry the task of their run
    items = report.items.set_index("item")
    assert items.loc["codex:b#2", "task_id"] == "12" and pd.isna(items.loc["d#0", "task_id"])


def test_per_run_and_per_rule_groups(gold: pd.DataFrame) -> None:
    by_run = agree_with_gold(gold, labels_frame(task=False), by="run", n_boot=0).groups
    assert by_run is not None
    assert by_run["group"].tolist() == ["a", "b", "c", "d"]
    assert by_run.set_index("group").loc["a", "kappa"] == pytest.approx(KAPPA_7)
    by_rule = agree_with_gold(gold, labels_frame(), by="rule", n_boot=0).groups
    assert by_rule is not None
    assert by_rule["group"].tolist() == ["R2", "R5", "R9", "R16"]  # R16 after R9; run d (unlabelled) left out
    g = by_rule.set_index("group")
    # R2 labels all four D, gold D OT D D: one class on the annotator's side -> 0; its clear items (a#3 out)
    # are D on both sides -> undefined
    assert g.loc["R2", "kappa"] == 0.0 and math.isnan(g.loc["R2", "kappa_clear"])
    assert (
        g.loc["R2", "note"] == "0 by construction: rules all discovery; clear: undefined: both all discovery"
    )
    # R9: one item, both S -> undefined; R16's clear item: gold S, rules OT -> 0 (gold one class)
    assert math.isnan(g.loc["R9", "kappa"])
    assert (
        g.loc["R16", "kappa"] == 0.0
        and g.loc["R16", "note"] == "0 by construction: gold all shown_but_missing"
    )
    # R5's clear items b#2 (D/OT) and c#0 (OT/OT) are no longer one class on the gold's side:
    # confusion D -> OT 1, OT -> OT 1: the annotator all OT -> 0; all three items the same
    assert g.loc["R5", "note"] == "0 by construction: rules all other"


def test_per_rule_decided_and_precision_by_hand(gold: pd.DataFrame) -> None:
    report = agree_with_gold(gold, labels_frame(), n_boot=0)  # the rule table needs no --by
    assert report.groups is None
    rules = report.rules
    assert rules is not None and rules["rule"].tolist() == list(RULES)
    for rule, (labels, items, abstained, decided, correct, precision, low) in RULES.items():
        row = rules.set_index("rule").loc[rule]
        assert row["labels"] == labels
        assert row[["items", "abstained", "decided", "correct", "low"]].tolist() == [
            items,
            abstained,
            decided,
            correct,
            low,
        ]
        if math.isnan(precision):
            assert math.isnan(row["precision"])
        else:
            assert row["precision"] == pytest.approx(precision)
    # without a confidence column the low count is undefined, not 0
    no_conf = labels_frame().drop(columns="confidence")
    rules = agree_with_gold(gold, no_conf, n_boot=0).rules
    assert rules is not None and rules["low"].isna().all()
    # labels that name no rule (an LLM's, a person's) have no rule table
    assert agree_with_gold(gold, labels_frame(rule=False), n_boot=0).rules is None


def test_groupings_need_their_columns(gold: pd.DataFrame) -> None:
    with pytest.raises(ValueError, match="grouping by task needs the runs' task ids"):
        agree_with_gold(gold, labels_frame(task=False), by="task", n_boot=0)
    with pytest.raises(ValueError, match="grouping by rule needs labels that name the deciding rule"):
        agree_with_gold(gold, labels_frame(rule=False), by="rule", n_boot=0)
    with pytest.raises(ValueError, match="by must be one of"):
        agree_with_gold(gold, labels_frame(), by="model", n_boot=0)  # type: ignore[arg-type]


def test_another_annotator_takes_the_task_from_the_rules_labels(gold: pd.DataFrame) -> None:
    rules = labels_frame()
    human = labels_frame(task=False, rule=False).assign(annotator="ann", label=S, subreason=None)
    report = agree_with_gold(gold, pd.concat([rules, human], ignore_index=True), annotator="ann", by="task")
    assert report.groups is not None and report.rules is None
    g = report.groups.set_index("group")
    # "ann" says S everywhere: task 7 agrees on a#0, a#1 (gold S S D OT) and is one class -> 0
    assert g.loc["7", "agree"] == 2 and g.loc["7", "kappa"] == 0.0
    assert g.loc["7", "note"] == "0 by construction: ann all shown_but_missing"


def test_report_text_and_json(gold: pd.DataFrame) -> None:
    report = agree_with_gold(gold, labels_frame(), by="task", n_boot=0)
    text = report.describe()
    assert "per task (4 groups; n/a: kappa undefined, see note):" in text
    oqa = next(line for line in text.splitlines() if line.strip().startswith("oqa-3"))
    assert "n/a" in oqa and "undefined: both all other" in oqa
    r16 = next(line for line in text.splitlines() if line.strip().startswith("R16"))
    assert r16.split()[-2:] == ["n/a", "0"]  # precision undefined, no low-confidence item
    out = report.to_dict()
    json.dumps(out, allow_nan=False)
    groups = {g["group"]: g for g in out["groups"]}
    assert groups["oqa-3"]["kappa"] is None and groups["12"]["kappa"] == 0.0
    assert groups["7"]["kappa"] == pytest.approx(KAPPA_7)
    rules = {r["rule"]: r for r in out["rules"]}
    assert rules["R16"]["precision"] is None and rules["R2"]["precision"] == pytest.approx(0.75)
    assert out["by"] == "task"


def test_cli_by_task_and_rule(tmp_path: Path, capsys) -> None:
    gold = gold_csv(tmp_path / "g.csv")
    labels = tmp_path / "labels.csv"
    labels_frame().to_csv(labels, index=False)  # a labels file keeps its task_id, rule and confidence columns
    args = ["agree", "--gold", str(gold), "--annotator", str(labels), "--n-boot", "0"]
    assert main([*args, "--by", "task", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    groups = {g["group"]: g for g in out["groups"]}
    assert groups["7"]["kappa"] == pytest.approx(KAPPA_7) and groups["oqa-3"]["kappa"] is None
    assert {r["rule"]: r["decided"] for r in out["rules"]} == {"R2": 4, "R5": 3, "R9": 1, "R16": 0}
    assert main([*args, "--by", "rule"]) == 0
    assert "per rule (4 groups" in capsys.readouterr().out
    assert main(["agree", str(labels), "--by", "task"]) == 2  # --by needs --gold
    assert "--by needs --gold" in capsys.readouterr().err
    labels_frame(task=False).to_csv(labels, index=False)
    assert main([*args, "--by", "task"]) != 0
    assert "grouping by task needs" in capsys.readouterr().err


def test_long_form_takes_the_optional_columns_it_finds() -> None:
    diagnosis = pd.DataFrame(
        [
            {
                "trajectory": "codex:a",
                "rubric_index": 0,
                "category": S,
                "subreason": None,
                "codebook_version": "v",
                "rationale": "r",
                "evidence": [],
                "rule": "R9",
                "confidence": "high",
                "task_id": "7",
            },
            {
                "trajectory": "codex:b",
                "rubric_index": 1,
                "category": OT,
                "subreason": "undetermined",
                "codebook_version": "v",
                "rationale": "r",
                "evidence": [],
                "rule": "R16",
                "confidence": "low",
                "task_id": None,
            },
        ]
    )
    frame = long_form(diagnosis)
    assert list(frame.columns) == [*LABEL_COLUMNS, *OPTIONAL_LABEL_COLUMNS]
    assert frame["confidence"].tolist() == ["high", "low"] and frame["task_id"].tolist() == ["7", None]
    frame = long_form(diagnosis.drop(columns=["confidence", "task_id"]))
    assert list(frame.columns) == [*LABEL_COLUMNS, "rule"]


def _bench():
    import importlib.util

    from conftest import ROOT

    spec = importlib.util.spec_from_file_location("bench_diagnosis", ROOT / "bench" / "diagnosis.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_bench_skips_without_real_data_and_replaces_only_its_section(tmp_path: Path, capsys) -> None:
    bench = _bench()
    assert bench.main([str(tmp_path / "absent")]) == 0
    assert "skipped: no real data" in capsys.readouterr().out
    results = tmp_path / "RESULTS.md"
    results.write_text("# R\n\n## a\n\nA\n\n## Diagnosis against the gold\n\nold\n### sub\n\n## b\n\nB\n")
    bench.write_section(results, "## Diagnosis against the gold\n\nnew\n")
    assert results.read_text() == "# R\n\n## a\n\nA\n\n## Diagnosis against the gold\n\nnew\n\n## b\n\nB\n"
    results.write_text("# R\n\n## a\n\nA\n")  # no section yet: appended
    bench.write_section(results, "## Diagnosis against the gold\n\nnew\n")
    assert results.read_text() == "# R\n\n## a\n\nA\n\n## Diagnosis against the gold\n\nnew\n"


# ---------------------------------------------------------------------------------------------------------
# The real runs: every task reported, the groups and rules add up to the whole (the figures themselves move
# with the rules: bench/diagnosis.py reports them)


@pytest.mark.parametrize(
    ("runs", "gold_file", "tasks"),
    [
        ("workspace-bench/codex-gpt-5.4-runs", "workspace-bench/gold_labels.csv", ["15", "44", "95"]),
        ("officeqa/g2b-gpt-5.4-traces", "officeqa/gold_labels.csv", None),
    ],
)
def test_real_runs_by_task_and_rule(real: Path, runs: str, gold_file: str, tasks: list[str] | None) -> None:
    from rtlab.annotation import rule_labels
    from rtlab.environment import replay
    from rtlab.ingest import ingest

    trajectories = ingest(sorted(str(p) for p in (real / runs).iterdir() if p.is_dir())).trajectories
    labels = rule_labels(trajectories, [replay(t) for t in trajectories])
    gold = read_gold_labels(real / gold_file)
    report = agree_with_gold(gold, labels, by="task", n_boot=0)
    groups, rules = report.groups, report.rules
    assert groups is not None and rules is not None
    if tasks is not None:
        assert groups["group"].tolist() == tasks
    else:  # OfficeQA: one group per question, named as its run folders name it (oqa-N)
        questions = {run.split("__")[-1].split("_")[0] for run in gold["run"]}
        assert set(groups["group"]) == questions and all(g.startswith("oqa-") for g in groups["group"])
    summary = report.summary.set_index("subset")
    assert (
        groups["n"].sum() == summary.loc["all", "n"] and groups["n_clear"].sum() == summary.loc["clear", "n"]
    )
    assert groups["agree"].sum() == report.items["agree"].sum()
    # a group's kappa is nan exactly where it says so
    assert (groups["kappa"].isna() == groups["note"].str.startswith(("undefined", "no item"))).all()
    assert rules["items"].sum() == summary.loc["all", "n"]
    assert (rules["decided"] + rules["abstained"] == rules["items"]).all()
    assert rules["correct"].sum() <= report.items["agree"].sum()

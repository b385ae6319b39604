"""Any annotator's labels in the diagnosis's shape (rtlab.annotation._breakdowns) and ``rtlab diagnose
--annotator rules|llm|FILE``: the LLM and human labels feed the same breakdown as the rule labels."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from rtlab.analysis import breakdown, labels_frame
from rtlab.annotation import annotator_diagnosis, compare_breakdowns, read_annotator_labels
from rtlab.cli import main

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "data" / "sample"
S, D, R, OT = "shown_but_missing", "dropped_or_distorted", "discovery", "other"


def _diagnosis(items: list[tuple[str, int, str, str]]) -> pd.DataFrame:
    """A diagnosis frame by hand: (trajectory, rubric index, method, rule category) per failed item."""
    rows = [
        {
            "trajectory": t,
            "rubric_index": i,
            "category": c,
            "subreason": "undetermined" if c == OT else None,
            "rule": "R1",
            "codebook_version": "rtlab-codebook/2.0",
            "rationale": "rules",
            "evidence": [{"step": 1, "path": "a.csv"}],
            "method": m,
            "n_evidence": 1,
        }
        for t, i, m, c in items
    ]
    return labels_frame(rows)


def _long(rows: list[tuple[str, str, str, str | None]]) -> pd.DataFrame:
    """Long-form labels: (item, annotator, label, subreason)."""
    return pd.DataFrame(
        [
            {
                "item": i,
                "annotator": a,
                "label": lab,
                "subreason": sub,
                "rationale": f"{a} says",
                "evidence": "[]",
            }
            for i, a, lab, sub in rows
        ]
    )


DIAG = _diagnosis(
    [
        ("h:a", 0, "dci", S),
        ("h:a", 1, "dci", OT),
        ("h:b", 0, "tab", OT),
        ("h:b", 2, "tab", R),
    ]
)


def test_llm_samples_reduced_to_their_majority_on_the_rules_rows() -> None:
    labels = _long(
        [
            # h:a#0: D twice, S once -> D
            ("h:a#0", "llm:m:p1:s0", D, None),
            ("h:a#0", "llm:m:p1:s1", D, None),
            ("h:a#0", "llm:m:p1:s2", S, None),
            # h:a#1: other/format twice, unparsable once (no vote) -> other/format_instructions
            ("h:a#1", "llm:m:p1:s0", OT, "format_instructions"),
            ("h:a#1", "llm:m:p1:s1", "unparsable", None),
            ("h:a#1", "llm:m:p1:s2", OT, "format_instructions"),
            # h:b#0: every sample failed: no label; h:b#2 not asked
            ("h:b#0", "llm:m:p1:s0", "failed", None),
            ("other:z#0", "llm:m:p1:s0", S, None),  # not a failed item of the diagnosis: ignored
            ("h:a#0", "rules", S, None),  # another annotator: not chosen
        ]
    )
    out = annotator_diagnosis(DIAG, labels, annotator="llm")
    assert out[["trajectory", "rubric_index", "category", "subreason"]].values.tolist() == [
        ["h:a", 0, D, None],
        ["h:a", 1, OT, "format_instructions"],
    ]
    assert set(out["annotator"]) == {"llm"} and out["rule"].isna().all()
    assert out["method"].tolist() == ["dci", "dci"]  # the grouping columns are the rules' rows'
    kept = annotator_diagnosis(DIAG, labels, annotator="llm", missing="keep")
    assert kept["category"].tolist() == [D, OT, None, None]
    with pytest.raises(ValueError, match="several annotators"):
        annotator_diagnosis(DIAG, labels)
    with pytest.raises(ValueError, match="no annotator 'nobody'"):
        annotator_diagnosis(DIAG, labels, annotator="nobody")


def test_gold_file_runs_match_trajectory_ids_by_their_tail(tmp_path: Path) -> None:
    gold = tmp_path / "gold.csv"
    gold.write_text(
        "run,rubric_index,category,subreason,clear,reasoning\n"
        "a,0,dropped_or_distorted,,true,misread\n"
        "a,1,other,format_instructions,false,fmt\n"
        "b,2,discovery,,true,never opened\n",
        encoding="utf-8",
    )
    labels = read_annotator_labels(gold)
    assert set(labels["annotator"]) == {"gold"}
    out = annotator_diagnosis(DIAG, labels)
    assert out[["trajectory", "rubric_index", "category"]].values.tolist() == [
        ["h:a", 0, D],
        ["h:a", 1, OT],
        ["h:b", 2, R],
    ]
    assert out.loc[0, "rationale"] == "misread" and out.loc[0, "evidence"] == []


def test_breakdowns_side_by_side_by_hand() -> None:
    labels = _long(
        [("h:a#0", "x", D, None), ("h:a#1", "x", D, None), ("h:b#0", "x", S, None), ("h:b#2", "x", R, None)]
    )
    table = compare_breakdowns({"rules": DIAG, "x": annotator_diagnosis(DIAG, labels)}, ["method"])
    assert list(table.columns[:2]) == ["annotator", "method"]
    got = table.set_index(["annotator", "method", "category"])["lost"].to_dict()
    # rules: dci has S and other, tab has other and discovery; x: dci has D, D; tab has S, discovery
    assert got[("rules", "dci", S)] == 1 and got[("rules", "dci", OT)] == 1
    assert got[("x", "dci", D)] == 2 and got[("x", "dci", S)] == 0
    assert got[("x", "tab", S)] == 1 and got[("x", "tab", R)] == 1
    share = table.set_index(["annotator", "method", "category"])["share"]
    assert share[("x", "dci", D)] == 1.0  # 2 of dci's 2 lost points
    assert share[("rules", "tab", R)] == 0.5  # 1 of tab's 2
    # the rules' table equals breakdown's own
    own = breakdown(DIAG, ["method"])
    assert table[table["annotator"] == "rules"].drop(columns="annotator").reset_index(drop=True).equals(own)


def test_cli_diagnose_with_a_labels_file_and_with_simulated_llm(tmp_path: Path, capsys) -> None:
    # the sample's two failed items, codex:301_plain #2 and #3; gold by hand
    gold = tmp_path / "g.csv"
    gold.write_text(
        "run,rubric_index,category,subreason,clear\n301_plain,2,dropped_or_distorted,,true\n",
        encoding="utf-8",
    )
    assert main(["diagnose", str(SAMPLE), "--annotator", str(gold), "--json"]) == 0
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert [(r["rubric_index"], r["category"], r["annotator"]) for r in rows] == [(2, D, "gold")]
    assert "1 of 2 failed items have no label" in captured.err
    assert main(["diagnose", str(SAMPLE), "--annotator", str(gold), "--breakdown", "--by", "", "--json"]) == 0
    table = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert {r["category"]: r["lost"] for r in table} == {S: 0, D: 1, R: 0, OT: 0}

    args = ["diagnose", str(SAMPLE), "--annotator", "llm", "--model", "m", "--samples", "3", "--simulated"]
    args += ["--cache-dir", str(tmp_path / "cache"), "--json"]
    assert main(args) == 0
    captured = capsys.readouterr()
    rows = [json.loads(line) for line in captured.out.splitlines()]
    assert [r["rubric_index"] for r in rows] == [2, 3] and {r["annotator"] for r in rows} == {"llm"}
    assert '"calls": 6' in captured.err  # two items x three samples
    assert main(args) == 0  # again: every answer from the cache
    captured = capsys.readouterr()
    assert '"cached": 6' in captured.err and '"calls": 0' in captured.err
    assert [json.loads(line)["category"] for line in captured.out.splitlines()] == [
        r["category"] for r in rows
    ]
    assert main(["diagnose", str(SAMPLE), "--annotator", "llm"]) == 2  # no --model
    assert "needs --model" in capsys.readouterr().err


def test_gold_breakdown_on_the_officeqa_runs(real: Path) -> None:
    # GOLD_LABELS.md: dropped_or_distorted 9, other 5, discovery 2, shown_but_missing 2 over 18 failed runs
    folder = real / "officeqa" / "g2b-gpt-5.4-traces"
    gold = real / "officeqa" / "gold_labels.csv"
    from rtlab.analysis import diagnose_frame
    from rtlab.environment import replay
    from rtlab.ingest import ingest

    trajectories = ingest(sorted(str(p) for p in folder.iterdir() if p.is_dir())).trajectories
    rules = diagnose_frame(trajectories, [replay(t) for t in trajectories])
    human = annotator_diagnosis(rules, read_annotator_labels(gold))
    table = compare_breakdowns({"rules": rules, "gold": human})
    lost = table.set_index(["annotator", "category"])["lost"]
    assert [int(lost[("gold", c)]) for c in (S, D, R, OT)] == [2, 9, 2, 5]
    assert int(table[table["annotator"] == "rules"]["lost"].sum()) == 18

"""The OfficeQA adapter: question CSVs, the G2B task list, G2B assessments and joining them onto runs."""

from __future__ import annotations

import csv
import json
import shutil
from pathlib import Path

import pytest

from rtlab.errors import ReaderError
from rtlab.ingest.benchmarks import officeqa
from rtlab.ingest.readers import ReadOptions, g2b
from rtlab.records import Trajectory, trajectory_from_dict, trajectory_to_dict

TRACES = "officeqa/g2b-gpt-5.4-traces"


def run(path: Path) -> Trajectory:
    [t] = g2b.read(path, ReadOptions())
    return t


# ---------------------------------------------------------------------------------------------------------
# Fixtures


def test_load_questions_fixture(fixtures: Path) -> None:
    tasks = officeqa.load_questions(fixtures / "g2b" / "questions" / "officeqa_pro.csv")
    assert sorted(tasks) == ["UID9007", "UID9008"]
    t = tasks["UID9008"]
    assert (t.id, t.benchmark, t.answer) == ("UID9008", "officeqa", "1,300")
    assert t.source_files == ["treasury_bulletin_1960_06.txt", "treasury_bulletin_1960_07.txt"]
    assert t.meta == {
        "uid": "UID9008",
        "difficulty": "hard",
        "source_docs": ["https://example.org/tb/1960-06?page=1", "https://example.org/tb/1960-07?page=2"],
    }
    assert [(r.index, r.text, r.type) for r in t.rubric] == [
        (0, "final answer matches the ground truth within tolerance", "answer")
    ]


def test_attach_fixture_run(fixtures: Path) -> None:
    t = run(fixtures / "g2b" / "traces" / "demo__oqa-7_s1")
    assert officeqa.attach(t) is True
    assert t.benchmark == "officeqa"
    assert (t.task.id, t.task.answer, t.task.meta["uid"], t.task.meta["tolerance_pct"]) == (
        "oqa-7",
        "42.5",
        "UID9007",
        1.0,
    )
    assert t.task.meta["difficulty"] == "hard"
    assert t.task.expected_outputs == ["output.txt"]
    [item] = t.judgement.items
    assert (item.index, item.passed, item.score) == (0, True, 1.0)
    assert item.evidence == "predicted ['42.5'] vs target ['42.5'] (numerical, rel_error 0, tolerance 1.0%)"
    assert t.judgement.judge == "g2b-assessment"
    assert t.judgement.summary["tolerance_pct"] == 1.0 and t.judgement.summary["acc_5pct"] == 1.0
    assert not t.warnings
    assert trajectory_from_dict(trajectory_to_dict(t)) == t


def test_attach_warns_on_answer_mismatch_and_missing_assessment(fixtures: Path) -> None:
    t = run(fixtures / "g2b" / "traces" / "demo__oqa-8_s0")
    assert officeqa.attach(t) is True
    assert t.task.answer == "1,200" and t.judgement is None
    mismatch = [w.reason for w in t.warnings if w.kind == "join" and w.reason.startswith("officeqa:")]
    assert mismatch == [
        "officeqa: answer of oqa-8 ('1,200') differs from UID9008 in officeqa_pro.csv ('1,300')"
    ]


def test_attach_declines_other_trajectories(fixtures: Path, tmp_path: Path) -> None:
    t = run(fixtures / "g2b" / "traces" / "demo__oqa-7_s1")
    t.task_id = "workspace-15"
    assert officeqa.attach(t) is False and t.task is None
    lone = tmp_path / "a" / "b" / "c" / "d" / "demo__oqa-7_s1"
    shutil.copytree(fixtures / "g2b" / "traces" / "demo__oqa-7_s1", lone)
    shutil.copy(fixtures / "g2b" / "traces" / officeqa.DATASET_FILE, tmp_path)
    far = run(lone)
    assert officeqa.attach(far) is False and far.task is None
    shutil.copy(fixtures / "g2b" / "traces" / officeqa.DATASET_FILE, tmp_path / "a" / "b")
    near = run(lone)
    assert officeqa.attach(near) is True and near.judgement is not None
    unknown = run(lone)
    unknown.task_id = "oqa-999"
    assert officeqa.attach(unknown) is False


def test_malformed_dataset_and_assessment(tmp_path: Path) -> None:
    bad = tmp_path / "g2b_officeqa_pro_dataset.json"
    bad.write_text(json.dumps([{"id": "oqa-1", "uid_orig": "U", "instruction": "q", "answer_values": ["1"]}]))
    with pytest.raises(ReaderError) as err:
        officeqa.load_g2b_dataset(bad)
    assert (err.value.line, err.value.field) == (1, "tolerance_pct")
    bad.write_text("")
    with pytest.raises(ReaderError, match="empty"):
        officeqa.load_g2b_dataset(bad)
    assessment = tmp_path / "assessment_r0.json"
    assessment.write_text(json.dumps({"accuracy": 1.0}))
    with pytest.raises(ReaderError) as err:
        officeqa.load_assessment(assessment)
    assert err.value.field == "is_correct"
    assessment.write_text('{"is_correct": true,')
    with pytest.raises(ReaderError, match="invalid JSON"):
        officeqa.load_assessment(assessment)


def test_malformed_questions(tmp_path: Path) -> None:
    path = tmp_path / "officeqa_pro.csv"
    path.write_text("uid,question,answer\nU1,q,1\n", encoding="utf-8")
    with pytest.raises(ReaderError) as err:
        officeqa.load_questions(path)
    assert err.value.field == "source_docs"
    path.write_text("", encoding="utf-8")
    with pytest.raises(ReaderError, match="empty"):
        officeqa.load_questions(path)
    path.write_bytes(b"uid,question,answer,source_docs,source_files,difficulty\nU1,\xff,1,,,hard\n")
    with pytest.raises(ReaderError, match="UTF-8"):
        officeqa.load_questions(path)


# ---------------------------------------------------------------------------------------------------------
# Real data


def test_question_sets(real: Path) -> None:
    pro = officeqa.load_questions(real / "officeqa" / "questions" / "officeqa_pro.csv")
    full = officeqa.load_questions(real / "officeqa" / "questions" / "officeqa_full.csv")
    assert (len(pro), len(full)) == (133, 246)
    assert set(pro) <= set(full)
    assert {t.meta["difficulty"] for t in pro.values()} == {"hard"}
    with open(real / "officeqa" / "questions" / "officeqa_full.csv", encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert sum(len(full[r["uid"]].source_files) for r in rows) == sum(
        len([f for f in r["source_files"].split("\r\n") if f]) for r in rows
    )
    assert pro["UID0001"].source_files == ["treasury_bulletin_1941_01.txt"]
    assert pro["UID0004"].source_files == ["treasury_bulletin_1941_01.txt", "treasury_bulletin_1954_02.txt"]
    assert len(pro["UID0004"].meta["source_docs"]) == 2


def test_g2b_dataset(real: Path) -> None:
    path = real / TRACES / officeqa.DATASET_FILE
    tasks = officeqa.load_g2b_dataset(path)
    assert len(tasks) == 133
    raw = json.loads(path.read_text(encoding="utf-8"))
    assert [tasks[e["id"]].answer for e in raw] == [e["answer"] for e in raw]
    assert tasks["oqa-0"].answer == "2,602" and tasks["oqa-0"].meta["uid"] == "UID0001"
    pro = officeqa.load_questions(real / "officeqa" / "questions" / "officeqa_pro.csv")
    assert all(pro[t.meta["uid"]].answer == t.answer for t in tasks.values())


def test_attach_all_real_runs(real: Path) -> None:
    traces = real / TRACES
    selection = {e["dir"]: e["is_correct"] for e in json.loads((traces / "selection.json").read_text())}
    folders = sorted(p for p in traces.iterdir() if p.is_dir())
    assert len(folders) == 32
    for folder in folders:
        t = run(folder)
        assert officeqa.attach(t) is True, folder.name
        raw = json.loads((folder / "assessment_r0.json").read_text(encoding="utf-8"))
        [item] = t.judgement.items
        assert item.passed is raw["is_correct"] is selection[folder.name], folder.name
        assert item.score == raw["accuracy"]
        assert t.task.answer == raw["target"][0], folder.name
        assert not t.warnings, folder.name
    passed = [f.name for f in folders if selection[f.name]]
    assert len(passed) == 14


def test_real_assessment_by_hand(real: Path) -> None:
    judgement = officeqa.load_assessment(real / TRACES / "v2_main__oqa-0_s4" / "assessment_r0.json")
    [item] = judgement.items
    assert (item.passed, item.score) == (False, 0.0)
    assert (
        item.evidence
        == "predicted ['1580'] vs target ['2,602'] (numerical, rel_error 0.3928, tolerance 1.0%)"
    )
    assert judgement.summary["gold_num"] == 2602.0 and judgement.summary["match_type"] == "numerical"

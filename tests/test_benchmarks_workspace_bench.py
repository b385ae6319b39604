"""The Workspace-Bench adapter: task and judge loaders, the join onto runs, and the real runs and Lite table."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from conftest import warnings_of

from rtlab.errors import ReaderError
from rtlab.ingest import ingest
from rtlab.ingest.benchmarks import workspace_bench as wb
from rtlab.ingest.readers import ReadOptions, codex
from rtlab.records import (
    ItemResult,
    RubricItem,
    Trajectory,
    trajectory_from_dict,
    trajectory_to_dict,
)

RUN = "codex/runs/7_plain"


def run_copy(fixtures: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(fixtures / RUN, tmp_path / "7_plain"))


def read_run(path: Path) -> Trajectory:
    (t,) = codex.read(path, ReadOptions())
    return t


# ---------------------------------------------------------------------------------------------------------
# Loaders on the fixture


def test_load_task(fixtures: Path) -> None:
    task = wb.load_task(fixtures / RUN / "output" / "metadata.json")
    assert (task.id, task.benchmark, task.instruction) == (
        "7",
        "workspace-bench",
        "Summarise the Q3 sales tables into summary.md.",
    )
    assert task.rubric == [
        RubricItem(0, "Was summary.md created?", "Basic Evaluation"),
        RubricItem(1, "Does it give the total of 1,204 units?", "Outcome Evaluation"),
        RubricItem(2, "Did the agent read both sales tables?", "Process Evaluation"),
    ]
    assert task.expected_outputs == ["summary.md"]
    assert task.source_files == ["sales_q3.csv", "销售_第三季度.csv"]
    assert task.dependency_graph == [("sales_q3.csv", "summary.md"), ("销售_第三季度.csv", "summary.md")]
    assert task.meta == {
        "persona": "Data Analyst",
        "task_diff": "easy",
        "tested_capabilities": ["Workspace Exploration", "Heterogeneous File Understanding"],
        "job": "Data Analyst",
        "stored_relpaths": ["data/aa01_sales_q3.csv", "data/bb02_销售_第三季度.csv"],
    }


def test_load_judgement(fixtures: Path) -> None:
    path = fixtures / RUN / "output" / "rubrics_judge--fixture-judge.json"
    j = wb.load_judgement(path)
    assert j.judge == "example/judge-model"
    assert j.summary == {"total": 3, "passed": 2, "failed": 1}
    assert j.source_path == str(path)
    assert j.items[2] == ItemResult(
        index=2, passed=False, evidence="only a grep listed the tables", confidence=0.8
    )
    assert j.n_passed == 2


def test_attach_from_run_folder_and_from_stream(fixtures: Path) -> None:
    for path in (fixtures / RUN, fixtures / RUN / "output" / "raw" / "codex_stdout.jsonl"):
        t = read_run(path)
        assert wb.attach(t)
        assert (t.benchmark, t.task.id, t.judgement.n_passed, len(t.task.rubric)) == (
            "workspace-bench",
            "7",
            2,
            3,
        )
        assert not t.warnings
        assert trajectory_from_dict(trajectory_to_dict(t)) == t


def test_attach_returns_false_elsewhere(tmp_path: Path) -> None:
    assert not wb.attach(Trajectory(id="x", format="pi", source_path=str(tmp_path / "session.jsonl")))
    assert not wb.attach(Trajectory(id="x", format="pi", source_path=""))
    assert not wb.attach(Trajectory(id="x", format="pi", source_path="/no/such/place/at/all.jsonl"))
    (tmp_path / "metadata.json").write_text('{"name": "a package, not a task"}', encoding="utf-8")
    assert not wb.attach(Trajectory(id="x", format="pi", source_path=str(tmp_path)))


def test_several_judges_and_count_mismatch(fixtures: Path, tmp_path: Path) -> None:
    run = run_copy(fixtures, tmp_path)
    judge = json.loads((run / "output" / "rubrics_judge--fixture-judge.json").read_text(encoding="utf-8"))
    judge["rubrics"] = judge["rubrics"][:2]
    judge["judge"]["model"] = "another/judge"
    (run / "output" / "rubrics_judge--a-first-judge.json").write_text(json.dumps(judge), encoding="utf-8")
    t = read_run(run)
    assert wb.attach(t)
    assert t.judgement.judge == "another/judge"  # sorted: a-first-judge before fixture-judge
    assert t.meta["workspace_bench_other_judges"] == [
        str(run / "output" / "rubrics_judge--fixture-judge.json")
    ]
    assert any("judge rated 2 rubrics, task 7 has 3" in w for w in warnings_of(t))
    assert len(t.task.rubric) == 3  # a warning, not an error


def test_malformed_files_raise_with_the_field(fixtures: Path, tmp_path: Path) -> None:
    run = run_copy(fixtures, tmp_path)
    meta_path = run / "output" / "metadata.json"
    meta = json.loads(meta_path.read_text(encoding="utf-8"))
    del meta["rubrics"]
    meta_path.write_text(json.dumps(meta), encoding="utf-8")
    with pytest.raises(ReaderError) as err:
        wb.attach(read_run(run))
    assert err.value.field == "rubrics"

    judge_path = run / "output" / "rubrics_judge--fixture-judge.json"
    judge = json.loads(judge_path.read_text(encoding="utf-8"))
    judge["rubrics"][1]["passed"] = "yes"
    judge_path.write_text(json.dumps(judge), encoding="utf-8")
    with pytest.raises(ReaderError) as err:
        wb.load_judgement(judge_path)
    assert err.value.field == "rubrics[1].passed"

    judge_path.write_text("{", encoding="utf-8")
    with pytest.raises(ReaderError) as err:
        wb.load_judgement(judge_path)
    assert err.value.line == 1


def test_load_tasks_csv(tmp_path: Path) -> None:
    header = "absolute_id,language,persona,task,task_diff,output_files,rubrics,rubric_types,file_dep_graph,data_manifest,tested_capabilities\n"
    good = '3,en,Dev,Do it,easy,"[""a.md""]","[""R1"",""R2""]","[""Basic Evaluation"",""Outcome Evaluation""]",[],"[{""filename"":""x.txt"",""stored_relpath"":""data/1_x.txt""}]","[""Lineage Tracing""]"\n'
    path = tmp_path / "table.csv"
    path.write_text(header + good, encoding="utf-8")
    tasks = wb.load_tasks(path)
    assert list(tasks) == ["3"]
    assert [r.type for r in tasks["3"].rubric] == ["Basic Evaluation", "Outcome Evaluation"]
    assert tasks["3"].source_files == ["x.txt"] and tasks["3"].meta["language"] == "en"

    bad = good.replace('"[""R1"",""R2""]"', "\"['R1', 'R2']\"").replace("3,en", "4,en")
    path.write_text(header + good + bad, encoding="utf-8")
    with pytest.raises(ReaderError) as err:
        wb.load_tasks(path)
    assert (err.value.line, err.value.field) == (3, "rubrics")  # Python-literal lists are not JSON: no eval

    path.write_text(header + good + good, encoding="utf-8")
    with pytest.raises(ReaderError, match="appears twice"):
        wb.load_tasks(path)
    path.write_text("", encoding="utf-8")
    with pytest.raises(ReaderError, match="empty"):
        wb.load_tasks(path)


# ---------------------------------------------------------------------------------------------------------
# Real data


def test_real_lite_table(real: Path) -> None:
    tasks = wb.load_tasks(
        real / "workspace-bench" / "lite_metadata" / "task_lite_clean_en_metadata_table.csv"
    )
    assert len(tasks) == 100
    assert sum(len(t.rubric) for t in tasks.values()) == 1850
    t15 = tasks["15"]
    assert t15.expected_outputs == ["financial-table-key-expense-analysis-concise-version.xlsx"]
    assert len(t15.rubric) == 16 and len(t15.source_files) == 3 and len(t15.dependency_graph) == 2
    assert t15.meta["persona"] == "Product Manager" and t15.meta["task_diff"] == "hard"


def test_real_runs_join(real: Path) -> None:
    root = real / "workspace-bench" / "codex-gpt-5.4-runs"
    result = ingest([root])
    assert result.failures == []
    assert len(result.trajectories) == 15
    for t in result.trajectories:
        run = Path(t.source_path)
        judge = json.loads(
            (run / "output" / "rubrics_judge--seed-2.0-lite-judge.json").read_text(encoding="utf-8")
        )
        assert t.benchmark == "workspace-bench"
        assert t.judgement.n_passed == judge["summary"]["passed"], run.name
        assert len(t.task.rubric) == judge["summary"]["total"], run.name
        assert t.task.id == t.task_id == run.name.split("_")[0]
        assert t.judgement.judge == "bytedance-seed/seed-2.0-lite"
        assert not t.warnings or not any("judge rated" in w for w in warnings_of(t))
    plain = next(t for t in result.trajectories if t.id == "codex:15_plain")
    assert (plain.n_steps, plain.judgement.n_passed, len(plain.task.rubric)) == (8, 6, 16)
    assert (plain.model, plain.method) == ("openai/gpt-5.4", "plain")
    assert [f.path for f in plain.deliverable.files] == [
        "financial-table-key-expense-analysis-concise-version.xlsx"
    ]

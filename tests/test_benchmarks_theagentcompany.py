"""TheAgentCompany adapter: task folders, checkpoints, grader results, the metric, and the real task set."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from rtlab.errors import ReaderError
from rtlab.ingest.benchmarks import theagentcompany as tac
from rtlab.ingest.readers import openhands
from rtlab.ingest.readers._base import ReadOptions
from rtlab.records import Trajectory, trajectory_from_dict, trajectory_to_dict

# --- the metric --------------------------------------------------------------------------------------------


def test_score_partial_and_full() -> None:
    assert tac.score(3, 6) == 0.25
    assert tac.score(0, 6) == 0.0
    assert tac.score(6, 6) == 1.0
    assert tac.score(4, 5) == pytest.approx(0.4)


def test_score_with_nothing_to_earn_is_zero() -> None:
    assert tac.score(0, 0) == 0.0


def test_success() -> None:
    assert tac.success(6, 6)
    assert not tac.success(5, 6)
    assert not tac.success(0, 0)


# --- task folders ------------------------------------------------------------------------------------------


def test_load_task_headings(fixtures: Path) -> None:
    task = tac.load_task(fixtures / "theagentcompany" / "tasks" / "demo-task")
    assert task.id == "demo-task" and task.benchmark == "theagentcompany"
    assert task.instruction.startswith("Write the sum of 2 and 3 to /workspace/answer.txt")
    assert [(r.index, r.points, r.type) for r in task.rubric] == [
        (0, 1.0, "checkpoint"),
        (1, 2.0, "checkpoint"),
        (2, 3.0, "final"),
    ]
    assert [r.text for r in task.rubric] == [
        "/workspace/answer.txt exists",
        "/workspace/answer.txt contains 5",
        "Zhang Wei was told on RocketChat that the answer is ready",
    ]
    assert task.meta == {
        "services": ["rocketchat", "owncloud"],
        "points_total": 6.0,
        "stated_points_total": 6.0,
    }


def test_load_task_numbered_list(fixtures: Path) -> None:
    task = tac.load_task(fixtures / "theagentcompany" / "tasks" / "list-task")
    assert [(r.points, r.text) for r in task.rubric] == [
        (2.0, 'Check if all missing values are replaced with "0"'),
        (2.0, 'Check if question 1 is answered with "42"'),
    ]
    assert task.meta == {"services": [], "points_total": 4.0, "stated_points_total": 4.0}


@pytest.mark.parametrize(
    ("heading", "points", "kind"),
    [
        ("## Checkpoint 1 (1pts)", 1.0, "checkpoint"),
        ("## Checkpoint 2 (1pt)", 1.0, "checkpoint"),
        ("## Checkpoint 4 (2 pt)", 2.0, "checkpoint"),
        ("## Checkpoint 3 (1 point)", 1.0, "checkpoint"),
        ("# Checkpoint 5 (1pt)", 1.0, "checkpoint"),
        ("## Checkpint 1 (1pt)", 1.0, "checkpoint"),
        ("## Checkpoint 2: Update documentation (1pt) ", 1.0, "checkpoint"),
        ("## Final Checkpoint (3pt)", 3.0, "final"),
        ("## Final checkpoint (2pts)", 2.0, "final"),
        ("## Checkpoint Final (2 pt)", 2.0, "final"),
    ],
)
def test_heading_variants(heading: str, points: float, kind: str) -> None:
    (item,) = tac.parse_checkpoints(f"# Checkpoints\n\n{heading}\n\nthe check\n")
    assert (item.points, item.type, item.text) == (points, kind, "the check")


def test_checkpoints_without_points_are_malformed(tmp_path: Path) -> None:
    task_dir = tmp_path / "tasks" / "t"
    task_dir.mkdir(parents=True)
    (task_dir / "checkpoints.md").write_text("# Checkpoints\n\n## Checkpoint 1\n\nsomething\n")
    with pytest.raises(ReaderError) as info:
        tac.load_task(task_dir)
    assert info.value.path.endswith("checkpoints.md")


def test_bad_dependencies_yaml(tmp_path: Path) -> None:
    task_dir = tmp_path / "t"
    task_dir.mkdir()
    (task_dir / "checkpoints.md").write_text("## Checkpoint 1 (1pt)\n\nx\n")
    (task_dir / "dependencies.yml").write_text("- gitlab\n  - : [\n")
    with pytest.raises(ReaderError) as info:
        tac.load_task(task_dir)
    assert info.value.path.endswith("dependencies.yml") and info.value.line is not None


def test_load_tasks_index(fixtures: Path) -> None:
    index = tac.load_tasks_index(fixtures / "theagentcompany" / "tasks_index.csv")
    assert index == {
        "demo-task": {
            "dependencies": ["owncloud", "rocketchat"],
            "owncloud_only": False,
            "no_services": False,
            "total_points": 6.0,
        },
        "list-task": {"dependencies": [], "owncloud_only": False, "no_services": True, "total_points": 4.0},
    }


def test_bad_tasks_index(tmp_path: Path) -> None:
    path = tmp_path / "tasks_index.csv"
    path.write_text("task,dependencies,owncloud_only,no_services,total_points\na,,2,0,\n")
    with pytest.raises(ReaderError) as info:
        tac.load_tasks_index(path)
    assert info.value.line == 2


# --- grader results ----------------------------------------------------------------------------------------


def test_load_evaluation(fixtures: Path) -> None:
    path = fixtures / "theagentcompany" / "runs" / "eval_demo-task-image.json"
    judgement = tac.load_evaluation(path)
    assert [(i.index, i.passed, i.score) for i in judgement.items] == [
        (0, True, 1),
        (1, True, 2),
        (2, False, 0),
    ]
    assert judgement.summary == {"total": 6, "result": 3}
    assert judgement.judge == "theagentcompany-evaluator"
    assert judgement.source_path == str(path)
    assert judgement.n_passed == 2


@pytest.mark.parametrize(
    ("data", "field"),
    [
        ({"checkpoints": [{"total": 1, "result": 1}]}, "final_score"),
        ({"checkpoints": [{"total": 1}], "final_score": {"total": 1, "result": 0}}, "checkpoints[0].result"),
        (
            {"checkpoints": [{"total": 1, "result": "1"}], "final_score": {"total": 1, "result": 1}},
            "checkpoints[0].result",
        ),
        ({"checkpoints": [], "final_score": {"total": 1}}, "final_score.result"),
        ({"final_score": {"total": 1, "result": 1}}, "checkpoints"),
    ],
)
def test_malformed_evaluation_names_field(tmp_path: Path, data: dict, field: str) -> None:
    path = tmp_path / "eval_x-image.json"
    path.write_text(json.dumps(data))
    with pytest.raises(ReaderError) as info:
        tac.load_evaluation(path)
    assert info.value.field == field


def test_evaluation_invalid_json_names_line(tmp_path: Path) -> None:
    path = tmp_path / "eval_x-image.json"
    path.write_text('{\n  "checkpoints": [\n    {"total": 1 "result": 1}\n  ]\n}\n')
    with pytest.raises(ReaderError) as info:
        tac.load_evaluation(path)
    assert info.value.line == 3


# --- attach ------------------------------------------------------------------------------------------------


def test_attach_fixture_run(fixtures: Path) -> None:
    (t,) = openhands.read(fixtures / "theagentcompany" / "runs" / "traj_demo-task-image.json", ReadOptions())
    assert tac.attach(t)
    assert t.benchmark == "theagentcompany"
    assert t.task.id == "demo-task" and t.task.meta["points_total"] == 6.0
    assert t.task.meta["index"]["dependencies"] == ["owncloud", "rocketchat"]
    assert t.judgement.summary == {"total": 6, "result": 3}
    assert tac.score(t.judgement.summary["result"], t.judgement.summary["total"]) == 0.25
    assert trajectory_from_dict(trajectory_to_dict(t)) == t


def _trajectory(source: Path, task_id: str | None) -> Trajectory:
    return Trajectory(id="x", format="openhands", source_path=str(source), task_id=task_id)


def test_attach_false_when_not_this_benchmark(fixtures: Path, tmp_path: Path) -> None:
    runs = fixtures / "theagentcompany" / "runs"
    assert not tac.attach(_trajectory(runs / "traj_demo-task-image.json", None))
    assert not tac.attach(_trajectory(runs / "traj_demo-task-image.json", "no-such-task"))
    assert not tac.attach(_trajectory(runs / "traj_demo-task-image.json", "../tasks/demo-task"))
    assert not tac.attach(_trajectory(tmp_path / "run.jsonl", "demo-task"))


def test_attach_walks_up_three_levels(fixtures: Path, tmp_path: Path) -> None:
    shutil.copytree(fixtures / "theagentcompany" / "tasks", tmp_path / "tasks")
    deep = tmp_path / "a" / "b" / "c"
    deep.mkdir(parents=True)
    t = _trajectory(deep / "traj_demo-task-image.json", "demo-task")
    assert tac.attach(t) and t.task.id == "demo-task" and t.judgement is None
    assert "index" not in t.task.meta  # no tasks_index.csv in tmp_path
    (deep / "d").mkdir()
    assert not tac.attach(_trajectory(deep / "d" / "traj_demo-task-image.json", "demo-task"))


def test_eval_file_name_rules(fixtures: Path, tmp_path: Path) -> None:
    shutil.copytree(fixtures / "theagentcompany" / "tasks", tmp_path / "tasks")
    runs = tmp_path / "runs"
    runs.mkdir()
    good = (fixtures / "theagentcompany" / "runs" / "eval_demo-task-image.json").read_text()
    (runs / "eval_demo-task-extra.json").write_text("not json")  # another task's name: never read
    (runs / "eval_demo-task-image-claude.json").write_text(good)
    t = _trajectory(runs / "traj_demo-task-image-claude.json", "demo-task")
    assert tac.attach(t) and t.judgement.source_path == str(runs / "eval_demo-task-image-claude.json")


def test_attach_raises_on_malformed_eval(fixtures: Path, tmp_path: Path) -> None:
    shutil.copytree(fixtures / "theagentcompany" / "tasks", tmp_path / "tasks")
    (tmp_path / "eval_demo-task-image.json").write_text('{"checkpoints": []}')
    (tmp_path / "traj_demo-task-image.json").write_text("[]")
    with pytest.raises(ReaderError):
        tac.attach(_trajectory(tmp_path / "traj_demo-task-image.json", "demo-task"))


# --- the real task set -------------------------------------------------------------------------------------

# checkpoints.md files whose "N points in total" disagrees with the sum of their checkpoint headings
# (upstream inconsistencies, kept as found: (stated, sum of headings)).
STATED_TOTAL_MISMATCHES = {
    "admin-collect-requests-and-compute-total-price": (3.0, 4.0),
    "ds-coffee-shop-database-management": (7.0, 10.0),
    "ds-janusgraph-exercise": (4.0, 6.0),
    "example": (6.0, 5.0),
}

_POINTS = re.compile(r"\((\d+)\s*p(?:oin)?ts?\)\s*$|^\d+\.\s*\[(\d+)pts\]", re.I)


def _points_by_hand(text: str) -> float:
    total = 0.0
    for line in text.splitlines():
        m = _POINTS.search(line.strip()) if line.startswith(("#", "1", "2", "3")) else None
        if m:
            total += float(m[1] or m[2])
    return total


@pytest.fixture(scope="module")
def real_tasks(real: Path):
    return tac.load_tasks(real / "theagentcompany" / "tasks")


def test_real_every_task_parses(real_tasks, real: Path) -> None:
    assert len(real_tasks) == 175
    assert sum(len(t.rubric) for t in real_tasks) == 552
    assert sum(1 for t in real_tasks for r in t.rubric if r.type == "final") == 19
    for t in real_tasks:
        text = (real / "theagentcompany" / "tasks" / t.id / "checkpoints.md").read_text(encoding="utf-8")
        assert t.meta["points_total"] == _points_by_hand(text), t.id


def test_real_points_match_stated_totals(real_tasks) -> None:
    stated = [t for t in real_tasks if t.meta["stated_points_total"] is not None]
    assert len(stated) == 147
    mismatches = {
        t.id: (t.meta["stated_points_total"], t.meta["points_total"])
        for t in stated
        if t.meta["stated_points_total"] != t.meta["points_total"]
    }
    assert mismatches == STATED_TOTAL_MISMATCHES


def test_real_tasks_index(real_tasks, real: Path) -> None:
    index = tac.load_tasks_index(real / "theagentcompany" / "tasks_index.csv")
    assert sorted(index) == sorted(t.id for t in real_tasks)
    assert sum(1 for row in index.values() if row["owncloud_only"]) == 33
    for t in real_tasks:
        assert index[t.id]["total_points"] == t.meta["stated_points_total"], t.id


REAL_RUN_POINTS = {
    "ds-janusgraph-exercise": 6.0,
    "finance-qualified-bill-ask-for-reimburse": 5.0,
    "pm-schedule-meeting-1": 5.0,
    "pm-schedule-meeting-2": 5.0,
    "pm-send-hello-message": 5.0,
    "qa-escalate-emergency": 3.0,
    "sde-create-new-repo": 3.0,
    "sde-run-janusgraph": 6.0,
}


def test_real_runs_attach_to_their_tasks(real: Path) -> None:
    folder = real / "theagentcompany" / "openhands-trajectories"
    attached = {}
    for path in sorted(folder.glob("traj_*.json")):
        (t,) = openhands.read(path, ReadOptions())
        assert tac.attach(t), path.name
        assert t.task.id == t.task_id
        assert t.judgement is None  # no grader results were published with these runs
        attached[t.task_id] = t.task.meta["points_total"]
    assert attached == REAL_RUN_POINTS

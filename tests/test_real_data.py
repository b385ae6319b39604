"""Everything in ../shared/real at once: every trajectory ingests, joins its benchmark, and round-trips exactly."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest

from rtlab.ingest import ingest
from rtlab.records import trajectory_from_dict, trajectory_to_dict


@pytest.fixture(scope="module")
def everything(real_pinned: list[Path]):
    return ingest(real_pinned)


def test_every_real_trajectory_ingests(everything) -> None:
    assert everything.failures == []
    formats = Counter(t.format for t in everything.trajectories)
    # 15 Workspace-Bench Codex runs, 32 OfficeQA G2B runs, 8 OpenHands runs, 1 Pi session
    assert formats == {"codex": 15, "g2b": 32, "openhands": 8, "pi": 1}
    benchmarks = Counter(t.benchmark for t in everything.trajectories)
    assert benchmarks == {"workspace-bench": 15, "officeqa": 32, "theagentcompany": 8, None: 1}
    assert len({t.id for t in everything.trajectories}) == 56


def test_rubric_counts_match_the_judge_files(everything) -> None:
    for t in everything.trajectories:
        if t.benchmark == "workspace-bench":
            summary = json.loads(Path(t.judgement.source_path).read_text())["summary"]
            assert (t.judgement.n_passed, len(t.task.rubric)) == (summary["passed"], summary["total"]), t.id
        elif t.benchmark == "officeqa":
            assessment = json.loads(Path(t.judgement.source_path).read_text())
            assert t.judgement.n_passed == int(assessment["is_correct"]), t.id


def test_real_trajectories_round_trip_exactly(everything) -> None:
    for t in everything.trajectories:
        line = json.dumps(trajectory_to_dict(t), ensure_ascii=False)
        assert trajectory_from_dict(json.loads(line)) == t, t.id


def test_shown_differs_from_logged_only_when_clipped(everything) -> None:
    for t in everything.trajectories:
        for s in t.steps:
            if s.answered:
                assert s.shown is not None
                assert s.clipped or s.shown == s.output, (t.id, s.index)

"""Replay over every real trajectory: no file that was read is a candidate, and every listed-only file is."""

from __future__ import annotations

import posixpath
from pathlib import Path

import pytest

from rtlab.environment import capture_step, is_tab_call, replay
from rtlab.ingest import ingest


@pytest.fixture(scope="module")
def corpus(real: Path):
    return ingest([real]).trajectories


def _parents(paths: set[str]) -> set[str]:
    out: set[str] = set()
    for p in paths:
        while (p := posixpath.dirname(p)) not in ("", ".", "/"):
            out.add(p)
    return out


def test_candidates_are_exactly_the_listed_never_read_files(corpus) -> None:
    checked = 0
    for t in corpus:
        r = replay(t)
        read = {e.path for e in r.tab.read_log}
        listed: set[str] = set()
        written: set[str] = set()
        folders: set[str] = set()  # shown to be folders, and the parents of every path the tab saw
        for step in t.steps:
            if not step.answered or is_tab_call(step):
                continue
            c = capture_step(step, cwd=step.cwd or t.cwd, root=t.cwd)
            listed.update(c.listed)
            written.update(c.written)
            folders.update(c.folders)
        folders |= _parents(folders | read | listed | written)
        candidates = set(r.tab.candidates)
        assert not candidates & read, t.id
        assert candidates == listed - read - written - folders, t.id
        checked += len(candidates)
    assert checked > 1000  # the Workspace-Bench listings alone name hundreds of files


def test_candidate_scores_are_sorted_and_bounded(corpus) -> None:
    for t in corpus:
        ranked = replay(t).tab.candidates_ranked()
        scores = [c.score for c in ranked]
        assert scores == sorted(scores, reverse=True), t.id
        assert len({c.path for c in ranked}) == len(ranked), t.id


def test_officeqa_replay_against_the_bulletins(real: Path) -> None:
    """`--workspace bulletins --agent-root auto`: each run's reads confirmed by content, named as its sources."""
    from rtlab.runner import ReplayOptions, replay_paths

    traces = real / "officeqa" / "g2b-gpt-5.4-traces"
    options = ReplayOptions(
        workspace=str(real / "officeqa" / "treasury_bulletins_transformed_subset"), agent_root="auto"
    )
    replays = {
        r.trajectory_id: r for done, failed in replay_paths([traces], options) for r in done if not failed
    }
    assert len(replays) == 32
    tasks = {t.id: t for t in ingest([traces]).trajectories}
    with_reads = 0
    for tid, r in replays.items():
        read = {e.path for e in r.tab.read_log}
        # only the question's own bulletins are read (the workspace holds all 40)
        assert {p for p in read if p.startswith("treasury_bulletin_")} <= set(tasks[tid].task.source_files), (
            tid
        )
        with_reads += bool(read)
    assert with_reads >= 30

"""Replay: the tab rebuilt from recorded runs, per step and at the end; tables, Parquet, many runs at once."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pandas as pd
import pytest
from conftest import FIXTURES, ROOT

from rtlab.environment import (
    TabConfig,
    evaluator_view,
    export_parquet,
    redact_text,
    replay,
    replay_summary,
    tables,
)
from rtlab.ingest import ingest
from rtlab.runner import ReplayOptions, replay_paths

SAMPLE_CODEX = ROOT / "data" / "sample" / "codex" / "301_plain"
RUNNINGTAB = FIXTURES / "runningtab" / "hr-offer-chat.json"


def _one(path: Path):
    (t,) = ingest([path]).trajectories
    return t


def test_sample_codex_run_read_log_and_candidates() -> None:
    t = _one(SAMPLE_CODEX)
    r = replay(t)
    # step 1 cats July; step 2 heads August and September (two `==> f <==` sections); step 3 prints a sum
    # (no file content); step 4 fails (no such file); step 5 writes the review
    assert [(e.id, e.step, e.path) for e in r.tab.read_log] == [
        ("L1", 1, "finance/2024/expenses_2024-07.csv"),
        ("L2", 2, "finance/2024/expenses_2024-08.csv"),
        ("L3", 2, "finance/2024/expenses_2024-09.csv"),
    ]
    assert (
        r.tab.read_log[0].excerpt
        == "item,amount\nOffice rent,12000\nCloud hosting,8450.50\nTravel,3210\nSoftware licences,2400\n"
    )
    # `find` listed 7 files; 3 were read, so 4 stay candidates
    assert sorted(c.path for c in r.tab.candidates_ranked()) == [
        "finance/2024/expenses_2024-09_draft.csv",
        "finance/budget_plan_2024.xlsx",
        "hr/headcount_q3.md",
        "notes/vendor_contacts.txt",
    ]
    assert r.finish_check is None  # no requirements: nothing to finish
    assert [rec.n_entries for rec in r.records] == [0, 1, 3, 3, 3, 3]


def test_rubric_requirements_and_finish_check() -> None:
    t = _one(SAMPLE_CODEX)
    r = replay(t, requirements="rubric")
    assert [q.id for q in r.tab.requirements] == ["R1", "R2", "R3", "R4", "R5", "R6"]
    assert all(q.status == "open" and q.step_added is None for q in r.tab.requirements)
    assert r.finish_check is not None and "R6" in r.finish_check
    assert replay(t, requirements="rubric", config=TabConfig.ablation("no-finish-check")).finish_check is None
    with pytest.raises(ValueError, match="rubric"):
        replay(_one(ROOT / "data" / "sample" / "openai"), requirements="rubric")


def test_until_is_the_prefix() -> None:
    t = _one(SAMPLE_CODEX)
    full, early = replay(t), replay(t, until=1)
    assert [e.id for e in early.tab.read_log] == ["L1"]
    assert early.records == full.records[:2]
    assert early.finish_check is None


def test_no_capture_fills_nothing() -> None:
    r = replay(_one(SAMPLE_CODEX), config=TabConfig.ablation("no-capture"))
    assert r.tab.read_log == [] and r.tab.candidates_ranked() == []


def test_trajectory_requirements_replay_the_agents_tab_calls() -> None:
    t = _one(RUNNINGTAB)
    r = replay(t, requirements="trajectory")
    assert [(q.id, q.status, q.cite) for q in r.tab.requirements] == [
        ("R1", "done", "L1"),
        ("R2", "unavailable", None),
    ]
    replies = [rec.reply for rec in r.records if rec.kind == "tab_call"]
    # c7 cites L2 (notes/benefits.txt: notes, benefits, txt, health, plan, gold, dental, included) for R2
    # (start, date, dana, kim, offer): no shared term, so the evidence check refuses it
    refused = replies[5]
    assert "R2" in refused and r.tab.requirements[1].reason == "the offer letter gives no start date"
    assert r.finish_check is None
    # with requirements from nowhere the tab calls are skipped, not run
    plain = replay(t)
    assert plain.tab.requirements == [] and {rec.kind for rec in plain.records} >= {
        "skipped_tab_call",
        "observe",
    }
    view = evaluator_view(t)
    assert [s.command for s in view.steps] == [
        "ls offers",
        "cat offers/dana_kim_offer.txt",
        "cat notes/benefits.txt",
    ]


def test_summary_json_fields() -> None:
    s = replay_summary(replay(_one(SAMPLE_CODEX), requirements="rubric"))
    assert set(s) >= {"id", "read_log", "candidates", "requirements", "finish_check"}
    # the whole July sheet: 12 + 18 + 22 + 12 + 23 characters, newlines included
    assert s["read_log"][0] == {
        "id": "L1",
        "step": 1,
        "path": "finance/2024/expenses_2024-07.csv",
        "command": "cat finance/2024/expenses_2024-07.csv",
        "chars": 87,
    }
    scores = [c["score"] for c in s["candidates"]]
    assert scores == sorted(scores, reverse=True)
    json.dumps(s)


def test_tables_parquet_and_redaction(tmp_path: Path) -> None:
    r = replay(_one(SAMPLE_CODEX), requirements="rubric")
    frames = tables([r])
    assert list(frames["read_log"]["path"]) == [e.path for e in r.tab.read_log]
    assert len(frames["steps"]) == len(r.records) and len(frames["requirements"]) == 6
    written = export_parquet([r], tmp_path / "out", redact=True)
    assert sorted(p.name for p in written) == [
        "candidates.parquet",
        "read_log.parquet",
        "requirements.parquet",
        "steps.parquet",
    ]
    for p in written:
        assert p.stat().st_mode & 0o777 == 0o600
    back = pd.read_parquet(tmp_path / "out" / "read_log.parquet")
    assert list(back["chars"]) == [len(e.excerpt) for e in r.tab.read_log]
    assert back["excerpt"][0].startswith("xxxx,xxxxxx\nxxxxxx xxxx,00000\n")
    assert redact_text("Base: $128,000 (año)") == "xxxx: $000,000 (xxx)"


def test_replay_paths_reports_a_bad_run_and_goes_on(tmp_path: Path) -> None:
    runs = tmp_path / "runs"
    (runs / "bad").mkdir(parents=True)
    (runs / "bad" / "broken.jsonl").write_text(
        '{"schema":"rtlab.trajectory","version":1,"id":"a","format":"pi"}\n'
    )
    shutil.copytree(SAMPLE_CODEX, runs / "good" / "301_plain")
    batches = list(replay_paths([runs]))
    done = [r for d, _ in batches for r in d]
    failed = [f for _, f in batches for f in f]
    assert [r.trajectory_id for r in done] == ["codex:301_plain"]
    assert len(failed) == 1 and "broken.jsonl" in failed[0].path
    with pytest.raises(RuntimeError, match="broken.jsonl"):
        list(replay_paths([runs], strict=True))


def test_parallel_replay_equals_serial() -> None:
    paths = [ROOT / "data" / "sample", FIXTURES / "runningtab"]
    options = ReplayOptions(requirements="none")
    serial = [replay_summary(r) for d, _ in replay_paths(paths, options) for r in d]
    parallel = [replay_summary(r) for d, _ in replay_paths(paths, options, jobs=2) for r in d]
    assert serial == parallel and len(serial) == 4


def test_each_is_applied_where_the_run_was_replayed() -> None:
    # `each` turns every replay into what the caller keeps, in the worker: the same results as applying it
    # afterwards, serial or parallel, and a bad unit is still reported beside them
    paths = [ROOT / "data" / "sample", FIXTURES / "runningtab"]
    options = ReplayOptions(requirements="trajectory")
    expected = [replay_summary(r) for d, _ in replay_paths(paths, options) for r in d]
    for jobs in (1, 2):
        got = [s for d, _ in replay_paths(paths, options, jobs=jobs, each=replay_summary) for s in d]
        assert got == expected


def test_parallel_replay_reports_a_bad_unit_and_counts_every_unit(tmp_path: Path, capsys) -> None:
    runs = tmp_path / "runs"
    (runs / "bad").mkdir(parents=True)
    (runs / "bad" / "broken.jsonl").write_text('{"schema":"rtlab.trajectory","version":1,"id":"a"}\n')
    shutil.copytree(SAMPLE_CODEX, runs / "good" / "301_plain")
    shutil.copytree(SAMPLE_CODEX, runs / "good" / "302_plain")
    batches = list(replay_paths([runs], jobs=2, progress=True, each=replay_summary))
    assert [s["id"] for d, _ in batches for s in d] == ["codex:301_plain", "codex:302_plain"]
    assert [f.path for _, fs in batches for f in fs] == [str(runs / "bad" / "broken.jsonl")]
    assert "3/3" in capsys.readouterr().err  # the progress bar learnt its total once the units were found


def test_cli_replay_json_and_show(capsys) -> None:
    from rtlab.cli import main

    assert main(["replay", str(SAMPLE_CODEX), "--json", "--requirements", "rubric"]) == 0
    (row,) = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [e["path"] for e in row["read_log"]][:1] == ["finance/2024/expenses_2024-07.csv"]
    assert len(row["requirements"]) == 6 and row["finish_check"]
    assert main(["show", str(SAMPLE_CODEX), "--step", "2", "--requirements", "rubric"]) == 0
    out = capsys.readouterr().out
    assert "[tab] 6 open" in out and "The review (tab_list)" in out and "L3" in out
    assert main(["show", str(SAMPLE_CODEX), "--step", "99"]) == 2


def test_excerpt_files_are_private(tmp_path: Path) -> None:
    from rtlab.cli import main

    out = tmp_path / "tab"
    assert main(["replay", str(SAMPLE_CODEX), "--out", str(out)]) == 0
    assert all(os.stat(p).st_mode & 0o777 == 0o600 for p in out.iterdir())

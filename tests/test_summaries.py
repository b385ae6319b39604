"""Summary reading (``rtlab.summaries``, ``rtlab.ingest.read_summaries``, ``rtlab info --summary``): the same
numbers as the whole reading wherever a log's own summary is read (every real Inspect log, hand-made ``.eval``
logs), the whole reading wherever the summary cannot stand for the log (said in ``why_full``), and a store's
``trajectories`` table."""

from __future__ import annotations

import json
import zipfile
from pathlib import Path
from typing import Any

import pandas as pd
import pytest
from conftest import FIXTURES, wild_folder
from test_readers_inspect import _header, _member, _rich_sample, _zip

import rtlab
from rtlab.analysis import STEP_COLUMNS, summary_frame
from rtlab.cli import main
from rtlab.ingest import SUMMARY_ONLY, ingest, read_summaries, unit_path
from rtlab.ingest.readers import inspect

SAME = [c for c in summary_frame([]).columns if c not in STEP_COLUMNS]
"""The columns a summary gives: everything but what only the steps and every record's warnings say."""


def assert_same_numbers(paths: list[Path]) -> pd.DataFrame:
    """``rtlab.summaries(paths)`` against the whole reading's ``summary_frame``: the same rows in the same order,
    equal on every column a summary gives; the rows read whole equal on every column."""
    got = rtlab.summaries(paths)
    full = summary_frame(ingest(paths).trajectories)
    assert list(got["id"]) == list(full["id"])
    pd.testing.assert_frame_equal(got[SAME], full[SAME], check_dtype=False)
    whole = got["read"] == "full"
    pd.testing.assert_frame_equal(
        got.loc[whole, list(full.columns)].reset_index(drop=True),
        full.loc[whole.to_numpy()].reset_index(drop=True),
        check_dtype=False,
    )
    assert got.loc[~whole, [c for c in STEP_COLUMNS]].isna().all().all()
    return got


def _summary(sample: dict[str, Any]) -> dict[str, Any]:
    """The ``EvalSampleSummary`` Inspect writes for a sample (log/_log.py ``EvalSample.summary``): id, epoch,
    input, target, scores (when set), model usage (always), times; ``None`` fields left out."""
    keys = ("id", "epoch", "input", "target", "metadata", "scores", "model_usage", "total_time", "uuid")
    row = {k: sample[k] for k in keys if sample.get(k) is not None}
    row.setdefault("model_usage", {})
    row["message_count"] = len(sample.get("messages") or [])
    return row


def _eval(
    path: Path,
    samples: list[dict[str, Any]],
    *,
    summaries: list[dict[str, Any]] | None = None,
    header: bool = True,
    plan_solver: str | None = None,
) -> Path:
    """A ``.eval`` as Inspect lays it out (start, samples, summaries, header last), deflated; ``plan_solver``:
    the solver its plan names."""
    head = _header()
    if plan_solver is not None:
        head["plan"]["steps"] = [{"solver": plan_solver, "params": {}}]
    members = [
        ("_journal/start.json", json.dumps({k: head[k] for k in ("version", "eval", "plan")}).encode()),
        *[(_member(s), json.dumps(s).encode()) for s in samples],
        (
            "summaries.json",
            json.dumps([_summary(s) for s in samples] if summaries is None else summaries).encode(),
        ),
    ]
    if header:
        members.append(("header.json", json.dumps(head).encode()))
    return _zip(path, members, zipfile.ZIP_DEFLATED)


def _samples() -> list[dict[str, Any]]:
    """Three samples of the rich one: ids sorted as Inspect sorts them (numbers zero-filled), two epochs."""
    out = []
    for sid, epoch, value in ((10, 1, "I"), (2, 1, "C"), (2, 2, 0.5)):
        s = _rich_sample()
        s.update(id=sid, epoch=epoch)
        s["scores"]["correct"]["value"] = value
        out.append(s)
    return out


def test_every_real_inspect_log_gives_the_whole_reading_s_numbers(real: Path) -> None:
    logs = sorted(wild_folder(real, "inspect").iterdir())
    got = assert_same_numbers(logs)
    by_file = got.groupby("source_path")["read"].agg(set)
    for log in logs:
        with_summary = log.suffix == ".eval" and "summaries.json" in zipfile.ZipFile(log).namelist()
        key = str(unit_path(log))  # the one form of a source path: links on the way resolved (../shared may be one)
        assert by_file[key] == ({"summary"} if with_summary else {"full"}), log
    assert (got["read"] == "summary").sum() >= 80  # the three real logs' samples, none decoded
    assert got.loc[got["read"] == "full", "why_full"].tolist() == ["a .json log holds its samples inline"]


def test_a_hand_made_eval_gives_the_whole_reading_s_numbers(tmp_path: Path) -> None:
    log = _eval(tmp_path / "log.eval", _samples())
    got = assert_same_numbers([log])
    assert list(got["read"]) == ["summary"] * 3
    assert list(got["id"]) == ["inspect:EvalId0001/2/1", "inspect:EvalId0001/10/1", "inspect:EvalId0001/2/2"]
    assert list(got["n_rubric_passed"]) == [1, 0, 0]
    assert list(got["input_tokens"]) == [180, 180, 180]
    (t, *_) = inspect.summarize(log, inspect.ReadOptions())
    assert t.steps == [] and t.meta[SUMMARY_ONLY] == "header.json + summaries.json"


def test_the_samples_are_never_decompressed(tmp_path: Path) -> None:
    """A sample member that is not even JSON: the summary path never opens it; the whole reading does."""
    samples = _samples()
    log = _eval(tmp_path / "log.eval", samples)
    damaged = tmp_path / "damaged.eval"
    with zipfile.ZipFile(log) as src, zipfile.ZipFile(damaged, "w", zipfile.ZIP_DEFLATED) as dst:
        for name in src.namelist():
            dst.writestr(name, b"not json" if name == _member(samples[0]) else src.read(name))
    assert list(rtlab.summaries([damaged])["read"]) == ["summary"] * 3
    assert len(ingest([damaged]).trajectories) == 2


def test_a_unit_that_fails_is_listed(tmp_path: Path) -> None:
    bad = tmp_path / "bad.eval"
    _eval(bad, _samples())
    bad.write_bytes(bad.read_bytes()[: len(bad.read_bytes()) // 2])  # the central directory cut off
    good = _eval(tmp_path / "good.eval", _samples())
    got = rtlab.summaries([tmp_path])
    assert set(got["source_path"]) == {str(good)}
    [failure] = got.attrs["failures"]
    assert failure.path == str(bad) and failure.format == "inspect"
    assert failure.error == ingest([bad]).failures[0].error


@pytest.mark.parametrize(
    "case, why",
    [
        ("one stored sample not summarized", "the samples summarized are not the samples stored"),
        ("one summarized sample not stored", "the samples summarized are not the samples stored"),
        ("summaries without model usage", "summaries.json is not a list of whole sample summaries"),
        ("no header", "no header.json"),
        ("run by rtlab's agent", "rtlab's agent ran it"),
        ("a json log", "a .json log holds its samples inline"),
    ],
)
def test_a_summary_that_cannot_stand_for_the_log_is_read_whole(tmp_path: Path, case: str, why: str) -> None:
    samples = _samples()
    rows = [_summary(s) for s in samples]
    if case == "a json log":
        log = tmp_path / "log.json"
        log.write_text(json.dumps({**_header(), "samples": samples}), encoding="utf-8")
    elif case == "no header":
        log = _eval(tmp_path / "log.eval", samples, header=False)
    elif case == "run by rtlab's agent":
        log = _eval(tmp_path / "log.eval", samples, plan_solver="rtlab/runningtab")
    else:
        changed = {
            "one stored sample not summarized": rows[:2],
            "one summarized sample not stored": [*rows, {**rows[0], "id": 99}],
            "summaries without model usage": [
                {k: v for k, v in r.items() if k != "model_usage"} for r in rows
            ],
        }[case]
        log = _eval(tmp_path / "log.eval", samples, summaries=changed)
    got = assert_same_numbers([log])
    assert set(got["read"]) == {"full"}
    assert all(w.startswith(why) for w in got["why_full"]), list(got["why_full"])


def test_strict_reads_every_record(tmp_path: Path) -> None:
    log = _eval(tmp_path / "log.eval", _samples())
    result = read_summaries([log], strict=True)
    assert {s.read for s in result.summarized} == {"full"}
    assert {s.why_full for s in result.summarized} == {"--strict reads every record"}


def test_formats_without_a_summary_are_read_whole() -> None:
    paths = [FIXTURES / "inspect", FIXTURES / "pi"]
    got = assert_same_numbers(paths)
    assert set(got["read"]) == {"full"}
    assert got["why_full"].isna().sum() == (got["format"] != "inspect").sum()  # no summary to try: no reason


def test_a_store_gives_its_trajectories_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from rtlab.store import build_store

    runs = FIXTURES / "pi"
    build_store([runs], tmp_path / "store")
    got = rtlab.summaries(tmp_path / "store")
    table = rtlab.open(tmp_path / "store").trajectories()
    assert set(got["read"]) == {"store"}
    pd.testing.assert_frame_equal(got[list(table.columns)], table, check_dtype=False)
    full = summary_frame(ingest([runs]).trajectories)
    pd.testing.assert_frame_equal(got[SAME], full[SAME], check_dtype=False)
    assert main(["info", "--summary", "--json", str(tmp_path / "store")]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [(r["id"], r["n_steps"], r["read"]) for r in rows] == list(
        zip(table["id"], table["n_steps"], ["store"] * len(table), strict=True)
    )


def test_rtlab_info_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    log = _eval(tmp_path / "log.eval", _samples())
    assert main(["info", "--summary", str(log), str(FIXTURES / "inspect")]) == 0
    out = capsys.readouterr().out
    assert out.count("steps not counted (read from the log's summary)") == 3
    assert "(read whole: summaries.json is not a list of whole sample summaries" in out
    assert out.rstrip().endswith("4 trajectories (3 from summaries, 1 read whole)")
    assert main(["info", "--summary", "--json", str(log)]) == 0
    rows = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [r["read"] for r in rows] == ["summary"] * 3
    assert [r["n_steps"] for r in rows] == [None] * 3
    assert [r["n_rubric_passed"] for r in rows] == [1, 0, 0]

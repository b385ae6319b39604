"""Run labels from ``run.json`` (rtlab.ingest._labels) and their use by ingestion."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rtlab.errors import ReaderError
from rtlab.ingest import apply_run_labels, ingest, load_run_labels, run_labels_path

SAMPLE = Path(__file__).parent.parent / "data" / "sample" / "pi" / "hiring-summary-v3.jsonl"


def _session(tmp_path: Path, name: str = "s.jsonl") -> Path:
    target = tmp_path / name
    shutil.copy(SAMPLE, target)
    return target


def test_folder_run_json_labels_a_session(tmp_path: Path) -> None:
    session = _session(tmp_path)
    (tmp_path / "run.json").write_text(
        json.dumps({"schema": "rtlab.run", "method": "RunningTab", "variant": "no-review", "run": 2}),
        encoding="utf-8",
    )
    (t,) = ingest([session]).trajectories
    assert (t.method, t.variant, t.run) == ("RunningTab", "no-review", "2")  # an integer run becomes "2"
    assert t.model == "gpt-5.4-nano"  # not given: the reader's value stays
    assert t.meta["labels_from"] == str(tmp_path / "run.json")


def test_per_file_labels_win_over_the_folders(tmp_path: Path) -> None:
    a, b = _session(tmp_path, "a.jsonl"), _session(tmp_path, "b.jsonl")
    (tmp_path / "run.json").write_text('{"method": "DCI"}', encoding="utf-8")
    (tmp_path / "b.run.json").write_text('{"method": "TODO", "model": "m2"}', encoding="utf-8")
    assert run_labels_path(a) == tmp_path / "run.json"
    assert run_labels_path(b) == tmp_path / "b.run.json"
    methods = sorted((t.method, t.model) for t in ingest([tmp_path]).trajectories)
    assert methods == [("DCI", "gpt-5.4-nano"), ("TODO", "m2")]


def test_no_labels_file_changes_nothing(tmp_path: Path) -> None:
    (t,) = ingest([_session(tmp_path)]).trajectories
    assert t.method is None and "labels_from" not in t.meta
    assert apply_run_labels(t) is False


@pytest.mark.parametrize(
    ("text", "message", "field"),
    [
        ('{"method": "DCI", "arm": "x"}', "unknown label", "arm"),
        ('{"method": ["DCI"]}', "expected a string", "method"),
        ('{"schema": "other"}', "expected schema", "schema"),
        ("[1, 2]", "expected a JSON object", None),
        ('{"method": ', "not JSON", None),
    ],
)
def test_malformed_labels_name_the_field(tmp_path: Path, text: str, message: str, field: str | None) -> None:
    path = tmp_path / "run.json"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ReaderError, match=message) as info:
        load_run_labels(path)
    assert info.value.field == field
    assert str(path) in str(info.value)


def test_a_bad_labels_file_fails_only_its_unit(tmp_path: Path) -> None:
    good, bad = tmp_path / "good", tmp_path / "bad"
    good.mkdir(), bad.mkdir()
    _session(good), _session(bad)
    (bad / "run.json").write_text('{"method": 3.5}', encoding="utf-8")
    result = ingest([tmp_path])
    assert len(result.trajectories) == 1 and len(result.failures) == 1
    assert "run.json" in result.failures[0].error and "method" in result.failures[0].error

"""The dataset a notebook opens (rtlab.figures.open_dataset) and the titles' simulated tag."""

from __future__ import annotations

import shutil
from pathlib import Path

from conftest import ROOT

from rtlab.figures import Dataset, open_dataset, simulated_tag
from rtlab.ingest import ingest

SAMPLE = ROOT / "data" / "sample"


def test_open_dataset_reads_every_run_and_names_the_unreadable(tmp_path: Path) -> None:
    shutil.copytree(SAMPLE, tmp_path / "runs")
    broken = tmp_path / "runs" / "broken.jsonl"
    broken.write_text(  # nothing readable in it (a record cut off alone would be skipped, the rest read)
        '{"schema":"rtlab.trajectory","version":1,"id":"a"}\n{oops\n'
    )
    data = open_dataset(tmp_path / "runs", simulated=False)
    assert isinstance(data, Dataset) and data.path == str(tmp_path / "runs")
    expected = ingest([tmp_path / "runs"])
    assert [t.id for t in data.trajectories] == [t.id for t in expected.trajectories] and len(
        data.trajectories
    ) == 3
    assert data.failures == expected.failures and [f.path for f in data.failures] == [str(broken)]
    head, *rest = data.summary().splitlines()
    assert head == "3 trajectories, 1 unreadable" and data.note == "" and not data.simulated
    assert (
        rest == [f"  unreadable: {broken} (rtlab): {data.failures[0].error}"] and "broken.jsonl:1" in rest[0]
    )


def test_a_simulated_dataset_says_so(tmp_path: Path) -> None:
    data = open_dataset(SAMPLE, simulated=True)
    assert data.simulated and data.note == " (SIMULATED data)"
    assert data.summary() == "3 trajectories, 0 unreadable (SIMULATED data)"


def test_simulated_tag_names_the_simulated_parts_in_order() -> None:
    assert simulated_tag({"model": True, "data": True}) == " (SIMULATED model and data)"
    assert simulated_tag({"LLM annotators": True, "data": False}) == " (SIMULATED LLM annotators)"
    assert simulated_tag({"data": True}) == " (SIMULATED data)"
    assert simulated_tag({"model": False, "data": False}) == simulated_tag({}) == ""

"""The dataset a notebook opens (rtlab.figures.open_dataset), where a notebook's paths are from the root and from
notebooks/ (locate, embedded_dataset), and the titles' simulated tag."""

from __future__ import annotations

import re
import shlex
import shutil
import sys
from pathlib import Path

import pytest
from conftest import ROOT, EmbeddedRepo

from rtlab.figures import (
    EMBEDDED,
    EMBEDDED_CONFIG,
    Dataset,
    DatasetNotBuilt,
    embedded_dataset,
    locate,
    open_dataset,
    repository,
    simulated_tag,
)
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


# --- where a notebook's paths are, from the root and from notebooks/ ------------------------------------


def test_locate_takes_relative_paths_from_the_working_folder_else_the_repository(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    (repo / "data" / "simulated").mkdir(parents=True)
    (repo / "data" / "simulated" / "config.json").write_text("{}")
    (repo / "notebooks" / "runs").mkdir(parents=True)
    (repo / "figures").mkdir()
    books = repo / "notebooks"
    assert repository(books) == repository(repo) == repo and repository(tmp_path) is None
    assert locate("data/simulated", cwd=books) == repo / "data/simulated"  # written from the root
    assert locate("data/simulated", cwd=repo) == repo / "data/simulated"
    assert locate("runs", cwd=books) == books / "runs"  # written from the notebook's folder
    assert locate("../figures", cwd=books) == books / "../figures"
    assert locate("figures", cwd=books) == repo / "figures"  # make figures' folder, from either
    assert locate("out", cwd=books) == repo / "out"  # not there yet: from the root, where it is created
    assert locate("out", cwd=tmp_path) == tmp_path / "out"  # outside any repository: from the working folder
    assert locate(tmp_path / "x", cwd=books) == tmp_path / "x"


def test_open_dataset_finds_relative_data_from_notebooks_and_names_where_it_looked(tmp_path: Path) -> None:
    from_root = open_dataset("data/sample", simulated=False, cwd=ROOT)
    from_books = open_dataset("data/sample", simulated=False, cwd=ROOT / "notebooks")
    assert from_root.path == from_books.path == str(SAMPLE)
    assert [t.id for t in from_books.trajectories] == [t.id for t in from_root.trajectories]
    with pytest.raises(FileNotFoundError) as err:
        open_dataset("data/nowhere", cwd=ROOT / "notebooks")
    assert str(ROOT / "notebooks" / "data/nowhere") in str(err.value)
    assert str(ROOT / "data/nowhere") in str(err.value)


def test_the_makefile_builds_the_embedded_dataset_where_open_dataset_looks() -> None:
    make = (ROOT / "Makefile").read_text(encoding="utf-8")
    assert re.search(rf"^SIM +:= {re.escape(EMBEDDED)}$", make, flags=re.M)
    assert re.search(rf"^SIM_CONFIG := {re.escape(EMBEDDED_CONFIG)}$", make, flags=re.M)
    assert re.search(r"^STORE +:= \$\(SIM\)\.store$", make, flags=re.M)  # store_beside(SIM)
    assert "\t$(BIN)/rtlab synth $(SIM) --config $(SIM_CONFIG) --jobs $(JOBS)\n" in make
    assert "\t$(BIN)/rtlab build $(SIM) -o $(STORE) --jobs $(JOBS)\n" in make


def test_the_embedded_dataset_unbuilt_names_the_commands_that_build_it(embedded_repo: EmbeddedRepo) -> None:
    # the fixture ran the first command each error named, in the repository, and the dataset then opened
    root, python = embedded_repo.root, shlex.quote(sys.executable)
    synth = f"{python} -m rtlab synth build/simulated --config data/simulated/config.json --jobs 2"
    build = f"{python} -m rtlab build build/simulated -o build/simulated.store --jobs 2"
    first, second = embedded_repo.nothing_built, embedded_repo.no_store
    assert isinstance(first, DatasetNotBuilt) and isinstance(first, FileNotFoundError) and first.errno == 2
    assert (first.root, first.commands) == (root, [synth, build])
    assert first.missing == root / "build/simulated/README_SIMULATED.md"
    assert isinstance(second, DatasetNotBuilt) and (second.root, second.commands) == (root, [build])
    assert second.missing == root / "build/simulated.store/_manifest.json"
    text = str(first)
    assert f"`make store` in {root}" in text and f"\n  {synth}\n  {build}\n" in text
    assert f"  cd {shlex.quote(str(root))}\n" in text and "DATA" in text
    # built: from the root and from notebooks/ (JupyterLab's kernels) alike, simulated, through the store
    for cwd in (root, root / "notebooks"):
        data = open_dataset(cwd=cwd)
        assert data.path == str(root / "build/simulated") and data.simulated and data.note
        assert data.store.path == root / "build/simulated.store" and len(data.runs) == 18
    assert embedded_dataset(cwd=root / "notebooks") == root / "build/simulated"
    # the store opened as DATA is simulated too: its sources are
    store = open_dataset("build/simulated.store", cwd=root / "notebooks")
    assert store.simulated and store.sources == [str(root / "build/simulated")]


def test_a_store_built_by_other_rtlab_code_is_used_with_a_warning(
    embedded_repo: EmbeddedRepo, monkeypatch: pytest.MonkeyPatch
) -> None:
    import warnings

    import rtlab.store._build as build

    root = embedded_repo.root
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # built by this code: no warning
        assert embedded_dataset(cwd=root) == root / "build/simulated"
    monkeypatch.setattr(build, "code_fingerprint", lambda: "0123456789abcdef")  # rtlab changed since
    with pytest.warns(UserWarning, match="built by another version of rtlab") as caught:
        data = open_dataset(cwd=root / "notebooks")
    assert "`make store` in " + str(root) in str(caught[0].message) and data.simulated


def test_an_interrupted_world_is_regenerated_and_a_repository_is_needed(
    embedded_repo: EmbeddedRepo, tmp_path: Path
) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(embedded_repo.root / "data", repo / "data")
    (repo / "build" / "simulated").mkdir(parents=True)  # rtlab synth stopped before its marker
    with pytest.raises(DatasetNotBuilt) as err:
        embedded_dataset(cwd=repo)
    assert err.value.commands[0] == "rm -rf build/simulated build/simulated.partial"
    assert err.value.commands[1:] == getattr(embedded_repo.nothing_built, "commands", None)
    # outside any repository, the one rtlab is installed from (an editable install: this one)
    assert repository(tmp_path) is None
    try:
        assert embedded_dataset(cwd=tmp_path) == ROOT / EMBEDDED
    except DatasetNotBuilt as exc:  # this checkout's dataset is not built: the error names this checkout
        assert exc.root == ROOT

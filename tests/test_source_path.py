"""One path rule for provenance: a trajectory's ``source_path`` is the same string in ``rtlab.ingest``, the
replay tables (in memory and from ``rtlab.runner``), the store (built and opened), the viewer's payload and
the canonical JSONL, whichever route reached its unit: a symbolic link to the folder of runs, ``..``, a
relative or an absolute path (``rtlab.ingest.unit_path``)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import REAL, ROOT

import rtlab
from rtlab.environment import replay, tables
from rtlab.ingest import ingest, read_jsonl, unit_path, write_jsonl
from rtlab.runner import ReplayOptions, replay_paths
from rtlab.store import build_store
from rtlab.view import run_payload

Routes = dict[str, tuple[Path, str | Path]]
"""Each route's name: the working directory to take it from, and the path given there."""


def _fixture_runs(tmp_path: Path) -> Path:
    """A folder of runs of three formats: a Codex run folder joined with its Workspace-Bench task and judge
    files (beside it, inside the run folder), G2B run folders, Pi session files."""
    runs = tmp_path / "data" / "runs"
    shutil.copytree(ROOT / "data" / "sample" / "codex", runs / "codex")
    shutil.copytree(ROOT / "tests" / "fixtures" / "g2b" / "traces", runs / "g2b")
    shutil.copytree(ROOT / "tests" / "fixtures" / "pi", runs / "pi")
    return runs


def _routes(tmp_path: Path, runs: Path) -> Routes:
    """Five routes to the folder ``runs`` (which is reached through no link itself)."""
    link = tmp_path / "link"
    link.symlink_to(runs, target_is_directory=True)
    away = tmp_path / "elsewhere" / "deeper"
    away.mkdir(parents=True)
    return {
        "absolute": (tmp_path, runs),
        "the link": (tmp_path, link),
        # through the link, then up: its target's parent, where a lexical ".." would go to tmp_path instead
        "link/..": (tmp_path, link / ".." / runs.name),
        "relative": (runs.parent, runs.name),
        "relative with ..": (away, Path(os.path.relpath(runs, away))),
    }


def _source_paths(cwd: Path, path: str | Path, out: Path, store_path: Path) -> dict[str, list[str]]:
    """``source_path`` as each part of rtlab gives it for the runs under ``path``, taken from ``cwd``; the
    canonical JSONL is written to ``out``, the store built or updated in ``store_path``: every route after the
    first finds every unit unchanged (the store knows them by the same path)."""
    here = Path.cwd()
    os.chdir(cwd)
    try:
        # a folder of links to folders outside it is scanned when asked (by default only run folders are read)
        ts = ingest([path], follow_links=True).trajectories
        replays = [replay(t) for t in ts]
        frames = tables(replays)
        from_runner = [r for done, _ in replay_paths([path], ReplayOptions(follow_links=True)) for r in done]
        first = not store_path.exists()
        built = build_store([path], store_path, follow_links=True)
        assert not built.skipped and not built.removed
        assert (len(built.added), len(built.unchanged)) == ((len(ts), 0) if first else (0, len(ts)))
        store = rtlab.open(store_path)
        write_jsonl(ts, out / "canonical.jsonl")
        cli = out / "cli.jsonl"
        subprocess.run(
            [sys.executable, "-m", "rtlab", "ingest", str(path), "-o", str(cli), "--follow-links"],
            check=True,
            capture_output=True,
        )
    finally:
        os.chdir(here)
    found = {
        "ingest": sorted(t.source_path for t in ts),
        "replay": sorted(r.source_path for r in replays),
        "runner": sorted(r.source_path for r in from_runner),
        "viewer": sorted(run_payload(t)["run"]["source_path"] for t in ts),
        "store": sorted(store.table("trajectories")["source_path"]),
        "store, loaded": sorted(t.source_path for t in store.load_trajectories()),
        "canonical JSONL": sorted(t.source_path for t in read_jsonl(out / "canonical.jsonl")),
        "rtlab ingest -o": sorted(json.loads(line)["source_path"] for line in cli.read_text().splitlines()),
    }
    for name, frame in frames.items():  # every replay table carries it beside the trajectory's id
        if len(frame):
            found[f"replay table {name}"] = sorted(set(frame["source_path"]))
    for name in ("steps", "read_log", "values", "labels", "scores"):
        frame = store.table(name)
        if len(frame):
            found[f"store table {name}"] = sorted(set(frame["source_path"]))
    return found


def _check_routes(tmp_path: Path, routes: Routes) -> list[str]:
    """Every part of rtlab gives every route the same ``source_path`` for every unit: absolute, with no link on
    the way to the unit. Returns them."""
    seen: dict[str, dict[str, list[str]]] = {}
    for n, (name, (cwd, path)) in enumerate(routes.items()):
        out = tmp_path / "out" / str(n)
        out.mkdir(parents=True)
        seen[name] = _source_paths(cwd, path, out, tmp_path / "store")
    expected = seen["absolute"]["ingest"]
    for p in map(Path, expected):
        assert p.is_absolute() and p.parent.resolve() == p.parent and p.exists(), p
    for name, found in seen.items():
        for part, paths in found.items():
            if part.startswith(("replay table", "store table")):  # the tables hold the runs they have rows of
                assert paths and set(paths) <= set(expected), (name, part)
            else:
                assert paths == expected, (name, part)
    return expected


def test_every_route_gives_the_same_source_path(tmp_path: Path) -> None:
    runs = _fixture_runs(tmp_path)
    found = _check_routes(tmp_path, _routes(tmp_path, runs))
    assert len(set(found)) == len(found) == 6
    # the Workspace-Bench files beside the Codex run were joined by every route alike
    (codex,) = [t for t in ingest([tmp_path / "link"]).trajectories if t.format == "codex"]
    assert codex.benchmark == "workspace-bench" and codex.judgement is not None
    assert codex.source_path == str(runs.resolve() / "codex" / "301_plain")


def test_real_runs_by_every_route(tmp_path: Path) -> None:
    picked = [REAL / "pi", REAL / "dci-agent-lite"]
    if not all(p.is_dir() for p in picked):
        pytest.skip(f"real runs absent: {', '.join(str(p) for p in picked if not p.is_dir())}")
    # A folder of links to folders of real runs: what ../shared reached through a link gives.
    runs = tmp_path / "data" / "runs"
    runs.mkdir(parents=True)
    for p in picked:
        (runs / p.name).symlink_to(p, target_is_directory=True)
    found = _check_routes(tmp_path, _routes(tmp_path, runs))
    assert found and all(
        Path(p).is_relative_to(REAL.resolve()) for p in found
    )  # the links on the way resolved


def test_a_unit_that_is_a_link_stays_where_it_was_found(tmp_path: Path) -> None:
    """Like a file of a Hugging Face Hub snapshot (a link to a blob named by its hash): the unit keeps its own
    name and place, so the labels beside the link apply, while the links on the way to it are resolved."""
    blobs = tmp_path / "blobs"
    blobs.mkdir()
    shutil.copy(ROOT / "data" / "sample" / "pi" / "hiring-summary-v3.jsonl", blobs / "9f86d081884c7d65")
    snapshot = tmp_path / "snapshots" / "rev1"
    snapshot.mkdir(parents=True)
    (snapshot / "hiring.jsonl").symlink_to(Path("..") / ".." / "blobs" / "9f86d081884c7d65")
    (snapshot / "hiring.run.json").write_text('{"method": "DCI"}', encoding="utf-8")
    (tmp_path / "latest").symlink_to(snapshot, target_is_directory=True)
    for given in (tmp_path / "latest", snapshot, tmp_path / "latest" / "hiring.jsonl"):
        (t,) = ingest([given]).trajectories
        assert t.source_path == str(snapshot / "hiring.jsonl"), given
        assert t.method == "DCI" and t.meta["labels_from"] == str(snapshot / "hiring.run.json")


def test_unit_path() -> None:
    assert unit_path(".") == Path.cwd().resolve()
    assert unit_path("..") == Path.cwd().resolve().parent
    assert unit_path("a/b") == Path.cwd().resolve() / "a" / "b"
    assert unit_path(unit_path("a/b")) == unit_path("a/b")  # applied twice, the same

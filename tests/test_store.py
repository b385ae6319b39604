"""The analysis store (rtlab.store): built from runs, equal to the in-memory frames, rebuilt incrementally,
atomic under interruption, queried through DuckDB."""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pandas as pd
import pytest
from conftest import ROOT

from rtlab.store import MANIFEST, TABLES, build_store, open_store

WORLD = {
    "seed": 3,
    "world": {"roles": ["operations"], "tasks_per_role": 2, "files_per_role": [120, 130]},
    "models": ["sim-reviewer", "sim-explorer"],
    "arms": ["DCI", "RunningTab"],
    "runs": 1,
}
"""A small simulated world: 2 tasks x 2 arms x 2 models x 1 run = 8 runs."""


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from rtlab.synth import SynthConfig, generate

    return generate(tmp_path_factory.mktemp("store") / "world", SynthConfig.from_dict(WORLD))


def _copy(world: Path, tmp: Path) -> Path:
    runs = tmp / "world"
    shutil.copytree(world, runs, symlinks=True)
    return runs


def memory_frames(paths: list[Path]) -> dict[str, pd.DataFrame]:
    """Every table as the analyses compute it in memory (today's re-ingest and replay)."""
    from rtlab.analysis import diagnose_frame, scores_frame, summary_frame, tab_stats_frame, values_frame
    from rtlab.environment import replay, tables
    from rtlab.ingest import ingest

    ts = ingest(paths).trajectories
    rs = [replay(t) for t in ts]
    frames = dict(tables(rs))
    frames["trajectories"] = summary_frame(ts)
    frames["tab_stats"] = tab_stats_frame(rs)
    frames["values"] = values_frame(ts, rs)
    labels = diagnose_frame(ts, rs)
    labels.insert(labels.columns.get_loc("category"), "annotator", "rules")
    frames["labels"] = labels
    frames["scores"] = scores_frame(ts)
    return frames


def assert_same(store_frame: pd.DataFrame, memory: pd.DataFrame) -> None:
    """Same columns, same rows in the same order, same values (an empty in-memory frame has no dtypes)."""
    assert list(store_frame.columns) == list(memory.columns)
    assert len(store_frame) == len(memory)
    if len(memory):
        pd.testing.assert_frame_equal(store_frame, memory.reset_index(drop=True), check_dtype=True)


def test_the_store_equals_the_in_memory_frames(world: Path, tmp_path: Path) -> None:
    summary = build_store([world], tmp_path / "store")
    assert len(summary.added) == 8 and not summary.skipped
    store = open_store(tmp_path / "store")
    memory = memory_frames([world])
    for name in TABLES:
        if name != "records":
            assert_same(store.table(name), memory[name])
    # the trajectories themselves come back whole
    from rtlab.ingest import ingest
    from rtlab.records import trajectory_to_dict

    again = [trajectory_to_dict(t) for t in store.load_trajectories()]
    assert again == [trajectory_to_dict(t) for t in ingest([world]).trajectories]


def test_real_runs(tmp_path: Path) -> None:
    real = ROOT.parent / "shared" / "real"
    picked = [real / "officeqa" / "g2b-gpt-5.4-traces", real / "pi"]
    picked = [p for p in picked if p.exists()]
    if not picked:
        pytest.skip(f"no real runs at {real}")
    summary = build_store(picked, tmp_path / "store")
    store = open_store(tmp_path / "store")
    memory = memory_frames(picked)
    assert len(summary.added) + len(summary.skipped) > 0
    for name in TABLES:
        if name != "records":
            assert_same(store.table(name), memory[name])


def test_rebuilds_process_only_what_changed(world: Path, tmp_path: Path) -> None:
    runs = _copy(world, tmp_path)
    out = tmp_path / "store"
    build_store([runs], out, jobs=2)
    before = open_store(out)
    n_steps = len(before.steps())
    # nothing changed: nothing processed
    again = build_store([runs], out)
    assert again.processed == 0 and len(again.unchanged) == 8
    # one run changes (its session loses its last line): only it is reprocessed, its rows replaced
    unit = sorted(before.runs)[0]
    session = Path(unit)  # a Pi session file
    lines = session.read_text(encoding="utf-8").splitlines(keepends=True)
    session.write_text("".join(lines[: len(lines) // 2]), encoding="utf-8")
    changed = build_store([runs], out)
    assert changed.changed == [unit] and changed.processed == 1 and len(changed.unchanged) == 7
    store = open_store(out)
    assert_same(store.steps(), memory_frames([runs])["steps"])
    assert len(store.steps()) < n_steps
    # one run is deleted: its rows are gone
    gone = sorted(before.runs)[1]
    ids = before.runs[gone]["trajectories"]
    shutil.rmtree(Path(gone).parent)
    removed = build_store([runs], out)
    assert removed.removed == [gone] and removed.processed == 0
    store = open_store(out)
    for name in TABLES:
        frame = store.table(name)
        key = "id" if name == "trajectories" else "trajectory"
        assert not frame[key].isin(ids).any(), name
    assert_same(store.read_log(), memory_frames([runs])["read_log"])
    # no file is left that the manifest does not list
    manifest = json.loads((out / MANIFEST).read_text())
    listed = {f for files in manifest["files"].values() for f in files}
    on_disk = {p.relative_to(out).as_posix() for p in out.rglob("*.parquet")}
    assert on_disk == listed


def test_an_unreadable_run_is_reported_and_strict_stops(world: Path, tmp_path: Path) -> None:
    from rtlab.errors import UnitError

    runs = _copy(world, tmp_path)
    out = tmp_path / "store"
    build_store([runs], out)
    unit = sorted(open_store(out).runs)[2]
    session = Path(unit)
    session.write_text(session.read_text(encoding="utf-8") + '{"type": "message", "message": 3}\n{oops\n')
    summary = build_store([runs], out)  # two damaged records: skipped, said, the run read (issue 24)
    assert not summary.skipped and summary.processed == 1
    row = open_store(out).trajectories(filters=[("source_path", "==", unit)])
    assert row["n_warnings"].tolist() == [2]
    assert [w["kind"] for w in row["warnings"].iloc[0]] == ["truncated", "bad-record"]
    session.write_text('{"type": "session", "id": "s", "version": "x"}\n')  # its header unreadable: it fails
    summary = build_store([runs], out)
    assert list(summary.skipped) == [unit] and summary.processed == 1
    store = open_store(out)
    assert unit not in store.runs and unit in store.skipped
    assert build_store([runs], out).processed == 0  # still broken, unchanged: not retried
    shutil.rmtree(out)
    with pytest.raises(UnitError, match="sim-"):
        build_store([runs], out, strict=True)


def test_a_run_that_raises_partway_leaves_the_previous_store(world: Path, tmp_path: Path) -> None:
    runs = _copy(world, tmp_path)
    out = tmp_path / "store"
    build_store([runs], out)
    previous = open_store(out).read_log()
    for p in sorted(runs.rglob("*.jsonl"))[:3]:
        p.write_text(p.read_text(encoding="utf-8").replace("sim-", "sim-x-"), encoding="utf-8")

    def dies_after_two(fn, items):  # a mapper whose cluster goes away after two runs
        for i, item in enumerate(items):
            if i == 2:
                raise ConnectionError("cluster lost")
            yield fn(item)

    with pytest.raises(ConnectionError):
        build_store([runs], out, mapper=dies_after_two)
    assert_same(open_store(out).read_log(), previous)  # the last commit: the previous store
    finished = build_store([runs], out)
    assert finished.processed == 3
    assert_same(open_store(out).read_log(), memory_frames([runs])["read_log"])


def test_a_killed_build_leaves_a_readable_store_and_a_rerun_finishes(world: Path, tmp_path: Path) -> None:
    runs = _copy(world, tmp_path)
    out = tmp_path / "store"
    build_store([runs], out)
    previous = open_store(out).steps()
    for p in sorted(runs.rglob("*.jsonl")):
        p.write_text(p.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # every run changed
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "rtlab", "build", str(runs), "-o", str(out), "--quiet"], env=env
    )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and proc.poll() is None and not (out / "_build.lock").exists():
        time.sleep(0.01)
    time.sleep(1.0)  # the build has started: it finds, hashes and replays runs (seconds for these 8)
    done_before_kill = proc.poll() is not None
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    store = open_store(out)  # readable, and the previous store: nothing was committed
    if not done_before_kill:
        assert_same(store.steps(), previous)
    finished = build_store([runs], out)  # the dead build's lock is taken over
    assert finished.processed + len(finished.unchanged) == 8
    if not done_before_kill:
        assert len(finished.changed) == 8
    listed = {f for files in json.loads((out / MANIFEST).read_text())["files"].values() for f in files}
    assert {p.relative_to(out).as_posix() for p in out.rglob("*.parquet")} == listed
    assert_same(open_store(out).steps(), memory_frames([runs])["steps"])


def test_duckdb_query_equals_pandas(world: Path, tmp_path: Path) -> None:
    import rtlab

    build_store([world], tmp_path / "store")
    store = rtlab.open(tmp_path / "store")  # the README's query
    sql = store.sql(
        """
        SELECT t.model, avg(CASE WHEN l.category = 'shown_but_missing' THEN 1 ELSE 0 END) AS share
        FROM labels l JOIN trajectories t ON t.id = l.trajectory
        GROUP BY t.model ORDER BY t.model
        """
    )
    labels = store.labels()
    by_hand = (
        labels.assign(sbm=labels["category"] == "shown_but_missing")
        .groupby("model")["sbm"]
        .mean()
        .reset_index()
    )
    # the share per model is (failed items labelled shown_but_missing) / (failed items of that model)
    assert list(sql["model"]) == list(by_hand["model"])
    assert sql["share"].tolist() == pytest.approx(by_hand["sbm"].tolist(), abs=0)
    n = labels[labels["model"] == by_hand["model"][0]]
    assert sql["share"][0] == (n["category"] == "shown_but_missing").sum() / len(n)


def test_a_query_reads_the_tables_it_names_only(world: Path, tmp_path: Path) -> None:
    """Cold ``sql``: only the tables a query names are read (their files hashed first), a single ``SELECT``
    with them inlined (no view made); a query DuckDB's parser cannot take alone (a join ``USING`` columns)
    gets views as it runs; the answers equal the DuckDB query over the Parquet glob."""
    import duckdb

    import rtlab

    build_store([world], tmp_path / "store")
    store = rtlab.open(tmp_path / "store")
    got = store.sql("SELECT tool, count(*) AS n FROM steps GROUP BY tool ORDER BY n DESC, tool")
    assert store._hashed == {"steps"} and store._views == set()
    glob = str(tmp_path / "store" / "steps" / "*" / "*.parquet")
    want = duckdb.sql(
        f"SELECT tool, count(*) AS n FROM read_parquet('{glob}', hive_partitioning = true) "
        "GROUP BY tool ORDER BY n DESC, tool"
    ).df()
    pd.testing.assert_frame_equal(got, want)
    joined = store.sql("SELECT count(*) AS n FROM steps JOIN read_log USING (trajectory, step)")
    assert store._hashed == store._views == {"steps", "read_log"}
    assert joined["n"][0] == len(store.steps().merge(store.read_log(), on=["trajectory", "step"]))
    assert store.sql('SELECT count(*) AS n FROM "values"')["n"][0] == len(store.values())
    assert store._hashed == {"steps", "read_log", "values"} and store._views == {"steps", "read_log"}
    with_cte = store.sql("WITH t AS (SELECT tool FROM steps) SELECT count(*) AS n FROM t")  # over views
    assert with_cte["n"][0] == len(store.steps())
    with pytest.raises(duckdb.BinderException, match=r'(?s)"nocol".*LINE 1: SELECT nocol FROM read_log'):
        store.sql("SELECT nocol FROM read_log")  # the error as the query was written
    with pytest.raises(duckdb.CatalogException, match="nosuch"):
        store.sql("SELECT * FROM nosuch")
    store.connect()
    assert store._views == set(TABLES)


def test_columns_and_filters(world: Path, tmp_path: Path) -> None:
    build_store([world], tmp_path / "store")
    store = open_store(tmp_path / "store")
    full = store.scores()
    model = full["model"].iloc[0]
    some = store.scores(columns=["trajectory", "model"], filters=[("model", "==", model)])
    assert list(some.columns) == ["trajectory", "model"]
    assert some["trajectory"].tolist() == full[full["model"] == model]["trajectory"].tolist()
    keyed = store.steps(keys=True)
    assert {"run_hash", "shard"} <= set(keyed.columns)


def test_docs_describe_every_column() -> None:
    doc = (ROOT / "docs" / "STORE.md").read_text(encoding="utf-8")
    for name, cols in TABLES.items():
        assert f"### `{name}`" in doc, name
        section = doc.split(f"### `{name}`", 1)[1].split("\n### ", 1)[0]
        for c in cols:
            assert f"| `{c.name}` | {c.type} |" in section, (name, c.name)


def test_the_cli_builds_and_its_analyses_take_a_store(
    world: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from rtlab.cli import main

    out = str(tmp_path / "store")
    assert main(["build", str(world), "-o", out, "--quiet"]) == 0
    capsys.readouterr()
    assert main(["build", str(world), "-o", out]) == 0
    assert "0 added, 0 changed, 0 removed, 8 unchanged, 0 skipped" in capsys.readouterr().err
    for command in (["values", "--summary"], ["diagnose", "--json"], ["score", "--json"], ["info", "--json"]):
        assert main([command[0], str(world), *command[1:]]) == 0
        from_runs = capsys.readouterr().out
        assert main([command[0], out, *command[1:]]) == 0
        from_store = capsys.readouterr().out
        if command[0] == "score":  # the same groups; the store's JSON has no per-run source paths to differ
            assert json.loads(from_store)["groups"] == json.loads(from_runs)["groups"]
        else:
            assert from_store == from_runs, command
    assert main(["values", out, str(world)]) == 2
    assert "either stores or runs" in capsys.readouterr().err


def test_open_dataset_reads_the_store_beside_the_data(world: Path, tmp_path: Path) -> None:
    from rtlab.figures import open_dataset
    from rtlab.ingest import ingest
    from rtlab.records import trajectory_to_dict

    runs = _copy(world, tmp_path)
    expected = [trajectory_to_dict(t) for t in ingest([runs]).trajectories]
    built_now = open_dataset(runs, simulated=True)  # no store beside: one built for this dataset alone
    assert (
        built_now.store.path != runs.with_name("world.store") and not runs.with_name("world.store").exists()
    )
    assert [trajectory_to_dict(t) for t in built_now.trajectories] == expected
    build_store([runs], runs.with_name("world.store"))
    beside = open_dataset(runs, simulated=True)
    assert beside.store.path == runs.with_name("world.store")
    assert [trajectory_to_dict(t) for t in beside.trajectories] == expected
    memory = memory_frames([runs])
    assert_same(beside.values(), memory["values"])
    assert_same(beside.labels(), memory["labels"].drop(columns="annotator"))
    assert beside.summary().startswith("8 trajectories, 0 unreadable (SIMULATED data)")


def test_one_build_at_a_time(world: Path, tmp_path: Path) -> None:
    from rtlab.errors import RtlabError

    out = tmp_path / "store"
    out.mkdir()
    (out / "_build.lock").write_text(str(os.getpid()))  # a live build holds it
    with pytest.raises(RtlabError, match="another build"):
        build_store([world], out)
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    (out / "_build.lock").write_text(dead.stdout.strip())  # a build that died left it: taken over
    assert len(build_store([world], out).added) == 8
    assert not (out / "_build.lock").exists()


def test_a_rerun_resumes_from_the_last_checkpoint(world: Path, tmp_path: Path) -> None:
    runs = _copy(world, tmp_path)
    out = tmp_path / "store"

    def dies_after_five(fn, items):
        for i, item in enumerate(items):
            if i == 5:
                raise ConnectionError("cluster lost")
            yield fn(item)

    with pytest.raises(ConnectionError):
        build_store([runs], out, mapper=dies_after_five, checkpoint_runs=2)
    # committed after runs 2 and 4: those 4 are in the store; the 5th was lost with the build
    assert len(open_store(out).runs) == 4
    resumed = build_store([runs], out)
    assert len(resumed.unchanged) == 4 and len(resumed.added) == 4
    assert_same(open_store(out).scores(), memory_frames([runs])["scores"])


def test_rows_past_the_buffer_are_written_ahead_and_committed_together(world: Path, tmp_path: Path) -> None:
    # a buffer of one byte: every run is written out as its own part as soon as it is built, listed by the
    # manifest only at the commit; the store equals the one built with the default buffer
    from rtlab.store import BuildOptions, read_manifest

    build_store([world], tmp_path / "a", BuildOptions(), jobs=1)
    build_store([world], tmp_path / "b", BuildOptions(), jobs=1, buffer_bytes=1)
    a, b = open_store(tmp_path / "a"), open_store(tmp_path / "b")
    n_runs = len(a.table("trajectories"))
    parts = {p for files in read_manifest(tmp_path / "b")["files"].values() for p in files}
    assert len([p for p in parts if p.startswith("trajectories/")]) == n_runs  # one part per run
    for table in ("trajectories", "steps", "read_log", "values", "labels"):
        x, y = a.table(table), b.table(table)
        key = list(x.columns[:4])
        assert x.sort_values(key).reset_index(drop=True).equals(y.sort_values(key).reset_index(drop=True)), (
            table
        )

"""rtlab._cluster on a real Dask cluster started by the test (2 worker processes on 127.0.0.1): a real per-run
function (read and replay a run, its summary rows) gives what the local process pool gives; failures come back
per item; fsspec paths."""

from __future__ import annotations

import os

import pytest

distributed = pytest.importorskip("distributed", reason="dask[distributed] is not installed")

from cluster_jobs import FIXTURES, UNITS, die_on, replay_rows  # noqa: E402

from rtlab._cluster import (  # noqa: E402
    Mapped,
    as_local_path,
    auto_chunksize,
    cluster_mapper,
    is_local,
    local_cluster,
    map_on_cluster,
)
from rtlab._workers import process_pool  # noqa: E402


@pytest.fixture(scope="module")
def cluster():
    import dask

    # a task whose worker dies is not tried again on another one: it is reported at once; and each worker holds
    # one task at a time (saturation 1.0), so a dying worker takes only the task it runs with it (with the
    # default 1.1 a worker of one thread holds a second task, which would be lost with it)
    config = {"distributed.scheduler.allowed-failures": 0, "distributed.scheduler.worker-saturation": 1.0}
    with dask.config.set(config), local_cluster(2) as address:
        yield address


def paths() -> list[str]:
    return [os.path.join(FIXTURES, u) for u in UNITS]


def test_results_equal_the_local_process_pool(cluster):
    units = paths()
    with process_pool(2) as pool:
        local = list(pool.map(replay_rows, units))
    got = list(map_on_cluster(replay_rows, units, address=cluster))
    assert sorted(m.index for m in got) == list(range(len(units)))  # each item once, with its index
    assert all(m.ok for m in got)
    assert [m.value for m in sorted(got, key=lambda m: m.index)] == local
    assert sum(len(rows) for rows in local) >= len(units)  # every unit read at least one run
    assert any(row["read_log"] for rows in local for row in rows)  # and the replays captured reads


def test_chunks_and_file_urls_give_the_same(cluster):
    units = paths()
    by_path = {m.index: m.value for m in map_on_cluster(replay_rows, units, address=cluster)}
    urls = ["file://" + u for u in units]
    by_url = {m.index: m.value for m in map_on_cluster(replay_rows, urls, address=cluster, chunksize=4)}
    assert by_url == by_path
    # two tasks at most in flight, one item each: every item still comes back, once
    narrow = list(map_on_cluster(replay_rows, units, address=cluster, chunksize=1, in_flight=2))
    assert {m.index: m.value for m in narrow} == by_path and len(narrow) == len(units)


def test_a_failed_item_is_a_value_and_the_map_goes_on(cluster):
    units = paths()[:3]
    items = [units[0], "/no/such/run.jsonl", units[1], units[2]]
    got = {m.index: m for m in map_on_cluster(replay_rows, items, address=cluster, chunksize=2)}
    assert sorted(got) == [0, 1, 2, 3]
    assert [got[i].ok for i in range(4)] == [True, False, True, True]
    assert "/no/such/run.jsonl" in (got[1].error or "") and got[1].value is None
    assert "Traceback" in (got[1].detail or "")


@pytest.mark.parametrize("chunksize", [1, 3])
def test_a_worker_that_dies_fails_its_item_only(cluster, chunksize):
    units = paths()[:2]
    items = [units[0], "die", units[1]]  # with chunksize 3 all three are one task: tried again one by one
    got = {m.index: m for m in map_on_cluster(die_on, items, address=cluster, chunksize=chunksize)}
    assert [got[i].ok for i in range(3)] == [True, False, True]
    assert "KilledWorker" in (got[1].error or "")
    assert got[0].value == replay_rows(units[0])


def test_the_mapper_yields_values_and_the_callers_failure_records(cluster):
    units = paths()[:2]
    items = [units[0], "/no/such/run.jsonl", units[1]]
    mapper = cluster_mapper(cluster, on_failure=lambda item, m: ("failed", item, m.error))
    got = list(mapper(replay_rows, items))
    failed = [g for g in got if isinstance(g, tuple)]
    assert len(got) == 3 and len(failed) == 1 and failed[0][1] == "/no/such/run.jsonl"
    assert sorted(map(str, (g for g in got if not isinstance(g, tuple)))) == sorted(
        str(replay_rows(u)) for u in units
    )
    with pytest.raises(RuntimeError, match="item 1 failed on the cluster"):
        list(cluster_mapper(cluster)(replay_rows, items))


def test_auto_chunksize():
    # few items: one a task; 100,000 runs on 2 threads: 100000 // (2 * 32) = 1562, capped at 32
    assert (auto_chunksize(6, 2), auto_chunksize(640, 2), auto_chunksize(100_000, 2)) == (1, 10, 32)


def test_no_scheduler_is_an_error():
    with pytest.raises(OSError):
        list(map_on_cluster(replay_rows, paths()[:1], address="tcp://127.0.0.1:9", timeout=2))


def test_as_local_path_fetches_a_remote_folder_and_passes_local_ones_through(tmp_path):
    import fsspec

    assert is_local("/a/b") and is_local("file:///a/b") and not is_local("memory://x")
    with as_local_path("file://" + str(tmp_path)) as p:
        assert p == tmp_path
    fs = fsspec.filesystem("memory")
    fs.pipe({"/runs/r1/session.jsonl": b'{"a": 1}\n', "/runs/r1/run.json": b"{}"})
    with as_local_path("memory://runs/r1") as p:
        assert sorted(q.name for q in p.iterdir()) == ["run.json", "session.jsonl"]
        assert (p / "session.jsonl").read_bytes() == b'{"a": 1}\n'
        fetched = p
    assert not fetched.exists()  # the copy is gone after the block


def test_mapped_is_ok_without_error():
    assert Mapped(0, 1).ok and not Mapped(0, None, "ValueError: x").ok


def test_rtlab_build_on_the_cluster_equals_the_local_build(cluster, tmp_path, capsys):
    # the store's per-run work on the cluster (rtlab build --cluster): every table equal to the local build's,
    # and a rebuild there processes nothing
    from rtlab.cli import main
    from rtlab.store import open_store

    local, remote = tmp_path / "local", tmp_path / "remote"
    assert main(["build", *paths(), "-o", str(local), "--quiet"]) == 0
    assert main(["build", *paths(), "-o", str(remote), "--cluster", cluster, "--quiet"]) == 0
    a, b = open_store(local), open_store(remote)
    for table in ("trajectories", "steps", "read_log", "candidates", "values", "labels"):
        x = a.table(table).sort_values(list(a.table(table).columns[:3])).reset_index(drop=True)
        y = b.table(table).sort_values(list(b.table(table).columns[:3])).reset_index(drop=True)
        assert x.drop(columns=[c for c in x.columns if c in ("built_at",)]).equals(
            y.drop(columns=[c for c in y.columns if c in ("built_at",)])
        ), table
    capsys.readouterr()
    assert main(["build", *paths(), "-o", str(remote), "--cluster", cluster]) == 0
    assert f"0 added, 0 changed, 0 removed, {len(UNITS)} unchanged, 0 skipped" in capsys.readouterr().err

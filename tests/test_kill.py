"""Crash safety, tested by killing (issue 19, item 3): ``rtlab replay --out``, ``annotate``, ``recover`` and
``synth`` run in a subprocess and killed with SIGKILL at seeded random moments, then run again.

After every kill: no file is left truncated or corrupt as if complete (each cache entry parses whole, each
Parquet table reads, a labels CSV or a synth folder is there whole or not at all); the next run resumes and, in
the end, completes with what a run never killed writes. Cached LLM answers are reused: a request whose answer
was on disk when its run started is a repeat, and there must be none (counted at the simulated server, which
sees every request on 127.0.0.1). A kill falls either at a random point of the LLM work (after the server has
received k of the calls, k drawn) or at a random fraction of a clean run's duration (measured in this run: the
clock only spreads the kills, no verdict depends on it).

``RTLAB_KILL_ROUNDS`` (default 1) repeats the whole schedule with other seeds: the longer run (``make
test-kill``-style, e.g. ``RTLAB_KILL_ROUNDS=10``).
"""

from __future__ import annotations

import csv
import json
import os
import random
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

import pytest
from conftest import ROOT

from rtlab.llm import SimulatedServer, request_key

ROUNDS = int(os.environ.get("RTLAB_KILL_ROUNDS", "1"))
ATTEMPTS = 12
"""Runs started a round at most: a round goes on until two of them were killed (a run that finishes before its
deadline, on a machine whose load fell after the clean run was timed, is checked and does not count)."""
SEED = 19
WORLD = {
    "seed": 5,
    "world": {"roles": ["operations"], "tasks_per_role": 1, "files_per_role": [120, 130]},
    "models": ["sim-reviewer"],
    "arms": ["DCI", "RunningTab"],
    "runs": 2,
}
"""A small simulated world (1 task x 2 arms x 1 model x 2 runs = 4 runs) as input of the killed commands."""
SAFETY = 120.0
"""Seconds a run may take before the test calls it hung."""


def rtlab(*args: str, env: dict[str, str] | None = None) -> subprocess.Popen:
    """``python -m rtlab ARGS`` in its own process group (so that workers it leaves can be found and ended),
    its output in files: a pipe would stay open as long as an orphaned worker lives."""
    full = {**os.environ, "PYTHONPATH": str(ROOT), **(env or {})}
    err = tempfile.TemporaryFile()
    proc = subprocess.Popen(
        [sys.executable, "-m", "rtlab", *args],
        stdout=subprocess.DEVNULL,
        stderr=err,
        env=full,
        start_new_session=True,
    )
    proc.err_file = err  # type: ignore[attr-defined]
    return proc


def group_alive(pgid: int) -> bool:
    try:
        os.killpg(pgid, 0)
    except ProcessLookupError:
        return False
    return True


def end_group(proc: subprocess.Popen) -> bool:
    """SIGKILL whatever is left of the group ``proc`` led (workers orphaned by its death); whether any was."""
    proc.wait(timeout=SAFETY)
    left = group_alive(proc.pid)
    if left:
        os.killpg(proc.pid, signal.SIGKILL)
        for _ in range(200):
            if not group_alive(proc.pid):
                break
            time.sleep(0.05)
    return left


def finish(proc: subprocess.Popen) -> tuple[int, str]:
    end_group(proc)
    err = proc.err_file  # type: ignore[attr-defined]
    err.seek(0)
    return proc.returncode, err.read().decode("utf-8", errors="replace")


@dataclass
class Tally:
    """What the kills found, across one command's schedule."""

    n_calls: int = 0
    """Calls of a whole run (from a clean one)."""
    kills: int = 0
    repeats: list[str] = field(default_factory=list)


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from rtlab.synth import SynthConfig, generate

    return generate(tmp_path_factory.mktemp("kill") / "world", SynthConfig.from_dict(WORLD))


@pytest.fixture(scope="module")
def kill_server():
    with SimulatedServer(latency=0.2) as srv:
        yield srv


def cache_keys(cache: Path) -> set[str]:
    """Keys of the whole cache entries; a cache file that does not parse whole fails the test here."""
    keys = set()
    for path in cache.rglob("*.json"):
        record = json.loads(path.read_bytes())  # atomic writes: never a half file under the entry's name
        assert record["schema"] == "rtlab.llm-cache/1" and "request" in record, path
        keys.add(path.stem)
    return keys


def run_llm_command(
    srv: SimulatedServer, cache: Path, args: list[str], kill: tuple[str, float] | None, tally: Tally
):
    """One run of an LLM command, killed at ``kill`` (``("requests", k)``: once the server has k more
    requests; ``("seconds", s)``) or left to finish. Records the requests it repeated. Returns
    ``(exit status or None if killed, stderr)``."""
    before = cache_keys(cache) if cache.exists() else set()
    start = srv.n_requests
    proc = rtlab(*args, "--base-url", srv.base_url, "--cache-dir", str(cache), "--concurrency", "2")
    status: int | None
    if kill is None:
        status, err = finish(proc)
    else:
        how, at = kill
        if how == "requests":  # ``at``: a fraction of the calls not yet cached
            k = start + max(1, int(at * (tally.n_calls - len(before))))
            limit = time.monotonic() + SAFETY
            while (
                proc.poll() is None
                and time.monotonic() < limit
                and not srv.wait_for_requests(k, timeout=0.05)
            ):
                pass
        else:
            try:
                proc.wait(timeout=at)
            except subprocess.TimeoutExpired:
                pass
        killed = proc.poll() is None
        if killed:
            proc.send_signal(signal.SIGKILL)
            tally.kills += 1
        code, err = finish(proc)
        status = None if killed else code
    for body in srv.requests[start:]:
        if request_key(body) in before:
            tally.repeats.append(request_key(body))
    return status, err


def clean_seconds(args: list[str], env: dict[str, str] | None = None) -> tuple[float, str]:
    t0 = time.monotonic()
    status, err = finish(rtlab(*args, env=env))
    assert status == 0, err
    return time.monotonic() - t0, err


def schedule(rng: random.Random, n: int, seconds: float) -> list[tuple[str, float]]:
    """``n`` kill moments: alternately after a random share of the calls left, and at a random time."""
    out = []
    for i in range(n):
        if i % 2 == 0:
            out.append(("requests", rng.uniform(0.05, 0.95)))
        else:
            out.append(("seconds", rng.uniform(0.2, 1.0) * seconds))
    return out


SAMPLE = ROOT / "data" / "sample"
LLM_COMMANDS = {
    # (arguments after the input, kills per round): the sample's 2 failed items x 2 prompts x 6 samples = 24
    # annotation calls; its 1 held value x 3 conditions x 8 samples = 24 recovery calls (--sample held: that
    # value passed and is delivered, so the paper's sample of failed, missing values leaves it out)
    "annotate": (["--model", "m", "--prompt", "p1", "--prompt", "p2", "--samples", "6"], 6),
    "recover": (["--model", "m", "--samples", "8", "--json", "--sample", "held"], 6),
}


@pytest.mark.parametrize("command", list(LLM_COMMANDS))
def test_llm_commands_killed_resume_with_zero_repeat_requests(command, kill_server, tmp_path):
    srv = kill_server
    extra, n_kills = LLM_COMMANDS[command]
    labels = tmp_path / "labels.csv"
    out = ["-o", str(labels)] if command == "annotate" else []
    args = [command, str(SAMPLE), *out, *extra]
    # a clean run (its own cache) gives the reference output, the number of calls and the duration
    srv.reset()
    t0 = time.monotonic()
    status, _ = run_llm_command(srv, tmp_path / "clean-cache", args, None, Tally())
    seconds = time.monotonic() - t0
    n_calls = srv.n_requests
    assert status == 0 and n_calls == 24, f"{command}: {n_calls} calls"
    reference = labels.read_bytes() if command == "annotate" else None
    if labels.exists():
        labels.unlink()
    tally = Tally(n_calls=n_calls)
    for round_ in range(ROUNDS):
        cache = tmp_path / f"cache-{round_}"
        rng = random.Random(f"{SEED}:{command}:{round_}")
        for i, kill in enumerate(schedule(rng, n_kills, seconds)):
            if (
                cache.exists() and len(cache_keys(cache)) == n_calls
            ):  # resumed to the end: start another cache
                run_final_checks(srv, cache, args, tally, labels, reference)
                cache = tmp_path / f"cache-{round_}-{i}"
            srv.reset()
            status, err = run_llm_command(srv, cache, args, kill, tally)
            assert status in (None, 0), err  # killed, or it finished before the kill came
            cache_keys(cache)  # every entry whole
            if labels.exists():  # written once at the end, atomically: whole or absent
                assert labels.read_bytes() == reference
                labels.unlink()
        run_final_checks(srv, cache, args, tally, labels, reference)
    assert tally.repeats == [], f"{len(tally.repeats)} cached answers asked for again"
    assert tally.kills >= n_kills * ROUNDS // 2, f"only {tally.kills} runs were still going when killed"


def run_final_checks(srv, cache: Path, args: list[str], tally: Tally, labels: Path, reference: bytes | None):
    """The run after the kills completes with a clean run's output; the one after it makes no request."""
    srv.reset()
    status, err = run_llm_command(srv, cache, args, None, tally)
    assert status == 0, err
    assert len(cache_keys(cache)) == tally.n_calls
    if reference is not None:
        assert labels.read_bytes() == reference
        labels.unlink()
    srv.reset()
    assert run_llm_command(srv, cache, args, None, tally)[0] == 0 and srv.n_requests == 0


def read_tables(out: Path) -> dict[str, bytes]:
    """Every Parquet table in ``out``, each read whole (a truncated one raises here)."""
    import pyarrow.parquet as pq

    tables = {}
    for path in sorted(out.glob("*.parquet")):
        pq.read_table(path)
        tables[path.name] = path.read_bytes()
    return tables


def test_replay_out_killed_leaves_whole_tables_and_a_rerun_completes(world, tmp_path):
    args = ["replay", str(world / "runs"), "--out"]
    seconds, _ = clean_seconds([*args, str(tmp_path / "clean")])
    reference = read_tables(tmp_path / "clean")
    assert len(reference) == 4
    rng = random.Random(f"{SEED}:replay")
    kills = 0
    for round_ in range(ROUNDS):
        out = tmp_path / f"out-{round_}"
        # at least two kills a round, however the machine's load moved since the clean run was timed (a run
        # that beats its deadline is checked like a killed one and the next is started)
        for attempt in range(ATTEMPTS):
            if attempt >= 4 and kills >= 2 * (round_ + 1):
                break
            proc = rtlab(*args, str(out))
            try:
                proc.wait(timeout=rng.uniform(0.3, 1.0) * seconds)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                kills += 1
            finish(proc)
            tables = read_tables(out) if out.exists() else {}
            assert set(tables) <= set(reference)
            assert not [p for p in (out.glob("*.parquet") if out.exists() else []) if p.stat().st_size == 0]
        status, err = finish(rtlab(*args, str(out)))
        assert status == 0, err
        assert read_tables(out) == reference
    assert kills >= 2 * ROUNDS


SYNTH = {**WORLD, "seed": 6}


def test_synth_killed_leaves_no_half_world_and_a_rerun_completes(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps(SYNTH), encoding="utf-8")
    args = ["synth", "--config", str(config), "--jobs", "2"]
    seconds, _ = clean_seconds([*args, str(tmp_path / "clean")])
    reference = (tmp_path / "clean" / "ground_truth.csv").read_bytes()
    rng = random.Random(f"{SEED}:synth")
    kills = 0
    for round_ in range(ROUNDS):
        out = tmp_path / f"world-{round_}"
        for _ in range(ATTEMPTS):
            proc = rtlab(*args, str(out))
            try:
                proc.wait(timeout=rng.uniform(0.2, 1.0) * seconds)
            except subprocess.TimeoutExpired:
                proc.send_signal(signal.SIGKILL)
                kills += 1
            finish(proc)  # workers left alive are ended here (their parent's death is item 7's to handle)
            if out.exists():  # renamed into place whole, or not there
                assert (out / "ground_truth.csv").read_bytes() == reference
                assert list(csv.reader((out / "ground_truth.csv").open(encoding="utf-8")))
                if kills >= 2 * (round_ + 1):
                    break
                shutil.rmtree(out)  # finished before its second kill (the load moved): start it again
        if not out.exists():
            status, err = finish(rtlab(*args, str(out)))
            assert status == 0, err
        assert (out / "ground_truth.csv").read_bytes() == reference
        assert (out / "README_SIMULATED.md").is_file()
    assert kills >= 2 * ROUNDS


def test_synth_workers_die_with_their_killed_parent(tmp_path):
    config = tmp_path / "config.json"
    config.write_text(json.dumps(SYNTH), encoding="utf-8")
    proc = rtlab("synth", "--config", str(config), "--jobs", "2", str(tmp_path / "w"))
    import psutil

    parent = psutil.Process(proc.pid)
    deadline = time.monotonic() + SAFETY
    while len(parent.children(recursive=True)) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)  # until both workers run
    assert proc.poll() is None, "synth finished before its workers could be seen"
    proc.send_signal(signal.SIGKILL)
    proc.wait(timeout=SAFETY)
    # a worker dies on the parent-death signal at once, or when its watch notices (a busy machine: give it time);
    # only a worker still alive after that is an orphan
    deadline = time.monotonic() + 10
    while group_alive(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    orphans = end_group(proc)
    assert not orphans, "workers of the killed synth were still alive"

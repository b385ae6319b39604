"""``rtlab experiment``: a small grid killed mid-run and resumed redoes no finished run (counted by the server's
requests and the runs' completion markers), and a half-written run is redone from scratch."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
from test_agent import TASK_ID, UNCONFINED, make_world

from rtlab.agent import COMPLETE, load_experiment, run_experiment
from rtlab.llm import Scripted, SimulatedServer, slow

ROOT = Path(__file__).resolve().parent.parent
DCI_TURNS = 8
"""Turns of the scripted agent's DCI run on the one-task world: list, search, four reads, write, stop = 8 requests
(a deterministic function of the conversation; the first test below pins it)."""


@pytest.fixture(scope="module")
def world(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_world(tmp_path_factory.mktemp("experiment"))


def _config(tmp: Path, world: Path, base_url: str) -> Path:
    config = {
        "tasks": [f"{world}:{TASK_ID}"],
        "methods": ["dci", "runningtab:no-review"],
        "models": ["rtlab-simulated"],
        "runs": 2,
        "base_url": base_url,
        "concurrency": 1,
        "max_turns": 40,
        "sandbox": UNCONFINED,
    }
    path = tmp / "experiment.json"
    path.write_text(json.dumps(config), encoding="utf-8")
    return path


def test_killed_and_resumed_no_finished_run_is_made_twice(world: Path, tmp_path: Path) -> None:
    with SimulatedServer() as srv:
        config = _config(tmp_path, world, srv.base_url)
        out = tmp_path / "out"
        # the two DCI runs are answered, then the first RunningTab run's second request is held until we kill
        srv.script(*[Scripted()] * (2 * DCI_TURNS + 1), slow(600))
        env = {**os.environ, "PYTHONPATH": str(ROOT)}
        proc = subprocess.Popen(
            [sys.executable, "-m", "rtlab", "experiment", str(config), "--out", str(out), "--quiet"],
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
        )
        try:
            assert srv.wait_for_requests(2 * DCI_TURNS + 2, timeout=120)
        finally:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        runs = out / "runs" / TASK_ID
        done = sorted(p.parent for p in runs.rglob(COMPLETE))
        assert [p.relative_to(runs).as_posix() for p in done] == [
            "DCI/rtlab-simulated/run-1",
            "DCI/rtlab-simulated/run-2",
        ]
        half = runs / "RunningTab--no-review" / "rtlab-simulated" / "run-1"
        assert half.is_dir() and not (half / COMPLETE).exists()  # killed mid-run: no marker
        before = {p: (p / COMPLETE).stat().st_mtime_ns for p in done}
        srv.reset()

        result = run_experiment(load_experiment(config), out)
        assert sorted(Path(p) for p in result.skipped) == done
        assert len(result.done) == 2 and not result.failed
        # every request of the resumed experiment belongs to the two RunningTab runs it made: none to the DCI runs
        assert srv.n_requests == sum(s.turns for s in result.done)
        assert all("tab_add" in [t["function"]["name"] for t in r["tools"]] for r in srv.requests)
        assert {p: (p / COMPLETE).stat().st_mtime_ns for p in done} == before
        assert not (half / ".workspace").exists()
        totals = result.totals
        assert totals["runs"] == 4 and [r["runs"] for r in result.rows] == [2, 2]
        assert totals["prompt_tokens"] == sum(r["prompt_tokens"] for r in result.rows)

        again = run_experiment(load_experiment(config), out)
        assert not again.done and len(again.skipped) == 4
        assert srv.n_requests == sum(s.turns for s in result.done)  # nothing was asked the third time


def test_a_failing_run_is_reported_and_the_others_go_on(world: Path, tmp_path: Path) -> None:
    with SimulatedServer() as srv:
        config = json.loads(_config(tmp_path, world, srv.base_url).read_text())
        config["methods"] = ["dci"]
        config["sandbox"] = "chroot"  # not a sandbox: every run raises before its first request
        path = tmp_path / "bad.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        result = run_experiment(load_experiment(path), tmp_path / "out")
        assert len(result.failed) == 2 and "sandbox must be one of" in result.failed[0][1]
        assert srv.n_requests == 0


def test_a_malformed_configuration_names_the_key(tmp_path: Path) -> None:
    path = tmp_path / "x.yaml"
    path.write_text("tasks: [a]\nmethods: [dci]\nmodels: [m]\nturns: 3\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown key.*turns"):
        load_experiment(path)
    path.write_text("tasks: [a]\nmethods: [planner]\nmodels: [m]\n", encoding="utf-8")
    with pytest.raises(ValueError, match="unknown method 'planner'"):
        load_experiment(path)


def test_cost_totals_follow_the_price_table(world: Path, tmp_path: Path) -> None:
    with SimulatedServer() as srv:
        config = json.loads(_config(tmp_path, world, srv.base_url).read_text())
        config.update(methods=["dci"], runs=1, prices={"rtlab-simulated": [1.0, 2.0]})
        path = tmp_path / "priced.json"
        path.write_text(json.dumps(config), encoding="utf-8")
        result = run_experiment(load_experiment(path), tmp_path / "out")
        (run,) = result.done
        # $1 per 1M prompt tokens and $2 per 1M completion tokens
        assert run.cost == pytest.approx((run.prompt_tokens * 1.0 + run.completion_tokens * 2.0) / 1_000_000)
        assert result.totals["cost_usd"] == pytest.approx(run.cost)
        assert result.rows[0]["cost_usd"] == pytest.approx(run.cost) and run.cost > 0

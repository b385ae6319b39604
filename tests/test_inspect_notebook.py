"""Notebook 10's library call (rtlab.inspect.compare_arms): the shipped workspace task run by Inspect AI once per arm
against rtlab's simulated model in-process on 127.0.0.1, the ``.eval`` logs written, read back by rtlab and
measured with its analyses. No test reaches the network: a fixture refuses every connection off the loopback."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, get_args

import pytest
from conftest import guard_loopback

pytest.importorskip("inspect_ai", reason="the inspect extra: pip install -e '.[inspect]' (make install does)")

from inspect_ai.log import read_eval_log  # noqa: E402

from rtlab.agent import METHODS  # noqa: E402
from rtlab.environment import ABLATIONS, FINISH_PREFIX  # noqa: E402
from rtlab.inspect import (  # noqa: E402
    ARM_NAMES,
    COLUMNS,
    STEPS_KEY,
    TAB_KEY,
    WORKSPACE,
    ArmName,
    arms_summary,
    compare_arms,
    workspace_samples,
)

pytestmark = pytest.mark.usefixtures("loopback_only")  # a test that tries the network fails


@pytest.fixture(scope="module")
def compared(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Any]:
    logs = tmp_path_factory.mktemp("inspect-logs")
    with pytest.MonkeyPatch.context() as mp:  # the module-scoped run is offline too
        guard_loopback(mp)
        frame = compare_arms(logs)
    return logs, frame


def test_arm_names_are_the_methods_and_ablations() -> None:
    assert set(get_args(ArmName)) == set(ARM_NAMES) == set(METHODS) | (set(ABLATIONS) - {"full"})


def test_options_and_samples_are_checked(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="arms="):
        compare_arms(tmp_path, arms=["dci", "tab"])  # type: ignore[list-item]
    bad = tmp_path / "tasks.json"
    bad.write_text(json.dumps([{"id": "a", "input": "x", "values": ["1"]}, {"id": "b"}]), encoding="utf-8")
    with pytest.raises(ValueError, match=rf"{bad}: sample 2: needs id, input and values"):
        workspace_samples(bad)
    assert [s.id for s in workspace_samples()] == [
        "revenue",
        "headcount",
        "margin-contracts",
        "revenue-auditor",
        "unaudited",
    ]
    assert sorted(p.relative_to(WORKSPACE).as_posix() for p in WORKSPACE.rglob("*.*")) == [
        "finance/revenue_2023_draft.txt",
        "finance/revenue_2024.txt",
        "hr/headcount.csv",
        "notes/weather.txt",
        "ops/suppliers.csv",
    ]


def test_compare_arms_measures_each_arm(compared: tuple[Path, Any]) -> None:
    logs, frame = compared
    assert list(frame.columns) == list(COLUMNS)
    samples = sorted(s.id for s in workspace_samples())
    assert list(frame["arm"]) == [a for a in ("dci", "runningtab", "no-finish-check") for _ in samples]
    assert all(list(g["sample"]) == samples for _, g in frame.groupby("arm", sort=False))
    by = {(r.arm, r.sample): r for r in frame.itertuples()}
    # the arms' labels, as `rtlab run` writes them
    assert {(r.arm, r.method, r.variant) for r in frame.itertuples()} == {
        ("dci", "DCI", None),
        ("runningtab", "RunningTab", None),
        ("no-finish-check", "RunningTab", "no-finish-check"),
    }
    dci = frame[frame["arm"] == "dci"]
    assert (dci["n_tab_calls"] == 0).all() and (dci["n_requirements"] == 0).all()
    assert (dci["n_finish_checks"] == 0).all()
    # the same reading in every arm (the simulated agent reads the same files); the tab adds its own calls
    assert frame.groupby("sample")["n_workspace_calls"].nunique().eq(1).all()
    for sample in samples:
        tab = by["runningtab", sample]
        assert tab.n_steps == by["dci", sample].n_steps + tab.n_tab_calls + tab.n_finish_checks
    # a requirement no file supports: the finish check refuses the first submission and the agent marks it
    # unavailable; without the finish check it is left open
    unsupported = {"revenue-auditor", "unaudited"}
    for sample in samples:
        tab, ablated = by["runningtab", sample], by["no-finish-check", sample]
        assert tab.n_finish_checks == (sample in unsupported)
        assert tab.n_unavailable == (sample in unsupported) and tab.n_open == 0
        assert ablated.n_finish_checks == 0 and ablated.n_open == (sample in unsupported)
        assert tab.n_done + tab.n_unavailable == tab.n_requirements
    assert by["runningtab", "margin-contracts"].n_requirements == 2
    # the scorer: every expected number stated, except the figure in the file the agent never opened
    for (arm, sample), row in by.items():
        assert row.score == (0.0 if sample == "unaudited" else 1.0), (arm, sample)
    summary = arms_summary(frame)
    assert list(summary["arm"]) == ["dci", "runningtab", "no-finish-check"]
    assert list(summary["samples"]) == [5, 5, 5] and summary["score"].tolist() == [0.8, 0.8, 0.8]


def test_logs_are_inspects_and_read_back_with_the_same_steps(compared: tuple[Path, Any]) -> None:
    logs, frame = compared
    for arm, group in frame.groupby("arm", sort=False):
        [location] = group["log"].unique()
        path = Path(location)
        assert path.parent == logs / str(arm) and path.suffix == ".eval"
        log = read_eval_log(str(path))
        assert log.status == "success" and log.samples is not None
        for sample in log.samples:
            row = group[group["sample"] == sample.id].iloc[0]
            transcript = sample.store["rtlab_tab:transcript"]
            answered = [m for m in transcript if m["role"] == "tool"]
            assert row["n_steps"] == len(answered)  # what the model read, step for step
            refused = [m for m in answered if m["function"] == "submit"]
            assert row["n_finish_checks"] == sum(FINISH_PREFIX in m["error"]["message"] for m in refused)
            if arm == "dci":
                assert TAB_KEY not in sample.store
            else:
                tab = sample.store[TAB_KEY]
                assert row["n_requirements"] == len(tab["requirements"])  # the replay's tab is the live one
                assert row["n_entries"] == len(tab["read_log"])
                assert [s["tool"] for s in sample.store[STEPS_KEY]].count("tab_list") >= 1
            assert sample.scores is not None
            [score] = sample.scores.values()
            assert score.value == row["score"]


def test_deterministic(tmp_path: Path, compared: tuple[Path, Any]) -> None:
    _, frame = compared
    again = compare_arms(tmp_path, arms=["runningtab"])
    first = frame[frame["arm"] == "runningtab"].reset_index(drop=True)
    a, b = again.drop(columns=["log"]), first.drop(columns=["log"])
    assert a.equals(b), a.compare(b).to_string()


def test_the_sandbox_reads_no_users_login_profile(tmp_path: Path) -> None:
    """The task's sandbox is Inspect's local one with HOME set to the sample's folder: `bash --login` (Inspect's
    bash tool) reads no user's profile, whose output (pyenv rehashing beside another shell) would reach the model."""
    import asyncio

    from rtlab.inspect import LocalHomeSandbox

    [sandbox] = asyncio.run(LocalHomeSandbox.sample_init("t", None, {})).values()
    assert isinstance(sandbox, LocalHomeSandbox)
    try:
        result = asyncio.run(sandbox.exec(["bash", "--login", "-c", 'echo "$HOME"; pwd']))
        home, cwd = result.stdout.split()
        assert result.success and home == cwd and Path(home).is_dir()
        assert result.stderr == ""
    finally:
        asyncio.run(LocalHomeSandbox.sample_cleanup("t", None, {"default": sandbox}, False))


def test_a_baseline_and_an_ablation(tmp_path: Path, compared: tuple[Path, Any]) -> None:
    """TODO's own tool is neither a workspace nor a tab call; without capture, the replayed tab (the ablation's
    configuration, as the live one) holds no read-log entry, and the requirements stay without support."""
    _, first = compared
    frame = compare_arms(tmp_path, arms=["todo", "no-capture"])
    todo, blind = frame[frame["arm"] == "todo"], frame[frame["arm"] == "no-capture"]
    assert list(todo["method"].unique()) == ["TODO"] and list(blind["variant"].unique()) == ["no-capture"]
    dci = first[first["arm"] == "dci"].reset_index(drop=True)
    assert todo["n_workspace_calls"].tolist() == dci["n_workspace_calls"].tolist()
    assert (todo["n_tab_calls"] == 0).all() and (todo["n_steps"] > todo["n_workspace_calls"]).all()
    assert (blind["n_entries"] == 0).all() and (blind["n_done"] == 0).all()
    for location in blind["log"].unique():
        for sample in read_eval_log(location).samples or []:
            assert sample.store[TAB_KEY]["read_log"] == []

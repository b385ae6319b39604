"""The simulated agents (rtlab.synth.agents) on a hand-made miniature world: genuine observations, sessions the
Pi reader reads back, a live tab that replay reproduces, a judge whose verdicts the labeler can read."""

from __future__ import annotations

import random
import subprocess
from datetime import UTC, datetime
from pathlib import Path

import pytest
from synth_mini import build_mini_world

from rtlab.environment import TabConfig, replay, strip_status
from rtlab.ingest import ingest
from rtlab.synth.agents import simulate
from rtlab.synth.judge import judge
from rtlab.synth.profiles import ARMS, PROFILES, Arm
from rtlab.synth.shell import Shell, shell_environment

START = datetime(2026, 1, 5, 9, 0, tzinfo=UTC)


@pytest.fixture(scope="module")
def mini(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("mini")
    world = build_mini_world(root)
    return root, world, Shell(root / "workspaces" / "ops")


def _run(mini, arm: Arm, model: str = "sim-reviewer", seed: int = 1):
    root, world, shell = mini
    return simulate(
        world,
        world.tasks[0],
        arm,
        PROFILES[model],
        rng=random.Random(seed),
        shell=shell,
        session_id="t",
        start=START,
    )


def _read(tmp: Path, session: str):
    path = tmp / "session.jsonl"
    path.write_text(session, encoding="utf-8")
    result = ingest([path])
    assert not result.failures
    (t,) = result.trajectories
    return t


def test_every_shell_observation_is_the_commands_real_output(mini, tmp_path: Path) -> None:
    root, _, _ = mini
    result, _ = _run(mini, Arm("RunningTab"), "sim-explorer")
    t = _read(tmp_path, result.session)
    bash = [s for s in t.steps if s.tool == "bash"]
    assert len(bash) >= 5
    for step in bash:
        done = subprocess.run(
            ["bash", "-c", step.command],
            cwd=root / "workspaces" / "ops",
            capture_output=True,
            text=True,
            env=shell_environment(root / "workspaces" / "ops"),
        )
        assert strip_status(step.output).split("\n\nCommand exited")[0] == done.stdout + done.stderr


def test_the_session_reads_back_as_a_pi_run(mini, tmp_path: Path) -> None:
    result, outcomes = _run(mini, Arm("DCI"), "sim-finisher")
    t = _read(tmp_path, result.session)
    assert t.format == "pi" and t.model == "sim-finisher" and t.cwd == "/workspace/ops"
    assert t.n_steps == result.session.count('"role": "toolResult"')
    assert t.instruction is not None and t.instruction.startswith("You are the operations manager")
    (delivered,) = t.deliverable.files
    assert delivered.path == "outputs/q3_freight_review.md" and delivered.content == result.deliverable
    assert not t.meta.get("warnings")
    assert len(outcomes) == 7


@pytest.mark.parametrize("model", sorted(PROFILES))
@pytest.mark.parametrize("variant", [None, "no-capture", "no-review", "no-evidence-check", "no-finish-check"])
def test_replay_reproduces_the_live_tab_reply_for_reply(
    mini, tmp_path: Path, model: str, variant: str | None
) -> None:
    # the finish-check-driven profile states requirements in 60% of runs: take the first seed where it does
    result = next(
        r
        for r, _ in (_run(mini, Arm("RunningTab", variant), model, seed=s) for s in range(5, 30))
        if '"tab_add"' in r.session
    )
    t = _read(tmp_path, result.session)
    r = replay(t, requirements="trajectory", config=TabConfig.ablation(variant or "full"))
    calls = [(rec, step) for rec, step in zip(r.records, t.steps, strict=True) if rec.kind == "tab_call"]
    assert calls, "a RunningTab run calls the tab"
    for rec, step in calls:
        assert rec.reply == step.output
    finish = [e for e in t.events if e.text.startswith("[tab] finish check")]
    assert len(finish) <= 1
    if variant == "no-finish-check":
        assert not finish


def test_same_seed_same_bytes_other_seed_other_run(mini) -> None:
    a, _ = _run(mini, Arm("Self-Refine"), seed=11)
    b, _ = _run(mini, Arm("Self-Refine"), seed=11)
    c, _ = _run(mini, Arm("Self-Refine"), seed=12)
    assert a.session == b.session and a.deliverable == b.deliverable
    assert a.session != c.session


def test_only_tab_arms_call_the_tab(mini) -> None:
    for arm in ARMS:
        result, _ = _run(mini, arm, seed=2)
        assert ('"name": "tab_' in result.session) == arm.tab, arm.slug


def test_judge_reads_values_by_the_number_rules(mini) -> None:
    _, world, _ = mini
    task = world.tasks[0]
    full = (
        "# Review\n- Route North: 48,213.5\n- Route South: 31877.25\n- Carrier: nordlicht logistik gmbh\n"
        "- Contract: 1284500\n- Hamburg: 18,342\n- Total: 80090.75\n## Risks\n"
    )
    assert all(passed for _, passed, _ in judge(task, world, full))
    wrong = full.replace("48,213.5", "48,231.50").replace("## Risks\n", "")
    verdicts = {i: (p, e) for i, p, e in judge(task, world, wrong)}
    assert verdicts[0] == (
        False,
        "The deliverable gives 48231.50 for Route North freight cost, not 48213.50: it "
        "does not match the source.",
    )
    assert verdicts[6][0] is False and 'titled "Risks"' in verdicts[6][1]
    assert verdicts[5][0] is True  # the total is still stated
    missing = full.replace("- Hamburg: 18,342\n", "")
    assert {i: p for i, p, _ in judge(task, world, missing)}[4] is False


def test_causes_follow_the_simulated_state(mini) -> None:
    _, world, _ = mini
    seen = set()
    for seed in range(30):
        for arm in (Arm("DCI"), Arm("RunningTab")):
            result, outcomes = _run(mini, arm, "sim-reviewer", seed=seed)
            for o in outcomes:
                if o.passed:
                    assert o.cause is None
                    continue
                seen.add(o.cause)
                item = world.tasks[0].items[o.index]
                files = {world.facts[k].file for k in item.facts}
                if o.cause == "discovery":
                    assert files - set(result.files_read)
                if o.cause == "shown_but_missing":
                    assert all(k in result.facts_seen for k in item.facts)
                    assert all(result.written.get(k) is None for k in item.facts)
                if o.cause == "dropped_or_distorted":
                    assert any(result.written.get(k) is not None for k in item.facts)
    assert {"discovery", "shown_but_missing", "dropped_or_distorted", "other"} <= seen

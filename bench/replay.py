"""Replay cost: rtlab's replay against plain JSON parsing of the same trajectories, and how it grows.

    python bench/replay.py [--repeat N]

Baseline: ``json.loads`` of each trajectory's canonical JSONL line, the least work any tool must do to hold a
trajectory in memory. Replay: ``rtlab.environment._replay.replay`` on the already-parsed trajectory (capture, tab, status
lines, finish check) and the final candidates ranked, what ``rtlab replay --json`` reports. Ratio = replay / parse; the goal is within 3x. Part 1 runs the real
trajectories (``../shared/real``, when present) and the sample; part 2 grows one dimension at a time on
generated trajectories: steps, listed paths (up to 10,000), observation size (up to 1 MB). Part 3 replays the
simulated world (``build/simulated``, when generated) as ``rtlab replay --json`` does, with 1, 2, ... worker
processes: reading, replay and summary included.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _timing import best  # noqa: E402

from rtlab.environment import replay, replay_summary  # noqa: E402
from rtlab.ingest import ingest  # noqa: E402
from rtlab.records import Action, Step, Trajectory, trajectory_from_dict, trajectory_to_dict  # noqa: E402
from rtlab.runner import replay_paths  # noqa: E402


def clear_caches() -> None:
    """Empty the memo caches of pure functions, so a timing sees a first replay of new data."""
    from rtlab.environment._capture.collect import make_ref
    from rtlab.environment._capture.python import _analyze
    from rtlab.environment._tab import _tokenize_path

    _analyze.cache_clear()
    _tokenize_path.cache_clear()
    make_ref.cache_clear()


def parse_and_replay(t: Trajectory, repeat: int) -> tuple[float, float, float]:
    """Best-of-``repeat`` parse time, first-replay (cold caches) time, best-of-``repeat`` replay time."""
    line = json.dumps(trajectory_to_dict(t), ensure_ascii=False)
    parse = best(lambda: json.loads(line), repeat)
    parsed = trajectory_from_dict(json.loads(line))
    cold = min(best(lambda: (clear_caches(), full_replay(parsed)), 1) for _ in range(repeat))
    warm = best(lambda: full_replay(parsed), repeat)
    return parse, cold, warm


def full_replay(t: Trajectory) -> list:
    """A replay and its ranked candidates: what ``rtlab replay --json`` reports for the trajectory."""
    return replay(t).tab.candidates_ranked()


def scripts_of(t: Trajectory) -> list[str]:
    """The distinct Python scripts a first replay of ``t`` analyses (``python - <<EOF``, ``-c``, ipython)."""
    import rtlab.environment._capture.python as py

    real = py._analyze
    seen: dict[str, None] = {}

    def spy(code: str) -> py.Script:
        seen[code] = None
        return real(code)

    py._analyze = spy  # type: ignore[assignment]
    try:
        replay(t)
    finally:
        py._analyze = real
    return list(seen)


def script_costs(scripts: list[str], repeat: int) -> tuple[float, float]:
    """Best-of-``repeat`` seconds to ``ast.parse`` the scripts, and to analyse them as replay does."""
    import ast
    import warnings

    from rtlab.environment._capture.python import _analyze

    def parse_all() -> None:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for code in scripts:
                try:
                    ast.parse(code)
                except (SyntaxError, ValueError, RecursionError):
                    pass

    analyse = _analyze.__wrapped__
    return best(parse_all, repeat), best(lambda: [analyse(code) for code in scripts], repeat)


def synthetic(n_steps: int = 20, n_paths: int = 0, obs_bytes: int = 0, seed: int = 0) -> Trajectory:
    """A plain-DCI-like run: optionally one `find` listing ``n_paths`` files, then `cat`/`grep` steps."""
    rng = random.Random(seed)
    words = [
        "budget",
        "report",
        "q3",
        "sales",
        "hiring",
        "notes",
        "plan",
        "summary",
        "vendor",
        "2024",
        "final",
    ]
    paths = [
        f"dept_{rng.randrange(40)}/{rng.choice(words)}/{'_'.join(rng.sample(words, 3))}_{i}.{rng.choice(['md', 'csv', 'txt'])}"
        for i in range(max(n_paths, n_steps))
    ]
    steps = []
    if n_paths:
        listing = "".join(f"./{p}\n" for p in paths[:n_paths])
        steps.append(
            Step(
                index=0,
                tool="shell",
                command="find . -type f",
                output=listing,
                shown=listing,
                exit_code=0,
                action=Action.shell("find . -type f"),
            )  # fmt: skip
        )
    if obs_bytes:
        line = "row,amount,2024-01-15,Office rent 12000 Cloud hosting 8450.50\n"
        body = (line * (obs_bytes // len(line) + 1))[:obs_bytes]
        steps.append(
            Step(
                index=len(steps),
                tool="shell",
                command=f"cat {paths[0]}",
                output=body,
                shown=body,
                exit_code=0,
                action=Action.shell(f"cat {paths[0]}"),
            )
        )
    while len(steps) < n_steps:
        k = len(steps)
        p = paths[k % len(paths)]
        text = f"# {p}\nvalue {k}: {rng.randrange(10**6)}\n" * 3
        steps.append(
            Step(index=k, tool="shell", command=f"cat {p}", output=text, shown=text, exit_code=0,
                 action=Action.shell(f"cat {p}"))
        )  # fmt: skip
    return Trajectory(
        id=f"synthetic:{n_steps}-{n_paths}-{obs_bytes}",
        format="synthetic",
        source_path="(generated)",
        steps=steps,
        instruction="Compile the Q3 budget summary from the sales and vendor reports",
        cwd="/w",
    )


def _row(name: str, n: int, steps: int, parse: float, cold: float, warm: float) -> str:
    return (
        f"{name:<14}{n:>6}{steps:>7}{parse * 1e3:>10.1f}{cold * 1e3:>9.1f}{cold / parse:>12.2f}"
        f"{warm * 1e3:>9.1f}{warm / parse:>12.2f}{n / cold:>13.1f}"
    )


def _script_row(name: str, srow: list, parse: float) -> str:
    n, ast_s, analysis_s = srow
    return (
        f"{name:<14}{n:>8}{ast_s * 1e3:>9.1f}{ast_s / parse:>11.2f}{analysis_s * 1e3:>13.1f}"
        f"{analysis_s / parse:>16.2f}"
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    paths = [p for p in (ROOT / "data" / "sample", ROOT.parent / "shared" / "real") if p.exists()]
    corpus = ingest(paths).trajectories
    per = defaultdict(lambda: [0, 0, 0.0, 0.0, 0.0])
    scripts = defaultdict(lambda: [0, 0.0, 0.0])
    for t in corpus:
        parse, cold, warm = parse_and_replay(t, args.repeat)
        row = per[t.format]
        row[0] += 1
        row[1] += len(t.steps)
        row[2] += parse
        row[3] += cold
        row[4] += warm
        found = scripts_of(t)
        ast_s, analysis_s = script_costs(found, args.repeat)
        srow = scripts[t.format]
        srow[0] += len(found)
        srow[1] += ast_s
        srow[2] += analysis_s
    print(f"Part 1: recorded trajectories (best of {args.repeat}); parse = json.loads of the canonical line;")
    print(
        "cold = a first replay (memo caches emptied); warm = the same run replayed again (e.g. another ablation)"
    )
    head = f"{'format':<14}{'traj':>6}{'steps':>7}{'parse ms':>10}{'cold ms':>9}{'cold/parse':>12}"
    print(head + f"{'warm ms':>9}{'warm/parse':>12}{'traj/s cold':>13}")
    total = [0, 0, 0.0, 0.0, 0.0]
    for fmt, row in sorted(per.items()):
        print(_row(fmt, *row))
        total = [a + b for a, b in zip(total, row, strict=True)]
    print(_row("all", *total))

    print("\nPart 1b: the Python scripts in those runs (each distinct script once per run, as a first replay")
    print("analyses it); ast = ast.parse alone; analysis = rtlab's whole script analysis, ast.parse included")
    print(
        f"{'format':<14}{'scripts':>8}{'ast ms':>9}{'ast/parse':>11}{'analysis ms':>13}{'analysis/parse':>16}"
    )
    script_total = [0, 0.0, 0.0]
    for fmt, srow in sorted(scripts.items()):
        script_total = [a + b for a, b in zip(script_total, srow, strict=True)]
        if srow[0]:
            print(_script_row(fmt, srow, per[fmt][2]))
    print(_script_row("all", script_total, total[2]))

    print("\nPart 2: growth on generated trajectories (cold)")
    print(f"{'dimension':<22}{'value':>10}{'parse ms':>10}{'replay ms':>11}{'replay/parse':>14}")
    cases = [("steps", v, synthetic(n_steps=v)) for v in (10, 100, 1000)]
    cases += [("listed paths", v, synthetic(n_steps=20, n_paths=v)) for v in (100, 1000, 10000)]
    cases += [
        ("observation bytes", v, synthetic(n_steps=2, obs_bytes=v)) for v in (10_000, 100_000, 1_000_000)
    ]
    for dim, value, t in cases:
        parse, cold, _ = parse_and_replay(t, args.repeat)
        print(f"{dim:<22}{value:>10,}{parse * 1e3:>10.2f}{cold * 1e3:>11.2f}{cold / parse:>14.2f}")

    world = ROOT / "build" / "simulated"
    print(f"\nPart 3: rtlab replay --json over many runs, in worker processes ({world.relative_to(ROOT)})")
    if not (world / "runs").exists():
        print("skipped: no simulated world (make synth writes it)")
    else:
        print(f"{'jobs':>4}{'runs':>7}{'seconds':>9}{'runs/s':>8}{'speed-up':>10}")
        base = None
        for jobs in sorted({1, 2, os.cpu_count() or 1}):
            start = time.perf_counter()
            n = sum(len(done) for done, _ in replay_paths([world], jobs=jobs, each=replay_summary))
            seconds = time.perf_counter() - start
            base = base or seconds
            print(f"{jobs:>4}{n:>7}{seconds:>9.2f}{n / seconds:>8.1f}{base / seconds:>9.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())

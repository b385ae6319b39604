"""Replay cost: rtlab's replay against plain JSON parsing of the same trajectories, and how it grows.

    python bench/replay.py [--repeat N]

Baseline: ``json.loads`` of each trajectory's canonical JSONL line, the least work any tool must do to hold a
trajectory in memory. Replay: ``rtlab.replay.replay`` on the already-parsed trajectory (capture, tab, candidate
ranking, status lines, finish check). Ratio = replay / parse; the goal is within 3x. Part 1 runs the real
trajectories (``../shared/real``, when present) and the sample; part 2 grows one dimension at a time on
generated trajectories: steps, listed paths (up to 10,000), observation size (up to 1 MB).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
import time
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rtlab.ingest import ingest  # noqa: E402
from rtlab.model import Step, Trajectory, trajectory_from_dict, trajectory_to_dict  # noqa: E402
from rtlab.replay import replay  # noqa: E402


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return min(times)


def parse_and_replay(t: Trajectory, repeat: int) -> tuple[float, float]:
    line = json.dumps(trajectory_to_dict(t), ensure_ascii=False)
    parse = best(lambda: json.loads(line), repeat)
    parsed = trajectory_from_dict(json.loads(line))
    run = best(lambda: replay(parsed), repeat)
    return parse, run


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
            Step(index=0, tool="shell", command="find . -type f", output=listing, shown=listing, exit_code=0)
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
            )
        )
    while len(steps) < n_steps:
        k = len(steps)
        p = paths[k % len(paths)]
        text = f"# {p}\nvalue {k}: {rng.randrange(10**6)}\n" * 3
        steps.append(Step(index=k, tool="shell", command=f"cat {p}", output=text, shown=text, exit_code=0))
    return Trajectory(
        id=f"synthetic:{n_steps}-{n_paths}-{obs_bytes}",
        format="synthetic",
        source_path="(generated)",
        steps=steps,
        instruction="Compile the Q3 budget summary from the sales and vendor reports",
        cwd="/w",
    )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()

    paths = [p for p in (ROOT / "data" / "sample", ROOT.parent / "shared" / "real") if p.exists()]
    corpus = ingest(paths).trajectories
    per = defaultdict(lambda: [0, 0, 0.0, 0.0])
    for t in corpus:
        parse, run = parse_and_replay(t, args.repeat)
        row = per[t.format]
        row[0] += 1
        row[1] += len(t.steps)
        row[2] += parse
        row[3] += run
    print(f"Part 1: recorded trajectories (best of {args.repeat}); parse = json.loads of the canonical line")
    print(
        f"{'format':<14}{'traj':>6}{'steps':>7}{'parse ms':>10}{'replay ms':>11}{'replay/parse':>14}{'traj/s':>9}"
    )
    total = [0, 0, 0.0, 0.0]
    for fmt, (n, s, p, r) in sorted(per.items()):
        print(f"{fmt:<14}{n:>6}{s:>7}{p * 1e3:>10.1f}{r * 1e3:>11.1f}{r / p:>14.2f}{n / r:>9.1f}")
        total = [total[0] + n, total[1] + s, total[2] + p, total[3] + r]
    n, s, p, r = total
    print(f"{'all':<14}{n:>6}{s:>7}{p * 1e3:>10.1f}{r * 1e3:>11.1f}{r / p:>14.2f}{n / r:>9.1f}")

    print("\nPart 2: growth on generated trajectories")
    print(f"{'dimension':<22}{'value':>10}{'parse ms':>10}{'replay ms':>11}{'replay/parse':>14}")
    cases = [("steps", v, synthetic(n_steps=v)) for v in (10, 100, 1000)]
    cases += [("listed paths", v, synthetic(n_steps=20, n_paths=v)) for v in (100, 1000, 10000)]
    cases += [
        ("observation bytes", v, synthetic(n_steps=2, obs_bytes=v)) for v in (10_000, 100_000, 1_000_000)
    ]
    for dim, value, t in cases:
        parse, run = parse_and_replay(t, args.repeat)
        print(f"{dim:<22}{value:>10,}{parse * 1e3:>10.2f}{run * 1e3:>11.2f}{run / parse:>14.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

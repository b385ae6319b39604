"""Resources on hostile sizes: a 200 MB tool output, a 100,000-step trajectory, a listing of 200,000 paths.

    python bench/resources.py [--scale 1.0]

Each case is a canonical trajectory written at three sizes (a quarter, a half, the whole) and replayed by
``rtlab replay FILE`` in a fresh process, which reports its own wall time and peak resident memory. Baseline, in
the same run and process kind: a bare ``json.loads`` of every line of the same file. Growth = the marginal cost
of one more unit (byte, step, path) over the upper half of the range (half -> whole) over the lower half
(quarter -> half): a fixed cost (the interpreter, imports) cancels; 1.00 is linear, about 1.67 quadratic.
The same for peak resident memory.
``--scale`` shrinks every size (0.1 for a quick look).
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rtlab.ingest import write_jsonl  # noqa: E402
from rtlab.records import Action, Step, Trajectory  # noqa: E402

LINE = "north,Q1,1600000,Alipay,12.3%,Project 5,2021-05-01\n"
DRIVER = """
import json, sys, time
t0 = time.perf_counter()
if sys.argv[1] == "bare":
    with open(sys.argv[2], encoding="utf-8") as fh:
        for line in fh:
            json.loads(line)
    code = 0
else:
    from rtlab.cli import main
    code = main(["replay", sys.argv[2], "--no-join"])
sys.stdout.flush()
# VmHWM: this process image's own peak (ru_maxrss would carry the forking parent's peak across exec)
hwm = next(int(l.split()[1]) for l in open("/proc/self/status") if l.startswith("VmHWM:")) / 1024
print(json.dumps({"seconds": time.perf_counter() - t0, "rss_mb": hwm, "code": code}), file=sys.stderr)
"""


def one_big_output(mb: float) -> Trajectory:
    text = LINE * max(1, int(mb * 1e6 / len(LINE)))
    step = Step(
        0, "bash", "cat big.csv", output=text, shown=text, action=Action("shell", command="cat big.csv")
    )
    return Trajectory(id="bench:big-output", format="bench", source_path="big", steps=[step], cwd="/ws")


def many_steps(n: int) -> Trajectory:
    steps = []
    for i in range(n):
        cmd = f"cat data/f{i}.csv"
        out = f"region,amount\nnorth,{1000 + i}\n"
        steps.append(Step(i, "bash", cmd, output=out, shown=out, seq=i, action=Action("shell", command=cmd)))
    return Trajectory(id="bench:many-steps", format="bench", source_path="many", steps=steps, cwd="/ws")


def big_listing(n: int) -> Trajectory:
    text = "".join(f"./dept{i % 97}/sub{i % 13}/file_{i}.csv\n" for i in range(n))
    cmd = "find . -type f"
    step = Step(0, "bash", cmd, output=text, shown=text, action=Action("shell", command=cmd))
    return Trajectory(id="bench:listing", format="bench", source_path="listing", steps=[step], cwd="/ws")


def run(kind: str, path: Path) -> dict[str, float]:
    done = subprocess.run(
        [sys.executable, "-c", DRIVER, kind, str(path)],
        capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(ROOT)}, check=False,
    )  # fmt: skip
    report = json.loads(done.stderr.strip().splitlines()[-1])
    if report["code"] not in (0, None):
        raise SystemExit(f"{kind} {path}: exit {report['code']}: {done.stderr[-2000:]}")
    return report


def growth(rows: list[tuple[float, float, dict[str, float], dict[str, float]]], key: str) -> float:
    """The cost of one more unit over the upper half of the sizes (half -> whole) over the lower half (quarter ->
    half): equal (1.00) when the cost is linear, whatever the fixed cost."""
    (u0, _, _, m0), (u1, _, _, m1), (u2, _, _, m2) = rows
    low = (m1[key] - m0[key]) / (u1 - u0)
    high = (m2[key] - m1[key]) / (u2 - u1)
    return high / low if low > 0 else float("nan")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--scale", type=float, default=1.0)
    args = ap.parse_args()
    cases = [
        ("tool output (MB)", one_big_output, 200.0),
        ("steps", many_steps, 100_000),
        ("listed paths", big_listing, 200_000),
    ]
    print("rtlab resources benchmark; each size replayed in a fresh process (rtlab replay FILE --no-join)")
    print(
        f"{'case':<18}{'size':>10}{'file MB':>9}{'bare s':>8}{'rtlab s':>9}{'ratio':>7}{'peak MB':>9}{'bare MB':>9}"
    )
    with tempfile.TemporaryDirectory() as tmp:
        for name, make, full in cases:
            sizes = [full * args.scale / 4, full * args.scale / 2, full * args.scale]
            rows = []
            for size in sizes:
                unit = size if isinstance(full, float) else int(size)
                path = Path(tmp) / f"{make.__name__}-{unit}.jsonl"
                write_jsonl([make(unit)], path)
                bare, mine = run("bare", path), run("rtlab", path)
                rows.append((unit, path.stat().st_size / 1e6, bare, mine))
                print(
                    f"{name:<18}{unit:>10,.0f}{rows[-1][1]:>9.1f}{bare['seconds']:>8.2f}{mine['seconds']:>9.2f}"
                    f"{mine['seconds'] / bare['seconds']:>7.1f}{mine['rss_mb']:>9.0f}{bare['rss_mb']:>9.0f}"
                )
                path.unlink()
            print(
                f"{'':<18}marginal cost, upper half of the range / lower half (1.00: linear): "
                f"time {growth(rows, 'seconds'):.2f}, peak memory {growth(rows, 'rss_mb'):.2f}"
            )
    return 0


if __name__ == "__main__":
    sys.exit(main())

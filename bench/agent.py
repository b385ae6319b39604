"""The live harness's overhead: the environment's cost per step beside the (simulated) model's latency.

Runs the scripted agent (``rtlab.llm.SimulatedServer``, each answer ``--latency`` seconds after its request) on a
one-task simulated world with DCI (the baseline: no environment) and RunningTab, in the same process, and prints
per step the seconds spent in ``Environment.observe`` / ``call``, in the tools (commands under the sandbox, reads,
writes) and waiting for the model, with the ratios environment / model and RunningTab's harness time per step /
DCI's. Usage: ``python bench/agent.py [--latency 0.5] [--repeat 3]``.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from test_agent import TASK_ID, make_world  # noqa: E402  (the tests' one-task world)

from rtlab.agent import RunConfig, load_task, run_agent  # noqa: E402
from rtlab.llm import SimulatedServer  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument(
        "--latency", type=float, default=0.5, help="seconds the simulated model takes per turn"
    )
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp, SimulatedServer(latency=args.latency) as srv:
        world = make_world(Path(tmp))
        task = load_task(f"{world}:{TASK_ID}")
        rows = {}
        for method in ("dci", "runningtab"):
            best = None
            for k in range(args.repeat):
                config = RunConfig(method=method, model="rtlab-simulated", base_url=srv.base_url)
                s = run_agent(task, config, Path(tmp) / f"{method}-{k}")
                if (
                    best is None
                    or s.environment_seconds + s.tool_seconds < best.environment_seconds + best.tool_seconds
                ):
                    best = s
            rows[method] = best
        print(f"simulated model latency {args.latency:g} s per turn; fastest of {args.repeat} runs each")
        print(
            f"{'method':<12}{'steps':>6}{'turns':>6}{'env ms/step':>13}{'tools ms/step':>15}{'model ms/turn':>15}{'env/model':>11}"
        )
        for method, s in rows.items():
            assert s is not None
            env = 1000 * s.environment_seconds / max(1, s.steps)
            tools = 1000 * s.tool_seconds / max(1, s.steps)
            model = 1000 * s.model_seconds / max(1, s.turns)
            print(
                f"{method:<12}{s.steps:>6}{s.turns:>6}{env:>13.2f}{tools:>15.2f}{model:>15.1f}{env / model:>11.4f}"
            )
        dci, tab = rows["dci"], rows["runningtab"]
        assert dci is not None and tab is not None
        per = lambda s: (s.environment_seconds + s.tool_seconds) / max(1, s.steps)  # noqa: E731
        print(f"harness time per step, RunningTab / DCI: {per(tab) / per(dci):.2f}")


if __name__ == "__main__":
    main()

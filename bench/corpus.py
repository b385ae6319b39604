"""A generated corpus of trajectories of realistic sizes, for the store's throughput and memory benchmark.

    python bench/corpus.py OUT [-n 100000] [--jobs 2] [--seed 0] [--check 200]
    python bench/corpus.py            # make bench: 1,000 runs in a temporary folder, checked, removed

Writes N runs under OUT (never commit it), as the simulated world lays them out, so every reader, the
Workspace-Bench join and the run labels are exercised: ``OUT/<task>/<method>/<model>/run-<k>/`` holding a Pi
session (``session.jsonl``, format version 3), ``run.json`` (labels), ``metadata.json`` (task and rubric) and
``rubrics_judge--corpus-judge.json`` (the judge), and the deliverable under ``output/``. Each run folder is
written under a temporary name and renamed when whole (no fsync: a corpus is regenerated, not kept).
Work is streamed: chunks of runs are made in ``--jobs`` worker processes (:func:`rtlab._workers.process_pool`),
each from its own seed, so the same seed gives the same corpus whatever the number of jobs, and memory stays
that of one chunk.

Sizes are modelled on what rtlab reads today (measured with ``rtlab.ingest`` on 2026-12-02):

=====================================  ====  =============  =================================
source                                 runs  steps p50/p90  output chars per step p50/p90/p99
=====================================  ====  =============  =================================
simulated world (build/simulated)      1620  16 / 28        2,095 / 4,950 / 20,563
Workspace-Bench Codex (real)             15   8 / 20          599 / 31,068 / 527,185 (max 1 MiB)
OfficeQA G2B (real)                      32   9 / 12        3,585 / 22,015 / 25,969
TheAgentCompany OpenHands (real)          8   8 / 23        1,646 / 2,465 / 5,286
Pi session (real, one)                    1  391              113 / 1,505 / 6,620
=====================================  ====  =============  =================================

so a run has ``max(3, lognormal(median 13, sigma 0.55))`` tool calls (p90 26), and 1% of runs are long
sessions of 100-400 calls; a call's output has ``lognormal(median 1,500, sigma 1.3)`` characters (p90 ~8 K,
p99 ~31 K), at most 1 MiB (Codex's cap). Measured on 10,000 runs: 17.4 calls and 44 KB of output a run,
64 KB written, so ~6.4 GB for 100,000 (the sample read back: calls 12 / 25 p50 / p90, outputs 811 / 6,564 /
25,158 characters p50 / p90 / p99, small listings and writes included).
The calls are what agents do: list the workspace, ``cat`` / ``grep`` / read its files (whose lines carry the
rubric's values), write the deliverable (with some of the values: the judge passes an item when its value is
there). ``--check N`` (also run after generating) reads N runs back through ``rtlab.ingest`` and compares
their step counts and outputs with what was generated.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

N_TASKS = 200
"""Distinct tasks in a corpus (runs are spread over them, several methods and models each)."""
METHODS = ("DCI", "RunningTab")
MODELS = ("corpus-model-a", "corpus-model-b", "corpus-model-c")
STEPS_MEDIAN, STEPS_SIGMA = 13.0, 0.55
LONG_SHARE, LONG_RANGE = 0.01, (100, 400)
OUTPUT_MEDIAN, OUTPUT_SIGMA, OUTPUT_MAX = 1500.0, 1.3, 1 << 20
CHUNK = 250
"""Runs per worker task."""

WORDS = (
    "revenue cost budget forecast region quarter total margin capacity storage latency users orders payments "
    "invoice vendor contract headcount pipeline backlog incident service deployment release audit policy "
    "approval variance target actual plan report summary north south east west central week month year"
).split()
FOLDERS = ("Finance", "Reports", "Engineering", "Admin", "Shared", "Archive", "HR", "Operations")
EXTS = ("csv", "md", "txt", "json", "xlsx")


# ---------------------------------------------------------------------------------------------------------
# Tasks


def make_task(t: int, seed: int) -> dict[str, Any]:
    """Task ``t``: its workspace files (each with some valued lines) and rubric items naming a file and a value."""
    rng = random.Random(f"task-{seed}-{t}")
    files = []
    for f in range(rng.randint(8, 16)):
        name = f"{rng.choice(FOLDERS)}/{rng.choice(WORDS)}_{rng.choice(WORDS)}_{t}_{f}.{rng.choice(EXTS)}"
        facts = [
            (
                f"{rng.choice(WORDS)} {rng.choice(WORDS)}",
                f"{rng.randint(100, 99999)}.{rng.randint(0, 99):02d}",
            )
            for _ in range(rng.randint(2, 6))
        ]
        files.append({"path": name, "facts": facts})
    rubric = []
    for _ in range(rng.randint(6, 14)):
        f = rng.choice(files)
        label, value = rng.choice(f["facts"])
        rubric.append(
            {
                "text": f"States the {label} of {value} (source: {f['path'].rsplit('/', 1)[1]}).",
                "file": f["path"],
                "value": value,
            }
        )
    deliverable = f"report_{t}.md"
    return {
        "id": f"corpus-{t:04d}",
        "task": f"Using the files in the workspace, write {deliverable} summarising "
        + ", ".join(sorted({r["file"].rsplit("/", 1)[1] for r in rubric}))
        + ", with each key figure.",
        "files": files,
        "rubric": rubric,
        "deliverable": deliverable,
    }


def metadata(task: dict[str, Any]) -> dict[str, Any]:
    """``metadata.json`` as the Workspace-Bench adapter reads it (the simulated world's fields)."""
    return {
        "id": task["id"],
        "language": "en",
        "persona": "Analyst",
        "job": "Analyst",
        "organisation": "Corpus Ltd (generated)",
        "task": task["task"],
        "task_diff": "medium",
        "output_files": [task["deliverable"]],
        "rubrics": [r["text"] for r in task["rubric"]],
        "rubric_types": ["Outcome Evaluation"] * len(task["rubric"]),
        "data_dependency": sorted({r["file"] for r in task["rubric"]}),
    }


# ---------------------------------------------------------------------------------------------------------
# Runs


class Text:
    """Filler lines drawn from a fixed pool (fast): outputs reach their sampled size without a random word each."""

    def __init__(self, seed: int) -> None:
        rng = random.Random(f"text-{seed}")
        self.pool = [
            " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 14))) + f" {rng.randint(0, 9999)}"
            for _ in range(4000)
        ]
        self.mean = sum(len(line) + 1 for line in self.pool) / len(self.pool)

    def lines(self, chars: int, rng: random.Random) -> list[str]:
        """About ``chars`` characters of filler lines (one draw of many lines: fast)."""
        return rng.choices(self.pool, k=max(1, round(chars / self.mean)))


def output_size(rng: random.Random) -> int:
    return min(OUTPUT_MAX, max(1, int(rng.lognormvariate(math.log(OUTPUT_MEDIAN), OUTPUT_SIGMA))))


def n_calls(rng: random.Random) -> int:
    if rng.random() < LONG_SHARE:
        return rng.randint(*LONG_RANGE)
    return max(3, round(rng.lognormvariate(math.log(STEPS_MEDIAN), STEPS_SIGMA)))


def run_calls(
    task: dict[str, Any], rng: random.Random, text: Text
) -> tuple[list[tuple[str, dict[str, Any], str]], str]:
    """The tool calls of one run (``(tool, arguments, output)``) and its deliverable's text."""
    files = task["files"]
    total = n_calls(rng)
    calls: list[tuple[str, dict[str, Any], str]] = [
        ("bash", {"command": "find . -type f | sort"}, "\n".join(f"./{f['path']}" for f in files) + "\n")
    ]
    seen: list[tuple[str, str]] = []
    while len(calls) < total - 1:
        f = rng.choice(files)
        size = output_size(rng)
        body = text.lines(size, rng)
        valued = [f"{label}: {value}" for label, value in f["facts"]]
        for line in valued:  # the file's values among its lines
            body.insert(rng.randrange(len(body) + 1), line)
        kind = rng.random()
        if kind < 0.55:
            calls.append(("bash", {"command": f"cat '{f['path']}'"}, "\n".join(body) + "\n"))
            seen += f["facts"]
        elif kind < 0.75:
            calls.append(("read", {"path": f["path"]}, "\n".join(body) + "\n"))
            seen += f["facts"]
        elif kind < 0.9:
            label, value = rng.choice(f["facts"])
            hits = [
                f"{f['path']}:{i + 1}:{line}"
                for i, line in enumerate(body[:400])
                if value in line or i % 7 == 0
            ]
            calls.append(("bash", {"command": f"grep -rn '{value}' ."}, "\n".join(hits) + "\n"))
            seen.append((label, value))
        else:
            folder = f["path"].split("/", 1)[0]
            names = sorted(g["path"].split("/", 1)[1] for g in files if g["path"].startswith(folder + "/"))
            calls.append(("bash", {"command": f"ls {folder}"}, "\n".join(names) + "\n"))
    kept = [fv for fv in seen if rng.random() < 0.6]
    deliverable = "# Summary\n\n" + "".join(f"- {label}: {value}\n" for label, value in kept)
    path = f"outputs/{task['deliverable']}"
    calls.append(
        (
            "write",
            {"path": path, "content": deliverable},
            f"Successfully wrote {len(deliverable)} bytes to {path}",
        )
    )
    return calls, deliverable


def session(
    run_id: str, task: dict[str, Any], model: str, calls: list[tuple[str, dict[str, Any], str]], start: int
) -> str:
    """The Pi session (version 3) of one run: header, model, the user's task, each call and its result."""
    lines: list[dict[str, Any]] = [
        {"type": "session", "version": 3, "id": run_id, "timestamp": _iso(start), "cwd": "/workspace"}
    ]
    parent: str | None = None
    seq = 0

    def entry(message: dict[str, Any] | None = None, **extra: Any) -> None:
        nonlocal parent, seq
        seq += 1
        eid = f"{seq:08x}"
        row = {
            "type": "message" if message is not None else extra.pop("type"),
            "id": eid,
            "parentId": parent,
            "timestamp": _iso(start + seq),
            **extra,
        }
        if message is not None:
            row["message"] = {**message, "timestamp": (start + seq) * 1000}
        lines.append(row)
        parent = eid

    entry(type="model_change", provider="corpus", modelId=model)
    entry({"role": "user", "content": [{"type": "text", "text": task["task"]}]})
    for i, (tool, args, output) in enumerate(calls, 1):
        call_id = f"call_{i:04d}"
        entry(
            {
                "role": "assistant",
                "content": [{"type": "toolCall", "id": call_id, "name": tool, "arguments": args}],
                "provider": "corpus",
                "model": model,
                "stopReason": "toolUse",
                "usage": {
                    "input": 1000 + 40 * i,
                    "output": 50,
                    "cacheRead": 0,
                    "cacheWrite": 0,
                    "totalTokens": 1050 + 40 * i,
                },
            }
        )
        entry(
            {
                "role": "toolResult",
                "toolCallId": call_id,
                "toolName": tool,
                "content": [{"type": "text", "text": output}],
                "isError": False,
            }
        )
    entry(
        {
            "role": "assistant",
            "content": [{"type": "text", "text": f"Done: outputs/{task['deliverable']}."}],
            "provider": "corpus",
            "model": model,
            "stopReason": "stop",
        }
    )
    return "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in lines)


def _iso(seconds: int) -> str:
    return time.strftime("%Y-%m-%dT%H:%M:%S.000Z", time.gmtime(1_767_225_600 + seconds))


def run_place(i: int) -> tuple[int, str, str, int]:
    """Run ``i``'s task, method, model and number: spread so every task has every method and model."""
    t = i % N_TASKS
    rest = i // N_TASKS
    return (
        t,
        METHODS[rest % len(METHODS)],
        MODELS[(rest // len(METHODS)) % len(MODELS)],
        rest // (len(METHODS) * len(MODELS)),
    )


def write_chunk(out: str, seed: int, start: int, stop: int) -> dict[str, int]:
    """Runs ``start..stop-1`` under ``out`` (each folder renamed into place when whole); their totals."""
    tasks: dict[int, dict[str, Any]] = {}
    text = Text(seed)
    totals = {"runs": 0, "steps": 0, "output_chars": 0, "bytes": 0}
    for i in range(start, stop):
        t, method, model, k = run_place(i)
        task = tasks.get(t) or tasks.setdefault(t, make_task(t, seed))
        rng = random.Random(f"run-{seed}-{i}")
        calls, deliverable = run_calls(task, rng, text)
        folder = Path(out) / task["id"] / method / model / f"run-{k}"
        if folder.exists():
            continue
        tmp = folder.with_name(f".{folder.name}.partial")
        shutil.rmtree(tmp, ignore_errors=True)
        (tmp / "output").mkdir(parents=True)
        run_id = f"{task['id']}.{method}.{model}.r{k}"
        files = {
            "session.jsonl": session(run_id, task, model, calls, i * 1000),
            "run.json": json.dumps(
                {
                    "schema": "rtlab.run",
                    "task_id": task["id"],
                    "method": method,
                    "variant": None,
                    "model": model,
                    "run": str(k),
                },
                indent=2,
            ),
            "metadata.json": json.dumps(metadata(task), indent=2),
            "rubrics_judge--corpus-judge.json": json.dumps(judge(task, deliverable), indent=2),
            f"output/{task['deliverable']}": deliverable,
        }
        for name, data in files.items():
            (tmp / name).write_text(data, encoding="utf-8")
            totals["bytes"] += len(data)
        os.replace(tmp, folder)
        totals["runs"] += 1
        totals["steps"] += len(calls)
        totals["output_chars"] += sum(len(o) for _, _, o in calls)
    return totals


def judge(task: dict[str, Any], deliverable: str) -> dict[str, Any]:
    items = []
    for n, r in enumerate(task["rubric"]):
        passed = r["value"] in deliverable
        items.append(
            {
                "index": n,
                "rubric": r["text"],
                "passed": passed,
                "confidence": 1.0,
                "evidence": f"{r['value']} {'is' if passed else 'is not'} in the deliverable.",
            }
        )
    return {"taskId": task["id"], "agentKind": "generated", "rubrics": items}


def generate(out: Path, n: int, *, seed: int = 0, jobs: int = 2, progress: bool = True) -> dict[str, int]:
    """Write ``n`` runs under ``out`` in ``jobs`` worker processes; the totals (also in ``out/corpus.json``)."""
    from rtlab._workers import process_pool
    from rtlab.io import atomic_open

    out.mkdir(parents=True, exist_ok=True)
    chunks = [(s, min(n, s + CHUNK)) for s in range(0, n, CHUNK)]
    totals = {"runs": 0, "steps": 0, "output_chars": 0, "bytes": 0}
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=n, desc="corpus", unit="run")
    with process_pool(max(1, jobs)) as pool:
        futures = [pool.submit(write_chunk, str(out), seed, a, b) for a, b in chunks]
        for (a, b), fut in zip(chunks, futures, strict=True):
            for k, v in fut.result().items():
                totals[k] += v
            if bar is not None:
                bar.update(b - a)
    if bar is not None:
        bar.close()
    with atomic_open(out / "corpus.json") as fh:
        json.dump({"schema": "rtlab.bench-corpus/1", "n": n, "seed": seed, **totals}, fh, indent=2)
    return totals


def check(out: Path, n: int, sample: int, seed: int) -> dict[str, Any]:
    """Read ``sample`` runs back with ``rtlab.ingest``: each one trajectory, its task and judge joined, its
    steps and outputs as generated. Raises ``AssertionError`` naming the first run that differs."""
    from rtlab.ingest import ingest

    picks = random.Random(seed).sample(range(n), min(sample, n))
    steps, outputs = [], []
    for i in picks:
        t, method, model, k = run_place(i)
        task = make_task(t, seed)
        folder = out / task["id"] / method / model / f"run-{k}"
        result = ingest([folder])
        assert not result.failures and len(result.trajectories) == 1, f"{folder}: {result.failures}"
        (traj,) = result.trajectories
        calls, _ = run_calls(task, random.Random(f"run-{seed}-{i}"), Text(seed))
        assert len(traj.steps) == len(calls), f"{folder}: {len(traj.steps)} steps read, {len(calls)} written"
        assert traj.task is not None and len(traj.task.rubric) == len(task["rubric"]), (
            f"{folder}: task not joined"
        )
        assert traj.judgement is not None, f"{folder}: judge not joined"
        assert (traj.method, traj.model, traj.task_id) == (method, model, task["id"]), f"{folder}: labels"
        assert sum(len(s.output or "") for s in traj.steps) == sum(len(o) for _, _, o in calls), (
            f"{folder}: outputs"
        )
        steps.append(len(traj.steps))
        outputs += [len(s.output or "") for s in traj.steps]
    q = lambda a, p: sorted(a)[min(len(a) - 1, int(p / 100 * len(a)))]  # noqa: E731
    return {
        "runs_read": len(picks),
        "steps_p50_p90": (q(steps, 50), q(steps, 90)),
        "output_chars_p50_p90_p99": (q(outputs, 50), q(outputs, 90), q(outputs, 99)),
    }


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "out", nargs="?", type=Path, help="folder to write (absent: a small corpus in a temporary folder)"
    )
    ap.add_argument(
        "-n", type=int, default=None, help="runs to generate (default 100,000; 1,000 without OUT)"
    )
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--check", type=int, default=200, metavar="N", help="runs to read back (default 200)")
    ap.add_argument("--check-only", action="store_true", help="only read back a corpus written before")
    ap.add_argument("--quiet", action="store_true")
    args = ap.parse_args(argv)
    temporary = args.out is None
    out = Path(tempfile.mkdtemp(prefix="rtlab-corpus-")) if temporary else args.out
    n = args.n or (1000 if temporary else 100_000)
    try:
        if args.check_only:
            n = json.loads((out / "corpus.json").read_text())["n"]
        else:
            start = time.perf_counter()
            totals = generate(
                out, n, seed=args.seed, jobs=args.jobs, progress=not args.quiet and sys.stderr.isatty()
            )
            seconds = time.perf_counter() - start
            print(
                f"corpus: {totals['runs']} runs ({n} asked) in {seconds:.1f} s ({totals['runs'] / seconds:.0f} runs/s, "
                f"{args.jobs} jobs) under {out}; {totals['steps']} steps ({totals['steps'] / max(1, totals['runs']):.1f} "
                f"a run), {totals['output_chars'] / 1e6:.1f} M output chars, {totals['bytes'] / 1e9:.2f} GB written"
            )
        report = check(out, n, args.check, args.seed)
        print(f"check: {json.dumps(report)}")
    finally:
        if temporary:
            shutil.rmtree(out, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Annotation throughput: LLM calls against the local simulated server with artificial latency, as workers grow.

    python bench/annotate.py [--latency 0.05] [--workers 1,2,4,8,16,32] [--per-worker 32] [--short 8]
                             [--cached 5000] [--transport auto|aiohttp|httpx]

The server (:class:`rtlab.llm._simulated.SimulatedServer`) runs in a child process, as an endpoint would, so its
threads do not share the client's interpreter lock. Each level sends ``--per-worker`` x workers fresh
annotation requests (prompts of :func:`rtlab.annotation._annotators.build_messages`, codebook included, ~14 KB each) through
:meth:`LLMClient.batch` (``openai.AsyncOpenAI`` on one event loop) with the cache off, after a warm-up that
opens as many connections as the largest level. Ideal throughput = workers / latency; the issue's goal is at
least 80% of it up to 32 workers. Throughput is the sustained rate: 32 calls per worker by default, so that
the start of a batch (the first waves of calls go out and come back together) weighs as it does in an
annotation run of thousands of items; a short batch (``--short`` calls per worker at the largest level) is
then timed as well, to show that start-up cost. The speed-up is against the 1-worker level measured in the
same run; the CPU columns are milliseconds of CPU per call in the client process and in the server process.
Then the
cache-hit path: a batch of ``--cached`` requests is made once with the cache on, and the rerun (0 requests)
is timed; goal: at least 10,000 items/s.
"""

from __future__ import annotations

import argparse
import gc
import multiprocessing as mp
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rtlab.analysis import load_codebook  # noqa: E402
from rtlab.annotation import ItemContext, LLMAnnotator, build_messages  # noqa: E402
from rtlab.llm import (  # noqa: E402
    SIMULATED_MODEL,
    LLMClient,  # noqa: E402
    SimulatedServer,
)

READ_LOG = "\n\n".join(
    f"[L{k}] step {k} data/sales_{k}.csv (cat data/sales_{k}.csv)\n"
    + "".join(f"row {i},North,{1000 + 7 * i + k}.5\n" for i in range(40))
    for k in range(1, 6)
)


def serve(latency: float, port: mp.Queue, stop: mp.Event) -> None:  # type: ignore[type-arg]
    """Child process: run the simulated server until told to stop."""
    with SimulatedServer(latency=latency) as srv:
        port.put(srv.base_url)
        stop.wait()


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (Linux ``/proc``; NaN elsewhere)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return float("nan")
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def transport_name(transport: str) -> str:
    """The async client's HTTP transport that ``transport`` means here."""
    if transport != "auto":
        return transport
    import importlib.util

    return "aiohttp" if importlib.util.find_spec("aiohttp") else "httpx"


def requests(n: int, tag: str) -> list[dict]:
    """``n`` distinct annotation requests (one per made-up failed item)."""
    cb = load_codebook()
    annotator = LLMAnnotator(SIMULATED_MODEL)
    out = []
    for i in range(n):
        ctx = ItemContext(
            item=f"bench:{tag}:{i}#0",
            trajectory=f"bench:{tag}:{i}",
            rubric_index=0,
            rubric_text=f"Does the report state the total revenue of {4000 + i}.5 from sales_{i % 5 + 1}.csv?",
            rubric_type="Outcome Evaluation",
            task="Summarise revenue from the sales files into report.md.",
            judge_evidence="The report gives no total.",
            deliverable="### report.md\n# Revenue\nNorth and South declined.",
            read_log=READ_LOG,
            candidates="data/budget.xlsx (listed at step 0)",
        )
        out.append(annotator.request(build_messages(ctx, cb)))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--latency", type=float, default=0.05)
    parser.add_argument("--workers", default="1,2,4,8,16,32")
    parser.add_argument("--per-worker", type=int, default=32, help="calls per worker at each level")
    parser.add_argument("--short", type=int, default=8, help="calls per worker of the short batch")
    parser.add_argument("--cached", type=int, default=5000)
    parser.add_argument("--transport", default="auto", choices=["auto", "aiohttp", "httpx"])
    args = parser.parse_args()
    levels = [int(w) for w in args.workers.split(",")]

    ctx = mp.get_context("spawn")
    port, stop = ctx.Queue(), ctx.Event()
    child = ctx.Process(target=serve, args=(args.latency, port, stop), daemon=True)
    child.start()
    base_url = port.get(timeout=30)
    try:
        print(
            f"simulated server in pid {child.pid} at {base_url}, latency {args.latency * 1000:.0f} ms; "
            f"client: openai.AsyncOpenAI on the {transport_name(args.transport)} transport"
        )
        print(
            f"{'workers':>7} {'calls':>6} {'seconds':>8} {'calls/s':>8} {'ideal':>7} {'of ideal':>8} "
            f"{'speed-up':>8} {'client CPU':>10} {'server CPU':>10}"
        )
        client = LLMClient(base_url=base_url, api_key="x", cache=False, timeout=30, transport=args.transport)
        top = max(levels)
        client.batch(requests(top, "warm"), max_workers=top)  # imports, the event loop and connections warm
        baseline, worst = None, 1.0
        for w in levels:
            batch = requests(max(20, args.per_worker * w), f"w{w}")
            gc.collect()  # every level starts from a collected heap: a full collection is the harness's garbage
            start, cpu, server_cpu = time.perf_counter(), time.process_time(), cpu_seconds(child.pid)
            results = client.batch(batch, max_workers=w)
            seconds = time.perf_counter() - start
            cpu, server_cpu = time.process_time() - cpu, cpu_seconds(child.pid) - server_cpu
            assert all(r.ok for r in results), [r.error for r in results if not r.ok][:3]
            rate = len(batch) / seconds
            baseline = baseline or rate
            ideal = w / args.latency
            worst = min(worst, rate / ideal)
            print(
                f"{w:>7} {len(batch):>6} {seconds:>8.2f} {rate:>8.1f} {ideal:>7.0f} "
                f"{rate / ideal:>8.0%} {rate / baseline:>7.1f}x {cpu / len(batch) * 1000:>7.2f} ms "
                f"{server_cpu / len(batch) * 1000:>7.2f} ms"
            )
        print(
            f"goal >= 80% of workers/latency up to {max(levels)} workers: {'met' if worst >= 0.8 else 'NOT met'}"
            f" (worst level {worst:.0%})"
        )
        if args.short:
            batch = requests(args.short * top, "short")
            gc.collect()
            start = time.perf_counter()
            client.batch(batch, max_workers=top)
            rate = len(batch) / (time.perf_counter() - start)
            print(
                f"short batch: {len(batch)} calls at {top} workers ({args.short} per worker): {rate:.1f} calls/s, "
                f"{rate / (top / args.latency):.0%} of the ideal (the first waves queue on the client's CPU)"
            )
        client.close()

        with tempfile.TemporaryDirectory() as cache_dir:
            cached = LLMClient(
                base_url=base_url, api_key="x", cache_dir=cache_dir, timeout=30, transport=args.transport
            )
            batch = requests(args.cached, "cache")
            start = time.perf_counter()
            cached.batch(batch, max_workers=32)
            first = time.perf_counter() - start
            start = time.perf_counter()
            again = cached.batch(batch, max_workers=32)
            seconds = time.perf_counter() - start
            made = sum(not r.cached for r in again)
            rate = len(batch) / seconds
            cached.close()
            print(
                f"cache: {len(batch)} calls made in {first:.2f} s; rerun {seconds:.3f} s, {made} requests, "
                f"{rate:,.0f} items/s; goal >= 10,000 items/s: {'met' if rate >= 10_000 else 'NOT met'}"
            )
    finally:
        stop.set()
        child.join(timeout=10)


if __name__ == "__main__":
    main()

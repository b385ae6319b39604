"""rtlab against the tools a researcher would otherwise use, on the same files, in one run (issue 29).

    python bench/peers.py [--peers-python .venv-peers/bin/python] [--store STORE] [--rounds 5]

The peers run in their own virtualenv, never rtlab's (``--peers-python``; made with ``python3 -m venv .venv-peers
&& .venv-peers/bin/pip install inspect_ai duckdb pandas pyarrow``), in one long-lived worker process fed one
task at a time, so neither side pays its imports inside the timings; a peer that cannot be imported there is
skipped with the reason. rtlab runs in this process. Rounds are interleaved (a peer's, then rtlab's, the same
task) and each side's fastest round counts: the ratio is rtlab's time over the peer's (under 1: rtlab faster).

1. Inspect logs: ``inspect_ai.analysis.samples_df`` (one row per sample, from the header and summaries) against
   ``rtlab.summaries`` (the same rows from ``header.json`` + ``summaries.json``), and Inspect's
   ``read_eval_log`` (every sample decoded) against ``rtlab.ingest`` (every sample read into steps), on every
   real ``.eval`` under ``../shared/real/wild/inspect`` and a 1,600-sample log that Inspect's own
   ``write_eval_log`` writes here from the largest real one (its samples copied under new ids and uuids).
2. Agent logs into transcripts: Inspect Scout's own sources (``inspect_scout.sources.claude_code`` and ``atif``,
   every transcript of a file read, run in Scout's own virtualenv, ``--scout-python``: the one ``.ci/run`` makes
   for the ATIF check, Python >= 3.12 with ``inspect-scout`` and ``harbor``) against ``rtlab.ingest`` of the same
   file, on every real Claude Code session and ATIF file under ``../shared/real/wild``; each side's count of tool
   calls printed (Scout's: its assistant messages' tool calls; rtlab's: its steps).
3. A store, cold: each round a new DuckDB connection querying the Parquet glob
   (``read_parquet('S/<table>/*/*.parquet', hive_partitioning = true)``), a new ``rtlab.open(S).sql(q)`` (the
   manifest read and checked, every file's presence, place and size, the named tables' files hashed unless
   their stamps show them unchanged since they were: the first round stamps them, see docs/STORE.md), and
   pandas (``pd.read_parquet`` of the table's folder and the same aggregation); the answers are compared.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import rtlab  # noqa: E402

REAL = ROOT.parent / "shared" / "real"
BIG_SOURCE = "owasp__kimi-k3__support-desk-naive_7UyEcsb23evHpAfY9e2k5X.eval"
N_BIG = 1600

WORKER = r"""
import json, sys, time
def run(task):
    op = task["op"]
    if op == "import":
        import importlib
        for name in task["modules"]:
            importlib.import_module(name)
        return None
    if op == "samples_df":
        from inspect_ai.analysis import samples_df
        return len(samples_df(task["path"], quiet=True))
    if op == "read_eval_log":
        from inspect_ai.log import read_eval_log
        return len(read_eval_log(task["path"]).samples)
    if op == "duckdb":
        import duckdb
        con = duckdb.connect()
        try:
            return con.execute(task["query"]).df().values.tolist()
        finally:
            con.close()
    if op == "pandas":
        import pandas as pd
        frame = pd.read_parquet(task["folder"], columns=task["columns"])
        return eval(task["expr"], {"pd": pd, "frame": frame})
    if op in ("scout_claude_code", "scout_atif"):
        import asyncio
        from inspect_scout.sources import atif, claude_code
        source = claude_code if op == "scout_claude_code" else atif
        async def read():
            return [t async for t in source(path=task["path"])]
        transcripts = asyncio.run(read())
        return sum(
            len(m.tool_calls or []) for t in transcripts for m in t.messages if m.role == "assistant"
        )
    if op == "make_big":
        import math, uuid
        from inspect_ai.log import read_eval_log, write_eval_log
        log = read_eval_log(task["source"])
        samples = []
        for k in range(math.ceil(task["n"] / len(log.samples))):
            for s in log.samples:
                samples.append(s.model_copy(update={"id": f"{s.id}#{k}", "uuid": uuid.uuid4().hex}))
        log.samples = samples[: task["n"]]
        write_eval_log(log, task["out"])
        return len(log.samples)
    raise ValueError(op)
for line in sys.stdin:
    task = json.loads(line)
    try:
        start = time.perf_counter()
        value = run(task)
        seconds = time.perf_counter() - start
        out = {"seconds": seconds, "value": value}
    except Exception as exc:
        out = {"error": f"{type(exc).__name__}: {exc}"}
    print(json.dumps(out, default=str), flush=True)
"""


class Peer:
    """The peers' worker process (their own virtualenv)."""

    def __init__(self, python: str) -> None:
        self.proc = subprocess.Popen(
            [python, "-c", WORKER], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def __call__(self, **task: Any) -> dict[str, Any]:
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(task) + "\n")
        return json.loads(self.proc.stdout.readline())

    def missing(self, *modules: str) -> str | None:
        """Why the peers' modules cannot be imported, or ``None``."""
        got = self(op="import", modules=list(modules))
        return got.get("error")

    def close(self) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.close()
        self.proc.wait()


def ours(fn: Callable[[], Any]) -> dict[str, Any]:
    start = time.perf_counter()
    value = fn()
    return {"seconds": time.perf_counter() - start, "value": value}


def compare(
    name: str, peer: Callable[[], dict[str, Any]], mine: Callable[[], dict[str, Any]], rounds: int
) -> tuple[float, float, Any, Any]:
    """Interleaved rounds; the fastest of each side, and the last values."""
    theirs, own = [], []
    a = b = None
    for _ in range(rounds):
        got = peer()
        if "error" in got:
            raise RuntimeError(f"{name}: the peer failed: {got['error']}")
        theirs.append(got["seconds"])
        a = got["value"]
        mine_got = mine()
        own.append(mine_got["seconds"])
        b = mine_got["value"]
    return min(theirs), min(own), a, b


def inspect_part(peer: Peer | None, why: str | None, rounds: int, work: Path) -> None:
    print("## Inspect logs: samples_df vs rtlab.summaries, read_eval_log vs rtlab.ingest")
    if peer is None or why:
        print(f"skipped: {why}")
        return
    wild = REAL / "wild" / "inspect"
    logs = sorted(wild.glob("*.eval")) if wild.is_dir() else []
    big = work / f"inspect-{N_BIG}.eval"
    if not big.exists() and (wild / BIG_SOURCE).exists():
        made = peer(op="make_big", source=str(wild / BIG_SOURCE), n=N_BIG, out=str(big))
        if "error" in made:
            print(f"(the {N_BIG}-sample log could not be written: {made['error']})")
    if big.exists():
        logs.append(big)
    if not logs:
        print(f"skipped: no .eval logs under {wild}")
        return
    print(
        f"min of {rounds} interleaved rounds, seconds; ratio = rtlab / peer\n\n"
        "| log | MB | samples | samples_df | rtlab.summaries | ratio | read_eval_log | rtlab.ingest | ratio |\n"
        "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
    )
    for log in logs:
        summarized = zipfile.ZipFile(log).namelist().count("summaries.json") == 1
        t_df, t_sum, n_df, n_sum = compare(
            "samples_df",
            lambda log=log: peer(op="samples_df", path=str(log)),
            lambda log=log: ours(lambda: len(rtlab.summaries([log]))),
            rounds,
        )
        read = rtlab.summaries([log])["read"]
        t_log, t_ing, n_log, n_ing = compare(
            "read_eval_log",
            lambda log=log: peer(op="read_eval_log", path=str(log)),
            lambda log=log: ours(lambda: len(rtlab.ingest([log]).trajectories)),
            max(1, min(rounds, 3)) if log == big else rounds,
        )
        assert n_df == n_sum == n_log == n_ing, (log.name, n_df, n_sum, n_log, n_ing)
        how = "" if summarized and set(read) == {"summary"} else f" (read: {', '.join(sorted(set(read)))})"
        print(
            f"| {log.name[:48]}{how} | {log.stat().st_size / 1e6:.2f} | {n_sum} | {t_df:.3f} | {t_sum:.3f} | "
            f"{t_sum / t_df:.2f}x | {t_log:.3f} | {t_ing:.3f} | {t_ing / t_log:.2f}x |"
        )


QUERIES = {
    "trajectories per model": (
        "trajectories",
        "SELECT model, count(*) AS n, sum(n_steps) AS steps FROM {t} GROUP BY model ORDER BY model",
        ["model", "n_steps"],
        "[[m, len(g), int(g['n_steps'].sum())] for m, g in frame.groupby('model', dropna=False)]",
    ),
    "steps per tool": (
        "steps",
        "SELECT tool, count(*) AS n FROM {t} GROUP BY tool ORDER BY n DESC, tool",
        ["tool"],
        "[[k, int(v)] for k, v in sorted(frame['tool'].value_counts().items(), key=lambda kv: (-kv[1], kv[0]))]",
    ),
    "read-log characters": (
        "read_log",
        "SELECT count(*) AS n, sum(chars) AS chars FROM {t}",
        ["chars"],
        "[[int(len(frame)), int(frame['chars'].sum())]]",
    ),
}


FRESH_PEER = r"""
import json, sys, time, duckdb, pandas
start = time.perf_counter()
con = duckdb.connect()
value = con.execute(sys.argv[1]).df().values.tolist()
con.close()
print(json.dumps({"seconds": time.perf_counter() - start, "value": value}, default=str))
"""
"""DuckDB on the glob in a new process of the peers' virtualenv: its imports done before the clock starts."""

FRESH_OURS = r"""
import json, sys, time, duckdb, pandas, rtlab, rtlab.io, rtlab.store._open
start = time.perf_counter()
s = rtlab.open(sys.argv[2])
value = s.sql(sys.argv[1]).values.tolist()
s.close()
print(json.dumps({"seconds": time.perf_counter() - start, "value": value}, default=str))
"""
"""``rtlab.open(S).sql(q)`` in a new process: the modules it uses imported before the clock starts."""


def fresh(python: str, code: str, *args: str) -> dict[str, Any]:
    """One timed run of ``code`` in a new process of ``python`` (its own clock, printed as JSON)."""
    done = subprocess.run(
        [python, "-c", code, *args],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1] if done.stderr.strip() else "failed"}
    return dict(json.loads(done.stdout))


def _plain(rows: Any) -> list[list[Any]]:
    """Rows to compare across tools: whole floats as integers (DuckDB sums to HUGEINT, read back as a float),
    NaN as None."""

    def one(v: Any) -> Any:
        if isinstance(v, float):
            return None if v != v else int(v) if v.is_integer() else round(v, 9)
        return v

    return [[one(v) for v in row] for row in rows]


def store_part(
    peer: Peer | None, why: str | None, store: Path | None, rounds: int, peers_python: str
) -> None:
    print("\n## A store, cold: DuckDB on the Parquet glob and pandas vs rtlab.open(S).sql(q)")
    if store is None or not (store / "_manifest.json").is_file():
        print(f"skipped: no store at {store} (build one: rtlab build RUNS -o STORE, then --store STORE)")
        return
    if peer is None or why:
        print(f"skipped: {why}")
        return
    manifest = json.loads((store / "_manifest.json").read_text())
    from rtlab.store._verify import STAMPS

    stamped = sum(
        len(json.loads(f.read_text()).get("files", {}))
        for f in (store / STAMPS.format(table=t) for t in manifest["files"])
        if f.is_file()
    )
    print(
        f"{store}: {manifest.get('n_runs', len(manifest.get('runs', {})))} runs, version {manifest['version']}, {sum(len(f) for f in manifest['files'].values())} files, "
        f"manifest {(store / '_manifest.json').stat().st_size / 1e6:.2f} MB, {stamped} files stamped before the "
        f"first round; min of {rounds} interleaved "
        "rounds, milliseconds; each round a new connection (DuckDB) or a new rtlab.open (rtlab)\n\n"
        "| query | DuckDB on the glob | rtlab.open(S).sql | ratio | pandas | rtlab / pandas |\n"
        "|---|---:|---:|---:|---:|---:|"
    )
    for name, (table, query, columns, expr) in QUERIES.items():
        glob = f"read_parquet('{store}/{table}/*/*.parquet', hive_partitioning = true)"

        def mine(query: str = query, table: str = table) -> dict[str, Any]:
            def run() -> Any:
                s = rtlab.open(store)
                try:
                    return s.sql(query.format(t=table)).values.tolist()
                finally:
                    s.close()

            return ours(run)

        t_duck, t_ours, a, b = compare(
            name, lambda g=glob, q=query: peer(op="duckdb", query=q.format(t=g)), mine, rounds
        )
        t_pd, _, c, _ = compare(
            name,
            lambda table=table, columns=columns, expr=expr: peer(
                op="pandas", folder=str(store / table), columns=columns, expr=expr
            ),
            mine,
            rounds,
        )
        assert _plain(a) == _plain(b) == _plain(c), (name, a, b, c)
        print(
            f"| {name} | {t_duck * 1e3:.1f} | {t_ours * 1e3:.1f} | {t_ours / t_duck:.2f}x | "
            f"{t_pd * 1e3:.1f} | {t_ours / t_pd:.2f}x |"
        )
    print(
        f"\nEach round a new process (DuckDB: the peers' Python, duckdb and pandas imported; rtlab: this Python, "
        f"rtlab's store modules imported; imports not timed); min of {rounds} interleaved rounds, milliseconds\n\n"
        "| query | DuckDB on the glob | rtlab.open(S).sql | ratio |\n|---|---:|---:|---:|"
    )
    for name, (table, query, _, _) in QUERIES.items():
        glob = f"read_parquet('{store}/{table}/*/*.parquet', hive_partitioning = true)"
        t_duck, t_ours, a, b = compare(
            name,
            lambda g=glob, q=query: fresh(peers_python, FRESH_PEER, q.format(t=g)),
            lambda q=query, t=table: fresh(sys.executable, FRESH_OURS, q.format(t=t), str(store)),
            rounds,
        )
        assert _plain(a) == _plain(b), (name, a, b)
        print(f"| {name} | {t_duck * 1e3:.1f} | {t_ours * 1e3:.1f} | {t_ours / t_duck:.2f}x |")


def scout_part(python: str, rounds: int) -> None:
    print("\n## Agent logs: Inspect Scout's sources vs rtlab.ingest")
    if not Path(python).exists():
        print(
            f"skipped: no Inspect Scout virtualenv at {python} (.ci/run makes it: Python >= 3.12, inspect-scout, harbor)"
        )
        return
    peer = Peer(python)
    try:
        why = peer.missing("inspect_scout.sources", "harbor.models.trajectories")
        if why:
            print(f"skipped: {why}")
            return
        wild = REAL / "wild"
        files = [
            ("claude-code-session", "scout_claude_code", f)
            for f in sorted(wild.glob("claude-code-session/*.jsonl"))
        ]
        files += [("atif", "scout_atif", f) for f in sorted(wild.glob("atif/*.json"))]
        if not files:
            print(f"skipped: no Claude Code sessions or ATIF files under {wild}")
            return
        print(
            f"min of {rounds} interleaved rounds, milliseconds; ratio = rtlab / Scout; tool calls: Scout's / rtlab's\n\n"
            "| file | format | MB | Scout | rtlab.ingest | ratio | tool calls |\n|---|---|---:|---:|---:|---:|---:|"
        )
        for fmt, op, f in files:
            try:
                t_scout, t_ours, n_scout, n_ours = compare(
                    f.name,
                    lambda op=op, f=f: peer(op=op, path=str(f)),
                    lambda f=f: ours(lambda: sum(len(t.steps) for t in rtlab.ingest([f]).trajectories)),
                    rounds,
                )
            except RuntimeError as exc:
                print(
                    f"| {f.name[:48]} | {fmt} | {f.stat().st_size / 1e6:.2f} | failed: {str(exc)[-80:]} | | | |"
                )
                continue
            print(
                f"| {f.name[:48]} | {fmt} | {f.stat().st_size / 1e6:.2f} | {t_scout * 1e3:.1f} | {t_ours * 1e3:.1f} | "
                f"{t_ours / t_scout:.2f}x | {n_scout} / {n_ours} |"
            )
    finally:
        peer.close()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--peers-python", default=str(ROOT / ".venv-peers" / "bin" / "python"))
    ap.add_argument("--store", type=Path, default=ROOT / "build" / "simulated.store")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument(
        "--work", type=Path, default=ROOT / "build" / "bench-peers", help="where the big log goes"
    )
    ap.add_argument("--scout-python", default=str(ROOT / ".venv-atif-check" / "bin" / "python"))
    ap.add_argument("--skip-inspect", action="store_true")
    ap.add_argument("--skip-scout", action="store_true")
    ap.add_argument("--skip-store", action="store_true")
    args = ap.parse_args()
    args.work.mkdir(parents=True, exist_ok=True)
    peer: Peer | None = None
    why_inspect = why_store = None
    if not Path(args.peers_python).exists():
        why_inspect = why_store = f"no peers' virtualenv at {args.peers_python} (see the docstring)"
    else:
        peer = Peer(args.peers_python)
        why_inspect = peer.missing("inspect_ai.analysis", "inspect_ai.log")
        why_store = peer.missing("duckdb", "pandas", "pyarrow")
    try:
        if not args.skip_inspect:
            inspect_part(peer, why_inspect, args.rounds, args.work)
        if not args.skip_scout:
            scout_part(args.scout_python, args.rounds)
        if not args.skip_store:
            store_part(peer, why_store, args.store, args.rounds, args.peers_python)
    finally:
        if peer is not None:
            peer.close()


if __name__ == "__main__":
    main()

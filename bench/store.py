"""The analysis store against today's re-ingest and replay, and an incremental rebuild against a full build.

    python bench/store.py [--data build/simulated] [--jobs 2]
    python bench/store.py --data build/simulated --only-throughput [--sample 100]
    python bench/store.py --memory build/simulated.store

Part 1, the notebooks' data loading. Baseline (each notebook before the store): ``rtlab.ingest`` of the
dataset, then the frames the notebook computed from replays: 02 the rule labels of the DCI runs
(``diagnose_frame`` of their replays), 03 their values (``values_frame``), 05 the scores and the DCI labels,
06 the scores and ``tab_stats_frame`` of every replay; the other notebooks ingest only. Store: ``open_dataset``
(which opens ``<data>.store``), its trajectories read back from the records table (notebooks 02 and 06 read
none: they pick their runs from the summary table), and the same frames read from the store. Each step is timed once, in this process, and a notebook's time is the sum of its steps (every
notebook opens the dataset in its own kernel, so the opening counts nine times).

Part 2, rebuilds, on a copy of the dataset in a temporary folder: a full ``build_store`` with ``--jobs``
workers, a rebuild with nothing changed, and a rebuild after one run's session changed (a line appended):
ratio = incremental / full, the goal under 5%.

Throughput (``--only-throughput``): full builds of the dataset with 1 and 2 workers (runs/s), then the per-run
cost broken down over a sample of runs in one process (read, replay, the tables, values, diagnose, Arrow, the
Parquet write), the frames checked equal to ``unit_frames``'.

Memory (``--memory STORE``): the peak memory (VmHWM) and time of a cold ``rtlab.open(S).sql(q)`` in a new process
on synthetic stores of 1,000, 10,000 and 100,000 runs made from a built store (parts as a real build makes them,
hard links to its files), in the manifest layouts of version 2 (one file) and 3 (the index file).
"""

from __future__ import annotations

import argparse
import shutil
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from rtlab.analysis import (  # noqa: E402
    BASELINE,
    diagnose_frame,
    main_mask,
    main_runs,
    scores_frame,
    tab_stats_frame,
    values_frame,
)
from rtlab.environment import replay  # noqa: E402
from rtlab.figures import open_dataset  # noqa: E402
from rtlab.ingest import ingest  # noqa: E402
from rtlab.store import build_store, is_store  # noqa: E402


def timed(fn):
    start = time.perf_counter()
    value = fn()
    return value, time.perf_counter() - start


def part1(data: Path) -> None:
    print(f"Part 1: the notebooks' data loading on {data} (seconds; each step timed once)")
    trajectories, t_ingest = timed(lambda: ingest([data]).trajectories)
    dci = main_runs(trajectories, BASELINE)
    judged = main_runs(trajectories, BASELINE, judged=True)
    _, t_labels = timed(lambda: diagnose_frame(dci, [replay(t) for t in dci]))
    _, t_values = timed(lambda: values_frame(dci, [replay(t) for t in dci]))
    _, t_scores = timed(lambda: scores_frame(trajectories))
    _, t_labels05 = timed(lambda: diagnose_frame(judged, [replay(t) for t in judged]))
    _, t_stats = timed(lambda: tab_stats_frame([replay(t) for t in trajectories]))
    before = {
        "01": t_ingest,
        "02": t_ingest + t_labels,
        "03": t_ingest + t_values,
        "04": t_ingest,
        "05": t_ingest + t_scores + t_labels05,
        "06": t_ingest + t_scores + t_stats,
        "07": t_ingest,
        "08": t_ingest,
        "09": t_ingest,
    }
    ds, s_open = timed(lambda: open_dataset(data, simulated=True))
    _, s_runs = timed(lambda: ds.runs)
    _, s_traj = timed(lambda: ds.trajectories)
    sdci = ds.runs[main_mask(ds.runs, BASELINE)]["id"]
    sjudged = main_runs(ds.trajectories, BASELINE, judged=True)
    _, s_labels = timed(lambda: ds.labels(sdci))
    _, s_values = timed(lambda: ds.values(sdci))
    _, s_scores = timed(ds.scores)
    _, s_labels05 = timed(lambda: ds.labels(sjudged))
    _, s_stats = timed(ds.tab_stats)
    s_all = s_open + s_traj  # a notebook that uses the trajectories themselves decodes them all
    after = {
        "01": s_all,
        "02": s_open + s_runs + s_labels,  # 02 and 06 decode no trajectory
        "03": s_all + s_values,
        "04": s_all,
        "05": s_all + s_scores + s_labels05,
        "06": s_open + s_scores + s_stats,
        "07": s_all,
        "08": s_all,
        "09": s_all,
    }
    s_open = s_all
    print(
        f"{len(trajectories)} trajectories; ingest {t_ingest:.2f}; store: open {s_open - s_traj:.2f}, "
        f"the trajectories decoded from it {s_traj:.2f}, its summary table {s_runs:.2f}"
    )
    print("notebook  re-ingest+replay  store  store/baseline")
    for nb in before:
        print(f"{nb:>8}  {before[nb]:16.2f}  {after[nb]:5.2f}  {after[nb] / before[nb]:14.3f}")
    total_b, total_a = sum(before.values()), sum(after.values())
    print(f"{'all':>8}  {total_b:16.2f}  {total_a:5.2f}  {total_a / total_b:14.3f}")


def part2(data: Path, jobs: int) -> None:
    print(f"\nPart 2: rebuilds of a copy of {data} with {jobs} workers (seconds)")
    with tempfile.TemporaryDirectory(prefix="rtlab-bench-store-") as tmp:
        runs = Path(tmp) / "runs"
        shutil.copytree(data, runs, symlinks=True)
        out = Path(tmp) / "store"
        full, t_full = timed(lambda: build_store([runs], out, jobs=jobs))
        same, t_same = timed(lambda: build_store([runs], out, jobs=jobs))
        unit = Path(sorted(full.added)[len(full.added) // 2])
        target = unit if unit.is_file() else sorted(p for p in unit.rglob("*") if p.is_file())[0]
        with open(target, "a", encoding="utf-8") as fh:
            fh.write("\n")
        one, t_one = timed(lambda: build_store([runs], out, jobs=jobs))
        assert one.processed == 1 and same.processed == 0, (one.format(), same.format())
        print(
            f"full build          {t_full:7.2f}  ({len(full.added)} runs, {len(full.added) / t_full:.1f} runs/s)"
        )
        print(f"nothing changed     {t_same:7.2f}  {t_same / t_full:.2%} of the full build")
        print(f"one run changed     {t_one:7.2f}  {t_one / t_full:.2%} of the full build (goal < 5%)")


def throughput(data: Path, sample: int) -> None:
    """Full builds of ``data`` with 1 and 2 workers (runs/s), then the per-run cost broken down in one process
    over ``sample`` runs: each part of :func:`rtlab.store.build_unit` timed as it runs (the frames compared
    with :func:`rtlab.store.unit_frames`' own), the Parquet write of their rows at the end."""
    import io
    import json
    import random
    from collections import defaultdict

    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    from rtlab.analysis import (
        diagnosis_rows,
        labels_frame,
        summary_frame,
        value_rows,
        values_of,
        values_table,
    )
    from rtlab.environment import tables
    from rtlab.ingest import iter_units, read_unit
    from rtlab.records import trajectory_to_dict
    from rtlab.store import TABLES, unit_frames
    from rtlab.store._schema import to_arrow

    print(f"\nBuild throughput: full builds of {data}")
    for jobs in (1, 2):
        with tempfile.TemporaryDirectory(prefix="rtlab-bench-store-") as tmp:
            built, took = timed(lambda jobs=jobs: build_store([data], Path(tmp) / "store", jobs=jobs))
            n = len(built.added)
            print(
                f"  {jobs} worker{'s' if jobs > 1 else ''}: {n} runs in {took:.1f} s, {n / took:.2f} runs/s"
            )
    units = list(iter_units([data]))
    random.Random(0).shuffle(units)
    units = units[:sample]
    spent: dict[str, float] = defaultdict(float)

    def tick(part: str, start: float) -> float:
        now = time.perf_counter()
        spent[part] += now - start
        return now

    rows = []
    for unit, fmt in units:
        t = time.perf_counter()
        trajectories = read_unit(unit, fmt, detected=True)
        t = tick("read", t)
        replays = [replay(x) for x in trajectories]
        for r in replays:
            r.tab.candidates_ranked()
        t = tick("replay", t)
        frames = dict(tables(replays))
        frames["trajectories"] = summary_frame(trajectories)
        frames["records"] = pd.DataFrame(
            {
                "trajectory": [x.id for x in trajectories],
                "record": [json.dumps(trajectory_to_dict(x), ensure_ascii=False) for x in trajectories],
            }
        )
        frames["tab_stats"] = tab_stats_frame(replays)
        frames["scores"] = scores_frame(trajectories)
        t = tick("tables (replay, summary, records, tab stats, scores)", t)
        frames["values"] = values_table([row for r in replays for row in value_rows(r)])
        t = tick("values", t)
        of = values_of(frames["values"])
        labels = labels_frame([row for r in replays for row in diagnosis_rows(r, of(r.trajectory.id))])
        labels.insert(labels.columns.get_loc("category"), "annotator", "rules")
        frames["labels"] = labels
        t = tick("diagnose", t)
        rows.append({name: to_arrow(name, frames[name], "0" * 16) for name in TABLES})
        t = tick("to Arrow", t)
        same = unit_frames(replays)
        for name in TABLES:
            pd.testing.assert_frame_equal(frames[name], same[name])
    t = time.perf_counter()
    for name in TABLES:
        pq.write_table(
            pa.concat_tables([r[name] for r in rows]),
            io.BytesIO(),
            compression="zstd",
            row_group_size=64_000,
            write_page_checksum=True,
        )
    tick("write (Parquet, zstd)", t)
    total = sum(spent.values())
    print(f"  per run, in one process over {len(units)} runs ({len(units) / total:.2f} runs/s of work):")
    for part, seconds in sorted(spent.items(), key=lambda kv: -kv[1]):
        print(f"    {part:55s} {seconds / len(units) * 1000:7.1f} ms  {seconds / total:6.1%}")


def synthetic_store(src: Path, out: Path, n_runs: int, *, layout: int) -> None:
    """A store of ``n_runs`` synthetic runs made from the built store ``src``: parts as a real build of that
    many runs makes them (one per shard per checkpoint of :data:`~rtlab.store._build.CHECKPOINT_RUNS` runs),
    each a hard link to one of ``src``'s parts' files (so their sizes and sha256 are right), the runs spread over
    them, three input files a run in ``files_seen``; the manifest written in ``layout`` 3 (the index file) or 2
    (one file, as before version 3)."""
    import hashlib
    import json
    import math
    import os

    from rtlab.store import read_manifest
    from rtlab.store._build import CHECKPOINT_RUNS, _write_manifest

    whole = read_manifest(src)
    assert whole is not None
    templates = sorted(whole["parts"].items())
    n_parts = whole["options"]["shards"] * math.ceil(n_runs / CHECKPOINT_RUNS)
    parts: dict[str, dict] = {}
    for i in range(n_parts):
        template, entry = templates[i % len(templates)]
        shard, name = template.split("/")
        part = f"{shard}/part-synthetic-{i:06d}"
        for table in entry["tables"]:
            target = out / table / shard / f"part-synthetic-{i:06d}.parquet"
            target.parent.mkdir(parents=True, exist_ok=True)
            os.link(src / table / shard / f"{name}.parquet", target)
        parts[part] = {"runs": [], "tables": entry["tables"], "checksums": entry["checksums"]}
    names = sorted(parts)
    runs: dict[str, dict] = {}
    seen: dict[str, list] = {}
    for i in range(n_runs):
        unit = f"/synthetic/runs/run-{i:06d}"
        part = names[i % len(names)]
        parts[part]["runs"].append(unit)
        digest = hashlib.sha256(unit.encode()).hexdigest()
        runs[unit] = {
            "hash": digest[:16],
            "format": "pi",
            "shard": int(part.split("/")[0].split("=")[1]),
            "extra_inputs": [],
            "part": part,
            "trajectories": [f"pi:synthetic-{i:06d}"],
        }
        for f in ("session.jsonl", "run.json", "output/answer.md"):
            seen[f"{unit}/{f}"] = [digest, 1000 + i, 1_700_000_000_000_000_000 + i]
    manifest = {
        **{k: v for k, v in whole.items() if k not in ("runs", "parts", "files_seen", "order", "skipped")},
        "runs": runs,
        "parts": parts,
        "skipped": {},
        "files_seen": seen,
        "order": list(runs),
    }
    if layout == 3:
        _write_manifest(out, manifest)
    else:
        from rtlab.store._verify import manifest_files

        manifest["files"] = manifest_files(manifest)
        manifest["version"] = 2
        (out / "_manifest.json").write_text(json.dumps(manifest, separators=(",", ":")))


def memory(src: Path, counts: list[int]) -> None:
    """Peak memory (the process's own VmHWM) and time of a cold ``rtlab.open(S).sql(q)`` in a new process, on
    synthetic stores of ``counts`` runs in the version-2 layout (one manifest file) and version 3 (the index)."""
    import subprocess

    sys.path.insert(0, str(ROOT / "tests"))
    from peak_rss import PEAK_RSS

    code = (
        PEAK_RSS
        + "import time, rtlab\nstart = time.perf_counter()\n"
        + "n = rtlab.open(sys.argv[1]).sql('SELECT count(*) AS n FROM trajectories')['n'][0]\n"
        + "print(time.perf_counter() - start, peak_kb(), n)\n"
    )
    base = subprocess.run(
        [
            sys.executable,
            "-c",
            PEAK_RSS + "import rtlab, rtlab.store, duckdb, pyarrow, pandas\nprint(peak_kb())",
        ],
        capture_output=True,
        text=True,
        check=True,
    )
    print(f"\nA cold query's memory on synthetic stores made from {src} (parts as a real build makes them)")
    print(f"  the process with rtlab, DuckDB, pyarrow and pandas imported: {int(base.stdout) / 1024:.0f} MB")
    print("  runs     parts  layout  manifest MB  index MB  open + query s  peak MB")
    for n in counts:
        for layout in (2, 3):
            with tempfile.TemporaryDirectory(prefix="rtlab-bench-memory-") as tmp:
                out = Path(tmp) / "store"
                synthetic_store(src, out, n, layout=layout)
                got = subprocess.run([sys.executable, "-c", code, str(out)], capture_output=True, text=True)
                if got.returncode:
                    print(f"  {n}: layout {layout} failed: {got.stderr.strip()[-500:]}")
                    continue
                took, peak, _ = got.stdout.split()
                index = sum(p.stat().st_size for p in out.glob("_index-*.json"))
                n_parts = len(list((out / "trajectories").rglob("*.parquet")))
                print(
                    f"  {n:7d}  {n_parts:5d}  {layout:6d}  {(out / '_manifest.json').stat().st_size / 1e6:11.2f}  "
                    f"{index / 1e6:8.2f}  {float(took):13.2f}  {int(peak) / 1024:7.0f}"
                )


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(ROOT / "build" / "simulated"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-part2", action="store_true")
    parser.add_argument("--only-throughput", action="store_true", help="only the build throughput section")
    parser.add_argument("--sample", type=int, default=100, help="runs the per-run breakdown times")
    parser.add_argument(
        "--memory", metavar="STORE", help="only the memory section, on synthetic stores made from STORE"
    )
    args = parser.parse_args()
    if args.memory:
        memory(Path(args.memory), [1_000, 10_000, 100_000])
        return 0
    data = Path(args.data)
    if not data.exists():
        print(f"no dataset at {data} (make synth)")
        return 0
    if args.only_throughput:
        throughput(data, args.sample)
        return 0
    if not is_store(data.with_name(data.name + ".store")):
        print(f"building {data}.store first (make store)")
        build_store([data], data.with_name(data.name + ".store"), jobs=args.jobs)
    part1(data)
    if not args.skip_part2:
        part2(data, args.jobs)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

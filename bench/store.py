"""The analysis store against today's re-ingest and replay, and an incremental rebuild against a full build.

    python bench/store.py [--data build/simulated] [--jobs 2]

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


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--data", default=str(ROOT / "build" / "simulated"))
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--skip-part2", action="store_true")
    args = parser.parse_args()
    data = Path(args.data)
    if not data.exists():
        print(f"no dataset at {data} (make synth)")
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

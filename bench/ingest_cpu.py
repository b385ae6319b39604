"""Ingest in CPU time per format, against a bare ``orjson.loads`` of the same bytes, and before/after a change.

    python bench/ingest_cpu.py [PATH ...]                       this checkout: orjson ms, read ms, ratio
    python bench/ingest_cpu.py --before DIR [--rounds 3] [PATH ...]
                                                                DIR (the code before, e.g. ``git archive``
                                                                unpacked) and this checkout, alternated

CPU time (``time.process_time``) is less disturbed than the wall clock on a machine shared with other jobs.
Each unit's time is the best of ``--repeat`` runs of ``read_unit`` without the benchmark join; the baseline is
``bench/ingest.py``'s ``orjson`` parse of the unit's files (``raw_files``, ``parse_bare``), bytes read
beforehand. The ``floor`` is the least any reader must do for the unit: ``stat``, open and read each of those
files as bytes, then the same ``orjson`` parse; ``after/floor`` beside ``after/orjson`` tells the part of the
distance to the goal that is the files' I/O, which no reader avoids, from rtlab's own work. Detection
(``detect``: every sniffer tried on the unit until one claims it, which ``ingest`` does before reading) is
timed apart, in a second table: ``read_unit`` is given the format. With ``--before``, each round measures both checkouts in fresh processes, one after the other,
and each format's time is the minimum over the rounds. Default paths: ``data/sample`` and ``../shared/real``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from collections import defaultdict
from collections.abc import Callable
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent


def _cpu(fn: Callable[[], object], repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    return best


def _floor(files: list[str], parse: Callable[[list[tuple[str, bytes]]], object]) -> None:
    """The least any reader does for a unit: stat, open and read each of its files as bytes, and parse them."""
    blobs = []
    for name in files:
        os.stat(name)
        with open(name, "rb") as fh:
            blobs.append((os.path.splitext(name)[1], fh.read()))
    parse(blobs)


def measure(tree: Path, paths: list[Path], repeat: int) -> dict[str, dict[str, float]]:
    """Per format: units, the orjson baseline, the floor (the files' I/O and the orjson parse) and rtlab's read,
    in CPU seconds, with ``tree``'s rtlab (this process must not have imported another)."""
    sys.path.insert(0, str(tree / "bench"))
    import ingest  # the checkout's own bench module; it puts its checkout first on sys.path

    import rtlab

    if not Path(rtlab.__file__).resolve().is_relative_to(tree.resolve()):
        raise SystemExit(f"rtlab imported from {rtlab.__file__}, not from {tree}")
    from rtlab.ingest import detect, iter_units, read_unit

    def bare(blobs: list[tuple[str, bytes]]) -> None:
        ingest.parse_bare(blobs, parser="orjson")

    per: dict[str, dict[str, float]] = defaultdict(
        lambda: {"units": 0, "orjson": 0.0, "floor": 0.0, "read": 0.0, "detect": 0.0}
    )
    for unit, fmt in iter_units(paths):
        files = [str(p) for p in ingest.raw_files(unit)]
        blobs = [(os.path.splitext(p)[1], Path(p).read_bytes()) for p in files]
        row = per[fmt]
        row["units"] += 1
        row["orjson"] += _cpu(lambda b=blobs: bare(b), repeat)
        row["floor"] += _cpu(lambda f=files: _floor(f, bare), repeat)
        row["read"] += _cpu(lambda u=unit, f=fmt: read_unit(u, f, join=False), repeat)
        row["detect"] += _cpu(lambda u=unit: detect(u), repeat)
    return dict(per)


def _in_process(tree: Path, paths: list[Path], repeat: int) -> dict[str, dict[str, float]]:
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "m.json"
        cmd = [sys.executable, __file__, "--measure", str(tree), "--out", str(out), "--repeat", str(repeat)]
        subprocess.run([*cmd, *map(str, paths)], check=True)
        return json.loads(out.read_text())


_TIMES = ("orjson", "floor", "read", "detect")


def _totals(per: dict[str, dict[str, float]]) -> dict[str, dict[str, float]]:
    rows = dict(sorted(per.items()))
    rows["all"] = {k: sum(r[k] for r in per.values()) for k in ("units", *_TIMES)}
    return rows


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--before", type=Path, help="a checkout of the code before, measured alternately")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--measure", type=Path, help=argparse.SUPPRESS)
    ap.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = ap.parse_args()
    paths = [Path(p).resolve() for p in args.paths] or [
        HERE / "data" / "sample",
        HERE.parent / "shared" / "real",
    ]
    paths = [p for p in paths if p.exists()]
    if args.measure is not None:
        args.out.write_text(json.dumps(measure(args.measure, paths, args.repeat)))
        return 0
    if args.before is None:
        rows = _totals(_in_process(HERE, paths, args.repeat))
        print(f"CPU time, best of {args.repeat} per unit; ratio = read / orjson, read / floor")
        for fmt, r in rows.items():
            print(
                f"{fmt:<20} orjson {r['orjson'] * 1e3:8.1f}  floor {r['floor'] * 1e3:8.1f}  "
                f"read {r['read'] * 1e3:8.1f}  ratio {r['read'] / r['orjson']:6.2f}  "
                f"/floor {r['read'] / r['floor']:6.2f}  detect {r['detect'] * 1e3:8.1f}"
            )
        return 0
    best: dict[str, dict[str, dict[str, float]]] = {"before": {}, "after": {}}
    for _ in range(args.rounds):
        for side, tree in (("before", args.before.resolve()), ("after", HERE)):
            for fmt, r in _in_process(tree, paths, args.repeat).items():
                kept = best[side].setdefault(fmt, dict(r))
                for k in _TIMES:
                    kept[k] = min(kept[k], r[k])
    before, after = _totals(best["before"]), _totals(best["after"])
    print(
        f"CPU time, best of {args.repeat} per unit, the minimum over {args.rounds} rounds alternating "
        f"{args.before} and {HERE}"
    )
    print(
        f"{'format':<20}{'units':>6}{'orjson ms':>10}{'floor ms':>9}{'before ms':>10}{'after ms':>10}"
        f"{'after/before':>13}{'before/orjson':>14}{'after/orjson':>13}{'after/floor':>12}"
    )
    for fmt, a in after.items():
        b = before[fmt]
        base = min(a["orjson"], b["orjson"])
        floor = min(a["floor"], b["floor"])
        print(
            f"{fmt:<20}{int(a['units']):>6}{base * 1e3:>10.1f}{floor * 1e3:>9.1f}{b['read'] * 1e3:>10.1f}"
            f"{a['read'] * 1e3:>10.1f}{a['read'] / b['read']:>13.2f}{b['read'] / base:>14.2f}"
            f"{a['read'] / base:>13.2f}{a['read'] / floor:>12.2f}"
        )
    print(f"\ndetection (detect of each unit), CPU, as above\n{'format':<20}{'units':>6}{'before ms':>10}{'after ms':>10}"
          f"{'after/before':>13}")  # fmt: skip
    for fmt, a in after.items():
        b = before[fmt]
        print(
            f"{fmt:<20}{int(a['units']):>6}{b['detect'] * 1e3:>10.1f}{a['detect'] * 1e3:>10.1f}"
            f"{a['detect'] / b['detect']:>13.2f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

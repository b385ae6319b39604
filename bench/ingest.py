"""Ingest speed: trajectories per second per format, against a bare ``json.loads`` of the same bytes.

    python bench/ingest.py [PATH ...]        (default: data/sample and ../shared/real when present)

For every unit (run folder or log file) the baseline parses each of its JSON / JSONL files with ``json.loads``
and nothing else, the floor for any reader. rtlab's time is ``read_unit`` (reader only; benchmark join shown
separately). Best of ``--repeat`` runs each; ratio = rtlab time / baseline time (1.0 would be free parsing).
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _timing import best  # noqa: E402

from rtlab.ingest import iter_units, read_unit  # noqa: E402


def raw_files(unit: Path) -> list[Path]:
    files = [unit] if unit.is_file() else sorted(p for p in unit.rglob("*") if p.is_file())
    return [p for p in files if p.suffix in (".json", ".jsonl")]


def parse_bare(blobs: list[tuple[str, bytes]]) -> None:
    for suffix, data in blobs:
        if suffix == ".jsonl":
            for line in data.split(b"\n"):
                if line.strip():
                    json.loads(line)
        else:
            json.loads(data)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    paths = [Path(p) for p in args.paths] or [ROOT / "data" / "sample", ROOT.parent / "shared" / "real"]
    paths = [p for p in paths if p.exists()]

    per = defaultdict(lambda: {"units": 0, "traj": 0, "bytes": 0, "bare": 0.0, "read": 0.0, "join": 0.0})
    for unit, fmt in iter_units(paths):
        files = raw_files(unit)
        blobs = [(p.suffix, p.read_bytes()) for p in files]  # bytes are read once, outside both timings
        row = per[fmt]
        row["units"] += 1
        row["bytes"] += sum(len(b) for _, b in blobs)
        row["bare"] += best(lambda b=blobs: parse_bare(b), args.repeat)
        row["read"] += best(lambda u=unit, f=fmt: read_unit(u, f, join=False), args.repeat)
        row["join"] += best(lambda u=unit, f=fmt: read_unit(u, f, join=True), args.repeat)
        row["traj"] += len(read_unit(unit, fmt, join=False))

    print(f"rtlab ingest benchmark (best of {args.repeat}); baseline = bare json.loads of the same files")
    print(
        f"{'format':<18}{'units':>6}{'traj':>6}{'MB':>8}{'traj/s read':>13}{'MB/s read':>11}"
        f"{'bare ms':>10}{'read ms':>10}{'read/bare':>11}{'+join ms':>10}"
    )
    tot = defaultdict(float)
    for fmt, r in sorted(per.items()):
        mb = r["bytes"] / 1e6
        print(
            f"{fmt:<18}{r['units']:>6}{r['traj']:>6}{mb:>8.2f}{r['traj'] / r['read']:>13.1f}{mb / r['read']:>11.1f}"
            f"{r['bare'] * 1e3:>10.1f}{r['read'] * 1e3:>10.1f}{r['read'] / r['bare']:>11.2f}{r['join'] * 1e3:>10.1f}"
        )
        for k in ("units", "traj", "bytes", "bare", "read", "join"):
            tot[k] += r[k]
    if tot["read"]:
        print(
            f"{'all':<18}{int(tot['units']):>6}{int(tot['traj']):>6}{tot['bytes'] / 1e6:>8.2f}"
            f"{tot['traj'] / tot['read']:>13.1f}{tot['bytes'] / 1e6 / tot['read']:>11.1f}{tot['bare'] * 1e3:>10.1f}"
            f"{tot['read'] * 1e3:>10.1f}{tot['read'] / tot['bare']:>11.2f}{tot['join'] * 1e3:>10.1f}"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

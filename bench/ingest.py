"""Ingest speed: trajectories per second per format, against a bare ``json.loads`` of the same bytes.

    python bench/ingest.py [PATH ...]        (default: data/sample and ../shared/real when present)

For every unit (run folder or log file) the baseline parses each of its JSON files (JSON, JSON lines or records
one after another, whatever the name; zip members decompressed by the bare codec) with ``json.loads`` and
nothing else, the floor for any reader. rtlab's time is ``read_unit`` (reader only; benchmark join shown
separately). Best of ``--repeat`` runs each; ratio = rtlab time / baseline time (1.0 would be free parsing).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from _timing import best  # noqa: E402

from rtlab.ingest import iter_units, read_unit  # noqa: E402


def raw_files(unit: Path) -> list[Path]:
    """The unit's files that hold JSON: by content, as the readers detect them (a stream saved as ``.md`` counts,
    a deliverable ``.md`` does not), and zip archives (Inspect ``.eval``); a unit that is one file is a log
    whatever it holds (an Aider history is Markdown)."""
    if unit.is_file():
        return [unit]
    files = sorted(p for p in unit.rglob("*") if p.is_file())
    kept = []
    for p in files:
        with open(p, "rb") as fh:
            head = fh.read(64).lstrip(b"\xef\xbb\xbf \t\r\n")
        if p.suffix in (".json", ".jsonl") or head[:1] in (b"{", b"[") or head.startswith(b"PK\x03\x04"):
            kept.append(p)
    return kept


def _zip_members(data: bytes) -> list[bytes]:
    """Every member of a zip, decompressed with the bare codec (stored, deflate, zstd), nothing else."""
    import struct
    import zipfile
    import zlib

    import zstandard

    out = []
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        for info in zf.infolist():
            if info.is_dir():
                continue
            name_len, extra_len = struct.unpack(
                "<HH", data[info.header_offset + 26 : info.header_offset + 30]
            )
            start = info.header_offset + 30 + name_len + extra_len
            raw = data[start : start + info.compress_size]
            if info.compress_type == zipfile.ZIP_STORED:
                out.append(raw)
            elif info.compress_type == zipfile.ZIP_DEFLATED:
                out.append(zlib.decompress(raw, -15))
            else:  # 93: zstd
                out.append(zstandard.ZstdDecompressor().decompressobj().decompress(raw))
    return out


def _parse_text(data: bytes) -> None:
    text = data.decode("utf-8-sig")
    if text.lstrip()[:1] not in ("{", "["):  # a text log (an Aider history): the floor is splitting its lines
        text.splitlines()
        return
    try:
        json.loads(text)
        return
    except json.JSONDecodeError:
        pass
    decoder = json.JSONDecoder()
    i, n = 0, len(text)
    while i < n:  # JSON lines, or records one after another
        while i < n and text[i] in " \t\r\n":
            i += 1
        if i < n:
            try:
                _, i = decoder.raw_decode(text, i)
            except (
                json.JSONDecodeError
            ):  # text that only starts like JSON (a "[INFO]" log): no reader's either
                return


def parse_bare(blobs: list[tuple[str, bytes]]) -> None:
    for _suffix, data in blobs:
        if data.startswith(b"PK\x03\x04"):
            for member in _zip_members(data):
                if member.lstrip()[:1] in (b"{", b"["):
                    json.loads(member)
        elif data.strip():
            _parse_text(data)


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

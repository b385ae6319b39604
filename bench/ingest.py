"""Ingest speed: trajectories per second per format, against a bare ``json.loads`` and a bare ``orjson.loads`` of
the same bytes.

    python bench/ingest.py [PATH ...]        (default: data/sample and ../shared/real when present)

For every unit (run folder or log file) the baselines parse each of its JSON files (JSON, JSON lines or records
one after another, whatever the name; zip members decompressed by the bare codec, inside the timing) with
``json.loads`` (``bare``) or ``orjson.loads`` (``orjson``) and nothing else, the floor for any reader. orjson has
no ``raw_decode``: a file that is not one document is parsed line by line, and from the first line that is not a
whole value (records pretty-printed one after another) on by ``json``'s ``raw_decode``, as rtlab reads it. rtlab's
time is ``read_unit`` (reader only; benchmark join shown separately). Best of ``--repeat`` runs each; ratio =
rtlab time / baseline time (1.0 would be free parsing). The goal (issue 29): ``read/orjson`` at or under 3.
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from collections import defaultdict
from pathlib import Path
from typing import Literal

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

import orjson  # noqa: E402
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


def _raw_decode_from(text: str, i: int) -> None:
    decoder = json.JSONDecoder()
    n = len(text)
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
    _raw_decode_from(text, 0)


def _parse_text_orjson(data: bytes) -> None:
    data = data.removeprefix(b"\xef\xbb\xbf")
    if data.lstrip()[:1] not in (b"{", b"["):
        data.decode("utf-8").splitlines()
        return
    try:
        orjson.loads(data)
        return
    except orjson.JSONDecodeError:
        pass
    offset = 0
    for line in data.split(b"\n"):
        if line.strip():
            try:
                orjson.loads(line)
            except orjson.JSONDecodeError:  # not one value a line: json's raw_decode from here on
                _raw_decode_from(
                    data.decode("utf-8", "replace"), len(data[:offset].decode("utf-8", "replace"))
                )
                return
        offset += len(line) + 1


def parse_bare(blobs: list[tuple[str, bytes]], *, parser: Literal["json", "orjson"] = "json") -> None:
    whole = json.loads if parser == "json" else orjson.loads
    text = _parse_text if parser == "json" else _parse_text_orjson
    for _suffix, data in blobs:
        if data.startswith(b"PK\x03\x04"):
            for member in _zip_members(data):
                if member.lstrip()[:1] in (b"{", b"["):
                    whole(member)
        elif data.strip():
            text(data)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("paths", nargs="*")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()
    paths = [Path(p) for p in args.paths] or [ROOT / "data" / "sample", ROOT.parent / "shared" / "real"]
    paths = [p for p in paths if p.exists()]

    per = defaultdict(
        lambda: {"units": 0, "traj": 0, "bytes": 0, "bare": 0.0, "orjson": 0.0, "read": 0.0, "join": 0.0}
    )
    for unit, fmt in iter_units(paths):
        files = raw_files(unit)
        blobs = [(p.suffix, p.read_bytes()) for p in files]  # bytes are read once, outside both timings
        row = per[fmt]
        row["units"] += 1
        row["bytes"] += sum(len(b) for _, b in blobs)
        row["bare"] += best(lambda b=blobs: parse_bare(b), args.repeat)
        row["orjson"] += best(lambda b=blobs: parse_bare(b, parser="orjson"), args.repeat)
        row["read"] += best(lambda u=unit, f=fmt: read_unit(u, f, join=False), args.repeat)
        row["join"] += best(lambda u=unit, f=fmt: read_unit(u, f, join=True), args.repeat)
        row["traj"] += len(read_unit(unit, fmt, join=False))

    print(
        f"rtlab ingest benchmark (best of {args.repeat}); baselines = bare json.loads / orjson.loads of the same files"
    )
    print(
        f"{'format':<20}{'units':>6}{'traj':>6}{'MB':>7}{'traj/s':>9}{'MB/s':>7}"
        f"{'json ms':>9}{'orjson ms':>10}{'read ms':>9}{'/json':>7}{'/orjson':>9}{'+join ms':>9}"
    )
    tot: dict[str, float] = defaultdict(float)

    def line(name: str, r: dict[str, float]) -> str:
        mb = r["bytes"] / 1e6
        return (
            f"{name:<20}{int(r['units']):>6}{int(r['traj']):>6}{mb:>7.2f}{r['traj'] / r['read']:>9.1f}"
            f"{mb / r['read']:>7.1f}{r['bare'] * 1e3:>9.1f}{r['orjson'] * 1e3:>10.1f}{r['read'] * 1e3:>9.1f}"
            f"{r['read'] / r['bare']:>7.2f}{r['read'] / r['orjson']:>9.2f}{r['join'] * 1e3:>9.1f}"
        )

    for fmt, r in sorted(per.items()):
        print(line(fmt, r))
        for k in ("units", "traj", "bytes", "bare", "orjson", "read", "join"):
            tot[k] += r[k]
    if tot["read"]:
        print(line("all", tot))
    return 0


if __name__ == "__main__":
    sys.exit(main())

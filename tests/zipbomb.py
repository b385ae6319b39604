"""Zip bombs for the tests and the fuzzer, built small: a member of gigabytes of zeros is made of one deflate
piece (1 MiB of zeros, ended by a full flush so that it references nothing before it) repeated, or of one
zstd frame repeated, so that a bomb of 3 GiB costs 3 MB of file and no time; its CRC-32 is computed by
exponentiating the CRC's affine map over 1 MiB of zeros (no pass over the gigabytes).

``bomb_eval(path, kind=...)`` writes an Inspect ``.eval`` whose header is genuine and one of whose samples is
the bomb: ``honest`` (the directory declares the true size), ``lying`` (it declares 1,000 bytes),
``zip64`` (5 GiB, sizes in ZIP64 fields), ``zstd`` (method 93), ``overlap`` (David Fifield's non-recursive bomb:
every entry's data is the next entry's local header, quoted in a stored block, followed by the same kernel).
"""

from __future__ import annotations

import functools
import json
import struct
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path

MIB = 2**20
_ZEROS = bytes(MIB)


def _deflate_piece() -> tuple[bytes, bytes]:
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    piece = c.compress(_ZEROS) + c.flush(zlib.Z_FULL_FLUSH)
    return piece, c.flush()


def deflate_zeros(mib: int, *, final: bool = True) -> bytes:
    """A raw deflate stream of ``mib`` MiB of zeros (about 1 KB per MiB); ``final=False`` leaves it open
    (no final block), for a kernel that more data follows."""
    piece, tail = _deflate_piece()
    return piece * mib + (tail if final else b"")


def zstd_zeros(mib: int) -> bytes:
    """``mib`` zstd frames of 1 MiB of zeros each (a reader reading across frames sees ``mib`` MiB)."""
    import zstandard

    return zstandard.ZstdCompressor().compress(_ZEROS) * mib


def _affine(data: bytes) -> tuple[list[int], int]:
    """The CRC-32 over ``data`` as an affine map of the starting value: (columns of its matrix, its offset)."""
    b = zlib.crc32(data, 0)
    return [zlib.crc32(data, 1 << i) ^ b for i in range(32)], b


def _apply(cols: list[int], v: int) -> int:
    r, i = 0, 0
    while v:
        if v & 1:
            r ^= cols[i]
        v >>= 1
        i += 1
    return r


def crc_repeat(block: bytes, n: int, start: int = 0) -> int:
    """``zlib.crc32(block * n, start)`` without the pass over the bytes (the map raised to the ``n``-th power)."""
    cols, b = _affine(block)
    acc_cols, acc_b = [1 << i for i in range(32)], 0  # the identity
    while n:
        if n & 1:  # acc = f . acc
            acc_cols, acc_b = [_apply(cols, c) for c in acc_cols], _apply(cols, acc_b) ^ b
        cols, b = [_apply(cols, c) for c in cols], _apply(cols, b) ^ b  # f = f . f
        n >>= 1
    return _apply(acc_cols, start) ^ acc_b


def crc_of_zeros(mib: int, start: int = 0) -> int:
    """``zlib.crc32(bytes(mib * MiB), start)`` without the pass over the bytes."""
    return crc_repeat(_ZEROS, mib, start)


@dataclass
class Entry:
    """One member as written: its name, method, compressed bytes, and the size and CRC its headers declare."""

    name: str
    method: int
    data: bytes
    size: int
    crc: int


def plain(name: str, raw: bytes, method: int = 8) -> Entry:
    """An honest member (deflate or stored)."""
    if method == 8:
        c = zlib.compressobj(6, zlib.DEFLATED, -15)
        data = c.compress(raw) + c.flush()
    else:
        data = raw
    return Entry(name, method, data, len(raw), zlib.crc32(raw))


def _local(e: Entry) -> bytes:
    name = e.name.encode()
    zip64 = e.size >= 0xFFFFFFFF or len(e.data) >= 0xFFFFFFFF
    extra = struct.pack("<2H2Q", 1, 16, e.size, len(e.data)) if zip64 else b""
    sizes = (0xFFFFFFFF, 0xFFFFFFFF) if zip64 else (len(e.data), e.size)
    head = struct.pack(
        "<4s5H3L2H", b"PK\x03\x04", 45, 0x800, e.method, 0, 0, e.crc, *sizes, len(name), len(extra)
    )
    return head + name + extra


def _central(e: Entry, offset: int) -> bytes:
    name = e.name.encode()
    zip64 = e.size >= 0xFFFFFFFF or len(e.data) >= 0xFFFFFFFF
    extra = struct.pack("<2H2Q", 1, 16, e.size, len(e.data)) if zip64 else b""
    sizes = (0xFFFFFFFF, 0xFFFFFFFF) if zip64 else (len(e.data), e.size)
    head = struct.pack(
        "<4s6H3L5HLL", b"PK\x01\x02", 45, 45, 0x800, e.method, 0, 0, e.crc, *sizes, len(name), len(extra),
        0, 0, 0, 0, offset,
    )  # fmt: skip
    return head + name + extra


def _end(n: int, cd_start: int, cd_size: int) -> bytes:
    return struct.pack("<4s4H2LH", b"PK\x05\x06", 0, 0, n, n, cd_size, cd_start, 0)


def zip_bytes(entries: list[Entry]) -> bytes:
    """A ZIP archive of ``entries`` exactly as declared (sizes and CRCs as given, true or not)."""
    out = bytearray()
    central = bytearray()
    for e in entries:
        central += _central(e, len(out))
        out += _local(e) + e.data
    cd_start = len(out)
    out += central + _end(len(entries), cd_start, len(central))
    return bytes(out)


def write_zip(path: Path, entries: list[Entry]) -> Path:
    """:func:`zip_bytes` written to ``path``."""
    path.write_bytes(zip_bytes(entries))
    return path


def write_overlapping(path: Path, names: list[str], kernel_mib: int) -> Path:
    """Fifield's overlapping bomb: entry ``i``'s data is a stored block quoting entry ``i+1``'s local header,
    then entry ``i+1``'s data; the last entry's data is the kernel (``kernel_mib`` MiB of zeros). Every entry
    inflates to the kernel and more: ``len(names) * kernel_mib`` MiB from one kernel."""
    kernel = deflate_zeros(kernel_mib)
    entries: list[Entry] = []
    data, size, quoted = kernel, kernel_mib * MIB, b""
    for name in reversed(names):
        # the entry's uncompressed content: the quoted headers after it, then the kernel's zeros
        crc = crc_of_zeros(kernel_mib, zlib.crc32(quoted))
        e = Entry(name, 8, data, size, crc)
        entries.insert(0, e)
        header = _local(e)
        block = (
            struct.pack("<BHH", 0, len(header), len(header) ^ 0xFFFF) + header
        )  # a stored, non-final block
        data, size, quoted = block + data, size + len(header), header + quoted
    out = _local(entries[0]) + entries[0].data  # the first entry's data holds everything after its header
    central, offset = bytearray(), 0
    for e in entries:
        central += _central(e, offset)
        offset += len(_local(e)) + 5  # the next local header, quoted after a stored block's 5-byte header
    path.write_bytes(out + central + _end(len(entries), len(out), len(central)))
    return path


HEADER = {
    "version": 2,
    "status": "success",
    "eval": {
        "eval_id": "Bomb0001", "run_id": "Run0001", "created": "2025-01-01T00:00:00+00:00", "task": "bomb",
        "task_id": "Task0001", "dataset": {"name": "d", "samples": 2}, "model": "m/x", "config": {},
        "packages": {"inspect_ai": "0.3.251"},
    },
    "plan": {"name": "plan", "steps": []},
}  # fmt: skip


def sample(sample_id: str = "ok", text: str = "hello") -> bytes:
    """A small, genuine sample member."""
    return json.dumps(
        {
            "id": sample_id,
            "epoch": 1,
            "input": text,
            "target": "",
            "messages": [{"role": "user", "content": text}],
        }
    ).encode()


def bomb_entry(name: str, kind: str, gib: int = 3) -> Entry:
    """A member of ``gib`` GiB of zeros: ``honest``, ``lying`` (declares 1,000 bytes), ``zip64`` (5 GiB at
    least, ZIP64 sizes), ``zstd`` (method 93, honest)."""
    mib = gib * 1024
    if kind == "zip64":
        mib = max(mib, 5 * 1024)
    if kind == "zstd":
        return Entry(name, 93, zstd_zeros(mib), mib * MIB, crc_of_zeros(mib))
    declared = 1000 if kind == "lying" else mib * MIB
    return Entry(name, 8, deflate_zeros(mib), declared, crc_of_zeros(mib))


def json_sample_entry(sample_id: str, mib: int) -> Entry:
    """A *valid* sample member of ``mib`` MiB (and a few bytes): a genuine sample whose metadata holds a string
    of ``mib`` MiB of ``a`` (deflate: one full-flushed piece repeated, its CRC by :func:`crc_repeat`)."""
    head = json.loads(sample(sample_id))
    prefix = json.dumps(head)[:-1].encode() + b', "metadata": {"pad": "'
    suffix = b'"}}'
    block = b"a" * MIB
    c = zlib.compressobj(9, zlib.DEFLATED, -15)
    first = c.compress(prefix) + c.flush(zlib.Z_FULL_FLUSH)
    piece = c.compress(block) + c.flush(zlib.Z_FULL_FLUSH)
    last = c.compress(suffix) + c.flush()
    crc = zlib.crc32(suffix, crc_repeat(block, mib, zlib.crc32(prefix)))
    size = len(prefix) + mib * MIB + len(suffix)
    return Entry(f"samples/{sample_id}_epoch_1.json", 8, first + piece * mib + last, size, crc)


KINDS = ("honest", "lying", "zip64", "zstd", "overlap")
"""Every kind of bomb :func:`bomb_eval` makes."""


def bomb_eval(path: Path, kind: str = "honest", *, gib: int = 3, genuine: bool = True) -> Path:
    """An Inspect ``.eval`` with a genuine header, a genuine sample (unless not ``genuine``) and a bomb."""
    if kind == "overlap":
        names = [f"samples/b{i}_epoch_1.json" for i in range(16)]
        return write_overlapping(path, names, kernel_mib=256)
    entries = [plain("header.json", json.dumps(HEADER).encode())]
    if genuine:
        entries.append(plain("samples/ok_epoch_1.json", sample()))
    entries.append(bomb_entry("samples/bomb_epoch_1.json", kind, gib))
    return write_zip(path, entries)


@functools.lru_cache(maxsize=16)
def bomb_bytes(kind: str, genuine: bool = True) -> bytes:
    """The bytes of :func:`bomb_eval` (3 GiB bombs; remembered, for the fuzzer)."""
    with tempfile.TemporaryDirectory() as tmp:
        return bomb_eval(Path(tmp) / "bomb.eval", kind, genuine=genuine).read_bytes()

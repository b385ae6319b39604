"""ZIP archives read from their own central directory, members decompressed in memory, within stated limits.

Inspect AI 0.3.2xx writes its ``.eval`` logs with zstd-compressed members (ZIP method 93, by the
``zipfile_zstd`` patch or Python 3.14's zipfile), which Python 3.11's :mod:`zipfile` cannot decompress. Rather
than patch :mod:`zipfile` for the whole process, this module reads the end-of-central-directory record (ZIP64
too), the central directory and each member's local header itself (PKWARE APPNOTE.TXT sections 4.3 and 4.4)
and decompresses stored (0), deflated (8) and zstd (93) members; any other method, an encrypted member, a
member whose data lies outside the archive or a size or CRC-32 that does not match raises
:class:`~rtlab.errors.ReaderError` naming the archive and the member. Nothing is extracted to disk: member
names are only keys. A name that occurs twice resolves to its last entry, as :mod:`zipfile` and Inspect do.

Limits (a zip bomb: a small archive whose members inflate to gigabytes). A member is read from the file in
chunks and decompressed to at most :attr:`Limits.member` bytes (:data:`MAX_MEMBER_BYTES`, 256 MiB), and
the members read from one archive to at most :attr:`Limits.archive` bytes in all (:data:`MAX_ARCHIVE_BYTES`,
1 GiB); a member whose directory entry declares more is refused before any of it is decompressed, and one
whose data inflates past what its entry declares is refused as soon as it does (the declared size bounds the
output; it is checked, never trusted). Either refusal is a :class:`TooLargeError` (the archive's limit an
:class:`ArchiveTooLargeError`) naming the archive, the member and how to raise the limit (``RTLAB_MAX_MEMBER_BYTES`` / ``RTLAB_MAX_ARCHIVE_BYTES``, or
:class:`~rtlab.ingest.ReadOptions`). Members whose data overlap another's (the overlapping-file bomb, where
thousands of entries share one compressed kernel) are refused when the directory is read.
"""

from __future__ import annotations

import io
import itertools
import struct
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any, BinaryIO

from rtlab.errors import ReaderError, TooLargeError
from rtlab.io import byte_limit, describe_size

ZIP_MAGIC = b"PK\x03\x04"
"""How a ZIP file with at least one member begins (a local file header)."""

STORED, DEFLATED, ZSTD = 0, 8, 93
METHODS = {STORED: "stored", DEFLATED: "deflate", ZSTD: "zstd"}
"""The compression methods read, by their APPNOTE number."""
_KNOWN_OTHER = {1: "shrink", 6: "implode", 9: "deflate64", 12: "bzip2", 14: "lzma", 95: "xz", 98: "ppmd"}

_EOCD = b"PK\x05\x06"
_EOCD64 = b"PK\x06\x06"
_EOCD64_LOCATOR = b"PK\x06\x07"
_CENTRAL = b"PK\x01\x02"
_EOCD_SIZE = 22
_MAX_COMMENT = 0xFFFF
_LOCAL_SIZE = 30
_CENTRAL_SIZE = 46
_ZIP64_EXTRA = 0x0001
_CHUNK = 1 << 20
"""Bytes read from the file, and decompressed, at a time."""

MAX_MEMBER_BYTES = 256 * 2**20
"""The default for the most one member may decompress to (256 MiB: the largest Inspect samples seen in real
logs hold a few MB; parsing a member as JSON takes about three times its size in memory)."""
MAX_ARCHIVE_BYTES = 2**30
"""The default for the most the members read from one archive may decompress to in all (1 GiB)."""
MEMBER_ENV = "RTLAB_MAX_MEMBER_BYTES"
"""The environment variable that sets :attr:`Limits.member` (bytes; ``K``, ``M``, ``G`` suffixes: 2**10 ...)."""
ARCHIVE_ENV = "RTLAB_MAX_ARCHIVE_BYTES"
"""The environment variable that sets :attr:`Limits.archive`."""


class ArchiveTooLargeError(TooLargeError):
    """The archive's members past :attr:`Limits.archive` in all: the archive as a whole is too large to read
    within the limit (a reader fails it whole, where it may skip one member past :attr:`Limits.member`)."""


@dataclass(frozen=True)
class Limits:
    """What an archive's members may decompress to."""

    member: int = MAX_MEMBER_BYTES
    """Bytes one member may decompress to."""
    archive: int = MAX_ARCHIVE_BYTES
    """Bytes the members read from one archive may decompress to in all."""


def resolve_limits(member: int | None = None, archive: int | None = None) -> Limits:
    """The limits in force: the values given, else :data:`MEMBER_ENV` / :data:`ARCHIVE_ENV` from the
    environment, else :data:`MAX_MEMBER_BYTES` / :data:`MAX_ARCHIVE_BYTES`."""
    return Limits(
        byte_limit(member, MEMBER_ENV, MAX_MEMBER_BYTES), byte_limit(archive, ARCHIVE_ENV, MAX_ARCHIVE_BYTES)
    )


@dataclass(frozen=True)
class _Member:
    name: str
    method: int
    flags: int
    crc: int
    compressed_size: int
    size: int
    offset: int


def _method_name(method: int) -> str:
    return METHODS.get(method) or _KNOWN_OTHER.get(method) or "unknown"


class ZipArchive:
    """An open ZIP archive: its member names and each member's bytes, read on demand.

    Use as a context manager (``with ZipArchive(path) as z: z.read("header.json")``); a file that is not a
    ZIP archive, or whose central directory is damaged, raises :class:`ReaderError` on opening. Members are
    decompressed within ``limits`` (default: :func:`resolve_limits`, from the environment).
    """

    def __init__(self, path: Path, *, limits: Limits | None = None):
        self.path = Path(path)
        self.limits = limits or resolve_limits()
        self.decompressed = 0
        """Bytes decompressed from this archive so far (counted against :attr:`Limits.archive`)."""
        self._zstd: Any = None
        """The zstd decompressor of the archive's members, made when the first is read."""
        self._fh: BinaryIO = open(self.path, "rb")  # noqa: SIM115 (closed by close() / __exit__)
        try:
            self._size = self._fh.seek(0, io.SEEK_END)
            self._members, self._data_end = self._central_directory()
        except BaseException:
            self._fh.close()
            raise

    def __enter__(self) -> ZipArchive:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the archive's file."""
        self._fh.close()

    @property
    def names(self) -> list[str]:
        """Member names in the order of their first entry (each once)."""
        return list(self._members)

    def method(self, name: str) -> int:
        """The compression method of member ``name``."""
        return self._member(name).method

    def size(self, name: str) -> int:
        """The uncompressed size member ``name``'s directory entry declares (checked when it is read)."""
        return self._member(name).size

    def read(self, name: str) -> bytes:
        """The uncompressed bytes of member ``name`` (its last entry), checked for size and CRC-32, within the
        limits: a :class:`TooLargeError` before decompressing when its entry declares more than the limits
        leave, as soon as its data inflates past what the entry declares otherwise."""
        m = self._member(name)
        if m.flags & 0x1:
            self._fail(f"member {name!r} is encrypted; rtlab reads no encrypted archives")
        if m.method not in METHODS:
            self._fail(
                f"member {name!r} uses compression method {m.method} ({_method_name(m.method)}); "
                f"rtlab reads {', '.join(f'{k} ({v})' for k, v in METHODS.items())}"
            )
        self._check_limits(m)
        start = self._data_start(m)
        if m.method == STORED:
            if m.compressed_size != m.size:
                self._fail(
                    f"member {name!r}: stored with {m.compressed_size} bytes, the directory says {m.size}"
                )
            data = self._pread(start, m.compressed_size)
        elif m.method == DEFLATED:
            data = self._inflate(m, start)
        else:
            data = self._unzstd(m, start)
        if len(data) != m.size:
            self._fail(f"member {name!r}: {len(data)} bytes after decompression, the directory says {m.size}")
        if zlib.crc32(data) != m.crc:
            self._fail(f"member {name!r}: CRC-32 does not match (damaged archive)")
        self.decompressed += len(data)
        return data

    def _check_limits(self, m: _Member) -> None:
        """Refuse a member that would take this archive past a limit, by the size its entry declares (its data
        is never let inflate past that size: see :meth:`_inflate`, :meth:`_unzstd`)."""
        if m.size > self.limits.member:
            raise TooLargeError(
                self.path,
                f"member {m.name!r} decompresses to {describe_size(m.size)}, more than the limit of "
                f"{describe_size(self.limits.member)} for one member (a zip bomb?); raise it with {MEMBER_ENV}=SIZE "
                "(e.g. 2G) if the log is genuine",
            )
        left = self.limits.archive - self.decompressed
        if m.size > left:
            raise ArchiveTooLargeError(
                self.path,
                f"member {m.name!r} ({describe_size(m.size)}) would take the archive's members past the limit of "
                f"{describe_size(self.limits.archive)} decompressed in all ({describe_size(self.decompressed)} read before it; "
                f"a zip bomb?); raise it with {ARCHIVE_ENV}=SIZE (e.g. 8G) if the log is genuine",
            )

    # --- internals -----------------------------------------------------------------------------------------

    def _fail(self, message: str) -> None:
        raise ReaderError(self.path, message)

    def _member(self, name: str) -> _Member:
        try:
            return self._members[name]
        except KeyError:
            raise ReaderError(self.path, f"no member {name!r} in this archive") from None

    def _pread(self, offset: int, n: int) -> bytes:
        self._fh.seek(offset)
        data = self._fh.read(n)
        if len(data) != n:
            self._fail(f"archive ends at byte {self._size}, {n} bytes wanted at {offset} (truncated file?)")
        return data

    def _central_directory(self) -> tuple[dict[str, _Member], int]:
        tail_len = min(self._size, _EOCD_SIZE + _MAX_COMMENT)
        tail = self._pread(self._size - tail_len, tail_len) if tail_len else b""
        at = tail.rfind(_EOCD)
        while at >= 0 and at + _EOCD_SIZE > len(tail):
            at = tail.rfind(_EOCD, 0, at)
        if at < 0:
            self._fail("not a ZIP archive, or a damaged one: no end-of-central-directory record")
        eocd_pos = self._size - tail_len + at
        (_, disk, cd_disk, _, total, cd_size, cd_offset, _) = struct.unpack("<4s4H2LH", tail[at : at + 22])
        if 0xFFFF in (disk, cd_disk, total) or 0xFFFFFFFF in (cd_size, cd_offset):
            total, cd_size, cd_offset = self._zip64_end(eocd_pos)
        elif disk != 0 or cd_disk != 0:
            self._fail("multi-disk (split) ZIP archives are not read")
        if cd_offset + cd_size > eocd_pos:
            self._fail(
                f"central directory (offset {cd_offset}, {cd_size} bytes) runs past its end record at {eocd_pos}"
            )
        cd = self._pread(cd_offset, cd_size)
        members: dict[str, _Member] = {}
        spans: list[tuple[int, int, str]] = []
        pos = 0
        for i in range(total):
            if cd[pos : pos + 4] != _CENTRAL or pos + _CENTRAL_SIZE > len(cd):
                self._fail(
                    f"central directory entry {i + 1} of {total} is damaged (offset {cd_offset + pos})"
                )
            (
                _, _, _, flags, method, _, _, crc, csize, usize, nlen, xlen, clen, _, _, _, offset,
            ) = struct.unpack("<4s6H3L5HLL", cd[pos : pos + _CENTRAL_SIZE])  # fmt: skip
            name_bytes = cd[pos + 46 : pos + 46 + nlen]
            extra = cd[pos + 46 + nlen : pos + 46 + nlen + xlen]
            pos += _CENTRAL_SIZE + nlen + xlen + clen
            if pos > len(cd):
                self._fail(f"central directory entry {i + 1} of {total} runs past the directory")
            name = name_bytes.decode("utf-8" if flags & 0x800 else "cp437", errors="replace")
            usize, csize, offset = _zip64_sizes(extra, usize, csize, offset)
            # a repeated name keeps its first position and takes its last entry (dict assignment)
            members[name] = _Member(name, method, flags, crc, csize, usize, offset)
            if offset + _LOCAL_SIZE + nlen + csize <= cd_offset:  # the others fail when read
                spans.append((offset, offset + _LOCAL_SIZE + nlen + csize, name))
        self._no_overlap(spans)
        return members, cd_offset

    def _no_overlap(self, spans: list[tuple[int, int, str]]) -> None:
        """Refuse entries whose data overlap (each span runs from a local header to at least the end of its
        data): the overlapping-file zip bomb makes thousands of entries of one compressed kernel."""
        spans.sort()
        for (_, end, name), (start, _, other) in itertools.pairwise(spans):
            if start < end:
                self._fail(
                    f"members {name!r} and {other!r} overlap in the archive (a zip bomb's trick, or a damaged "
                    "archive); not read"
                )

    def _zip64_end(self, eocd_pos: int) -> tuple[int, int, int]:
        if eocd_pos < 20:
            self._fail("ZIP64 archive without its end-of-central-directory locator")
        loc = self._pread(eocd_pos - 20, 20)
        sig, disk, rec_offset, disks = struct.unpack("<4sLQL", loc)
        if sig != _EOCD64_LOCATOR:
            self._fail("ZIP64 archive without its end-of-central-directory locator")
        if disk != 0 or disks > 1:
            self._fail("multi-disk (split) ZIP archives are not read")
        if rec_offset + 56 > eocd_pos - 20:
            self._fail("ZIP64 end-of-central-directory record lies outside the archive")
        rec = self._pread(rec_offset, 56)
        if rec[:4] != _EOCD64:
            self._fail("ZIP64 end-of-central-directory record is damaged")
        _, _, _, _, _, _, _, total, cd_size, cd_offset = struct.unpack("<4sQ2H2L4Q", rec)
        return total, cd_size, cd_offset

    def _data_start(self, m: _Member) -> int:
        """Where a member's compressed bytes begin, after its local header; they must lie before the directory."""
        if m.offset + _LOCAL_SIZE > self._data_end:
            self._fail(
                f"member {m.name!r}: its local header offset {m.offset} lies outside the archive's data"
            )
        header = self._pread(m.offset, _LOCAL_SIZE)
        if header[:4] != ZIP_MAGIC:
            self._fail(f"member {m.name!r}: no local file header at offset {m.offset} (damaged archive)")
        nlen, xlen = struct.unpack("<2H", header[26:30])
        local_name = self._pread(m.offset + _LOCAL_SIZE, nlen)
        if local_name.decode("utf-8" if m.flags & 0x800 else "cp437", errors="replace") != m.name:
            self._fail(f"member {m.name!r}: the local header names another file (damaged archive)")
        start = m.offset + _LOCAL_SIZE + nlen + xlen
        if start + m.compressed_size > self._data_end:
            self._fail(
                f"member {m.name!r}: its {m.compressed_size} bytes at offset {start} run past the archive's data"
            )
        return start

    def _chunks(self, start: int, n: int) -> Iterator[bytes]:
        """The ``n`` bytes at ``start``, :data:`_CHUNK` at a time (never the whole member at once)."""
        end = start + n
        while start < end:
            chunk = self._pread(start, min(_CHUNK, end - start))
            start += len(chunk)
            yield chunk

    def _inflate(self, m: _Member, start: int) -> bytes:
        """A deflated member, read chunk by chunk and inflated to at most one byte more than its entry declares."""
        d = zlib.decompressobj(-15)
        out = _Output(m, self._longer)
        try:
            for chunk in self._chunks(start, m.compressed_size):
                while chunk and not d.eof:
                    out.add(d.decompress(chunk, out.room))
                    chunk = d.unconsumed_tail
                if d.eof:
                    break
        except zlib.error as exc:
            self._fail(f"member {m.name!r}: deflate data is damaged ({exc})")
        if not d.eof:
            self._fail(f"member {m.name!r}: deflate data ends early or is longer than the directory says")
        return out.data()

    def _unzstd(self, m: _Member, start: int) -> bytes:
        """A zstd member (one frame or several), read chunk by chunk and decompressed to at most one byte more
        than its entry declares."""
        import zstandard

        out = _Output(m, self._longer)
        try:
            if self._zstd is None:  # one for the archive: its buffers are made once
                self._zstd = zstandard.ZstdDecompressor()
            reader = self._zstd.stream_reader(
                io.BufferedReader(_Slice(self._chunks(start, m.compressed_size))), read_across_frames=True
            )
            while chunk := reader.read(out.room):
                out.add(chunk)
        except zstandard.ZstdError as exc:
            self._fail(f"member {m.name!r}: zstd data is damaged ({exc})")
        return out.data()

    def _longer(self, m: _Member) -> None:
        """Stop a member whose data inflates past the size its entry declares (damaged, or a bomb's lie)."""
        raise TooLargeError(
            self.path,
            f"member {m.name!r} decompresses to more than the {m.size} bytes its directory entry declares "
            "(a zip bomb, or a damaged archive); stopped there",
        )


class _Output:
    """A member's decompressed bytes as they come, in as few pieces as the decompressor gives (each asked for
    all that is left, not copied again when it is one piece), never more than one byte past the size its
    entry declares (:meth:`ZipArchive._longer` as soon as they are)."""

    def __init__(self, member: _Member, longer: Callable[[_Member], None]) -> None:
        self._member, self._longer = member, longer
        self._pieces: list[bytes] = []
        self._size = 0

    @property
    def room(self) -> int:
        """Bytes to ask the decompressor for: what the entry declares, and one more (which makes it too long)."""
        return self._member.size + 1 - self._size

    def add(self, piece: bytes) -> None:
        self._pieces.append(piece)
        self._size += len(piece)
        if self._size > self._member.size:
            self._longer(self._member)

    def data(self) -> bytes:
        return self._pieces[0] if len(self._pieces) == 1 else b"".join(self._pieces)


class _Slice(io.RawIOBase):
    """Chunks as a readable stream (what :mod:`zstandard`'s ``stream_reader`` reads from)."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        self._chunks = chunks
        self._chunk = memoryview(b"")
        self._at = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self._at >= len(self._chunk):
            self._chunk, self._at = memoryview(next(self._chunks, b"")), 0
        n = min(len(buffer), len(self._chunk) - self._at)
        buffer[:n] = self._chunk[self._at : self._at + n]
        self._at += n
        return n


def _zip64_sizes(extra: bytes, usize: int, csize: int, offset: int) -> tuple[int, int, int]:
    """Sizes and offset from the ZIP64 extra field, for those the fixed fields mark 0xFFFFFFFF."""
    pos = 0
    while pos + 4 <= len(extra):
        tag, length = struct.unpack("<2H", extra[pos : pos + 4])
        body = extra[pos + 4 : pos + 4 + length]
        pos += 4 + length
        if tag != _ZIP64_EXTRA:
            continue
        k = 0
        values = []
        for wanted in (usize, csize, offset):
            if wanted == 0xFFFFFFFF and k + 8 <= len(body):
                values.append(struct.unpack("<Q", body[k : k + 8])[0])
                k += 8
            else:
                values.append(wanted)
        return values[0], values[1], values[2]
    return usize, csize, offset


def zip_names(path: Path) -> list[str] | None:
    """The member names of a ZIP archive, or ``None`` when ``path`` is not a readable one (for sniffing)."""
    try:
        with open(path, "rb") as fh:
            if fh.read(4) != ZIP_MAGIC:
                return None
        with ZipArchive(path, limits=Limits()) as z:  # names only: nothing is decompressed
            return z.names
    except (OSError, ReaderError):
        return None

"""Atomic file writes: results and caches are replaced whole or not at all."""

from __future__ import annotations

import codecs
import errno
import functools
import gc
import json
import os
import re
import stat
import tempfile
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from pathlib import Path
from typing import IO, Any, Literal, TypeVar

import orjson

from rtlab.errors import ReaderError

T = TypeVar("T")


def _umask() -> int:
    mask = os.umask(0)
    os.umask(mask)
    return mask


@contextmanager
def atomic_open(
    path: str | Path, mode: Literal["w", "wb"] = "w", encoding: str | None = "utf-8", *, private: bool = False
) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on success it replaces ``path``, on any error it is removed.

    The file gets the permissions a plain ``open`` would give (0666 less the umask), or owner-only (0600) when
    ``private``: for files holding what agents read in workspaces, which may be sensitive.

    Only a regular file or a new path is ever replaced. A character device or a named pipe at ``path``
    (``-o /dev/stdout``, ``/dev/null``, a FIFO) is written as a stream, in place (a write error such as
    ``/dev/full``'s is raised); any other kind of file there (a folder, a block device, a socket) is refused with
    an ``OSError`` naming it (``IsADirectoryError`` for a folder, as ``open`` would raise) and left as it was.
    """
    path = Path(path)
    try:
        kind = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        kind = None
    if kind is not None and not stat.S_ISREG(kind):
        if stat.S_ISCHR(kind) or stat.S_ISFIFO(kind):
            with open(path, mode, encoding=None if "b" in mode else encoding) as stream:
                yield stream
                stream.flush()
            return
        what = f"not a regular file ({_kind_name(kind)}); rtlab writes only regular files"
        if stat.S_ISDIR(kind):
            raise IsADirectoryError(errno.EISDIR, what, str(path))
        raise OSError(errno.EINVAL, what, str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, 0o600 if private else 0o666 & ~_umask())
        with os.fdopen(fd, mode, encoding=None if "b" in mode else encoding) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _kind_name(mode: int) -> str:
    for test, name in (
        (stat.S_ISDIR, "a folder"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def dump_json_lines(rows: Iterable[Any], fh: IO[str]) -> int:
    """Write each row to an open text stream as one compact JSON line; returns the count.

    The one JSON-lines form rtlab writes: no spaces after separators, non-ASCII kept as is (UTF-8 on disk).
    """
    n = 0
    for row in rows:
        line = json.dumps(row, ensure_ascii=False, separators=(",", ":"))
        try:
            fh.write(line)
        except UnicodeEncodeError:  # a lone surrogate no UTF-8 file can hold: U+FFFD, as readers give it
            fh.write(_LONE_SURROGATE.sub("\ufffd", line))
        fh.write("\n")
        n += 1
    return n


def write_json_lines(rows: Iterable[Any], path: str | Path, *, private: bool = False) -> int:
    """Write rows to ``path`` as JSON lines (:func:`dump_json_lines`), atomically (:func:`atomic_open`: a
    failure leaves any old file intact; ``private``: owner-only); returns the count."""
    with atomic_open(path, private=private) as fh:
        return dump_json_lines(rows, fh)


def cached_by_file(loader: Callable[[Path], T]) -> Callable[[str | Path], T]:
    """Memoise a one-file loader on the file's identity (resolved path, mtime, size).

    A batch joining thousands of runs to one task file parses it once; an edited file is read again. What
    it returns is shared between callers, so they must copy before they change anything.
    """

    @functools.lru_cache(maxsize=32)
    def cached(resolved: str, mtime_ns: int, size: int) -> T:
        return loader(Path(resolved))

    def load(path: str | Path) -> T:
        resolved = Path(path).resolve()
        st = resolved.stat()
        return cached(str(resolved), st.st_mtime_ns, st.st_size)

    return load


def read_text(path: Path, warnings: list[str] | None = None) -> str:
    """A whole file as text; bytes that are not UTF-8 raise :class:`ReaderError` with their line, or, with a
    ``warnings`` list (tolerant reading), become U+FFFD, said there."""
    if warnings is not None:
        return _text(path, warnings)
    return decode_text(path.read_bytes(), path)


def decode_text(data: bytes, path: Path) -> str:
    """Bytes read from ``path`` as UTF-8 text; bytes that are not UTF-8 raise :class:`ReaderError` with their
    line."""
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise ReaderError(path, f"not valid UTF-8 (byte offset {exc.start})", line=line) from None


_HEADS: ContextVar[dict[str, tuple[int, bytes]] | None] = ContextVar("rtlab_io_heads", default=None)
"""The heads read in the current :func:`one_head_read` (path: how many bytes were asked for, what was read)."""
_HEAD_TEXTS: ContextVar[dict[tuple[str, int], str] | None] = ContextVar("rtlab_io_head_texts", default=None)
"""What :func:`head_text` gave in the current :func:`one_head_read`, by path and size."""


@contextmanager
def one_head_read() -> Iterator[None]:
    """Within it, :func:`head_bytes` reads a file's head once: each later call on the same path is given the
    bytes read first (cut to what it asks for; read again only when it asks for more). Detection runs every
    reader's sniffer on a file, most of them on its first 64 KiB: one read serves them all, and all judge the
    same bytes."""
    token, texts = _HEADS.set({}), _HEAD_TEXTS.set({})
    try:
        yield
    finally:
        _HEAD_TEXTS.reset(texts)
        _HEADS.reset(token)


def head_bytes(path: Path, n: int = 4096) -> bytes:
    """The first ``n`` bytes of a file, or ``b""`` when it cannot be read (for sniffing); read once in a
    :func:`one_head_read`."""
    memo = _HEADS.get()
    if memo is not None:
        known = memo.get(key := str(path))
        if known is not None and (n <= known[0] or len(known[1]) < known[0]):  # asked for less, or all of it
            return known[1][:n]
    try:
        with open(path, "rb") as fh:
            data = fh.read(n)
    except OSError:
        data = b""
    if memo is not None:
        memo[key] = (n, data)
    return data


def head_text(path: Path, n: int = 65536) -> str:
    """The first ``n`` bytes of a regular file as text, for sniffing by content: bytes that are not UTF-8
    dropped (a character cut at the end, a stray byte), a BOM and leading whitespace passed over; ``""`` for a
    folder, a FIFO or anything that cannot be read. Made once in a :func:`one_head_read` (decoding 64 KiB that
    are not all ASCII takes about 0.1 ms)."""
    memo = _HEAD_TEXTS.get()
    if memo is not None and (known := memo.get((str(path), n))) is not None:
        return known
    try:
        text = (
            head_bytes(path, n).decode("utf-8", errors="ignore").lstrip("\ufeff \t\r\n")
            if path.is_file()
            else ""
        )
    except OSError:
        text = ""
    if memo is not None:
        memo[(str(path), n)] = text
    return text


_SURROGATE_ESCAPE = re.compile(r"\\u[dD][89a-fA-F]")
"""A JSON escape of a UTF-16 surrogate: paired, it is one character; alone (``"\\udc80"``), valid JSON that no
UTF-8 file, Parquet table or terminal can hold."""
_LONE_SURROGATE = re.compile("[\ud800-\udfff]")
_DEEP = "nested too deeply to parse"


def without_surrogates(value: Any) -> tuple[Any, int]:
    """``value`` (parsed JSON) with every lone surrogate in its strings and keys replaced by U+FFFD, and how many
    strings were changed. Iterative, so a value nested as deep as the parser allows is walked too."""
    changed = 0

    def fix(s: str) -> str:
        nonlocal changed
        if _LONE_SURROGATE.search(s) is None:
            return s
        changed += 1
        return _LONE_SURROGATE.sub("\ufffd", s)

    if isinstance(value, str):
        return fix(value), changed
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            for key in list(node):
                item = node[key]
                if isinstance(item, str):
                    item = fix(item)
                elif isinstance(item, dict | list):
                    stack.append(item)
                new_key = fix(key)
                if new_key != key:
                    del node[key]
                node[new_key] = item
        elif isinstance(node, list):
            for i, item in enumerate(node):
                if isinstance(item, str):
                    node[i] = fix(item)
                elif isinstance(item, dict | list):
                    stack.append(item)
    return value, changed


_UNSURE = object()
"""What :func:`_by_orjson` gives when only ``json`` can say what a text holds."""
_SURE_DEPTH = 200
"""Nesting below which ``json``'s recursion limit (about 1,000 frames less those already in use) is never
reached; a value nested deeper is parsed again by ``json``, which decides."""
_INT64 = 9223372036854775808.0
"""2**63: orjson gives an integer past 64 bits as a float at least this large (``json``: the exact integer)."""


def _by_orjson(text: str | bytes) -> Any:
    """``text`` parsed by orjson when that is certainly what ``json.loads`` gives, else :data:`_UNSURE`.

    orjson refuses what ``json`` accepts in four ways, all sent back to ``json``: lone surrogate escapes
    (``"\\udc80"``), ``NaN`` / ``Infinity`` and numbers past the float range (``1e400``), a UTF-8 BOM or another
    encoding in bytes, nesting past 1,024. It accepts nothing ``json`` refuses but for one thing: ``json`` may
    run out of recursion on a value orjson reads, so a value nested more than :data:`_SURE_DEPTH` deep is sent
    back. And it gives another value in one case: an integer past 64 bits becomes a float, so a float of
    magnitude 2**63 or more is sent back. Both are found in one walk of the value, level by level (the depth
    costs nothing per item). Floats are read to the same double (correctly rounded, as ``float()``), keys in
    the same order, a repeated key's last value kept, as ``json`` does.
    """
    if not isinstance(text, str | bytes | bytearray):  # json refuses a memoryview, orjson would not
        return _UNSURE
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return _UNSURE
    return value if _sure([value]) else _UNSURE


def _sure(values: list[Any]) -> bool:
    """Whether each of ``values`` (as orjson parsed them) is certainly what ``json`` gives for the same text: no
    float of magnitude 2**63 or more (an integer past 64 bits), no nesting deeper than :data:`_SURE_DEPTH`
    (:func:`_by_orjson`). One walk of them all, level by level: walking many values at once (the records of a
    JSON-lines file) costs a third of walking each alone.

    A level of more than :data:`_WIDE` nodes is walked in C: its types gathered into a set (a level holding a
    float is looked through for a large one), the next level its objects' and lists' items as
    ``gc.get_referents`` lists them (the values, and for an object whose keys are not all strings the keys too,
    which are strings here: leaves, as the values of such a level are). A narrow level is walked node by node,
    where the C calls would cost more than they save."""
    level = values
    for _ in range(_SURE_DEPTH + 1):
        if len(level) > _WIDE:
            if not _FLOATLESS.issuperset(map(type, level)) and _large_float(level):
                return False
            level = _referents(*level)
        else:
            below: list[Any] = []
            extend = below.extend
            for node in level:
                kind = type(node)
                if kind is str:  # most nodes of a log: decided by one test
                    continue
                if kind is dict:
                    extend(node.values())
                elif kind is list:
                    extend(node)
                elif kind is float and (node >= _INT64 or node <= -_INT64):
                    return False
            level = below
        if not level:
            return True
    return False  # a list or object nested deeper than _SURE_DEPTH


_WIDE = 16
"""Nodes of a level above which :func:`_sure` walks it in C (about twice as fast per node as a Python loop on the
logs, slower on a level of a few nodes: a tool call's arguments)."""
_FLOATLESS = frozenset((str, int, bool, type(None), dict, list))
"""The types orjson gives but ``float``: a level of these holds no large float."""
_referents = gc.get_referents
"""The items of each object (its values) and list among the arguments; strings, numbers, booleans and ``None``
have none (they are not containers the collector tracks)."""


def _large_float(level: list[Any]) -> bool:
    """Whether ``level`` holds a float of magnitude 2**63 or more."""
    for node in level:
        if type(node) is float and (node >= _INT64 or node <= -_INT64):
            return True
    return False


_BATCH = 256
"""Records of a JSON-lines file read by orjson and walked (:func:`_sure`) together, at most; the first
batches are smaller (1, 2, 4, ...), so the first record comes at once."""


def _settled(
    pending: list[tuple[int, bytes, Any]], path: Path, warnings: list[str] | None
) -> Iterator[tuple[int, Any]]:
    """``pending`` records (line number, bytes, orjson's value) with their values as ``json`` gives them: orjson's
    where :func:`_sure` of them all says so, else each checked alone and, where unsure, read by :func:`loads`."""
    if _sure([value for _, _, value in pending]):
        for lineno, _, value in pending:
            yield lineno, value
        return
    for lineno, item, value in pending:
        yield lineno, value if _sure([value]) else loads(item.decode("utf-8"), path, lineno, warnings)


def parse_json(text: str | bytes) -> Any:
    """Exactly ``json.loads(text)`` (the same value, the same errors: ``json.JSONDecodeError``,
    ``RecursionError``, ``UnicodeDecodeError``), read by orjson wherever that gives the same value (about 3-5
    times faster), by ``json`` itself elsewhere (:func:`_by_orjson`). For nested JSON held in strings (tool
    arguments, encoded results); a record of a log goes through :func:`loads`."""
    value = _by_orjson(text)
    return json.loads(text) if value is _UNSURE else value


def parse_json_each(texts: Sequence[str]) -> list[Any]:
    """``[parse_json(t) for t in texts]``, each text's ``json.JSONDecodeError`` or ``RecursionError`` in its
    place instead of raised (no JSON value is an exception), for a reader that reads many small values one a
    line: orjson reads each, and one walk of all its values (:func:`_sure`) says whether each is what ``json``
    gives; where not, that text alone is decided as :func:`parse_json` decides it."""
    values: list[Any] = []
    for text in texts:
        try:
            values.append(orjson.loads(text))
        except orjson.JSONDecodeError:
            values.append(_UNSURE)
    if not _sure([v for v in values if v is not _UNSURE]):
        values = [v if v is not _UNSURE and _sure([v]) else _UNSURE for v in values]
    out: list[Any] = []
    for text, value in zip(texts, values, strict=True):
        if value is _UNSURE:
            try:
                value = json.loads(text)
            except (json.JSONDecodeError, RecursionError) as exc:
                value = exc
        out.append(value)
    return out


def parse_json_by(text: str | bytes) -> tuple[Any, Literal["orjson", "json"]]:
    """:func:`parse_json`, and which parser gave the value: only ``json``'s may hold lone surrogates (orjson
    refuses them), so a caller that repairs them need not look at orjson's."""
    value = _by_orjson(text)
    return (json.loads(text), "json") if value is _UNSURE else (value, "orjson")


def parse_utf8_json(data: bytes) -> Any:
    """Exactly ``json.loads(data.decode("utf-8"))`` (the same value, the same errors: ``UnicodeDecodeError``,
    ``json.JSONDecodeError``, ``RecursionError``), read by orjson from the bytes themselves wherever that gives
    the same value: bytes orjson reads are UTF-8 without a BOM, so decoding them first changes nothing."""
    value = _by_orjson(data)
    return json.loads(data.decode("utf-8")) if value is _UNSURE else value


def loads(text: str | bytes, path: Path, line: int | None = None, warnings: list[str] | None = None) -> Any:
    """``json.loads`` for what readers read (:func:`parse_json`: orjson where it gives the same value): a value
    nested too deeply raises :class:`ReaderError` naming ``path`` and ``line`` (not ``RecursionError``); lone
    surrogate escapes are replaced by U+FFFD (said in ``warnings``); other faults raise ``json.JSONDecodeError``
    as ``json.loads`` does."""
    value = _by_orjson(text)
    if value is not _UNSURE:  # orjson refuses lone surrogates: nothing to repair
        return value
    return _loads_by_json(text, path, line, warnings)


def _loads_by_json(text: str | bytes, path: Path, line: int | None, warnings: list[str] | None) -> Any:
    """:func:`loads` by ``json`` alone: for text orjson refused or read otherwise, and for a line that is most
    likely no record (it does not open an object or a list), where trying orjson first only costs."""
    try:
        value = json.loads(text)
    except RecursionError:
        raise ReaderError(path, _DEEP, line=line) from None
    raw = text if isinstance(text, str) else text.decode("utf-8", "replace")
    if _SURROGATE_ESCAPE.search(raw):
        value, changed = without_surrogates(value)
        if changed and warnings is not None:
            where = f"{path}:{line}" if line is not None else str(path)
            warnings.append(
                f"{where}: {changed} strings held lone surrogate escapes; repaired: replaced by U+FFFD"
            )
    return value


_BOM = b"\xef\xbb\xbf"
"""The UTF-8 byte-order mark some tools put at the start of a text file; never content."""


def first_json_line(path: Path, n: int = 65536, *, data: bytes | None = None) -> Any:
    """The first non-blank line of a file parsed as JSON, or ``None`` (for sniffing JSONL formats).

    A UTF-8 byte-order mark and blank lines before it are passed over, as :func:`iter_json_lines` passes them.
    ``data``: the file's bytes, for a reader that read them first (their first ``n`` are looked at).
    """
    head = (head_bytes(path, n) if data is None else data[:n]).removeprefix(_BOM).lstrip()
    line = head.split(b"\n", 1)[0].strip()
    if not line or _no_json_value(line):  # a pretty-printed document's "{": told by its bytes, not parsed
        return None
    try:
        return loads(line, path)
    except (json.JSONDecodeError, UnicodeDecodeError, ReaderError):
        return None


_VALUE_FIRST = frozenset(b'{["-0123456789tfnNI')
"""The bytes a JSON value opens with, as ``json`` reads one (``NaN``, ``Infinity`` included): a line whose first
byte that is no ASCII whitespace is another ASCII character (not NUL: ``json`` may read such bytes as UTF-16 or
UTF-32) is refused by ``json`` in whatever encoding it reads the bytes in, as that character opens the text."""


def head_json_lines(path: Path, n_lines: int = 20, n: int = 65536) -> list[Any]:
    """The values of the first ``n_lines`` non-blank lines of a file that parse as JSON, in order, for sniffing by
    robust features: lines that are not JSON (a banner, a stderr line) are passed over, a line cut by the ``n``
    bytes read is left out; a UTF-8 byte-order mark is dropped. A head with no more JSON lines than others (a
    text file quoting a record) gives ``[]``; the file's own last line cut off mid-record is not counted."""
    head = head_bytes(path, n).removeprefix(_BOM)
    lines = head.split(b"\n")
    whole = len(head) < n - len(_BOM)
    if not whole:
        lines = lines[:-1]
    last = next((i for i in range(len(lines) - 1, -1, -1) if lines[i].strip()), -1)  # from the end
    out: list[Any] = []
    other = 0
    for i, raw in enumerate(lines):
        if not raw.strip():
            continue
        n_lines -= 1
        if n_lines < 0:
            break
        stripped = raw.strip()
        if (0 < stripped[0] < 0x80 and stripped[0] not in _VALUE_FIRST) or (
            _no_json_value(stripped) and not (whole and i == last)
        ):
            # no JSON value opens so (a Markdown line, a log line) or is held (a pretty-printed document's
            # "key": 1,): json refuses it (no escape repaired changes that); told by its bytes, not parsed (the
            # file's last line is, as the rule for a record cut off there depends on how it fails)
            other += 1
            continue
        try:
            out.append(loads(raw, path))
        except json.JSONDecodeError as exc:
            try:  # a record whose only fault is an invalid backslash escape is still that record
                if not exc.msg.startswith(("Invalid \\escape", "Invalid \\uXXXX")):
                    raise
                out.append(loads(repair_escapes(raw.decode("utf-8")), path))
            except (json.JSONDecodeError, UnicodeDecodeError, ReaderError):
                # the file's last line cut off mid-record (a log cut off) is no evidence against JSON lines
                other += not (whole and i == last and raw.lstrip()[:1] in (b"{", b"["))
        except (UnicodeDecodeError, ReaderError):
            other += 1
    return out if len(out) > other else []


def first_json_value(path: Path, n: int = 65536) -> Any:
    """The first JSON value of a file, whether it sits on one line or spans several (a pretty-printed
    document), or ``None`` when the first ``n`` bytes hold no whole value (for sniffing)."""
    text = head_bytes(path, n).removeprefix(_BOM).decode("utf-8", errors="ignore").lstrip()
    if not text:
        return None
    try:
        value = json.JSONDecoder().raw_decode(text)[0]
    except (json.JSONDecodeError, RecursionError):
        return None
    return without_surrogates(value)[0] if _SURROGATE_ESCAPE.search(text) else value


def _binary(data: bytes) -> bool:
    """Whether a file's bytes are binary (an archive), not a damaged log: NULs or bytes that are not UTF-8
    throughout its first 8 KiB. Said only in tolerant reading (a strict one fails on the first such byte)."""
    head = data[:8192]
    return head.count(0) * 100 > len(head) or head.decode("utf-8", "replace").count("\ufffd") * 20 > len(head)


def _text(path: Path, warnings: list[str] | None, data: bytes | None = None) -> str:
    """A whole file (its bytes ``data`` when already read) as text for reading records: bytes that are not UTF-8
    raise (:func:`read_text`), or, when ``warnings`` is given, become U+FFFD with a warning naming the line of
    the first of them."""
    if data is None:
        data = path.read_bytes()
    if warnings is None:
        return decode_text(data, path).removeprefix("\ufeff")
    if _binary(data):
        raise ReaderError(path, "binary, not text (NUL bytes or bytes that are not UTF-8 in its first 8 KiB)")
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        warnings.append(
            f"{path}:{line}: not valid UTF-8 (byte offset {exc.start}); repaired: the bytes replaced by U+FFFD"
        )
        return data.decode("utf-8", "replace").removeprefix("\ufeff")


_ESCAPE = re.compile(r'\\(u[0-9a-fA-F]{4}|["\\/bfnrt]|.?)', re.DOTALL)
"""A backslash and what follows it in JSON text: a valid escape, or anything else (an invalid one)."""


def repair_escapes(text: str) -> str:
    r"""``text`` (JSON) with every invalid backslash escape (``\x``, ``\u12``, a lone ``\`` at the end) made a
    literal backslash (``\\x``): what a writer that forgot to escape a backslash meant. Valid escapes are kept."""

    def fix(m: re.Match[str]) -> str:
        rest = m.group(1)
        if rest.startswith("u") and len(rest) == 5 or (len(rest) == 1 and rest in '"\\/bfnrt'):
            return m.group(0)
        return "\\\\" + rest

    return _ESCAPE.sub(fix, text)


def skip_reason(line: str, exc: json.JSONDecodeError, last: bool) -> str:
    """Why a record line was skipped: not JSON at all (a stray stderr line), cut off (``last``: it is the file's
    last line), or invalid JSON; the words every JSON-lines reader uses (kinds ``not-json``, ``truncated``,
    ``invalid-json``)."""
    head = line.lstrip()[:1]
    if head not in ("{", "[", '"'):
        return f"not JSON ({line.strip()[:60]!r}); skipped"
    if last:
        return "last line is not complete JSON (log cut off?); skipped"
    return f"invalid JSON: {exc.msg} (column {exc.colno}); skipped"


def _json_lines_of(path: Path, warnings: list[str] | None, data: bytes | None) -> list[str] | list[bytes]:
    """A JSON-lines file's lines: its bytes split at newlines where it is UTF-8 (the common case: orjson reads
    each line from its bytes, with no text made of the whole file and no line encoded again), its text's lines
    otherwise (:func:`_text`: a binary file refused, bytes that are not UTF-8 replaced and said, or raised).
    Either way the same lines: a newline byte is never part of a longer UTF-8 sequence."""
    raw = path.read_bytes() if data is None else data
    if (warnings is None or not _binary(raw)) and _is_utf8(raw):
        return raw.removeprefix(_BOM).split(b"\n")
    return _text(path, warnings, raw).split("\n")


def blank_text(data: bytes) -> bool:
    """Whether a file of these bytes holds no text but whitespace: what ``not t or t.isspace()`` says of its
    text ``t`` as :func:`read_text` gives it (a leading BOM dropped, bytes that are not UTF-8 as U+FFFD), told
    from its first byte that is not ASCII whitespace where that is ASCII (decoding nothing)."""
    rest = data.removeprefix(_BOM).lstrip()
    if not rest:
        return True
    if rest[0] < 0x80 and not chr(rest[0]).isspace():
        return False
    text = data.decode("utf-8", "replace").removeprefix("\ufeff")
    return not text or text.isspace()


def _is_utf8(data: bytes) -> bool:
    """Whether ``data`` is UTF-8: ASCII told without decoding, other bytes decoded 64 KiB at a time (a text of
    the whole file, up to four bytes a character, would cost several times more in fresh memory)."""
    if data.isascii():
        return True
    decode = codecs.getincrementaldecoder("utf-8")().decode
    view = memoryview(data)
    try:
        for at in range(0, len(data), _UTF8_CHUNK):
            decode(view[at : at + _UTF8_CHUNK])
        decode(b"", True)
    except UnicodeDecodeError:
        return False
    return True


_UTF8_CHUNK = 1 << 16


def iter_json_lines(
    path: Path,
    warnings: list[str] | None = None,
    *,
    text: str | None = None,
    data: bytes | None = None,
) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for each non-blank line of a JSONL file (a leading UTF-8 BOM is dropped).

    Without ``warnings``, a line that is not JSON raises :class:`ReaderError` naming it. With a ``warnings``
    list (the tolerant reading every reader does), such a line is skipped and said there: a line that is not
    JSON at all (a stray stderr line), invalid JSON, a last line cut off mid-write; a line whose only fault is
    an invalid backslash escape is repaired (:func:`repair_escapes`) and read; bytes that are not UTF-8 become
    U+FFFD. A file in which no line is JSON still raises: nothing in it is a record.
    ``text``: the file's text as :func:`read_text` with the same ``warnings`` gave it (its decoding said there
    already), for a reader that needs the text too and reads the file once; ``data``: the file's bytes, for a
    reader that read them first.
    """
    lines: Sequence[str | bytes] = (
        text.split("\n") if text is not None else _json_lines_of(path, warnings, data)
    )
    last = len(lines)
    while last > 1 and not _line_text(lines[last - 1]).strip():
        last -= 1
    found = False
    first_fault: ReaderError | None = None
    faults = records = 0  # lines not JSON; lines holding an object or a list
    pending: list[tuple[int, bytes, Any]] = []  # records orjson read, walked together (_settled)
    batch = 1
    for lineno, item in enumerate(lines, 1):
        if isinstance(item, bytes):  # a UTF-8 file's line: orjson reads a record's from its bytes
            value: Any = _UNSURE
            if item[:1] in _BYTE_OPENINGS:
                try:
                    value = orjson.loads(item)
                except orjson.JSONDecodeError:
                    pass
                else:
                    pending.append((lineno, item, value))
                    if len(pending) < batch:
                        continue
            if pending:  # a batch full, or a line that is not such a record: those before it first
                yield from _settled(pending, path, warnings)
                found = True
                records += len(pending)
                pending = []
                batch = min(2 * batch, _BATCH)
            if value is not _UNSURE:
                continue
            line = item.decode("utf-8")  # any other line, as text: UTF-8 (checked)
        else:
            line = item
        if not line.strip():
            continue
        try:
            if line[0] in _RECORD_OPENINGS:
                value = loads(line, path, lineno, warnings)
            else:  # a stray line, a line of a document: json's own error is what is said
                value = _loads_by_json(line, path, lineno, warnings)
        except json.JSONDecodeError as exc:
            invalid = f"invalid JSON: {exc.msg} (column {exc.colno})"  # the fault's error made only when used
            if warnings is None:
                raise ReaderError(path, invalid, line=lineno) from None
            faults += 1
            if (
                not records and faults >= _NOT_LINES
            ):  # not a JSON-lines file (a document, a text): said at once
                raise ReaderError(
                    path,
                    f"no line is a JSON record (the first {_NOT_LINES} are not: {invalid})",
                    line=first_fault.line if first_fault else lineno,
                ) from None
            if exc.msg.startswith("Invalid \\escape") or exc.msg.startswith("Invalid \\uXXXX"):
                try:
                    value = loads(repair_escapes(line), path, lineno, warnings)
                except (json.JSONDecodeError, ReaderError):
                    pass
                else:
                    warnings.append(
                        f"{path}:{lineno}: invalid \\ escape (column {exc.colno}); repaired: read as a literal "
                        "backslash"
                    )
                    found = True
                    yield lineno, value
                    continue
            first_fault = first_fault or ReaderError(path, invalid, line=lineno)
            warnings.append(f"{path}:{lineno}: {skip_reason(line, exc, lineno == last)}")
            continue
        found = True
        records += isinstance(value, dict | list)
        yield lineno, value
    if pending:
        yield from _settled(pending, path, warnings)
        found = True
    if not found and first_fault is not None:
        raise ReaderError(
            path, f"no line is a JSON record (first: {first_fault.message})", line=first_fault.line
        )


def json_lines_refused(path: Path) -> bool:
    """Whether :func:`iter_json_lines`, reading ``path`` tolerantly, refuses it: raises before it has given a
    record (an object or a list). A pretty-printed document (its first lines are no JSON values), a text, a
    binary file are refused; a JSON-lines file is not. Only the iterator's own refusal counts, so ``True``
    means exactly that a reader reading the file through it, and letting its error out, gets that error: what
    detection's other readers are offered by (:func:`rtlab.ingest.readers._tolerant.formats_with_steps`). A
    file that cannot be read at all gives ``False`` (the reader itself is left to fail).

    The iterator's rule, followed line by line up to its verdict (its first record: not refused; its 64th
    line that is not JSON before any record, or the end of a file holding no JSON value but some line that is
    not: refused; a binary file, or a value nested too deeply: refused), without its warnings: a line that
    cannot be a JSON value is told by its ends (:func:`_no_json_value`), with no parse and no error made (a
    pretty-printed document's lines, each a ``JSONDecodeError`` for the iterator), every other line is parsed
    as the iterator parses it."""
    try:
        raw = path.read_bytes()
    except OSError:
        return False
    if _binary(raw):  # the iterator's tolerant reading refuses a binary file at once
        return True
    body = raw.removeprefix(_BOM)
    found = False  # a JSON value (a scalar: no record, but the file is not refused at its end)
    faults = 0
    start, size = 0, len(body)
    while start <= size:
        end = body.find(b"\n", start)
        if end < 0:
            end = size
        chunk = body[start:end]
        start = end + 1
        if _no_json_value(chunk.strip()):  # told from its bytes (ASCII), with no text made
            faults += 1
            if faults >= _NOT_LINES:
                return True
            continue
        line = chunk.decode("utf-8", "replace")  # as the file's text reads (bytes not UTF-8 as U+FFFD)
        if not line.strip():
            continue
        try:
            if line[0] in _RECORD_OPENINGS:
                value = loads(line, path, None, [])
            else:
                value = _loads_by_json(line, path, None, [])
        except json.JSONDecodeError as exc:
            faults += 1
            if faults >= _NOT_LINES:
                return True
            if exc.msg.startswith("Invalid \\escape") or exc.msg.startswith("Invalid \\uXXXX"):
                try:
                    value = loads(repair_escapes(line), path, None, [])
                except (json.JSONDecodeError, ReaderError):
                    continue
            else:
                continue
        except ReaderError:  # nested too deeply: the iterator raises it
            return True
        if isinstance(value, dict | list):
            return False
        found = True
    return not found and faults > 0


_NO_VALUE_ENDS = frozenset(b",:{[")
"""The last byte of a line that holds no whole JSON value (a value ends in ``}``, ``]``, ``"``, a digit or a
letter of a literal)."""
_NO_VALUE_STARTS = frozenset(b"}],:")
"""The first byte of a line that holds no JSON value (a value opens with ``{``, ``[``, ``"``, ``-``, a digit or
a letter of a literal)."""
_FEW_OPENINGS = 32
"""Lines with fewer ``{`` and ``[`` than this are told by their ends (:func:`_no_json_value`): ``json`` refuses
such a line before nesting deep enough to run out of recursion, which it would raise instead (a
``ReaderError`` for the iterator, a refusal), so a line with more is parsed."""


def _no_json_value(stripped: bytes) -> bool:
    """Whether a line (its bytes, ASCII whitespace stripped) certainly holds no JSON value, told from its ends:
    its first or last byte is one no JSON value starts or ends with (a pretty-printed document's ``"key": 1,``,
    ``{``, ``},``, ``"key": [``): the line is not blank, and whatever whitespace the text has around those
    ASCII bytes, JSON's or other (which ``json`` refuses too), they are its first or last character that is not
    JSON's whitespace; or it is a key and its value (:data:`_KEY_LINE`). Where it says ``False`` the line is
    parsed; with many openings too (:data:`_FEW_OPENINGS`)."""
    if not stripped:
        return False
    if stripped[-1] in _NO_VALUE_ENDS or stripped[0] in _NO_VALUE_STARTS:
        return stripped.count(b"{") + stripped.count(b"[") < _FEW_OPENINGS
    return stripped[0] == _QUOTE and _KEY_LINE.match(stripped) is not None


_QUOTE = ord('"')
_KEY_LINE = re.compile(rb'"(?:[^"\\]|\\.)*"[ \t\r\x0b\x0c]*:')
"""A line opening with a string followed by ``:`` (a pretty-printed document's last ``"key": value`` of an
object): no JSON value, whatever the string holds (a string is one value, and ``:`` cannot follow it), and
``json`` refuses it without nesting (the string is read first)."""


def _line_text(line: str | bytes) -> str:
    return line.decode("utf-8") if isinstance(line, bytes) else line


_BYTE_OPENINGS = frozenset((b"{", b"["))
"""How a line holding a record opens, as its first byte (:func:`iter_json_lines` on a file's bytes)."""
_RECORD_OPENINGS = frozenset("{[")
"""How a line holding a record opens (other lines go to ``json`` at once: see :func:`_loads_by_json`)."""
_NOT_LINES = 64
"""Lines that are not JSON, with no record before them, after which a file is not read as JSON lines at all."""
_NOT_SPACE = re.compile(r"\S")
_VALUE_START = re.compile(r"\n[ \t]*[{\[]")
"""Where a value may start again after a fault: a line opening an object or a list."""


def iter_json_values(
    path: Path,
    warnings: list[str] | None = None,
    *,
    text: str | None = None,
    data: bytes | None = None,
) -> Iterator[tuple[int, Any]]:
    """Yield ``(line_number, value)`` for each JSON value of a file holding values one after another: JSON
    lines, or documents that span several lines each (pretty-printed records), separated by whitespace.

    ``line_number`` is the line a value starts on. Without ``warnings``, a value that is not JSON raises
    :class:`ReaderError` naming the line it starts on and the line and column of the fault. With a ``warnings``
    list, the faulty text up to the next line that opens an object is skipped and said there (a last value
    cut off by the end of the file: "not complete"), a value whose fault is an invalid backslash escape is
    repaired and read, and bytes that are not UTF-8 become U+FFFD; a file with no value at all still raises.
    ``text``: the file's text as :func:`read_text` with the same ``warnings`` gave it (its decoding said there
    already), for a reader that needs the text too and reads the file once; ``data``: the file's bytes, for a
    reader that read them first.

    A UTF-8 file is read from its bytes while each of its lines is one value (JSON lines: orjson reads a line
    from its bytes, with no text of the whole file made), and from its text from the first line that is not
    (a value over several lines, a fault, a line opening with whitespace that is not ASCII): the same values,
    lines and warnings either way.
    """
    if text is not None:
        yield from _json_values_of_text(path, warnings, text, 0, 1)
        return
    raw = path.read_bytes() if data is None else data
    if not ((warnings is None or not _binary(raw)) and _is_utf8(raw)):
        yield from _json_values_of_text(path, warnings, _text(path, warnings, raw), 0, 1)
        return
    body = raw.removeprefix(_BOM)
    offset = 0  # of the line's first byte
    found = False
    pending: list[tuple[int, bytes, Any]] = []  # values orjson read, walked together (_settled)
    batch = 1
    for lineno, line in enumerate(body.split(b"\n"), 1):
        rest = line.lstrip()  # ASCII whitespace, which the text's whitespace holds
        if rest:
            first = rest[0]
            value: Any = _UNSURE
            if first < 0x80 and not 0x1C <= first <= 0x1F:  # else perhaps whitespace for the text: its rule
                try:
                    value = orjson.loads(rest)
                except orjson.JSONDecodeError:
                    pass
            if value is _UNSURE:  # from here on, the text (the prefix before is whole UTF-8 lines)
                yield from _settled(pending, path, warnings)
                text = body.decode("utf-8")
                yield from _json_values_of_text(
                    path,
                    warnings,
                    text,
                    len(body[:offset].decode("utf-8")),
                    lineno,
                    found=found or bool(pending),
                )
                return
            pending.append((lineno, rest, value))
            if len(pending) >= batch:
                yield from _settled(pending, path, warnings)
                found = True
                pending = []
                batch = min(2 * batch, _BATCH)
        offset += len(line) + 1
    yield from _settled(pending, path, warnings)


def _json_values_of_text(
    path: Path, warnings: list[str] | None, text: str, offset: int, line: int, *, found: bool = False
) -> Iterator[tuple[int, Any]]:
    """:func:`iter_json_values` over ``text`` from ``offset`` (the start of line ``line``); ``found``: a
    value was read before ``offset``."""
    decoder = json.JSONDecoder()
    counted = offset  # ``line`` is the line number of offset ``counted``
    first_fault: ReaderError | None = None
    match = _NOT_SPACE.search(text, offset)
    while match is not None:
        start = match.start()
        line += text.count("\n", counted, start)
        counted = start
        stop = text.find("\n", start)
        if stop < 0:
            stop = len(text)
        value = _by_orjson(text[start:stop])
        if value is not _UNSURE:  # the common case: the value is its line (JSON lines)
            found = True
            yield line, value
            match = _NOT_SPACE.search(text, stop)
            continue
        try:
            value, end = decoder.raw_decode(text, start)
        except json.JSONDecodeError as exc:
            at = f"line {exc.lineno}, column {exc.colno}"
            fault = ReaderError(path, f"invalid JSON: {exc.msg} ({at})", line=line)
            if warnings is None:
                if "\n" not in text[exc.pos :].rstrip():  # the fault is on the last line: cut off
                    raise ReaderError(path, f"last value is not complete JSON ({at})", line=line) from None
                raise fault from None
            nxt = _VALUE_START.search(text, start + 1)
            stop = nxt.start() + 1 if nxt is not None else len(text)
            if exc.msg.startswith("Invalid \\escape") or exc.msg.startswith("Invalid \\uXXXX"):
                try:
                    value, _ = decoder.raw_decode(repair_escapes(text[start:stop]))
                except (json.JSONDecodeError, RecursionError):
                    pass
                else:
                    warnings.append(
                        f"{path}:{line}: invalid \\ escape ({at}); repaired: read as a literal backslash"
                    )
                    found = True
                    yield line, value
                    match = _NOT_SPACE.search(text, stop)
                    continue
            first_fault = first_fault or fault
            if nxt is None and "\n" not in text[exc.pos :].rstrip():
                warnings.append(f"{path}:{line}: last value is not complete JSON (log cut off?); skipped")
            else:
                snippet = text[start:stop].strip()
                why = (
                    f"not JSON ({snippet[:60]!r})"
                    if snippet[:1] not in ("{", "[", '"')
                    else f"invalid JSON: {exc.msg} ({at})"
                )
                warnings.append(f"{path}:{line}: {why}; skipped")
            match = _NOT_SPACE.search(text, stop)
            continue
        except RecursionError:
            raise ReaderError(path, _DEEP, line=line) from None
        if _SURROGATE_ESCAPE.search(text, start, end):
            value, changed = without_surrogates(value)
            if changed and warnings is not None:
                warnings.append(
                    f"{path}:{line}: {changed} strings held lone surrogate escapes; repaired: replaced by U+FFFD"
                )
        found = True
        yield line, value
        match = _NOT_SPACE.search(text, end)
    if not found and first_fault is not None:
        raise ReaderError(
            path, f"no JSON value could be read (first: {first_fault.message})", line=first_fault.line
        )


def load_json(path: Path, warnings: list[str] | None = None, *, data: bytes | None = None) -> Any:
    """A whole JSON file; malformed JSON raises :class:`ReaderError` with line and column (see :func:`loads`).

    With ``warnings`` (the tolerant reading every reader does) a damaged document is repaired where that keeps
    every intact part, each repair said there: invalid backslash escapes made literal, a line that is not JSON
    (a stray stderr line) dropped, a document cut off at the end closed after its last whole element, bytes
    that are not UTF-8 replaced. ``data``: the file's bytes, for a reader that read them first.

    orjson reads the bytes once: where it cannot say what ``json`` gives (:func:`_by_orjson`) and the bytes are
    UTF-8, their text is what it read, so ``json`` reads the text at once (:func:`_loads_by_json`, which is
    what :func:`loads` would come to)."""
    if data is None:
        data = path.read_bytes()
    tried = warnings is None or not _binary(data)
    if tried:
        value = _by_orjson(data[3:] if data.startswith(_BOM) else data)
        if value is not _UNSURE:  # valid UTF-8 (orjson checks it): the value its text gives
            return value
        try:  # what _text gives for UTF-8 bytes
            text = data.decode("utf-8").removeprefix("\ufeff")
        except UnicodeDecodeError:
            tried, text = False, _text(path, warnings, data)  # raised, or repaired and said there
    else:
        text = _text(path, warnings, data)
    if not text.strip():
        raise ReaderError(path, "file is empty")
    try:
        if tried:  # orjson read these very bytes already
            return _loads_by_json(text, path, None, warnings)
        return loads(text, path, warnings=warnings)
    except json.JSONDecodeError as exc:
        fault = ReaderError(path, f"invalid JSON: {exc.msg} (column {exc.colno})", line=exc.lineno)
        if warnings is None or text.lstrip()[:1] not in ("{", "["):  # not a JSON document at all: no repair
            raise fault from None
        return _repaired_document(text, path, warnings, fault)


_JSON_LINE_START = re.compile(r'\s*(?:["{}\[\],:0-9tfn-]|$)')
"""How a line inside a pretty-printed JSON document starts (a line that starts otherwise is not JSON)."""
_REPAIRS = 64


def _repaired_document(text: str, path: Path, warnings: list[str], fault: ReaderError) -> Any:
    """The document ``text`` after the repairs :func:`load_json` makes, or ``fault`` raised when they do not
    make it parse."""
    said: list[str] = []
    escaped = False
    for _ in range(_REPAIRS):
        try:
            value = loads(text, path, warnings=warnings)
        except json.JSONDecodeError as exc:
            lines = text.split("\n")
            at = lines[exc.lineno - 1] if exc.lineno <= len(lines) else ""
            if not escaped and exc.msg.startswith(("Invalid \\escape", "Invalid \\uXXXX")):
                text, escaped = repair_escapes(text), True
                said.append(
                    f"{path}:{exc.lineno}: invalid \\ escape (column {exc.colno}); repaired: read as a literal backslash"
                )
            elif at.strip() and not _JSON_LINE_START.match(at):
                del lines[exc.lineno - 1]
                text = "\n".join(lines)
                said.append(f"{path}:{exc.lineno}: not JSON ({at.strip()[:60]!r}); skipped")
            elif not text[exc.pos :].strip() or exc.msg.startswith("Unterminated string"):
                closed = _closed(text)
                if closed is None:
                    break
                text = closed
                said.append(
                    f"{path}:{exc.lineno}: the document is cut off (log cut off?); repaired: closed after its last "
                    "whole element, the element cut off skipped"
                )
            else:
                break
            continue
        warnings.extend(said)
        return value
    raise fault from None


def _closed(text: str) -> str | None:
    """``text`` (a JSON document cut off) cut back and closed so that the element the cut fell in is left out
    whole: the element of the innermost list open at the end (a message, a step), or, with no list open, the
    last member that was complete; ``None`` when no such point exists."""
    stack: list[str] = []
    cuts: list[tuple[int, int]] = []  # (offset to cut at, depth there), in order
    in_string = escape = False
    for i, ch in enumerate(text):
        if in_string:
            if escape:
                escape = False
            elif ch == "\\":
                escape = True
            elif ch == '"':
                in_string = False
            continue
        if ch == '"':
            in_string = True
        elif ch in "[{":
            stack.append("]" if ch == "[" else "}")
            cuts.append((i + 1, len(stack)))
        elif ch in "]}":
            if stack:
                stack.pop()
            if stack:
                cuts.append((i + 1, len(stack)))
        elif ch == "," and stack:
            cuts.append((i, len(stack)))
    if not stack:
        return None
    lists = [d for d, closer in enumerate(stack, 1) if closer == "]"]
    depth = lists[-1] if lists else len(stack)
    for end, at in reversed(cuts):
        if at <= depth:
            head = text[:end].rstrip()
            if head.endswith(":"):
                return None
            return head + "".join(reversed(stack[:at]))
    return None


def field(obj: Any, key: str, kind: Any, path: Path, line: int | None, where: str = "") -> Any:
    """``obj[key]`` checked for type; a missing or mistyped field raises :class:`ReaderError` naming it."""
    name = f"{where}.{key}" if where else key
    if not isinstance(obj, dict):
        raise ReaderError(
            path, f"expected an object, got {type(obj).__name__}", line=line, field=where or None
        )
    if key not in obj:
        raise ReaderError(path, "missing field", line=line, field=name)
    value = obj[key]
    if not isinstance(value, kind):
        parts = kind if isinstance(kind, tuple) else getattr(kind, "__args__", (kind,))
        want = " or ".join(getattr(k, "__name__", str(k)) for k in parts)
        raise ReaderError(path, f"expected {want}, got {type(value).__name__}", line=line, field=name)
    return value

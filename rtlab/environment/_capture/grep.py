"""Search outputs: ``grep``/``egrep``/``rg``/``ag``/``ack``/``git grep``, search actions (``path:N:text`` lines relative to a base) and ``semfs grep``.

``path:line:text`` (and ``path-line-text`` context lines) is an excerpt of that file: consecutive lines of one
file form one excerpt, exactly as shown. ``-l``/``-L``/``-c`` and ``Binary file X matches`` only list. A search
of one file prints no path prefix: then its lines are that file's excerpt.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase

from rtlab.environment._capture.collect import Collector, Ref
from rtlab.environment._capture.frame import Block, Line, error_line, lines
from rtlab.environment._capture.units import split_args
from rtlab.text import Word

_BINARY = re.compile(r"^(?:Binary file (?P<a>.+) matches|[\w-]+: (?P<b>.+): binary file matches)$")
_MATCH = re.compile(r"^(?P<path>[^:\n]+?):(?P<line>\d+):")
_MATCH_NO_LINE = re.compile(r"^(?P<path>[^:\n]+?):")
_CONTEXT = re.compile(r"^(?P<path>[^\n]+?)-(?P<line>\d+)-")
_SEMFS = re.compile(r"^/(?P<path>[^:\n]+?\.[A-Za-z0-9_]{1,10}):(?:\d+(?:-\d+)?:)?")
_GLOB = re.compile(r"[*?\[]")
_COUNT = re.compile(r"^(?P<path>[^:\n]+):\d+$")
_BARE_PATH = re.compile(r"[^\s:][^:]*")
_NUMBERED = re.compile(r"^\d+[:-]")
_TREE_FILTERS = ("--include", "--exclude", "--exclude-dir", "-g", "--glob", "--iglob", "-t", "--type", "-T",
                 "--type-not", "--files")  # fmt: skip
"""Options that only make sense when a folder is searched."""


@dataclass
class GrepSpec:
    """What a search command's flags say about its output."""

    files: list[str] = field(default_factory=list)
    list_files: bool = False
    count: bool = False
    quiet: bool = False
    prefix: bool = True
    recursive: bool = False
    numbers: bool = False
    """``-n``: match lines carry ``path:N:``."""
    unknown_files: bool = False
    """It searches files the command does not name (``xargs grep``): unprefixed lines are nobody's."""
    maybe_file: bool = False
    """One operand without an extension (``rg x Dockerfile``, ``rg x src``), searched recursively: a folder
    prints ``path:`` prefixes, a file none; the output tells which (:func:`_one_file`)."""


def grep_spec(name: str, words: list[Word]) -> GrepSpec:
    """Read a grep-family command's flags and operands (pattern first unless ``-e``/``-f`` gave it)."""
    table = "rg" if name in ("rg", "ag", "ack") else "grep"
    args = split_args(table, words)
    operands = [w.text for w in args.operands]
    if not args.has("-e", "--regexp", "-f", "--file") and not (name == "rg" and args.has("--files")):
        operands = operands[1:]
    spec = GrepSpec(files=operands)
    spec.list_files = args.has("-l", "-L", "--files-with-matches", "--files-without-match", "--files")
    spec.count = args.has("-c", "--count", "--count-matches")
    spec.quiet = args.has("-q", "--quiet", "--silent")
    spec.numbers = args.has("-n", "--line-number", "--vimgrep")
    spec.recursive = name in ("rg", "ag", "ack") or args.has(
        "-r", "-R", "--recursive", "--dereference-recursive"
    )
    single = len(operands) == 1 and not _GLOB.search(operands[0])
    if single:
        # a recursive search of one operand prints prefixes when it is a folder and none when it is a file; a
        # name's look does not tell (``ponyc__0.1`` is a folder, ``Dockerfile`` a file): the output does
        spec.prefix = spec.recursive
        spec.maybe_file = (
            spec.prefix
            and not operands[0].endswith(("/", "."))
            and not args.has(*_TREE_FILTERS)  # ``--include``, ``-g``: a folder is searched
        )
    else:
        spec.prefix = bool(operands) or spec.recursive
    if args.has("-H", "--with-filename"):
        spec.prefix = True
    if args.has("-h", "--no-filename", "-I" if name == "rg" else "--no-filename"):
        spec.prefix = False
    return spec


def _valid(path: str, files: list[str], recursive: bool) -> bool:
    if (
        not path
        or path[0].isspace()
        or len(path) > 400
        or "\t" in path
        or (path[0].isdigit() and path.isdigit())
    ):
        return False  # a bare number is a line number (``12:text`` of a search of one file), not a path
    if not files:
        return recursive or not path.strip() == ""
    for op in files:
        base = op.rstrip("/") or "/"
        if path == op or path.startswith(base + "/") or (base == "." and not path.startswith("/")):
            return True
        if _GLOB.search(op) and fnmatchcase(path, op):
            return True
    return False


def parse_grep(
    col: Collector, shown: str, block: Block, cwd: str | None, spec: GrepSpec, base: str | None = None
) -> None:
    """Attribute a grep-family output. ``base`` resolves relative paths (a search action's own base)."""
    if spec.quiet:
        return
    if (
        spec.maybe_file
        and spec.prefix
        and not (spec.list_files or spec.count)
        and _one_file(shown, block, spec)
    ):
        spec = replace(spec, prefix=False)
    if not spec.prefix and not spec.list_files:
        if spec.count or spec.unknown_files:
            return
        targets = spec.files
        for s, e in block.pieces:
            for target in targets:
                col.read(col.ref(target, cwd), s, e)
        return
    _parse_prefixed(col, shown, block, cwd, spec, base)


def _parse_prefixed(
    col: Collector, shown: str, block: Block, cwd: str | None, spec: GrepSpec, base: str | None
) -> None:
    """``path:N:text`` lines, consecutive lines of one file making one excerpt, which never spans a clip
    marker. A line the marker cut in two: its part before the marker starts with its path and is that file's;
    its part after the marker names no file, so it is the file's whose lines are on both sides of the marker
    (a search prints each file's lines together), or the next line's when it starts with that line's own
    ``path:`` prefix (the marker fell between two lines); otherwise it is nobody's."""
    pieces = block.pieces
    after_cut = {s for i, (s, _) in enumerate(pieces) if i and block.clip_after(i - 1)}
    before_cut = {e for i, (_, e) in enumerate(pieces) if i < len(pieces) - 1 and block.clip_after(i)}
    group: tuple[str, int, int] | None = None  # (path, start, end)
    last: str | None = None  # the file of the last result line
    cut: str | None = None  # the file of the last result line before the last marker
    fragment: tuple[int, int] | None = None  # a cut line's part after a marker, waiting for the next line

    def flush() -> None:
        if group is not None:
            col.read(_ref(col, group[0], cwd, base), group[1], group[2])

    for line in lines(shown, block):
        text = line.text
        if line.partial:  # only where a clip marker cut the output
            if line.end in before_cut and line.start not in after_cut:  # the part before the marker
                path = _line_path(text, group[0] if group else None, spec)
                if path is not None and group is not None and group[0] == path:
                    group = (path, group[1], line.end)
                elif path is not None:
                    flush()
                    group = (path, line.start, line.end)
                last = path or last
            else:  # the part after a marker
                fragment = (line.start, line.end)
            continue
        if fragment is not None and fragment[0] in after_cut and (group is not None or last is not None):
            flush()  # the first whole line after a marker: what was before it ends at the marker
            group, cut, last = None, last, None
        if error_line(text):
            continue
        if m := _BINARY.match(text):
            col.list(_ref(col, m.group("a") or m.group("b"), cwd, base), True)
            continue
        if spec.list_files:
            if text.strip():
                col.list(_ref(col, text.strip(), cwd, base), True)
            continue
        if spec.count:
            m2 = _COUNT.match(text)
            if m2:
                col.list(_ref(col, m2.group("path"), cwd, base), True)
            continue
        if text == "--" or not text.strip():
            continue
        path = _line_path(text, group[0] if group else None, spec)
        if path is None:
            if _BARE_PATH.fullmatch(text) and _valid(text.strip(), spec.files, spec.recursive):
                col.list(_ref(col, text.strip(), cwd, base), None)  # a bare path (``| cut -d: -f1``)
            continue
        if fragment is not None:
            s, e = fragment
            if e > s and (path == cut or _line_path(shown[s:e], path, spec) == path):
                group = (path, s, e)
            fragment, cut = None, None
        last = path
        if group is not None and group[0] == path:
            group = (path, group[1], line.end)
        else:
            flush()
            group = (path, line.start, line.end)
    flush()


def _one_file(shown: str, block: Block, spec: GrepSpec) -> bool:
    """Whether a search of one operand that may be a file or a folder searched a file: no result line carries
    a ``path:`` prefix or is a path under the operand, and with ``-n`` every line starts with its number
    (``12:text``, ``13-context``); then every line is the operand's text."""
    seen = False
    for line in lines(shown, block):
        text = line.text
        if line.partial or not text.strip() or text == "--" or error_line(text):
            continue
        if _line_path(text, None, spec) is not None:
            return False
        if spec.numbers and not _NUMBERED.match(text):
            return False
        if _BARE_PATH.fullmatch(text) and _valid(text.strip(), spec.files, True):
            return False
        seen = True
    return seen


def _line_path(text: str, current: str | None, spec: GrepSpec) -> str | None:
    """The file a prefixed grep line belongs to (the current file first: context lines use ``-``)."""
    if (
        current is not None
        and text.startswith(current)
        and text[len(current) : len(current) + 1] in (":", "-")
    ):
        return current
    for rx in (_MATCH, _CONTEXT, _MATCH_NO_LINE):
        m = rx.match(text)
        if m and _valid(m.group("path"), spec.files, spec.recursive):
            return m.group("path")
    return None


def _ref(col: Collector, path: str, cwd: str | None, base: str | None) -> Ref:
    if base is not None and not path.startswith("/"):
        path = posixpath.join(base, path)
    return col.ref(path, cwd)


def parse_semfs(col: Collector, shown: str, block: Block, cwd: str | None, words: list[Word]) -> None:
    """``semfs grep QUERY [DIR]`` (semfs's semantic search): ``/<path>:<start>-<end>:<chunk>`` result lines whose
    chunk is verbatim file text; the path is relative to the mount, which is the directory searched."""
    operands = [w.text for w in words[1:] if not w.text.startswith("-")]
    base = operands[1] if len(operands) > 1 else "."
    group: tuple[str, int, int] | None = None
    for line in lines(shown, block):
        m = _SEMFS.match(line.text)
        if line.partial or m is None:
            if line.text.startswith("#") or not line.text.strip():
                continue
            if group is not None:
                col.read(col.ref(posixpath.join(base, group[0]), cwd), group[1], group[2])
                group = None
            continue
        path = m.group("path")
        if group is not None and group[0] == path:
            group = (path, group[1], line.end)
            continue
        if group is not None:
            col.read(col.ref(posixpath.join(base, group[0]), cwd), group[1], group[2])
        group = (path, line.start, line.end)
    if group is not None:
        col.read(col.ref(posixpath.join(base, group[0]), cwd), group[1], group[2])


def accepts(line: Line, spec: GrepSpec) -> bool:
    """Whether a line looks like this search's output (for splitting ``a && grep ...`` outputs)."""
    if spec.list_files or not spec.prefix:
        return False
    if spec.count:
        m = _COUNT.match(line.text)
        return m is not None and _valid(m.group("path"), spec.files, spec.recursive)
    if _COUNT.match(line.text) or (
        spec.numbers and not _MATCH.match(line.text) and not _CONTEXT.match(line.text)
    ):
        return line.text == "--"
    return line.text == "--" or _line_path(line.text, None, spec) is not None

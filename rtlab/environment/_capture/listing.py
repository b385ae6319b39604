"""Listing outputs: ``ls`` (long, recursive, classified), ``find`` (``-type``, ``-ls``, ``-printf``), ``tree``,
``fd``, ``du``, ``wc``, ``file``, ``stat``, ``realpath`` and list actions. Every path they show
is *listed*; folders are dropped where the output says so (``ls -l`` mode ``d``, a trailing ``/`` (so under
``ls -F``/``-p`` an unmarked name is a file), ``tree``'s nesting, ``file``'s ``directory``, ``find -type``, ``git
ls-files``: files only), and recorded as folders; elsewhere :func:`rtlab.environment._capture.collect.has_extension`
decides, unless the step shows the path to be a folder.
"""

from __future__ import annotations

import posixpath
import re

from rtlab.environment._capture.collect import Collector
from rtlab.environment._capture.frame import Block, Line, error_line, lines
from rtlab.environment._capture.units import Args, split_args
from rtlab.text import Word

_DATE = (
    r"(?:[A-Z][a-z]{2}\s+\d{1,2}\s+(?:\d{1,2}:\d{2}|\d{4})"
    r"|\d{1,2}\s+[A-Z][a-z]{2}\.?\s+(?:\d{1,2}:\d{2}|\d{4})"
    r"|\d{1,2}月\s+\d{1,2}\s+(?:\d{1,2}:\d{2}|\d{4})"
    r"|\d{4}-\d{2}-\d{2}(?:[ T]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s*[+-]\d{4})?)?)"
)
LS_LONG = re.compile(
    r"^(?P<type>[-bcdlpsD])[-rwxsStTlL]{9}[.+@]?\s+\d+\s+(?:\S+\s+){0,2}?(?:\d+,\s*)?[\d.,]+[KMGTPEkB]?\s+"
    + _DATE
    + r"\s+(?P<name>.+)$"
)
_LS_LONG_LOOSE = re.compile(r"^(?P<type>[-bcdlps])[-rwxsStT]{9}\S*\s+(?:\S+\s+){7}(?P<name>.+)$")
_LS_TOTAL = re.compile(r"^total \d+(?:[.,]\d+)?[KMGT]?$")
_FIND_LS = re.compile(r"^\s*\d+\s+\d+\s+(?=[-bcdlps][-rwxsStT]{9})")
_TREE = re.compile(
    r"^(?P<indent>(?:[│|][\s\u00a0]{3}|[\s\u00a0]{4})*)(?:├──|└──|├─|└─|\|--|`--)[\s\u00a0](?P<name>.*)$"
)
_TREE_SUMMARY = re.compile(r"^\d+ director(?:y|ies)(?:, \d+ files?)?$")
_WC = re.compile(r"^\s*\d+(?:\s+\d+){0,3}\s+(?P<path>\S.*)$")
_DU = re.compile(r"^\s*[\d.,]+[KMGTPEB]?\s+(?P<path>\S.*)$")
_FILE = re.compile(r"^(?P<path>[^:\n]+?):\s+(?P<desc>\S.*)$")
_STAT_FILE = re.compile(r"^\s*File: [‘'\"]?(?P<path>.+?)[’'\"]?(?:\s+->\s+.*)?$")
_STAT_TYPE = re.compile(r"\b(?P<kind>regular (?:empty )?file|directory|symbolic link)\b")
_COLUMNS = re.compile(r"\s{2,}")
_GLOB = re.compile(r"[*?\[]")
_PATH_PRINTF = re.compile(r"%[pP](?:\\n|\n)?")
_NAME_PRINTF = re.compile(r"%f(?:\\n|\n| )?")


def _depth_one(expression: list[str]) -> bool:
    """``find START -maxdepth 1``: every path printed is an entry of START."""
    return any(
        t == "-maxdepth" and i + 1 < len(expression) and expression[i + 1] == "1"
        for i, t in enumerate(expression)
    )


def _name(raw: str, classify: bool) -> tuple[str, bool | None]:
    """An entry name without a symlink target or ``-F`` marker, and whether the entry is a file (None: the
    line does not say). Under ``-F``/``-p`` every folder ends in ``/``, so an unmarked name (or ``*``, an
    executable) is a file; ``@`` (a link) may point at either."""
    name = raw.split(" -> ", 1)[0]
    if name.endswith("/"):
        return name.rstrip("/"), False
    if not classify:
        return name, None
    if name[-1:] in "*@|=":
        return name[:-1], None if name[-1] != "*" else True
    return name, True


def _ls_entries(line: str, long_format: bool) -> list[tuple[str, bool | None]]:
    """``(name, is_file)`` for each entry on one ``ls`` line (None: the line does not say)."""
    m = LS_LONG.match(line) or _LS_LONG_LOOSE.match(line)
    if m:
        kind = m.group("type")
        name = m.group("name").split(" -> ", 1)[0]
        return [(name, kind == "-" if kind in "-d" else None)] if kind in "-dl" else []
    if long_format and _LS_TOTAL.match(line):
        return []
    if "  " in line.strip() and not long_format:
        return [(part, None) for part in _COLUMNS.split(line.strip()) if part]
    return [(line.strip(), None)] if line.strip() else []


def parse_ls(col: Collector, shown: str, block: Block, cwd: str | None, words: list[Word]) -> None:
    """``ls`` in all common forms; ``ls -R`` and several operands use their ``dir:`` headers for the folder."""
    args = split_args("ls", words)
    operands = [w.text for w in args.operands]
    long_format = args.has("-l", "-g", "-o", "-n")
    style = args.value("--indicator-style")
    classify = args.has("-F", "-p", "--classify", "--file-type") or (
        style is not None and style.text in ("slash", "file-type", "classify")
    )
    recursive = args.has("-R", "--recursive")
    directory = args.has("-d", "--directory")
    globbed = any(_GLOB.search(o) for o in operands)
    current = operands[0] if len(operands) == 1 and not directory and not globbed else "."
    headers = recursive or len(operands) > 1 or globbed
    for line in lines(shown, block):
        text = line.text.rstrip("\r")
        if line.partial or not text.strip() or error_line(text):
            continue
        if headers and text.endswith(":") and not LS_LONG.match(text):
            current = text[:-1]
            col.folder(col.ref(current, cwd))
            continue
        for raw, is_file in _ls_entries(text, long_format):
            name, marker = _name(raw, classify)
            if name in (".", "..") or not name:
                continue
            if is_file is None or marker is False:
                is_file = marker
            if name in operands or directory or name.startswith("/"):
                path = name
            else:
                path = posixpath.join(current, name)
            col.list(col.ref(path, cwd), is_file)


def find_parts(words: list[Word]) -> tuple[list[str], list[str]]:
    """``find``'s starting points and its expression words."""
    starts: list[str] = []
    i = 0
    while i < len(words) and words[i].text in ("-H", "-L", "-P"):
        i += 1
    while i < len(words) and not (words[i].text.startswith(("-", "(", "!", ",")) and words[i].text != "-"):
        starts.append(words[i].text)
        i += 1
    return starts or ["."], [w.text for w in words[i:]]


def find_exec(expression: list[str]) -> list[str] | None:
    """The command ``find -exec CMD ... {} ;`` runs on each file, if any."""
    for i, tok in enumerate(expression):
        if tok in ("-exec", "-execdir", "-ok", "-okdir"):
            cmd: list[str] = []
            for t in expression[i + 1 :]:
                if t in (";", "+", "\\;"):
                    break
                cmd.append(t)
            return cmd
    return None


def parse_find(col: Collector, shown: str, block: Block, cwd: str | None, words: list[Word]) -> None:
    """``find`` output: one path per line as printed (``-ls`` lines and ``-printf '%p'``/``'%P'`` understood)."""
    starts, expression = find_parts(words)
    types: set[str] = set()
    printf: str | None = None
    for i, tok in enumerate(expression):
        if tok in ("-type", "-xtype") and i + 1 < len(expression):
            types.update(expression[i + 1].split(","))
        if tok in ("-printf", "-fprintf") and i + 1 < len(expression):
            printf = expression[i + 1]
    is_file: bool | None = True if types == {"f"} else False if types == {"d"} else None
    relative_to = starts[0] if printf is not None and "%P" in printf and len(starts) == 1 else None
    if printf is not None and _NAME_PRINTF.fullmatch(printf) and len(starts) == 1 and _depth_one(expression):
        relative_to = starts[0]  # '%f' is the name alone: at depth 1 the path is START/name
    elif printf is not None and not _PATH_PRINTF.fullmatch(printf):
        return
    for line in lines(shown, block):
        text = line.text.rstrip("\r")
        if line.partial or not text.strip() or error_line(text):
            continue
        if m := _FIND_LS.match(text):
            entries = _ls_entries(text[m.end() :], True)
            for name, kind in entries:
                col.list(col.ref(name, cwd), kind)
            continue
        path = posixpath.join(relative_to, text) if relative_to else text
        col.list(col.ref(path, cwd), is_file)


def parse_tree(col: Collector, shown: str, block: Block, cwd: str | None, words: list[Word]) -> None:
    """``tree``: nesting rebuilds paths; an entry with children is a folder; leaves are files except at the
    ``-L`` depth limit (where the extension rule decides) and with ``-d``; ``-f`` prints full paths."""
    args = split_args("tree", words)
    if args.has("-d"):
        return
    full = args.has("-f")
    classify = args.has("-F")
    limit_word = args.value("-L")
    limit = int(limit_word.text) if limit_word is not None and limit_word.text.isdigit() else None
    entries: list[tuple[int, str]] = []  # (depth, path)
    root = "."
    stack: list[str] = []
    for line in lines(shown, block):
        text = line.text.rstrip("\r")
        if line.partial or not text.strip() or _TREE_SUMMARY.match(text.strip()):
            continue
        m = _TREE.match(text)
        if m is None:
            if entries or stack or text.strip():
                root = text.strip()
                stack = []
            continue
        depth = len(m.group("indent")) // 4 + 1
        raw = m.group("name").split(" -> ", 1)[0]
        if raw.startswith("[") and raw.endswith("]") and "error" in raw:
            continue
        del stack[depth - 1 :]
        stack.append(raw)
        path = raw if full else posixpath.join(root, *stack)
        entries.append((depth, path))
    for i, (depth, path) in enumerate(entries):
        has_children = i + 1 < len(entries) and entries[i + 1][0] > depth
        if has_children or path.endswith("/"):
            col.folder(col.ref(path.rstrip("/"), cwd))
            continue
        name = path.rstrip("*@|=") if classify else path
        if limit is not None and depth >= limit:
            col.list(col.ref(name, cwd), None)
        else:
            col.list(col.ref(name, cwd), True)


def parse_fd(col: Collector, shown: str, block: Block, cwd: str | None, words: list[Word]) -> None:
    """``fd``: one path per line relative to the working directory; ``-t f`` files, ``-t d`` folders."""
    args = split_args("fd", words)
    types = {w.text for w in args.values.get("-t", []) + args.values.get("--type", [])}
    folders = bool(types) and types <= {"d", "directory"}
    is_file = True if types and types <= {"f", "file"} else False if folders else None
    for line in lines(shown, block):
        text = line.text.rstrip("\r")
        if line.partial or not text.strip() or error_line(text):
            continue
        col.list(col.ref(text.rstrip("/"), cwd), False if text.endswith("/") else is_file)


def parse_paths(
    col: Collector,
    shown: str,
    block: Block,
    cwd: str | None,
    base: str | None = None,
    *,
    is_file: bool | None = None,
) -> None:
    """One path per line (``realpath``, ``locate``, list actions: relative to ``base``); ``is_file`` True for
    commands that print files only (``git ls-files``). A trailing ``/`` marks a folder."""
    for line in lines(shown, block):
        text = line.text.rstrip("\r")
        if line.partial or not text.strip() or error_line(text) or text.startswith("["):
            continue
        folder = text.endswith("/")
        text = text.rstrip("/")
        path = posixpath.join(base, text) if base and not text.startswith("/") else text
        col.list(col.ref(path, cwd), False if folder else is_file)


def parse_wc(col: Collector, shown: str, block: Block, cwd: str | None, words: list[Word]) -> None:
    """``wc FILE...``: ``counts path`` lines (``total`` skipped). Without files it only counts: nothing."""
    args = split_args("wc", words)
    if not args.operands:
        return
    _regex_paths(col, shown, block, cwd, _WC, skip={"total"}, is_file=True)


def parse_du(col: Collector, shown: str, block: Block, cwd: str | None, words: list[Word]) -> None:
    """``du``: ``size path`` lines; folders are not marked, so the extension rule decides."""
    _regex_paths(col, shown, block, cwd, _DU, skip={"total"}, is_file=None)


def _regex_paths(
    col: Collector,
    shown: str,
    block: Block,
    cwd: str | None,
    rx: re.Pattern[str],
    skip: set[str],
    is_file: bool | None,
) -> None:
    for line in lines(shown, block):
        text = line.text.rstrip("\r")
        if line.partial or error_line(text):
            continue
        m = rx.match(text)
        if m and m.group("path") not in skip:
            col.list(col.ref(m.group("path"), cwd), is_file)


def parse_file(col: Collector, shown: str, block: Block, cwd: str | None, words: list[Word]) -> None:
    """``file PATH...``: ``path: description``; ``directory`` descriptions are folders."""
    for line in lines(shown, block):
        m = _FILE.match(line.text)
        if line.partial or m is None or error_line(line.text):
            continue
        desc = m.group("desc")
        if desc.startswith(("cannot open", "ERROR")):
            continue
        col.list(col.ref(m.group("path"), cwd), not desc.startswith("directory"))


def parse_stat(col: Collector, shown: str, block: Block, cwd: str | None, words: list[Word]) -> None:
    """GNU ``stat``'s ``File:`` lines (the ``Size:`` line says file or folder); with ``-c``/``--format``, the
    operands that appear in the output."""
    args = split_args("stat", words)
    text = shown[block.start : block.end]
    pending: str | None = None
    found = False
    for line in lines(shown, block):
        if m := _STAT_FILE.match(line.text):
            if pending is not None:
                col.list(col.ref(pending, cwd), None)
            pending = m.group("path")
            found = True
        elif pending is not None and (t := _STAT_TYPE.search(line.text)):
            kind = t.group("kind")
            if not kind.startswith("symbolic"):  # a link may point at a file or a folder
                col.list(col.ref(pending, cwd), kind.startswith("regular"))
            pending = None
    if pending is not None:
        col.list(col.ref(pending, cwd), None)
    if not found:
        for w in args.operands:
            if w.text and w.text in text:
                col.list(col.ref(w.text, cwd), None)


def operands_in_output(col: Collector, shown: str, block: Block, cwd: str | None, args: Args) -> None:
    """Fallback for listing commands with an unknown format: each operand that the output repeats is listed."""
    text = shown[block.start : block.end]
    for w in args.operands:
        if len(w.text) > 2 and w.text in text:
            col.list(col.ref(w.text, cwd), None)


def strict_accepts(name: str, line: Line) -> bool:
    """Whether a line fits the output of a command with a recognisable line format (for splitting the output
    of ``a && b && c`` between commands with no separator printed between them)."""
    text = line.text
    if name == "pwd":
        return text.startswith(("/", "~"))
    if name == "ls-plain":
        return (
            bool(text.strip())
            and "/" not in text
            and len(text) < 256
            and text.isprintable()
            and not text.startswith(("#", " ", "\t"))
        )
    if name == "ls-long":
        return bool(
            not text.strip() or _LS_TOTAL.match(text) or LS_LONG.match(text) or _LS_LONG_LOOSE.match(text)
        )
    if name == "wc":
        return bool(_WC.match(text))
    if name == "du":
        return bool(_DU.match(text))
    if name == "file":
        return bool(_FILE.match(text))
    return False

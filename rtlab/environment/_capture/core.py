"""``capture_step``: the environment's own decision, per step, of which files were read and which only listed.

Order of work for one step:

1. The output regions (:mod:`rtlab.environment._capture.frame`): the shown text without the frames its
   reader marked (headers, notices, clip markers), one region per command part.
2. The step's typed action (:class:`rtlab.records.Action`) says what the call did: a ``read`` shows a file,
   ``write``/``edit`` change one, ``search`` and ``list`` print paths (relative to the action's ``base``), a
   ``script`` is a program (Python, JavaScript, Ruby, Perl), a ``shell`` call is a command line.
3. Shell commands are parsed into units (:mod:`rtlab.environment._capture.units`); ``echo``/``printf`` output (known text)
   splits the output between units, and consecutive units with recognisable line formats (``pwd``,
   ``ls -l``, ``wc``) split by line shape; each unit's part goes to its family's parser. A workspace
   resolves the words of loops, ``xargs`` and ``find -exec`` (:class:`_WorkspaceResolver`).
4. With a :class:`rtlab.environment._workspace.Workspace`, every read of a text file in it is confirmed by content
   matching (and trimmed to the matching text, or dropped when its content does not appear; git's reads
   are not: another version, or named line by line), and what no structural rule attributed is matched
   against the whole workspace (scripts printing slices).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field, replace
from fnmatch import fnmatchcase
from typing import Literal

from rtlab.environment._capture import frame as fr
from rtlab.environment._capture import git, listing
from rtlab.environment._capture import python as py
from rtlab.environment._capture import scripts as other_scripts
from rtlab.environment._capture.collect import Collector, Hit
from rtlab.environment._capture.families import Source, unit_source, unit_writes
from rtlab.environment._capture.grep import GrepSpec, accepts, parse_grep, parse_semfs
from rtlab.environment._capture.listing import find_parts
from rtlab.environment._capture.matching import find_spans
from rtlab.environment._capture.scripts import Language
from rtlab.environment._capture.units import Item, Repeat, Stage, Unit, units
from rtlab.environment._workspace import Workspace
from rtlab.records import Step
from rtlab.text import Redirect, Word, normalize_path


@dataclass(frozen=True)
class CapturedRead:
    """A file whose content the model was shown in this step, and the part of the shown text that was it."""

    path: str
    """The file, normalised with :func:`rtlab.text._paths.normalize_path` (relative to the root when under it)."""
    excerpt: str
    """Exactly as shown: ``step.shown[start:start + len(excerpt)] == excerpt``."""
    start: int
    """Offset of the excerpt in ``step.shown``."""
    revision: str | None = None
    """The git revision the excerpt shows the file at, as the command named it (``git show 7431e120:Jenkinsfile``
    gives ``7431e120``; a patch of ``git show``/``git log -p`` the commit it prints; ``:0`` the index); None for
    the working copy."""


DerivedKind = Literal["count", "size", "computed"]
DERIVED_KINDS: tuple[DerivedKind, ...] = ("count", "size", "computed")


@dataclass(frozen=True)
class CapturedDerived:
    """Output that is a value computed from files rather than their content: what the read log, which keeps
    file content only, never holds (the paper's footnote to its 94.8%).

    Kinds, each decided where capture already knew the output is not content: ``count`` (a pipeline ending
    in a count, ``grep x f | wc -l``, ``cat f | wc -l``; ``wc`` of files; ``grep -c``), ``size`` (``du``,
    ``stat``, ``ls -l``: sizes and dates beside paths) and ``computed`` (what a program printed that no
    rule attributed to a file it read and that holds a digit: a sum, a mean, a length)."""

    kind: DerivedKind
    """``count``, ``size`` or ``computed``."""
    text: str
    """The output exactly as shown: ``step.shown[start:start + len(text)] == text``."""
    start: int
    """Offset of the text in ``step.shown``."""
    sources: tuple[str, ...] = ()
    """The files the command read or was pointed at, normalised like :attr:`CapturedRead.path` (a count's
    pipeline source, ``wc``'s and ``grep -c``'s operands, a program's input files); empty when it names none."""


@dataclass(frozen=True)
class Capture:
    """What one step read, only listed, and wrote."""

    reads: tuple[CapturedRead, ...] = ()
    """Files whose content was shown, one entry per excerpt, in the order they appear."""
    listed: tuple[str, ...] = ()
    """Paths that appeared in the shown text while their content did not (folders left out)."""
    written: tuple[str, ...] = ()
    """Paths the step wrote (normalised like ``CapturedRead.path``)."""
    folders: tuple[str, ...] = ()
    """Paths the step showed to be folders (``ls -l`` mode ``d``, a trailing ``/``, ``tree`` nesting, ``find
    -type d``, a ``cd`` target): the tab never takes them for listed files, in this step or a later one."""
    derived: tuple[CapturedDerived, ...] = field(default=(), compare=False)
    """Output that is a value computed from files (counts, sizes, programs' results), in order: kept by the tab
    only when ``TabConfig.derived`` is on. Left out of equality: it is what a step computed, not what it read,
    listed, wrote or showed to be a folder."""


EMPTY = Capture()

_READ_ERROR = re.compile(
    r"^(?:Error|ERROR|error|\[Errno|ENOENT|EISDIR|EACCES|File not found|No such file|Path not found|"
    r"Invalid `path`|The path .* does not exist|Failed to read|Cannot read|Could not read|Read image file)"
)
"""A read tool's reply that is an error message, not the file."""
_LS_LONG_FLAG = re.compile(r"^-[a-zA-Z]*[lgon]")
_NON_WORD = re.compile(r"\W")


def capture_step(
    step: Step, *, cwd: str | None = None, root: str | None = None, workspace: Workspace | None = None
) -> Capture:
    """Which files this step read (with their excerpts as shown), only listed, and wrote.

    ``cwd`` is the agent's working directory when the step does not record one (``step.cwd`` wins); ``root``
    the workspace root as the agent knew it (defaults to ``workspace.agent_root``). An unanswered step, or
    one that printed only an error, reads nothing.
    """
    if not step.answered or step.shown is None:
        return EMPTY
    shown = step.shown
    cwd = step.cwd or cwd
    if root is None and workspace is not None:
        root = workspace.agent_root
    col = Collector(shown, normalize_path(root) if root else None, workspace)
    regions = _structural(col, step, cwd)
    if workspace is not None:
        _match_content(col, shown, regions, workspace)
    return _result(col)


def _structural(col: Collector, step: Step, cwd: str | None) -> list[fr.Region]:
    """Attribute the step's output by what its action says it did; the regions left for content matching."""
    action = step.action
    if action is None:
        return []
    kind = action.kind
    if kind == "shell":
        return _shell(col, step, cwd)
    if kind == "read" and action.path is not None:
        return _read(col, step, action.path, cwd)
    if kind in ("write", "edit"):
        if not step.is_error:
            for part in action.parts or (action,):
                if part.path is not None:
                    col.write(col.ref(part.path, cwd))
        return []
    if kind == "script":
        return _script(col, step, action.command or "", cwd)
    if kind in ("search", "list"):
        region = fr.regions(step)[0]
        if kind == "search":
            spec = GrepSpec(files=[], prefix=True, recursive=True, numbers=action.line_numbers)
            parse_grep(col, step.shown or "", region.block, cwd, spec, base=action.base)
        else:
            listing.parse_paths(col, step.shown or "", region.block, cwd, base=action.base)
        return [region]
    return []


# ---------------------------------------------------------------------------------------------------------
# A file shown whole, a program run by the harness


def _read(col: Collector, step: Step, path: str, cwd: str | None) -> list[fr.Region]:
    shown = step.shown or ""
    region = fr.regions(step)[0]
    if step.is_error or _READ_ERROR.match(shown[region.block.start :].lstrip()):
        return []
    ref = col.ref(path, cwd)
    col.named.add(ref.key)
    for s, e in region.block.pieces:
        col.read(ref, s, e)
    return [fr.Region("", region.block)]


_LANGUAGES: dict[str, Language] = {
    "javascript": "javascript", "js": "javascript", "node": "javascript", "typescript": "javascript",
    "ruby": "ruby", "perl": "perl",
}  # fmt: skip


def _script(col: Collector, step: Step, code: str, cwd: str | None) -> list[fr.Region]:
    """A program the harness ran (a ``script`` action; Python unless its ``language`` says otherwise): what
    it wrote, read and printed."""
    shown = step.shown or ""
    region = fr.regions(step)[0]
    language = _LANGUAGES.get((step.action.language or "python").lower()) if step.action else None
    script = other_scripts.analyze(code, language) if language is not None else py.analyze(code)
    for w in script.writes:
        col.write(col.ref(w, cwd))
    for p in script.inputs:
        col.named.add(col.ref(p, cwd).key)
    block = fr.without_errors(shown, region.block)
    py.attribute(col, shown, block, cwd, script)
    col.derive("computed", block.pieces, [col.ref(p, cwd).key for p in script.inputs])
    return [region]


# ---------------------------------------------------------------------------------------------------------
# Shell commands


def _shell(col: Collector, step: Step, cwd: str | None) -> list[fr.Region]:
    shown = step.shown or ""
    found = fr.regions(step)
    resolver = _WorkspaceResolver(col.workspace) if col.workspace is not None else None
    for region in found:
        items = units(region.command, cwd, resolve=resolver)
        missing = (
            frozenset(m.group("name") for m in _NOT_FOUND.finditer(shown))
            if "not found" in shown
            else frozenset()
        )
        _note_writes(col, items, missing)
        _note_folders(col, items, cwd, shown)
        for item, part in _segment(col, shown, items, region.block, region.exit_code):
            _attribute(col, shown, item, part)
    return found


_NOT_FOUND = re.compile(r"(?m)^(?:[\w./-]+: )?(?:line \d+: )?(?P<name>[\w.+-]+): (?:command )?not found$")
"""The shell's word that a command does not exist (``/bin/bash: line 1: python: command not found``)."""


def _note_writes(col: Collector, items: list[Item], missing: frozenset[str] = frozenset()) -> None:
    """What the units write (a unit whose command the shell did not find, ``missing``, ran nothing) and the
    files they name."""
    for item in items:
        if isinstance(item, Repeat):
            _note_writes(col, item.body, missing)
            continue
        src = unit_source(item, item.cwd)
        if item.stages[0].name not in missing:
            for path in unit_writes(item, src.script):
                col.write(col.ref(path, item.cwd))
        for path in src.files if src.family in ("content", "script", "grep", "gitblame") else []:
            col.named.add(col.ref(path, item.cwd).key)


_CD_FAILED = re.compile(r"(?m)\bcd: ")
"""A shell's message that a ``cd`` failed (``bash: line 1: cd: nope: No such file or directory``)."""


def _note_folders(col: Collector, items: list[Item], cwd: str | None, shown: str) -> None:
    """The folders a command ``cd``-ed into (the working directories of its units), unless a ``cd`` failed."""
    moved = [i.cwd for i in items if i.cwd is not None and i.cwd != cwd and not i.cwd.startswith("~")]
    if not moved or ("cd: " in shown and _CD_FAILED.search(shown)):
        return
    for folder in dict.fromkeys(moved):
        col.folder(col.ref(folder, None))


def _emission(item: Item) -> tuple[str, re.Pattern[str] | Source | None]:
    """``("silent", None)``, ``("literal", regex)`` or ``("dynamic", source)`` for one unit."""
    if isinstance(item, Repeat):
        return "dynamic", None
    src = unit_source(item, item.cwd)
    if item.silent_output or src.family == "silent":
        return "silent", None
    if src.family == "literal":
        rx = _anchor(src.literal or [])
        return ("literal", rx) if rx is not None else ("silent", None)
    return "dynamic", src


def _anchor(tokens: list[tuple[str, str]]) -> re.Pattern[str] | None:
    """A regex for a literal output; None when it holds no visible literal text (nothing to anchor on)."""
    if not any(k == "lit" and t.strip() for k, t in tokens):
        return None
    parts: list[str] = []
    groups: set[str] = set()
    for i, (kind, text) in enumerate(tokens):
        last = i == len(tokens) - 1
        if kind == "lit":
            parts.append(re.escape(text))
        elif kind == "var":
            group = "v_" + _group(text)
            if group in groups:
                parts.append(f"(?P={group})")
            else:
                groups.add(group)
                parts.append(f"(?P<{group}>[^\\n]*{'' if last else '?'})")
        else:
            parts.append("[^\\n]*" + ("" if last else "?"))
    return re.compile("".join(parts))


def _find_anchor(rx: re.Pattern[str], shown: str, start: int, end: int) -> re.Match[str] | None:
    """The first match that starts a line (``echo`` prints whole lines); None when there is none."""
    for n, m in enumerate(rx.finditer(shown, start, end)):
        if m.start() == start or shown[m.start() - 1] == "\n" or m.group(0).startswith("\n"):
            return m
        if n > 1000:
            break
    return None


def _segment(
    col: Collector, shown: str, items: list[Item], block: fr.Block, exit_code: int | None = 0
) -> list[tuple[Item, fr.Block]]:
    """Each emitting unit with its part of the block, split at the literal outputs.

    A literal that should have been printed but is missing means one of two things. After a failure
    (non-zero exit) an ``&&`` chain stopped there: the units after it never ran. After a success the output
    before it was lost (Codex can drop the first chunks of a command's output, openai/codex#37207): the
    units before it printed nothing that survived.
    """
    out: list[tuple[Item, fr.Block]] = []
    pending: list[tuple[Item, Source | None]] = []
    cursor = block.start
    stopped = False
    for item in items:
        kind, info = _emission(item)
        if stopped and getattr(item, "connector", ";") == "&&":
            continue
        stopped = False
        if kind == "silent":
            continue
        if kind == "literal":
            m = _find_anchor(info, shown, cursor, block.end)  # type: ignore[arg-type]
            if m is None:
                if exit_code:
                    stopped = True
                else:
                    pending = []
                continue
            _assign(shown, out, pending, block.within(cursor, m.start()))
            col.literal.append((m.start(), m.end()))
            pending = []
            cursor = m.end()
            continue
        pending.append((item, info))  # type: ignore[arg-type]
    _assign(shown, out, pending, block.within(cursor, block.end))
    return out


def _acceptor(src: Source | None) -> tuple[object, int] | None:
    """A strict line test and the most lines it takes, for units whose output has a recognisable shape."""
    if src is None:
        return None
    if src.family == "pwd":
        return "pwd", 1
    if src.family == "listing":
        if src.name == "ls":
            long_format = any(_LS_LONG_FLAG.match(w.text) for w in src.words)
            return ("ls-long" if long_format else "ls-plain"), 1 << 30
        operands = [w for w in src.words if not w.text.startswith("-")]
        if src.name in ("wc", "file"):
            return src.name, len(operands) + (1 if src.name == "wc" and len(operands) > 1 else 0)
        if src.name == "du":
            return src.name, 1 << 30
    if src.family == "grep" and src.grep is not None and src.grep.prefix and not src.grep.list_files:
        return src.grep, 1 << 30
    return None


def _accepts(test: object, line: fr.Line) -> bool:
    if isinstance(test, GrepSpec):
        return accepts(line, test)
    return listing.strict_accepts(str(test), line)


def _assign(
    shown: str, out: list[tuple[Item, fr.Block]], pending: list[tuple[Item, Source | None]], part: fr.Block
) -> None:
    """Give ``part`` to the pending units: one takes it whole; several split by their line shapes (strict
    units from the front and the back), and the units with no recognisable shape share what is left (each
    gets all of it: capture cannot tell their parts apart). Results keep the units' command order."""
    if not pending or part.empty(shown):
        return
    if len(pending) > 1:
        pending = _without_failed(shown, pending, part) or pending
    if len(pending) == 1:
        out.append((pending[0][0], part))
        return
    found = list(fr.lines(shown, part))
    tests = [_acceptor(src) for _, src in pending]
    owner: list[int | None] = [None] * len(found)
    any_units = [i for i, t in enumerate(tests) if t is None]
    first_any = any_units[0] if any_units else len(pending)
    last_any = any_units[-1] if any_units else len(pending)
    pos = _take(found, owner, tests, range(0, first_any), forward=True)
    end = len(found) - 1
    if any_units:
        end = _take(found, owner, tests, range(len(pending) - 1, last_any, -1), forward=False, stop=pos)
    spans: dict[int, fr.Block] = {}
    if any_units and pos <= end:
        shared = part.within(found[pos].start, found[end].end)
        spans.update({i: shared for i in _sharing(pending, any_units)})
    bounds: dict[int, tuple[int, int]] = {}
    for line, unit in zip(found, owner, strict=True):
        if unit is not None:
            first = bounds.get(unit, (line.start, line.end))[0]
            bounds[unit] = (first, line.end)
    for unit, (first, last) in bounds.items():
        spans[unit] = part.within(first, last)
    out.extend((pending[i][0], spans[i]) for i in sorted(spans))


def _sharing(pending: list[tuple[Item, Source | None]], any_units: list[int]) -> list[int]:
    """The units with no recognisable line shape that share a text, less the iterations of a loop: a loop over
    several files whose outputs nothing tells apart (``for f in a b; do cat "$f"; done``) credits none of
    them (each would get every file's text)."""
    iterations: dict[int, set[int]] = {}
    for i in any_units:
        item = pending[i][0]
        if isinstance(item, Unit) and item.loop is not None:
            iterations.setdefault(item.loop[0], set()).add(item.loop[1])
    mixed = {loop for loop, seen in iterations.items() if len(seen) > 1}
    if not mixed:
        return any_units
    return [
        i
        for i in any_units
        if not (isinstance(item := pending[i][0], Unit) and item.loop is not None and item.loop[0] in mixed)
    ]


def _take(
    found: list[fr.Line],
    owner: list[int | None],
    tests: list[tuple[object, int] | None],
    order: range,
    *,
    forward: bool,
    stop: int = 0,
) -> int:
    """Assign lines to strict units in ``order`` while they accept them; the first line left (forward) or
    the last line left (backward). A line cut by a clip marker whose shape does not pass goes with the unit
    when the next whole line does (the marker cut a line of its output)."""
    pos = 0 if forward else len(found) - 1
    units = iter(order)
    unit = next(units, None)
    taken = 0
    while unit is not None and (pos < len(found) if forward else pos >= stop):
        test, limit = tests[unit]  # type: ignore[misc]
        line = found[pos]
        blank = not line.text.strip()
        if (
            (blank and (taken or not forward))
            or (taken < limit and _accepts(test, line))
            or (line.partial and taken < limit and _continues(found, pos, test, forward))
        ):
            owner[pos] = unit
            pos += 1 if forward else -1
            taken += 0 if blank or line.partial else 1
        else:
            unit, taken = next(units, None), 0
    return pos


def _continues(found: list[fr.Line], pos: int, test: object, forward: bool) -> bool:
    """Whether the first whole line past the cut lines at ``pos`` (in the direction of the walk) passes."""
    step = 1 if forward else -1
    k = pos + step
    while 0 <= k < len(found) and (found[k].partial or not found[k].text.strip()):
        k += step
    return 0 <= k < len(found) and _accepts(test, found[k])


def _without_failed(
    shown: str, pending: list[tuple[Item, Source | None]], part: fr.Block
) -> list[tuple[Item, Source | None]]:
    """Pending units minus content commands whose every file an error message in the part names
    (``cat: nope.txt: No such file or directory``): they printed nothing else."""
    errors = [ln.text for ln in fr.lines(shown, part) if fr.error_line(ln.text)]
    if not errors:
        return pending
    kept = []
    for item, src in pending:
        files = src.files if src is not None and src.family in ("content", "grep") else []
        if files and all(any(f in e for e in errors) for f in files):
            continue
        kept.append((item, src))
    return kept


def _attribute(col: Collector, shown: str, item: Item, part: fr.Block) -> None:
    if isinstance(item, Repeat):
        _attribute_repeat(col, shown, item, part)
        return
    src = unit_source(item, item.cwd)
    cwd = item.cwd
    block = fr.without_errors(shown, part)
    if not block.pieces:
        return
    family = src.family
    kind = _derived_kind(src)
    if kind is not None:
        col.derive(kind, block.pieces, [col.ref(f, cwd).key for f in src.files])
    if family == "content":
        _content(col, shown, block, cwd, src)
    elif family == "listing":
        _listing(col, shown, block, cwd, src)
    elif family == "grep" and src.grep is not None:
        parse_grep(col, shown, block, cwd, src.grep)
    elif family == "semfs":
        parse_semfs(col, shown, block, cwd, src.words)
    elif family == "script" and src.script is not None:
        py.attribute(col, shown, block, cwd, src.script)
    elif family == "gitpatch" and src.git is not None:
        git.parse_patch(col, shown, block, cwd, src.git)
    elif family == "gitblame" and src.git is not None:
        git.parse_blame(col, shown, block, cwd, src.git)


def _derived_kind(src: Source) -> DerivedKind | None:
    """What kind of computed value a unit's output is (:class:`CapturedDerived`), or None when it is content or
    paths: the families that capture already knows read nothing."""
    if src.family == "count" or (src.family == "listing" and src.name == "wc"):
        return "count"
    if src.family == "grep" and src.grep is not None and src.grep.count:
        return "count"
    if src.family == "listing" and (
        src.name in ("du", "stat")
        or (src.name == "ls" and any(_LS_LONG_FLAG.match(w.text) for w in src.words))
    ):
        return "size"
    if src.family == "script":
        return "computed"
    return None


_HEAD_HEADER = re.compile(r"^==> (?P<name>.+) <==$")


def _content(col: Collector, shown: str, block: fr.Block, cwd: str | None, src: Source) -> None:
    """cat-like output: one file's text whole; ``head``/``tail`` headers split several; several files with no
    headers each get the whole text (capture cannot tell where one ends without a workspace)."""
    headers = (
        [
            (ln.start, ln.end + 1, m.group("name"))
            for ln in fr.lines(shown, block)
            if (m := _HEAD_HEADER.match(ln.text))
        ]
        if src.headers
        else []
    )
    if not headers:
        if len(src.files) > 1 and not src.share:
            return
        for path in src.files:
            for s, e in block.pieces:
                col.read(col.ref(path, cwd), s, e, revision=src.revision)
        return
    bounds = [h[0] for h in headers[1:]] + [block.end]
    for (_, content_start, name), bound in zip(headers, bounds, strict=True):
        part = block.within(content_start, bound)
        owner: str | None = name
        for i, (s, e) in enumerate(part.pieces):
            if owner is not None:
                col.read(col.ref(owner, cwd), s, e)
            if part.clip_after(i):
                owner = _owner_after_cut(name, headers, bound, src.files)


def _owner_after_cut(
    name: str, headers: list[tuple[int, int, str]], bound: int, files: list[str]
) -> str | None:
    """Whose text follows a clip marker that cut ``name``'s header's successors: by the operands' order."""
    if name not in files:
        return None
    following = [h[2] for h in headers if h[0] >= bound and h[2] in files]
    index = files.index(following[0]) - 1 if following else len(files) - 1
    return files[index] if index >= files.index(name) else None


def _listing(col: Collector, shown: str, block: fr.Block, cwd: str | None, src: Source) -> None:
    words = src.words
    parser = {
        "ls": listing.parse_ls,
        "find": listing.parse_find,
        "tree": listing.parse_tree,
        "fd": listing.parse_fd,
        "du": listing.parse_du,
        "wc": listing.parse_wc,
        "file": listing.parse_file,
        "stat": listing.parse_stat,
    }.get(src.name)
    if parser is not None:
        parser(col, shown, block, cwd, words)
    elif src.name in ("paths", "files"):
        listing.parse_paths(col, shown, block, cwd, is_file=True if src.name == "files" else None)


def _attribute_repeat(col: Collector, shown: str, rep: Repeat, part: fr.Block) -> None:
    """A loop over unknown words: iterations found by the body's ``echo ... $var`` line (the var's value is
    the file); with no such line, a body with one search or listing command is parsed as a whole."""
    emissions = [_emission(item) for item in rep.body]
    anchor_at = next(
        (
            i
            for i, (kind, info) in enumerate(emissions)
            if kind == "literal"
            and isinstance(info, re.Pattern)
            and f"v_{_group(rep.var)}" in info.groupindex
        ),
        None,
    )
    if anchor_at is None:
        if rep.values is not None and len(rep.values) == 1:  # one file: the whole output is its iteration's
            bound = [_bind(item, {rep.var: rep.values[0]}) for item in rep.body]
            for item, sub in _segment(col, shown, bound, part, 0):
                _attribute(col, shown, item, sub)
            return
        dynamic = [
            (item, info) for item, (kind, info) in zip(rep.body, emissions, strict=True) if kind == "dynamic"
        ]
        if (
            len(dynamic) == 1
            and isinstance(dynamic[0][1], Source)
            and dynamic[0][1].family in ("grep", "listing")
        ):
            _attribute(col, shown, dynamic[0][0], part)  # prefixed lines name their files themselves
        return
    rx: re.Pattern[str] = emissions[anchor_at][1]  # type: ignore[assignment]
    before = sum(1 for kind, _ in emissions[:anchor_at] if kind != "silent")
    matches = [
        m
        for m in rx.finditer(shown, part.start, part.end)
        if m.start() == 0 or shown[m.start() - 1] == "\n" or m.group(0).startswith("\n")
    ]
    for k, m in enumerate(matches):
        value = m.group(f"v_{_group(rep.var)}")
        if before == 0:
            start, end = m.start(), matches[k + 1].start() if k + 1 < len(matches) else part.end
        else:
            start, end = (matches[k - 1].end() if k else part.start), m.end()
        bound = [_bind(item, {rep.var: value}) for item in rep.body]
        for item, sub in _segment(col, shown, bound, part.within(start, end), 0):
            _attribute(col, shown, item, sub)


def _group(name: str) -> str:
    return _NON_WORD.sub("_", name)


def _bind(item: Item, env: dict[str, str]) -> Item:
    if isinstance(item, Repeat):
        return Repeat(item.var, [_bind(i, env) for i in item.body], item.cwd, item.items, item.values)
    stages = [
        Stage(
            s.name,
            [w.resolve(env) for w in s.words],
            [
                Redirect(r.op, r.fd, r.target.resolve(env) if r.target else None, r.heredoc)
                for r in s.redirects
            ],
            s.argv0,
        )
        for s in item.stages
    ]
    return replace(item, stages=stages, source=None)


class _WorkspaceResolver:
    """What the workspace tells of the words a loop, ``xargs`` or ``find -exec`` runs over
    (:class:`rtlab.environment._capture.units.Resolver`): paths as the command would print them."""

    def __init__(self, workspace: Workspace) -> None:
        self.workspace = workspace

    def _as_printed(self, found: list[str], pattern: str, cwd: str | None) -> list[str]:
        ws = self.workspace
        if pattern.startswith("/") or cwd is None or ws.agent_root is None:
            base = ws.agent_root if pattern.startswith("/") else None
            return [posixpath.join(base, f) if base else f for f in found]
        return [posixpath.relpath(posixpath.join(ws.agent_root, f), cwd) for f in found]

    def glob(self, pattern: str, cwd: str | None) -> list[str] | None:
        rel = self.workspace.to_local(normalize_path(pattern, cwd=cwd))
        if rel is None:
            return None
        rx = re.compile(_glob_regex(rel))
        return self._as_printed([f for f in self.workspace.files() if rx.fullmatch(f)], pattern, cwd)

    def find(self, words: list[Word], cwd: str | None) -> list[str] | None:
        """``find START... [-maxdepth N] [-mindepth N] [-type f] [-name/-iname/-path P]...`` (tests joined by
        and; anything else, ``-o`` or ``!`` included: None); actions (``-exec``, ``-print``) end the tests."""
        if not all(w.literal for w in words):
            return None
        starts, expression = find_parts(words)
        tests: list[tuple[str, str]] = []
        i = 0
        while i < len(expression):
            tok = expression[i]
            if tok in _FIND_ACTIONS:
                break
            if tok in ("-type", "-name", "-iname", "-path", "-ipath", "-wholename", "-maxdepth", "-mindepth"):
                if i + 1 >= len(expression):
                    return None
                tests.append((tok, expression[i + 1]))
                i += 2
                continue
            if tok in ("-a", "-and"):
                i += 1
                continue
            return None
        if any(t == "-type" and v != "f" for t, v in tests):
            return None
        out: list[str] = []
        for start in starts:
            rel = self.workspace.to_local(normalize_path(start, cwd=cwd))
            if rel is None:
                return None
            prefix = "" if rel == "." else rel.rstrip("/") + "/"
            for f in self.workspace.files():
                if prefix and not f.startswith(prefix):
                    continue
                below = f[len(prefix) :]
                printed = start + below if start.endswith("/") else posixpath.join(start, below)
                if all(_find_test(t, v, printed, below) for t, v in tests):
                    out.append(printed)
        return out

    def lines(self, path: str, cwd: str | None) -> list[str] | None:
        rel = self.workspace.to_local(normalize_path(path, cwd=cwd))
        text = self.workspace.read_text(rel) if rel is not None else None
        if text is None:
            return None
        return [ln.strip() for ln in text.splitlines() if ln.strip()]


_FIND_ACTIONS = frozenset(
    {"-exec", "-execdir", "-ok", "-okdir", "-print", "-print0", "-ls", "-printf", "-fprint", "-delete"}
)


def _find_test(test: str, value: str, printed: str, below: str) -> bool:
    depth = below.count("/") + 1
    if test == "-type":
        return True  # the workspace lists files only
    if test == "-maxdepth":
        return value.isdigit() and depth <= int(value)
    if test == "-mindepth":
        return value.isdigit() and depth >= int(value)
    if test == "-name":
        return fnmatchcase(posixpath.basename(printed), value)
    if test == "-iname":
        return fnmatchcase(posixpath.basename(printed).lower(), value.lower())
    if test in ("-path", "-wholename"):
        return fnmatchcase(printed, value)
    return fnmatchcase(printed.lower(), value.lower())  # -ipath


def _glob_regex(pattern: str) -> str:
    out: list[str] = []
    i = 0
    while i < len(pattern):
        c = pattern[i]
        if c == "*":
            out.append("[^/]*")
        elif c == "?":
            out.append("[^/]")
        elif c == "[":
            j = pattern.find("]", i + 1)
            if j < 0:
                out.append(re.escape(c))
            else:
                out.append("[" + pattern[i + 1 : j].replace("!", "^", 1) + "]")
                i = j
        else:
            out.append(re.escape(c))
        i += 1
    return "".join(out)


# ---------------------------------------------------------------------------------------------------------
# Content matching and the result


def _match_content(col: Collector, shown: str, regions: list[fr.Region], workspace: Workspace) -> None:
    """Confirm structural reads of workspace text files by their content; attribute the rest by content."""
    index = workspace.index
    kept: list[Hit] = []
    for hit in col.hits:
        rel = col.local(hit.ref) if hit.confirm else None
        fid = index.file_id(rel) if rel is not None else None
        if fid is None:
            # outside the workspace, not in it, not text (xlsx, pdf), or named line by line by the output's
            # structure, or another version of the file (git): the structure decides
            kept.append(hit)
            continue
        for span in find_spans(index, shown, fr.Block(((hit.start, hit.end),)), restrict={fid}):
            start, end = fr.trim(shown, span.start, span.end)
            if end > start:
                kept.append(Hit(hit.ref, start, end))
    col.hits = kept
    covered = sorted([(h.start, h.end) for h in kept] + col.literal)
    prefer = {
        fid
        for key in col.named
        if (rel := workspace.to_local(_agent_of(col, key))) is not None
        and (fid := index.file_id(rel)) is not None
    }
    for region in regions:
        rest = _subtract(region.block, covered)
        for span in find_spans(index, shown, rest, prefer=prefer):
            path = index.files[span.file_id].path
            ref = col.ref(posixpath.join(workspace.agent_root, path) if workspace.agent_root else path, None)
            col.read(ref, span.start, span.end)


def _agent_of(col: Collector, key: str) -> str:
    if key.startswith("/") or col.root is None:
        return key
    return posixpath.join(col.root, key)


def _subtract(block: fr.Block, covered: list[tuple[int, int]]) -> fr.Block:
    pieces: list[tuple[int, int]] = []
    flags: list[bool] = []
    for i, (s, e) in enumerate(block.pieces):
        pos = s
        for cs, ce in covered:
            if ce <= pos or cs >= e:
                continue
            if cs > pos:
                pieces.append((pos, cs))
                flags.append(False)
            pos = max(pos, ce)
        if pos < e:
            pieces.append((pos, e))
            flags.append(block.clip_after(i))
    return fr.Block(tuple(pieces), tuple(flags))


def _result(col: Collector) -> Capture:
    shown = col.shown
    seen: set[tuple[str, int, int]] = set()
    reads: list[CapturedRead] = []
    for hit in sorted(col.hits, key=lambda h: (h.start, h.end, h.ref.key)):
        key, start, end = hit.ref.key, hit.start, hit.end
        sig = (key, start, end)
        if sig in seen:
            continue
        seen.add(sig)
        reads.append(CapturedRead(key, shown[start:end], start, hit.revision))
    read_keys = {r.path for r in reads}
    written = col.written
    listed = [p for p in col.listed if p not in read_keys and p not in written] if col.listed else []
    if col.guessed:
        listed = _without_folders(col, listed, read_keys)
    derived = _derived(col, reads) if col.derived else ()
    return Capture(tuple(reads), tuple(listed), tuple(col.written), tuple(col.folders), derived)


_DIGIT = re.compile(r"\d")


def _derived(col: Collector, reads: list[CapturedRead]) -> tuple[CapturedDerived, ...]:
    """The collected derived spans; a program's (``computed``) less what was attributed to a file it read and
    what the command printed itself (``echo``), split where those were cut out, and cut to its lines from the
    first to the last holding a digit (a program's headers and labels, ``FILE: a.csv``, are no computed
    value; a part with no digit is dropped)."""
    taken = sorted([(r.start, r.start + len(r.excerpt)) for r in reads] + col.literal)
    out: list[CapturedDerived] = []
    seen: set[tuple[int, int]] = set()
    for kind, start, end, sources in col.derived:
        spans = [(start, end)] if kind != "computed" else _less(start, end, taken)
        for s, e in spans:
            s, e = fr.trim(col.shown, s, e) if kind != "computed" else _digit_lines(col.shown, s, e)
            if e > s and (s, e) not in seen:
                seen.add((s, e))
                out.append(CapturedDerived(kind, col.shown[s:e], s, sources))  # type: ignore[arg-type]
    return tuple(sorted(out, key=lambda d: d.start))


def _digit_lines(shown: str, start: int, end: int) -> tuple[int, int]:
    """``[start, end)`` from the first to the last line holding a digit (with its newline); empty without one."""
    first = _DIGIT.search(shown, start, end)
    if first is None:
        return start, start
    last = max(m.start() for m in _DIGIT.finditer(shown, first.start(), end))
    s = max(start, shown.rfind("\n", start, first.start()) + 1)
    nl = shown.find("\n", last, end)
    return s, (nl + 1 if nl >= 0 else end)


def _less(start: int, end: int, taken: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """``[start, end)`` less the sorted spans ``taken``."""
    out: list[tuple[int, int]] = []
    cursor = start
    for s, e in taken:
        if e <= cursor or s >= end:
            continue
        if s > cursor:
            out.append((cursor, s))
        cursor = max(cursor, e)
    if cursor < end:
        out.append((cursor, end))
    return out


def _without_folders(col: Collector, listed: list[str], read_keys: set[str]) -> list[str]:
    """Listed paths the extension rule guessed to be files, less those the step shows to be folders: named as
    folders, or the parent of another path it read, listed or wrote (``v1.2`` beside ``v1.2/notes.md``)."""
    folders = set(col.folders)
    for key in (*read_keys, *col.listed, *col.written):
        parent = posixpath.dirname(key)
        while parent not in ("", ".", "/") and parent not in folders:
            folders.add(parent)
            parent = posixpath.dirname(parent)
    return [p for p in listed if p not in col.guessed or p not in folders]

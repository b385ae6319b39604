"""Git's outputs that show file content: a file at a revision, patches and blame.

- ``git show REV:FILE`` (and ``git cat-file -p REV:FILE``) prints FILE as it is at REV: a read of FILE, its
  revision recorded (``REV``; ``:0`` for the index, ``git show :FILE``).
- A patch (``git diff``, ``git show [REV]``, ``git log -p``): each hunk's context (`` ``) and added (``+``)
  lines are the new side's text, the file as it is after the change, at the hunk's lines (``@@ -a,b +c,d @@``:
  from line ``c``). Each run of them is a read of the file the hunk's ``+++ b/PATH`` header names, exactly as
  shown (the one-character prefixes kept, as a search excerpt keeps its ``path:N:``), at the revision of the
  new side: the commit a ``commit SHA`` line names (``git show``, ``git log -p``), the second revision of
  ``git diff A B`` / ``A..B``, ``:0`` for ``git diff --cached``, the working copy for ``git diff [REV]``.
  Removed (``-``) lines are the file as it was before: no entry holds them (an excerpt is text of the file at
  the revision it names), so a removed line splits a run. Headers, commit messages and ``\\ No newline``
  notes are git's words. Merge commits' combined diffs (``@@@``) are not read.
- ``git blame [REV] [--] FILE``: every annotated line carries the file's text after ``) `` (``--porcelain``:
  after a tab); consecutive lines are one excerpt of FILE as shown, annotations kept.
- ``--name-only``, ``--name-status`` and ``--stat`` print the paths a commit or a diff touched: listed.

Paths in a patch are relative to the repository's top, which capture does not know: they are taken relative
to the working directory, except that a path the command named (``git diff -- src/a.py`` run in a sub-folder
prints ``b/pkg/src/a.py``) keeps the name the command gave it. Patch and blame reads are never checked
against a workspace's copy (the lines are named by the output's own structure, and a revision's text is not
the working copy's).
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Literal

from rtlab.environment._capture.collect import Collector, Ref
from rtlab.environment._capture.frame import Block, lines
from rtlab.text import Word, normalize_path

GitKind = Literal["file", "patch", "blame"]

_GLOBAL_VALUE = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace", "--exec-path"})
_REV_FILE = re.compile(r"^(?P<rev>[^:\s]*):(?P<path>[^:\s].*)$")
_STAGE_FILE = re.compile(r"^:(?P<stage>[0-3]):(?P<path>.+)$")
_REVISION = re.compile(
    r"^(?:HEAD|FETCH_HEAD|ORIG_HEAD|MERGE_HEAD|@|[0-9a-f]{7,40}|[\w.\-/]+)(?:[~^]\d*|@\{[^}]*\})*$"
)
_NAME_FILE = re.compile(r"\.[A-Za-z0-9_]{1,10}$")
_PATCH_VALUE = frozenset(
    {"-n", "--max-count", "--skip", "--since", "--until", "--after", "--before", "--author", "--committer",
     "--grep", "-S", "-G", "--format", "--pretty", "-L", "--diff-filter", "--src-prefix", "--dst-prefix"}
)  # fmt: skip
"""Options that take their value as the next word (``-n 5``), so it is no revision or path."""

# patch lines
_DIFF_GIT = re.compile(r"^diff --git (?:\"?a/)?(?P<a>.+?)\"? (?:\"?b/)?(?P<b>.+?)\"?$")
_NEW_FILE = re.compile(r"^\+\+\+ (?P<path>.+?)(?:\t.*)?$")
_OLD_FILE = re.compile(r"^--- (?P<path>.+?)(?:\t.*)?$")
_HUNK = re.compile(r"^@@ -\d+(?:,(?P<old>\d+))? \+(?P<start>\d+)(?:,(?P<new>\d+))? @@")
_COMMIT = re.compile(r"^commit (?P<sha>[0-9a-f]{7,40})\b")
_ONELINE = re.compile(r"^(?P<sha>[0-9a-f]{7,40}) \S")
_NAME_STATUS = re.compile(r"^(?P<status>[ACDMRTUX])\d*\t(?:[^\t]+\t)?(?P<path>[^\t]+)$")
_STAT = re.compile(r"^ (?P<path>[^|]*?\S) +\| +(?:\d+|Bin\b)")
_BLAME = re.compile(r"^\^?[0-9a-f]{4,40} (?:[^()]*? )?\([^()]*?\d+\) ?")
_BLAME_SHORT = re.compile(r"^\^?[0-9a-f]{4,40} +(?:\S+ +)?\d+\) ?")
"""``git blame -s``: ``sha N) text`` (no author, no date)."""


@dataclass
class GitSpec:
    """What a git command prints, as far as capture reads it."""

    kind: GitKind
    files: list[str] = field(default_factory=list)
    """``file``: the file(s) shown; ``blame``: the file; ``patch``: the operands that may name paths."""
    revision: str | None = None
    """``file``/``blame``: the revision (None: the working copy); ``patch``: the new side's, when fixed
    (``:0`` for ``--cached``)."""
    revisions: list[str] = field(default_factory=list)
    """``patch`` of ``git diff``: the operands that may be revisions (an operand the output shows to be a
    path is not one: ``git diff HEAD Jenkinsfile``)."""
    new_side: Literal["fixed", "diff", "commits"] = "fixed"
    """``patch``: where the new side's revision comes from: ``revision``, ``git diff``'s revisions, or the
    ``commit`` lines of the output (``git show``, ``git log -p``)."""
    names: bool = False
    """``patch``: ``--name-only`` / ``--name-status`` / ``--stat``: the paths it touched are printed."""
    porcelain: bool = False
    """``blame``: ``--porcelain`` / ``--line-porcelain`` (content lines start with a tab)."""
    base: str | None = None
    """The folder of ``git -C DIR``: paths are relative to it."""


def git_spec(words: list[Word]) -> GitSpec | None:
    """The spec of a git command's words (after ``git``); None for commands whose output capture does not
    read."""
    folder, spec = _git_spec(words)
    if spec is not None and folder is not None:
        spec.base = folder
    return spec


def _git_spec(words: list[Word]) -> tuple[str | None, GitSpec | None]:
    i = 0
    folder: str | None = None
    while i < len(words) and words[i].text.startswith("-"):
        if words[i].text in _GLOBAL_VALUE and i + 1 < len(words):
            if words[i].text == "-C" and words[i + 1].literal:
                folder = words[i + 1].text
            i += 1
        i += 1
    if i >= len(words):
        return folder, None
    sub, rest = words[i].text, words[i + 1 :]
    if any(not w.literal for w in rest):
        return folder, None
    texts = [w.text for w in rest]
    if sub in ("show", "cat-file"):
        return folder, _show(texts, sub)
    if sub == "diff":
        return folder, _diff(texts)
    if sub in ("log", "whatchanged"):
        return folder, _log(texts)
    if sub in ("blame", "annotate"):
        return folder, _blame(texts)
    return folder, None


def _split(texts: list[str]) -> tuple[set[str], list[str], list[str]]:
    """Options, revision-or-path operands before ``--``, and paths after it."""
    options: set[str] = set()
    operands: list[str] = []
    paths: list[str] = []
    i = 0
    while i < len(texts):
        t = texts[i]
        if t == "--":
            paths = texts[i + 1 :]
            break
        if t.startswith("-") and len(t) > 1:
            key = t.split("=", 1)[0]
            options.add(key)
            if key in _PATCH_VALUE and "=" not in t and len(t) == len(key) and i + 1 < len(texts):
                i += 1
        else:
            operands.append(t)
        i += 1
    return options, operands, paths


def _looks_like_path(text: str) -> bool:
    """An operand given without ``--`` that is more likely a path than a revision: it has an extension, or
    starts ``./``, or names a folder (``src/``)."""
    if text.startswith(("./", "../")) or text.endswith("/"):
        return True
    if ".." in text:  # a range: A..B, A...B
        return False
    return bool(_NAME_FILE.search(text)) or not _REVISION.match(text)


def _names(options: set[str]) -> bool:
    return bool(options & {"--name-only", "--name-status", "--stat", "--numstat", "--shortstat"})


def _show(texts: list[str], sub: str) -> GitSpec | None:
    options, operands, paths = _split(texts)
    if sub == "cat-file" and not options & {"-p"}:
        return None
    shown: list[tuple[str, str]] = []  # (revision, path)
    for op in operands:
        if m := _STAGE_FILE.match(op):
            shown.append((f":{m.group('stage')}", m.group("path")))
        elif op.startswith(":") and len(op) > 1:
            shown.append((":0", op[1:]))
        elif (m := _REV_FILE.match(op)) and m.group("rev"):
            shown.append((m.group("rev"), m.group("path")))
    if shown:
        if len({rev for rev, _ in shown}) != 1:
            return None  # several revisions, printed back to back: capture cannot tell where one ends
        return GitSpec("file", [p for _, p in shown], shown[0][0])
    if sub == "cat-file":
        return None
    return GitSpec("patch", paths + operands, new_side="commits", names=_names(options))


def _diff(texts: list[str]) -> GitSpec:
    options, operands, paths = _split(texts)
    names = _names(options)
    if "--no-index" in options:
        return GitSpec("patch", paths + operands, names=names)
    if options & {"--cached", "--staged"}:
        return GitSpec("patch", paths + operands, ":0", names=names)
    revisions = list(operands) if paths else [op for op in operands if not _looks_like_path(op)]
    return GitSpec("patch", paths + operands, revisions=revisions, new_side="diff", names=names)


def _log(texts: list[str]) -> GitSpec | None:
    options, operands, paths = _split(texts)
    if not options & {"-p", "-u", "--patch", "-L"} and not _names(options):
        return None
    return GitSpec("patch", paths + operands, new_side="commits", names=_names(options))


def _blame(texts: list[str]) -> GitSpec | None:
    options, operands, paths = _split(texts)
    files = paths[-1:] or operands[-1:]
    if not files or "--incremental" in options:
        return None
    revisions = [op for op in operands if op not in files]
    porcelain = bool(options & {"-p", "--porcelain", "--line-porcelain"})
    return GitSpec("blame", files, revisions[-1] if revisions else None, porcelain=porcelain)


def _diff_new_side(revisions: list[str], paths: set[str]) -> str | None:
    """The new side of ``git diff REVISIONS``: the working copy (None) for none or one revision, the second
    of two (``A B``, ``A..B``, ``A...B``; ``A..`` is ``HEAD``). Operands the output showed to be paths are
    no revisions."""
    revs = [r for r in revisions if normalize_path(r) not in paths]
    if len(revs) == 1 and (dots := re.search(r"\.{2,3}", revs[0])):
        return revs[0][dots.end() :] or "HEAD"
    return revs[-1] if len(revs) >= 2 else None


# ---------------------------------------------------------------------------------------------------------
# Output


def _ref(col: Collector, path: str, cwd: str | None, spec: GitSpec) -> Ref:
    return col.ref(posixpath.join(spec.base, path) if spec.base else path, cwd)


def _named(path: str, spec: GitSpec) -> str:
    """A patch's path (relative to the repository's top) as the command named it, when it named it."""
    for op in spec.files:
        clean = normalize_path(op)
        if path == clean or path.endswith("/" + clean):
            return clean
    return path


def parse_patch(col: Collector, shown: str, block: Block, cwd: str | None, spec: GitSpec) -> None:
    """A patch's hunks: each run of context and added lines a read of the new side (see the module doc).

    After a clip marker nothing is read until a ``diff --git`` (or ``+++``) header names the file again: the
    marker may have removed the header of another file."""
    after_cut = {s for i, (s, _) in enumerate(block.pieces) if i and block.clip_after(i - 1)}
    revision = spec.revision
    seen: set[str] = set()  # the paths the output named
    path: str | None = None  # the new side of the current file; None: deleted, or not known
    old_left = new_left = 0  # lines still to come in the current hunk
    run: tuple[int, int] | None = None

    def flush() -> None:
        nonlocal run
        if run is not None and path is not None:
            col.read(
                _ref(col, _named(path, spec), cwd, spec), run[0], run[1], revision=revision, confirm=False
            )
        run = None

    def name(target: str) -> str:
        nonlocal revision
        seen.add(target)
        if spec.new_side == "diff":
            revision = _diff_new_side(spec.revisions, seen)
        return target

    for line in lines(shown, block):
        text = line.text
        if line.partial:
            if line.start in after_cut:  # the marker may have removed any lines, headers included
                flush()
                path, old_left, new_left = None, 0, 0
            elif (old_left or new_left) and text[:1] in (" ", "+"):
                run = (run[0] if run is not None else line.start, line.end)
            flush()
            continue
        if old_left or new_left:
            head = text[:1]
            if head in (" ", "") or (head == "+" and new_left):
                # a context line ('' when a viewer dropped its trailing space) or an added one
                old_left -= head != "+"
                new_left -= 1
                run = (run[0] if run is not None else line.start, line.end)
                if old_left <= 0 and new_left <= 0:  # the hunk is complete
                    old_left = new_left = 0
                    flush()
                continue
            flush()
            if head == "-" and old_left:
                old_left -= 1
                continue
            if head == "\\":  # "\ No newline at end of file"
                continue
            old_left = new_left = 0
        if m := _HUNK.match(text):
            old_left = int(m.group("old") or 1)
            new_left = int(m.group("new") or 1)
            continue
        if m := _DIFF_GIT.match(text):
            path = name(m.group("b"))
            continue
        if m := _NEW_FILE.match(text):
            target = m.group("path")
            path = None if target == "/dev/null" else name(target.removeprefix("b/"))
            continue
        if _OLD_FILE.match(text):
            continue
        if spec.new_side == "commits" and ((m := _COMMIT.match(text)) or (m := _ONELINE.match(text))):
            revision = m.group("sha")
            continue
        if spec.names:
            _touched(col, text, cwd, spec)
    flush()


def _touched(col: Collector, text: str, cwd: str | None, spec: GitSpec) -> None:
    """A ``--name-only``, ``--name-status`` or ``--stat`` line: the path it names is listed (deleted files
    are not)."""
    if (m := _NAME_STATUS.match(text)) is not None:
        if m.group("status") != "D":
            col.list(_ref(col, _named(m.group("path"), spec), cwd, spec), True)
    elif (m := _STAT.match(text)) is not None:
        if not m.group("path").startswith("...") and "=>" not in text:  # abbreviated, renamed
            col.list(_ref(col, _named(m.group("path"), spec), cwd, spec), True)
    elif _name_only(text):
        col.list(_ref(col, _named(text.strip(), spec), cwd, spec), True)


def _name_only(text: str) -> bool:
    """A ``--name-only`` line: a path alone, not a commit's header or message (indented) line."""
    return (
        bool(text)
        and not text[0].isspace()
        and ":" not in text
        and " " not in text
        and not text.startswith(("commit ", "Merge", "Author", "Date"))
    )


def parse_blame(col: Collector, shown: str, block: Block, cwd: str | None, spec: GitSpec) -> None:
    """``git blame``: consecutive annotated lines, as shown, one excerpt of the file; a clip marker ends it
    (a cut line's part before the marker stays in it, its part after is nobody's: its annotation is gone)."""
    after_cut = {s for i, (s, _) in enumerate(block.pieces) if i and block.clip_after(i - 1)}
    ref = _ref(col, spec.files[0], cwd, spec)
    run: tuple[int, int] | None = None

    def flush() -> None:
        nonlocal run
        if run is not None:
            col.read(ref, run[0], run[1], revision=spec.revision, confirm=False)
        run = None

    for line in lines(shown, block):
        text = line.text
        if line.start in after_cut:
            flush()
        annotated = (
            text.startswith("\t") if spec.porcelain else bool(_BLAME.match(text) or _BLAME_SHORT.match(text))
        )
        if annotated or (line.partial and run is not None and line.start not in after_cut):
            run = (run[0] if run is not None else line.start, line.end)
        elif not spec.porcelain or not text.strip() or line.partial:
            flush()
        if line.partial:
            flush()
    flush()

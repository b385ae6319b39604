"""What each unit's source command is (content, listing, search, script, git, literal, ...) and what it writes.

A pipeline's output comes from its *source*: ``cat f | grep x | head`` shows lines of ``f``; ``find . | sort``
shows paths; ``... | wc -l`` shows a number (nothing read, nothing listed). Filters keep the source;
``xargs CMD`` and ``find -exec CMD`` make ``CMD`` the source with files capture cannot name, unless the walker
knew them (:attr:`rtlab.environment._capture.units.Unit.fed`, :func:`with_fed`). ``git`` commands that print
file content (:mod:`rtlab.environment._capture.git`) and programs in other languages
(:mod:`rtlab.environment._capture.scripts`) have families of their own.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from rtlab.environment._capture import python as py
from rtlab.environment._capture import scripts as other_scripts
from rtlab.environment._capture.git import GitSpec, git_spec
from rtlab.environment._capture.grep import GrepSpec, grep_spec
from rtlab.environment._capture.listing import find_exec, find_parts
from rtlab.environment._capture.scripts import Language
from rtlab.environment._capture.units import (
    CONTENT,
    FILTERS,
    GREP,
    LISTING,
    SILENT,
    VALUE_OPTIONS,
    Stage,
    Unit,
    is_python,
    split_args,
)
from rtlab.text import Word, literal_word

LS_NAMES = frozenset({"ls", "dir", "vdir", "exa", "eza", "lsd"})
_ECHO_FLAGS = re.compile(r"^-[neE]+$")
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "a": "\a", "b": "\b", "f": "\f", "v": "\v", "0": ""}
_ESCAPE = re.compile(r"\\(.)")
_CONVERSION = re.compile(r"(%[-+ #0]*\d*(?:\.\d+)?[sdbifgxcu%])")


@dataclass
class Source:
    """The command whose data a unit prints."""

    family: str
    """``content``, ``listing``, ``grep``, ``semfs``, ``script`` (a program: Python, JavaScript, Ruby, Perl),
    ``gitpatch``, ``gitblame``, ``literal``, ``pwd``, ``silent``, ``count``, ``filter`` (prints its input) or
    ``other``."""
    stage: Stage | None = None
    files: list[str] = field(default_factory=list)
    """The files it reads (content, python) or the operands it lists, as written (literal words only)."""
    unknown_files: bool = False
    """It reads files it does not name (a glob, a variable, ``xargs``/``find -exec`` input)."""
    headers: bool = False
    """``head``/``tail`` of several files: ``==> name <==`` headers."""
    grep: GrepSpec | None = None
    script: py.Script | None = None
    batch: bool = False
    """Run by ``xargs``/``find -exec ... +`` on many files at once."""
    share: bool = True
    """Several files with no headers each get the whole output (``cat a b``); False for files an ``xargs`` or
    ``find -exec`` ran on, whose outputs nothing tells apart: none is credited."""
    literal: list[tuple[str, str]] | None = None
    """Literal output as tokens ``(lit, text)`` / ``(var, name)`` / ``(dyn, "")``."""
    words: list[Word] = field(default_factory=list)
    """The source command's arguments (for the listing parsers)."""
    name: str = ""
    git: GitSpec | None = None
    """``gitpatch`` / ``gitblame``: what the git command prints."""
    revision: str | None = None
    """``content`` of ``git show REV:FILE``: the revision its text is the file at."""


def _literal_files(words: list[Word]) -> tuple[list[str], bool]:
    files: list[str] = []
    unknown = False
    for w in words:
        if w.text == "-":
            continue
        if w.literal:
            files.append(w.text)
        else:
            unknown = True
    return files, unknown


def _tokens(words: list[Word]) -> list[tuple[str, str]]:
    out: list[tuple[str, str]] = []
    for i, w in enumerate(words):
        if i:
            out.append(("lit", " "))
        for kind, text in w.parts:
            out.append(("lit", text) if kind in ("lit", "glob") else (kind, text))
    return out


def _unescape(text: str) -> str:
    return _ESCAPE.sub(lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), text)


def echo_tokens(words: list[Word]) -> list[tuple[str, str]]:
    """What ``echo [-neE] WORDS`` prints, as tokens."""
    newline, escapes = True, False
    i = 0
    while i < len(words) and _ECHO_FLAGS.match(words[i].text):
        newline = newline and "n" not in words[i].text
        escapes = escapes or "e" in words[i].text
        i += 1
    tokens = _tokens(words[i:])
    if escapes:
        tokens = [(k, _unescape(t)) if k == "lit" else (k, t) for k, t in tokens]
    return tokens + ([("lit", "\n")] if newline else [])


def printf_tokens(words: list[Word]) -> list[tuple[str, str]] | None:
    """What ``printf FORMAT ARGS`` prints, as tokens (``%s``/``%d``/``%b`` only; None for other formats)."""
    if not words or not words[0].literal:
        return None
    fmt = _unescape(words[0].text)
    args = words[1:]
    pieces = _CONVERSION.split(fmt)
    conversions = [p for p in pieces[1::2] if p != "%%"]
    if not conversions:
        return [("lit", fmt.replace("%%", "%"))]
    out: list[tuple[str, str]] = []
    k = 0
    rounds = 0
    while rounds == 0 or (k < len(args) and rounds < 50):
        rounds += 1
        for j, piece in enumerate(pieces):
            if j % 2 == 0:
                out.append(("lit", piece))
            elif piece == "%%":
                out.append(("lit", "%"))
            else:
                arg = args[k] if k < len(args) else literal_word("")
                k += 1
                out.extend(_tokens([arg]) if piece[-1] in "sbdiu" else [("dyn", "")])
    return out


def stage_source(stage: Stage, *, piped: bool, cwd: str | None) -> Source:
    """The family of one stage; ``piped`` when a previous stage feeds its standard input."""
    name = stage.name
    words = stage.words
    if is_python(name):
        return _python(stage, piped)
    if name in RUNNERS:
        return _other_script(stage, piped, RUNNERS[name])
    if name == "semfs" and words and words[0].text == "grep":
        return Source("semfs", stage, words=words, name=name)
    if name == "git" and words and words[0].text == "grep":
        spec = grep_spec("grep", words[1:])
        spec.recursive = True
        spec.prefix = spec.prefix or not spec.files
        return Source("grep", stage, spec.files, grep=spec, words=words, name="grep")
    if name == "git" and words and words[0].text == "ls-files":
        return Source("listing", stage, words=words[1:], name="files")  # tracked files, never folders
    if name == "git":
        return _git(stage, words)
    if name in GREP:
        spec = grep_spec(name, words)
        if not spec.files and not spec.recursive:
            if piped:
                return Source("count" if spec.count or spec.list_files or spec.quiet else "filter", stage)
            return Source("other", stage)
        files, unknown = _literal_files([w for w in words if w.text in spec.files])
        if unknown:  # ``grep x "$f"`` in a loop capture cannot unroll: the file is not ``$f``
            spec.files = [f for f in spec.files if f in files]
            spec.unknown_files = True
        return Source("grep", stage, files, unknown, grep=spec, words=words, name=name)
    if name in ("echo", "printf"):
        tokens = echo_tokens(words) if name == "echo" else printf_tokens(words)
        return Source("literal", stage, literal=tokens) if tokens is not None else Source("other", stage)
    if name == "pwd":
        if cwd and cwd.startswith("/"):
            return Source("literal", stage, literal=[("lit", cwd + "\n")])
        return Source("pwd", stage)
    if name == "xargs":
        return _xargs(stage, cwd)
    if name == "find":
        exec_cmd = find_exec([w.text for w in words])
        if exec_cmd:
            inner = Stage(
                posixpath.basename(exec_cmd[0]),
                [_FED if t == "{}" else literal_word(t) for t in exec_cmd[1:]],
                [],
            )
            src = stage_source(inner, piped=False, cwd=cwd)
            texts = [w.text for w in words]
            batch = (
                "+"
                in texts[texts.index(next(t for t in texts if t in ("-exec", "-execdir", "-ok", "-okdir"))) :]
            )
            return _dynamic_files(src, batch=batch)
        starts, _ = find_parts(words)
        return Source("listing", stage, starts, words=words, name="find")
    if name in LISTING:
        return _listing(stage, piped)
    if name in CONTENT:
        return _content(stage, piped)
    if name == "tee":
        return Source("filter", stage)
    if name in SILENT:
        return Source("silent", stage)
    if name in FILTERS and piped:
        return Source("filter", stage)
    return Source("other", stage, name=name)


def _git(stage: Stage, words: list[Word]) -> Source:
    """``git show REV:FILE`` prints a file at a revision; patches and blame have their own parsers."""
    spec = git_spec(words)
    if spec is None:
        return Source("other", stage, name="git")
    if spec.kind == "file":
        files = [posixpath.join(spec.base, f) if spec.base else f for f in spec.files]
        return Source("content", stage, files, words=words, name="git", revision=spec.revision)
    family = "gitpatch" if spec.kind == "patch" else "gitblame"
    files = (
        [posixpath.join(spec.base, f) if spec.base else f for f in spec.files] if spec.kind == "blame" else []
    )
    return Source(family, stage, files, words=words, name="git", git=spec)


_FED = Word((("dyn", "{}"),))
"""The files ``xargs`` / ``find -exec`` give the command they run: a word whose value capture does not know."""


def _dynamic_files(src: Source, batch: bool) -> Source:
    """The source as run by ``xargs``/``find -exec``: it reads files it cannot name (see :func:`with_fed` once
    they are known). ``batch``: one run gets many files (``xargs CMD``, ``-exec CMD {} +``), so ``head`` and
    ``tail`` print ``==> name <==`` headers and ``grep`` prints ``path:`` prefixes; else one run per file."""
    src.unknown_files = True
    src.batch = batch
    words = {w.text for w in src.words}
    if src.family == "grep" and src.grep is not None:
        src.grep.prefix = "-h" not in words and "--no-filename" not in words and (batch or "-H" in words)
        src.grep.recursive = True
        src.grep.files = []
        src.grep.unknown_files = True
    if src.family == "content":
        src.files = []
        src.headers = batch and src.name in ("head", "tail") and not words & {"-q", "--quiet", "--silent"}
    return src


def with_fed(src: Source, fed: list[str]) -> Source:
    """An ``xargs``/``find -exec`` source once the files it ran on are known: one file's output is that
    file's; several files' outputs are told apart only by ``head``'s headers or ``grep``'s prefixes (run file
    by file, without them, nothing says where one ends)."""
    if not src.unknown_files:
        return src
    src.unknown_files = False
    src.files = list(fed)
    src.share = len(fed) <= 1
    if src.family == "grep" and src.grep is not None:
        src.grep.files = list(fed)
        src.grep.unknown_files = False
        src.grep.recursive = False
        words = {w.text for w in src.words}
        src.grep.prefix = "-h" not in words and (("-H" in words) or (src.batch and len(fed) > 1))
    return src


def _xargs(stage: Stage, cwd: str | None) -> Source:
    words = stage.words
    k = 0  # xargs's own options end at the command it runs, whose options follow it
    short, long = VALUE_OPTIONS["xargs"]
    while k < len(words) and words[k].text.startswith("-") and words[k].text != "-":
        t = words[k].text
        takes = (len(t) == 2 and t[1] in short) or (t in long)
        k += 2 if takes else 1
    args = split_args("xargs", words[:k])
    if k >= len(words):
        return Source("filter", stage)
    replace_word = args.value("-I", "--replace")
    marker = replace_word.text if replace_word is not None else "{}" if args.has("-i") else None
    if marker:  # ``xargs -I{} cat {}``: the file goes where the marker is
        rest = [_FED if marker in w.text else w for w in words[k + 1 :]]
    else:
        rest = [*words[k + 1 :], _FED]
    inner = Stage(posixpath.basename(words[k].text), rest, [])
    one = args.has("-I", "-i", "--replace", "-L", "-l", "--max-lines") or any(
        w.text == "1" for w in args.values.get("-n", []) + args.values.get("--max-args", [])
    )
    return _dynamic_files(stage_source(inner, piped=False, cwd=cwd), batch=not one)


def _listing(stage: Stage, piped: bool) -> Source:
    name = stage.name
    words = stage.words
    if name == "wc":
        args = split_args("wc", words)
        if not args.operands:
            return Source("count" if piped else "other", stage)
        files, unknown = _literal_files(args.operands)
        return Source("listing", stage, files, unknown, words=words, name="wc")
    kind = "ls" if name in LS_NAMES else "fd" if name in ("fd", "fdfind") else name
    if kind in ("realpath", "readlink", "locate", "mlocate"):
        kind = "paths"
    return Source(
        "listing", stage, [w.text for w in words if not w.text.startswith("-")], words=words, name=kind
    )


_CONTENT_FIRST_OPERAND = {"sed", "awk", "gawk", "mawk", "nawk", "jq", "yq"}
_CONTENT_PROGRAM_OPTIONS = {"sed": ("-e", "--expression", "-f", "--file"), "jq": ("-f", "--from-file")}


def _content(stage: Stage, piped: bool) -> Source:
    name = stage.name
    table = "awk" if name in ("gawk", "mawk", "nawk") else name
    args = split_args(table, stage.words)
    operands = list(args.operands)
    if name == "sed" and any(w.text.startswith("-i") or w.text == "--in-place" for w in stage.words):
        return Source("silent", stage)
    if name in _CONTENT_FIRST_OPERAND:
        program_given = args.has(*_CONTENT_PROGRAM_OPTIONS.get(table, ("-f", "--file")))
        if not program_given and operands:
            operands = operands[1:]
        if table == "awk":
            operands = [w for w in operands if "=" not in w.text]
    if name in ("pdftotext", "in2csv", "xlsx2csv", "docx2txt", "uniq") and len(operands) >= 2:
        if operands[1].text != "-":
            return Source("silent", stage)
        operands = operands[:1]
    if name == "pdftotext" and len(operands) == 1 and "-" not in {w.text for w in stage.words}:
        return Source("silent", stage)  # writes in.txt beside the PDF
    if name in ("pandoc", "sort") and args.has("-o", "--output"):
        return Source("silent", stage)
    files, unknown = _literal_files(operands)
    if not files and not unknown:
        if stage.stdin_file is not None and stage.stdin_file.literal:
            files = [stage.stdin_file.text]
        elif stage.heredoc is not None and name == "cat":
            return Source("literal", stage, literal=[("lit", stage.heredoc)])
        elif piped:
            return Source("filter", stage)
        else:
            return Source("other", stage)
    headers = name in ("head", "tail") and (
        (len(files) + unknown > 1 or any(k == "glob" for w in operands for k, _ in w.parts))
        and not args.has("-q", "--quiet", "--silent")
        or args.has("-v", "--verbose")
    )
    return Source("content", stage, files, unknown, headers=headers, words=stage.words, name=name)


def _python(stage: Stage, piped: bool) -> Source:
    args = stage.words
    code: str | None = None
    inputs: list[str] = []
    i = 0
    while i < len(args):
        t = args[i].text
        if t == "-c" and i + 1 < len(args):
            code = args[i + 1].text
            break
        if t == "-m" and i + 1 < len(args):
            module = args[i + 1].text
            rest = [w.text for w in args[i + 2 :] if not w.text.startswith("-")]
            if module == "json.tool" and rest:
                return Source("content", stage, rest[:1], words=stage.words, name="python")
            return Source("other", stage)
        if t == "-":
            code = stage.heredoc
            break
        if not t.startswith("-"):
            inputs = [w.text for w in args[i + 1 :] if w.literal and py._is_file_name(w.text)]
            return Source(
                "script", stage, inputs, script=py.Script(inputs=inputs, code_seen=False), name="python"
            )
        i += 1
    if code is None:
        code = stage.heredoc
    if code is None:
        return Source("other", stage)
    script = py.analyze(code)
    return Source("script", stage, script.inputs, script=script, name="python")


RUNNERS: dict[str, Language] = {
    "node": "javascript", "nodejs": "javascript", "bun": "javascript", "deno": "javascript", "ruby": "ruby",
    "perl": "perl",
}  # fmt: skip
"""Interpreters of other languages whose one-line programs (``-e``) and here-documents capture reads."""
_RUNNER_VALUE = {
    "javascript": ("-r", "--require", "--import", "--loader"),
    "ruby": ("-r", "-I"),
    "perl": ("-I", "-M"),
}
_LOOP_FLAGS = re.compile(r"^-[lanpiw0-9]*[np][lanpiw0-9]*$")
"""``perl -n`` / ``-p`` / ``-lne`` / ``-pe`` (the ``e`` taken apart): the program runs on every input line."""


def _other_script(stage: Stage, piped: bool, language: Language) -> Source:
    """``node -e CODE``, ``node -p EXPR``, ``node - <<EOF``, ``ruby -e``, ``perl -e`` (several ``-e`` joined),
    ``node script.js ARGS`` (the code unseen). ``perl -ne``/``-pe``, ``ruby -ne``/``-pe`` run their program
    on every line of their files: like ``awk``, they print the files' content."""
    words = stage.words
    if stage.name in ("deno", "bun") and words and words[0].text in ("eval", "run", "x"):
        words = words[1:]  # ``deno eval CODE``; ``bun run FILE``: the file is the program
    code: list[str] = []
    operands: list[str] = []
    prints_value = loop = in_place = unknown = False
    script_file = False
    i = 0
    while i < len(words):
        w = words[i]
        t = w.text
        flags = t[1:] if t.startswith("-") and not t.startswith("--") else ""
        if operands or script_file:
            if w.literal:
                operands.append(t)
            unknown = unknown or not w.literal
        elif t in ("-e", "--eval", "-p", "--print", "-pe", "-ep") or (
            language != "javascript" and (flags.endswith("e") or (language == "perl" and flags.endswith("E")))
        ):
            if i + 1 < len(words):
                code.append(words[i + 1].text)
            prints_value = prints_value or (language == "javascript" and t in ("-p", "--print", "-pe", "-ep"))
            loop = loop or (language != "javascript" and any(c in flags[:-1] for c in "np"))
            in_place = in_place or (language != "javascript" and "i" in flags[:-1])
            i += 2
            continue
        elif language != "javascript" and _LOOP_FLAGS.match(t):
            loop, in_place = True, in_place or "i" in flags
        elif t.startswith(("-i", "--in-place")) and language != "javascript":
            in_place = True
        elif t in _RUNNER_VALUE[language]:
            i += 1
        elif t == "-":
            code.append(stage.heredoc or "")
        elif t.startswith("-"):
            pass
        else:
            script_file = not code
            if not script_file and w.literal:
                operands.append(t)
            unknown = unknown or (not script_file and not w.literal)
        i += 1
    if in_place:
        return Source("silent", stage)
    if not code and not script_file and stage.heredoc is not None:
        code.append(stage.heredoc)
    files = [f for f in operands if f != "-"]
    if script_file or not code:
        if not script_file:
            return Source("other", stage, name=stage.name)
        inputs = [f for f in files if py._is_file_name(f)]
        return Source(
            "script", stage, inputs, script=py.Script(inputs=inputs, code_seen=False), name=language
        )
    if loop:
        if not files and not unknown:
            if stage.stdin_file is not None and stage.stdin_file.literal:
                files = [stage.stdin_file.text]
            else:
                return Source("filter" if piped else "other", stage)
        return Source("content", stage, files, unknown, words=stage.words, name=stage.name)
    script = other_scripts.analyze("\n".join(code), language, prints_value=prints_value)
    if script.reads_files and not script.inputs:  # a program reading its arguments (process.argv, ARGV)
        script.inputs = [f for f in files if py._is_file_name(f)]
    return Source("script", stage, script.inputs, script=script, name=language)


def unit_source(unit: Unit, cwd: str | None) -> Source:
    """The source of a whole pipeline, folding its filters (worked out once per unit)."""
    if isinstance(unit.source, Source):
        return unit.source
    src = _fold(unit, cwd)
    unit.source = with_fed(src, unit.fed) if unit.fed is not None else src
    return unit.source


def _fold(unit: Unit, cwd: str | None) -> Source:
    src = stage_source(unit.stages[0], piped=False, cwd=cwd)
    for stage in unit.stages[1:]:
        prior = src
        nxt = stage_source(stage, piped=True, cwd=cwd)
        if nxt.family == "filter":
            if src.family == "literal" and stage.name not in ("cat", "tee"):
                src = Source("other", stage)
            continue
        if nxt.family == "script" and not nxt.files and src.family == "content":
            nxt.files = list(src.files)
            if nxt.script is not None:
                nxt.script.inputs = list(src.files)
            src = nxt
            continue
        src = nxt if nxt.family != "silent" else Source("count", stage)
        if src.family == "count" and prior.family not in ("count", "other"):
            src.files, src.unknown_files = list(prior.files), prior.unknown_files  # what it counted
    return src


def unit_writes(unit: Unit, src_script: py.Script | None) -> list[str]:
    """Every file the unit writes: redirections, ``tee``, ``sed -i``, ``cp``/``mv`` targets, ``touch``,
    ``sort -o``, ``curl -o``, and the files a Python script saves."""
    out: list[str] = []
    for stage in unit.stages:
        out.extend(w.text for w in stage.stdout_targets() if w.literal)
        out.extend(_stage_writes(stage))
    out.extend(
        r.target.text
        for r in unit.redirects
        if r.op in (">", ">>", "&>", "&>>") and r.target and r.target.literal
    )
    if src_script is not None:
        out.extend(src_script.writes)
    return [p for p in out if p and not p.startswith("/dev/")]


def _stage_writes(stage: Stage) -> list[str]:
    name = stage.name
    words = [w for w in stage.words if w.literal]
    texts = [w.text for w in words]
    operands = [t for t in texts if not t.startswith("-")]
    if name == "tee":
        return operands
    if name == "touch":
        return operands
    if name == "sed" and any(t.startswith("-i") or t == "--in-place" for t in texts):
        args = split_args("sed", stage.words)
        ops = [w.text for w in args.operands if w.text]  # BSD ``sed -i '' ...``: the empty suffix
        return ops[1:] if not args.has("-e", "--expression", "-f", "--file") else ops
    if name in ("cp", "mv", "install", "rsync") and len(operands) >= 2:
        dest = operands[-1]
        if dest.endswith("/") or len(operands) > 2:
            return [posixpath.join(dest, posixpath.basename(src.rstrip("/"))) for src in operands[:-1]]
        return [dest]
    if name in ("sort", "pandoc", "curl", "wget", "pdftotext", "xlsx2csv", "in2csv", "docx2txt", "uniq"):
        for flag in ("-o", "--output", "-O", "--output-document"):
            if flag in texts and texts.index(flag) + 1 < len(texts):
                return [texts[texts.index(flag) + 1]]
        if (
            name in ("pdftotext", "xlsx2csv", "in2csv", "docx2txt", "uniq")
            and len(operands) >= 2
            and operands[1] != "-"
        ):
            return [operands[1]]
    if name == "dd":
        return [t[3:] for t in texts if t.startswith("of=")]
    if name in ("perl", "ruby") and any(re.match(r"^-\w*i", t) for t in texts):  # perl -pi -e CODE FILES
        code_at = next((k for k, t in enumerate(texts) if re.match(r"^-\w*e$", t)), None)
        return [t for t in texts[code_at + 2 :] if not t.startswith("-")] if code_at is not None else []
    return []

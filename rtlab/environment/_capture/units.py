"""From parsed shell structure to *units*: the pipelines that ran, in order, each with its working directory,
its resolved words and what kind of output it prints.

A unit is one pipeline. Its *source* (the stage whose data reaches the output: the first stage, or a later
stage that reads its own files or an ``xargs`` command) decides the family: ``content`` (cat, head, sed, ...),
``listing`` (ls, find, tree, ...), ``grep``, ``script`` (Python, JavaScript, Ruby, Perl), ``gitpatch``,
``gitblame``, ``literal`` (echo, printf: known text, used to split the output between units), ``silent``
(nothing printed), ``count`` (a computed number) or ``other``. Loops whose words are known in order (literal
words; globs and ``$(ls GLOB)`` a :class:`Resolver` expands; ``while read f`` fed by a literal ``printf`` or a
list file the resolver reads) are unrolled, each unit tagged with its iteration (:attr:`Unit.loop`); other
loops (``$(find ...)``, whose order is unknown, a glob without a workspace) become a :class:`Repeat`, with the
set of its words when the resolver knows it. A pipeline that feeds a ``while read`` loop prints nothing the
model sees. The files an ``xargs`` or ``find -exec`` stage runs on are kept in :attr:`Unit.fed` when known.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field
from typing import Protocol

from rtlab.text import Compound, Pipeline, Redirect, Simple, Word, literal_word, normalize_path, parse

CONTENT = frozenset(
    {"cat", "tac", "nl", "less", "more", "most", "head", "tail", "sed", "awk", "gawk", "mawk", "nawk", "cut",
     "sort", "uniq", "column", "fold", "fmt", "pr", "rev", "strings", "jq", "yq", "bat", "batcat", "iconv",
     "expand", "unexpand", "csvlook", "csvcut", "csvgrep", "csvstat", "in2csv", "xlsx2csv", "pdftotext",
     "docx2txt", "catdoc", "antiword", "pandoc", "view", "zcat", "zless", "bzcat", "xzcat", "paste", "look"}
)  # fmt: skip
LISTING = frozenset(
    {"ls", "dir", "vdir", "exa", "eza", "lsd", "find", "tree", "fd", "fdfind", "du", "wc", "file", "stat",
     "realpath", "readlink", "locate", "mlocate"}
)  # fmt: skip
GREP = frozenset({"grep", "egrep", "fgrep", "rg", "ag", "ack", "ugrep", "zgrep"})
SILENT = frozenset(
    {"cd", "pushd", "popd", "mkdir", "rmdir", "cp", "mv", "rm", "touch", "chmod", "chown", "ln", "export",
     "set", "unset", "sleep", "test", "[", "[[", "wait", "kill", "exit", "return", "alias", "shopt", "trap",
     "local", "declare", "read", "source", ".", "umask", "true", ":", "false", "clear", "ulimit"}
)  # fmt: skip
FILTERS = frozenset(
    {"head", "tail", "sed", "awk", "gawk", "mawk", "nawk", "cut", "sort", "uniq", "column", "fold", "fmt",
     "pr", "rev", "tr", "grep", "egrep", "fgrep", "rg", "cat", "less", "more", "nl", "tac", "tee", "jq",
     "expand", "unexpand", "iconv", "paste", "sponge", "ts", "xargs"}
)  # fmt: skip
"""Commands that, fed by a pipe and given no files, print (a selection of) their input."""

_PREFIXES = {
    "sudo",
    "nohup",
    "time",
    "command",
    "builtin",
    "exec",
    "nice",
    "stdbuf",
    "timeout",
    "env",
    "ionice",
}
_PY = re.compile(r"^(?:i?python[\d.]*|py)$")
_ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=")
_DURATION = re.compile(r"^\d+(\.\d+)?[smhd]?$")

# options that take a value, per command (short letters and long names); everything else is a flag
VALUE_OPTIONS: dict[str, tuple[str, frozenset[str]]] = {
    "head": ("nc", frozenset({"--lines", "--bytes"})),
    "tail": ("ncs", frozenset({"--lines", "--bytes", "--pid", "--sleep-interval", "--max-unchanged-stats"})),
    "sed": ("efl", frozenset({"--expression", "--file", "--line-length"})),
    "awk": ("Fvf", frozenset({"--field-separator", "--assign", "--file"})),
    "cut": ("dfcb", frozenset({"--delimiter", "--fields", "--characters", "--bytes", "--output-delimiter"})),
    "sort": ("ktoST", frozenset({"--key", "--field-separator", "--output", "--buffer-size", "--parallel"})),
    "uniq": ("fsw", frozenset({"--skip-fields", "--skip-chars", "--check-chars"})),
    "column": ("sctoNRWHdl", frozenset({"--separator", "--output-separator", "--table-columns"})),
    "nl": ("bdfhilnsvw", frozenset()),
    "fold": ("w", frozenset({"--width"})),
    "fmt": ("wpg", frozenset({"--width", "--prefix", "--goal"})),
    "pr": ("hlwoNSe", frozenset({"--header", "--length", "--width"})),
    "strings": ("nte", frozenset({"--bytes", "--radix", "--encoding"})),
    "jq": ("fL", frozenset({"--from-file", "--indent", "--arg", "--argjson", "--slurpfile", "--rawfile"})),
    "grep": ("efmABCdD", frozenset({"--regexp", "--file", "--max-count", "--after-context", "--before-context",
                                     "--context", "--include", "--exclude", "--exclude-dir", "--color",
                                     "--colour", "--label", "--binary-files", "--devices", "--directories"})),
    "rg": ("efmABCgtTMjE", frozenset({"--regexp", "--file", "--max-count", "--after-context",
                                       "--before-context", "--context", "--glob", "--iglob", "--type",
                                       "--type-not", "--max-columns", "--threads", "--encoding", "--max-depth",
                                       "--sort", "--sortr", "--type-add", "--color", "--colors", "--replace",
                                       "--max-filesize", "--path-separator", "--field-match-separator",
                                       "--context-separator"})),
    "ls": ("IwT", frozenset({"--ignore", "--width", "--tabsize", "--sort", "--time", "--color", "--format",
                              "--time-style", "--hide", "--indicator-style", "--block-size", "--quoting-style"})),
    "tree": ("LPIoH", frozenset({"--filelimit", "--charset", "--sort", "--timefmt", "--gitfile", "--prune"})),
    "fd": ("tedEcjS", frozenset({"--type", "--extension", "--max-depth", "--exclude", "--color", "--threads",
                                  "--size", "--changed-within", "--changed-before", "--owner", "--exec",
                                  "--exec-batch", "--base-directory", "--path-separator", "--max-results",
                                  "--min-depth", "--exact-depth", "--search-path", "--ignore-file", "--format"})),
    "du": ("dBtX", frozenset({"--max-depth", "--block-size", "--threshold", "--exclude", "--time-style"})),
    "wc": ("", frozenset({"--files0-from"})),
    "stat": ("cf", frozenset({"--format", "--printf"})),
    "file": ("fFmPe", frozenset({"--files-from", "--separator", "--magic-file", "--exclude"})),
    "tee": ("", frozenset()),
    "xargs": ("aEeIiLlnPsd", frozenset({"--arg-file", "--delimiter", "--max-args", "--max-procs",
                                         "--max-lines", "--replace", "--eof", "--max-chars", "--process-slot-var"})),
}  # fmt: skip
VALUE_OPTIONS.update({k: VALUE_OPTIONS["awk"] for k in ("gawk", "mawk", "nawk")})
VALUE_OPTIONS.update({k: VALUE_OPTIONS["grep"] for k in ("egrep", "fgrep", "zgrep", "ugrep")})
VALUE_OPTIONS.update({"fdfind": VALUE_OPTIONS["fd"], "ag": VALUE_OPTIONS["rg"], "ack": VALUE_OPTIONS["rg"]})
VALUE_OPTIONS.update({k: VALUE_OPTIONS["ls"] for k in ("dir", "vdir", "exa", "eza", "lsd")})


@dataclass
class Args:
    """A command's words split into options (name -> values, repeatable) and operands, by its option table."""

    name: str
    flags: set[str] = field(default_factory=set)
    values: dict[str, list[Word]] = field(default_factory=dict)
    operands: list[Word] = field(default_factory=list)

    def has(self, *names: str) -> bool:
        """Whether any of these options was given (as a flag or with a value)."""
        return any(n in self.flags or n in self.values for n in names)

    def value(self, *names: str) -> Word | None:
        """The last value given to any of these options."""
        for n in names:
            if self.values.get(n):
                return self.values[n][-1]
        return None


def split_args(name: str, words: list[Word]) -> Args:
    """Options and operands of ``name WORDS...`` (``-abc`` bundles, ``-n5``, ``--k=v``, ``--`` ends options).

    Short options are kept as ``-x``, long ones as ``--name``. ``head -20`` / ``tail +5`` count as ``-n``.
    """
    short_values, long_values = VALUE_OPTIONS.get(name, ("", frozenset()))
    out = Args(name)
    i = 0
    while i < len(words):
        w = words[i]
        t = w.text
        if t == "--":
            out.operands.extend(words[i + 1 :])
            break
        if t.startswith("--") and len(t) > 2:
            key, eq, val = t.partition("=")
            if eq:
                out.values.setdefault(key, []).append(literal_word(val))
            elif key in long_values and i + 1 < len(words):
                out.values.setdefault(key, []).append(words[i + 1])
                i += 1
            else:
                out.flags.add(key)
        elif t.startswith("-") and len(t) > 1 and not (name == "find"):
            if name in ("head", "tail") and t[1:].isdigit():
                out.values.setdefault("-n", []).append(literal_word(t[1:]))
            else:
                j = 1
                while j < len(t):
                    letter = t[j]
                    if letter in short_values:
                        rest = t[j + 1 :]
                        if rest:
                            out.values.setdefault(f"-{letter}", []).append(literal_word(rest))
                        elif i + 1 < len(words):
                            out.values.setdefault(f"-{letter}", []).append(words[i + 1])
                            i += 1
                        break
                    out.flags.add(f"-{letter}")
                    j += 1
        elif name == "tail" and t.startswith("+") and t[1:].isdigit():
            out.values.setdefault("-n", []).append(w)
        else:
            out.operands.append(w)
        i += 1
    return out


# ---------------------------------------------------------------------------------------------------------
# Units


@dataclass
class Stage:
    """One command of a pipeline after prefixes (``sudo``, ``timeout 5``, ``env X=1``) are stripped."""

    name: str
    words: list[Word]
    """Arguments after the command name, variables resolved where known."""
    redirects: list[Redirect]
    argv0: str = ""

    @property
    def stdin_file(self) -> Word | None:
        """The file redirected into standard input (``< f``)."""
        for r in self.redirects:
            if r.op in ("<", "<>") and r.fd in ("", "0") and r.target is not None:
                return r.target
        return None

    @property
    def heredoc(self) -> str | None:
        """The here-document or here-string fed to standard input."""
        for r in self.redirects:
            if r.op in ("<<", "<<<") and r.heredoc is not None:
                return r.heredoc
        return None

    def stdout_targets(self) -> list[Word]:
        """Files the stage's standard output (or both streams) is redirected into, ``/dev/null`` included."""
        return [
            r.target
            for r in self.redirects
            if r.op in (">", ">>", ">|", "&>", "&>>") and r.fd in ("", "1") and r.target is not None
        ]


@dataclass
class Unit:
    """A pipeline as it ran: its stages, working directory and connector."""

    stages: list[Stage]
    cwd: str | None
    connector: str = ""
    redirects: list[Redirect] = field(default_factory=list)
    """Redirections of an enclosing compound command (``done > out.txt``)."""
    source: object | None = field(default=None, repr=False, compare=False)
    """The unit's :class:`rtlab.environment._capture.families.Source`, worked out once (scripts are parsed once)."""
    loop: tuple[int, int] | None = None
    """``(loop, iteration)`` for a unit of an unrolled loop: iterations that nothing in the output tells apart
    are not credited with each other's text."""
    fed: list[str] | None = None
    """The files an ``xargs`` or ``find -exec`` stage runs its command on, when they are known (a literal
    ``echo``/``printf``, a glob or a ``find`` the workspace resolves); None when unknown."""

    @property
    def silent_output(self) -> bool:
        """Standard output went to a file or ``/dev/null``: the model saw none of it."""
        last = self.stages[-1]
        if last.name == "tee":
            return False
        targets = last.stdout_targets() + [
            r.target
            for r in self.redirects
            if r.op in (">", ">>", "&>", "&>>") and r.fd in ("", "1") and r.target is not None
        ]
        return bool(targets)


@dataclass
class Repeat:
    """A loop over words capture cannot know in order (a glob without a workspace, a command substitution, a
    ``while read`` loop): its body, once, with ``var``."""

    var: str
    body: list[Unit | Repeat]
    cwd: str | None
    items: list[Word] = field(default_factory=list)
    values: list[str] | None = None
    """The files the loop runs over, in no known order (``$(find ...)`` resolved by the workspace)."""


Item = Unit | Repeat


class Resolver(Protocol):
    """What a workspace knows of the words a loop or ``xargs`` runs over (None: it cannot say)."""

    def glob(self, pattern: str, cwd: str | None) -> list[str] | None:
        """A glob's matches, sorted as the shell sorts them, as the shell prints them."""

    def find(self, words: list[Word], cwd: str | None) -> list[str] | None:
        """The files ``find WORDS`` prints (in no known order), as it prints them."""

    def lines(self, path: str, cwd: str | None) -> list[str] | None:
        """The lines of a file (``while read f; do ...; done < list``)."""


def units(command: str, cwd: str | None, *, resolve: Resolver | None = None) -> list[Item]:
    """The units of a command line in execution order; ``resolve`` (a workspace's knowledge) expands globs,
    ``find`` and list files where it can."""
    walker = _Walker(resolve)
    return walker.walk(parse(command), cwd, {})


class _Walker:
    def __init__(self, resolve: Resolver | None) -> None:
        self.resolve = resolve
        self.depth = 0
        self.loops = 0

    def walk(self, pipelines: list[Pipeline], cwd: str | None, env: dict[str, str]) -> list[Item]:
        """The units of parsed pipelines run from ``cwd`` with the variables ``env``."""
        out: list[Item] = []
        self._walk(pipelines, [cwd], env, out)
        return out

    def _walk(
        self, pipelines: list[Pipeline], cwd: list[str | None], env: dict[str, str], out: list[Item]
    ) -> None:
        for p in pipelines:
            if len(p.stages) == 1 and isinstance(p.stages[0], Compound):
                self._compound(p.stages[0], p.connector, cwd, env, out)
                continue
            stages: list[Stage] = []
            feeder: Unit | None = None  # ``( ... ) | sort``: the group's last unit is piped into the rest
            for stage in p.stages:
                if isinstance(stage, Compound):
                    fed: tuple[list[str] | None, bool] | None = None
                    if stages and _read_var(stage) is not None:
                        # ``X | while read f; do ...; done``: X's output feeds the loop, the model sees none of it
                        fed = self._feed(stages, cwd[0])
                        stages = []
                    inner: list[Item] = []
                    self._compound(stage, p.connector if not out else "", list(cwd), dict(env), inner, fed)
                    out.extend(inner)
                    feeder = inner[-1] if inner and isinstance(inner[-1], Unit) and not stages else None
                    continue
                resolved = self._stage(stage, cwd, env, out, len(p.stages) == 1)
                if resolved is not None:
                    stages.append(resolved)
            if stages and feeder is not None:
                feeder.stages.extend(stages)
            elif stages:
                unit = Unit(stages, cwd[0], p.connector)
                unit.fed = self._fed(stages, cwd[0])
                out.append(unit)

    def _stage(
        self, simple: Simple, cwd: list[str | None], env: dict[str, str], out: list[Item], alone: bool
    ) -> Stage | None:
        words = [w.resolve(env) for w in simple.words]
        assignments = 0
        while assignments < len(words) and _ASSIGNMENT.match(words[assignments].text):
            assignments += 1
        if assignments == len(words):
            for w in words:
                name, _, value = w.text.partition("=")
                if w.literal:
                    env[name] = value
                else:
                    env.pop(name, None)
            return None
        words = _strip_prefixes(words[assignments:])
        if not words:
            return None
        argv0 = words[0].text
        name = posixpath.basename(argv0)
        rest = words[1:]
        if name == "export":
            for w in rest:
                key, eq, value = w.text.partition("=")
                if eq and w.literal:
                    env[key] = value
            return None
        if name in ("cd", "pushd") and alone:
            cwd[0] = _cd(cwd[0], rest, env)
            return None
        if name in ("bash", "sh", "zsh", "dash", "ksh") and self.depth < 4:
            script = _shell_script(rest)
            if script is not None:
                self.depth += 1
                out.extend(self.walk(parse(script), cwd[0], dict(env)))
                self.depth -= 1
                return None
        return Stage(name, rest, [_resolve_redirect(r, env) for r in simple.redirects], argv0)

    def _compound(
        self,
        node: Compound,
        connector: str,
        cwd: list[str | None],
        env: dict[str, str],
        out: list[Item],
        fed: tuple[list[str] | None, bool] | None = None,
    ) -> None:
        scoped_cwd = list(cwd) if node.kind == "subshell" else cwd
        scoped_env = dict(env) if node.kind == "subshell" else env
        start = len(out)
        read_var = _read_var(node)
        if node.kind == "for":
            self._for(node, scoped_cwd, scoped_env, out)
        elif read_var is not None:
            if fed is None:  # ``while read f; do ...; done < list``
                target = next(
                    (r.target for r in node.redirects if r.op == "<" and r.target is not None), None
                )
                listed = (
                    self.resolve.lines(target.text, cwd[0])
                    if self.resolve and target and target.literal
                    else None
                )
                fed = (listed, True)
            self._loop(read_var, fed[0], fed[1], node.body, [], scoped_cwd, scoped_env, out)
        else:
            self._walk(node.condition + node.body, scoped_cwd, scoped_env, out)
        for item in out[start:]:
            if isinstance(item, Unit):
                item.redirects = item.redirects + node.redirects
        if start < len(out) and isinstance(out[start], Unit):
            out[start].connector = connector or out[start].connector  # type: ignore[union-attr]

    def _for(self, node: Compound, cwd: list[str | None], env: dict[str, str], out: list[Item]) -> None:
        values, ordered = self._loop_values(node.items or [], cwd[0], env)
        items = [w.resolve(env) for w in node.items or []]
        self._loop(node.var or "", values, ordered, node.body, items, cwd, env, out)

    def _loop(
        self,
        var: str,
        values: list[str] | None,
        ordered: bool,
        body_pipelines: list[Pipeline],
        items: list[Word],
        cwd: list[str | None],
        env: dict[str, str],
        out: list[Item],
    ) -> None:
        """A loop of ``var`` over ``values``: unrolled when their order is known (each iteration's units
        tagged), else one :class:`Repeat` that may know the set of values."""
        if values is not None and ordered and len(values) <= 200:
            self.loops += 1
            for k, value in enumerate(values):
                env[var] = value
                start = len(out)
                self._walk(body_pipelines, cwd, env, out)
                for item in out[start:]:
                    if isinstance(item, Unit) and item.loop is None:
                        item.loop = (self.loops, k)
            env.pop(var, None)
            return
        env.pop(var, None)
        body: list[Item] = []
        self._walk(body_pipelines, list(cwd), dict(env), body)
        out.append(Repeat(var, body, cwd[0], items, values))

    def _loop_values(
        self, items: list[Word], cwd: str | None, env: dict[str, str]
    ) -> tuple[list[str] | None, bool]:
        """The words a ``for`` loop runs over and whether their order is known: literal words, globs and
        ``$(ls GLOB)`` the workspace expands (sorted, as the shell does), ``$(find ...)`` (no known order)."""
        values: list[str] = []
        ordered = True
        for w in items:
            w = w.resolve(env)
            if w.literal:
                values.append(w.text)
                continue
            found: list[str] | None = None
            if all(k in ("lit", "glob") for k, _ in w.parts) and self.resolve is not None:
                found = self.resolve.glob(w.text, cwd)
            elif len(w.parts) == 1 and w.parts[0][0] == "dyn":
                inner = _substitution(w.parts[0][1])
                got = self._feed_stages(inner, cwd) if inner is not None else None
                if got is not None:
                    found, in_order = got
                    ordered = ordered and in_order
            if found is None:
                return None, False
            values.extend(found)
        return values, ordered

    def _feed_stages(self, command: str, cwd: str | None) -> tuple[list[str] | None, bool] | None:
        """:meth:`_feed` of a command substitution's text."""
        pipelines = parse(command)
        if len(pipelines) != 1 or not all(isinstance(s, Simple) for s in pipelines[0].stages):
            return None
        stages = [self._stage(s, [cwd], {}, [], False) for s in pipelines[0].stages]  # type: ignore[arg-type]
        if any(s is None for s in stages):
            return None
        found, ordered = self._feed([s for s in stages if s is not None], cwd)
        return (found, ordered) if found is not None else None

    def _feed(self, stages: list[Stage], cwd: str | None) -> tuple[list[str] | None, bool]:
        """The words a pipeline prints, one a line, when they are known, and whether in a known order: literal
        ``echo``/``printf``, ``ls`` of globs and files, ``cat LIST`` (the workspace's copy), ``find`` (the
        workspace's files, in no known order)."""
        if len(stages) != 1:
            return None, False
        stage = stages[0]
        words = stage.words
        name = stage.name
        if name in ("echo", "printf") and all(w.literal for w in words):
            texts = [w.text for w in words if not (name == "echo" and w.text in ("-e", "-n", "-E"))]
            if name == "printf":
                if not texts or texts[0].replace("\\n", "\n") not in ("%s\n", "%s\\n"):
                    return None, False
                texts = texts[1:]
            return [t for text in texts for t in text.replace("\\n", "\n").split()], True
        if self.resolve is None:
            return None, False
        if (
            name == "ls"
            and words
            and all(not w.text.startswith("-") or w.text in ("-1", "-d") for w in words)
        ):
            values: list[str] = []
            for w in words:
                if w.text.startswith("-"):
                    continue
                got = (
                    self.resolve.glob(w.text, cwd) if all(k in ("lit", "glob") for k, _ in w.parts) else None
                )
                if (
                    not got
                ):  # a folder (ls prints its entries' names, not paths), or nothing the workspace has
                    return None, False
                values.extend(got)
            return values, True
        if name == "cat" and len(words) == 1 and words[0].literal:
            return self.resolve.lines(words[0].text, cwd), True
        if name == "find":
            return self.resolve.find(words, cwd), False
        return None, False

    def _fed(self, stages: list[Stage], cwd: str | None) -> list[str] | None:
        """The files a unit's ``xargs`` (fed by the stages before it) or ``find -exec`` runs its command on."""
        for k, stage in enumerate(stages):
            if stage.name == "xargs" and k:
                return self._feed(stages[:k], cwd)[0]
        first = stages[0]
        if (
            first.name == "find"
            and self.resolve is not None
            and any(w.text in ("-exec", "-execdir") for w in first.words)
        ):
            return self.resolve.find(first.words, cwd)
        return None


def _substitution(text: str) -> str | None:
    """The command inside ``$(...)`` or backquotes."""
    if text.startswith("$(") and text.endswith(")"):
        return text[2:-1]
    if text.startswith("`") and text.endswith("`") and len(text) > 1:
        return text[1:-1]
    return None


def _read_var(node: Compound) -> str | None:
    """The variable of ``while [IFS=] read [-r] VAR; do ...; done``, else None."""
    if node.kind != "while" or len(node.condition) != 1 or len(node.condition[0].stages) != 1:
        return None
    simple = node.condition[0].stages[0]
    if not isinstance(simple, Simple):
        return None
    words = [w.text for w in simple.words if not _ASSIGNMENT.match(w.text)]
    if not words or words[0] != "read":
        return None
    names = [t for t in words[1:] if not t.startswith("-")]
    if len(names) != 1 or any(t not in ("-r",) for t in words[1:] if t.startswith("-")):
        return None
    return names[0]


def _strip_prefixes(words: list[Word]) -> list[Word]:
    """``sudo -u x cmd``, ``timeout 10 cmd``, ``env A=1 cmd``, ``time cmd``, ``uv run cmd`` -> ``cmd ...``."""
    i = 0
    while i < len(words):
        name = posixpath.basename(words[i].text)
        if name in _PREFIXES:
            i += 1
            while i < len(words) and (words[i].text.startswith("-") or _ASSIGNMENT.match(words[i].text)):
                takes_value = words[i].text in ("-u", "-g", "-n", "-s", "-k", "-o", "-e", "-i", "-c", "-p")
                i += 2 if takes_value else 1
            if name == "timeout" and i < len(words) and _DURATION.match(words[i].text):
                i += 1
            continue
        if (
            name in ("uv", "poetry", "pipenv", "pdm", "hatch", "rye")
            and i + 1 < len(words)
            and words[i + 1].text == "run"
        ):
            i += 2
            continue
        if name == "conda" and i + 1 < len(words) and words[i + 1].text == "run":
            i += 2
            while i < len(words) and words[i].text.startswith("-"):
                i += 2 if words[i].text in ("-n", "-p", "--name", "--prefix") else 1
            continue
        break
    return words[i:]


def _cd(cwd: str | None, args: list[Word], env: dict[str, str]) -> str | None:
    targets = [w for w in args if not w.text.startswith("-")]
    if not targets:
        return env.get("HOME", "~")
    target = targets[0]
    if not target.literal:
        return None
    if target.text.startswith(("/", "~")) or cwd is None:
        return normalize_path(target.text) if target.text.startswith("/") else target.text
    return normalize_path(target.text, cwd=cwd)


def _shell_script(args: list[Word]) -> str | None:
    """The script of ``bash -c SCRIPT`` / ``sh -lc SCRIPT``."""
    for i, w in enumerate(args):
        if w.text.startswith("-") and "c" in w.text[1:] and not w.text.startswith("--"):
            return args[i + 1].text if i + 1 < len(args) else None
        if not w.text.startswith("-"):
            return None
    return None


def _resolve_redirect(r: Redirect, env: dict[str, str]) -> Redirect:
    if r.target is None or r.target.literal:
        return r
    return Redirect(r.op, r.fd, r.target.resolve(env), r.heredoc)


def is_python(name: str) -> bool:
    """``python``, ``python3``, ``python3.12``, ``ipython``, ``py``."""
    return bool(_PY.match(name))

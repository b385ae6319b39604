"""Programs in other languages than Python (``node -e``, ``node -p``, ``node - <<EOF``, ``ruby -e``, ``perl -e``):
which files they open and write, and whether what they print is what they read.

The program is read as tokens (strings, names, punctuation; comments dropped), never run, and summed up as
the same :class:`rtlab.environment._capture.python.Script` a Python program gives, so its output is attributed
by the same rules (:func:`rtlab.environment._capture.python.attribute`): header lines naming a file split the
output; a program that opens exactly one file, writes none and prints what it read printed that file; lines
that are just paths are listed. With a workspace every such read is then confirmed against the file.

- Files it opens: the first argument of ``fs.readFileSync`` / ``readFile`` / ``createReadStream`` (JavaScript),
  ``File.read`` / ``readlines`` / ``foreach`` / ``open`` / ``IO.read`` / ``CSV.read`` / ``YAML.load_file``
  (Ruby), the file of ``open(FH, '<', PATH)`` or ``open(FH, PATH)`` (Perl), whatever its name; and every
  string literal that looks like a file name (``'notes.md'``), as for Python. A path argument may be a
  string, a name bound to one (``const p = 'a.md'``), ``path.join`` / ``File.join`` of such, or their
  concatenation (``base + '/a.md'``, a template ``${base}/a.md``).
- Files it writes: ``writeFileSync`` / ``writeFile`` / ``appendFileSync`` / ``createWriteStream``,
  ``File.write`` / ``File.open(PATH, 'w')``, ``open(FH, '>', PATH)``.
- It prints what it read when a printing call (``console.log``, ``process.stdout.write``; ``puts``, ``print``,
  ``p``; ``print``, ``say``, ``printf``; the whole expression of ``node -p``) takes a reading call, a Perl
  ``<$fh>``, or a name bound to either (through assignments, ``for (x of y)``, ``y.forEach((x) =>``,
  ``y.each do |x|``, ``while (my $x = <$fh>)``), unless the value is computed from it (``.length``,
  ``.size``, ``.count``, ``length(...)``, ``scalar(...)``).
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass
from functools import lru_cache
from typing import Literal

from rtlab.environment._capture.python import Script, _is_file_name, _opened_name, _prefer_full

Language = Literal["javascript", "ruby", "perl"]

_LEXERS: dict[str, re.Pattern[str]] = {
    "javascript": re.compile(
        r"(?P<comment>//[^\n]*|/\*.*?\*/)"
        r"|(?P<str>'(?:[^'\\\n]|\\.)*'|\"(?:[^\"\\\n]|\\.)*\"|`(?:[^`\\]|\\.)*`)"
        r"|(?P<name>[A-Za-z_$][\w$]*)"
        r"|(?P<nl>\n)"
        r"|(?P<punct>=>|===|!==|==|!=|<=|>=|\+=|&&|\|\||\?\.|[^\s\w])",
        re.S,
    ),
    "ruby": re.compile(
        r"(?P<comment>#(?!\{)[^\n]*)"
        r"|(?P<str>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
        r"|(?P<name>(?:\$|@{1,2})?[A-Za-z_]\w*[?!]?)"
        r"|(?P<nl>\n)"
        r"|(?P<punct>=>|==|!=|<=|>=|\+=|&&|\|\||::|[^\s\w])",
        re.S,
    ),
    "perl": re.compile(
        r"(?P<comment>#[^\n]*)"
        r"|(?P<str>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")"
        r"|(?P<readline><\$?\w*>)"
        r"|(?P<name>[$@%]?[A-Za-z_]\w*(?:::\w+)*)"
        r"|(?P<nl>\n)"
        r"|(?P<punct>=>|==|!=|<=|>=|\.=|&&|\|\||=~|[^\s\w])",
        re.S,
    ),
}
_INTERPOLATION = {
    "javascript": re.compile(r"\$\{\s*([A-Za-z_$][\w$]*)\s*\}|\$\{"),
    "ruby": re.compile(r"#\{\s*([A-Za-z_]\w*)\s*\}|#\{"),
    "perl": re.compile(r"\$\{?([A-Za-z_]\w*)\}?|@[A-Za-z_{]"),
}
"""An interpolation in a string: a bound name (group 1) is replaced by its value; anything else makes the
string's value unknown."""
_INTERPOLATING = {"javascript": "`", "ruby": '"', "perl": '"'}
_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "0": "\0"}

_READS: dict[str, frozenset[str]] = {
    "javascript": frozenset({"readFileSync", "readFile", "createReadStream"}),
    "ruby": frozenset({"read", "readlines", "foreach", "open", "binread", "load_file", "parse_file"}),
    "perl": frozenset({"open"}),
}
_RUBY_READERS = frozenset({"File", "IO", "CSV", "YAML", "JSON", "Psych"})
"""The receivers of Ruby's reading calls (``File.read``; a bare ``open`` is Kernel's)."""
_WRITES: dict[str, frozenset[str]] = {
    "javascript": frozenset(
        {"writeFileSync", "writeFile", "appendFileSync", "appendFile", "createWriteStream"}
    ),
    "ruby": frozenset({"write", "binwrite"}),
    "perl": frozenset(),
}
_WRITERS: dict[str, frozenset[str | None]] = {"ruby": frozenset({"File", "IO"}), "perl": frozenset()}
"""The receivers of Ruby's writing calls (``File.write``; ``$stdout.write`` prints)."""
_WALKS: dict[str, frozenset[str]] = {
    "javascript": frozenset({"readdirSync", "readdir", "opendirSync"}),
    "ruby": frozenset({"glob", "entries", "children", "each_child"}),
    "perl": frozenset({"opendir"}),
}
_PRINTS: dict[str, frozenset[str]] = {
    "javascript": frozenset({"log", "info", "dir", "table", "write"}),
    "ruby": frozenset({"puts", "print", "p", "pp", "write", "display"}),
    "perl": frozenset({"print", "say", "printf"}),
}
_JOINS = frozenset({"join", "resolve", "expand_path"})
"""``path.join`` / ``path.resolve`` (JavaScript), ``File.join`` / ``File.expand_path`` (Ruby)."""
_COMPUTED = frozenset(
    {"length", "size", "count", "byteLength", "indexOf", "lastIndexOf", "includes", "test", "startsWith",
     "endsWith", "search", "scalar", "exist", "exists", "existsSync", "empty", "keys", "Number", "parseInt",
     "parseFloat", "Boolean", "typeof", "defined", "lines_count", "mtime", "statSync", "stat"}
)  # fmt: skip
"""Names whose value is computed from what they take: printing it shows no file content."""
_MAX_VALUES = 64


@dataclass(frozen=True)
class _Token:
    kind: str  # str, name, punct, nl, readline
    text: str
    value: str | None = None
    """A string's value (None when it interpolates something unknown)."""


def analyze(code: str, language: Language, *, prints_value: bool = False) -> Script:
    """What a program in ``language`` opens, writes and prints (a fresh copy each call: callers may change it);
    ``prints_value``: the program is an expression whose value is printed (``node -p``)."""
    s = _analyze(code, language, prints_value)
    return Script(list(s.inputs), list(s.writes), list(s.walked), True, s.reads_files, s.prints_content)


@lru_cache(maxsize=256)
def _analyze(code: str, language: Language, prints_value: bool) -> Script:
    tokens = _tokens(code, language)
    program = _Program(tokens, language)
    program.walk()
    written = set(program.writes)
    inputs = [p for p in program.inputs if p not in written]
    prints = program.prints_content or (prints_value and program.carries(0, len(tokens)))
    return Script(_prefer_full(inputs), program.writes, program.walked, True, program.reads, prints)


def _tokens(code: str, language: Language) -> list[_Token]:
    out: list[_Token] = []
    for m in _LEXERS[language].finditer(code):
        kind = m.lastgroup or "punct"
        if kind == "comment":
            continue
        text = m.group(0)
        out.append(_Token(kind, text, _string(text) if kind == "str" else None))
    return out


def _string(text: str) -> str | None:
    """A string literal's value, interpolations left in place (resolved later against bound names)."""
    body = text[1:-1]
    if text[0] == "'":
        return body.replace("\\'", "'").replace("\\\\", "\\")
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(1)), body)


class _Program:
    """One walk over a program's tokens: bound names, opened and written files, printing calls."""

    def __init__(self, tokens: list[_Token], language: Language) -> None:
        self.t = tokens
        self.lang = language
        self.env: dict[str, list[str]] = {}
        self.tainted: set[str] = set()
        self.inputs: list[str] = []
        self.writes: list[str] = []
        self.walked: list[str] = []
        self.reads = False
        self.prints_content = False
        self.ends = self._statement_ends()

    # -- structure --------------------------------------------------------------------------------------

    def _statement_ends(self) -> list[int]:
        """For each token, the index where its statement ends (a ``;`` or a newline outside brackets)."""
        ends = [len(self.t)] * len(self.t)
        depth = 0
        start = 0
        for i, tok in enumerate(self.t):
            if tok.kind == "punct" and tok.text in "([{":
                depth += 1
            elif tok.kind == "punct" and tok.text in ")]}":
                depth = max(0, depth - 1)
            if (tok.kind == "nl" and depth == 0) or (tok.kind == "punct" and tok.text == ";"):
                for k in range(start, i + 1):
                    ends[k] = i
                start = i + 1
        return ends

    def _close(self, i: int) -> int:
        """The index of the bracket closing the one at ``i`` (or the end)."""
        depth = 0
        for k in range(i, len(self.t)):
            tok = self.t[k]
            if tok.kind == "punct" and tok.text in "([{":
                depth += 1
            elif tok.kind == "punct" and tok.text in ")]}":
                depth -= 1
                if depth == 0:
                    return k
        return len(self.t)

    def _args(self, i: int) -> list[tuple[int, int]]:
        """The arguments of a call whose name is at ``i``: spans of tokens, split at top-level commas; without
        parentheses (Ruby, Perl), up to the statement's end."""
        if i + 1 < len(self.t) and self.t[i + 1].text == "(":
            start, end = i + 2, self._close(i + 1)
        else:
            start, end = i + 1, self.ends[i]
        spans = self._split_commas(start, end)
        return spans if spans[-1][0] < end else spans[:-1]  # no empty last argument (``f()``, ``f(a,)``)

    def _writer(self, i: int) -> bool:
        """Whether the writing name at ``i`` is the file system's: ``fs.writeFileSync``,
        ``require('fs').writeFileSync``, a destructured ``writeFileSync(...)``; Ruby's ``File.write``."""
        if self.lang == "javascript":
            return (
                self._receiver(i) is not None
                or self.t[i - 1].text == "."
                or (i + 1 < len(self.t) and self.t[i + 1].text == "(")
            )
        return self._receiver(i) in _WRITERS[self.lang]

    def _receiver(self, i: int) -> str | None:
        """The name before ``.`` (or ``::``) in ``X.name``, if any."""
        if i >= 2 and self.t[i - 1].text in (".", "::", "?.") and self.t[i - 2].kind == "name":
            return self.t[i - 2].text
        return None

    # -- values ------------------------------------------------------------------------------------------

    def values(self, start: int, end: int) -> list[str]:
        """Every string the tokens ``[start, end)`` can be: strings, bound names, joins, concatenations."""
        out: list[list[str]] = []
        k = start
        while k < end:
            got, k = self._primary(k, end)
            if not got:
                return []
            out.append(got)
            if k < end and self.t[k].text in (("+", ".") if self.lang == "perl" else ("+",)):
                k += 1  # JavaScript/Ruby '+', Perl '.'
                continue
            if k < end:
                return []
        if not out:
            return []
        return ["".join(c) for c in itertools.islice(itertools.product(*out), _MAX_VALUES)]

    def _primary(self, k: int, end: int) -> tuple[list[str], int]:
        tok = self.t[k]
        if tok.kind == "str":
            return self._interpolated(tok), k + 1
        if tok.kind == "name" and k + 1 < end and self.t[k + 1].text in (".", "::"):
            # path.join(...), File.join(...)
            if k + 2 < end and self.t[k + 2].text in _JOINS and k + 3 < end and self.t[k + 3].text == "(":
                close = self._close(k + 3)
                parts = [self.values(s, e) for s, e in self._args(k + 2)]
                if parts and all(parts):
                    return [
                        _join(c) for c in itertools.islice(itertools.product(*parts), _MAX_VALUES)
                    ], close + 1
            return [], end
        if tok.kind == "name" and tok.text in self.env:
            return self.env[tok.text], k + 1
        return [], end

    def _interpolated(self, tok: _Token) -> list[str]:
        value = tok.value
        if value is None:
            return []
        if tok.text[0] != _INTERPOLATING[self.lang]:
            return [value]
        parts: list[list[str]] = []
        pos = 0
        for m in _INTERPOLATION[self.lang].finditer(value):
            name = self._key(m.group(1)) if m.group(1) else None
            if name is None or name not in self.env:
                return []
            parts.append([value[pos : m.start()]])
            parts.append(self.env[name])
            pos = m.end()
        parts.append([value[pos:]])
        return ["".join(c) for c in itertools.islice(itertools.product(*parts), _MAX_VALUES)]

    # -- the walk ----------------------------------------------------------------------------------------

    def walk(self) -> None:
        t = self.t
        for i, tok in enumerate(t):
            if tok.kind == "str" and tok.value is not None and not self._module_name(i):
                self._note(self.inputs, [v for v in self._interpolated(tok) if _is_file_name(v)])
            if tok.kind == "readline" and tok.text not in ("<STDIN>", "<>"):
                self.reads = True
            if tok.kind != "name":
                continue
            name = tok.text
            if self._assignment(i):
                self._bind(i)
            elif self._reading(i):
                self.reads = True
                self._note(self.inputs, [v for v in self._read_path(i) if _opened_name(v)])
            elif name in _WRITES[self.lang] and self._writer(i):
                args = self._args(i)
                if args:
                    self._note(self.writes, self.values(*args[0]))
            elif name in _WALKS[self.lang]:
                args = self._args(i)
                if args:
                    self.walked.extend(self.values(*args[0]))
            if name == "open" and self.lang in ("ruby", "perl"):
                self._open_for_writing(i)
        # taint to a fixed point, then the printing calls
        for _ in range(6):
            before = len(self.tainted)
            for i, tok in enumerate(t):
                if tok.kind == "name":
                    self._taint_from(i)
            if len(self.tainted) == before:
                break
        for i, tok in enumerate(t):
            if tok.kind == "name" and self._printing(i):
                span = self._print_span(i)
                if self.carries(*span):
                    self.prints_content = True

    def _module_name(self, i: int) -> bool:
        """A string naming a module (``require('./lib.js')``, ``import x from './y.js'``), not a file read."""
        before = self.t[i - 2].text if i >= 2 else ""
        return before in ("require", "require_relative", "load") or (i >= 1 and self.t[i - 1].text == "from")

    def _note(self, into: list[str], values: list[str]) -> None:
        for v in values:
            if v and v not in into:
                into.append(v)

    def _assignment(self, i: int) -> bool:
        nxt = self.t[i + 1] if i + 1 < len(self.t) else None
        return nxt is not None and nxt.kind == "punct" and nxt.text == "=" and self.t[i].text not in _KEYWORDS

    def _bind(self, i: int) -> None:
        values = self.values(i + 2, self.ends[i])
        if values:
            self.env[self.t[i].text] = values
        else:
            self.env.pop(self.t[i].text, None)

    def _reading(self, i: int) -> bool:
        name = self.t[i].text
        if name not in _READS[self.lang]:
            return False
        receiver = self._receiver(i)
        if self.lang == "javascript":
            return receiver is not None or (i + 1 < len(self.t) and self.t[i + 1].text == "(")
        if self.lang == "ruby":
            if name == "open":
                return (receiver in _RUBY_READERS or receiver is None) and not self._write_mode(i)
            return receiver in _RUBY_READERS
        return not self._write_mode(i)  # perl open

    def _read_path(self, i: int) -> list[str]:
        args = self._args(i)
        if self.lang != "perl":
            return self.values(*args[0]) if args else []
        # open(FH, '<', PATH) / open(my $fh, '<:encoding(UTF-8)', PATH) / open(FH, "<PATH") / open(FH, PATH)
        if len(args) >= 3:
            return self.values(*args[2])
        if len(args) == 2:
            return [
                v.lstrip("<").strip() for v in self.values(*args[1]) if not v.lstrip().startswith((">", "|"))
            ]
        return []

    def _write_mode(self, i: int) -> bool:
        """``File.open(p, 'w')``, ``open(FH, '>', p)``, ``open(FH, ">p")``."""
        args = self._args(i)
        if self.lang == "perl":
            mode = self.values(*args[1]) if len(args) >= 2 else []
            return any(v.lstrip().startswith((">", "+>", "|")) or v.rstrip().endswith("|") for v in mode)
        mode = self.values(*args[1]) if len(args) >= 2 else []
        return any(c in v for v in mode for c in "wa")

    def _open_for_writing(self, i: int) -> None:
        if not self._write_mode(i):
            return
        args = self._args(i)
        if self.lang == "ruby" and args:
            self._note(self.writes, self.values(*args[0]))
        elif self.lang == "perl" and len(args) >= 3:
            self._note(self.writes, self.values(*args[2]))
        elif self.lang == "perl" and len(args) == 2:
            self._note(self.writes, [v.lstrip("+>").strip() for v in self.values(*args[1])])

    # -- taint -------------------------------------------------------------------------------------------

    def carries(self, start: int, end: int) -> bool:
        """Whether some argument among the tokens ``[start, end)`` holds data read from a file, not only a
        value computed from it (``text.length``, ``lines.count``, ``scalar(@rows)``)."""
        return any(self._carries_one(s, e) for s, e in self._split_commas(start, min(end, len(self.t))))

    def _carries_one(self, start: int, end: int) -> bool:
        if start >= end or self._computed(start, end):
            return False
        for k in range(start, end):
            tok = self.t[k]
            if tok.kind == "readline" and tok.text not in ("<STDIN>", "<>"):
                return True
            if tok.kind == "name" and (tok.text in self.tainted or self._reading(k)):
                return True
            if tok.kind == "str" and tok.text[0] == _INTERPOLATING[self.lang] and tok.value is not None:
                names = {
                    self._key(m.group(1)) for m in _INTERPOLATION[self.lang].finditer(tok.value) if m.group(1)
                }
                if names & self.tainted:
                    return True
        return False

    def _computed(self, start: int, end: int) -> bool:
        """An expression whose value is computed: its last member is ``length``/``size``/``count``/...
        (``x.includes('a')`` too), or it is a call of such a function (``parseInt(x)``, ``scalar(@x)``)."""
        t = self.t
        last = end - 1
        while last > start and t[last].text == ";":
            last -= 1
        if t[last].text == ")":
            opening = self._opening(last, start)
            last = opening - 1 if opening is not None else last
        if last >= start and t[last].kind == "name" and t[last].text in _COMPUTED:
            return True
        head = t[start]
        return head.kind == "name" and head.text in _COMPUTED

    def _opening(self, close: int, start: int) -> int | None:
        depth = 0
        for k in range(close, start - 1, -1):
            if self.t[k].text in ")]}":
                depth += 1
            elif self.t[k].text in "([{":
                depth -= 1
                if depth == 0:
                    return k
        return None

    def _split_commas(self, start: int, end: int) -> list[tuple[int, int]]:
        spans: list[tuple[int, int]] = []
        depth = 0
        first = start
        for k in range(start, end):
            tok = self.t[k]
            if tok.kind == "punct" and tok.text in "([{":
                depth += 1
            elif tok.kind == "punct" and tok.text in ")]}":
                depth -= 1
            elif tok.kind == "punct" and tok.text == "," and depth == 0:
                spans.append((first, k))
                first = k + 1
        spans.append((first, end))
        return spans

    def _key(self, name: str) -> str:
        """A name as bound: Perl's scalars keep their sigil."""
        return "$" + name if self.lang == "perl" else name

    def _taint_from(self, i: int) -> None:
        t = self.t
        name = t[i].text
        if self._assignment(i):
            if self.carries(i + 2, self.ends[i]):
                self.tainted.add(name)
            return
        if name in ("of", "in") and i >= 1 and t[i - 1].kind == "name":  # for (const x of y), for x in y
            paren = next((k for k in range(i, max(-1, i - 6), -1) if t[k].text == "("), None)
            close = self._close(paren) if paren is not None else self.ends[i]
            if self.carries(i + 1, close):
                self.tainted.add(t[i - 1].text)
            return
        if name in ("foreach", "for") and self.lang == "perl":  # foreach my $x (@y)
            k = i + 1
            while k < len(t) and t[k].text in ("my", "our"):
                k += 1
            if k + 1 < len(t) and t[k].text.startswith("$") and t[k + 1].text == "(":
                if self.carries(k + 2, self._close(k + 1)):
                    self.tainted.add(t[k].text)
            return
        if name in ("while", "until") and self.lang == "perl":  # while (my $line = <$fh>)
            for k in range(i + 1, min(i + 8, len(t))):
                if t[k].kind == "readline" and t[k].text not in ("<STDIN>", "<>"):
                    self.tainted.add("$_")
                    self.tainted.update(
                        x.text for x in t[i + 1 : k] if x.kind == "name" and x.text.startswith("$")
                    )
                    break
            return
        reading = self._reading(i)
        if reading or (
            name in _ITERATORS and i >= 2 and t[i - 1].text in (".", "?.") and self._tainted_chain(i - 2)
        ):
            self.tainted.update(self._callback_params(i))

    def _callback_params(self, i: int) -> list[str]:
        """The parameters of a callback the call at ``i`` takes: ``(a, b) =>``, ``a =>``, ``function (a)``
        inside its parentheses (JavaScript), ``do |a, b|`` / ``{ |a| }`` after them (Ruby)."""
        t = self.t
        if self.lang == "javascript":
            if i + 1 >= len(t) or t[i + 1].text != "(":
                return []
            close = self._close(i + 1)
            for k in range(i + 2, close):
                if t[k].text == "=>":
                    if t[k - 1].kind == "name":
                        return [t[k - 1].text]
                    opening = self._opening(k - 1, i + 2) if t[k - 1].text == ")" else None
                    if opening is not None:
                        return [x.text for x in t[opening + 1 : k - 1] if x.kind == "name"]
                if t[k].text == "function" and k + 1 < close:
                    paren = k + 1 if t[k + 1].text == "(" else k + 2
                    if paren < close and t[paren].text == "(":
                        return [x.text for x in t[paren + 1 : self._close(paren)] if x.kind == "name"]
            return []
        if self.lang == "ruby":
            k = self._close(i + 1) + 1 if i + 1 < len(t) and t[i + 1].text == "(" else i + 1
            while k < len(t) and t[k].kind != "nl" and t[k].text not in ("do", "{"):
                k += 1
            if k + 1 < len(t) and t[k].text in ("do", "{") and t[k + 1].text == "|":
                bar = next((j for j in range(k + 2, min(k + 12, len(t))) if t[j].text == "|"), None)
                if bar is not None:
                    return [x.text for x in t[k + 2 : bar] if x.kind == "name"]
        return []

    def _tainted_chain(self, k: int) -> bool:
        """Whether the call chain ending at ``k`` (``x.split('\\n')`` before ``.forEach``) starts from a tainted
        name or a reading call: walk back over ``.name(...)`` links to the chain's head."""
        t = self.t
        while k >= 0:
            if t[k].text == ")":
                opening = self._opening(k, 0)
                if opening is None:
                    return False
                k = opening - 1
                continue
            if t[k].kind == "name" and (t[k].text in self.tainted or self._reading(k)):
                return True
            if t[k].kind == "name" and k >= 2 and t[k - 1].text in (".", "?."):
                k -= 2
                continue
            return False
        return False

    # -- printing ----------------------------------------------------------------------------------------

    def _printing(self, i: int) -> bool:
        name = self.t[i].text
        if name not in _PRINTS[self.lang]:
            return False
        receiver = self._receiver(i)
        if self.lang == "javascript":
            if name == "write":
                return receiver == "stdout"
            return receiver == "console"
        if name in ("write", "display"):
            return receiver in ("$stdout", "STDOUT")
        return receiver in (None, "$stdout", "STDOUT", "Kernel")

    def _print_span(self, i: int) -> tuple[int, int]:
        if i + 1 < len(self.t) and self.t[i + 1].text == "(":
            return i + 2, self._close(i + 1)
        return i + 1, self.ends[i]


_KEYWORDS = frozenset({"const", "let", "var", "my", "our", "local", "if", "else", "return", "do", "end"})
_ITERATORS = frozenset(
    {"forEach", "map", "filter", "flatMap", "reduce", "find", "some", "every", "each", "each_line",
     "each_with_index", "each_slice", "select", "collect", "detect", "then"}
)  # fmt: skip
"""Calls whose callback takes the receiver's items (``lines.forEach((line) => ...)``, ``rows.each do |r|``)."""


def _join(parts: tuple[str, ...]) -> str:
    """``path.join`` / ``File.join`` of literal parts (an absolute part starts over, as ``path.resolve`` does)."""
    path = ""
    for p in parts:
        p = p[2:] if p.startswith("./") else p
        path = p if p.startswith("/") or not path else path.rstrip("/") + "/" + p
    return path

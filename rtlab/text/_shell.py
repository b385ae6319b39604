"""The structure of a logged shell command, as far as capture needs it: which simple commands run, in what
order, with which arguments, redirections, here-documents and working directory.

This is not a shell. It reads POSIX/bash syntax (quotes, ``$(...)``, backquotes, operators ``&& || ; | &``,
redirections, here-documents, ``for``/``while``/``if``/``case``, groups and subshells) and never fails: an
unterminated quote or a construct it does not know ends as literal text, so capture degrades to "nothing
attributed" instead of raising. :func:`split_shell_words` splits a plain command line into words by the same
quoting rules (readers unwrap ``bash -lc "..."`` with it).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Literal

# ---------------------------------------------------------------------------------------------------------
# Words

Part = tuple[str, str]
"""``(kind, text)``: ``lit`` (quoted or plain literal text), ``glob`` (unquoted text with ``* ? [``),
``var`` (a variable name), ``dyn`` (command substitution or another expansion, raw text)."""

_GLOB_CHARS = re.compile(r"[*?\[]")


@dataclass(frozen=True)
class Word:
    """One shell word as parts; ``text`` is the word with variables left as written."""

    parts: tuple[Part, ...]
    """The word's pieces in order, as ``(kind, text)`` (see :data:`Part`)."""
    text: str = field(init=False, repr=False, compare=False)
    """The word's text with variables written ``$name``."""
    literal: bool = field(init=False, repr=False, compare=False)
    """Only literal text: the word means exactly ``text``."""

    def __post_init__(self) -> None:
        # worked out once: capture asks for them many times per word
        object.__setattr__(self, "text", "".join(f"${t}" if k == "var" else t for k, t in self.parts))
        object.__setattr__(self, "literal", all(k == "lit" for k, _ in self.parts))

    def resolve(self, env: dict[str, str]) -> Word:
        """Variables known in ``env`` replaced by their values."""
        if not any(k == "var" and t in env for k, t in self.parts):
            return self
        return Word(tuple(("lit", env[t]) if k == "var" and t in env else (k, t) for k, t in self.parts))

    def variables(self) -> list[str]:
        """The names of the variables the word uses."""
        return [t for k, t in self.parts if k == "var"]


def literal_word(text: str) -> Word:
    """A word that means exactly ``text``."""
    return Word((("lit", text),))


# ---------------------------------------------------------------------------------------------------------
# Parsed structure


@dataclass
class Redirect:
    """A redirection: ``op`` is ``>``, ``>>``, ``<``, ``<<``, ``<<<``, ``>&``, ``&>``, ...; ``fd`` as written."""

    op: str
    """The operator as written (``<<-`` kept as ``<<``)."""
    fd: str = ""
    """The descriptor written before the operator (``2`` in ``2>``); empty when none is."""
    target: Word | None = None
    """The word after the operator (a file, a here-document's delimiter); ``None`` for a descriptor copy
    (``2>&1``) or when no word follows."""
    heredoc: str | None = None
    """The here-document body (``<<``) or here-string (``<<<``), as the command receives it."""


@dataclass
class Simple:
    """A simple command: words and redirections."""

    words: list[Word] = field(default_factory=list)
    """The words in order, the command's name first (a leading ``X=1`` is a word too)."""
    redirects: list[Redirect] = field(default_factory=list)
    """Its redirections, in order."""


@dataclass
class Pipeline:
    """Commands joined by ``|``, and the operator that joins the pipeline to the one before."""

    stages: list[Simple | Compound]
    """The commands in order, at least one."""
    connector: str = ""
    """The operator before it: ``""`` (first), ``&&``, ``||``, ``;``, ``&``, ``\\n``."""


CompoundKind = Literal["subshell", "group", "for", "while", "until", "if", "case"]


@dataclass
class Compound:
    """``for``/``while``/``until``/``if``/``case``/``{ }``/``( )``: ``body`` holds every branch in order."""

    kind: CompoundKind
    """``for``, ``while``, ``until``, ``if``, ``case``, ``group`` (``{ }``) or ``subshell`` (``( )``)."""
    body: list[Pipeline] = field(default_factory=list)
    """The commands inside, every branch in order (an ``if``'s conditions too; a ``case``'s: none)."""
    var: str | None = None
    """A ``for`` loop's variable name."""
    items: list[Word] | None = None
    """A ``for`` loop's words (``None`` for ``for x; do`` or when there are none)."""
    redirects: list[Redirect] = field(default_factory=list)
    """Redirections written after its end (``done > out``)."""
    condition: list[Pipeline] = field(default_factory=list)
    """A ``while`` or ``until`` loop's condition."""


# ---------------------------------------------------------------------------------------------------------
# Lexer

_OPERATORS = ("&&", "||", ";;", "|&", ";", "|", "&", "(", ")", "\n")
_REDIRECTS = ("<<<", "<<-", "<<", "<>", "<&", "<", "&>>", "&>", ">>", ">&", ">|", ">")
_META = set(" \t\n;&|()<>")
_VAR_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*|[0-9@*#?$!-]")
_DQ_ESCAPABLE = set('$`"\\\n')
_FD_DUP = re.compile(r"[0-9]+-?|-")


_WORD_PART = re.compile(r"""'([^']*)'|"([^"\\]*(?:\\.[^"\\]*)*)"|\\(.)|([^\s'"\\]+)|(\s+)""", re.S)
"""One part of a word (single-quoted, double-quoted, an escaped character, plain characters) or the space
between words. Inside double quotes, each run of characters between escapes is taken whole, not one
character an alternative at a time: a ``bash -lc`` script of thousands of characters is read at the regex
engine's speed."""
_DQ_ESCAPE = re.compile("\\\\(?:([" + re.escape("".join(sorted(_DQ_ESCAPABLE - {"\n"}))) + "])|\n)")
"""A backslash inside double quotes escapes only :data:`_DQ_ESCAPABLE`, as bash reads it (the lexer's rule):
the character escaped is kept (group 1), an escaped newline (a line continuation) leaves nothing (group 1
unmatched), so ``sub(r"\\1", ...)`` unescapes without a Python call per escape."""


def split_shell_words(raw: str) -> list[str]:
    """Split a command line into words as a POSIX shell does (quotes, backslashes; no expansion).

    Unlike ``shlex.split``, a backslash inside double quotes escapes ``$``, backquote, ``"``, ``\\`` and newline
    exactly as bash reads it, which is how Codex quotes ``bash -lc`` arguments; and it is linear-time.
    Raises ``ValueError`` on an unterminated quote or a trailing backslash.
    """
    words: list[str] = []
    current: list[str] | None = None
    pos = 0
    while pos < len(raw):
        m = _WORD_PART.match(raw, pos)
        if m is None:
            raise ValueError(f"unterminated quote or escape at position {pos}")
        single, double, escaped, plain, space = m.groups()
        if space is not None:
            if current is not None:
                words.append("".join(current))
                current = None
        else:
            if current is None:
                current = []
            if single is not None:
                current.append(single)
            elif double is not None:
                current.append(_DQ_ESCAPE.sub(r"\1", double))
            elif escaped is not None:
                current.append("" if escaped == "\n" else escaped)
            else:
                current.append(plain)
        pos = m.end()
    if current is not None:
        words.append("".join(current))
    return words


@dataclass
class _Token:
    kind: str  # "word", "op", "redir"
    value: str = ""
    word: Word | None = None
    redirect: Redirect | None = None


class _Lexer:
    """Turns a command string into tokens, reading here-document bodies at the ends of their lines."""

    def __init__(self, source: str) -> None:
        self.s = source
        self.i = 0
        self.pending: list[tuple[Redirect, str, bool]] = []

    def tokens(self) -> Iterator[_Token]:
        """Words, operators and redirections in order."""
        s = self.s
        n = len(s)
        while self.i < n:
            c = s[self.i]
            if c in " \t":
                self.i += 1
            elif c == "\\" and s.startswith("\\\n", self.i):
                self.i += 2
            elif c == "#":
                end = s.find("\n", self.i)
                self.i = n if end < 0 else end
            elif c == "\n":
                self.i += 1
                yield _Token("op", "\n")
                self._read_heredocs()
            elif c in "<>&" and (redir := self._redirect("")) is not None:  # all _REDIRECTS start so
                yield redir
            elif c in "&|;()":
                op = next(o for o in _OPERATORS if s.startswith(o, self.i))
                self.i += len(op)
                yield _Token("op", op)
            else:
                yield from self._word()

    def _redirect(self, fd: str) -> _Token | None:
        s = self.s
        for op in _REDIRECTS:
            if s.startswith(op, self.i):
                break
        else:
            return None
        self.i += len(op)
        redirect = Redirect(op=op.rstrip("-") if op == "<<-" else op, fd=fd)
        if op in (">&", "<&") and self._peek_fd_dup():
            return _Token("redir", redirect=redirect)
        target = self._next_word()
        redirect.target = target
        if op in ("<<", "<<-") and target is not None:
            self.pending.append((redirect, target.text, op == "<<-"))
        elif op == "<<<" and target is not None:
            redirect.heredoc = target.text + "\n"
        return _Token("redir", redirect=redirect)

    def _peek_fd_dup(self) -> bool:
        """``2>&1`` / ``>&2``: the word after ``>&`` is a descriptor, read into the redirect's target."""
        m = _FD_DUP.match(self.s, self.i)
        if m is None:
            return False
        self.i = m.end()
        return True

    def _next_word(self) -> Word | None:
        s = self.s
        while self.i < len(s) and s[self.i] in " \t":
            self.i += 1
        if self.i >= len(s) or s[self.i] in _META:
            return None
        words = list(self._word())
        return words[0].word if words and words[0].word is not None else None

    def _read_heredocs(self) -> None:
        s = self.s
        for redirect, delimiter, strip_tabs in self.pending:
            lines: list[str] = []
            while self.i < len(s):
                end = s.find("\n", self.i)
                line = s[self.i : end if end >= 0 else len(s)]
                self.i = len(s) if end < 0 else end + 1
                check = line.lstrip("\t") if strip_tabs else line
                if check == delimiter:
                    break
                lines.append(check)
            redirect.heredoc = "".join(line + "\n" for line in lines)
        self.pending = []

    def _word(self) -> Iterator[_Token]:
        s = self.s
        n = len(s)
        parts: list[Part] = []
        start = self.i
        while self.i < n:
            c = s[self.i]
            if c in _META:
                if c in "<>" and self.i > start and s[start : self.i].isdigit():
                    fd = s[start : self.i]
                    redir = self._redirect(fd)
                    if redir is not None:
                        yield redir
                        return
                break
            if c == "'":
                end = s.find("'", self.i + 1)
                end = n if end < 0 else end
                parts.append(("lit", s[self.i + 1 : end]))
                self.i = end + 1
            elif c == '"':
                self._double_quoted(parts)
            elif c == "\\":
                if self.i + 1 < n:
                    if s[self.i + 1] != "\n":
                        parts.append(("lit", s[self.i + 1]))
                    self.i += 2
                else:
                    self.i += 1
            elif c == "$":
                self._dollar(parts, quoted=False)
            elif c == "`":
                end = self._backquote_end(self.i)
                parts.append(("dyn", s[self.i : end]))
                self.i = end
            else:
                j = self.i
                while j < n and s[j] not in _META and s[j] not in "'\"\\$`":
                    j += 1
                chunk = s[self.i : j]
                parts.append(("glob" if _GLOB_CHARS.search(chunk) else "lit", chunk))
                self.i = j
        if self.i > start:
            yield _Token("word", word=Word(_merge(parts)))

    def _double_quoted(self, parts: list[Part]) -> None:
        s = self.s
        n = len(s)
        self.i += 1
        buf: list[str] = []
        while self.i < n and s[self.i] != '"':
            c = s[self.i]
            if c == "\\" and self.i + 1 < n and s[self.i + 1] in _DQ_ESCAPABLE:
                if s[self.i + 1] != "\n":
                    buf.append(s[self.i + 1])
                self.i += 2
            elif c == "$" or c == "`":
                if buf:
                    parts.append(("lit", "".join(buf)))
                    buf = []
                if c == "$":
                    self._dollar(parts, quoted=True)
                else:
                    end = self._backquote_end(self.i)
                    parts.append(("dyn", s[self.i : end]))
                    self.i = end
            else:
                buf.append(c)
                self.i += 1
        if buf:
            parts.append(("lit", "".join(buf)))
        self.i += 1

    def _dollar(self, parts: list[Part], *, quoted: bool) -> None:
        s = self.s
        i = self.i
        nxt = s[i + 1] if i + 1 < len(s) else ""
        if nxt == "(":
            end = _matching(s, i + 1, "(", ")")
            parts.append(("dyn", s[i:end]))
            self.i = end
        elif nxt == "{":
            end = _matching(s, i + 1, "{", "}")
            inner = s[i + 2 : end - 1]
            parts.append(("var", inner) if _VAR_NAME.fullmatch(inner) else ("dyn", s[i:end]))
            self.i = end
        elif nxt == "'" and not quoted:
            end = i + 2
            buf: list[str] = []
            while end < len(s) and s[end] != "'":
                if s[end] == "\\" and end + 1 < len(s):
                    buf.append(_ANSI_C.get(s[end + 1], s[end + 1]))
                    end += 2
                else:
                    buf.append(s[end])
                    end += 1
            parts.append(("lit", "".join(buf)))
            self.i = end + 1
        elif (m := _VAR_NAME.match(s, i + 1)) is not None:
            parts.append(("var", m.group(0)))
            self.i = m.end()
        else:
            parts.append(("lit", "$"))
            self.i = i + 1

    def _backquote_end(self, i: int) -> int:
        j = i + 1
        while j < len(self.s) and self.s[j] != "`":
            j += 2 if self.s[j] == "\\" else 1
        return min(j + 1, len(self.s))


_ANSI_C = {"n": "\n", "t": "\t", "r": "\r", "\\": "\\", "'": "'", '"': '"', "0": "\0", "e": "\x1b", "a": "\a"}


def _matching(s: str, i: int, open_: str, close: str) -> int:
    """Index just past the bracket closing the one at ``i``, skipping quoted text; the end of ``s`` if none."""
    depth = 0
    j = i
    while j < len(s):
        c = s[j]
        if c == "\\":
            j += 2
            continue
        if c == "'":
            k = s.find("'", j + 1)
            j = len(s) if k < 0 else k + 1
            continue
        if c == '"':
            k = j + 1
            while k < len(s) and s[k] != '"':
                k += 2 if s[k] == "\\" else 1
            j = k + 1
            continue
        if c == open_:
            depth += 1
        elif c == close:
            depth -= 1
            if depth == 0:
                return j + 1
        j += 1
    return len(s)


def _merge(parts: list[Part]) -> tuple[Part, ...]:
    """Adjacent literal parts joined (``glob`` absorbs neighbouring literals)."""
    out: list[Part] = []
    for kind, text in parts:
        if out and out[-1][0] in ("lit", "glob") and kind in ("lit", "glob"):
            prev_kind, prev = out[-1]
            out[-1] = ("glob" if "glob" in (prev_kind, kind) else "lit", prev + text)
        else:
            out.append((kind, text))
    return tuple(out)


# ---------------------------------------------------------------------------------------------------------
# Parser

_RESERVED_STOPS = frozenset({"do", "done", "then", "elif", "else", "fi", "esac", "}", "in"})


class _Parser:
    def __init__(self, tokens: list[_Token]) -> None:
        self.t = tokens
        self.i = 0

    def peek(self) -> _Token | None:
        """The next token, not consumed."""
        return self.t[self.i] if self.i < len(self.t) else None

    def peek_word(self) -> str | None:
        """The next token's text when it is a word."""
        tok = self.peek()
        return tok.word.text if tok is not None and tok.kind == "word" and tok.word is not None else None

    def parse_list(self, stops: frozenset[str] = frozenset(), close_paren: bool = False) -> list[Pipeline]:
        """Pipelines with their connectors, up to one of ``stops`` (or a ``)`` closing a subshell)."""
        items: list[Pipeline] = []
        connector = ""
        while self.i < len(self.t):
            tok = self.t[self.i]
            if tok.kind == "op":
                if tok.value == ")" and close_paren:
                    return items
                if tok.value in ("&&", "||", ";", "&", "\n", ";;"):
                    if tok.value != "\n" or connector == "":
                        connector = tok.value if items else ""
                    self.i += 1
                    continue
                if tok.value == ")":
                    self.i += 1
                    continue
            word = self.peek_word()
            if word in stops:
                return items
            pipeline = self.parse_pipeline()
            if pipeline is None:
                self.i += 1
                continue
            pipeline.connector = connector
            items.append(pipeline)
            connector = ";"
        return items

    def parse_pipeline(self) -> Pipeline | None:
        """Commands joined by ``|``."""
        stages: list[Simple | Compound] = []
        while True:
            if self.peek_word() == "!":
                self.i += 1
            stage = self.parse_command()
            if stage is None:
                break
            stages.append(stage)
            tok = self.peek()
            if tok is not None and tok.kind == "op" and tok.value in ("|", "|&"):
                self.i += 1
                while (tok := self.peek()) is not None and tok.kind == "op" and tok.value == "\n":
                    self.i += 1
                continue
            break
        return Pipeline(stages) if stages else None

    def parse_command(self) -> Simple | Compound | None:
        """One simple or compound command."""
        tok = self.peek()
        if tok is None:
            return None
        if tok.kind == "op" and tok.value == "(":
            self.i += 1
            body = self.parse_list(close_paren=True)
            self._expect_op(")")
            return self._with_redirects(Compound("subshell", body))
        word = self.peek_word()
        if word == "{":
            self.i += 1
            body = self.parse_list(frozenset({"}"}))
            self._expect_word("}")
            return self._with_redirects(Compound("group", body))
        if word == "for":
            return self._for()
        if word in ("while", "until"):
            self.i += 1
            cond = self.parse_list(frozenset({"do"}))
            self._expect_word("do")
            body = self.parse_list(frozenset({"done"}))
            self._expect_word("done")
            # Compound.kind takes the Literal, not the str
            loop: CompoundKind = "while" if word == "while" else "until"
            return self._with_redirects(Compound(loop, body, condition=cond))
        if word == "if":
            self.i += 1
            body = []
            while self.i < len(self.t) and self.peek_word() != "fi":
                if self.peek_word() in ("then", "elif", "else"):
                    self.i += 1
                    continue
                body.extend(self.parse_list(frozenset({"then", "elif", "else", "fi"})))
            self._expect_word("fi")
            return self._with_redirects(Compound("if", body))
        if word == "case":
            while self.i < len(self.t) and self.peek_word() != "esac":
                self.i += 1
            self._expect_word("esac")
            return self._with_redirects(Compound("case", []))
        if word in _RESERVED_STOPS:
            return None
        return self._simple()

    def _for(self) -> Compound:
        self.i += 1
        var = self.peek_word() or ""
        self.i += 1
        items: list[Word] | None = None
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.value in (";", "\n"):
            self.i += 1
        if self.peek_word() == "in":
            self.i += 1
            items = []
            while (tok := self.peek()) is not None and tok.kind == "word" and tok.word is not None:
                items.append(tok.word)
                self.i += 1
        while (tok := self.peek()) is not None and tok.kind == "op" and tok.value in (";", "\n"):
            self.i += 1
        self._expect_word("do")
        body = self.parse_list(frozenset({"done"}))
        self._expect_word("done")
        return self._with_redirects(Compound("for", body, var=var, items=items))

    def _simple(self) -> Simple | None:
        cmd = Simple()
        while (tok := self.peek()) is not None:
            if tok.kind == "word" and tok.word is not None:
                cmd.words.append(tok.word)
            elif tok.kind == "redir" and tok.redirect is not None:
                cmd.redirects.append(tok.redirect)
            else:
                break
            self.i += 1
        return cmd if cmd.words or cmd.redirects else None

    def _with_redirects(self, node: Compound) -> Compound:
        while (tok := self.peek()) is not None and tok.kind == "redir" and tok.redirect is not None:
            node.redirects.append(tok.redirect)
            self.i += 1
        return node

    def _expect_word(self, word: str) -> None:
        if self.peek_word() == word:
            self.i += 1

    def _expect_op(self, op: str) -> None:
        tok = self.peek()
        if tok is not None and tok.kind == "op" and tok.value == op:
            self.i += 1


_PLAIN = re.compile(r"[^\t\n;&|()<>'\"\\$`#*?\[]*")
"""A command of plain words: nothing the lexer reads as quoting, expansion, an operator, a comment or a glob."""
_COMMAND_KEYWORDS = _RESERVED_STOPS | {"!", "{", "for", "while", "until", "if", "case"}


def parse(command: str) -> list[Pipeline]:
    """The command's pipelines in order; never raises (unknown syntax ends as literal words)."""
    return _plain(command) or _parse_tokens(command)


def _plain(command: str) -> list[Pipeline] | None:
    """The one simple command of a line of plain words (``cat notes.md``), as :func:`_parse_tokens` would
    read it, without lexing it character by character; None for any other command."""
    if not _PLAIN.fullmatch(command):
        return None
    words = [literal_word(text) for text in command.split(" ") if text]
    if not words or words[0].text in _COMMAND_KEYWORDS:
        return None
    return [Pipeline([Simple(words)])]


def _parse_tokens(command: str) -> list[Pipeline]:
    """:func:`parse` for any command: lex, then parse the tokens."""
    lexer = _Lexer(command)
    tokens = list(lexer.tokens())
    if lexer.pending:  # a here-document whose body never came: read what is left
        lexer._read_heredocs()
    return _Parser(tokens).parse_list()

"""Requirements the environment proposes from the task text, before the agent states any.

Requirements are the one part of the tab the environment cannot capture: decomposing a task takes an
understanding the model supplies (the paper's first future direction). What the environment *can* do is read
the task text for the parts that are on its surface and offer them as requirements marked ``proposed``
(:attr:`rtlab.environment._tab.Requirement.origin`): the agent sees them on the tab beside its own, and the
replays and analyses can tell the two apart.

:class:`RuleProposer` (deterministic, no model) looks for four kinds of surface demand, each in one sentence
of the task (sentences split at ``. ; ? !`` followed by white space, and at line breaks):

- ``deliverable``: a file name the task mentions (:func:`rtlab.text.file_mentions`, the one rule) after an
  output verb of :data:`OUTPUT_CUES` in the same sentence with no input cue (:data:`INPUT_CUES`) between the
  verb and the name (``generate a Markdown file named `list.md``` is one; ``the files `a.png` and `b.png` on
  my Desktop`` is not). Text: ``Deliver `list.md```.
- ``entity``: a named thing: a file the task names that is not a deliverable (an input: ``Use `a.png```),
  a quoted span (`` `...` ``, ``"..."``, curly quotes) that is not a file name, or a run of capitalised words
  or codes (``Spring Boot``, ``TEMP-TASK-005``, ``Q1``) that is not a sentence's first word alone.
  A quoted name's ``basis`` keeps its quotes.
- ``quantity``: each number :func:`rtlab.text.find_numbers` (the one number parser) finds outside a file
  name, with the words around it in its sentence (up to :data:`QUANTITY_WORDS` before and after, stopping at
  punctuation, stop words at either end dropped): ``top 10 customers by revenue``. Number words (``five roles``) are not numbers to that parser
  and are not proposed as quantities; the enumeration they introduce usually is.
- ``enumeration``: a list of at least three items in one sentence, items separated by commas (the last by
  ``and`` / ``or``) or by slashes, each item at most :data:`ITEM_WORDS` words: ``covering early warning,
  information reporting, follow-up handling, and safeguard measures``. Text: ``Cover each of: early warning;
  information reporting; follow-up handling; safeguard measures``.

Proposals are deduplicated on their folded text, and a name or quantity that lies inside a deliverable, an
enumeration or a quoted name kept before it is dropped (``Top`` and ``5`` of ``"Top 5 Expense Items"`` are
not proposed again). Order: by position in the task text (a quantity's is its number's), then kind.

Any object with ``name`` and ``propose(tasks)`` is a :class:`Proposer`; the LLM proposer lives in
:mod:`rtlab.annotation` (it needs :mod:`rtlab.llm`, which the environment does not import) and returns the
same :class:`Proposal` records.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from rtlab.text import FILE_MENTION, STOP_WORDS, find_numbers, fold_text, tokenize

ProposalKind = Literal["deliverable", "entity", "quantity", "enumeration"]
PROPOSAL_KINDS: tuple[ProposalKind, ...] = ("deliverable", "entity", "quantity", "enumeration")

OUTPUT_CUES: frozenset[str] = frozenset(
    """generate generates generated create creates created produce produces output outputs save saved
    write writes export exports named called prepare draft compile make build deliver return
    into as""".split()
)
"""Words that, before a file name in the same sentence, make it a deliverable (lower case)."""
INPUT_CUES: frozenset[str] = frozenset(
    "from read reading based using use in on attached provided given".split()
)
"""Words that, between an output cue and a file name, make the name an input after all."""
QUANTITY_WORDS = 4
"""Words kept on each side of a number in a quantity proposal."""
ITEM_WORDS = 4
"""Most words an enumeration item may have (a longer piece ends or starts the list)."""

_SENTENCE = re.compile(r"(?<=[.;?!])\s+|\n+")
_WORD = re.compile(r"[^\W_](?:[\w'’-]*[^\W_])?")
_QUOTED = re.compile(r"`([^`\n]{2,80})`|\"([^\"\n]{2,80})\"|“([^”\n]{2,80})”")
# A capitalised word or code (letters, digits, hyphens; starts upper-case or is an upper-case code like Q1)
_NAMEY = re.compile(
    r"(?:[A-Z][\w&'’-]*|[A-Z0-9]+(?:-[A-Z0-9]+)+)(?:\s+(?:[A-Z][\w&'’-]*|of|and|&)(?=\s|$|[,.;:)]))*"
)
_SLASH_LIST = re.compile(
    r"[^\W\d_][\w-]*(?: [^\W\d_][\w-]*)?(?:\s*/\s*[^\W\d_][\w-]*(?: [^\W\d_][\w-]*)?){2,}"
)
_QUOTES = '`"“'
_CONNECT = re.compile(r"^(?:and|or|as well as|and also|plus)\s+", re.IGNORECASE)


@dataclass(frozen=True)
class Proposal:
    """A requirement the environment proposes, and where in the task text it came from."""

    text: str
    """The requirement as it would be added to the tab."""
    kind: ProposalKind
    """``deliverable``, ``entity``, ``quantity`` or ``enumeration`` (see the module docstring)."""
    basis: str
    """The words of the task text it was made from, as written."""
    start: int
    """Offset of ``basis`` in the task text (``-1`` when a model proposed it and the words are not there)."""
    proposer: str
    """Who proposed it: ``rules``, or ``llm:<model>``."""


class Proposer(Protocol):
    """What proposes requirements: any object with a ``name`` and ``propose`` (one list per task text)."""

    @property
    def name(self) -> str:
        """``rules``, ``llm:<model>``: the value of every proposal's :attr:`Proposal.proposer`."""
        ...

    def propose(self, tasks: Sequence[str]) -> list[list[Proposal]]:
        """The proposals for each task text, in input order."""
        ...


@dataclass(frozen=True)
class RuleProposer:
    """The deterministic proposer (rules in the module docstring)."""

    kinds: tuple[ProposalKind, ...] = PROPOSAL_KINDS
    """The kinds to propose (all four by default)."""

    @property
    def name(self) -> str:
        """Always ``rules``."""
        return "rules"

    def propose(self, tasks: Sequence[str]) -> list[list[Proposal]]:
        """The proposals for each task text."""
        return [self.propose_one(t) for t in tasks]

    def propose_one(self, task: str) -> list[Proposal]:
        """The proposals for one task text."""
        found: list[Proposal] = []
        for start, sentence in _sentences(task):
            found += _files(sentence, start)
            found += _enumerations(sentence, start)
            found += _quantities(sentence, start)
            found += _entities(sentence, start)
        return _keep([p for p in found if p.kind in self.kinds])


def propose_requirements(task: str, proposer: Proposer | None = None) -> list[Proposal]:
    """The proposals for one task text (``proposer`` default :class:`RuleProposer`)."""
    return (proposer or RuleProposer()).propose([task])[0]


# ---------------------------------------------------------------------------------------------------------
# The rules


def _sentences(task: str) -> list[tuple[int, str]]:
    out, pos = [], 0
    for m in _SENTENCE.finditer(task):
        if task[pos : m.start()].strip():
            out.append((pos, task[pos : m.start()]))
        pos = m.end()
    if task[pos:].strip():
        out.append((pos, task[pos:]))
    return out


def _words(text: str) -> list[str]:
    return [w.lower() for w in _WORD.findall(text)]


def _files(sentence: str, offset: int) -> list[Proposal]:
    out = []
    for m in FILE_MENTION.finditer(sentence):
        name = m.group().strip(".")
        before = _words(sentence[: m.start()])
        last_out = max((i for i, w in enumerate(before) if w in OUTPUT_CUES), default=-1)
        is_output = last_out >= 0 and not any(w in INPUT_CUES for w in before[last_out + 1 :])
        if is_output:
            out.append(Proposal(f"Deliver `{name}`", "deliverable", name, offset + m.start(), "rules"))
        else:
            out.append(Proposal(f"Use `{name}`", "entity", name, offset + m.start(), "rules"))
    return out


def _quantities(sentence: str, offset: int) -> list[Proposal]:
    files = [(m.start(), m.end()) for m in FILE_MENTION.finditer(sentence)]
    out = []
    for n in find_numbers(sentence):
        if any(a <= n.start < b for a, b in files):
            continue
        left = re.split(r"[,;:()\[\]`\"“”]", sentence[: n.start])[-1].split()[-QUANTITY_WORDS:]
        right = re.split(r"[,;:()\[\]`\"“”]|\.(?:\s|$)", sentence[n.end :])[0].split()[:QUANTITY_WORDS]
        basis = _trim(" ".join([*left, n.text, *right]))
        out.append(Proposal(basis, "quantity", basis, offset + n.start, "rules"))  # start: the number's
    return out


def _entities(sentence: str, offset: int) -> list[Proposal]:
    out = []
    files = [(m.start(), m.end()) for m in FILE_MENTION.finditer(sentence)]
    for m in _QUOTED.finditer(sentence):
        span = next(g for g in m.groups() if g is not None)
        if FILE_MENTION.search(span) or not tokenize(span):
            continue
        out.append(Proposal(span.strip(), "entity", m.group(), offset + m.start(), "rules"))
    first = _WORD.search(sentence)
    for m in _NAMEY.finditer(sentence):
        text = re.sub(r"\s+(?:of|and|&)$", "", m.group())
        if any(a <= m.start() < b for a, b in files) or not tokenize(text):
            continue
        alone = " " not in text and not re.search(r"\d|-", text)
        if alone and first is not None and m.start() == first.start():
            continue  # a sentence's first word alone is capitalised by grammar, not by name
        if alone and text.lower() in STOP_WORDS:
            continue
        out.append(Proposal(text, "entity", text, offset + m.start(), "rules"))
    return out


def _enumerations(sentence: str, offset: int) -> list[Proposal]:
    out = []
    for m in _SLASH_LIST.finditer(sentence):
        if sentence[max(0, m.start() - 1) : m.start()] == "/" or sentence[m.end() : m.end() + 1] == "/":
            continue  # a path, not a list
        items = [_trim(p) for p in m.group().split("/")]
        items = [i for i in items if i]
        if len(items) >= 3:
            out.append(_enumeration(items, m.group(), offset + m.start()))
    # comma lists: pieces between commas; a run of >= 3 short pieces, the last introduced by and / or
    pieces = [(m.start(), m.group()) for m in re.finditer(r"[^,]+", sentence)]
    k = 0
    while k < len(pieces):
        run = [k]
        j = k + 1
        while j < len(pieces) and _short(pieces[j][1]):
            run.append(j)
            if _CONNECT.match(pieces[j][1].strip()):
                break
            j += 1
        if len(run) >= 3 and _CONNECT.match(pieces[run[-1]][1].strip()) and _first_ok(pieces[k][1]):
            head = _tail(pieces[run[0]][1])
            items = [head, *(_head(pieces[i][1]) for i in run[1:])]
            items = [i for i in items if i]
            if len(items) >= 3:
                s, e = pieces[run[0]][0], pieces[run[-1]][0] + len(pieces[run[-1]][1])
                out.append(_enumeration(items, sentence[s:e].strip(), offset + s))
            k = run[-1] + 1
        else:
            k += 1
    return out


def _enumeration(items: list[str], basis: str, start: int) -> Proposal:
    return Proposal("Cover each of: " + "; ".join(items), "enumeration", basis, start, "rules")


def _short(piece: str) -> bool:
    """A list item: no file name (files are proposed on their own) and at most ITEM_WORDS words once a
    leading and / or is set aside; the last item (after and / or) may run on by two words more (``and the
    reserve of key positions``), which :func:`_head` cuts."""
    if FILE_MENTION.search(piece) or "`" in piece:
        return False
    words = _CONNECT.sub("", piece.strip()).split()
    limit = ITEM_WORDS + 2 if _CONNECT.match(piece.strip()) else ITEM_WORDS
    return 0 < len(words) <= limit


def _first_ok(piece: str) -> bool:
    """The piece that opens a list holds no file name (its last words are the first item)."""
    return not FILE_MENTION.search(piece) and "`" not in piece[-40:]


def _trim(item: str) -> str:
    """An item without leading and trailing stop words."""
    words = item.split()
    while words and words[0].lower() in STOP_WORDS:
        words.pop(0)
    while words and words[-1].lower() in STOP_WORDS:
        words.pop()
    return " ".join(words)


def _tail(piece: str) -> str:
    """The first item of a list: the words after the piece's last stop word, at most ITEM_WORDS."""
    words = piece.split()
    k = len(words)
    while k > 0 and words[k - 1].lower() not in STOP_WORDS and len(words) - k < ITEM_WORDS:
        k -= 1
    return _trim(" ".join(words[k:]))


def _head(piece: str) -> str:
    """A later item: the words after a leading and / or up to the next stop word (``of`` kept), at most
    ITEM_WORDS."""
    words = _CONNECT.sub("", piece.strip()).split()
    while words and words[0].lower() in STOP_WORDS:
        words.pop(0)
    kept: list[str] = []
    for w in words:
        bare = w.strip(".;:!?").lower()
        if len(kept) >= ITEM_WORDS or (bare in STOP_WORDS and bare != "of"):
            break
        kept.append(w.strip(".;:!?"))
        if w != w.rstrip(".;:!?"):
            break
    return _trim(" ".join(kept))


def _keep(found: list[Proposal]) -> list[Proposal]:
    """Deduplicate on folded text; drop a quantity or name whose position lies inside a deliverable, an
    enumeration or a quoted name kept before it (spans are ``start`` to ``start + len(basis)``; a quantity's
    position is its number's)."""
    found.sort(key=lambda p: (p.start, PROPOSAL_KINDS.index(p.kind)))
    spans: list[tuple[int, int]] = []
    seen: set[str] = set()
    kept = []
    for p in found:
        key = fold_text(p.text)
        contained = p.kind in ("entity", "quantity") and any(a <= p.start < b for a, b in spans)
        if key in seen or contained:
            continue
        seen.add(key)
        kept.append(p)
        if p.kind in ("deliverable", "enumeration") or (p.kind == "entity" and p.basis[:1] in _QUOTES):
            spans.append((p.start, p.start + len(p.basis)))
    return kept

"""The environment-side tab of RunningTab: requirements R, read log L and candidates C for one task.

The tab is the paper's ``T_t = (R, L, C)``. The agent fills R (``add``, ``resolve``); the environment alone
fills L and C (``record``, called by :class:`rtlab.environment._environment.Environment` for every observation). Every
operation answers with text for the model and never raises on the model's mistakes; :func:`read_reply` reads
that text back (what a recorded run's tab call did).

Decisions the paper leaves open, made here once:

- **Terms.** Everything (task text, requirements, paths, excerpts) goes through :func:`rtlab.text._tokens.terms`:
  the tokeniser's tokens less lone digits and file names' extensions (its docstring says why). "Share a term"
  below, "words of the requirement" in the paper's review and "share no term" in its evidence check are the
  same test on these terms; BM25 scores the same terms (identical to ``rank_bm25.BM25Okapi`` on them).
- **Requirements.** An empty text is refused; so is a text equal to an existing requirement's after folding
  case and whitespace (the reply names the existing id). Resolved requirements stay resolved. Requirements the
  environment proposes (``origin="proposed"``) are numbered apart, ``P1``, ``P2``, ..., so the agent's own
  keep the ids ``R1``, ``R2``, ... they would have without proposals (a recorded run's ``tab_resolve R2``
  still means its second ``tab_add``), and a proposal never blocks the agent's stating the same text (the
  duplicate check is within proposals, and within the rest).
- **Candidates.** A path enters C when an observation lists it and it was never read nor written by the agent
  (the agent's own outputs are not unopened sources); it leaves C when it is read or written. C is ranked by
  BM25 of the path's tokens against the task text's tokens. **idf is taken over every distinct path the tab
  has seen** (each path that entered L or C, read ones included): the workspace as the agent has seen it so
  far. Reading a file therefore removes it from C without changing any other candidate's score, and a score
  changes only when a new path appears. Ties go to the path, ascending.
- **The review** (``list``). Each open requirement (in id order) beside (a) the read-log entries that share at
  least one term with it, ranked by BM25 of the requirement's tokens against each entry's path + excerpt
  tokens (idf over the whole read log), top ``review_entries``; and (b) the candidates whose path shares a
  term with it, ranked by BM25 over the same path corpus as above, top ``review_candidates``. Entries or
  candidates sharing no term are never shown beside a requirement: they would be noise (and rank_bm25's idf
  can give a sharing entry a score of 0, so sharing a term, not a positive score, is the test). Ties go to
  the entry id / path.
- **No review** (ablation). ``list`` then answers with the plain tab: every requirement with its status and
  the read log as an index of ids and paths, so the agent can still cite; nothing is matched to a
  requirement and no candidate is shown.
- **Evidence check.** ``resolve(Rk, "done", cite=Lj)`` is refused when ``terms(Rk.text)`` and
  ``terms(Lj.path) ∪ terms(Lj.excerpt)`` are disjoint (a citation sharing only ``2`` or ``txt`` is refused).
- **Derived entries** (``TabConfig.derived``, off by default: the paper's read log keeps file content only,
  so a value the agent computed or saw only in a listing is never held, its footnote to 94.8%). On, every
  :class:`rtlab.environment._capture.CapturedDerived` of a step (a count, a size, a program's result) enters L
  as an entry of its ``kind`` with its command and ``sources`` (the files the command read or was pointed
  at; the entry's ``path`` is them joined by ``, ``). It is reviewed and cited like a file entry (its terms
  are its sources' and its text's), shown as ``L7 count of data/sales.csv``; it is no file read: it neither
  counts among the files of the status line nor takes a file out of C.
- **No capture** (ablation, "removing environmental capture"). The environment fills neither L nor C, and
  ``done`` must cite a read-log entry, so by default (``own_records=False``) ``done`` can never be cited:
  every requirement ends ``unavailable`` or open (the finish check still lists it), and the review and the
  evidence check have nothing to work on. This is rtlab's reading of the paper's ablation: the tab keeps only
  what the agent states, and the paper's resolve rule ("only by citing a supporting read-log entry") is kept.
  The alternative, ``TabConfig(capture=False, own_records=True)`` (``no-capture+own-records``), lets the
  agent cite its own record: a ``cite`` that is not an entry id is the agent's words for the evidence (what
  it saw and where), kept as a read-log entry of ``origin="agent"`` (path ``(agent record)``, command
  ``tab_resolve``) once it passes the evidence check against its own text. The paper does not say which its
  ablation did; both keep the rest of the tab as it is, and the environment still captures nothing.
- **Status line** (:meth:`Tab.status_line`), one line, always the same shape::

      [tab] 2 open (R1, R3) · 14 read-log entries from 6 files · 180 candidates

  at most ``status_ids`` open ids are named, then ``+N more``; singular nouns for a count of 1.

Work is cached by version counters: the path index is rebuilt only when a new path appears, the ranking of C
only when C or the path index changed, the read-log index only when L grew, and the review only when R, L
or C changed. ``record`` and ``status_line`` are linear in what the step brought, not in the tab's size
(apart from the few open requirement ids).
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import numpy as np

from rtlab.display import block, escape, one_line, table, text_table
from rtlab.text import BM25, IdfKind, fold_text, terms

if TYPE_CHECKING:
    from rtlab.environment._capture import Capture

RequirementStatus = Literal["open", "done", "unavailable"]
RequirementOrigin = Literal["agent", "rubric", "proposed"]
AblationName = Literal["full", "no-capture", "no-review", "no-evidence-check", "no-finish-check"]
ABLATIONS: tuple[AblationName, ...] = (
    "full",
    "no-capture",
    "no-review",
    "no-evidence-check",
    "no-finish-check",
)
_SWITCHES: tuple[tuple[AblationName, str], ...] = (
    ("no-capture", "capture"),
    ("no-review", "review"),
    ("no-evidence-check", "evidence_check"),
    ("no-finish-check", "finish_check"),
)

from rtlab.records import STATUS_PREFIX  # noqa: E402  (the vocabulary: readers recognise it in recorded runs)

"""Every line the tab adds to what the model reads starts with this (status line, review, finish check)."""
FINISH_PREFIX = "[tab] finish check"
SEP = " · "
_REVIEW_HEAD = f"{STATUS_PREFIX}review"  # the first line of a review; the plain listing starts otherwise


# ---------------------------------------------------------------------------------------------------------
# Records


@dataclass
class Requirement:
    """One thing the task owes, stated by the agent with ``add``."""

    id: str
    """``R1``, ``R2``, ... in the order the requirements were added."""
    text: str
    """What the agent stated, surrounding white space stripped."""
    status: RequirementStatus = "open"
    """``open`` until resolved ``done`` or ``unavailable``; a resolved requirement stays so."""
    cite: str | None = None
    """The read-log entry (``L3``) a ``done`` resolution cites."""
    reason: str | None = None
    """Why the requirement is ``unavailable``."""
    step_added: int | None = None
    """The step (``Step.index``) of the ``tab_add`` call; ``None`` when no step added it (the rubric's)."""
    step_resolved: int | None = None
    """The step (``Step.index``) of the ``tab_resolve`` call that settled it; ``None`` while open."""
    origin: RequirementOrigin = "agent"
    """Where it came from: ``agent`` (a ``tab_add``), ``rubric`` (the task's items, an oracle) or ``proposed``
    (the environment read it from the task text, :mod:`rtlab.environment._propose`; ids ``P1``, ``P2``, ...)."""
    proposed_by: str | None = None
    """For a proposed requirement, the proposer (``rules``, ``llm:<model>``) and the kind, as
    ``rules/deliverable``; ``None`` otherwise."""


@dataclass
class ReadEntry:
    """One file read as the environment captured it: the excerpt exactly as shown, and its anchor."""

    id: str
    """``L1``, ``L2``, ... in the order the environment captured the reads."""
    step: int
    """The step (``Step.index``) whose output showed the excerpt."""
    path: str
    """The file's normalised path."""
    command: str
    """The step's command."""
    excerpt: str
    """The file's text exactly as the step showed it."""
    revision: str | None = None
    """The git revision the excerpt shows the file at (``git show REV:FILE``, a commit's patch); None: the
    working copy."""
    kind: str = "file"
    """``file`` (a file's content), or a derived entry's kind (``count``, ``size``, ``computed``:
    :class:`rtlab.environment._capture.CapturedDerived`), kept only when ``TabConfig.derived`` is on."""
    sources: tuple[str, ...] = ()
    """A derived entry's provenance: the files its command read or was pointed at (its ``path`` is these joined
    by ``, ``, empty when none is known; ``command`` is the command). Empty for a file entry."""
    origin: Literal["environment", "agent"] = "environment"
    """Who wrote the entry: the environment's capture, or the agent's own record cited for ``done`` (only with
    ``TabConfig.own_records``, under no capture)."""


@dataclass(frozen=True)
class Candidate:
    """A file listed and never read, with its BM25 score against the task text."""

    path: str
    """The listed file's normalised path."""
    score: float
    """BM25 of the path's tokens against the task text's (idf over every path the tab has seen)."""
    step_listed: int
    """The step that first listed it."""


@dataclass(frozen=True)
class TabConfig:
    """The tab's switches (the paper's ablations) and the review's sizes."""

    capture: bool = True
    """The environment fills L and C from observations (off: ``no-capture``)."""
    review: bool = True
    """``list`` matches requirements to entries and candidates (off: ``no-review``)."""
    evidence_check: bool = True
    """``done`` needs a citation sharing a term with the requirement (off: any existing entry)."""
    finish_check: bool = True
    """The agent's stop with open requirements gets one message listing them."""
    review_entries: int = 3
    """Read-log entries shown beside each open requirement in the review, at most."""
    review_candidates: int = 5
    """Candidates shown beside each open requirement in the review, at most."""
    snippet_chars: int = 160
    """Length of the excerpt snippet shown beside an entry in the review."""
    status_ids: int = 8
    """Open requirement ids named in the status line before ``+N more``."""
    idf: IdfKind = "okapi"
    """BM25 idf variant (see :class:`rtlab.text._bm25.BM25`); ``okapi`` reproduces rank_bm25."""
    derived: bool = False
    """Keep derived entries in L beside file content: counts, sizes and programs' results, each with its
    command and source files (off, the paper's tab: the read log keeps file content only)."""
    own_records: bool = False
    """With capture off only: ``done`` may cite the agent's own record (its words for the evidence) instead
    of an entry id; off, the no-capture tab has no entry to cite (see the module doc)."""

    def __post_init__(self) -> None:
        for name in ("review_entries", "review_candidates", "snippet_chars", "status_ids"):
            if getattr(self, name) < 0:
                raise ValueError(f"TabConfig.{name} must be >= 0, got {getattr(self, name)}")
        if self.idf not in ("okapi", "lucene"):
            raise ValueError(f"TabConfig.idf must be 'okapi' or 'lucene', got {self.idf!r}")
        if self.own_records and self.capture:
            raise ValueError(
                "TabConfig.own_records is the no-capture ablation's alternative: it needs capture=False"
            )

    @classmethod
    def ablation(cls, name: AblationName) -> TabConfig:
        """The full tab, or the full tab with one component switched off (the paper's four ablations)."""
        if name == "full":
            return cls()
        for ablation, switch in _SWITCHES:
            if name == ablation:
                off: dict[str, Any] = {switch: False}  # a field named at run time: no static check
                return cls(**off)
        raise ValueError(f"unknown ablation {name!r}; expected one of {', '.join(ABLATIONS)}")

    @property
    def name(self) -> str:
        """``full``, the ablation's name, or the switched-off components joined by ``+``."""
        off: list[str] = [ablation for ablation, switch in _SWITCHES if not getattr(self, switch)]
        off += ["own-records"] if self.own_records else []
        name = "+".join(off) if off else "full"
        return f"{name}+derived" if self.derived else name


@dataclass(frozen=True)
class Reply:
    """An operation's answer: whether it took effect, and the text the model reads."""

    ok: bool
    """The operation succeeded; ``False`` when it was refused or found nothing (the text says why)."""
    text: str
    """What the model reads."""

    def __str__(self) -> str:
        return self.text


# ---------------------------------------------------------------------------------------------------------
# The review


@dataclass(frozen=True)
class EntryMatch:
    """A read-log entry shown beside a requirement in the review."""

    id: str
    """The entry's id (``L3``)."""
    path: str
    """The entry's path."""
    step: int
    """The step that read it."""
    score: float
    """BM25 of the requirement's tokens against the entry's path and excerpt (idf over the read log)."""
    snippet: str
    """About ``snippet_chars`` characters of the excerpt, white space folded, around the first shared term."""
    kind: str = "file"
    """The entry's kind (:attr:`ReadEntry.kind`): ``file``, or a derived entry's ``count`` / ``size`` /
    ``computed``."""


@dataclass(frozen=True)
class CandidateMatch:
    """An unopened candidate shown beside a requirement, scored against the requirement (not the task)."""

    path: str
    """The candidate's path."""
    score: float
    """BM25 of the requirement's tokens against the path's (idf over every path the tab has seen)."""
    step_listed: int
    """The step that first listed it."""


@dataclass(frozen=True)
class ReviewItem:
    """One open requirement with its best-matching entries and candidates."""

    requirement: str
    """The open requirement's id (``R2``)."""
    text: str
    """The requirement's text."""
    entries: tuple[EntryMatch, ...] = ()
    """Read-log entries sharing a term with it, best first, at most ``review_entries``."""
    candidates: tuple[CandidateMatch, ...] = ()
    """Candidates whose path shares a term with it, best first, at most ``review_candidates``."""


@dataclass(frozen=True)
class Review:
    """What ``list`` returns: structured, and rendered by :meth:`render` as the model reads it."""

    enabled: bool
    """The review was on (``TabConfig.review``); off, :meth:`render` gives the plain tab."""
    items: tuple[ReviewItem, ...]
    """Open requirements in id order (with no entries or candidates when the review is switched off)."""
    requirements: tuple[Requirement, ...]
    """Every requirement as it stood (copies)."""
    log: tuple[tuple[str, str, int], ...] = ()
    """``(id, path, step)`` of every read-log entry; filled only when the review is switched off."""

    def render(self) -> str:
        """The text the model reads for ``tab_list``."""
        return _render_review(self) if self.enabled else _render_plain(self)

    def records(self) -> list[dict[str, Any]]:
        """One flat row per (open requirement, shown entry or candidate), for DataFrames."""
        rows: list[dict[str, Any]] = []
        for item in self.items:
            base = {"requirement": item.requirement, "text": item.text}
            for rank, e in enumerate(item.entries, 1):
                rows.append(
                    {**base, "kind": "entry", "rank": rank, "ref": e.id, "path": e.path, "score": e.score}
                )
            for rank, c in enumerate(item.candidates, 1):
                rows.append(
                    {**base, "kind": "candidate", "rank": rank, "ref": None, "path": c.path, "score": c.score}
                )
        return rows


def _render_review(review: Review) -> str:
    lines = [f"{_REVIEW_HEAD}{SEP}{len(review.items)} open"]
    if not review.requirements:
        lines.append("No requirements yet: state what the task needs with tab_add.")
    for item in review.items:
        lines.append(f"{item.requirement} {item.text}")
        for e in item.entries:
            lines.append(f"  {e.id} {_entry_label(e.kind, e.path)} (step {e.step}) — {e.snippet}")
        if not item.entries:
            lines.append(f"  no read-log entry shares a term with {item.requirement}")
        if item.candidates:
            lines.append("  unopened: " + SEP.join(c.path for c in item.candidates))
        else:
            lines.append(f"  no unopened candidate shares a term with {item.requirement}")
    resolved = [_resolved_label(r) for r in review.requirements if r.status != "open"]
    if resolved:
        lines.append("resolved: " + SEP.join(resolved))
    if review.items:
        lines.append(
            "tab_show Lk gives a whole excerpt; tab_resolve Rk done citing Lk, or unavailable with a reason."
        )
    return "\n".join(lines)


def _render_plain(review: Review) -> str:
    lines = [f"{STATUS_PREFIX}requirements (the review is switched off)"]
    if not review.requirements:
        lines.append("No requirements yet: state what the task needs with tab_add.")
    for r in review.requirements:
        label = "open" if r.status == "open" else _resolved_label(r).split(" ", 1)[1]
        lines.append(f"{r.id} {label}: {r.text}")
    lines.append(f"read log: {len(review.log)} entries" + (":" if review.log else ""))
    lines.extend(f"  {lid} {path} (step {step})" for lid, path, step in review.log)
    return "\n".join(lines)


def _entry_label(kind: str, path: str) -> str:
    """A file entry's path; a derived entry's kind and sources (``count of data/sales.csv``)."""
    if kind == "file":
        return path
    return f"{kind} of {path}" if path else kind


def _resolved_label(r: Requirement) -> str:
    return f"{r.id} done ({r.cite})" if r.status == "done" else f"{r.id} unavailable"


# ---------------------------------------------------------------------------------------------------------
# Replies read back: a recorded run keeps only the text of each reply, so the analyses of recorded runs read
# what a call did from the wording rendered here (``Tab.add``, ``Tab.resolve``, :func:`_render_review`); a
# test renders every reply form and reads it back.

_ADDED = re.compile(r"^Added [RP]\d+:")
_CITED = re.compile(r"^[RP]\d+ done, citing (L\d+) ")
_REVIEW_ENTRY = re.compile(r"^  (L\d+) ", re.MULTILINE)
_UNOPENED = re.compile(r"^  unopened: (.+)$", re.MULTILINE)
_REVIEW_REQ = re.compile(r"^(R\d+) ")
_ENTRY_ID = re.compile(r"^[Ll]\d+$")
OWN_RECORD_PATH = "(agent record)"
"""The path of a read-log entry the agent wrote itself (``TabConfig.own_records``)."""
_PLAIN_OPEN = re.compile(r"^(R\d+) open: ")
_PLAIN_HEAD = f"{STATUS_PREFIX}requirements (the review is switched off)"


@dataclass(frozen=True)
class ReplyReading:
    """What a tab call did, read back from its reply's text (:func:`read_reply`)."""

    added: bool = False
    """A ``tab_add`` the tab accepted (``Added Rk: ...``)."""
    cited: str | None = None
    """The read-log entry an accepted ``done`` resolution cites (``Rj done, citing Lk (path).``)."""
    reviewed: frozenset[str] = frozenset()
    """Read-log ids a ``tab_list`` review showed beside a requirement; none for the plain listing of the
    no-review ablation, which matches nothing to a requirement."""
    offered: tuple[str, ...] = ()
    """Paths a ``tab_list`` review offered as unopened candidates beside a requirement, in reply order
    (repeats kept); none for the plain listing."""
    open_requirements: tuple[str, ...] = ()
    """Ids of the requirements a ``tab_list`` reply listed as open (review form or plain listing), in order."""
    covered: frozenset[str] = frozenset()
    """Of those, the ones a review showed beside at least one read-log entry (each entry the review shows
    beside a requirement shares a term with it, by the review's rule); none for the plain listing."""
    review_form: bool = False
    """The reply is a review (``[tab] review ...``), not the plain listing of the no-review ablation."""


def read_reply(tool: str, text: str) -> ReplyReading:
    """What the call of tab tool ``tool`` did, from the text the environment answered (the status line it
    appends may be there); refusals, other tools and text in no reply form read as nothing done."""
    if tool == "tab_add":
        return ReplyReading(added=_ADDED.match(text) is not None)
    if tool == "tab_resolve":
        m = _CITED.match(text)
        return ReplyReading(cited=m.group(1) if m is not None else None)
    if tool == "tab_list" and text.startswith(_REVIEW_HEAD):
        offered = tuple(path for line in _UNOPENED.findall(text) for path in line.split(SEP))
        open_ids, covered = _review_coverage(text)
        return ReplyReading(
            reviewed=frozenset(_REVIEW_ENTRY.findall(text)),
            offered=offered,
            open_requirements=open_ids,
            covered=covered,
            review_form=True,
        )
    if tool == "tab_list" and text.startswith(_PLAIN_HEAD):
        opened = tuple(m.group(1) for line in text.splitlines() if (m := _PLAIN_OPEN.match(line)))
        return ReplyReading(open_requirements=opened)
    return ReplyReading()


def _review_coverage(text: str) -> tuple[tuple[str, ...], frozenset[str]]:
    """The open requirement ids of a rendered review, and those with an entry line (``  Lk ...``) under them.

    :func:`_render_review` writes each open requirement at column 0 (``Rk text``), then its entry lines, then
    its candidates line; the ``resolved: ...`` and ``tab_show ...`` lines and the status line after them start
    otherwise. Only the first line of a requirement whose text spans lines is its line."""
    open_ids: list[str] = []
    covered: set[str] = set()
    for line in text.splitlines()[1:]:
        if (m := _REVIEW_REQ.match(line)) is not None:
            open_ids.append(m.group(1))
        elif open_ids and _REVIEW_ENTRY.match(line):
            covered.add(open_ids[-1])
    return tuple(open_ids), frozenset(covered)


def _snippet(excerpt: str, terms: Iterable[str], width: int) -> str:
    """About ``width`` characters of the excerpt, whitespace folded, from a little before the first shared term.

    The window is widened to whole words (by at most ``width // 2`` each side) so no number is cut in two.
    """
    flat = " ".join(excerpt.split())
    low = flat.lower()
    positions = [p for t in terms if (p := low.find(t)) >= 0]
    start = max(0, min(positions) - width // 4) if positions else 0
    start = min(start, max(0, len(flat) - width))
    end = start + width
    slack = width // 2
    if start > 0:
        space = flat.rfind(" ", max(0, start - slack), start + 1)
        start = space + 1 if space >= 0 else start
    if end < len(flat):
        space = flat.find(" ", end, end + slack)
        end = space if space >= 0 else end
    return ("…" if start > 0 else "") + flat[start:end] + ("…" if end < len(flat) else "")


def _plural(n: int, word: str, plural: str | None = None) -> str:
    return f"{n} {word if n == 1 else plural or word + 's'}"


def _norm_id(value: str) -> str:
    return value.strip().upper()


def _held_ids(requirements: Sequence[Requirement]) -> str:
    """``R1–R4``, ``P1–P3 and R1–R2``, or ``no requirements yet``."""
    n_proposed = sum(1 for r in requirements if r.origin == "proposed")
    ranges = [_id_range(p, n) for p, n in (("P", n_proposed), ("R", len(requirements) - n_proposed)) if n]
    return " and ".join(ranges) if ranges else "no requirements yet"


def _id_range(prefix: str, n: int) -> str:
    return f"{prefix}1" if n == 1 else f"{prefix}1–{prefix}{n}"


@lru_cache(maxsize=1 << 15)
def _path_terms(path: str) -> tuple[str, ...]:
    """``terms(path)``, kept for the paths that come back in every run replayed over one workspace."""
    return tuple(terms(path))


def _top(scores: np.ndarray, eligible: Iterable[int], n: int, key: Sequence[Any]) -> list[tuple[int, float]]:
    """The ``n`` eligible indices by score descending, ties by ``key[i]`` ascending."""
    ranked = sorted(eligible, key=lambda i: (-float(scores[i]), key[i]))
    return [(i, float(scores[i])) for i in ranked[:n]]


# ---------------------------------------------------------------------------------------------------------
# The tab


class Tab:
    """R, L and C for one task, with the agent's operations and the environment's ``record``.

    ``requirements`` and ``read_log`` are the live lists and ``candidates`` a live read-only mapping (path ->
    step first listed): read them, never mutate them.
    """

    def __init__(self, task: str, config: TabConfig | None = None) -> None:
        self.task = task
        self.config = config or TabConfig()
        self._task_tokens = terms(task)
        # R
        self._requirements: list[Requirement] = []
        self._req_by_id: dict[str, Requirement] = {}
        self._req_by_text: dict[str, str] = {}
        self._req_tokens: dict[str, list[str]] = {}
        # L, with entry tokens filled lazily (excerpts can be large) and an inverted index of their terms
        self._read_log: list[ReadEntry] = []
        self._entry_by_id: dict[str, ReadEntry] = {}
        self._entry_tokens: list[list[str] | None] = []
        self._entry_terms: list[frozenset[str] | None] = []
        self._entry_postings: dict[str, list[int]] = {}
        self._entries_posted = 0
        self._files_read: dict[str, int] = {}
        # C, and the corpus of every path seen (L or C), with an inverted index of path terms built when a
        # ranking needs it (paths come by the thousand with every listing; most replays rank once, at the end)
        self._candidates: dict[str, int] = {}
        self._written: set[str] = set()
        self._folders: set[str] = set()  # paths shown to be folders, and the parents of every path seen
        self._paths: list[str] = []
        self._path_pos: dict[str, int] = {}
        self._path_tokens: list[list[str]] = []
        self._path_postings: dict[str, list[int]] = {}
        # versions and caches
        self._v_req = self._v_log = self._v_cand = self._v_paths = 0
        self._path_index: tuple[int, BM25 | None] = (-1, None)
        self._task_scores: tuple[int, np.ndarray] = (-1, np.zeros(0))
        self._ranked: tuple[tuple[int, int], list[Candidate]] = ((-1, -1), [])
        self._log_index: tuple[int, BM25 | None] = (-1, None)
        self._review: tuple[tuple[int, ...], Review] | None = None

    def __getstate__(self) -> dict[str, Any]:
        """The tab's content and its last ranking and review, without the indexes they were computed from:
        those are rebuilt when next needed. A tab sent back from a worker process is then a fraction of the
        size (the path index of a workspace's listing alone holds every path's tokens)."""
        state = self.__dict__.copy()
        n = len(self._read_log)
        state.update(
            _entry_tokens=[None] * n,
            _entry_terms=[None] * n,
            _entry_postings={},
            _entries_posted=0,
            _path_tokens=[],
            _path_postings={},
            _path_index=(-1, None),
            _task_scores=(-1, np.zeros(0)),
            _log_index=(-1, None),
        )
        return state

    # -- views -------------------------------------------------------------------------------------------

    @property
    def requirements(self) -> Sequence[Requirement]:
        """R in id order."""
        return self._requirements

    @property
    def read_log(self) -> Sequence[ReadEntry]:
        """L in id order (the order the environment captured the reads)."""
        return self._read_log

    @property
    def candidates(self) -> Mapping[str, int]:
        """C unranked: path -> step that first listed it. :meth:`candidates_ranked` gives scores."""
        return MappingProxyType(self._candidates)

    @property
    def files_read(self) -> int:
        """Distinct paths in the read log."""
        return len(self._files_read)

    def open_requirements(self) -> list[Requirement]:
        """Requirements still open, in id order."""
        return [r for r in self._requirements if r.status == "open"]

    def requirement(self, rid: str) -> Requirement | None:
        return self._req_by_id.get(_norm_id(rid))

    def entry(self, lid: str) -> ReadEntry | None:
        return self._entry_by_id.get(_norm_id(lid))

    # -- the environment's side --------------------------------------------------------------------------

    def record(self, step_index: int, command: str, capture: Capture) -> tuple[ReadEntry, ...]:
        """Add the step's reads to L (a file read twice gets two entries) and its listed-only paths to C.

        A path shown to be a folder, by this step or an earlier one (``capture.folders``, or the parent of a
        path read, listed or written), is never a candidate: a later step that shows a candidate to be a folder
        (``cd v1.2``, ``cat v1.2/notes.md``) takes it out of C."""
        for path in capture.folders:
            self._folder(path)
        new: list[ReadEntry] = []
        for read in capture.reads:
            entry = ReadEntry(
                f"L{len(self._read_log) + 1}", step_index, read.path, command, read.excerpt, read.revision
            )
            self._read_log.append(entry)
            self._entry_by_id[entry.id] = entry
            self._entry_tokens.append(None)
            self._entry_terms.append(None)
            self._files_read[read.path] = self._files_read.get(read.path, 0) + 1
            self._see_path(read.path)
            self._drop_candidate(read.path)
            new.append(entry)
        if self.config.derived:
            for d in capture.derived:
                entry = ReadEntry(
                    f"L{len(self._read_log) + 1}",
                    step_index,
                    ", ".join(d.sources),
                    command,
                    d.text,
                    kind=d.kind,
                    sources=d.sources,
                )
                self._read_log.append(entry)
                self._entry_by_id[entry.id] = entry
                self._entry_tokens.append(None)
                self._entry_terms.append(None)
                new.append(entry)
        if new:
            self._v_log += 1
        for path in capture.written:
            self._written.add(path)
            self._drop_candidate(path)
            self._folder(posixpath.dirname(path))
        for path in capture.listed:
            if (
                path in self._candidates
                or path in self._files_read
                or path in self._written
                or path in self._folders
            ):
                continue
            self._candidates[path] = step_index
            self._v_cand += 1
            self._see_path(path)
        return tuple(new)

    def _see_path(self, path: str) -> None:
        if path not in self._path_pos:
            self._path_pos[path] = len(self._paths)
            self._paths.append(path)
            self._v_paths += 1
            self._folder(posixpath.dirname(path))

    def _folder(self, path: str) -> None:
        """``path`` and its parents are folders: none is (or stays) a candidate."""
        while path not in ("", ".", "/") and path not in self._folders:
            self._folders.add(path)
            self._drop_candidate(path)
            path = posixpath.dirname(path)

    def _index_paths(self) -> None:
        """Tokens and postings for the paths seen since the last ranking."""
        postings = self._path_postings
        for pos in range(len(self._path_tokens), len(self._paths)):
            tokens = _path_terms(self._paths[pos])
            self._path_tokens.append(list(tokens))
            for term in set(tokens):
                postings.setdefault(term, []).append(pos)

    def _drop_candidate(self, path: str) -> None:
        if self._candidates.pop(path, None) is not None:
            self._v_cand += 1

    # -- candidates ---------------------------------------------------------------------------------------

    def candidates_ranked(self) -> list[Candidate]:
        """C by BM25 of path tokens against the task text (idf over every path seen), ties by path."""
        key = (self._v_paths, self._v_cand)
        if self._ranked[0] != key:
            scores = self._scores_for_task()
            order = sorted(self._candidates, key=lambda p: (-float(scores[self._path_pos[p]]), p))
            ranked = [Candidate(p, float(scores[self._path_pos[p]]), self._candidates[p]) for p in order]
            self._ranked = (key, ranked)
        return list(self._ranked[1])

    def _paths_bm25(self) -> BM25 | None:
        if self._path_index[0] != self._v_paths:
            self._index_paths()
            index = BM25(self._path_tokens, idf=self.config.idf) if self._paths else None
            self._path_index = (self._v_paths, index)
        return self._path_index[1]

    def _scores_for_task(self) -> np.ndarray:
        if self._task_scores[0] != self._v_paths:
            index = self._paths_bm25()
            scores = index.get_scores(self._task_tokens) if index is not None else np.zeros(0)
            self._task_scores = (self._v_paths, np.asarray(scores, dtype=np.float64))
        return self._task_scores[1]

    # -- the read log's terms ------------------------------------------------------------------------------

    def _tokens_of(self, k: int) -> list[str]:
        tokens = self._entry_tokens[k]
        if tokens is None:
            entry = self._read_log[k]
            tokens = terms(entry.path) + terms(entry.excerpt)
            self._entry_tokens[k] = tokens
            self._entry_terms[k] = frozenset(tokens)
        return tokens

    def _terms_of(self, k: int) -> frozenset[str]:
        self._tokens_of(k)
        terms = self._entry_terms[k]
        assert terms is not None
        return terms

    def _log_bm25(self) -> BM25 | None:
        if self._log_index[0] != self._v_log:
            for k in range(self._entries_posted, len(self._read_log)):
                for term in self._terms_of(k):
                    self._entry_postings.setdefault(term, []).append(k)
            self._entries_posted = len(self._read_log)
            corpus = [self._tokens_of(k) for k in range(len(self._read_log))]
            index = BM25(corpus, idf=self.config.idf) if corpus else None
            self._log_index = (self._v_log, index)
        return self._log_index[1]

    # -- the agent's operations ----------------------------------------------------------------------------

    def add(
        self,
        text: str,
        *,
        step: int | None = None,
        origin: RequirementOrigin = "agent",
        proposed_by: str | None = None,
    ) -> Reply:
        """Put a requirement on the tab; an empty text or one already on the tab is refused (proposals and
        the rest are numbered, and checked for duplicates, apart: ``P1`` ... and ``R1`` ...)."""
        text = text.strip()
        if not text:
            return Reply(False, "Not added: the requirement text is empty. State one thing the task needs.")
        prefix = "P" if origin == "proposed" else "R"
        existing = self._req_by_text.get(prefix + fold_text(text))
        if existing is not None:
            status = self._req_by_id[existing].status
            return Reply(
                False, f"Not added: this requirement is already on the tab as {existing} ({status})."
            )
        number = 1 + sum(1 for r in self._requirements if (r.origin == "proposed") == (prefix == "P"))
        req = Requirement(f"{prefix}{number}", text, step_added=step, origin=origin, proposed_by=proposed_by)
        self._requirements.append(req)
        self._req_by_id[req.id] = req
        self._req_by_text[prefix + fold_text(text)] = req.id
        self._req_tokens[req.id] = terms(text)
        self._v_req += 1
        return Reply(True, f"Added {req.id}: {text}")

    def resolve(
        self,
        rid: str,
        status: str,
        *,
        cite: str | None = None,
        reason: str | None = None,
        step: int | None = None,
    ) -> Reply:
        """Settle a requirement: ``done`` citing a read-log entry that passes the evidence check, or
        ``unavailable`` with a reason."""
        status = status.strip().lower()
        if status not in ("done", "unavailable"):
            return Reply(False, f"Not resolved: status must be 'done' or 'unavailable', not {status!r}.")
        req = self.requirement(rid)
        if req is None:
            held = _held_ids(self._requirements)
            return Reply(
                False, f"Not resolved: there is no requirement {rid.strip()!r} (the tab holds {held})."
            )
        if req.status != "open":
            return Reply(
                False, f"Not resolved: {_resolved_label(req)} already; a resolved requirement stays so."
            )
        if status == "unavailable":
            if not reason or not reason.strip():
                return Reply(False, f"Not resolved: marking {req.id} unavailable needs a reason.")
            req.status, req.reason, req.step_resolved = "unavailable", reason.strip(), step
            self._v_req += 1
            return Reply(True, f"{req.id} unavailable: {req.reason}")
        if not cite or not cite.strip():
            return Reply(
                False,
                f"Not resolved: marking {req.id} done needs cite, the read-log entry (Lk) that supports it.",
            )
        entry = self.entry(cite)
        if entry is None and self.config.own_records and not _ENTRY_ID.match(cite.strip()):
            return self._resolve_own_record(req, cite.strip(), reason, step)
        if entry is None:
            held = _id_range("L", len(self._read_log)) if self._read_log else "no entries yet"
            return Reply(
                False, f"Not resolved: there is no read-log entry {cite.strip()!r} (the log holds {held})."
            )
        if self.config.evidence_check and not self.evidence(req.id, entry.id):
            return Reply(
                False,
                f"Refused by the evidence check: {entry.id} ({entry.path}) shares no term with {req.id} "
                f'"{req.text}". Cite an entry whose path or excerpt has words of the requirement (tab_list shows '
                "the best matches), or mark it unavailable with a reason.",
            )
        req.status, req.cite, req.step_resolved = "done", entry.id, step
        if reason and reason.strip():
            req.reason = reason.strip()
        self._v_req += 1
        return Reply(True, f"{req.id} done, citing {entry.id} ({entry.path}).")

    def _resolve_own_record(
        self, req: Requirement, record: str, reason: str | None, step: int | None
    ) -> Reply:
        """``done`` citing the agent's own record (``own_records``): the evidence check on its text, then the
        record kept as a read-log entry of ``origin="agent"`` and cited."""
        if self.config.evidence_check and not set(terms(record)) & set(self._req_tokens[req.id]):
            return Reply(
                False,
                f'Refused by the evidence check: your record shares no term with {req.id} "{req.text}". '
                "Cite what you saw in words of the requirement, or mark it unavailable with a reason.",
            )
        entry = ReadEntry(
            f"L{len(self._read_log) + 1}", step if step is not None else -1, OWN_RECORD_PATH, "tab_resolve",
            record, origin="agent",
        )  # fmt: skip
        self._read_log.append(entry)
        self._entry_by_id[entry.id] = entry
        self._entry_tokens.append(None)
        self._entry_terms.append(None)
        self._v_log += 1
        req.status, req.cite, req.step_resolved = "done", entry.id, step
        if reason and reason.strip():
            req.reason = reason.strip()
        self._v_req += 1
        return Reply(True, f"{req.id} done, citing {entry.id} ({OWN_RECORD_PATH}).")

    def evidence(self, rid: str, lid: str) -> frozenset[str]:
        """The terms requirement ``rid`` shares with entry ``lid``'s path and excerpt (empty: the check refuses)."""
        req, entry = self.requirement(rid), self.entry(lid)
        if req is None or entry is None:
            return frozenset()
        k = int(entry.id[1:]) - 1
        return self._terms_of(k).intersection(self._req_tokens[req.id])

    def show(self, lid: str) -> Reply:
        """An entry's whole excerpt and its anchor (path, command, step)."""
        entry = self.entry(lid)
        if entry is None:
            held = _id_range("L", len(self._read_log)) if self._read_log else "no entries yet"
            return Reply(False, f"There is no read-log entry {lid.strip()!r} (the log holds {held}).")
        at = f" at revision {entry.revision}" if entry.revision else ""
        label = _entry_label(entry.kind, entry.path)
        head = f"{entry.id}{SEP}step {entry.step}{SEP}{label}{at}\ncommand: {entry.command}"
        return Reply(True, f"{head}\nexcerpt ({_plural(len(entry.excerpt), 'char')}):\n{entry.excerpt}")

    def review(self) -> Review:
        """The ``list`` operation: each open requirement beside its best entries and candidates (cached)."""
        key = (self._v_req, self._v_log, self._v_cand, self._v_paths)
        if self._review is None or self._review[0] != key:
            self._review = (key, self._build_review())
        return self._review[1]

    def _build_review(self) -> Review:
        snapshot = tuple(replace(r) for r in self._requirements)
        open_reqs = [r for r in self._requirements if r.status == "open"]
        if not self.config.review:
            log = tuple((e.id, e.path, e.step) for e in self._read_log)
            items = tuple(ReviewItem(r.id, r.text) for r in open_reqs)
            return Review(False, items, snapshot, log)
        return Review(True, tuple(self._review_item(r) for r in open_reqs), snapshot)

    def _review_item(self, req: Requirement) -> ReviewItem:
        query = self._req_tokens[req.id]
        terms = set(query)
        entries: list[EntryMatch] = []
        log_index = self._log_bm25()
        if log_index is not None and self.config.review_entries:
            sharing = {k for t in terms for k in self._entry_postings.get(t, ())}
            scores = log_index.get_scores(query)
            for k, score in _top(scores, sharing, self.config.review_entries, range(len(self._read_log))):
                e = self._read_log[k]
                snippet = _snippet(e.excerpt, sorted(terms & self._terms_of(k)), self.config.snippet_chars)
                entries.append(EntryMatch(e.id, e.path, e.step, score, snippet, e.kind))
        candidates: list[CandidateMatch] = []
        path_index = self._paths_bm25()
        if path_index is not None and self.config.review_candidates:
            sharing = {
                i for t in terms for i in self._path_postings.get(t, ()) if self._paths[i] in self._candidates
            }
            scores = path_index.get_scores(query)
            for i, score in _top(scores, sharing, self.config.review_candidates, self._paths):
                path = self._paths[i]
                candidates.append(CandidateMatch(path, score, self._candidates[path]))
        return ReviewItem(req.id, req.text, tuple(entries), tuple(candidates))

    # -- what the model reads on every step and at the end --------------------------------------------------

    def status_line(self) -> str:
        """``[tab] 2 open (R1, R3) · 14 read-log entries from 6 files · 180 candidates``."""
        open_ids = [r.id for r in self._requirements if r.status == "open"]
        shown = ", ".join(open_ids[: self.config.status_ids])
        if len(open_ids) > self.config.status_ids:
            shown += f", +{len(open_ids) - self.config.status_ids} more"
        opened = f"{len(open_ids)} open" + (f" ({shown})" if shown else "")
        log = f"{_plural(len(self._read_log), 'read-log entry', 'read-log entries')} from {_plural(len(self._files_read), 'file')}"
        return f"{STATUS_PREFIX}{opened}{SEP}{log}{SEP}{_plural(len(self._candidates), 'candidate')}"

    def finish_message(self) -> str | None:
        """The finish check's text when requirements are open, else ``None`` (issuing it once is the
        environment's job)."""
        open_reqs = self.open_requirements()
        if not open_reqs:
            return None
        lines = [
            f"{FINISH_PREFIX}: {_plural(len(open_reqs), 'requirement is', 'requirements are')} still open."
        ]
        lines.extend(f"{r.id} {r.text}" for r in open_reqs)
        lines.append(
            "Before finishing, see them beside what you read with tab_list, then tab_resolve each: done citing "
            "a read-log entry (Lk), or unavailable with a reason."
        )
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        """The notebook display: R, L and C as tables (truncated with counts) under the status line."""
        return tab_html(self)

    def _repr_pretty_(self, p: Any, cycle: bool) -> None:
        """The plain-text display (IPython's)."""
        p.text(tab_text(self))

    def to_dict(self, *, excerpts: bool = True) -> dict[str, Any]:
        """The tab as JSON-native data: requirements, read log (with ``chars``), ranked candidates."""
        log = []
        for e in self._read_log:
            row: dict[str, Any] = {"id": e.id, "step": e.step, "path": e.path, "command": e.command}
            if e.kind != "file":
                row["kind"], row["sources"] = e.kind, list(e.sources)
            row["chars"] = len(e.excerpt)
            if e.origin != "environment":
                row["origin"] = e.origin
            if excerpts:
                row["excerpt"] = e.excerpt
            log.append(row)
        return {
            "task": self.task,
            "config": self.config.name,
            "requirements": [vars(replace(r)) for r in self._requirements],
            "read_log": log,
            "candidates": [vars(c) for c in self.candidates_ranked()],
        }


# ---------------------------------------------------------------------------------------------------------
# Display: a tab in a notebook (``_repr_html_``) and as plain text (``_repr_pretty_``) is its three parts, R
# (requirements and their status), L (the read log: file, step, characters) and C (candidates, ranked), under
# its status line. The HTML primitives are :mod:`rtlab.display`'s; a replay shows its tab with
# :func:`tab_body_html`.


def tab_rows(tab: Tab) -> tuple[list[list[Any]], list[list[Any]], list[list[Any]]]:
    """The rows of R, L and C as the displays show them."""
    reqs = [[r.id, r.status, r.cite or "", one_line(r.text, 80)] for r in tab.requirements]
    log = [[e.id, e.step, e.path, len(e.excerpt)] for e in tab.read_log]
    cands = [[c.path, round(c.score, 3), c.step_listed] for c in tab.candidates_ranked()]
    return reqs, log, cands


def tab_body_html(tab: Tab) -> str:
    """The status line, then R, L and C as three tables (each truncated with counts)."""
    reqs, log, cands = tab_rows(tab)
    return (
        f"<div><b>{escape(tab.status_line())}</b></div>"
        + table(
            ("id", "status", "cites", "text"),
            reqs,
            title=f"R: {len(reqs)} requirements",
            what="requirements",
            limit=15,
        )
        + table(
            ("id", "step", "path", "chars"),
            log,
            title=f"L: {len(log)} read-log entries",
            what="entries",
            limit=15,
        )
        + table(
            ("path", "score", "listed at"),
            cands,
            title=f"C: {len(cands)} candidates",
            what="candidates",
            limit=15,
        )
    )


def tab_html(tab: Tab) -> str:
    """The notebook display of a tab: R, L and C as three tables (each truncated with counts), the status line."""
    return block(tab_body_html(tab))


def tab_text(tab: Tab) -> str:
    """The plain-text display of a tab: the status line and the three tables."""
    reqs, log, cands = tab_rows(tab)
    return "\n".join(
        [
            tab.status_line(),
            f"R ({len(reqs)})",
            text_table(("id", "status", "cites", "text"), reqs, limit=15, what="requirements"),
            f"L ({len(log)})",
            text_table(("id", "step", "path", "chars"), log, limit=15, what="entries"),
            f"C ({len(cands)})",
            text_table(("path", "score", "listed at"), cands, limit=15, what="candidates"),
        ]
    )

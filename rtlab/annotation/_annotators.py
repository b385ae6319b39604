"""Annotators of failed rubric items: rule-based, LLM and human, all giving one long-form labels table.

Every annotator yields rows of :data:`LABEL_COLUMNS`: ``item`` (:func:`item_key`: ``<trajectory>#<rubric
index>``), ``annotator`` (``rules``, ``llm:<model>:<prompt>:s<sample>``, or a human's name), ``label`` (a
codebook category, or :data:`UNPARSABLE` / :data:`REFUSED` / :data:`FAILED` for an LLM answer that is no
label), ``subreason``, ``codebook_version``, ``rationale``, ``evidence`` (JSON text) and ``raw_response``.

- Rule-based: :func:`rule_labels` wraps :func:`rtlab.analysis._diagnose.diagnose`.
- LLM: :func:`item_contexts` gathers each failed item's evidence, :func:`build_messages` writes the prompt
  within a character budget, :func:`annotate_llm` runs every annotator of :func:`annotator_grid` (models x
  prompt versions x samples) through :class:`rtlab.llm._client.LLMClient`. An answer is validated against the
  codebook (:func:`parse_answer`); an invalid one is asked again with the reason, at most ``max_fixes``
  times, then recorded as :data:`UNPARSABLE` with the raw answer: never mapped to a category.
- Human: :func:`read_human_labels` imports CSV or Parquet, one row per item and annotator.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rtlab.analysis import (
    CATEGORIES,
    Codebook,
    RunEvidence,
    failed_items,
    item_facts,
    load_codebook,
    run_evidence,
)
from rtlab.annotation._labelfile import read_label_file
from rtlab.errors import ReaderError
from rtlab.llm import CallResult, LLMClient, ask_until_valid, parse_json_object
from rtlab.records import item_key
from rtlab.text import terms as text_terms

if TYPE_CHECKING:
    import pandas as pd

    from rtlab.analysis import SourceFinder
    from rtlab.environment import Replay
    from rtlab.records import Trajectory

LABEL_COLUMNS = [
    "item",
    "annotator",
    "label",
    "subreason",
    "codebook_version",
    "rationale",
    "evidence",
    "raw_response",
]
OPTIONAL_LABEL_COLUMNS = ("rule", "confidence", "task_id")
"""Columns a long-form table may carry after :data:`LABEL_COLUMNS`, taken from a diagnosis frame where it has
them (:func:`long_form`): ``rule`` (the codebook rule that decided), ``confidence`` (``high`` | ``low``) and
``task_id`` (the trajectory's task: a Workspace-Bench task, an OfficeQA question), what ``rtlab agree --gold
--by rule|task`` groups by. Annotators with no such notion (an LLM, a person) leave them out."""
RULE_ANNOTATOR = "rules"
UNPARSABLE = "unparsable"
"""Label of an LLM answer that stayed invalid after every corrective retry."""
REFUSED = "refused"
"""Label of an LLM call the model refused."""
FAILED = "failed"
"""Label of an LLM call that failed after every retry (HTTP errors, timeouts)."""
NON_LABELS = (UNPARSABLE, REFUSED, FAILED)
DEFAULT_BUDGET = 24_000
"""Characters of the user prompt (the item's evidence); the codebook in the system prompt comes on top."""
MIN_PART = 300
"""No truncated part is cut below this many characters."""


def _frame(rows: list[dict[str, Any]], extra: Sequence[str] = ()) -> pd.DataFrame:
    import pandas as pd

    frame = pd.DataFrame(rows, columns=[*LABEL_COLUMNS, *extra])
    return frame.astype(object).where(frame.notna(), None)


# ---------------------------------------------------------------------------------------------------------
# Rule-based


def rule_labels(
    trajectories: Iterable[Trajectory],
    replays: Sequence[Replay],
    values: pd.DataFrame | None = None,
    *,
    annotator: str = RULE_ANNOTATOR,
    sources: str | Path | SourceFinder | None = None,
) -> pd.DataFrame:
    """The deterministic labeler's labels (:func:`rtlab.analysis._diagnose.diagnose`) in long form; ``replays``
    are the trajectories replayed, in the same order; ``sources`` the tasks' source files."""
    from rtlab.analysis import diagnose_frame

    return long_form(
        diagnose_frame(trajectories, replays, values=values, sources=sources), annotator=annotator
    )


def long_form(diagnosis: pd.DataFrame, *, annotator: str = RULE_ANNOTATOR) -> pd.DataFrame:
    """A diagnosis (:func:`rtlab.analysis.diagnose_frame`, one row per failed item) as long-form labels of
    ``annotator`` (:data:`LABEL_COLUMNS`; the evidence as JSON text), followed by those of
    :data:`OPTIONAL_LABEL_COLUMNS` the diagnosis has (in that order)."""
    extra = [c for c in OPTIONAL_LABEL_COLUMNS if c in diagnosis.columns]
    rows = [
        {
            "item": item_key(r["trajectory"], int(r["rubric_index"])),
            "annotator": annotator,
            "label": r["category"],
            "subreason": r["subreason"],
            "codebook_version": r["codebook_version"],
            "rationale": r["rationale"],
            "evidence": json.dumps(r["evidence"], ensure_ascii=False),
            "raw_response": None,
            **{c: _optional(r[c]) for c in extra},
        }
        for r in diagnosis.to_dict("records")
    ]
    return _frame(rows, extra)


def _optional(value: Any) -> str | None:
    """An optional column's value as text; ``None`` for a missing one (``None``, NaN, empty)."""
    if value is None or (isinstance(value, float) and value != value) or value == "":
        return None
    return str(value)


# ---------------------------------------------------------------------------------------------------------
# What an LLM annotator sees


@dataclass
class ItemContext:
    """The evidence of one failed rubric item, as text parts of a prompt."""

    item: str
    """The item key, ``<trajectory id>#<rubric index>``."""
    trajectory: str
    """The trajectory id."""
    rubric_index: int
    """The item's index in the task's rubric."""
    rubric_text: str
    """The item's text."""
    rubric_type: str | None
    """The item's rubric type, where the benchmark gives one."""
    task: str
    """The task's instruction: the benchmark's, else the one the agent received."""
    judge_evidence: str
    """The judge's evidence text for the item; empty when it gave none."""
    deliverable: str
    """The relevant part of the deliverable (``(none)`` when nothing was delivered)."""
    read_log: str
    """Read-log entries (files the agent opened, excerpts as shown), the item's files first."""
    candidates: str
    """Files listed and never opened, the item's files first."""
    evidence: list[dict[str, Any]] = field(default_factory=list)
    """What the prompt cites: ``{step, path}`` of the read-log entries and candidates it shows."""


def _overlap(text: str, terms: set[str]) -> int:
    return len(terms & set(text_terms(text)))


def _relevant_lines(text: str, terms: set[str], limit: int) -> str:
    """The lines of ``text`` sharing most tokens with the item, in their own order, up to ``limit`` chars
    (the whole text when it fits)."""
    if len(text) <= limit:
        return text
    lines = text.splitlines()
    ranked = sorted(range(len(lines)), key=lambda i: (-_overlap(lines[i], terms), i))
    keep: set[int] = set()
    used = 0
    for i in ranked:
        if used + len(lines[i]) + 1 > limit:
            continue
        keep.add(i)
        used += len(lines[i]) + 1
    out, last = [], -1
    for i in sorted(keep):
        if i != last + 1:
            out.append("[…]")
        out.append(lines[i])
        last = i
    return "\n".join(out)


def item_context(
    trajectory: Trajectory,
    index: int,
    replay: Replay,
    *,
    codebook: Codebook | None = None,
    delivered: list[tuple[str, str]] | None = None,
    deliverable_chars: int = 6_000,
) -> ItemContext:
    """The prompt parts of rubric item ``index``: task, item, judge evidence, deliverable lines sharing words
    with the item, and the replay's read-log entries and candidates (the item's referred files first)."""
    run = _run(trajectory, replay, delivered)
    return _item_context(
        trajectory, index, replay, run, codebook=codebook, deliverable_chars=deliverable_chars
    )


def _item_context(
    trajectory: Trajectory,
    index: int,
    replay: Replay,
    run: _Run,
    *,
    codebook: Codebook | None,
    deliverable_chars: int = 6_000,
) -> ItemContext:
    delivered = run.evidence.files
    facts = item_facts(trajectory, index, replay, None, codebook=codebook, run=run.evidence)
    terms = set(text_terms(facts.text))
    per_file = max(MIN_PART, deliverable_chars // max(1, len(delivered)))
    deliverable = "\n\n".join(f"### {p}\n{_relevant_lines(t, terms, per_file)}" for p, t in delivered)

    referred_entries = {id(e) for entries in facts.opened.values() for e in entries}
    referred_entries |= {id(e) for entries in facts.glimpsed.values() for e in entries}
    entries = sorted(
        replay.tab.read_log,
        key=lambda e: (
            id(e) not in referred_entries,
            -len(terms & run.entry_terms[e.id]),
            e.step,
        ),
    )
    read_log = "\n\n".join(f"[{e.id}] step {e.step} {e.path} ({e.command})\n{e.excerpt}" for e in entries)
    listed = {path for path, _ in facts.listed.values()}
    cands = sorted(replay.tab.candidates_ranked(), key=lambda c: (c.path not in listed, -c.score, c.path))
    candidates = "\n".join(f"{c.path} (listed at step {c.step_listed})" for c in cands)
    task = trajectory.task
    instruction = (task.instruction if task is not None else "") or trajectory.instruction or ""
    return ItemContext(
        item=item_key(trajectory.id, index),
        trajectory=trajectory.id,
        rubric_index=index,
        rubric_text=facts.text,
        rubric_type=facts.type,
        task=instruction,
        judge_evidence=facts.judge_evidence,
        deliverable=deliverable or "(none)",
        read_log=read_log or "(none)",
        candidates=candidates or "(none)",
        evidence=[{"step": e.step, "path": e.path} for e in entries]
        + [{"step": c.step_listed, "path": c.path, "listed": True} for c in cands],
    )


def item_contexts(
    trajectories: Iterable[Trajectory],
    replays: Sequence[Replay],
    *,
    codebook: Codebook | None = None,
) -> list[ItemContext]:
    """One :class:`ItemContext` per failed rubric item of every trajectory; ``replays`` are the trajectories
    replayed, in the same order."""
    out = []
    for i, t in enumerate(trajectories):
        indices = failed_items(t)
        if not indices:
            continue
        r = replays[i]
        run = _run(t, r, None)
        out += [_item_context(t, k, r, run, codebook=codebook) for k in indices]
    return out


@dataclass(frozen=True)
class _Run:
    """What every item context of one run shares: its :func:`run_evidence` and its read-log entries' tokens."""

    evidence: RunEvidence
    entry_terms: dict[str, frozenset[str]]
    """Read-log entry id -> the tokens of its path and excerpt."""


def _run(trajectory: Trajectory, replay: Replay, delivered: list[tuple[str, str]] | None) -> _Run:
    return _Run(
        run_evidence(trajectory, delivered=delivered),
        {e.id: frozenset(text_terms(e.path + " " + e.excerpt)) for e in replay.tab.read_log},
    )


# ---------------------------------------------------------------------------------------------------------
# Prompts


def _definitions(cb: Codebook) -> str:
    lines = [f"{cb.title} ({cb.version})", f"Unit: {cb.unit}", ""]
    for c in cb.categories:
        lines.append(f"{c.name} [{c.key}]: {c.definition}")
        lines += [f"  - {s.name} [{s.key}]: {s.definition}" for s in c.subreasons]
    return "\n".join(lines)


PromptVersion = Literal["p1", "p2", "r1"]
"""Prompt versions: ``p1`` and ``p2`` label failed items (:data:`PROMPT_VERSIONS`), ``r1`` is the recovery prompt."""
PROMPT_VERSIONS: dict[PromptVersion, str] = {
    "p1": "the codebook in full: definitions, examples and the ordered decision rules",
    "p2": "the codebook's definitions only, no decision rules",
}
"""Prompt version -> what its system prompt gives the annotator."""


def system_prompt(codebook: Codebook, prompt: PromptVersion = "p1") -> str:
    """The annotator's instructions and the codebook, as prompt version ``prompt`` gives them."""
    if prompt not in PROMPT_VERSIONS:
        raise ValueError(f"unknown prompt version {prompt!r}; known: {sorted(PROMPT_VERSIONS)}")
    book = codebook.describe() if prompt == "p1" else _definitions(codebook)
    return (
        "You label why an AI agent lost one rubric point of a task, using this codebook.\n\n"
        f"{book}\n\n"
        "Read the evidence in the user message and answer with one JSON object only: "
        + _answer_shape(codebook)
    )


def _answer_shape(cb: Codebook) -> str:
    return (
        '{"category": one of '
        + json.dumps(list(CATEGORIES))
        + ', "subreason": one of '
        + json.dumps(list(cb.subreasons))
        + ' when the category is "other", else null, "rationale": one or two sentences citing the evidence}.'
    )


def fit_to_budget(parts: dict[str, str], budget: int) -> tuple[dict[str, str], list[str]]:
    """Cut the biggest parts first to one common length so their sum fits ``budget``; notes of what was cut."""
    total = sum(len(v) for v in parts.values())
    if total <= budget:
        return parts, []
    sizes = sorted(len(v) for v in parts.values())
    cap, rest, n = 0, budget, len(sizes)
    for i, size in enumerate(sizes):  # the largest cap with sum(min(size, cap)) <= budget
        if size * (n - i) > rest:
            cap = rest // (n - i)
            break
        rest -= size
    cap = max(cap, MIN_PART)
    out, notes = {}, []
    for name, text in parts.items():
        if len(text) > cap:
            out[name] = text[:cap] + f"\n[… truncated: {len(text) - cap} of {len(text)} characters cut]"
            notes.append(f"{name} ({len(text)} -> {cap} characters)")
        else:
            out[name] = text
    return out, notes


def budget_note(notes: Sequence[str], budget: int) -> str:
    """The prompt's line saying what :func:`fit_to_budget` cut to fit ``budget`` characters."""
    if not notes:
        return f"Nothing was truncated (budget {budget} characters)."
    return f"To fit the budget of {budget} characters these parts were truncated (biggest first): {'; '.join(notes)}."


def user_prompt(ctx: ItemContext, *, budget: int = DEFAULT_BUDGET) -> str:
    """The item's evidence in ``## `` sections, cut to ``budget`` characters (biggest parts first, noted)."""
    parts = {
        "task": ctx.task or "(none)",
        "judge evidence": ctx.judge_evidence or "(none)",
        "deliverable": ctx.deliverable,
        "read log": ctx.read_log,
        "candidates": ctx.candidates,
    }
    fixed = len(ctx.rubric_text) + 900  # the item, headings, notes and the answer line
    fitted, notes = fit_to_budget(parts, max(0, budget - fixed))
    note = budget_note(notes, budget)
    kind = f" ({ctx.rubric_type})" if ctx.rubric_type else ""
    return "\n".join(
        [
            "## Item",
            f"Run {ctx.trajectory}, rubric item {ctx.rubric_index}{kind}, failed by the judge:",
            ctx.rubric_text,
            "## Task",
            fitted["task"],
            "## Judge evidence",
            fitted["judge evidence"],
            "## Deliverable (the parts sharing words with the item)",
            fitted["deliverable"],
            "## Read log (files the agent opened; excerpts exactly as shown to it)",
            fitted["read log"],
            "## Candidates (files listed, never opened)",
            fitted["candidates"],
            "## Notes",
            note,
            "## Answer",
            "One JSON object: category, subreason, rationale.",
        ]
    )


def build_messages(
    ctx: ItemContext,
    codebook: Codebook | None = None,
    *,
    prompt: PromptVersion = "p1",
    budget: int = DEFAULT_BUDGET,
) -> list[dict[str, str]]:
    """System (instructions + codebook of prompt version ``prompt``) and user (the item's evidence) messages."""
    cb = codebook or load_codebook()
    return [
        {"role": "system", "content": system_prompt(cb, prompt)},
        {"role": "user", "content": user_prompt(ctx, budget=budget)},
    ]


# ---------------------------------------------------------------------------------------------------------
# Answers


@dataclass(frozen=True)
class Answer:
    """A valid answer of an LLM annotator, as :func:`parse_answer` read it."""

    category: str
    """One of :data:`CATEGORIES`."""
    subreason: str | None
    """One of the codebook's sub-reasons when the category is ``other``; ``None`` otherwise."""
    rationale: str
    """The annotator's reason, white space stripped (never empty)."""


def parse_answer(text: str | None, codebook: Codebook | None = None) -> tuple[Answer | None, str | None]:
    """(the answer, None) when ``text`` is a valid label JSON, else (None, what is wrong with it)."""
    cb = codebook or load_codebook()
    data, error = parse_json_object(text)
    if data is None:
        return None, error
    category, subreason, rationale = data.get("category"), data.get("subreason"), data.get("rationale")
    if category not in CATEGORIES:
        return None, f"category must be one of {list(CATEGORIES)}, got {category!r}"
    if category == "other" and subreason not in cb.subreasons:
        return None, f"under 'other', subreason must be one of {list(cb.subreasons)}, got {subreason!r}"
    if category != "other" and subreason not in (None, ""):
        return None, f"subreason must be null unless the category is 'other', got {subreason!r}"
    if not isinstance(rationale, str) or not rationale.strip():
        return None, "rationale must be a non-empty string"
    return Answer(category, subreason or None, rationale.strip()), None


# ---------------------------------------------------------------------------------------------------------
# LLM annotators


@dataclass(frozen=True)
class LLMAnnotator:
    """One LLM annotator: a model, a prompt version and a sample number (the request's ``seed``)."""

    model: str
    """The model name sent in each request."""
    prompt: PromptVersion = "p1"
    """The prompt version: a key of :data:`PROMPT_VERSIONS`, or ``r1`` (masked recovery)."""
    sample: int = 0
    """Sample number, sent as the request's ``seed``: samples of one model are distinct annotators."""
    temperature: float = 0.0
    """Sampling temperature sent in each request."""
    max_tokens: int = 512
    """Most tokens the answer may take, sent in each request."""
    json_mode: bool = True
    """Ask for ``response_format={"type": "json_object"}`` (turn off for endpoints without it)."""

    @property
    def name(self) -> str:
        return f"llm:{self.model}:{self.prompt}:s{self.sample}"

    def request(self, messages: list[dict[str, str]]) -> dict[str, Any]:
        """The chat-completion request for these messages."""
        req: dict[str, Any] = {
            "model": self.model,
            "messages": messages,
            "temperature": self.temperature,
            "seed": self.sample,
            "max_tokens": self.max_tokens,
        }
        if self.json_mode:
            req["response_format"] = {"type": "json_object"}
        return req


def annotator_grid(
    models: Sequence[str],
    prompts: Sequence[PromptVersion] = ("p1",),
    samples: int = 1,
    *,
    temperature: float | None = None,
    **kw: Any,
) -> list[LLMAnnotator]:
    """Every model x prompt version x sample; several samples default to temperature 1.0, one to 0.0."""
    temp = temperature if temperature is not None else (1.0 if samples > 1 else 0.0)
    return [
        LLMAnnotator(model=m, prompt=p, sample=s, temperature=temp, **kw)
        for m in models
        for p in prompts
        for s in range(samples)
    ]


@dataclass
class LLMAnnotation:
    """What :func:`annotate_llm` returns: the labels and every call made (for usage and cost)."""

    labels: pd.DataFrame
    """One row of :data:`LABEL_COLUMNS` per (annotator, item), in annotator order, then item order."""
    calls: list[CallResult]
    """Every call made, corrective retries included."""


def first_requests(
    contexts: Sequence[ItemContext],
    annotators: Sequence[LLMAnnotator],
    codebook: Codebook | None = None,
    *,
    budget: int = DEFAULT_BUDGET,
) -> list[dict[str, Any]]:
    """The first request of every (annotator, item): what ``--dry-run`` counts (corrective retries aside)."""
    cb = codebook or load_codebook()
    return [
        a.request(build_messages(c, cb, prompt=a.prompt, budget=budget)) for a in annotators for c in contexts
    ]


def annotate_llm(
    contexts: Sequence[ItemContext],
    annotators: Sequence[LLMAnnotator],
    client: LLMClient,
    *,
    codebook: Codebook | None = None,
    budget: int = DEFAULT_BUDGET,
    max_fixes: int = 2,
    max_workers: int = 8,
    progress: bool = False,
) -> LLMAnnotation:
    """Label every item with every annotator; rows in annotator order, then item order.

    Rounds: all first requests run as one concurrent batch; answers that fail :func:`parse_answer` are
    asked again (previous answer + :func:`rtlab.llm.corrective_message`) up to ``max_fixes`` times, then labelled
    :data:`UNPARSABLE` with the last raw answer.
    """
    cb = codebook or load_codebook()
    jobs = [(a, c) for a in annotators for c in contexts]
    asked, calls = ask_until_valid(
        client,
        [build_messages(c, cb, prompt=a.prompt, budget=budget) for a, c in jobs],
        lambda i, messages: jobs[i][0].request(messages),
        lambda text: parse_answer(text, cb),
        max_fixes=max_fixes,
        max_workers=max_workers,
        progress=progress,
        desc="annotating",
    )
    rows = []
    for (annotator, ctx), outcome in zip(jobs, asked, strict=True):
        row, result = _row(annotator, ctx, cb), outcome.result
        if result.error is not None:
            rows.append({**row, "label": FAILED, "raw_response": result.error})
        elif result.refusal is not None:
            rows.append({**row, "label": REFUSED, "raw_response": result.refusal})
        elif outcome.parsed is None:
            rows.append(
                {**row, "label": UNPARSABLE, "rationale": outcome.error, "raw_response": result.content}
            )
        else:
            answer = outcome.parsed
            rows.append(
                {
                    **row,
                    "label": answer.category,
                    "subreason": answer.subreason,
                    "rationale": answer.rationale,
                    "raw_response": result.content,
                }
            )
    return LLMAnnotation(labels=_frame(rows), calls=calls)


def _row(annotator: LLMAnnotator, ctx: ItemContext, cb: Codebook) -> dict[str, Any]:
    return {
        "item": ctx.item,
        "annotator": annotator.name,
        "label": None,
        "subreason": None,
        "codebook_version": cb.version,
        "rationale": None,
        "evidence": json.dumps(ctx.evidence, ensure_ascii=False),
        "raw_response": None,
    }


# ---------------------------------------------------------------------------------------------------------
# Human labels

HUMAN_REQUIRED = ("annotator", "label")


def read_human_labels(path: str | Path, codebook: Codebook | None = None) -> pd.DataFrame:
    """Human labels from CSV or Parquet: one row per item and annotator, in long form.

    Columns: ``item`` (or ``trajectory`` and ``rubric_index``), ``annotator``, ``label`` (a category, or
    ``other/<subreason>``), optional ``subreason``, ``rationale``, ``evidence``, ``codebook_version``
    (default: the codebook's). Errors name the file, the line (CSV; the header is line 1) or row (Parquet,
    from 1) and the column.
    """
    cb = codebook or load_codebook()
    table = read_label_file(path)
    frame = table.frame.astype(object)
    # an empty cell (CSV "", Parquet null or "") is no value
    rows = frame.where(frame.notna() & (frame != ""), None).to_dict("records")
    columns = table.columns
    has_item = "item" in columns
    if not has_item and not {"trajectory", "rubric_index"} <= set(columns):
        raise table.error("needs an 'item' column, or 'trajectory' and 'rubric_index'", column="item")
    for col in HUMAN_REQUIRED:
        if col not in columns:
            raise table.error(f"missing column {col!r}; columns are {columns}", column=col)
    seen: dict[tuple[str, str], int] = {}
    out = []
    for n, row in enumerate(rows):

        def bad(message: str, col: str, n: int = n) -> ReaderError:
            return table.error(message, rows=(n,), column=col)

        if has_item:
            item = row.get("item")
            if not item:
                raise bad("empty item", "item")
            item = str(item)
        else:
            try:
                item = item_key(str(row["trajectory"]), int(str(row["rubric_index"])))
            except (TypeError, ValueError):
                raise bad(
                    f"rubric_index must be an integer, got {row.get('rubric_index')!r}", "rubric_index"
                ) from None
        annotator = row.get("annotator")
        if not annotator:
            raise bad("empty annotator", "annotator")
        label = str(row.get("label") or "").strip()
        subreason = row.get("subreason") or None
        if label.startswith("other/"):
            label, subreason = "other", label.split("/", 1)[1]
        if label not in CATEGORIES:
            raise bad(f"label {label!r} is not a category; known: {list(CATEGORIES)}", "label")
        if label == "other" and subreason is not None and subreason not in cb.subreasons:
            raise bad(f"subreason {subreason!r} is not one of {list(cb.subreasons)}", "subreason")
        if label != "other" and subreason is not None:
            raise bad(
                f"subreason {subreason!r} given for category {label!r} (only 'other' has them)", "subreason"
            )
        key = (item, str(annotator))
        if key in seen:
            raise bad(
                f"item {item!r} labelled twice by {annotator!r} (first at {table.place(seen[key])})", "item"
            )
        seen[key] = n
        out.append(
            {
                "item": item,
                "annotator": str(annotator),
                "label": label,
                "subreason": subreason,
                "codebook_version": row.get("codebook_version") or cb.version,
                "rationale": row.get("rationale"),
                "evidence": row.get("evidence"),
                "raw_response": None,
            }
        )
    return _frame(out)

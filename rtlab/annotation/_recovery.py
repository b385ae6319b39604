"""Masked recovery: can an LLM recover a value the tab holds when the value is masked in the requirement?

The paper's sample (``sample="paper"``, the default): "among numeric values a failed rubric expected, that
appeared in an observation, and that are absent from the deliverable" the ones the tab holds, i.e. the
:func:`rtlab.analysis._values.values_frame` rows with ``passed`` False (the judge failed the item), ``shown``,
not ``delivered``, and ``held``. ``sample="held"`` asks about every held value (passed and delivered ones
included), the earlier sample, for comparison.

Each value is replaced by :data:`MASK` in the text of its rubric item (the requirement) and the model is asked
for it under three conditions (:data:`CONDITIONS`), as the paper words them ("with the task and requirement
given but values masked ... without the tab, ... from the review for that requirement and the entries it
opens, and ... from the whole read log"):

- ``no_tab``: the task and the masked requirement only;
- ``review``: ``no_tab`` plus the review for that requirement (what ``tab_list`` shows for it: its
  best-matching read-log entries with snippets, and unopened candidates) and the whole excerpt of each entry
  it shows (what ``tab_show`` then gives);
- ``read_log``: ``review`` plus every other read-log entry, whole (id, step, path, command, excerpt exactly
  as shown): the review for the requirement and then the whole read log, the entries the review opens among
  them (given once, in read-log order).

So each condition adds to the one before: what ``no_tab`` gives is in ``review``, and what ``review`` gives is
in ``read_log``.

Decisions:

- **The mask.** Every number in the requirement that writes the same value (``rtlab.text._numbers.matches``
  without rounding: ``4,434.5`` and ``4434.5`` alike) and every literal occurrence of the value as written
  is masked. Only the requirement is masked: the context keeps the value (that is the point: can the model
  find it in what the tab holds?). The task text is shown as it is; ``in_task`` says when it writes the
  value (then ``no_tab`` can succeed without any tab).
- **The review** is computed by the tab against the *masked* requirement (the rubric items are added as
  requirements after the replay, as ``replay(requirements="rubric")`` does before it; the review of one
  requirement does not depend on the others). An agent states a requirement before it knows the value, so
  the value itself must not steer the ranking. ``review_query="rubric"`` ranks with the unmasked text (the
  shown text is masked either way).
- **The model's context.** Nothing is cut by default: the read log is given whole, as the paper's condition
  says. A prompt longer than ``context_chars`` characters (system and user message together;
  :data:`RECOVERY_CONTEXT_CHARS` by default) is not sent: its row has status :data:`OVER_CONTEXT` and
  ``prompt_chars`` says how long it was, so the items a model cannot take are reported one by one. (A
  prompt the server still refuses for its length is an HTTP 400, which the client raises as
  :class:`rtlab.llm.LLMError`: set ``context_chars`` to the model's context.) ``budget`` (characters of context, off by default) is the old alternative: the biggest parts
  are cut first to one common length (:func:`rtlab.annotation._annotators.fit_to_budget`), the prompt says
  what was cut, and ``truncated`` marks the row. ``context_holds`` says whether the value is in the context
  actually sent.
- **Answers.** JSON ``{"value": "..."}`` (a string or a number; ``null`` when the model cannot tell).
  Anything else is asked again with the reason (:func:`rtlab.llm.corrective_message`, via :func:`rtlab.llm.ask_until_valid`), at most
  ``max_fixes`` times, then recorded as :data:`~rtlab.annotation._annotators.UNPARSABLE`.
- **Scoring** uses the first number the answer writes (so hedging with several numbers earns nothing
  extra). ``recovered_exact``: the same value and the same percent-ness (formatting, currency and scale
  words aside: ``4,434.5`` = ``4434.5`` = ``$4,434.5``). ``recovered_tolerant``: :func:`rtlab.text._numbers.matches`
  with the rubric's written precision (rounding to the rubric's last digit, percent/fraction and scaled
  readings). Shares are of every value asked about (an :data:`OVER_CONTEXT` row is not recovered), with the
  over-context count beside them.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from rtlab.analysis import failed_shown_missing, item_values, values_frame
from rtlab.annotation._annotators import (
    FAILED,
    REFUSED,
    UNPARSABLE,
    LLMAnnotator,
    PromptVersion,
    budget_note,
    fit_to_budget,
)
from rtlab.environment import Requirement, Review, ReviewItem, Tab, TabConfig, replay, task_text
from rtlab.llm import CallResult, LLMClient, ask_until_valid, parse_json_object
from rtlab.text import Number, NumberIndex, find_numbers, fold_text, matches

if TYPE_CHECKING:
    import pandas as pd

    from rtlab.records import RubricItem, Trajectory

MASK = "[MASKED]"
Condition = Literal["no_tab", "review", "read_log"]
CONDITIONS: tuple[Condition, ...] = ("no_tab", "review", "read_log")
"""The three conditions, each adding context to the one before."""
RECOVERY_PROMPT: PromptVersion = "r1"
"""Prompt version of the recovery prompt (part of an annotator's name)."""
RECOVERY_CONTEXT_CHARS = 1_000_000
"""The longest prompt sent, in characters: about 272K input tokens (the GPT-5 family's 400K context less its
128K of output) at about 3.7 characters a token. Set ``context_chars`` to the model's own."""
Sample = Literal["paper", "held"]
SAMPLES: tuple[Sample, ...] = ("paper", "held")
"""``paper``: held values a failed rubric expected, shown, not delivered; ``held``: every held value."""
ANSWERED, NO_ANSWER, OVER_CONTEXT = "answered", "no_answer", "over_context"
RECOVERY_COLUMNS = [
    "trajectory",
    "rubric_index",
    "value",
    "number",
    "condition",
    "annotator",
    "model",
    "status",
    "answer",
    "recovered_exact",
    "recovered_tolerant",
    "context_holds",
    "in_task",
    "n_masked",
    "truncated",
    "prompt_chars",
    "raw_response",
]
"""The columns of :attr:`Recovery.frame`, in order."""


# ---------------------------------------------------------------------------------------------------------
# Masking


def _bounded(text: str, start: int, end: int) -> bool:
    """Whether ``text[start:end]`` is not part of a longer number (no digit, or ``.5`` / ``,5``, beside it)."""
    before = text[start - 1] if start > 0 else ""
    after = text[end : end + 2]
    if before.isdigit() or (before in ".," and start > 1 and text[start - 2].isdigit()):
        return False
    return not (after[:1].isdigit() or (after[:1] in ".," and after[1:2].isdigit()))


def mask_value(text: str, value: Number, token: str = MASK) -> tuple[str, int]:
    """``text`` with every writing of ``value`` replaced by ``token``, and how many were replaced."""
    spans = [(n.start, n.end) for n in find_numbers(text) if matches(value, n, rounding=False)]
    spans += [
        m.span() for m in re.finditer(re.escape(value.text), text) if _bounded(text, m.start(), m.end())
    ]
    merged: list[tuple[int, int]] = []
    for start, end in sorted(spans):
        if merged and start < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(end, merged[-1][1]))
        else:
            merged.append((start, end))
    out = text
    for start, end in reversed(merged):
        out = out[:start] + token + out[end:]
    return out, len(merged)


# ---------------------------------------------------------------------------------------------------------
# What each condition shows


@dataclass
class RecoveryItem:
    """One held value with the context of each condition, as text parts of a prompt."""

    trajectory: str
    """The trajectory id."""
    rubric_index: int
    """The rubric item's index."""
    value: str
    """The value as written in the rubric (or reference answer)."""
    expected: Number
    """The value as a number, which answers are scored against."""
    requirement: str
    """The rubric item's text with the value masked."""
    n_masked: int
    """How many writings of the value the item's text had masked."""
    task: str
    """The task text (the benchmark's, else the instruction), unmasked."""
    in_task: bool
    """The task text writes the value (``no_tab`` can then succeed without a tab)."""
    review: str
    """What ``tab_list`` shows for the requirement (its line of the review only)."""
    opened: dict[str, str] = field(default_factory=dict)
    """Entry id -> what ``tab_show`` gives, for each entry the review shows."""
    read_log: dict[str, str] = field(default_factory=dict)
    """Entry id -> the entry as the read log holds it (anchor line and excerpt)."""

    @property
    def key(self) -> str:
        return f"{self.trajectory}#{self.rubric_index}:{self.value}"

    def parts(self, condition: Condition) -> dict[str, str]:
        """The context parts a condition adds, by name (what the size budget shares out)."""
        if condition == "no_tab":
            return {}
        if condition == "review":
            return {"review": self.review, **{f"show {k}": v for k, v in self.opened.items()}}
        if condition == "read_log":
            return {"review": self.review, **self.read_log}
        raise ValueError(f"unknown condition {condition!r}; known: {CONDITIONS}")


def _entry_text(tab: Tab, lid: str) -> str:
    entry = tab.entry(lid)
    assert entry is not None
    return f"[{entry.id}] step {entry.step} {entry.path} ({entry.command})\n{entry.excerpt}"


def _requirement_id(tab: Tab, text: str, step: int | None = None) -> str:
    """Add ``text`` as a requirement (or find the one already there with the same text) and return its id."""
    tab.add(text, step=step)
    norm = fold_text(text.strip())
    return next(r.id for r in tab.requirements if fold_text(r.text) == norm)


def _review_text(tab: Tab, item: ReviewItem, masked: str) -> tuple[str, dict[str, str]]:
    """The review row ``item`` of one requirement (shown with the masked text) and ``tab_show`` of each entry
    in it."""
    req = tab.requirement(item.requirement)
    assert req is not None
    shown_item = ReviewItem(item.requirement, masked, item.entries, item.candidates)
    shown_req = Requirement(req.id, masked)
    text = Review(True, (shown_item,), (shown_req,)).render()
    return text, {e.id: tab.show(e.id).text for e in item.entries}


def paper_sample(values: pd.DataFrame) -> pd.DataFrame:
    """The rows of a :func:`rtlab.analysis._values.values_frame` the paper asks about: those of
    :func:`rtlab.analysis._values.failed_shown_missing` (a failed item's values, shown, not delivered) that
    the tab holds."""
    return values[failed_shown_missing(values) & values["held"].astype(bool)]


def recovery_items(
    trajectories: Iterable[Trajectory],
    *,
    sample: Sample = "paper",
    config: TabConfig | None = None,
    review_query: Literal["masked", "rubric"] = "masked",
) -> list[RecoveryItem]:
    """One :class:`RecoveryItem` per value of the sample (:data:`SAMPLES`, the paper's by default) of every
    trajectory, in values-frame order.

    Each trajectory is replayed (``config``, the full tab by default); its values are those of
    :func:`rtlab.analysis._values.values_frame` on that replay (:func:`paper_sample`, or every held one).
    """
    if review_query not in ("masked", "rubric"):
        raise ValueError(f"review_query must be 'masked' or 'rubric', got {review_query!r}")
    if sample not in SAMPLES:
        raise ValueError(f"sample must be one of {SAMPLES}, got {sample!r}")
    out: list[RecoveryItem] = []
    for t in trajectories:
        if t.task is None or not t.task.rubric:
            continue
        r = replay(t, config=config)
        held = values_frame([t], [r])
        held = paper_sample(held) if sample == "paper" else held[held["held"]]
        if held.empty:
            continue
        items = {item.index: item for item in t.task.rubric}
        task = task_text(t)
        task_index = NumberIndex(task)
        asked = []  # every held value's requirement goes on the tab first, then one review serves them all
        for row in held.itertuples(index=False):
            item = items[int(row.rubric_index)]
            expected = _expected(t, item, str(row.value))
            masked, n_masked = mask_value(item.text, expected)
            rid = _requirement_id(r.tab, masked if review_query == "masked" else item.text)
            asked.append((item, expected, masked, n_masked, rid))
        reviewed = {i.requirement: i for i in r.tab.review().items}
        for item, expected, masked, n_masked, rid in asked:
            review, opened = _review_text(r.tab, reviewed[rid], masked)
            out.append(
                RecoveryItem(
                    trajectory=t.id,
                    rubric_index=item.index,
                    value=expected.text,
                    expected=expected,
                    requirement=masked,
                    n_masked=n_masked,
                    task=task,
                    in_task=task_index.find(expected) is not None,
                    review=review,
                    opened=opened,
                    read_log={e.id: _entry_text(r.tab, e.id) for e in r.tab.read_log},
                )
            )
    return out


def _expected(t: Trajectory, item: RubricItem, text: str) -> Number:
    assert t.task is not None
    (n,) = [v for v in item_values(t.task, item) if v.text == text]
    return n


# ---------------------------------------------------------------------------------------------------------
# Prompts


SYSTEM_PROMPT = (
    "You recover a value that was masked in one requirement of a task an AI agent worked on. The requirement "
    f"shows {MASK} where the value stood. Use only the text you are given. Answer with one JSON object only: "
    '{"value": "<the masked value, written as the requirement would write it>"}, or {"value": null} when '
    "the text given does not let you tell."
)

_HEADINGS = {
    "review": "## Review (what tab_list shows for this requirement)",
    "opened": "## Entries the review shows (what tab_show gives for each)",
    "read_log": "## Read log (every file the agent opened; excerpts exactly as shown to it)",
}


@dataclass(frozen=True)
class Prompt:
    """One recovery prompt: its messages, whether its context was cut, and whether the value survived."""

    messages: list[dict[str, str]]
    """System and user messages, ready to send."""
    truncated: bool
    """Some context part was cut to fit the budget (only with a ``budget``)."""
    context_holds: bool
    """The task or the context parts as sent write the value (so the answer is there to find)."""

    @property
    def chars(self) -> int:
        """Characters of the messages' contents together (what ``context_chars`` bounds)."""
        return sum(len(m["content"]) for m in self.messages)


def build_prompt(item: RecoveryItem, condition: Condition, *, budget: int | None = None) -> Prompt:
    """System and user messages of ``item`` under ``condition``: ``## `` sections, whole; with ``budget``, the
    context parts cut to that many characters (biggest parts first, noted in the prompt)."""
    parts = item.parts(condition)
    fitted, notes = fit_to_budget(parts, budget) if budget is not None else (parts, [])
    lines = [
        "## Masked requirement",
        f"Run {item.trajectory}, rubric item {item.rubric_index}. One value is replaced by {MASK}:",
        item.requirement,
        "## Task",
        item.task or "(none)",
    ]
    if condition == "review":
        lines += [_HEADINGS["review"], fitted["review"], _HEADINGS["opened"]]
        lines.append("\n\n".join(fitted[f"show {k}"] for k in item.opened) or "(none)")
    elif condition == "read_log":
        log = "\n\n".join(v for k, v in fitted.items() if k != "review")
        lines += [_HEADINGS["review"], fitted["review"], _HEADINGS["read_log"], log or "(none)"]
    if condition != "no_tab" and budget is not None:
        lines += ["## Notes", budget_note(notes, budget)]
    lines += ["## Answer", f'One JSON object: {{"value": "..."}} with the value {MASK} stands for, or null.']
    holds = item.in_task or NumberIndex("\n".join(fitted.values())).find(item.expected) is not None
    messages = [{"role": "system", "content": SYSTEM_PROMPT}, {"role": "user", "content": "\n".join(lines)}]
    return Prompt(messages, bool(notes), holds)


def recovery_annotators(models: Sequence[str], samples: int = 1, **kw: Any) -> list[LLMAnnotator]:
    """One annotator per model x sample, with the recovery prompt version (temperature 1.0 when sampling)."""
    temperature = kw.pop("temperature", 1.0 if samples > 1 else 0.0)
    return [
        LLMAnnotator(model=m, prompt=RECOVERY_PROMPT, sample=s, temperature=temperature, **kw)
        for m in models
        for s in range(samples)
    ]


def first_recovery_requests(
    items: Sequence[RecoveryItem],
    annotators: Sequence[LLMAnnotator],
    conditions: Sequence[Condition] = CONDITIONS,
    *,
    budget: int | None = None,
    context_chars: int | None = RECOVERY_CONTEXT_CHARS,
) -> list[dict[str, Any]]:
    """The first request of every (annotator, condition, item) that fits ``context_chars``: what
    ``--dry-run`` counts."""
    prompts = [(a, build_prompt(i, c, budget=budget)) for a in annotators for c in conditions for i in items]
    return [a.request(p.messages) for a, p in prompts if context_chars is None or p.chars <= context_chars]


# ---------------------------------------------------------------------------------------------------------
# Answers and scoring


def parse_value(text: str | None) -> tuple[str | None, str | None]:
    """(the value as a string, or None for ``null``; None) when ``text`` is a valid answer, else
    (None, what is wrong with it)."""
    data, error = parse_json_object(text, required=("value",))
    if data is None:
        return None, error
    value = data["value"]
    if value is None:
        return None, None
    if isinstance(value, bool) or not isinstance(value, str | int | float):
        return None, f'"value" must be a string, a number or null, got {type(value).__name__}'
    return str(value).strip(), None


def score(expected: Number, answer: str | None) -> tuple[bool, bool]:
    """(exact, tolerant) recovery of ``expected`` by the first number ``answer`` writes."""
    found = find_numbers(answer) if answer else []
    if not found:
        return False, False
    first = found[0]
    exact = first.percent == expected.percent and math.isclose(
        abs(first.value), abs(expected.value), rel_tol=1e-9, abs_tol=0.0
    )
    return exact, exact or matches(expected, first)


# ---------------------------------------------------------------------------------------------------------
# Running it


@dataclass
class Recovery:
    """What :func:`recover` returns: one row per (item, condition, annotator), and every call made."""

    frame: pd.DataFrame
    """One row of :data:`RECOVERY_COLUMNS` per (annotator, condition, item), in that order."""
    calls: list[CallResult]
    """Every call made, corrective retries included."""


def recover(
    items: Sequence[RecoveryItem],
    annotators: Sequence[LLMAnnotator],
    client: LLMClient,
    *,
    conditions: Sequence[Condition] = CONDITIONS,
    budget: int | None = None,
    context_chars: int | None = RECOVERY_CONTEXT_CHARS,
    max_fixes: int = 2,
    max_workers: int = 8,
    progress: bool = False,
) -> Recovery:
    """Ask every annotator for every masked value under every condition; rows in annotator, condition, item
    order. All first requests run as one concurrent batch; invalid answers are asked again in rounds. A prompt
    longer than ``context_chars`` is not sent (status :data:`OVER_CONTEXT`)."""
    for c in conditions:
        if c not in CONDITIONS:
            raise ValueError(f"unknown condition {c!r}; known: {CONDITIONS}")
    jobs = [(a, c, i) for a in annotators for c in conditions for i in items]
    built = [build_prompt(i, c, budget=budget) for _, c, i in jobs]
    fits = [k for k, p in enumerate(built) if context_chars is None or p.chars <= context_chars]
    asked_fitting, calls = ask_until_valid(
        client,
        [built[k].messages for k in fits],
        lambda j, messages: jobs[fits[j]][0].request(messages),
        parse_value,
        max_fixes=max_fixes,
        max_workers=max_workers,
        progress=progress,
        desc="recovering",
    )
    asked: list[Any] = [None] * len(jobs)
    for k, outcome in zip(fits, asked_fitting, strict=True):
        asked[k] = outcome
    rows = []
    for (annotator, condition, item), prompt, outcome in zip(jobs, built, asked, strict=True):
        row = _row(annotator, condition, item, prompt)
        if outcome is None:
            note = f"not sent: {prompt.chars} characters, over the context of {context_chars}"
            rows.append({**row, "status": OVER_CONTEXT, "context_holds": False, "raw_response": note})
            continue
        result = outcome.result
        if result.error is not None:
            rows.append({**row, "status": FAILED, "raw_response": result.error})
        elif result.refusal is not None:
            rows.append({**row, "status": REFUSED, "raw_response": result.refusal})
        elif outcome.error is not None:
            rows.append({**row, "status": UNPARSABLE, "raw_response": result.content})
        else:
            answer = outcome.parsed
            exact, tolerant = score(item.expected, answer)
            rows.append(
                {
                    **row,
                    "status": ANSWERED if answer is not None else NO_ANSWER,
                    "answer": answer,
                    "recovered_exact": exact,
                    "recovered_tolerant": tolerant,
                    "raw_response": result.content,
                }
            )
    return Recovery(frame=_frame(rows), calls=calls)


def _row(annotator: LLMAnnotator, condition: Condition, item: RecoveryItem, prompt: Prompt) -> dict[str, Any]:
    return {
        "trajectory": item.trajectory,
        "rubric_index": item.rubric_index,
        "value": item.value,
        "number": item.expected.value,
        "condition": condition,
        "annotator": annotator.name,
        "model": annotator.model,
        "status": None,
        "answer": None,
        "recovered_exact": False,
        "recovered_tolerant": False,
        "context_holds": prompt.context_holds,
        "in_task": item.in_task,
        "n_masked": item.n_masked,
        "truncated": prompt.truncated,
        "prompt_chars": prompt.chars,
        "raw_response": None,
    }


def _frame(rows: list[dict[str, Any]]) -> pd.DataFrame:
    import pandas as pd

    frame = pd.DataFrame(rows, columns=RECOVERY_COLUMNS)
    return frame.astype(
        {
            "trajectory": "string",
            "rubric_index": "int64",
            "value": "string",
            "number": "float64",
            "condition": "string",
            "annotator": "string",
            "model": "string",
            "status": "string",
            "answer": "string",
            "recovered_exact": "bool",
            "recovered_tolerant": "bool",
            "context_holds": "bool",
            "in_task": "bool",
            "n_masked": "int64",
            "truncated": "bool",
            "prompt_chars": "int64",
            "raw_response": "string",
        }
    )


# ---------------------------------------------------------------------------------------------------------
# Summaries


def recovery_summary(frame: pd.DataFrame) -> pd.DataFrame:
    """One row per (annotator, condition): values, answered, unparsable/refused/failed, over the model's
    context (not sent), recovered exact and tolerant (counts and shares of all values), and the value still in
    the context sent."""
    import pandas as pd

    rows = []
    for (annotator, condition), g in frame.groupby(["annotator", "condition"], sort=False):
        n = len(g)
        exact, tolerant = int(g["recovered_exact"].sum()), int(g["recovered_tolerant"].sum())
        rows.append(
            {
                "annotator": annotator,
                "condition": condition,
                "values": n,
                "answered": int((g["status"] == ANSWERED).sum()),
                "no_answer": int((g["status"] == NO_ANSWER).sum()),
                "unparsable": int((g["status"] == UNPARSABLE).sum()),
                "refused": int((g["status"] == REFUSED).sum()),
                "failed": int((g["status"] == FAILED).sum()),
                "over_context": int((g["status"] == OVER_CONTEXT).sum()),
                "recovered_exact": exact,
                "share_exact": exact / n if n else math.nan,
                "recovered_tolerant": tolerant,
                "share_tolerant": tolerant / n if n else math.nan,
                "context_holds": int(g["context_holds"].sum()),
            }
        )
    order = {c: k for k, c in enumerate(CONDITIONS)}
    out = pd.DataFrame(rows)
    if out.empty:
        return out
    out["_o"] = out["condition"].map(order)
    return out.sort_values(["annotator", "_o"], kind="stable").drop(columns="_o").reset_index(drop=True)


def recovery_figures(frame: pd.DataFrame) -> dict[str, Any]:
    """The paper's three figures per annotator, JSON-ready: ``{annotator: {condition: {values, exact,
    share_exact, tolerant, share_tolerant}}}`` (shares ``None`` without values)."""
    out: dict[str, dict[str, Any]] = {}
    for row in recovery_summary(frame).to_dict("records"):
        n = int(row["values"])
        out.setdefault(str(row["annotator"]), {})[str(row["condition"])] = {
            "values": n,
            "exact": int(row["recovered_exact"]),
            "share_exact": row["share_exact"] if n else None,
            "tolerant": int(row["recovered_tolerant"]),
            "share_tolerant": row["share_tolerant"] if n else None,
            "unparsable": int(row["unparsable"]),
            "failed": int(row["failed"]) + int(row["refused"]),
            "over_context": int(row["over_context"]),
        }
    return out

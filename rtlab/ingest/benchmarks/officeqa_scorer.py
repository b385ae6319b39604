"""OfficeQA's official answer scorer, re-implemented from its rules: ``score_answer(ground_truth, predicted, tolerance)``.

Source of the rules: ``reward.py`` of databricks/officeqa at commit 7b9a3c15 (:data:`SCORER_VERSION`), read in a
third-party byte-for-byte vendored copy whose function inventory a published check matched against that blob.
Older public copies (e.g. at 0da20e9a) lack the direct-answer guard, the accounting rule and the bracketed
lists, so their scores differ. Acc@0% and Acc@1% are this function at tolerance 0 and 0.01.

The rules, in the order the scorer applies them:

1. The answer is the content of the last ``<FINAL_ANSWER>...</FINAL_ANSWER>`` (case-insensitive), else the
   whole text.
2. Direct-answer guard (any failure scores 0): not empty; at most one non-empty line; at most 250 characters;
   for a ground truth with numbers, as many numbers as the ground truth (year-like numbers dropped first, see
   5; a bracketed-list ground truth may instead be met by splitting the prediction at commas into as many
   values) and no ``<...>`` markup; for a ground truth without numbers, no numbers and the same text after
   lower-casing, stripping quotes and ``(...)`` and folding spaces.
3. Numbers: unicode minus is ``-``; accounting parentheses ``(123)`` / ``($1,234.5)`` are negative unless the
   bare number is a year-like integer; currency symbols are dropped; commas are removed only inside valid
   ``1,234,567`` groups; ``%`` is noted but not used; each number keeps 20 characters of context either side.
4. Units (``trillion``, ``billion``/``b``, ``million``/``m``, ``thousand``/``k`` in the context) are
   detected, never used to rescale, and must be equal when both sides have one.
5. Match: ``|gt - pred| / |gt| <= tolerance`` (a zero ground truth needs a zero); year-like integers
   (1900-2100) in the prediction are ignored unless the ground truth is a single year-like number or has text
   (for several ground-truth numbers: unless one of them is year-like); a ground truth with text also needs
   its text in the prediction; several ground-truth numbers must all be matched (a bracketed list: in order).
   A prediction containing "unable to determine" never matches.

Any exception inside the scorer scores 0, as in the official function. One deliberate difference: a tolerance
outside [0, 1] is a caller's mistake and raises ``ValueError`` here (the official function scores it 0).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cache

SCORER_VERSION = "databricks/officeqa@7b9a3c154ef9fb40215bb67934afc43e6799de16:reward.py"
"""The official rules this module follows: repository, commit and file."""

ACCURACY_TOLERANCES: dict[str, float] = {"acc@0%": 0.0, "acc@1%": 0.01}
"""OfficeQA's headline accuracies and the tolerance each one scores at."""

CONTEXT_CHARS = 20
MAX_ANSWER_CHARS = 250
YEAR_RANGE = (1900, 2100)
CURRENCY_SYMBOLS = "$£€¥₹¢₩₽"
UNIT_WORDS = (
    "trillion",
    "trillions",
    "billion",
    "billions",
    "million",
    "millions",
    "thousand",
    "thousands",
    "hundred",
    "hundreds",
    "percent",
    "percentage",
    "%",
)
"""Words that do not count as text of an answer (removed before looking for significant text)."""

_CURRENCY = "[" + re.escape(CURRENCY_SYMBOLS) + "]"
_BARE_NUMBER = r"\d{1,3}(?:,\d{3})*(?:\.\d+)?|\d+(?:\.\d+)?"
_ACCOUNTING = re.compile(rf"\(\s*({_CURRENCY})?\s*({_BARE_NUMBER})\s*\)")
_GROUPED = re.compile(r"(?<![\d.])\d{1,3}(?:,\d{3})+(?:\.\d+)?(?!\d)")
_TOKEN = re.compile(r"-?\d+\.?\d*%?")
_LIST_VALUE = re.compile(r"-?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?%?")
_FINAL_ANSWER = re.compile(r"<FINAL_ANSWER>\s*(.*?)\s*</FINAL_ANSWER>", re.IGNORECASE | re.DOTALL)
_MARKUP = re.compile(r"<[^>]*>")
_BRACKETED = re.compile(r"\[([^\[\]]+)\]")
_PARENTHETICAL = re.compile(r"\([^)]*\)")
_SPACED_COMMA = re.compile(r"\s,|,\s")
_UNITS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("trillion", re.compile(r"\btrillions?\b")),
    ("billion", re.compile(r"\bbillions?\b|\bb\b")),
    ("million", re.compile(r"\bmillions?\b|\bm\b")),
    ("thousand", re.compile(r"\bthousands?\b|\bk\b")),
)
_UNIT_WORD_PATTERNS = tuple(re.compile(rf"\b{re.escape(w)}\b") for w in UNIT_WORDS)


@dataclass(frozen=True)
class Number:
    """A number found in an answer, with the lower-cased text around it (where its unit is looked for)."""

    value: float
    """The number, read after rule 3's normalisation of the text (signs, currency, grouping commas)."""
    context: str = ""
    """The lower-cased text around it (``CONTEXT_CHARS`` each side), the number included."""
    percent: bool = False
    """Written with ``%``; ``value`` is then the percent as written."""

    @property
    def unit(self) -> str | None:
        return unit_of(self.context)


@dataclass(frozen=True)
class Verdict:
    """A score with the rule that decided it, for reports and disagreement notes."""

    score: float
    """1.0 when the answer matches, else 0.0."""
    reason: str
    """The rule that decided: ``match``, ``no match``, ``guard: ...`` or ``error: ...``."""


# ---------------------------------------------------------------------------------------------------------
# Rule 1: the answer


def final_answer(text: str) -> str:
    """The content of the last ``<FINAL_ANSWER>`` block (stripped), else ``text`` unchanged."""
    found = _FINAL_ANSWER.findall(text)
    return found[-1].strip() if found else text


# ---------------------------------------------------------------------------------------------------------
# Rules 3 and 4: numbers and units


def normalise(text: str) -> str:
    """Unicode minus as ``-`` and runs of whitespace as one space, stripped."""
    return re.sub(r"\s+", " ", text.replace("\u2212", "-")).strip()


def is_year_like(value: float) -> bool:
    """An integer from 1900 to 2100."""
    return YEAR_RANGE[0] <= value <= YEAR_RANGE[1] and value == int(value)


def _accounting(match: re.Match[str]) -> str:
    symbol, body = match.group(1), match.group(2)
    if symbol is None and is_year_like(float(body.replace(",", ""))):
        return match.group(0)
    return "-" + body


def _numeric_formatting(text: str) -> str:
    """Accounting parentheses as a minus sign (year-like bare integers excepted), currency symbols dropped."""
    return re.sub(_CURRENCY, "", _ACCOUNTING.sub(_accounting, text))


def numbers(text: str) -> list[Number]:
    """Every number of ``text`` in order, after rule 3's normalisation, with its context."""
    flat = _GROUPED.sub(lambda m: m.group().replace(",", ""), _numeric_formatting(normalise(text)))
    found = []
    for m in _TOKEN.finditer(flat):
        token = m.group()
        context = flat[max(0, m.start() - CONTEXT_CHARS) : m.end() + CONTEXT_CHARS].lower()
        found.append(Number(float(token.rstrip("%")), context, token.endswith("%")))
    return found


def unit_of(context: str) -> str | None:
    """The scale word in a number's context (``trillion`` before ``billion`` before ...), or ``None``."""
    lowered = context.lower()
    return next((name for name, pattern in _UNITS if pattern.search(lowered)), None)


def units_agree(a: str | None, b: str | None) -> bool:
    """Units must be equal only when both sides name one."""
    return a is None or b is None or a == b


def significant_text(text: str) -> str:
    """What is left of ``text`` once numbers, unit words and punctuation are removed (lower-cased).

    It counts as text when it has at least 2 characters: ``"March 1977"`` -> ``"march"``, ``"543 million"``
    -> ``""``.
    """
    if not text:
        return ""
    cleaned = _TOKEN.sub("", normalise(text).lower()).replace(",", "")
    for pattern in _UNIT_WORD_PATTERNS:
        cleaned = pattern.sub("", cleaned)
    return re.sub(r"\s+", " ", re.sub(r"[^\w\s]", " ", cleaned)).strip()


def has_text(text: str) -> bool:
    return len(significant_text(text)) >= 2


def text_agrees(ground_truth: str, predicted: str) -> bool:
    """A ground truth with text needs its text in the prediction (or the prediction's text in it)."""
    if not ground_truth or not predicted:
        return False
    gt, pred = significant_text(ground_truth), significant_text(predicted)
    if len(gt) < 2:
        return True
    return len(pred) >= 2 and (gt in pred or pred in gt)


def plain_text(text: str) -> str:
    """A text answer for comparison: lower-cased, quotes and ``(...)`` removed, spaces folded."""
    cleaned = text.strip().lower().strip('"').strip("'")
    return re.sub(r"\s+", " ", _PARENTHETICAL.sub("", cleaned)).strip()


# ---------------------------------------------------------------------------------------------------------
# Bracketed lists


def bracketed_body(text: str) -> str | None:
    """The inside of the text's only ``[...]`` when no digit stands outside it, else ``None``."""
    flat = normalise(text)
    found = list(_BRACKETED.finditer(flat))
    if len(found) != 1:
        return None
    m = found[0]
    if re.search(r"\d", flat[: m.start()] + flat[m.end() :]):
        return None
    return m.group(1)


def _list_value(raw: str) -> float | None:
    """One list item as a number: no space beside a comma, currency and accounting handled, else ``None``."""
    item = raw.strip()
    if not item or ("," in item and _SPACED_COMMA.search(item)):
        return None
    item = _numeric_formatting(normalise(item))
    if _LIST_VALUE.fullmatch(item) is None:
        return None
    return float(item.rstrip("%").replace(",", ""))


def _reader(
    text: str, n: int, accept: Callable[[int, float], bool]
) -> tuple[Callable[[], bool], Callable[[], Iterator[tuple[float, ...]]]]:
    """Readings of ``text`` (its bracketed body if any) as ``n`` comma-separated numbers whose k-th value
    passes ``accept(k, value)``: the pieces between commas are grouped in order, each group one number.

    Returns ``(exists, readings)``. ``exists`` is a memoised search, polynomial in the number of pieces;
    enumerating every reading (as the official code does) is exponential for answers such as
    ``374,443,381,327,...`` against a 12-item list.
    """
    pieces = (bracketed_body(text) or normalise(text)).split(",")

    @cache
    def value(start: int, stop: int) -> float | None:
        return _list_value(",".join(pieces[start:stop]))

    def groups(start: int, k: int) -> Iterator[tuple[int, float]]:
        for stop in range(start + 1, len(pieces) - (n - k) + 2):
            v = value(start, stop)
            if v is not None and accept(k, v):
                yield stop, v

    @cache
    def feasible(start: int, k: int) -> bool:
        if k == n:
            return start == len(pieces)
        return any(feasible(stop, k + 1) for stop, _ in groups(start, k))

    def readings(start: int = 0, k: int = 0) -> Iterator[tuple[float, ...]]:
        if k == n:
            yield ()
            return
        for stop, v in groups(start, k):
            if feasible(stop, k + 1):
                yield from ((v, *rest) for rest in readings(stop, k + 1))

    def exists() -> bool:
        return n >= 2 and len(pieces) >= n and feasible(0, 0)

    return exists, readings


def _any_value(k: int, value: float) -> bool:
    return True


def segmentations(text: str, n: int) -> list[tuple[float, ...]]:
    """Every distinct reading of ``text`` as ``n`` comma-separated numbers (for reports; the scorer only asks
    whether one exists): ``"8,152,260"`` reads as ``(8, 152260)`` or ``(8152, 260)``."""
    exists, readings = _reader(text, n, _any_value)
    return list(dict.fromkeys(readings())) if exists() else []


def segmentable(text: str, n: int) -> bool:
    """``text`` can be read as ``n`` comma-separated numbers (n >= 2)."""
    return _reader(text, n, _any_value)[0]()


def segment_matches(text: str, targets: list[float], tolerance: float) -> bool:
    """Some reading of ``text`` as ``len(targets)`` comma-separated numbers matches ``targets`` in order."""
    return _reader(text, len(targets), lambda k, v: close(targets[k], v, tolerance))[0]()


def ground_truth_list(ground_truth: str, gt_numbers: list[Number]) -> list[Number] | None:
    """The ground truth's numbers when it is one bracketed list of exactly those numbers (2 or more)."""
    body = bracketed_body(ground_truth)
    if body is None or len(gt_numbers) < 2:
        return None
    return gt_numbers if segment_matches(body, [x.value for x in gt_numbers], 0.0) else None


# ---------------------------------------------------------------------------------------------------------
# Rule 5: matching


def close(gt: float, pred: float, tolerance: float) -> bool:
    """Relative error within tolerance; a zero ground truth needs exactly zero."""
    if gt == 0:
        return pred == 0
    return abs(gt - pred) / abs(gt) <= tolerance


def drop_context_years(
    gt_numbers: list[Number], pred_numbers: list[Number], ground_truth: str
) -> list[Number]:
    """The prediction's numbers without year-like ones, unless the ground truth is about a year (rule 5)."""
    if not gt_numbers:
        return pred_numbers
    if len(gt_numbers) == 1:
        keep = is_year_like(gt_numbers[0].value) or has_text(ground_truth)
    else:
        keep = any(is_year_like(x.value) for x in gt_numbers)
    return pred_numbers if keep else [x for x in pred_numbers if not is_year_like(x.value)]


def _in_order(gt: list[Number], pred: list[Number], tolerance: float) -> bool:
    return len(gt) == len(pred) and all(
        units_agree(g.unit, p.unit) and close(g.value, p.value, tolerance)
        for g, p in zip(gt, pred, strict=True)
    )


def _list_match(
    ground_truth: str, predicted: str, gt_numbers: list[Number], pred_numbers: list[Number], tolerance: float
) -> bool | None:
    """For a bracketed-list ground truth: an in-order match of a segmentation or of the numbers; else ``None``."""
    listed = ground_truth_list(ground_truth, gt_numbers)
    if listed is None:
        return None
    # a reading of the answer carries no context, hence no unit: only the values are compared
    if segment_matches(predicted, [x.value for x in listed], tolerance):
        return True
    return _in_order(listed, drop_context_years(listed, pred_numbers, ground_truth), tolerance)


def matches(ground_truth: str, predicted: str, tolerance: float) -> bool:
    """The official fuzzy match (rules 3-5), without the guard of rule 2."""
    if not ground_truth:
        raise ValueError("ground truth is empty")
    if not predicted or "unable to determine" in predicted.lower():
        return False
    gt_numbers, pred_numbers = numbers(ground_truth), numbers(predicted)
    if not (gt_numbers and pred_numbers):
        return plain_text(ground_truth) in plain_text(predicted)
    listed = _list_match(ground_truth, predicted, gt_numbers, pred_numbers, tolerance)
    if listed is not None:
        return listed
    candidates = drop_context_years(gt_numbers, pred_numbers, ground_truth)
    found = all(
        any(units_agree(g.unit, p.unit) and close(g.value, p.value, tolerance) for p in candidates)
        for g in gt_numbers
    )
    return found and text_agrees(ground_truth, predicted)


# ---------------------------------------------------------------------------------------------------------
# Rule 2 and the entry point


def guard_failure(ground_truth: str, predicted: str) -> str | None:
    """Why ``predicted`` is not a direct answer of the ground truth's shape, or ``None`` when it is (rule 2)."""
    predicted = predicted.strip()
    if not predicted:
        return "empty answer"
    if sum(1 for line in predicted.splitlines() if line.strip()) > 1:
        return "more than one non-empty line"
    if len(predicted) > MAX_ANSWER_CHARS:
        return f"longer than {MAX_ANSWER_CHARS} characters"
    if not ground_truth:
        raise ValueError("ground truth is empty")
    gt_numbers, pred_numbers = numbers(ground_truth), numbers(predicted)
    if not gt_numbers:
        if pred_numbers:
            return "numbers in the answer to a text-only ground truth"
        if plain_text(ground_truth) != plain_text(predicted):
            return "text differs from the ground truth"
        return None
    kept = drop_context_years(gt_numbers, pred_numbers, ground_truth)
    if len(kept) != len(gt_numbers):
        listed = ground_truth_list(ground_truth, gt_numbers)
        if listed is None or not segmentable(predicted, len(listed)):
            return f"{len(kept)} number(s) where the ground truth has {len(gt_numbers)}"
    if _MARKUP.search(predicted):
        return "markup in the answer"
    return None


def verdict(ground_truth: str, predicted: str | None, tolerance: float) -> Verdict:
    """:func:`score_answer` with the rule that decided it."""
    if not 0 <= tolerance <= 1:
        raise ValueError(f"tolerance must be within [0, 1], got {tolerance}")
    try:
        answer = final_answer(predicted) if predicted else ""
        failure = guard_failure(ground_truth, answer)
        if failure is not None:
            return Verdict(0.0, f"guard: {failure}")
        if matches(ground_truth, answer, tolerance):
            return Verdict(1.0, "match")
        return Verdict(0.0, "no match")
    except Exception as exc:  # the official scorer turns every failure into a score of 0
        return Verdict(0.0, f"error: {type(exc).__name__}: {exc}")


def score_answer(ground_truth: str, predicted: str | None, tolerance: float) -> float:
    """1.0 when ``predicted`` answers ``ground_truth`` within ``tolerance`` by OfficeQA's official rules, else 0.0."""
    return verdict(ground_truth, predicted, tolerance).score


__all__ = [
    "ACCURACY_TOLERANCES",
    "SCORER_VERSION",
    "Number",
    "Verdict",
    "final_answer",
    "guard_failure",
    "matches",
    "numbers",
    "score_answer",
    "segmentations",
    "significant_text",
    "unit_of",
    "verdict",
]

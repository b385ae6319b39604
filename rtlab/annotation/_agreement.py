"""Agreement between annotators: Cohen's kappa, Krippendorff's alpha, percent agreement, scores against a
reference, confusion matrices and bootstrap confidence intervals over items.

Labels are kept in long form: a DataFrame with string columns ``item``, ``annotator`` and ``label``, one row
per label given; an item an annotator did not label simply has no row. Every statistic is a pure function of
such a frame (or, for :func:`cohen_kappa_score`, of two aligned sequences), in the style of
``sklearn.metrics``.

Undefined cases return ``nan`` (never raise, never warn): kappa when the two annotators share no item or both
used one and the same category for every shared item (chance agreement ``p_e = 1``, so ``0/0``); alpha when
fewer than two pairable values exist (one rater, no item labelled twice, an empty frame) or every pairable
value is the same category (``D_e = 0``); percent agreement when no item has two labels. A perfect ``1.0``
for one-category data would claim the annotators can tell categories apart, which such data cannot show.
:func:`agreement_report` turns these ``nan`` into ``None`` so that its result is strict JSON.

Every statistic is computed from a histogram over item *types* (a confusion cell for kappa, a profile of
how many annotators chose each category for alpha and percent agreement); a bootstrap replicate is the same
histogram with each item counted as often as it was drawn, so all replicates come out of one matrix product.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, TypeVar

import numpy as np
import pandas as pd

from rtlab.analysis import bootstrap_weights, percentile_interval
from rtlab.annotation._labelfile import read_label_file

LABEL_FILE_COLUMNS = ("item", "annotator", "label")
"""The columns a labels frame or file must have; other columns are kept but not used."""
PAIR_SEP = "|"
"""Separator in pair keys such as ``"A|B"`` (names sorted); annotator names may not contain it."""

_Label = TypeVar("_Label", bound=Hashable)
"""An annotation label (a category name, usually a str)."""

Stat = Callable[[np.ndarray], np.ndarray]
"""A statistic as a function of item weights (K replicates x N items) returning K values."""


# ---------------------------------------------------------------------------------------------------------
# Loading and checking labels


@dataclass(frozen=True)
class _Problem:
    """The first rule a labels table breaks: the column, the 0-based rows at fault, and what is wrong."""

    field: str
    rows: tuple[int, ...]
    message: str


def _is_missing(value: object) -> bool:
    """None, NaN or pandas' NA: no label."""
    return value is None or value is pd.NA or (isinstance(value, float) and math.isnan(value))


def _text_column(values: pd.Series) -> pd.Series:
    """Values as stripped strings, missing ones as ``""``."""
    return values.map(lambda v: "" if _is_missing(v) else str(v).strip())


def _normalise(frame: pd.DataFrame) -> tuple[pd.DataFrame, _Problem | None]:
    """Labels with the one set of rules files and frames share, or the first rule broken.

    Values become stripped strings; a row with an empty label is a missing label and is dropped; an empty
    item or annotator, or an annotator name holding ``|``, is an error; rows repeating an (item, annotator)
    with the same label are dropped (the first is kept); with a different label they are an error.
    """
    missing = [c for c in LABEL_FILE_COLUMNS if c not in frame.columns]
    if missing:
        found = ", ".join(map(str, frame.columns)) or "none"
        return frame, _Problem(missing[0], (), f"missing column {missing[0]!r} (columns found: {found})")
    out = frame.reset_index(drop=True).copy()
    for col in LABEL_FILE_COLUMNS:
        out[col] = _text_column(out[col]) if len(out) else out[col].astype(object)
    for col in ("item", "annotator"):
        empty = np.flatnonzero((out[col] == "").to_numpy())
        if empty.size:
            return out, _Problem(col, (int(empty[0]),), f"empty {col}")
    bad: np.ndarray | list[int] = (
        np.flatnonzero(out["annotator"].str.contains(PAIR_SEP, regex=False).to_numpy()) if len(out) else []
    )
    if len(bad):
        name = out["annotator"].iat[bad[0]]
        return out, _Problem("annotator", (int(bad[0]),), f"annotator name {name!r} contains {PAIR_SEP!r}")
    out = out[out["label"] != ""]
    problem = _conflict(out)
    if problem is not None:
        return out, problem
    out = out[~out.duplicated(list(LABEL_FILE_COLUMNS))]
    return out.reset_index(drop=True), None


def _conflict(frame: pd.DataFrame) -> _Problem | None:
    """The first (item, annotator) given two different labels, naming the two rows."""
    dup = frame[frame.duplicated(["item", "annotator"], keep=False)]
    for (item, annotator), group in dup.groupby(["item", "annotator"], sort=False):
        labels = group["label"].to_numpy()
        differ = np.flatnonzero(labels != labels[0])
        if differ.size:
            rows = (int(group.index[0]), int(group.index[differ[0]]))
            return _Problem(
                "label",
                rows,
                f"item {item!r} annotator {annotator!r} labelled {labels[0]!r} and {labels[differ[0]]!r}",
            )
    return None


def check_labels(frame: pd.DataFrame) -> pd.DataFrame:
    """The labels frame cleaned by the rules of :func:`load_labels`; ``ValueError`` names the rows at fault."""
    clean, problem = _normalise(frame)
    if problem is not None:
        rows = f" (rows {', '.join(map(str, problem.rows))})" if problem.rows else ""
        raise ValueError(f"labels [{problem.field}]: {problem.message}{rows}")
    return clean


def load_labels(path: str | Path) -> pd.DataFrame:
    """Read a labels file (CSV, or Parquet by its ``.parquet``/``.pq`` suffix) into a checked labels frame.

    Columns ``item``, ``annotator``, ``label`` are required, others are kept. The file is read by
    :func:`rtlab.annotation._labelfile.read_label_file`; the rules are those of :func:`check_labels` (empty
    label = missing, exact repeats dropped); a broken rule raises :class:`ReaderError` naming the line (the
    row position for Parquet) and the column, and for an (item, annotator) given two labels both lines.
    """
    table = read_label_file(path)
    clean, problem = _normalise(table.frame)
    if problem is None:
        return clean
    raise table.error(problem.message, rows=problem.rows, column=problem.field)


# ---------------------------------------------------------------------------------------------------------
# Coding: items x annotators table of category codes


@dataclass(frozen=True)
class _Coded:
    """A labels frame as codes: ``table[u, j]`` is the category code annotator j gave item u, or -1."""

    items: list[str]
    annotators: list[str]
    categories: list[str]
    table: np.ndarray

    def column(self, annotator: str) -> np.ndarray:
        if annotator not in self.annotators:
            raise ValueError(f"unknown annotator {annotator!r}; annotators: {', '.join(self.annotators)}")
        return self.table[:, self.annotators.index(annotator)]

    def value_counts(self) -> np.ndarray:
        """``n_uc``: how many annotators gave item u category c (N x V)."""
        n_items, n_cats = self.table.shape[0], len(self.categories)
        counts = np.zeros((n_items, n_cats), dtype=np.int64)
        u, j = np.nonzero(self.table >= 0)
        np.add.at(counts, (u, self.table[u, j]), 1)
        return counts


def _encode(frame: pd.DataFrame) -> _Coded:
    clean = check_labels(frame)
    items, u = np.unique(clean["item"].to_numpy(dtype=str), return_inverse=True)
    annotators, j = np.unique(clean["annotator"].to_numpy(dtype=str), return_inverse=True)
    categories, c = np.unique(clean["label"].to_numpy(dtype=str), return_inverse=True)
    table = np.full((len(items), len(annotators)), -1, dtype=np.int64)
    table[u, j] = c
    return _Coded(items.tolist(), annotators.tolist(), categories.tolist(), table)


def reliability_data(frame: pd.DataFrame) -> pd.DataFrame:
    """Krippendorff's canonical m-by-N layout: annotators as rows, items as columns, NaN where missing."""
    coded = _encode(frame)
    names = np.array([*coded.categories, math.nan], dtype=object)  # code -1 (missing) picks the last
    return pd.DataFrame(names[coded.table.T], index=coded.annotators, columns=coded.items)


# ---------------------------------------------------------------------------------------------------------
# Histograms over item types, and their bootstrap replicates


def _ones(n_items: int) -> np.ndarray:
    """Weights that count every item once: the point estimate as a single 'replicate'."""
    return np.ones((1, n_items))


def _weighted_counts(weights: np.ndarray, codes: np.ndarray, size: int) -> np.ndarray:
    """Per replicate (row of ``weights``), the summed weight of the items of each code in ``range(size)``.

    Items with a negative code are left out. With unit weights this is ``np.bincount``.
    """
    out = np.zeros((weights.shape[0], size))
    kept = np.flatnonzero(codes >= 0)
    if not kept.size:
        return out
    order = kept[np.argsort(codes[kept], kind="stable")]
    ordered = codes[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    out[:, ordered[starts]] = np.add.reduceat(weights[:, order], starts, axis=1)
    return out


# ---------------------------------------------------------------------------------------------------------
# Cohen's kappa


def _kappa_from_confusion(confusion: np.ndarray) -> np.ndarray:
    """Cohen's kappa of confusion matrices C (..., V, V); ``nan`` where chance agreement is certain.

    kappa = (p_o - p_e) / (1 - p_e) = 1 - sum_{c!=k} C_ck / sum_{c!=k} E_ck, with E_ck = r_c s_k / N the
    counts expected from the marginals r (first annotator) and s (second); the second form is scikit-learn's.
    """
    n_cats = confusion.shape[-1]
    off = 1.0 - np.eye(n_cats)
    n = confusion.sum(axis=(-2, -1))
    r, s = confusion.sum(axis=-1), confusion.sum(axis=-2)
    with np.errstate(invalid="ignore", divide="ignore"):
        expected = r[..., :, None] * s[..., None, :] / n[..., None, None]
        observed_off = (confusion * off).sum(axis=(-2, -1))
        expected_off = (expected * off).sum(axis=(-2, -1))
        kappa = 1.0 - observed_off / expected_off
    return np.where(expected_off > 0, kappa, math.nan)


def _kappa_stat(first: np.ndarray, second: np.ndarray, n_cats: int) -> Stat:
    """Kappa of two code columns (-1 = not labelled) over the items both labelled, as a function of weights."""
    both = (first >= 0) & (second >= 0)
    cell = np.where(both, first * n_cats + second, -1)

    def stat(weights: np.ndarray) -> np.ndarray:
        confusion = _weighted_counts(weights, cell, n_cats * n_cats).reshape(len(weights), n_cats, n_cats)
        return _kappa_from_confusion(confusion)

    return stat


def _sequence_codes(
    a: Sequence[_Label], b: Sequence[_Label], labels: Sequence[_Label] | None
) -> tuple[np.ndarray, np.ndarray, list[_Label]]:
    """Two aligned label sequences as codes over ``labels`` (default: the labels seen, in order of appearance).

    Positions where either label is outside ``labels`` are left out, as scikit-learn does.
    """
    a, b = list(a), list(b)
    if len(a) != len(b):
        raise ValueError(f"the two label sequences differ in length: {len(a)} and {len(b)}")
    if any(_is_missing(v) for v in (*a, *b)):
        raise ValueError("label sequences must be aligned and complete: found a missing label (None/NaN)")
    names = list(dict.fromkeys([*a, *b] if labels is None else labels))
    index = {name: i for i, name in enumerate(names)}
    ca = np.array([index.get(v, -1) for v in a], dtype=np.int64)
    cb = np.array([index.get(v, -1) for v in b], dtype=np.int64)
    kept = (ca >= 0) & (cb >= 0)
    return ca[kept], cb[kept], names


def cohen_kappa_score(
    a: Sequence[Hashable], b: Sequence[Hashable], *, labels: Sequence[Hashable] | None = None
) -> float:
    """Cohen's kappa between two annotators' labels of the same items (position i = item i in both).

    ``labels`` restricts the categories (items labelled outside them are left out, as in scikit-learn).
    Returns ``nan`` when no item is left or both annotators used one and the same category throughout
    (``p_e = 1``); scikit-learn also returns ``nan`` there, with a warning.
    """
    ca, cb, names = _sequence_codes(a, b, labels)
    return float(_kappa_stat(ca, cb, len(names))(_ones(len(ca)))[0])


def pair_key(a: str, b: str) -> str:
    """The key of an annotator pair: the two names sorted, joined by ``|`` (``"A|B"``)."""
    return PAIR_SEP.join(sorted((a, b)))


def _pairs(coded: _Coded) -> list[tuple[str, str]]:
    names = coded.annotators
    return [(x, y) for i, x in enumerate(names) for y in names[i + 1 :]]


def pairwise_kappa(frame: pd.DataFrame) -> dict[str, float]:
    """Cohen's kappa of every annotator pair over the items both labelled, keyed ``"A|B"`` (names sorted)."""
    coded = _encode(frame)
    n_cats, ones = len(coded.categories), _ones(len(coded.items))
    return {
        pair_key(x, y): float(_kappa_stat(coded.column(x), coded.column(y), n_cats)(ones)[0])
        for x, y in _pairs(coded)
    }


def kappa_against(frame: pd.DataFrame, reference: str) -> dict[str, float]:
    """Cohen's kappa of each other annotator against ``reference``, over the items both labelled."""
    coded = _encode(frame)
    ref, n_cats, ones = coded.column(reference), len(coded.categories), _ones(len(coded.items))
    return {
        name: float(_kappa_stat(ref, coded.column(name), n_cats)(ones)[0])
        for name in coded.annotators
        if name != reference
    }


# ---------------------------------------------------------------------------------------------------------
# Krippendorff's alpha and percent agreement


def _unit_coincidences(n_uc: np.ndarray) -> np.ndarray:
    """Each unit's contribution to o_ck: (n_uc n_uk - [c == k] n_uc) / (m_u - 1); zero when m_u < 2.

    ``n_uc`` is how many values c unit u received, ``m_u`` the number of values it received; a unit with
    fewer than two values holds no pair and is not pairable.
    """
    m_u = n_uc.sum(axis=1)
    pairs = n_uc[:, :, None] * n_uc[:, None, :] - n_uc[:, None, :] * np.eye(n_uc.shape[1], dtype=np.int64)
    with np.errstate(invalid="ignore", divide="ignore"):
        o_u = pairs / (m_u - 1)[:, None, None]
    return np.where((m_u >= 2)[:, None, None], o_u, 0.0)


def _alpha_nominal(o: np.ndarray) -> np.ndarray:
    """Krippendorff's alpha from coincidence matrices o_ck (..., V, V), nominal metric.

    n_c = sum_k o_ck, n = sum_c n_c, D_o = (1/n) sum_{c,k} o_ck delta_ck,
    D_e = 1/(n(n-1)) sum_{c,k} n_c n_k delta_ck, alpha = 1 - D_o / D_e, with delta_ck = [c != k].
    ``nan`` where D_e = 0: no pairable value (n = 0) or a single category.
    """
    delta = 1.0 - np.eye(o.shape[-1])
    n_c = o.sum(axis=-1)
    n = n_c.sum(axis=-1)
    with np.errstate(invalid="ignore", divide="ignore"):
        D_o = (o * delta).sum(axis=(-2, -1)) / n
        D_e = (n_c[..., :, None] * n_c[..., None, :] * delta).sum(axis=(-2, -1)) / (n * (n - 1))
        alpha = 1.0 - D_o / D_e
    return np.where(D_e > 0, alpha, math.nan)


def _profiles(coded: _Coded) -> tuple[np.ndarray, np.ndarray]:
    """The distinct value-count rows n_u (G x V) and each item's profile index: items alike count alike."""
    n_uc = coded.value_counts()
    if not len(n_uc):
        return np.zeros((0, len(coded.categories)), dtype=np.int64), np.zeros(0, dtype=np.int64)
    profiles, which = np.unique(n_uc, axis=0, return_inverse=True)
    return profiles, which.reshape(-1)


def _alpha_stat(coded: _Coded) -> Stat:
    profiles, which = _profiles(coded)
    n_cats = len(coded.categories)
    o_g = _unit_coincidences(profiles).reshape(len(profiles), n_cats * n_cats)

    def stat(weights: np.ndarray) -> np.ndarray:
        o = (_weighted_counts(weights, which, len(profiles)) @ o_g).reshape(len(weights), n_cats, n_cats)
        return _alpha_nominal(o)

    return stat


def _agreement_stat(coded: _Coded) -> Stat:
    """Agreeing pairs over all pairs, pooled over items; items with fewer than two labels hold no pair."""
    profiles, which = _profiles(coded)
    m_u = profiles.sum(axis=1)
    agreeing = (profiles * (profiles - 1)).sum(axis=1) / 2
    pairs = m_u * (m_u - 1) / 2

    def stat(weights: np.ndarray) -> np.ndarray:
        counts = _weighted_counts(weights, which, len(profiles))
        total = counts @ pairs
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.where(total > 0, (counts @ agreeing) / total, math.nan)

    return stat


def coincidence_matrix(frame: pd.DataFrame) -> pd.DataFrame:
    """Krippendorff's coincidence matrix o_ck (categories x categories) over the pairable items."""
    coded = _encode(frame)
    o = _unit_coincidences(coded.value_counts()).sum(axis=0)
    return pd.DataFrame(o, index=coded.categories, columns=coded.categories)


def krippendorff_alpha(frame: pd.DataFrame, *, level: Literal["nominal"] = "nominal") -> float:
    """Krippendorff's alpha over all annotators, missing labels allowed (items with < 2 labels are dropped).

    ``nan`` when undefined: fewer than two pairable values (one rater, empty frame) or one category only.
    The ``krippendorff`` package gives the same value and raises on the one-category case instead.
    """
    if level != "nominal":
        raise ValueError(f"unsupported level {level!r}: only 'nominal' is implemented")
    coded = _encode(frame)
    return float(_alpha_stat(coded)(_ones(len(coded.items)))[0])


def percent_agreement(frame: pd.DataFrame) -> float:
    """The share of agreeing pairs among all pairs of labels given to the same item, pooled over items.

    An item with m labels holds m(m-1)/2 pairs, so items count by their number of pairs; items with one
    label hold none. With two annotators this is kappa's observed agreement p_o. It differs, with missing
    labels, from the mean of per-item agreement and from alpha's 1 - D_o (items weighted by m). ``nan``
    when no item has two labels.
    """
    coded = _encode(frame)
    return float(_agreement_stat(coded)(_ones(len(coded.items)))[0])


# ---------------------------------------------------------------------------------------------------------
# Against a reference: confusion matrices and per-category scores


def _pair_labels(coded: _Coded, reference: str, annotator: str) -> tuple[list[str], list[str]]:
    """The two annotators' labels over the items both labelled, aligned by item."""
    ref, ann = coded.column(reference), coded.column(annotator)
    both = (ref >= 0) & (ann >= 0)
    names = np.array(coded.categories, dtype=object)
    return names[ref[both]].tolist(), names[ann[both]].tolist()


def _confusion_counts(
    coded: _Coded, reference: str, annotator: str, labels: Sequence[str] | None
) -> tuple[np.ndarray, list[str]]:
    y_ref, y_ann = _pair_labels(coded, reference, annotator)
    names = sorted(set(y_ref) | set(y_ann)) if labels is None else list(labels)
    ca, cb, names = _sequence_codes(y_ref, y_ann, names)
    counts = np.bincount(ca * len(names) + cb, minlength=len(names) ** 2).reshape(len(names), len(names))
    return counts, [str(n) for n in names]


def confusion_matrix(
    frame: pd.DataFrame, reference: str, annotator: str, *, labels: Sequence[str] | None = None
) -> pd.DataFrame:
    """Counts of items by (reference label, annotator label): reference labels as rows, over shared items.

    ``labels`` (default: the sorted labels either gave on those items) orders the rows and columns; items
    labelled outside them are left out, as in scikit-learn.
    """
    counts, names = _confusion_counts(_encode(frame), reference, annotator, labels)
    return _confusion_frame(counts, names, reference, annotator)


def _confusion_frame(counts: np.ndarray, names: list[str], reference: str, annotator: str) -> pd.DataFrame:
    return pd.DataFrame(
        counts,
        index=pd.Index(names, name=reference),
        columns=pd.Index(names, name=annotator),
    )


def category_scores(
    frame: pd.DataFrame, reference: str, annotator: str, *, labels: Sequence[str] | None = None
) -> pd.DataFrame:
    """Precision, recall and F1 of ``annotator`` per category, taking ``reference`` as the truth.

    One row per category (as in :func:`confusion_matrix`), columns ``precision``, ``recall``, ``f1``,
    ``support`` (items the reference put in the category). A ratio with a zero denominator is ``nan``
    (scikit-learn's ``zero_division=np.nan``); F1 = 2 tp / (2 tp + fp + fn).
    """
    return _scores_frame(*_confusion_counts(_encode(frame), reference, annotator, labels))


def _scores_frame(counts: np.ndarray, names: list[str]) -> pd.DataFrame:
    tp = np.diag(counts).astype(float)
    fp, fn = counts.sum(axis=0) - tp, counts.sum(axis=1) - tp
    with np.errstate(invalid="ignore", divide="ignore"):
        scores = {
            "precision": np.where(tp + fp > 0, tp / (tp + fp), math.nan),
            "recall": np.where(tp + fn > 0, tp / (tp + fn), math.nan),
            "f1": np.where(2 * tp + fp + fn > 0, 2 * tp / (2 * tp + fp + fn), math.nan),
        }
    return pd.DataFrame(
        {**scores, "support": (tp + fn).astype(np.int64)}, index=pd.Index(names, name="category")
    )


# ---------------------------------------------------------------------------------------------------------
# The report


def _json_float(value: float) -> float | None:
    return None if value is None or not math.isfinite(value) else float(value)


def _estimate(
    stat: Stat, n_items: int, weights: np.ndarray | None, ci: float
) -> tuple[float | None, list[float] | None]:
    value = _json_float(float(stat(_ones(n_items))[0]))
    interval = None if weights is None else percentile_interval(stat(weights), ci)
    return value, (None if interval is None else list(interval))


def _reference_block(coded: _Coded, reference: str, weights: np.ndarray | None, ci: float) -> dict[str, Any]:
    ref, n_cats, n_items = coded.column(reference), len(coded.categories), len(coded.items)
    kappa, kappa_ci, scores, confusion = {}, {}, {}, {}
    for name in coded.annotators:
        if name == reference:
            continue
        kappa[name], kappa_ci[name] = _estimate(
            _kappa_stat(ref, coded.column(name), n_cats), n_items, weights, ci
        )
        counts, names = _confusion_counts(coded, reference, name, None)
        table = _scores_frame(counts, names)
        scores[name] = {
            c: {k: (int(v) if k == "support" else _json_float(v)) for k, v in row.items()}
            for c, row in table.iterrows()
        }
        confusion[name] = {
            r: dict(zip(names, map(int, row), strict=True)) for r, row in zip(names, counts, strict=True)
        }
    return {
        "reference": reference,
        "kappa_against_reference": kappa,
        "kappa_against_reference_ci": kappa_ci,
        "category_scores": scores,
        "confusion_matrices": confusion,
    }


def agreement_report(
    frame: pd.DataFrame, *, reference: str | None = None, n_boot: int = 1000, seed: int = 0, ci: float = 0.95
) -> dict[str, Any]:
    """Every agreement statistic of a labels frame with bootstrap CIs, as JSON-native values.

    CIs resample the frame's items with replacement ``n_boot`` times (one seeded draw shared by all
    statistics, so they are computed on the same resampled item sets); each is the percentile interval
    of the replicates where the statistic is defined, ``None`` when none is (or ``n_boot`` is 0).
    Undefined statistics are ``None``. Pair keys are ``"A|B"`` with names sorted. With ``reference``,
    each other annotator's kappa against it (with CI), per-category scores and confusion matrices
    (reference labels as rows) are added.
    """
    if n_boot < 0:
        raise ValueError(f"n_boot must be >= 0, got {n_boot}")
    if not 0 < ci < 1:
        raise ValueError(f"ci must be between 0 and 1, got {ci}")
    coded = _encode(frame)
    n_items, n_cats = len(coded.items), len(coded.categories)
    if reference is not None:
        coded.column(reference)
    weights = bootstrap_weights(n_items, n_boot, seed).astype(float) if n_items and n_boot else None

    alpha, alpha_ci = _estimate(_alpha_stat(coded), n_items, weights, ci)
    agreement, agreement_ci = _estimate(_agreement_stat(coded), n_items, weights, ci)
    kappa, kappa_ci, shared = {}, {}, {}
    for x, y in _pairs(coded):
        key, first, second = pair_key(x, y), coded.column(x), coded.column(y)
        kappa[key], kappa_ci[key] = _estimate(_kappa_stat(first, second, n_cats), n_items, weights, ci)
        shared[key] = int(((first >= 0) & (second >= 0)).sum())
    report: dict[str, Any] = {
        "n_items": n_items,
        "n_annotators": len(coded.annotators),
        "n_labels": int((coded.table >= 0).sum()),
        "n_pairable_items": int(((coded.table >= 0).sum(axis=1) >= 2).sum()),
        "annotators": coded.annotators,
        "categories": coded.categories,
        "krippendorff_alpha": alpha,
        "krippendorff_alpha_ci": alpha_ci,
        "percent_agreement": agreement,
        "percent_agreement_ci": agreement_ci,
        "cohen_kappa": kappa,
        "cohen_kappa_ci": kappa_ci,
        "cohen_kappa_n_items": shared,
        "bootstrap": {"n_boot": n_boot, "seed": seed, "ci": ci, "unit": "item", "method": "percentile"},
    }
    if reference is not None:
        report.update(_reference_block(coded, reference, weights, ci))
    return report

"""Agreement of one annotator with careful human labels (a gold file), as a report: Cohen's kappa with a
bootstrap interval over all items and over the clear ones, percent agreement, per-category precision / recall /
F1, the confusion matrix, and every disagreeing item with both labels' evidence side by side.

A gold file (``gold_labels.csv`` beside the Workspace-Bench and OfficeQA runs, format in their
``GOLD_LABELS.md``) has one row per failed rubric item: ``run`` (the run folder, the trajectory id without its
harness prefix), ``rubric_index`` (absent for a benchmark with one scored item per run, as OfficeQA: index 0),
``category``, ``subreason`` (under ``other``), ``clear`` (``false`` when a careful second annotator could
reasonably choose another category), and the gold annotator's evidence: ``step``, ``path``, ``excerpt``,
``deliverable_has`` (OfficeQA: ``answer_has``, ``ground_truth``) and ``reasoning``.

The annotator's labels are a long-form labels table (:data:`rtlab.annotation._annotators.LABEL_COLUMNS`: the
rules', an LLM's, a file's); several annotators given as one (the samples of an LLM) are reduced to their
majority per item (:func:`majority_labels`). Items are matched by run and rubric index: a gold run ``R`` is
the trajectory ``R`` or ``<harness>:R``.

The report can be split into groups (``by``: the task, the run, the deciding rule) with kappa, agreement and
counts per group, and it always says, where the labels name the rule that decided each item (the rules'
labels do: :data:`rtlab.annotation._annotators.OPTIONAL_LABEL_COLUMNS`), how many items each rule decided and
its precision on the gold. Kappa is scikit-learn's throughout: undefined (``nan``) where chance agreement is
certain, i.e. where both sides give one and the same class to every item of a group.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rtlab.analysis import CATEGORIES, bootstrap_weights, load_codebook, percentile_interval
from rtlab.annotation._agreement import _confusion_frame, _kappa_stat, _scores_frame, _sequence_codes
from rtlab.annotation._annotators import NON_LABELS
from rtlab.annotation._labelfile import read_label_file

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

GOLD = "gold"
"""The annotator name the gold labels carry in a report."""
GOLD_REQUIRED = ("run", "category", "clear")
"""Columns a gold file must have (``rubric_index`` defaults to 0, the rest to empty)."""
GOLD_EXTRA_SUBREASONS = ("other",)
"""Sub-reasons of ``other`` a gold file may use beyond the codebook's (``GOLD_LABELS.md`` lists ``other``)."""
_TRUE, _FALSE = ("true", "1", "yes"), ("false", "0", "no")
Level = Literal["category", "subreason"]
"""What is compared: the category, or the category with ``other`` split by sub-reason (``other/<sub>``)."""
By = Literal["task", "run", "rule"]
"""How a report is split (``agree_with_gold(..., by=...)``): by the trajectory's task (a Workspace-Bench task,
an OfficeQA question: ``Trajectory.task_id``, the labels' ``task_id``), by the gold's run, or by the rule
that decided the item (the labels' ``rule``)."""
GROUPINGS: tuple[By, ...] = ("task", "run", "rule")
"""The values of :data:`By`."""
UNDETERMINED = "undetermined"
"""The sub-reason of ``other`` with which a rule abstains: its items are not counted as decided."""
UNKNOWN_GROUP = "(unknown)"
"""The group of a gold item whose task or rule the labels do not give (an item no one labelled)."""


def read_gold_labels(path: str | Path) -> pd.DataFrame:
    """A gold file as a frame: ``item`` (``<run>#<rubric index>``), ``run``, ``rubric_index``, ``label`` (the
    category), ``subreason``, ``clear`` (bool), ``evidence`` (the gold's step, path, excerpt and what the
    deliverable has, as one line of text) and ``rationale`` (its reasoning).

    Errors (:class:`rtlab.errors.ReaderError`) name the file, the line and the column: a missing column, an
    unknown category or sub-reason, a ``clear`` that is neither true nor false, a non-integer rubric index, an
    item labelled twice.
    """
    import pandas as pd

    table = read_label_file(path)
    columns = table.columns
    for col in GOLD_REQUIRED:
        if col not in columns:
            raise table.error(f"missing column {col!r}; columns are {columns}", column=col)
    subreasons = (*load_codebook().subreasons, *GOLD_EXTRA_SUBREASONS)
    frame = table.frame.astype(object)
    rows: list[dict[str, Any]] = []
    seen: dict[str, int] = {}
    for n, raw in enumerate(frame.to_dict("records")):
        row = {
            k: ("" if v is None or (isinstance(v, float) and math.isnan(v)) else str(v).strip())
            for k, v in raw.items()
        }
        run = row["run"]
        if not run:
            raise table.error("empty run", rows=(n,), column="run")
        try:
            index = int(row.get("rubric_index") or 0)
        except ValueError:
            raise table.error(
                f"rubric_index must be an integer, got {row['rubric_index']!r}",
                rows=(n,),
                column="rubric_index",
            ) from None
        category, subreason = row["category"], row.get("subreason") or None
        if category not in CATEGORIES:
            raise table.error(
                f"category {category!r} is not one of {list(CATEGORIES)}", rows=(n,), column="category"
            )
        if subreason is not None and (category != "other" or subreason not in subreasons):
            raise table.error(
                f"subreason {subreason!r} does not fit category {category!r} (under 'other': {list(subreasons)})",
                rows=(n,),
                column="subreason",
            )
        clear = row["clear"].lower()
        if clear not in (*_TRUE, *_FALSE):
            raise table.error(f"clear must be true or false, got {row['clear']!r}", rows=(n,), column="clear")
        key = f"{run}#{index}"
        if key in seen:
            raise table.error(f"item {key!r} labelled twice", rows=(seen[key], n), column="run")
        seen[key] = n
        rows.append(
            {
                "item": key,
                "run": run,
                "rubric_index": index,
                "label": category,
                "subreason": subreason,
                "clear": clear in _TRUE,
                "evidence": _gold_evidence(row),
                "rationale": row.get("reasoning", ""),
            }
        )
    columns_out = ["item", "run", "rubric_index", "label", "subreason", "clear", "evidence", "rationale"]
    out = pd.DataFrame(rows, columns=columns_out)
    out["subreason"] = pd.Series(
        [r["subreason"] for r in rows], index=out.index, dtype=object
    )  # None, not NaN
    return out


def _gold_evidence(row: dict[str, str]) -> str:
    """The gold row's evidence as one line: ``step 3 path: excerpt; delivered: ...; truth: ...``."""
    parts = []
    where = " ".join(x for x in (f"step {row['step']}" if row.get("step") else "", row.get("path", "")) if x)
    if where or row.get("excerpt"):
        parts.append(f"{where}: {row.get('excerpt', '')}".strip(": ").strip())
    has = row.get("deliverable_has") or row.get("answer_has")
    if has:
        parts.append(f"delivered: {has}")
    if row.get("ground_truth"):
        parts.append(f"truth: {row['ground_truth']}")
    return "; ".join(parts)


# ---------------------------------------------------------------------------------------------------------
# The annotator's side


def read_annotator_labels(path: str | Path) -> pd.DataFrame:
    """An annotator's labels file: long form with an ``item`` column, as ``rtlab annotate`` writes it
    (:func:`rtlab.annotation._agreement.load_labels`; non-labels such as ``unparsable`` allowed, they are no
    votes), a gold file (``run``, ``category``, ``clear``: :func:`read_gold_labels`, as annotator ``gold``),
    else a human label file keyed by ``trajectory`` and ``rubric_index``
    (:func:`rtlab.annotation._annotators.read_human_labels`)."""
    from rtlab.annotation._agreement import load_labels
    from rtlab.annotation._annotators import read_human_labels

    columns = read_label_file(path).columns
    if "item" in columns:
        return load_labels(path)
    if {"run", "category", "clear"} <= set(columns):  # a gold file (GOLD_LABELS.md's format)
        return read_gold_labels(path).assign(annotator=GOLD, codebook_version=None)
    return read_human_labels(path)


def annotator_names(labels: pd.DataFrame, name: str) -> list[str]:
    """The annotators of ``labels`` that ``name`` stands for: ``name`` itself, or every ``name:…`` (``llm``
    stands for every ``llm:<model>:<prompt>:s<n>``, ``llm:gpt-x`` for that model's prompts and samples)."""
    found = sorted(
        a for a in labels["annotator"].astype(str).unique() if a == name or a.startswith(name + ":")
    )
    if not found:
        known = ", ".join(sorted(labels["annotator"].astype(str).unique())) or "none"
        raise ValueError(f"no annotator {name!r} in the labels (annotators: {known})")
    return found


def majority_labels(labels: pd.DataFrame, annotators: Sequence[str], *, name: str) -> pd.DataFrame:
    """One label per item: the most frequent label the ``annotators`` gave it (non-labels — unparsable,
    refused, failed — are no votes), as annotator ``name``. A tie goes to the codebook's category order
    (:data:`rtlab.analysis.CATEGORIES`), then to the sub-reason given most often; the rationale and evidence
    are those of the first annotator (in ``annotators`` order) who gave the winning label. Columns as the
    input's; an item with no vote has no row."""
    import pandas as pd

    mine = labels[labels["annotator"].isin(list(annotators)) & ~labels["label"].isin(NON_LABELS)]
    order = {a: i for i, a in enumerate(annotators)}
    rank = {c: i for i, c in enumerate(CATEGORIES)}
    rows = []
    for _, group in mine.groupby("item", sort=True):
        group = group.sort_values("annotator", key=lambda s: s.map(order))
        votes = Counter(group["label"])
        best = min(votes, key=lambda c: (-votes[c], rank.get(c, len(rank)), c))
        winners = group[group["label"] == best]
        subs = Counter(
            s for s in winners.get("subreason", pd.Series(dtype=object)) if isinstance(s, str) and s
        )
        row = winners.iloc[0].to_dict()
        if subs:
            row["subreason"] = min(subs, key=lambda s: (-subs[s], s))
        rows.append({**row, "annotator": name, "votes": f"{votes[best]}/{sum(votes.values())}"})
    return pd.DataFrame(rows, columns=[*labels.columns, "votes"])


def one_annotator(labels: pd.DataFrame, annotator: str | None) -> tuple[str, pd.DataFrame]:
    """``annotator``'s labels of ``labels`` (long form), one per item: its own rows, or the majority of the
    annotators its name stands for (:func:`annotator_names`, :func:`majority_labels`); default the only
    annotator. Non-labels (unparsable, refused, failed) are left out. Returns the name and the rows."""
    names = sorted(labels["annotator"].astype(str).unique())
    if annotator is None:
        if len(names) != 1:
            raise ValueError(f"the labels hold several annotators, name one: {', '.join(names) or 'none'}")
        annotator = names[0]
    chosen = annotator_names(labels, annotator)
    mine = (
        labels[labels["annotator"] == chosen[0]]
        if len(chosen) == 1
        else majority_labels(labels, chosen, name=annotator)
    )
    return annotator, mine[~mine["label"].isin(NON_LABELS)]


def _split_item(item: str) -> tuple[str, int]:
    trajectory, _, index = item.rpartition("#")
    try:
        return trajectory, int(index)
    except ValueError:
        raise ValueError(f"item {item!r} is not <trajectory>#<rubric index>") from None


def _same_run(trajectory: str, run: str) -> bool:
    return trajectory == run or trajectory.endswith(":" + run)


def _render_evidence(evidence: Any, limit: int = 2) -> str:
    """A label's evidence (JSON text or a list of ``{step, path, excerpt}``), its first entries on one line."""
    if isinstance(evidence, str):
        try:
            evidence = json.loads(evidence)
        except ValueError:
            return evidence
    if not isinstance(evidence, list):
        return (
            ""
            if evidence is None or (isinstance(evidence, float) and math.isnan(evidence))
            else str(evidence)
        )
    parts = []
    for e in evidence[:limit]:
        if not isinstance(e, dict):
            parts.append(str(e))
            continue
        where = "deliverable" if e.get("step") is None else f"step {e.get('step')}"
        path = f" {e['path']}" if e.get("path") else ""
        parts.append(f"{where}{path}: {e.get('excerpt', '')}")
    more = f" (+{len(evidence) - limit} more)" if len(evidence) > limit else ""
    return " | ".join(parts) + more


# ---------------------------------------------------------------------------------------------------------
# The report


@dataclass
class GoldAgreement:
    """An annotator against gold labels: every table of the report (:func:`agree_with_gold`)."""

    annotator: str
    """The annotator's name (``rules``, ``llm``, a file's annotator)."""
    level: Level
    """What was compared (:data:`Level`)."""
    items: pd.DataFrame
    """One row per gold item: ``item`` (the annotator's key where it labelled it), ``run``, ``rubric_index``,
    ``clear``, ``gold``, ``gold_subreason``, ``label``, ``subreason`` (the annotator's; missing where it gave
    none), ``agree``, ``gold_evidence``, ``evidence``, ``gold_rationale``, ``rationale``, ``codebook_version``,
    ``task_id`` (the run's task, from any annotator's labels of the run; missing where none gives it), ``rule``
    and ``confidence`` (the annotator's, where its labels carry them; else ``None``), ``decided`` (labelled,
    and not ``other/undetermined``: the annotator did not abstain)."""
    summary: pd.DataFrame
    """One row per subset (``all``, ``clear``): ``n_gold``, ``n`` (items both labelled), ``agreement``
    (percent agreement, p_o), ``kappa``, ``kappa_low``, ``kappa_high`` (bootstrap percentile interval over
    items)."""
    scores: pd.DataFrame
    """Per subset and category: ``precision``, ``recall``, ``f1`` of the annotator taking gold as the truth,
    ``support`` (gold items in the category)."""
    confusion: pd.DataFrame
    """Counts over all items both labelled: gold labels as rows, the annotator's as columns."""
    bootstrap: dict[str, Any]
    """``n_boot``, ``seed``, ``ci``: how the intervals were drawn (items resampled with replacement)."""
    by: By | None = None
    """How :attr:`groups` splits the items; ``None``: not split."""
    groups: pd.DataFrame | None = None
    """With :attr:`by`, one row per group (tasks, runs or rules in natural order; :data:`UNKNOWN_GROUP` last):
    ``group``, ``n_gold``, ``n`` (items both labelled), ``agree`` (how many of them agree), ``agreement``,
    ``kappa``, ``n_clear``, ``agreement_clear``, ``kappa_clear`` (the same over the clear items), and ``note``:
    why the group's kappa is undefined (``nan``: both sides give one class) or 0 by construction (one side
    gives one class), then that of its clear items after ``clear:`` where it differs; empty when neither is.
    ``None`` without :attr:`by`."""
    rules: pd.DataFrame | None = None
    """Where the labels name the deciding rule, one row per rule (natural order): ``rule``, ``labels`` (what
    it labelled: the categories, ``other/<sub-reason>``, with counts), ``items`` (gold items it labelled),
    ``abstained`` (of them labelled ``other/undetermined``), ``decided`` (the rest), ``correct`` (decided
    items whose gold category is the rule's category), ``precision`` (``correct / decided``; ``nan`` when it
    decided none) and ``low`` (decided items of ``low`` confidence; ``nan`` where the labels give no
    confidence). ``None`` when the labels carry no ``rule``."""

    @property
    def disagreements(self) -> pd.DataFrame:
        """The items the two label differently, both labels' evidence side by side."""
        return self.items[self.items["label"].notna() & ~self.items["agree"].astype(bool)]

    @property
    def unlabelled(self) -> pd.DataFrame:
        """Gold items the annotator gave no label."""
        return self.items[self.items["label"].isna()]

    def to_dict(self) -> dict[str, Any]:
        """The report as JSON-native values (``nan`` as ``None``)."""

        def clean(value: Any) -> Any:
            if isinstance(value, float) and not math.isfinite(value):
                return None
            if hasattr(value, "item"):  # numpy scalars
                return clean(value.item())
            return value

        def records(frame: pd.DataFrame) -> list[dict[str, Any]]:
            return [{k: clean(v) for k, v in r.items()} for r in frame.to_dict("records")]

        return {
            "annotator": self.annotator,
            "level": self.level,
            "summary": records(self.summary),
            "scores": records(self.scores),
            "confusion": {
                str(r): {str(c): int(v) for c, v in row.items()} for r, row in self.confusion.iterrows()
            },
            "disagreements": records(self.disagreements),
            "unlabelled": self.unlabelled["item"].tolist(),
            "bootstrap": self.bootstrap,
            "by": self.by,
            "groups": None if self.groups is None else records(self.groups),
            "rules": None if self.rules is None else records(self.rules),
        }

    def describe(self) -> str:
        """The report as text: summary, scores, confusion matrix, then each disagreement."""
        lines = [f"{self.annotator} against {GOLD} ({self.level})"]
        for r in self.summary.to_dict("records"):
            ci = (
                f"[{r['kappa_low']:.3f}, {r['kappa_high']:.3f}]"
                if isinstance(r["kappa_low"], float) and math.isfinite(r["kappa_low"])
                else "[n/a]"
            )
            lines.append(
                f"  {r['subset']:<5} {r['n']:>4} of {r['n_gold']:>4} items  agreement {r['agreement']:.3f}  "
                f"kappa {r['kappa']:.3f} {ci}"
            )
        lines += ["", "per category (all items):"]
        all_scores = self.scores[self.scores["subset"] == "all"].drop(columns="subset")
        lines.append(all_scores.to_string(float_format=lambda v: f"{v:.3f}"))
        lines += ["", "confusion (gold rows, annotator columns):", self.confusion.to_string(), ""]
        if self.groups is not None:
            lines += [f"per {self.by} ({len(self.groups)} groups; n/a: kappa undefined, see note):"]
            lines += [_table(self.groups), ""]
        if self.rules is not None:
            lines += [
                "per rule (decided: labelled other than other/undetermined; precision: share of decided items "
                "whose gold category is the rule's):",
                _table(self.rules),
                "",
            ]
        dis = self.disagreements
        lines.append(f"{len(dis)} disagreements:")
        for r in dis.to_dict("records"):
            g = r["gold"] + (f"/{r['gold_subreason']}" if isinstance(r["gold_subreason"], str) else "")
            a = r["label"] + (
                f"/{r['subreason']}" if isinstance(r["subreason"], str) and r["subreason"] else ""
            )
            mark = "" if r["clear"] else " (unclear)"
            lines.append(f"- {r['run']} #{r['rubric_index']}{mark}: gold {g}, {self.annotator} {a}")
            lines.append(f"    gold:  {r['gold_evidence']} — {r['gold_rationale']}")
            lines.append(f"    {self.annotator}: {r['evidence']} — {r['rationale']}")
        if len(self.unlabelled):
            lines.append(
                f"{len(self.unlabelled)} gold items not labelled: {', '.join(self.unlabelled['item'])}"
            )
        return "\n".join(lines)


def _table(frame: pd.DataFrame) -> str:
    """A group or rule table as text: three decimals, ``n/a`` for an undefined value."""
    return frame.to_string(index=False, na_rep="n/a", float_format=lambda v: f"{v:.3f}")


def _text(value: Any) -> str | None:
    """A label's optional field as text; ``None`` for a missing one (``None``, NaN, empty)."""
    if value is None or (isinstance(value, float) and math.isnan(value)) or value == "":
        return None
    return str(value)


def _natural(key: str) -> tuple[Any, ...]:
    """Sort key putting ``R2`` before ``R10`` and ``oqa-9`` before ``oqa-16``; :data:`UNKNOWN_GROUP` last."""
    parts = re.split(r"(\d+)", key)
    return (key == UNKNOWN_GROUP, *[(0, int(p), "") if p.isdigit() else (1, 0, p) for p in parts])


def _codes(part: pd.DataFrame, categories: Sequence[str]) -> tuple[np.ndarray, np.ndarray, list[Any]]:
    """The compared gold and annotator labels of the items of ``part`` both labelled, as codes."""
    both = part[part["_label"].notna()]
    return _sequence_codes(both["_gold"].tolist(), both["_label"].tolist(), categories)


def _kappa(ca: np.ndarray, cb: np.ndarray, n_cats: int) -> float:
    """Cohen's kappa of two code columns, scikit-learn's: ``nan`` when no item or chance agreement is 1."""
    import numpy as np

    return float(_kappa_stat(ca, cb, n_cats)(np.ones((1, len(ca))))[0]) if len(ca) else math.nan


def _kappa_note(ca: np.ndarray, cb: np.ndarray, order: Sequence[Any], annotator: str) -> str:
    """Why a group's kappa is undefined or 0 by construction; empty when it is neither.

    Kappa = 1 - sum_{c!=k} C_ck / sum_{c!=k} E_ck (scikit-learn). Both sides one class c: C and E hold only
    cell (c, c), 0/0, undefined. One side one class k, the other not: the off-diagonal of E is the other
    side's items outside k, as is that of C, so kappa = 1 - 1 = 0 whatever the agreement.
    """
    if not len(ca):
        return "no item labelled by both"
    gold, mine = sorted(set(ca.tolist())), sorted(set(cb.tolist()))
    if len(gold) == 1 and gold == mine:
        return f"undefined: both all {order[gold[0]]}"
    if len(gold) == 1:
        return f"0 by construction: {GOLD} all {order[gold[0]]}"
    if len(mine) == 1:
        return f"0 by construction: {annotator} all {order[mine[0]]}"
    return ""


def _group_note(
    ca: np.ndarray,
    cb: np.ndarray,
    clear: tuple[np.ndarray, np.ndarray, list[Any]],
    order: Sequence[Any],
    annotator: str,
) -> str:
    """:func:`_kappa_note` of a group's items, then, where it differs and the group has clear items, that of
    its clear items after ``clear:``."""
    note = _kappa_note(ca, cb, order, annotator)
    clear_note = _kappa_note(clear[0], clear[1], order, annotator) if len(clear[0]) else ""
    return "; ".join(x for x in (note, f"clear: {clear_note}" if clear_note not in ("", note) else "") if x)


def _groups(items: pd.DataFrame, by: By, categories: Sequence[str], annotator: str) -> pd.DataFrame:
    """The per-group table of :attr:`GoldAgreement.groups`."""
    import pandas as pd

    column = {"task": "task_id", "run": "run", "rule": "rule"}[by]
    part = items if by != "rule" else items[items["_label"].notna()]  # an unlabelled item has no rule
    keys = part[column].map(lambda v: _text(v) or UNKNOWN_GROUP)
    rows = []
    for key in sorted(set(keys), key=_natural):
        group = part[keys == key]
        ca, cb, order = _codes(group, categories)
        clear = _codes(group[group["clear"]], categories)
        rows.append(
            {
                "group": key,
                "n_gold": len(group),
                "n": len(ca),
                "agree": int((ca == cb).sum()),
                "agreement": float((ca == cb).mean()) if len(ca) else math.nan,
                "kappa": _kappa(ca, cb, len(order)),
                "n_clear": len(clear[0]),
                "agreement_clear": float((clear[0] == clear[1]).mean()) if len(clear[0]) else math.nan,
                "kappa_clear": _kappa(clear[0], clear[1], len(order)),
                "note": _group_note(ca, cb, clear, order, annotator),
            }
        )
    columns = ["group", "n_gold", "n", "agree", "agreement", "kappa", "n_clear", "agreement_clear"]
    return pd.DataFrame(rows, columns=[*columns, "kappa_clear", "note"])


def _rules(items: pd.DataFrame, with_confidence: bool) -> pd.DataFrame:
    """The per-rule table of :attr:`GoldAgreement.rules`."""
    import pandas as pd

    labelled = items[items["label"].notna() & items["rule"].notna()]
    rows = []
    for rule in sorted(set(labelled["rule"]), key=_natural):
        mine = labelled[labelled["rule"] == rule]
        shown = mine.apply(
            lambda r: r["label"] + (f"/{r['subreason']}" if r["label"] == "other" and r["subreason"] else ""),
            axis=1,
        )
        abstained = ~mine["decided"].astype(bool)
        decided = mine[~abstained]
        correct = int((decided["label"] == decided["gold"]).sum())
        rows.append(
            {
                "rule": rule,
                "labels": ", ".join(f"{k} {v}" for k, v in Counter(shown).most_common()),
                "items": len(mine),
                "abstained": int(abstained.sum()),
                "decided": len(decided),
                "correct": correct,
                "precision": correct / len(decided) if len(decided) else math.nan,
                "low": int((decided["confidence"] == "low").sum()) if with_confidence else math.nan,
            }
        )
    columns = ["rule", "labels", "items", "abstained", "decided", "correct", "precision", "low"]
    return pd.DataFrame(rows, columns=columns)


def _compared(label: Any, subreason: Any, level: Level) -> Any:
    if not isinstance(label, str):
        return None
    if level == "subreason" and label == "other":
        return f"other/{subreason}" if isinstance(subreason, str) and subreason else "other"
    return label


def agree_with_gold(
    gold: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    annotator: str | None = None,
    level: Level = "category",
    n_boot: int = 1000,
    seed: int = 0,
    ci: float = 0.95,
    by: By | None = None,
) -> GoldAgreement:
    """The report of ``labels`` (long form; ``annotator``: which of its annotators, all of them by majority
    when the name stands for several, see :func:`annotator_names`; default: the only one) against ``gold``
    (:func:`read_gold_labels`).

    Kappa's interval resamples the gold items with replacement ``n_boot`` times (one seeded draw,
    :func:`rtlab.analysis.bootstrap_weights`) and is the ``ci`` percentile interval of the replicates where
    kappa is defined. Items the annotator did not label are left out of every statistic and listed in
    :attr:`GoldAgreement.unlabelled`; an annotator's item no gold row names is ignored.

    ``by`` splits the items into groups (:attr:`GoldAgreement.groups`): ``task`` needs the run's task id in
    the labels (``task_id``: the rules' labels carry it, and another annotator's items take it from them when
    ``labels`` holds both), ``rule`` the deciding rule (``rule``). The per-rule table
    (:attr:`GoldAgreement.rules`) is there whenever the annotator's labels carry ``rule``.
    """
    import numpy as np
    import pandas as pd

    if level not in ("category", "subreason"):
        raise ValueError(f"level must be 'category' or 'subreason', got {level!r}")
    if n_boot < 0 or not 0 < ci < 1:
        raise ValueError(f"need n_boot >= 0 and 0 < ci < 1, got {n_boot}, {ci}")
    if by is not None and by not in GROUPINGS:
        raise ValueError(f"by must be one of {list(GROUPINGS)}, got {by!r}")
    runs = gold["run"].unique().tolist()
    task_of: dict[str, str] = {}  # gold run -> task, from any annotator's labels of it
    if "task_id" in labels.columns:
        tasks = {  # each trajectory's task once (an LLM's samples repeat every item)
            _split_item(item)[0]: task
            for item, task in zip(
                labels["item"].astype(str), [_text(v) for v in labels["task_id"]], strict=True
            )
            if task is not None
        }
        for trajectory, task in tasks.items():
            for run in runs:
                if _same_run(trajectory, run):
                    task_of.setdefault(run, task)
    annotator, mine = one_annotator(labels, annotator)
    mine = mine.copy()
    has_rule = "rule" in mine.columns and mine["rule"].map(_text).notna().any()
    if by == "rule" and not has_rule:
        raise ValueError(
            f"grouping by rule needs labels that name the deciding rule (a 'rule' column): {annotator}'s "
            "name none"
        )
    if by == "task" and not task_of:
        raise ValueError(
            "grouping by task needs the runs' task ids (a 'task_id' column: the rules' labels carry it, "
            "a labels file needs one)"
        )
    if "subreason" not in mine.columns:
        mine["subreason"] = None
    split = mine["label"].astype(str).str.startswith("other/")  # a file's ``other/<sub-reason>``
    mine.loc[split, "subreason"] = mine.loc[split, "label"].str.split("/", n=1).str[1]
    mine.loc[split, "label"] = "other"
    by_run: dict[tuple[str, int], dict[str, Any]] = {}
    for row in mine.to_dict("records"):
        trajectory, index = _split_item(str(row["item"]))
        matches = [r for r in runs if _same_run(trajectory, r)]
        for run in matches:
            if (run, index) in by_run and by_run[(run, index)]["item"] != row["item"]:
                raise ValueError(
                    f"gold run {run!r} matches two labelled items: {by_run[(run, index)]['item']!r} and "
                    f"{row['item']!r}"
                )
            by_run[(run, index)] = row
    rows = []
    for g in gold.to_dict("records"):
        a = by_run.get((g["run"], int(g["rubric_index"])), {})
        gold_label = _compared(g["label"], g["subreason"], level)
        label = _compared(a.get("label"), a.get("subreason"), level)
        sub = a.get("subreason")
        rows.append(
            {
                "item": a.get("item", g["item"]),
                "run": g["run"],
                "rubric_index": int(g["rubric_index"]),
                "clear": bool(g["clear"]),
                "gold": g["label"],
                "gold_subreason": g["subreason"] if isinstance(g["subreason"], str) else None,
                "label": a.get("label"),
                "subreason": sub if isinstance(sub, str) and sub else None,
                "agree": label is not None and label == gold_label,
                "gold_evidence": g["evidence"],
                "evidence": _render_evidence(a.get("evidence")) if a else "",
                "gold_rationale": g["rationale"],
                "rationale": a.get("rationale") or "",
                "codebook_version": a.get("codebook_version"),
                "task_id": task_of.get(g["run"]),
                "rule": _text(a.get("rule")),
                "confidence": _text(a.get("confidence")),
                "decided": label is not None and not (a.get("label") == "other" and sub == UNDETERMINED),
                "_gold": gold_label,
                "_label": label,
            }
        )
    items = pd.DataFrame(rows)
    categories = (
        list(CATEGORIES)
        if level == "category"
        else sorted({*items["_gold"].dropna(), *items["_label"].dropna()})
    )
    summary, scores, confusion = [], [], None
    for subset, part in (("all", items), ("clear", items[items["clear"]] if len(items) else items)):
        ca, cb, order = _codes(part, categories)
        stat = _kappa_stat(ca, cb, len(order))
        kappa = _kappa(ca, cb, len(order))
        interval = None
        if len(ca) and n_boot:
            interval = percentile_interval(stat(bootstrap_weights(len(ca), n_boot, seed).astype(float)), ci)
        agreement = float((ca == cb).mean()) if len(ca) else math.nan
        summary.append(
            {
                "subset": subset,
                "n_gold": len(part),
                "n": len(ca),
                "agreement": agreement,
                "kappa": kappa,
                "kappa_low": interval[0] if interval else math.nan,
                "kappa_high": interval[1] if interval else math.nan,
            }
        )
        counts = np.bincount(ca * len(order) + cb, minlength=len(order) ** 2).reshape(len(order), len(order))
        table = _scores_frame(counts, [str(c) for c in order]).reset_index()
        scores.append(table.assign(subset=subset))
        if subset == "all":
            confusion = _confusion_frame(counts, [str(c) for c in order], GOLD, annotator)
    assert confusion is not None
    score_frame = pd.concat(scores, ignore_index=True)[
        ["subset", "category", "precision", "recall", "f1", "support"]
    ]
    return GoldAgreement(
        annotator=annotator,
        level=level,
        items=items.drop(columns=["_gold", "_label"]),
        summary=pd.DataFrame(summary),
        scores=score_frame,
        confusion=confusion,
        bootstrap={"n_boot": n_boot, "seed": seed, "ci": ci, "unit": "item", "method": "percentile"},
        by=by,
        groups=None if by is None else _groups(items, by, categories, annotator),
        rules=_rules(items, "confidence" in mine.columns) if has_rule else None,
    )

"""Any annotator's labels in the diagnosis's shape, so that :func:`rtlab.analysis.breakdown`, the figures and
the CLI read LLM and human labels exactly as they read the rule labels.

:func:`rtlab.analysis.diagnose_frame` gives one row per failed rubric item with its grouping columns (task,
benchmark, model, method, variant, run). :func:`annotator_diagnosis` keeps those rows and puts another
annotator's label on each (the majority of its samples when the name stands for several, e.g. ``llm``);
:func:`compare_breakdowns` sets the breakdowns of several annotators side by side, one ``annotator`` column.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from rtlab.analysis import breakdown
from rtlab.annotation._gold import GoldAgreement, _same_run, _split_item, one_annotator
from rtlab.records import item_key

if TYPE_CHECKING:
    import pandas as pd

    from rtlab.records import Trajectory


def _evidence(value: Any) -> list[dict[str, Any]]:
    """A label's evidence as the diagnosis holds it (a list of dicts): a long-form table keeps it as JSON
    text, a gold file as one line of prose (kept as ``{"text": ...}``)."""
    if isinstance(value, list):
        return value
    if not isinstance(value, str) or not value.strip():
        return []
    try:
        parsed = json.loads(value)
    except ValueError:
        return [{"text": value}]
    if isinstance(parsed, list):
        return [e if isinstance(e, dict) else {"text": str(e)} for e in parsed]
    return [parsed if isinstance(parsed, dict) else {"text": str(parsed)}]


def annotator_diagnosis(
    diagnosis: pd.DataFrame,
    labels: pd.DataFrame,
    *,
    annotator: str | None = None,
    missing: Literal["drop", "keep"] = "drop",
) -> pd.DataFrame:
    """The rows of ``diagnosis`` (:func:`rtlab.analysis.diagnose_frame`: every failed rubric item with its
    grouping columns) labelled by ``annotator`` of ``labels`` instead of by the rules.

    ``labels`` is long form (``item``, ``annotator``, ``label``, ``subreason``, ``rationale``, ``evidence``:
    what ``rtlab annotate`` writes, :func:`rtlab.annotation.read_annotator_labels` reads) or a gold file
    (:func:`rtlab.annotation.read_gold_labels`, whose items name runs: a run matches the trajectory of that
    id or whose id ends in ``:<run>``). ``annotator``: which annotator (a prefix such as ``llm`` stands for all
    its samples, reduced to their majority by :func:`majority_labels`); default the only one (a gold file has
    one). Non-labels (unparsable, refused, failed) are no labels.

    The result has ``diagnosis``'s columns; ``category``, ``subreason``, ``rule`` (``None``: not a rule),
    ``codebook_version``, ``rationale``, ``evidence`` and ``n_evidence`` are the annotator's, and a column
    ``annotator`` names it. Failed items it did not label are dropped (``missing="drop"``: a breakdown of its
    labels is over the items it labelled) or kept with ``category`` ``None`` (``"keep"``). Its labels of items
    that are not failed items of ``diagnosis`` are ignored.
    """
    import pandas as pd

    if missing not in ("drop", "keep"):
        raise ValueError(f"missing must be 'drop' or 'keep', got {missing!r}")
    if "annotator" not in labels.columns:  # a gold file: one annotator
        labels = labels.assign(annotator="gold")
    annotator, mine = one_annotator(labels, annotator)
    keys = [
        item_key(t, int(i)) for t, i in zip(diagnosis["trajectory"], diagnosis["rubric_index"], strict=True)
    ]
    by_item: dict[str, dict[str, Any]] = {}
    trajectories = sorted(set(diagnosis["trajectory"].astype(str)))
    for row in mine.to_dict("records"):
        item = str(row["item"])
        if item in by_item:
            raise ValueError(f"annotator {annotator!r} labels item {item!r} twice")
        by_item[item] = row
        run, index = _split_item(item)
        for t in trajectories:  # a gold file's run names the trajectory by its id's tail
            if t != run and _same_run(t, run):
                by_item.setdefault(item_key(t, index), row)
    rows = []
    for key, base in zip(keys, diagnosis.to_dict("records"), strict=True):
        found = by_item.get(key)
        if found is None:
            if missing == "keep":
                rows.append(
                    {**base, "category": None, "subreason": None, "rule": None, "annotator": annotator}
                )
            continue
        category, subreason = str(found["label"]), found.get("subreason")
        if category.startswith("other/"):  # a file's ``other/<sub-reason>``
            category, subreason = "other", category.split("/", 1)[1]
        evidence = _evidence(found.get("evidence"))
        rows.append(
            {
                **base,
                "category": category,
                "subreason": subreason if isinstance(subreason, str) and subreason else None,
                "rule": None,
                "codebook_version": found.get("codebook_version"),
                "rationale": found.get("rationale") or "",
                "evidence": evidence,
                "n_evidence": len(evidence),
                "annotator": annotator,
            }
        )
    out = pd.DataFrame(rows, columns=[*diagnosis.columns, "annotator"])
    for column in ("category", "subreason", "rule"):  # None, not NaN
        out[column] = pd.Series([r[column] for r in rows], index=out.index, dtype=object)
    return out


def compare_breakdowns(
    frames: Mapping[str, pd.DataFrame],
    by: Sequence[str] = (),
    *,
    level: Literal["category", "subreason"] = "category",
) -> pd.DataFrame:
    """:func:`rtlab.analysis.breakdown` of each annotator's labels (``frames``: name → a diagnosis-shaped
    frame, e.g. :func:`rtlab.analysis.diagnose_frame` and :func:`annotator_diagnosis`), one table with the
    ``annotator`` column first, in ``frames``' order: the lost points by category as each annotator sees them,
    ready for :func:`rtlab.figures.plot_breakdown` with ``by="annotator"``."""
    import pandas as pd

    tables = [breakdown(frame, by, level=level).assign(annotator=name) for name, frame in frames.items()]
    if not tables:
        raise ValueError("no annotators to compare")
    table = pd.concat(tables, ignore_index=True)
    return table[["annotator", *[c for c in table.columns if c != "annotator"]]]


@dataclass
class GoldComparison:
    """The rule labels of some runs set against careful human labels of the same failed items
    (:func:`rules_against_gold`)."""

    diagnosis: pd.DataFrame
    """The rules' diagnosis of every failed item (:func:`rtlab.analysis.diagnose_frame`)."""
    gold: pd.DataFrame
    """The human labels on the same rows (:func:`annotator_diagnosis`; items the gold file leaves out are
    dropped)."""
    agreement: GoldAgreement
    """The rules against the gold: kappa with its interval, per-category scores, the confusion matrix, the
    disagreements with both labels' evidence (:func:`rtlab.annotation.agree_with_gold`)."""
    breakdown: pd.DataFrame
    """The lost points by category as each sees them, ``rules`` then ``gold`` (:func:`compare_breakdowns`)."""


def rules_against_gold(
    trajectories: Iterable[Trajectory],
    gold: str | Path,
    *,
    by: Sequence[str] = (),
    n_boot: int = 1000,
    seed: int = 0,
) -> GoldComparison:
    """Replay ``trajectories``, label their failed items by the rules and set them against the gold file
    ``gold`` (``GOLD_LABELS.md``'s format): what notebook 09 draws on the real runs."""
    from rtlab.analysis import diagnose_frame
    from rtlab.annotation._annotators import long_form
    from rtlab.annotation._gold import agree_with_gold, read_annotator_labels, read_gold_labels
    from rtlab.environment import replay

    trajectories = list(trajectories)
    diagnosis = diagnose_frame(trajectories, [replay(t) for t in trajectories])
    human = annotator_diagnosis(diagnosis, read_annotator_labels(gold))
    report = agree_with_gold(read_gold_labels(gold), long_form(diagnosis), n_boot=n_boot, seed=seed)
    table = compare_breakdowns({"rules": diagnosis, "gold": human}, by)
    return GoldComparison(diagnosis, human, report, table)

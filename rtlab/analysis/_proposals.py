"""How much of a benchmark's rubric the environment's proposed requirements cover.

The environment proposes requirements from the task text (:mod:`rtlab.environment._propose`); a rubric says what
the task actually owed. :func:`proposal_coverage` compares the two, task by task.

What "covers" means (:func:`covers`), decided once:

- The **content terms** of a text (:func:`content_terms`) are its tokens (:func:`rtlab.text.tokenize`, the
  one tokeniser: stop words and one-letter words already dropped) less lone digits (``2`` of ``Week 2``: a
  digit alone names nothing) and less :data:`FRAME_WORDS`, the words that frame a rubric question or a
  proposal rather than say what it checks (``does``, ``include``, ``correctly``, ``output``, ``file``,
  ``deliver``, ``cover``, ...). A file name (:func:`rtlab.text.file_mentions`) is one term, its
  :func:`rtlab.text.name_key` (``permission_configuration_table.csv``), not the words in it: a long name
  would otherwise make its deliverable cover every item that names the file.
- A proposal **covers** a rubric item when the item has content terms and the proposal holds at least
  :data:`COVER_SHARE` (half) of them: ``|K(P) ∩ K(I)| >= COVER_SHARE * |K(I)|``. The share is of the item's
  terms, not the proposal's, so a broad proposal (``Deliver `report.xlsx```) covers the item that checks the
  file exists (``Was `report.xlsx` created?``: its only terms are the name's) but not every item that checks
  something inside it (``Does report.xlsx show Sales 96.51 for Finance?``). One proposal must cover the item
  alone: terms gathered from several proposals do not add up.
- **Recall**: the share of rubric items some proposal covers. **Precision**: the share of proposals that
  cover at least one rubric item of their task. Both are reported over all items / proposals pooled
  (``micro``) and as the mean of the per-task shares (``macro``, tasks without items or proposals left out).
- Deliverables are also checked against the task's own list of output files (``Task.expected_outputs``):
  a deliverable proposal is right when its file's :func:`rtlab.text.name_key` is one of theirs.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rtlab.environment import PROPOSAL_KINDS, Proposal, Proposer, RuleProposer
from rtlab.records import Task
from rtlab.text import FILE_MENTION, file_mentions, name_key, tokenize

if TYPE_CHECKING:
    import pandas as pd

COVER_SHARE = 0.5
"""The share of a rubric item's content terms one proposal must hold to cover it."""

FRAME_WORDS: frozenset[str] = frozenset(
    """
    does did do was were is are be whether has have output outputs file files document documents deliverable
    include includes included including contain contains contained containing correctly correct accurately
    accurate clearly clear state states stated mention mentions mentioned show shows shown present presents
    presented provide provides provided give gives given exist exists created create creates generated
    generate deliver delivered cover covers covered fully full complete completely exactly properly
    specific specifically saved save named use used using successfully new
    """.split()
)
"""Words that frame a rubric question (``Does the output file include ...``) or a proposal (``Deliver``,
``Cover each of``, ``Use``) rather than say what is checked; left out of the content terms."""


def content_terms(text: str) -> frozenset[str]:
    """The terms of ``text`` that say what it asks for (the module docstring's rule)."""
    names = {name_key(m) for m in file_mentions(text)}
    rest = FILE_MENTION.sub(" ", text)
    words = (t for t in tokenize(rest) if t not in FRAME_WORDS and not (len(t) == 1 and t.isdigit()))
    return frozenset(names).union(words)


def cover_share(proposal: str, item: str) -> float:
    """The share of ``item``'s content terms that ``proposal`` holds (0.0 when the item has none)."""
    terms = content_terms(item)
    if not terms:
        return 0.0
    return len(terms & content_terms(proposal)) / len(terms)


def covers(proposal: str, item: str, *, share: float = COVER_SHARE) -> bool:
    """``proposal`` covers rubric ``item``: it holds at least ``share`` of the item's content terms."""
    terms = content_terms(item)
    if not terms:
        return False
    shared = len(terms & content_terms(proposal))
    return shared > 0 and shared >= share * len(terms)


@dataclass
class ProposalCoverage:
    """What :func:`proposal_coverage` returns: three tidy tables and the pooled figures."""

    proposals: pd.DataFrame
    """One row per proposal: ``task``, ``id`` (``P1`` ...), ``kind``, ``text``, ``basis``, ``start``,
    ``proposer``, ``n_covered`` (rubric items it covers), ``covered`` (their indexes), and for a
    deliverable ``expected`` (its name is one of the task's output files; ``None`` for other kinds)."""
    items: pd.DataFrame
    """One row per rubric item: ``task``, ``index``, ``text``, ``n_terms`` (content terms), ``covered``,
    ``best`` (the proposal with the largest share, first on ties; ``None`` without any) and ``best_share``."""
    tasks: pd.DataFrame
    """One row per task: ``task``, ``n_items``, ``n_covered``, ``recall``, ``n_proposals``, ``n_covering``,
    ``precision``, ``n_`` + each kind, and the deliverables' ``deliverable_recall`` (output files proposed)
    and ``deliverable_precision`` (deliverable proposals that are output files); NaN where undefined."""

    def summary(self) -> dict[str, Any]:
        """Pooled (``micro``) and per-task mean (``macro``) recall and precision, counts, per-kind precision."""
        items, props, tasks = self.items, self.proposals, self.tasks
        out: dict[str, Any] = {
            "n_tasks": len(tasks),
            "n_items": len(items),
            "n_proposals": len(props),
            "recall_micro": _share(int(items["covered"].sum()), len(items)),
            "precision_micro": _share(int((props["n_covered"] > 0).sum()), len(props)),
            "recall_macro": float(tasks["recall"].mean()) if tasks["recall"].notna().any() else math.nan,
            "precision_macro": float(tasks["precision"].mean())
            if tasks["precision"].notna().any()
            else math.nan,
        }
        for kind in PROPOSAL_KINDS:
            of_kind = props[props["kind"] == kind]
            out[f"n_{kind}"] = len(of_kind)
            out[f"precision_{kind}"] = _share(int((of_kind["n_covered"] > 0).sum()), len(of_kind))
        expected = tasks["n_expected"].sum()
        out["deliverable_recall_micro"] = _share(int(tasks["n_expected_proposed"].sum()), int(expected))
        delivered = props[props["kind"] == "deliverable"]
        out["deliverable_precision_micro"] = _share(int(delivered["expected"].sum()), len(delivered))
        return out


def _share(k: int, n: int) -> float:
    return k / n if n else math.nan


def _deliverable_name(p: Proposal) -> str | None:
    names = file_mentions(p.basis)
    return name_key(names[0]) if names else None


def proposal_coverage(
    tasks: Iterable[Task],
    *,
    proposer: Proposer | None = None,
    proposals: Sequence[Sequence[Proposal]] | None = None,
    share: float = COVER_SHARE,
) -> ProposalCoverage:
    """Propose requirements for every task's instruction (``proposer``, default :class:`RuleProposer`; or
    given ``proposals``, one list per task) and measure which rubric items they cover (module docstring)."""
    import pandas as pd

    tasks = list(tasks)
    if proposals is None:
        proposals = (proposer or RuleProposer()).propose([t.instruction for t in tasks])
    if len(proposals) != len(tasks):
        raise ValueError(f"{len(proposals)} lists of proposals for {len(tasks)} tasks")
    prop_rows: list[dict[str, Any]] = []
    item_rows: list[dict[str, Any]] = []
    task_rows: list[dict[str, Any]] = []
    for task, props in zip(tasks, proposals, strict=True):
        ids = [f"P{k}" for k in range(1, len(props) + 1)]
        covered_by: dict[str, list[int]] = {pid: [] for pid in ids}
        n_covered = 0
        for item in task.rubric:
            shares = [cover_share(p.text, item.text) for p in props]
            hits = [pid for pid, p in zip(ids, props, strict=True) if covers(p.text, item.text, share=share)]
            for pid in hits:
                covered_by[pid].append(item.index)
            best = max(range(len(props)), key=lambda k: shares[k], default=None)
            n_covered += bool(hits)
            item_rows.append(
                {
                    "task": task.id,
                    "index": item.index,
                    "text": item.text,
                    "n_terms": len(content_terms(item.text)),
                    "covered": bool(hits),
                    "best": ids[best] if best is not None and shares[best] > 0 else None,
                    "best_share": shares[best] if best is not None else 0.0,
                }
            )
        expected = {name_key(f) for f in task.expected_outputs}
        delivered = {n for p in props if p.kind == "deliverable" and (n := _deliverable_name(p))}
        for pid, p in zip(ids, props, strict=True):
            prop_rows.append(
                {
                    "task": task.id,
                    "id": pid,
                    "kind": p.kind,
                    "text": p.text,
                    "basis": p.basis,
                    "start": p.start,
                    "proposer": p.proposer,
                    "n_covered": len(covered_by[pid]),
                    "covered": covered_by[pid],
                    "expected": (_deliverable_name(p) in expected) if p.kind == "deliverable" else None,
                }
            )
        n_covering = sum(1 for pid in ids if covered_by[pid])
        row: dict[str, Any] = {
            "task": task.id,
            "n_items": len(task.rubric),
            "n_covered": n_covered,
            "recall": _share(n_covered, len(task.rubric)),
            "n_proposals": len(props),
            "n_covering": n_covering,
            "precision": _share(n_covering, len(props)),
        }
        for kind in PROPOSAL_KINDS:
            row[f"n_{kind}"] = sum(1 for p in props if p.kind == kind)
        row["n_expected"] = len(expected)
        row["n_expected_proposed"] = len(expected & delivered)
        row["deliverable_recall"] = _share(len(expected & delivered), len(expected))
        row["deliverable_precision"] = _share(len(delivered & expected), len(delivered))
        task_rows.append(row)
    prop_cols = [
        "task",
        "id",
        "kind",
        "text",
        "basis",
        "start",
        "proposer",
        "n_covered",
        "covered",
        "expected",
    ]
    item_cols = ["task", "index", "text", "n_terms", "covered", "best", "best_share"]
    task_cols = [
        "task",
        "n_items",
        "n_covered",
        "recall",
        "n_proposals",
        "n_covering",
        "precision",
        *(f"n_{k}" for k in PROPOSAL_KINDS),
        "n_expected",
        "n_expected_proposed",
        "deliverable_recall",
        "deliverable_precision",
    ]
    return ProposalCoverage(
        pd.DataFrame(prop_rows, columns=prop_cols),
        pd.DataFrame(item_rows, columns=item_cols),
        pd.DataFrame(task_rows, columns=task_cols),
    )

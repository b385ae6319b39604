"""OfficeQA runs judged by the official scorer's rules (no model): the assessment file the adapter reads back.

The file has the layout of G2B's ``assessment_r<N>.json`` (:func:`rtlab.ingest.benchmarks.officeqa.load_assessment`
reads it): ``accuracy`` and ``is_correct`` at the task's tolerance (G2B's ``tolerance_pct``, else 1%: OfficeQA's
Acc@1%), ``match_count`` / ``total_count``, ``match_type`` (the scorer's deciding rule), ``predicted`` and
``target``, and ``details`` with both official accuracies (``acc_exact``: Acc@0%, ``acc_1pct``: Acc@1%), where
the answer was read from and the scorer's version.
"""

from __future__ import annotations

from typing import Any

from rtlab.analysis import officeqa_prediction
from rtlab.ingest.benchmarks import officeqa_scorer
from rtlab.records import Trajectory

SCORER_NAME = "rtlab-officeqa-scorer"
"""How the files this module writes name their grader."""
DEFAULT_TOLERANCE_PCT = 1.0
"""The tolerance of ``is_correct`` when the task gives none: OfficeQA's Acc@1%."""


def assessment_record(t: Trajectory) -> dict[str, Any]:
    """The assessment of one OfficeQA run (its task joined, with a reference answer) by the official rules."""
    if t.task is None or not t.task.answer:
        raise ValueError("no OfficeQA task with a reference answer is joined to this run")
    answer = t.task.answer
    tolerance_pct = t.task.meta.get("tolerance_pct", DEFAULT_TOLERANCE_PCT)
    if isinstance(tolerance_pct, bool) or not isinstance(tolerance_pct, int | float):
        tolerance_pct = DEFAULT_TOLERANCE_PCT
    prediction, source = officeqa_prediction(t)
    at = officeqa_scorer.verdict(answer, prediction, float(tolerance_pct) / 100)
    exact = officeqa_scorer.score_answer(answer, prediction, 0.0)
    one = officeqa_scorer.score_answer(answer, prediction, 0.01)
    return {
        "accuracy": at.score,
        "match_count": int(at.score),
        "total_count": 1,
        "is_correct": at.score == 1.0,
        "match_type": at.reason,
        "tolerance_pct": float(tolerance_pct),
        "predicted": [officeqa_scorer.final_answer(prediction) if prediction else ""],
        "target": [answer],
        "details": {
            "acc_exact": exact,
            "acc_1pct": one,
            "match_type": at.reason,
            "answer_source": source,
            "grader": SCORER_NAME,
            "scorer_version": officeqa_scorer.SCORER_VERSION,
        },
    }

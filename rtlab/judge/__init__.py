"""The rubric judge (``rtlab judge``): Workspace-Bench runs judged by a model through any OpenAI-compatible
endpoint in Workspace-Bench's protocol, OfficeQA runs by the official scorer's rules, each run's judge file
written beside it in the format rtlab's benchmark adapters read back (so ``rtlab score`` and ``rtlab diagnose``
work on it unchanged)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.judge._judge import RESPONSE_FORMATS as RESPONSE_FORMATS
    from rtlab.judge._judge import JudgeOutcome as JudgeOutcome
    from rtlab.judge._judge import JudgeReport as JudgeReport
    from rtlab.judge._judge import ResponseFormat as ResponseFormat
    from rtlab.judge._judge import judge_name_for as judge_name_for
    from rtlab.judge._judge import judge_runs as judge_runs
    from rtlab.judge._officeqa import assessment_record as assessment_record
    from rtlab.judge._prompt import PROTOCOL as PROTOCOL
    from rtlab.judge._prompt import JudgeLimits as JudgeLimits
    from rtlab.judge._prompt import evidence as evidence
    from rtlab.judge._prompt import judge_messages as judge_messages
    from rtlab.judge._verdicts import JUDGE_PREFIX as JUDGE_PREFIX
    from rtlab.judge._verdicts import JUDGE_SCHEMA as JUDGE_SCHEMA
    from rtlab.judge._verdicts import Verdict as Verdict
    from rtlab.judge._verdicts import answer_schema as answer_schema
    from rtlab.judge._verdicts import judge_record as judge_record
    from rtlab.judge._verdicts import parse_verdicts as parse_verdicts

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._judge": (
            "RESPONSE_FORMATS",
            "JudgeOutcome",
            "JudgeReport",
            "ResponseFormat",
            "judge_name_for",
            "judge_runs",
        ),
        "._officeqa": ("assessment_record",),
        "._prompt": ("PROTOCOL", "JudgeLimits", "evidence", "judge_messages"),
        "._verdicts": (
            "JUDGE_PREFIX",
            "JUDGE_SCHEMA",
            "Verdict",
            "answer_schema",
            "judge_record",
            "parse_verdicts",
        ),
    },
)

"""The simulated model as a rubric judge: deterministic verdicts for rtlab's Workspace-Bench judge prompt.

It reads the prompt as a model would: the JSON object after the ``## Evidence`` line (the judge's
``outputs`` with their excerpts, ``traceSummary`` with the final message, and ``rubrics``), and decides each
rubric item by the values it names. The first rule that applies decides:

- **J1** the item names values (quoted phrases that are not file names, matched case-insensitively; numbers with
  three or more significant digits that are not years and not in a file name, matched by
  :class:`rtlab.text.NumberIndex`) and the deliverable (every output's excerpt and the final message) holds them
  all: passed, confidence 1.
- **J2** it names values and some are not in the deliverable: failed, confidence 1, the evidence naming the
  missing ones in a judge's words ("not found", which the codebook's lexicon reads).
- **J3** it names no value but a file the outputs hold (by base name): passed, confidence 0.5.
- **J4** otherwise: failed, confidence 0.5, the evidence saying nothing checkable was found.

Every evidence string starts with :data:`SIMULATED_TAG`. Not a language model: a stand-in so that the judge's
plumbing (requests, cache, judge files, scores) is tested end to end offline.
"""

from __future__ import annotations

import json
import posixpath
import re
from typing import Any

from rtlab.text import FILE_MENTION, NumberIndex, file_mentions, find_numbers, is_year_like

TAG = "[simulated]"
"""What every evidence string starts with (the same tag as :data:`rtlab.llm.SIMULATED_TAG`)."""
EVIDENCE_HEADING = "## Evidence"
"""The line after which the judge prompt holds its evidence JSON."""
_QUOTED = re.compile(r'"([^"\n]{1,120})"|“([^”\n]{1,120})”|`([^`\n]{1,120})`')
MIN_SIGNIFICANT = 3
"""Significant digits a number needs to count as a value the item expects."""


def is_judge_prompt(prompt: str) -> bool:
    """Whether ``prompt`` is rtlab's judge prompt: a line ``## Evidence`` followed by a JSON object with
    ``rubrics``."""
    return _evidence(prompt) is not None


def _evidence(prompt: str) -> dict[str, Any] | None:
    at = prompt.find("\n" + EVIDENCE_HEADING + "\n")
    if at < 0:
        return None
    try:
        data = json.loads(prompt[at + len(EVIDENCE_HEADING) + 2 :])
    except json.JSONDecodeError:
        return None
    return data if isinstance(data, dict) and isinstance(data.get("rubrics"), list) else None


def _expected(item: str) -> tuple[list[str], list[str]]:
    """The quoted phrases (file names aside) and the distinctive numbers an item names."""
    phrases = []
    for m in _QUOTED.finditer(item):
        phrase = next(g for g in m.groups() if g is not None).strip()
        if phrase and not FILE_MENTION.fullmatch(phrase):
            phrases.append(phrase)
    bare = FILE_MENTION.sub(" ", _QUOTED.sub(" ", item))
    numbers = [n.text for n in find_numbers(bare) if n.significant >= MIN_SIGNIFICANT and not is_year_like(n)]
    return phrases, numbers


def _verdict(index: int, item: str, text: str, numbers: NumberIndex, names: set[str]) -> dict[str, Any]:
    phrases, values = _expected(item)
    missing = [p for p in phrases if p.casefold() not in text.casefold()]
    missing += [v for v in values if numbers.find(find_numbers(v)[0]) is None]
    named = phrases + values

    def verdict(rule: str, passed: bool, confidence: float, why: str) -> dict[str, Any]:
        return {
            "index": index,
            "passed": passed,
            "confidence": confidence,
            "evidence": f"{TAG} {rule}: {why}",
        }

    if named and not missing:
        return verdict("J1", True, 1.0, f"the deliverable states {', '.join(named)} as required.")
    if named:
        return verdict(
            "J2", False, 1.0, f"No evidence of {', '.join(missing)} in the deliverable; not found."
        )
    files = [f for f in file_mentions(item) if posixpath.basename(f).casefold() in names]
    if files:
        return verdict("J3", True, 0.5, f"the output file {files[0]} exists.")
    return verdict("J4", False, 0.5, "nothing checkable in the outputs; the evidence is not enough.")


def simulate_judgement(prompt: str) -> dict[str, Any]:
    """The simulated judge's answer to an rtlab judge prompt (rules J1-J4 in the module docstring):
    ``{"rubrics": [{"index", "passed", "confidence", "evidence"}, ...]}``."""
    data = _evidence(prompt) or {"rubrics": []}
    outputs = [o for o in data.get("outputs") or [] if isinstance(o, dict)]
    trace = data.get("traceSummary") if isinstance(data.get("traceSummary"), dict) else {}
    texts = [str(o.get("excerpt") or "") for o in outputs]
    texts += [str(t) for t in (trace or {}).get("textOutputs") or []]
    text = "\n\n".join(texts)
    names = {posixpath.basename(str(o.get("path") or "")).casefold() for o in outputs}
    numbers = NumberIndex(text)
    return {
        "rubrics": [
            _verdict(int(r.get("index", i)), str(r.get("rubric") or ""), text, numbers, names)
            for i, r in enumerate(data["rubrics"])
            if isinstance(r, dict)
        ]
    }

"""The deterministic judge of the simulated world, and the words it uses (Workspace-Bench's judge format).

Each rubric item passes when the deliverable holds every expected string: numbers by :mod:`rtlab.text._numbers` (the
rule rtlab's analyses use), names and headings case-insensitively. The evidence says what was found, in a
judge's words, so the codebook's lexicon can read it (``does not match`` for a distorted value, ``not found``
for a missing one).
"""

from __future__ import annotations

from rtlab.synth.world import SynthTask, World
from rtlab.text import NumberIndex, find_numbers


def _has_value(index: NumberIndex, text: str, value: str, numeric: bool) -> bool:
    if numeric:
        readings = find_numbers(value)
        if readings and index.find(readings[0]) is not None:
            return True
    return value.casefold() in text.casefold()


def judge(task: SynthTask, world: World, deliverable: str) -> list[tuple[int, bool, str]]:
    """The deterministic judge: each item passes when the deliverable holds every expected string (numbers by
    :mod:`rtlab.text._numbers`, words case-insensitively); the evidence says what it found, in a judge's words."""
    index = NumberIndex(deliverable)
    verdicts = []
    for item in task.items:
        facts = [world.facts[k] for k in item.facts]
        numeric = item.kind in ("value", "computed") and all(f.numeric for f in facts) if facts else False
        missing = [
            e
            for e in item.expected
            if not _has_value(index, deliverable, e, numeric or item.kind == "computed")
        ]
        if not missing:
            verdicts.append(
                (item.index, True, f"The deliverable states {', '.join(item.expected)} as required.")
            )
            continue
        wrong = [f for f in facts if _has_value(index, deliverable, f.distorted, f.numeric)]
        if item.kind == "format":
            evidence = f'No section titled "{item.expected[0]}" is present in the deliverable; not found.'
        elif wrong:
            f = wrong[0]
            evidence = f"The deliverable gives {f.distorted} for {f.label}, not {f.value}: it does not match the source."
        elif item.kind == "computed" and not any(
            _has_value(index, deliverable, f.value, f.numeric) for f in facts
        ):
            evidence = f"No evidence of the calculated figure {missing[0]} in the deliverable."
        elif item.kind == "computed":
            evidence = (
                f"The calculated figure {missing[0]} is missing; the deliverable's figure is incorrect."
            )
        else:
            evidence = f"No evidence of {', '.join(missing)} in the deliverable; not found."
        verdicts.append((item.index, False, evidence))
    return verdicts

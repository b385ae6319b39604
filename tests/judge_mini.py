"""A simulated-world run written by hand for the judge's tests (``tests/test_judge.py``, ``tests/live/``): the
miniature world of :mod:`synth_mini`, a Pi session that reads a source and writes a deliverable whose verdicts
are known by construction."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from rtlab.synth.pi_session import PiSession
from rtlab.synth.workspaces import metadata_record

# The deliverable, written by hand against the mini world's rubric (tests/synth_mini.py):
#   0 Route North 48213.50   -> "48,213.50" is there            passed
#   1 Route South 31877.25   -> there                           passed
#   2 "Nordlicht Logistik GmbH" -> there                        passed
#   3 contract 1,284,500     -> the deliverable says 1,248,500  failed
#   4 Hamburg pallets 18342  -> absent                          failed
#   5 total 80,090.75        -> "80090.75" is there             passed
#   6 section "Risks"        -> "## Risks" is there             passed
# 5 of 7 passed: Rubric Pass Rate 5/7 = 0.714..., and 5/7 >= 0.7, so the task is complete: TCR@70 = 1.0.
DELIVERABLE = (
    "# Q3 freight review\n\n- Route North: 48,213.50 EUR\n- Route South: 31877.25 EUR\n"
    "- Total freight cost: 80090.75 EUR\n\nThe selected carrier is Nordlicht Logistik GmbH; the framework "
    "contract is worth 1,248,500 EUR.\n\n## Risks\n\nFuel surcharges.\n"
)
EXPECTED = [True, True, True, False, False, True, True]


def write_run(folder: Path, world, *, deliverable: str = DELIVERABLE, drop_items: int = 0) -> Path:
    """A simulated-world run written by hand: a Pi session that reads a source and writes the deliverable,
    the task's ``metadata.json`` (less its last ``drop_items`` rubric items) and ``run.json``."""
    task = world.tasks[0]
    session = PiSession("judge-test", "/workspace/ops", "sim-reviewer", datetime(2026, 1, 5, 9, tzinfo=UTC))
    session.user(task.instruction)
    (read,) = session.assistant(None, [("read", {"path": "finance/freight_costs_q3_final.csv"})])
    session.tool_result(read, "read", "Route,Quarter,Freight cost (EUR)\nRoute North,Q3,48213.50\n")
    path = f"outputs/{task.deliverable}"
    (write,) = session.assistant(None, [("write", {"path": path, "content": deliverable})])
    session.tool_result(write, "write", f"Successfully wrote {len(deliverable)} bytes to {path}")
    session.assistant(f"Done: the deliverable is {path}.")
    folder.mkdir(parents=True)
    (folder / "session.jsonl").write_text(session.text(), encoding="utf-8")
    metadata = metadata_record(world, task)
    if drop_items:
        metadata["rubrics"] = metadata["rubrics"][:-drop_items]
        metadata["rubric_types"] = metadata["rubric_types"][:-drop_items]
    (folder / "metadata.json").write_text(json.dumps(metadata), encoding="utf-8")
    labels = {"schema": "rtlab.run", "task_id": task.id, "method": "DCI", "model": "sim-reviewer", "run": "1"}
    (folder / "run.json").write_text(json.dumps(labels), encoding="utf-8")
    return folder

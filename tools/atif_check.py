"""Check ATIF files with other tools' code: Harbor's pydantic models and validator, and Inspect Scout's ATIF source.

    PYTHON tools/atif_check.py DIR        (PYTHON: an interpreter, Python >= 3.12, with harbor and inspect-scout)

Prints one JSON object: for each ``*.json`` file under DIR, Harbor's verdict (``"ok"`` or its errors) and what
Inspect Scout read from it (tool calls, tool messages, tool messages whose call id matches no call). rtlab's test
``test_export_passes_harbor_and_inspect_scout`` runs it on rtlab's exports; ``.ci/run`` sets up the interpreter.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path


def main(folder: Path) -> int:
    from harbor.models.trajectories import Trajectory
    from harbor.utils.trajectory_validator import TrajectoryValidator
    from inspect_ai.model import ChatMessageAssistant, ChatMessageTool
    from inspect_scout.sources._atif.transcripts import atif

    report: dict[str, dict[str, object]] = {}
    for path in sorted(folder.rglob("*.json")):
        text = path.read_text(encoding="utf-8")
        errors: list[str] = []
        try:
            Trajectory.model_validate(json.loads(text))
        except Exception as exc:  # the model's own message is the point
            errors.append(f"model: {exc}")
        validator = TrajectoryValidator()
        if not validator.validate(text):
            errors += [f"validator: {e}" for e in validator.get_errors()]
        report[str(path)] = {"harbor": errors or "ok"}

    async def transcripts() -> list[object]:
        return [t async for t in atif(folder)]

    for tr in asyncio.run(transcripts()):
        calls = {c.id for m in tr.messages if isinstance(m, ChatMessageAssistant) for c in m.tool_calls or []}
        tools = [m for m in tr.messages if isinstance(m, ChatMessageTool)]
        unlinked = sum(1 for m in tools if m.tool_call_id not in calls)
        report.setdefault(str(tr.source_uri), {})["scout"] = [len(calls), len(tools), unlinked]
    print(json.dumps(report))
    return 0


if __name__ == "__main__":
    sys.exit(main(Path(sys.argv[1])))

"""Outputs in a form that compares across versions of rtlab (used by tools/snapshot.sh).

``canon.py jsonl FILE``: canonical trajectories one per line, without the schema version and the fields that
a later schema version adds (to steps: ``action``, ``frames`` in version 2; to trajectories: ``warnings`` in
version 3, which version 2 kept as text in ``meta["warnings"]``), keys sorted.
``canon.py parquet DIR``: every Parquet table under DIR as JSON lines, rows sorted, keys sorted.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

NEW_STEP_FIELDS = ("action", "frames")
NEW_TRAJECTORY_FIELDS = ("warnings",)
"""Version 3's reading warnings (``Trajectory.warnings``); version 2 wrote them as text in ``meta``."""


def jsonl(path: str) -> None:
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            record = json.loads(line)
            record.pop("version", None)
            for name in NEW_TRAJECTORY_FIELDS:
                record.pop(name, None)
                if isinstance(record.get("meta"), dict):
                    record["meta"].pop(name, None)
                    if not record["meta"]:
                        del record["meta"]
            for step in record.get("steps", []):
                for name in NEW_STEP_FIELDS:
                    step.pop(name, None)
            print(json.dumps(record, sort_keys=True, ensure_ascii=False))


def parquet(folder: str) -> None:
    import pandas as pd

    for file in sorted(Path(folder).rglob("*.parquet")):
        frame = pd.read_parquet(file)
        rows = sorted(json.dumps(r, sort_keys=True, default=str, ensure_ascii=False)
                      for r in frame.to_dict(orient="records"))
        print(f"# {file.relative_to(folder)} {list(frame.columns)} {dict(frame.dtypes.astype(str))}")
        for r in rows:
            print(r)


if __name__ == "__main__":
    {"jsonl": jsonl, "parquet": parquet}[sys.argv[1]](sys.argv[2])

"""rtlab's own canonical JSONL (``rtlab ingest -o OUT.jsonl``), so every command accepts ingested files too."""

from __future__ import annotations

import re
from pathlib import Path

from rtlab.model import SCHEMA, Trajectory, read_jsonl
from rtlab.readers._base import ReadOptions, head_bytes

NAME = "rtlab"
LOOKS_FOR = f'a .jsonl file whose first line is an object starting with "schema": "{SCHEMA}"'

# Lines can be megabytes long, so sniff the opening bytes rather than parse the first line.
_OPENING = re.compile(rb'^\s*\{\s*"schema"\s*:\s*"' + re.escape(SCHEMA.encode()) + rb'"')


def sniff(path: Path) -> bool:
    if not path.is_file() or path.suffix != ".jsonl":
        return False
    return bool(_OPENING.match(head_bytes(path, 256)))


def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """Trajectories as written by :func:`rtlab.model.write_jsonl`; ``options.clip`` does not apply."""
    return read_jsonl(path)

"""The long fuzzing campaign: ``tests/test_fuzz.py`` with a larger budget than ``make test`` gives it.

    python bench/fuzz.py [--examples N]        (default 5,000 mutated logs: 25,000 command runs)

Same seed table, mutations and property as the suite (no exception escapes ``rtlab.cli.main``, no
"Traceback", an exit status of rtlab's): mutated logs, zip bombs among them (an Inspect log of 3 MB holding a
member of 3 to 5 GiB: honest, lying about its size, zstd, ZIP64, overlapping entries), and tampered stores
(a tenth as many: parts flipped, cut, deleted or swapped, the manifest's entries dropped, doubled, pointed out of
the store or retyped; after a rebuild the store must verify clean). The seed stays fixed, so a failure found here reproduces with the
same ``RTLAB_FUZZ_EXAMPLES``. Hypothesis prints the minimal failing example: keep it as an ``@example`` of
``test_mutated_logs_never_crash`` once fixed. Prints the case count and the exit statuses seen.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--examples", type=int, default=5000)
    args = parser.parse_args()
    env = dict(os.environ, RTLAB_FUZZ_EXAMPLES=str(args.examples), PYTHONPATH=str(ROOT))
    argv = [
        sys.executable,
        "-m",
        "pytest",
        "-q",
        "-p",
        "no:cacheprovider",
        "tests/test_fuzz.py",
        "-k",
        "never_crash",
    ]
    return subprocess.call(argv, cwd=ROOT, env=env)


if __name__ == "__main__":
    sys.exit(main())

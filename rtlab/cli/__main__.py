"""``python -m rtlab.cli``: the same command line as ``rtlab`` and ``python -m rtlab``."""

import sys

from rtlab.cli import main

sys.exit(main())

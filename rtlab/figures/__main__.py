"""``python -m rtlab.figures``: execute every notebook headless (``make figures``)."""

import sys

from rtlab.figures._notebooks import main

if __name__ == "__main__":
    sys.exit(main())

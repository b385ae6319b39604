"""What Inspect AI's registry loads through the ``inspect_ai`` entry point (pyproject.toml): importing the agent
registers it as ``rtlab/runningtab`` (the package's name is the namespace)."""

from rtlab.inspect._agent import runningtab as runningtab

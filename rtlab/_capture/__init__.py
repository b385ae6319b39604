"""The parts of :mod:`rtlab.capture`, one module per concern (framing, shell structure, command families,
content matching); :mod:`rtlab.capture` is the public face."""

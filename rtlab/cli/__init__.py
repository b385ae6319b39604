"""The ``rtlab`` command line: batch work over trajectories.

One private module per command family, each registering its commands (``_reading``: ingest, export, info,
formats; ``_replay``: replay, show, view; ``_analyses``: score, values, diagnose; ``_annotation``: annotate,
agree, recover, judge; ``_live``: run, experiment, serve-simulated, synth; ``_store``: build), the options
several commands share, declared once (``_options``), what the commands share besides (``_common``: exit
statuses, reading runs or stores and reporting what a scan did not read, model clients, JSON helpers), and
the parser with ``main`` (``_main``; a new family is a new module and its name in ``FAMILIES``). Every
command function imports what it needs (pandas, numpy, rtlab's analysis packages) when it runs, so the
command line starts without them."""

from rtlab.cli._common import EXIT_CALLS_FAILED, EXIT_NOTHING, EXIT_PARTIAL
from rtlab.cli._main import FAMILIES, build_parser, main

__all__ = ["EXIT_CALLS_FAILED", "EXIT_NOTHING", "EXIT_PARTIAL", "FAMILIES", "build_parser", "main"]

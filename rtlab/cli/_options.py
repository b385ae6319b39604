"""The options that several commands share, each declared once (as inspect_ai's ``_cli/common.py`` does with
its click decorators): a function adds one option, or a run of options that go together, to a command's
parser. Where commands word an option differently, the words are a parameter and the option is still
declared here. Nothing heavy is imported: the choices the parser needs at start are plain tuples here, checked
against the packages that own them by tests/test_cli.py."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from rtlab.cli._common import COUNT, NON_NEGATIVE, _positive, existing_folder

ABLATIONS = ("full", "no-capture", "no-review", "no-evidence-check", "no-finish-check")
"""``--ablation``'s choices: the tab in full or with one component off (``rtlab.environment.ABLATIONS``)."""
METHODS = ("dci", "todo", "self-refine", "self-tracking", "runningtab")
"""``--method``'s choices: the paper's methods (``rtlab.agent.METHODS``)."""
REQUIREMENTS = ("none", "rubric", "trajectory", "proposed", "trajectory+proposed")
"""``--requirements``' choices: where the tab's requirements come from."""
PROMPTS = ("p1", "p2")
"""``--prompt``'s choices: the prompt versions that label failed items
(``rtlab.annotation.PROMPT_VERSIONS``)."""
LEVELS = ("category", "subreason")
"""``--level``'s choices: how fine a label is compared or broken down."""
GROUPINGS = ("task", "run", "rule")
"""``agree --gold --by``'s choices: how a report against gold is split (``rtlab.annotation.GROUPINGS``)."""


def command(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    name: str,
    func: Callable[[argparse.Namespace], int],
    **kwargs: Any,
) -> argparse.ArgumentParser:
    """A command: its parser in ``sub`` (``kwargs``: ``help``, its line in ``rtlab --help``, and
    ``description``), run by ``func`` (``main`` calls ``args.func(args)``)."""
    p = sub.add_parser(name, **kwargs)
    p.set_defaults(func=func)
    return p


def input_options(
    p: argparse.ArgumentParser,
    format_flag: str = "--format",
    *,
    nargs: str = "+",
    paths_help: str = "run folders, log files or canonical JSONL; folders are searched",
) -> None:
    """The paths to read and how to read them (every command that reads runs)."""
    from rtlab.ingest import FORMATS

    p.add_argument("paths", nargs=nargs, metavar="PATH", help=paths_help)
    p.add_argument(
        format_flag, dest="format", choices=FORMATS, help="force one reader instead of autodetection"
    )
    p.add_argument(
        "--clip", metavar="POLICY", help="clipping policy for `shown` instead of the harness default"
    )
    strict_option(
        p,
        "stop at the first unit that fails to read; a reading warning (a record skipped or repaired) fails it",
    )
    p.add_argument("--no-join", action="store_true", help="do not look for benchmark tasks and judge files")
    progress_option(p)
    p.add_argument(
        "--list-unread", action="store_true", help="name every file found that no reader claims, with why"
    )
    p.add_argument(
        "--follow-links",
        action="store_true",
        help="scan linked folders that lead outside the paths given (by default only run folders are read there)",
    )


def method_options(p: argparse.ArgumentParser, *, required: bool = True) -> None:
    """``--method`` (one of the paper's methods) and ``--ablation`` (RunningTab with one component off)."""
    p.add_argument(
        "--method",
        required=required,
        choices=METHODS,
        default=None if required else "runningtab",
        help=None if required else "the method (default: runningtab, the paper's tab)",
    )
    p.add_argument("--ablation", choices=ABLATIONS, help="RunningTab with one component switched off")


def tab_options(p: argparse.ArgumentParser) -> None:
    """The tab a replay rebuilds: its requirements, an ablation, derived entries, the workspace's files."""
    p.add_argument(
        "--requirements",
        choices=REQUIREMENTS,
        default="none",
        help="none (plain runs), rubric (one per rubric item), trajectory (the agent's own tab_add calls), "
        "proposed (the environment's proposals from the task text, P1 ...), trajectory+proposed (both)",
    )
    p.add_argument(
        "--ablation", choices=ABLATIONS, default="full", help="switch one component of the tab off"
    )
    p.add_argument(
        "--derived",
        action="store_true",
        help="keep derived entries in the read log (counts, sizes, programs' results, with their sources)",
    )
    p.add_argument(
        "--workspace",
        type=existing_folder,
        metavar="DIR",
        help="the workspace's files, to confirm reads by content",
    )
    p.add_argument(
        "--agent-root", metavar="PATH", help="the path the agent knew the workspace by (with --workspace)"
    )


class _DeprecatedJobs(argparse.Action):
    """``--jobs`` on a command that sends requests: the old name of ``--concurrency``, with a notice (elsewhere
    ``--jobs`` counts worker processes)."""

    def __call__(
        self,
        parser: argparse.ArgumentParser,
        namespace: argparse.Namespace,
        values: str | Sequence[Any] | None,
        option_string: str | None = None,
    ) -> None:
        print(
            f"rtlab: {option_string} is deprecated here (it counts worker processes elsewhere); "
            "use --concurrency N for requests in flight",
            file=sys.stderr,
        )
        setattr(namespace, self.dest, values)


def llm_options(p: argparse.ArgumentParser, *, jobs_alias: bool = True) -> None:
    """The options of a command that calls an LLM; ``jobs_alias``: ``--jobs`` as the deprecated alias of
    ``--concurrency`` (not where ``--jobs`` means worker processes)."""
    from rtlab.llm import DEFAULT_DEADLINE, DEFAULT_MAX_ATTEMPTS, DEFAULT_TIMEOUT

    p.add_argument("--base-url", help="OpenAI-compatible endpoint (default: OPENAI_BASE_URL)")
    p.add_argument("--api-key", help="API key (default: OPENAI_API_KEY)")
    p.add_argument(
        "--cache-dir", help="where responses are cached (default: RTLAB_CACHE_DIR or ~/.cache/rtlab)"
    )
    p.add_argument("--prices", metavar="FILE", help='JSON {"model": [input $/1M, output $/1M]}')
    p.add_argument(
        "--concurrency", type=COUNT, default=8, metavar="N", help="requests in flight at once (default 8)"
    )
    if jobs_alias:
        p.add_argument(
            "--jobs",
            type=COUNT,
            dest="concurrency",
            metavar="N",
            action=_DeprecatedJobs,
            help="deprecated alias of --concurrency (prints a notice)",
        )
    limit_options(
        p,
        (
            "--timeout",
            float,
            DEFAULT_TIMEOUT,
            "S",
            f"seconds one HTTP attempt may take (default {DEFAULT_TIMEOUT:g})",
        ),
        (
            "--max-attempts",
            int,
            DEFAULT_MAX_ATTEMPTS,
            "N",
            f"HTTP attempts per request, the first included (default {DEFAULT_MAX_ATTEMPTS})",
        ),
        (
            "--deadline",
            float,
            DEFAULT_DEADLINE,
            "S",
            f"seconds one request may take in all, attempts and waits included (default {DEFAULT_DEADLINE:g}; "
            "0: no deadline)",
        ),
    )
    p.add_argument("--dry-run", action="store_true", help="print the number of calls and the estimated cost")
    p.add_argument("--simulated", action="store_true", help="use rtlab.llm's local simulated model")


Limit = tuple[str, Callable[[str], Any], float | None, str, str]
"""A limit option: its flag, its number type (``int``, ``float``), default, metavar and help."""


def limit_options(p: argparse.ArgumentParser, *limits: Limit) -> None:
    """Options that set a limit, each a positive number (zero allowed for a ``float``: ``_positive``)."""
    for flag, kind, default, metavar, what in limits:
        p.add_argument(flag, type=_positive(kind), default=default, metavar=metavar, help=what)


def llm_annotator_options(
    p: argparse.ArgumentParser,
    *,
    model_help: str = "with --annotator llm: an LLM (repeatable)",
    samples_help: str = "samples per model and prompt (majority taken)",
) -> None:
    """The LLM annotators: ``--model`` (repeatable) x ``--prompt`` version x ``--samples``."""
    p.add_argument("--model", action="append", default=[], help=model_help)
    p.add_argument("--prompt", action="append", choices=PROMPTS, help="prompt version(s); default p1")
    p.add_argument("--samples", type=COUNT, default=1, help=samples_help)


def annotator_options(p: argparse.ArgumentParser, *, annotator_help: str, name_help: str) -> None:
    """Who labels (``--annotator rules|llm|FILE``) and, for a labels file, which of its annotators
    (``--name``)."""
    p.add_argument("--annotator", default="rules", metavar="rules|llm|FILE", help=annotator_help)
    p.add_argument("--name", help=name_help)


def sources_option(p: argparse.ArgumentParser) -> None:
    """``--sources DIR|auto``: the tasks' source files, for the diagnosis of values the runs never showed."""
    p.add_argument(
        "--sources",
        metavar="DIR|auto",
        type=_sources_folder,
        help="a folder holding the tasks' source files by name (the workspace): an expected value no shown "
        "table gives is looked for there, and found only there is a discovery failure (codebook R9b); 'auto': "
        "per run, the folder near it (its own, up to 3 above, or one of their subfolders) holding most of "
        "its task's source files (./auto names a folder called auto)",
    )


def _sources_folder(text: str) -> str:
    """``--sources``: ``auto`` or a folder that must exist."""
    from rtlab.analysis import AUTO_SOURCES

    return AUTO_SOURCES if text == AUTO_SOURCES else existing_folder(text)


def level_option(p: argparse.ArgumentParser) -> None:
    """``--level``: labels as categories or as sub-reasons."""
    p.add_argument("--level", choices=LEVELS, default="category")


def by_option(p: argparse.ArgumentParser, *, default: str, help: str) -> None:
    """``--by``: the grouping columns, comma-separated."""
    p.add_argument("--by", default=default, help=help)


def bootstrap_options(p: argparse.ArgumentParser, *, over: str) -> None:
    """``--n-boot`` resamples over ``over`` (tasks, items) and the ``--seed`` they are drawn with."""
    p.add_argument("--n-boot", type=NON_NEGATIVE, default=1000, help=f"bootstrap resamples over {over}")
    p.add_argument("--seed", type=int, default=0)


def json_option(p: argparse.ArgumentParser, help: str) -> None:
    """``--json``: what the command prints as JSON, in ``help``."""
    p.add_argument("--json", action="store_true", help=help)


def output_option(p: argparse.ArgumentParser, *, metavar: str, help: str, required: bool = True) -> None:
    """``-o``/``--output``: where the command writes."""
    p.add_argument("-o", "--output", required=required, metavar=metavar, help=help)


def jobs_option(p: argparse.ArgumentParser) -> None:
    """``--jobs``: worker processes (on a command that sends requests, ``--jobs`` is ``llm_options``')."""
    p.add_argument("--jobs", type=COUNT, default=1, metavar="N", help="worker processes (default 1)")


def progress_option(p: argparse.ArgumentParser) -> None:
    """``--progress``: a progress bar."""
    p.add_argument("--progress", action="store_true", help="show a progress bar")


def strict_option(p: argparse.ArgumentParser, help: str) -> None:
    """``--strict``: stop at the first failure (of what, in ``help``)."""
    p.add_argument("--strict", action="store_true", help=help)


def quiet_option(p: argparse.ArgumentParser, help: str) -> None:
    """``--quiet``: less on stderr (what, in ``help``)."""
    p.add_argument("--quiet", action="store_true", help=help)


def one_run_options(p: argparse.ArgumentParser, *, id_help: str, step_help: str, step_required: bool) -> None:
    """``--id`` (one trajectory of several) and ``--step N`` (a step of it)."""
    p.add_argument("--id", help=id_help)
    p.add_argument("--step", type=int, required=step_required, metavar="N", help=step_help)


def endpoint_options(p: argparse.ArgumentParser, *, base_url_help: str) -> None:
    """A live agent's endpoint: ``--base-url`` and ``--api-key`` (never written)."""
    p.add_argument("--base-url", help=base_url_help)
    p.add_argument("--api-key", help="the API key (default: OPENAI_API_KEY; never written)")


def sim_judge_option(p: argparse.ArgumentParser, help: str) -> None:
    """``--sim-judge``: simulated-world runs judged by that world's deterministic judge."""
    p.add_argument("--sim-judge", action="store_true", help=help)

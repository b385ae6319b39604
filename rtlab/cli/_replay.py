"""Replay, show and view: ``rtlab replay``, ``show`` and ``view``, the commands that rebuild a run's tab and
show it (as tables, at one step, as a page).

``view`` is here rather than with the analyses although its pages also show the rubric and the diagnosis
labels: what it builds is each run's replay, step by step, with the same tab options as ``replay`` and
``show``."""

from __future__ import annotations

import argparse
import functools
import json
import sys
from typing import Any

from rtlab.cli._common import (
    EXIT_PARTIAL,
    NON_NEGATIVE,
    _ingest,
    _replayed,
)
from rtlab.cli._options import (
    command,
    input_options,
    jobs_option,
    json_option,
    one_run_options,
    output_option,
    tab_options,
)

TITLE = "replay, show and view"
"""The heading of these commands in ``rtlab --help``."""


def _replay_options(args: argparse.Namespace):
    from dataclasses import replace

    from rtlab.environment import TabConfig
    from rtlab.runner import ReplayOptions

    if args.clip is not None:
        from rtlab.ingest import get_policy

        get_policy(args.clip)
    if args.agent_root and not args.workspace:
        raise ValueError("--agent-root needs --workspace")
    return ReplayOptions(
        format=args.format,
        clip=args.clip,
        config=replace(TabConfig.ablation(args.ablation), derived=args.derived),
        requirements=args.requirements,
        workspace=args.workspace,
        agent_root=args.agent_root,
        join=not args.no_join,
        follow_links=args.follow_links,
    )


def _summary_json(replay: Any, *, redact: bool) -> str:
    """One ``rtlab replay --json`` line (made in the worker that replayed the run)."""
    from rtlab.environment import replay_summary

    return json.dumps(replay_summary(replay, redact=redact), ensure_ascii=False)


def cmd_replay(args: argparse.Namespace) -> int:
    from rtlab.environment import export_parquet, replay_summary

    options = _replay_options(args)
    # Without --out the replays themselves are not needed here: workers send back only what is printed
    each: Any = None
    if not args.out:
        each = functools.partial(_summary_json, redact=args.redact) if args.json else replay_summary
    replays, failures = [], []
    for done, failed in _replayed(args, options, each):
        failures.extend(failed)
        if args.out:
            replays.extend(done)
            if args.json:
                for r in done:
                    print(_summary_json(r, redact=args.redact), flush=True)
        elif args.json:
            for line in done:
                print(line, flush=True)
        else:
            for s in done:
                print(
                    f"{s['id']}: {len(s['read_log'])} read-log entries from "
                    f"{len({e['path'] for e in s['read_log']})} files, {len(s['candidates'])} candidates, "
                    f"{len(s['requirements'])} requirements"
                    + (f", finish check: {s['finish_check'].splitlines()[0]}" if s["finish_check"] else "")
                )
    if args.out:
        for path in export_parquet(replays, args.out, redact=args.redact):
            print(f"wrote {path}", file=sys.stderr)
    return EXIT_PARTIAL if failures else 0


def cmd_show(args: argparse.Namespace) -> int:
    from rtlab.analysis import format_step
    from rtlab.environment import replay, with_status
    from rtlab.ingest import ingest
    from rtlab.runner import workspace_for

    options = _replay_options(args)
    result = ingest(
        args.paths,
        format=args.format,
        clip=args.clip,
        strict=args.strict,
        join=options.join,
        follow_links=options.follow_links,
    )
    if result.failures:
        raise ValueError(f"{result.failures[0].path}: {result.failures[0].error}")
    pool = [t for t in result.trajectories if args.id is None or t.id == args.id]
    if not pool:
        known = ", ".join(t.id for t in result.trajectories[:10])
        raise ValueError(f"no trajectory {args.id!r} here; known: {known}")
    if len(pool) > 1:
        raise ValueError(f"{len(pool)} trajectories here; choose one with --id (e.g. {pool[0].id})")
    t = pool[0]
    steps = {s.index: s for s in t.steps}
    if args.step not in steps:
        raise ValueError(f"{t.id} has steps 0..{len(t.steps) - 1}; no step {args.step}")
    workspace = workspace_for(t, options.workspace, options.agent_root)
    r = replay(
        t, config=options.config, requirements=options.requirements, workspace=workspace, until=args.step
    )
    step = steps[args.step]
    rule = "─" * 100
    print(
        f"{t.id}  step {args.step} of {len(t.steps) - 1}  ({r.config.name}, requirements: {r.requirements})"
    )
    print(rule)
    print(format_step(step, max_chars=args.max_chars))
    print(with_status("", r.tab.status_line()).strip())
    print(rule)
    print("The review (tab_list) at this step:")
    print(r.tab.review().render())
    print(rule)
    print(f"Read log ({len(r.tab.read_log)} entries):")
    for e in r.tab.read_log:
        print(f"  {e.id:>5}  step {e.step:<4} {len(e.excerpt):>8,} chars  {e.path}")
    ranked = r.tab.candidates_ranked()
    print(f"Candidates ({len(ranked)}; top {min(args.candidates, len(ranked))}):")
    for c in ranked[: args.candidates]:
        print(f"  {c.score:8.3f}  {c.path}")
    return 0


def cmd_view(args: argparse.Namespace) -> int:
    from rtlab.runner import workspace_for
    from rtlab.view import view_runs

    options = _replay_options(args)
    result = _ingest(args)
    pool = [t for t in result.trajectories if args.id is None or t.id == args.id]
    if not pool:
        known = ", ".join(t.id for t in result.trajectories[:10])
        raise ValueError(f"no trajectory {args.id!r} here; known: {known}")
    if args.step is not None and len(pool) > 1:
        raise ValueError(f"--step needs one run; {len(pool)} here (choose one with --id, e.g. {pool[0].id})")
    out = args.output or ("run.html" if len(pool) == 1 else "index.html")
    workspaces = {t.id: workspace_for(t, options.workspace, options.agent_root) for t in pool}
    done = view_runs(
        pool,
        out,
        config=options.config,
        requirements=options.requirements,
        workspaces=workspaces,
        step=args.step,
        strict=args.strict,
    )
    for f in done.failures:
        print(f"rtlab: skipped {f['path']} [{f['trajectory']}]: {f['error']}", file=sys.stderr)
    if done.index is not None:
        print(f"wrote {done.index} ({len(done.pages)} runs)", file=sys.stderr)
    else:
        print(f"wrote {done.pages[0]}", file=sys.stderr)
    return EXIT_PARTIAL if done.failures or result.failures else 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add the family's commands to ``sub``, the parser's subcommands."""
    p = command(
        sub,
        "replay",
        cmd_replay,
        help="rebuild the environment-side tab for each trajectory",
        description="Replay trajectories through the environment and report what the tab held.",
    )
    input_options(p)
    tab_options(p)
    jobs_option(p)
    json_option(p, "one JSON object per trajectory")
    p.add_argument("--out", metavar="DIR", help="write read_log, candidates, requirements, steps as Parquet")
    p.add_argument("--redact", action="store_true", help="mask excerpt and requirement text (shape kept)")

    p = command(sub, "show", cmd_show, help="the tab at step N as the agent would have seen it")
    input_options(p)
    tab_options(p)
    one_run_options(
        p,
        id_help="the trajectory, when PATH holds several",
        step_help="step index (from 0)",
        step_required=True,
    )
    p.add_argument(
        "--max-chars", type=NON_NEGATIVE, default=2000, help="how much of the observation to print"
    )
    p.add_argument(
        "--candidates", type=NON_NEGATIVE, default=10, metavar="K", help="how many candidates to list"
    )

    p = command(
        sub,
        "view",
        cmd_view,
        help="a self-contained HTML page of a run (steps, tab, rubric and labels), or an index of runs",
        description="One run: its page (-o run.html). Several: an index with scores and labels (-o index.html) "
        "and each run's page in the folder <index stem>_runs/ beside it. No network is needed to open them.",
    )
    input_options(p)
    tab_options(p)
    one_run_options(
        p,
        id_help="show only this trajectory",
        step_help="open the page at step N (one run)",
        step_required=False,
    )
    output_option(
        p, metavar="FILE", help="the page to write (default run.html or index.html)", required=False
    )

"""Steps written by hand in tests, typed as a reader would type them.

Tests of capture and of the environment write a step as ``tool`` + ``command`` + shown text, the way it reads
in a log. :func:`typed` gives it the typed action and frames that the reader of that tool's harness would
give: shell tools by the generic rules of tool-calling logs; ``read PATH [OFFSET [LIMIT]]`` and ``write`` /
``edit PATH`` commands as the file tools they stand for; OpenHands' ``run_ipython``; Pi's ``grep`` / ``find`` /
``ls`` (their arguments taken back from the command words); G2B's ``glob_files`` / ``grep_files``.
"""

from __future__ import annotations

import re
import shlex
from typing import Any

from rtlab.ingest.readers import _openai_common, g2b, openhands, pi
from rtlab.ingest.readers._frames import read_tool_reply
from rtlab.records import Action, Step

_READ = re.compile(r"^read (?P<path>.+?)(?: (?P<offset>\d+))?(?: (?P<limit>\d+))?$", re.S)
_WRITE = re.compile(r"^(?P<op>write|edit) (?P<path>.+)$", re.S)


def typed(step: Step) -> Step:
    """``step`` with its action and frames set (in place), as its harness's reader would set them."""
    tool, command, shown = step.tool, step.command or "", step.shown or ""
    if tool in _openai_common.ANY_SHELL_TOOLS:
        _openai_common.type_step(step)
    elif m := _READ.match(command):
        step.action, step.frames = read_tool_reply(shown, m["path"], clipped=step.clipped)
    elif m := _WRITE.match(command):
        step.action = Action(m["op"], path=m["path"])
    elif tool == "run_ipython":
        openhands.type_step(step)
    elif tool in ("grep", "find", "ls") and command.startswith(tool + " "):
        step.args = {**_pi_args(tool, command), **step.args}
        pi.type_step(step)
    elif tool in ("glob_files", "grep_files"):
        g2b.type_step(step)
    else:
        step.action = Action.other(tool)
    return step


def _pi_args(tool: str, command: str) -> dict[str, Any]:
    """The arguments of a Pi ``grep`` / ``find`` / ``ls`` call whose command words are ``command``."""
    words = shlex.split(command)[1:]
    operands = [w for w in words if not w.startswith("-") and not w.isdigit()]
    if tool == "ls":
        return {"path": operands[-1]} if operands else {}
    if tool == "find":
        return {"path": operands[0], "pattern": words[words.index("-name") + 1]}
    return {"pattern": operands[0], "path": operands[-1]}


def shell(index: int, command: str, shown: str | None, **fields: Any) -> Step:
    """A shell step: ``command`` printed ``shown``."""
    return typed(Step(index=index, tool="shell", command=command, output=shown, shown=shown, **fields))

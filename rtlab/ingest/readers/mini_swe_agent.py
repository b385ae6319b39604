"""mini-swe-agent trajectories (``*.traj.json``): ``{info, messages, trajectory_format[, instance_id]}``.

What the format's source says (SWE-agent/mini-swe-agent):

- ``mini-swe-agent-1.1`` (mini-swe-agent 2.x): ``DefaultAgent.serialize`` / ``save`` in
  ``src/minisweagent/agents/default.py`` write ``info`` (``model_stats`` {``instance_cost``, ``api_calls``},
  ``config`` {``agent``, ``agent_type``, ``model``, ``model_type``, ``environment``, ``environment_type``},
  ``mini_version``, ``exit_status``, ``submission``), ``messages`` and ``trajectory_format``; the SWE-bench
  runner adds ``instance_id``. Each model call is an ``assistant`` message whose ``extra.actions`` lists the
  commands parsed from it (``{command, tool_call_id}``: ``parse_toolcall_actions`` in
  ``models/utils/actions_toolcall.py``; without ``tool_call_id`` for the text-based models,
  ``parse_regex_actions`` in ``actions_text.py``), with ``extra.response`` (the provider's response and its
  ``usage``), ``extra.cost``, ``extra.timestamp``. Each result is a ``tool`` message (``tool_call_id``; a
  ``user`` message for text-based models) rendered by ``observation_template``, with ``extra.raw_output``,
  ``returncode``, ``exception_info``, ``timestamp``. A reply that cannot be parsed is not kept: the
  ``FormatError`` adds a ``user`` message with ``extra.interrupt_type``. The run ends with an ``exit``
  message (``extra.exit_status``: ``Submitted`` carries the submission, the output after
  ``COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT``, raised by ``environments/*.py`` ``_check_finished`` before any
  result message of that turn is written; ``LimitsExceeded``; an exception's name).
- ``mini-swe-agent-1`` (1.x): ``save_traj`` in ``src/minisweagent/run/utils/save.py`` writes the same
  ``info`` (the config under ``agent``, ``model``, ``environment``) and the agent's ``messages``: plain
  ``system`` / ``user`` / ``assistant`` messages (content text or parts). ``DefaultAgent.parse_action``
  (``agents/default.py`` @ v1.x) takes the one ```` ```bash ```` block of the reply (``action_regex``, from 1.16
  configurable); none or several give a ``format_error_template`` user message; a result is a user message
  rendered by ``action_observation_template``, a timed-out command by ``timeout_template``; ``Submitted`` and
  ``LimitsExceeded`` add a last user message (the submission, or nothing).

Each command is a step; its result is what the model was shown: the message's text (``shown``, with the
template's ``<returncode>``, ``<output>``, warning and elision words as frames), the raw output (``output``)
where 1.1 logs it. The submitting command's output became the submission and no message: the model never saw
it, so that command is an ``other`` event (``data["submission"]``, with the command and the output), not an
answered step (docs/ARCHITECTURE.md, "What a step is"). Clipping: the templates' head-and-tail
rule is :class:`rtlab.ingest._clipping.MiniSweAgentClip` (``mini-swe-agent``), applied by the harness; the
log holds its result.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from rtlab.errors import ReaderError
from rtlab.ingest._clipping import get_policy
from rtlab.ingest.readers._base import ReadOptions, parse_arguments, typed
from rtlab.ingest.readers._frames import mini_swe_agent_reply
from rtlab.ingest.readers._openai_common import Timeline, content_text, iso_time, trajectory_id, usage_from
from rtlab.ingest.readers._registry import FileFacts
from rtlab.ingest.readers._tolerant import record
from rtlab.io import field, head_text, load_json
from rtlab.records import Action, Deliverable, Event, Step, TokenUsage, Trajectory

NAME = "mini-swe-agent"
LOOKS_FOR = (
    'a mini-swe-agent trajectory: a JSON object with "info" (its "mini_version") and "messages", '
    '"trajectory_format": "mini-swe-agent-1" or "mini-swe-agent-1.1"'
)
DEFAULT_CLIP = "mini-swe-agent"
FORMATS = ("mini-swe-agent-1", "mini-swe-agent-1.1")
SUBMIT_MARKER = "COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT"
"""The first output line that makes mini-swe-agent take the rest of the output as the submission (1.x also
accepted ``MINI_SWE_AGENT_FINAL_OUTPUT``)."""
ACTION_REGEX = r"```bash\s*\n(.*?)\n```"
"""1.x ``action_regex`` default (1.12 on; ``AgentConfig.action_regex`` from 1.16)."""
ACTION_REGEX_BEFORE_1_12 = r"```bash\n(.*?)\n```"
ACTION_REGEX_TAGGED = r"```mswea_bash_command\s*\n(.*?)\n```"
"""The fence later 1.x prompts ask for (``mswea_bash_command``), used when a log names no ``action_regex``."""
TIMEOUT_PREFIX = "The last command <command>"
"""How 1.x's default ``timeout_template`` begins."""

_SNIFF_BYTES = 64 * 1024
_FORMAT_KEY = re.compile(r'"trajectory_format"\s*:\s*"mini-swe-agent')
_VERSION_KEY = re.compile(r'"mini_version"\s*:\s*"')
_MESSAGES_KEY = re.compile(r'"messages"\s*:\s*\[')
_RETURNCODE = re.compile(r"<returncode>(-?\d+)</returncode>")


def _tail(path: Path, n: int) -> bytes:
    try:
        with open(path, "rb") as fh:
            size = fh.seek(0, 2)
            fh.seek(max(0, size - n))
            return fh.read(n)
    except OSError:
        return b""


_FENCE = re.compile(r"```(?:bash|mswea_bash_command)[ \t]*\\n")
"""mini-swe-agent's command fence, as it stands in a JSON string (```bash, 1.x's later ```mswea_bash_command)."""
_OBSERVATION = re.compile(r'"content"\s*:\s*"<returncode>-?\d+</returncode>\\n<output>')
"""A user message rendered by mini-swe-agent's observation template."""


def _is_message_list(head: str) -> bool:
    """A bare JSON list of messages with mini-swe-agent's marks: a command fence in a reply and a result
    rendered by its observation template (``<returncode>...``) - the shape of its own test data."""
    return head.startswith("[") and bool(_FENCE.search(head)) and bool(_OBSERVATION.search(head))


def sniff(path: Path) -> bool:
    """A JSON object whose head shows ``"mini_version"`` or ``"trajectory_format": "mini-swe-agent..."``, or
    whose tail (where ``serialize`` puts ``trajectory_format``) does, with a ``"messages"`` list; or a bare
    list of messages with its command fence and observation template; any name."""
    head = head_text(path, _SNIFF_BYTES)
    if _is_message_list(head):
        return True
    if not head.startswith("{"):
        return False
    tail = _tail(path, _SNIFF_BYTES).decode("utf-8", errors="ignore")
    marked = bool(_FORMAT_KEY.search(head) or _VERSION_KEY.search(head) or _FORMAT_KEY.search(tail))
    return marked and bool(_MESSAGES_KEY.search(head) or _MESSAGES_KEY.search(tail))


def type_step(step: Step) -> None:
    """Every mini-swe-agent command is a shell command line (run with ``bash -c`` in a fresh subshell). Frames:
    the observation template's ``<exception>``, ``<returncode>``, ``<output>`` / ``<warning>``,
    ``<output_head>`` ... ``<output_tail>`` words (the elision marker a ``clip``) or 1.x's timeout template."""
    step.action = Action.shell(step.command)
    reply = mini_swe_agent_reply(step.shown or "")
    step.frames = reply.frames if reply is not None else ()


def _obj(value: Any) -> dict[str, Any]:
    """``value`` when it is an object, else ``{}`` (optional parts of ``info`` and ``extra``)."""
    return value if isinstance(value, dict) else {}


def _version_tuple(version: Any) -> tuple[int, ...]:
    if not isinstance(version, str):
        return ()
    parts = []
    for piece in version.split("."):
        digits = re.match(r"\d+", piece)
        if digits is None:
            break
        parts.append(int(digits.group()))
    return tuple(parts)


def may_find_steps(facts: FileFacts) -> bool:
    """A necessary condition of :func:`read` finding a tool call, on the facts every reader shares: the file is
    one document (read as :func:`read` reads it), a list of messages or an object whose ``messages`` is a list
    (anything else is refused)."""
    doc = facts.document
    return isinstance(doc, list) or isinstance(doc, dict) and isinstance(doc.get("messages"), list)


@typed(type_step)  # every step typed (after type_step: the decorator needs it)
def read(path: Path, options: ReadOptions) -> list[Trajectory]:
    """One trajectory per file."""
    path = Path(path)
    warnings: list[str] = []
    data = load_json(path, warnings)
    if isinstance(data, list):  # the bare message list mini-swe-agent's own test data holds (no info)
        data = {"messages": data, "info": {}, "_layout": "message-list"}
    if not isinstance(data, dict):
        raise ReaderError(
            path, f"expected a JSON object (a mini-swe-agent trajectory), got {type(data).__name__}"
        )
    run = _Run(path, data, options)
    run.warnings[:0] = warnings
    return [run.build()]


class _Run:
    """One mini-swe-agent run: its messages walked in order, commands paired with their results."""

    def __init__(self, path: Path, data: dict[str, Any], options: ReadOptions):
        self.path = path
        self.data = data
        self.options = options
        self.messages = field(data, "messages", list, path, None)
        info = data.get("info", {})
        if not isinstance(info, dict):
            raise ReaderError(path, f"expected an object, got {type(info).__name__}", field="info")
        self.info = info
        self.warnings: list[str] = []
        fmt = data.get("trajectory_format")
        if fmt is None:
            fmt = "mini-swe-agent-1.1" if any(self._is_v2(m) for m in self.messages) else "mini-swe-agent-1"
            self.warnings.append(f"no trajectory_format: read as {fmt} from its messages")
        if fmt not in FORMATS:
            raise ReaderError(
                path,
                f"unknown trajectory_format {fmt!r}; this reader knows {list(FORMATS)}",
                field="trajectory_format",
            )
        self.format = fmt
        self.config = _obj(info.get("config"))
        self.tl = Timeline(path, get_policy("none"))
        self.instruction: str | None = None
        self.submission: Event | None = None
        """The submitting call, as the event it is (its output the model never saw)."""
        self.open_text: list[Step] = []  # text-based commands awaiting their result, in order

    @staticmethod
    def _is_v2(message: Any) -> bool:
        return isinstance(message, dict) and (
            message.get("role") in ("tool", "exit")
            or isinstance(message.get("extra"), dict)
            and any(k in message["extra"] for k in ("actions", "raw_output", "interrupt_type"))
        )

    def _config(self, part: str) -> dict[str, Any]:
        return _obj(self.config.get(part))

    def _message(self, i: int) -> tuple[dict[str, Any], str, str]:
        where = f"messages[{i}]"
        msg = self.messages[i]
        role = field(msg, "role", str, self.path, None, where)
        text = content_text(msg.get("content"), self.path, None, f"{where}.content")
        return msg, role, text

    # --- results ----------------------------------------------------------------------------------------

    def _finish(
        self,
        step: Step,
        shown: str,
        line: int,
        *,
        raw: str | None = None,
        extra: dict[str, Any] | None = None,
    ) -> None:
        """A command's result: ``shown`` is the message text, ``output`` the raw output where logged."""
        output = raw if raw is not None else shown
        if self.options.clip:
            shown = get_policy(self.options.clip).apply(output)
        step.output = output
        step.shown = shown
        reply = mini_swe_agent_reply(shown)
        step.clipped = (
            reply.clipped if reply is not None else (self.options.clip is not None and shown != output)
        )
        extra = extra or {}
        code = extra.get("returncode")
        if not isinstance(code, int) or isinstance(code, bool):
            code = reply.returncode if reply is not None else None
        step.exit_code = code
        exception = extra.get("exception_info")
        step.is_error = (
            bool(exception) or (reply is not None and reply.timed_out) or (code is not None and code != 0)
        )
        ended = iso_time(extra.get("timestamp"))
        if ended is not None:
            step.ended_at = ended

    def _submitted(self, text: str, line: int, ended: str | None = None) -> bool:
        """The submission ends the turn whose command printed the marker: that command's output became the
        submission, never a message, so the model did not see it: the command is an event, not a step."""
        waiting = [s for s in self.tl.steps if not s.answered]
        if not waiting:
            return False
        marked = [
            s for s in waiting if SUBMIT_MARKER in s.command or "MINI_SWE_AGENT_FINAL_OUTPUT" in s.command
        ]
        step = marked[-1] if marked else waiting[-1] if len(waiting) == 1 else None
        if step is None:
            self.warnings.append(
                f"messages[{line - 1}]: submitted with {len(waiting)} commands open; none answered"
            )
            return False
        if step in self.open_text:
            self.open_text.remove(step)
        # the output became the submission and no message: the model never saw it, so the call is an event
        self.submission = self.tl.submission(step, text, ended_at=ended)
        return True

    # --- the walk ---------------------------------------------------------------------------------------

    def _walk(self) -> None:
        if self.format == "mini-swe-agent-1.1":
            self._walk_v2()
        else:
            self._walk_v1()
        self.tl.close()

    def _user(self, text: str, line: int) -> None:
        self.tl.event("message", text, line, role="user")
        if self.instruction is None:
            self.instruction = text

    def _assistant_text(self, msg: dict[str, Any], text: str, line: int) -> None:
        for key in ("reasoning_content", "reasoning"):
            if isinstance(msg.get(key), str) and msg[key]:
                self.tl.event("reasoning", msg[key], line, role="assistant")
                break
        if text:
            self.tl.event("message", text, line, role="assistant")

    def _walk_v2(self) -> None:
        for i in range(len(self.messages)):
            with record(self.warnings, self.path, i + 1, "message"):
                msg, role, text = self._message(i)
                line = i + 1
                extra = _obj(msg.get("extra"))
                if role == "system":
                    self.tl.event("system", text, line, role="system")
                elif role == "assistant":
                    self._assistant_text(msg, text, line)
                    started = iso_time(extra.get("timestamp"))
                    for act in self._actions(msg, extra, i):
                        command = act["command"]
                        call_id = (
                            act.get("tool_call_id") if isinstance(act.get("tool_call_id"), str) else None
                        )
                        step = self.tl.call(
                            "bash",
                            {"command": command},
                            line,
                            call_id=call_id,
                            command=command,
                            started_at=started,
                        )
                        step.cwd = self.cwd
                        if call_id is None:
                            self.open_text.append(step)
                elif role == "tool":
                    call_id = field(msg, "tool_call_id", str, self.path, None, f"messages[{i}]")
                    self._tool_result(call_id, text, line, f"messages[{i}].tool_call_id", extra)
                elif role == "user" and "interrupt_type" in extra:
                    self.tl.event("error", text, line, role="user", interrupt_type=extra["interrupt_type"])
                elif role == "user" and "raw_output" in extra and self.open_text:
                    self._finish(self.open_text.pop(0), text, line, raw=self._raw(extra), extra=extra)
                elif role == "user":
                    self._user(text, line)
                elif role == "exit":
                    self._exit(text, line, extra)
                else:
                    raise ReaderError(self.path, f"unknown role {role!r}", field=f"messages[{i}].role")

    def _tool_result(self, call_id: str, text: str, line: int, where: str, extra: dict[str, Any]) -> None:
        """A ``tool`` message: the result of its call, which it waits for when it came first."""
        if self.tl.unknown(call_id):
            self.tl.hold(
                call_id, text, line, lambda: self._tool_result(call_id, text, line, where, extra), where
            )
            return
        step = self.tl.answer(call_id, text, line, where)
        if step is not None:
            self._finish(step, text, line, raw=self._raw(extra), extra=extra)

    def _raw(self, extra: dict[str, Any]) -> str | None:
        raw = extra.get("raw_output")
        return raw if isinstance(raw, str) else None

    def _actions(self, msg: dict[str, Any], extra: dict[str, Any], i: int) -> list[dict[str, Any]]:
        """``extra.actions`` (what the harness ran), else the bash tool calls of the reply."""
        actions = extra.get("actions")
        where = f"messages[{i}].extra.actions"
        if actions is None:
            calls = msg.get("tool_calls") or []
            actions = []
            for call in calls if isinstance(calls, list) else []:
                fn = call.get("function") if isinstance(call, dict) else None
                arguments = fn.get("arguments") if isinstance(fn, dict) else None
                args, _ = parse_arguments(arguments)
                if isinstance(args.get("command"), str):
                    actions.append({"command": args["command"], "tool_call_id": call.get("id")})
            return actions
        if not isinstance(actions, list):
            raise ReaderError(self.path, f"expected a list, got {type(actions).__name__}", field=where)
        for k, act in enumerate(actions):
            field(act, "command", str, self.path, None, f"{where}[{k}]")
        return actions

    def _exit(self, text: str, line: int, extra: dict[str, Any]) -> None:
        status = extra.get("exit_status")
        if status == "Submitted" and self._submitted(text, line, iso_time(extra.get("timestamp"))):
            self.tl.event("system", text, line, role="exit", exit_status=status)
            return
        data = {k: v for k, v in extra.items() if k in ("exit_status", "exception_str")}
        self.tl.event("system" if status == "Submitted" else "error", text, line, role="exit", **data)

    def _walk_v1(self) -> None:
        agent = self._config("agent")
        regex = agent.get("action_regex")
        if not isinstance(regex, str):
            version = _version_tuple(self.info.get("mini_version"))
            regex = ACTION_REGEX_BEFORE_1_12 if version and version < (1, 12) else ACTION_REGEX
            if not version and any(
                isinstance(m, dict) and "```mswea_bash_command" in str(m.get("content"))
                for m in self.messages[:3]
            ):  # no config logged: the fence its prompt asks for
                regex = ACTION_REGEX_TAGGED
        timeout = agent.get("timeout_template")
        timeout_prefix = (
            timeout.split("{", 1)[0]
            if isinstance(timeout, str) and timeout.split("{", 1)[0]
            else TIMEOUT_PREFIX
        )
        status = self.info.get("exit_status")
        last = len(self.messages) - 1
        pending: Step | None = None
        format_error = False
        for i in range(len(self.messages)):
            with record(self.warnings, self.path, i + 1, "message"):
                msg, role, text = self._message(i)
                line = i + 1
                if role == "system":
                    self.tl.event("system", text, line, role="system")
                elif role == "assistant":
                    self._assistant_text(msg, text, line)
                    found = re.findall(regex, text, re.DOTALL)
                    if len(found) == 1:
                        command = found[0].strip()
                        pending = self.tl.call("bash", {"command": command}, line, command=command)
                        pending.cwd = self.cwd
                        format_error = False
                    else:
                        pending, format_error = None, True
                elif role == "user" and pending is not None:
                    submitted = status == "Submitted" or (status is None and SUBMIT_MARKER in pending.command)
                    if i == last and submitted:
                        self._submitted(text, line)
                        self.tl.event("system", text, line, role="user", exit_status=status)
                    else:
                        self._finish(pending, text, line)
                        if text.startswith(timeout_prefix):
                            pending.is_error = True
                    pending = None
                elif role == "user" and format_error:
                    self.tl.event("error", text, line, role="user", format_error=True)
                    format_error = False
                elif role == "user" and self.instruction is not None and i == last:
                    self.tl.event(
                        "error" if status != "Submitted" else "system",
                        text,
                        line,
                        role="user",
                        exit_status=status,
                    )
                elif role == "user":
                    self._user(text, line)
                else:
                    raise ReaderError(self.path, f"unknown role {role!r}", field=f"messages[{i}].role")

    # --- the run ----------------------------------------------------------------------------------------

    def build(self) -> Trajectory:
        env = self._config("environment")
        self.cwd = env.get("cwd") if isinstance(env.get("cwd"), str) and env.get("cwd") else None
        self._walk()
        info, model_cfg = self.info, self._config("model")
        stats = _obj(info.get("model_stats"))
        usage: TokenUsage | None = None
        response_models: list[str] = []
        for m in self.messages:
            extra = _obj(m.get("extra")) if isinstance(m, dict) else {}
            response = _obj(extra.get("response"))
            one = usage_from(response.get("usage"))
            if one is not None:
                usage = one if usage is None else usage + one
            if isinstance(response.get("model"), str) and response["model"] not in response_models:
                response_models.append(response["model"])
        cost = stats.get("instance_cost")
        if isinstance(cost, int | float) and not isinstance(cost, bool):
            usage = (usage or TokenUsage()) + TokenUsage(cost_usd=float(cost))
        submission = info.get("submission")
        instance = self.data.get("instance_id")
        name = self.path.name
        task_id = (
            instance
            if isinstance(instance, str)
            else name[: -len(".traj.json")]
            if name.endswith(".traj.json")
            else None
        )
        meta: dict[str, Any] = {"trajectory_format": self.format}
        for key in ("mini_version", "exit_status", "exception_str"):
            if isinstance(info.get(key), str):
                meta[key] = info[key]
        if isinstance(submission, str):
            meta["submission"] = submission
        if isinstance(stats.get("api_calls"), int):
            meta["api_calls"] = stats["api_calls"]
        for key in ("agent_type", "model_type", "environment_type"):
            if isinstance(self.config.get(key), str):
                meta[key] = self.config[key]
        if response_models:
            meta["response_models"] = response_models
        if self.submission is not None:
            meta["submission_event"] = self.submission.seq
        unknown = sorted(
            set(info)
            - {
                "model_stats",
                "config",
                "mini_version",
                "exit_status",
                "submission",
                "exception_str",
                "traceback",
            }
        )
        if unknown:
            meta["info_keys_not_read"] = unknown
        warnings = self.warnings + self.tl.warnings
        if warnings:
            meta["warnings"] = warnings
        stamps = [t for s in self.tl.steps for t in (s.started_at, s.ended_at) if t]
        if self.submission is not None:
            stamps += [t for t in (self.submission.timestamp, self.submission.data.get("ended_at")) if t]
        model = model_cfg.get("model_name")
        return Trajectory(
            id=trajectory_id(NAME, self.path),
            format=NAME,
            source_path=str(self.path),
            steps=self.tl.steps,
            events=self.tl.events,
            deliverable=Deliverable(
                final_message=submission if isinstance(submission, str) and submission else None
            ),
            task_id=task_id,
            instruction=self.instruction,
            model=model if isinstance(model, str) else None,
            harness="mini-swe-agent",
            harness_version=info.get("mini_version") if isinstance(info.get("mini_version"), str) else None,
            cwd=self.cwd,
            started_at=min(stamps) if stamps else None,
            ended_at=max(stamps) if stamps else None,
            usage=usage,
            clip_policy=self.options.clip or DEFAULT_CLIP,
            meta=meta,
        )

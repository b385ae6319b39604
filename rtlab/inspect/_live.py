"""One sample's run inside Inspect AI: the method's policy (rtlab.agent's, the same object ``rtlab run`` uses), the
environment that keeps the tab, and what the agent leaves in the sample's store.

Inspect's ``react()`` gives three places to stand (inspect_ai 0.3.285, agent/_react.py, model/_call_tools.py):

- each tool call runs through ``execute_tools``, which truncates the result to ``max_tool_output`` and builds the
  ``ChatMessageTool`` the model will be sent, then hands it to the active review policies
  (``inspect_ai.review``, 0.3.264): :meth:`LiveRun.reviewer` captures it there, as the model will see it, into
  the environment (capture), and notes the status line after it. Every tool the agent gets is serial
  (``ToolDef.parallel`` false), so calls run, and are captured, in the order the model made them;
- ``on_continue`` runs after every turn with the conversation: :meth:`LiveRun.on_continue` appends the noted
  status line to each tool result of the turn (the tab tools' replies carry theirs already);
- the submit tool: a submission counts only when its tool message has no error (``submission()``), so
  :meth:`LiveRun.submit` raising ``ToolError`` with the policy's answer to a stop (the finish check, once; the
  Self-Refine request) refuses it and the loop goes on.

Steps are built from the call and its tool message by the Inspect reader's own rule
(:func:`rtlab.ingest.readers.inspect.live_step`), so what the live environment records is what
:func:`rtlab.environment.replay` records from the ``.eval`` log.
"""

from __future__ import annotations

import inspect as pyinspect
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from inspect_ai.agent import AgentState
from inspect_ai.model import ChatMessage, ChatMessageAssistant, ChatMessageTool
from inspect_ai.review import Review, Reviewer, reviewer
from inspect_ai.tool import (
    Tool,
    ToolCall,
    ToolCallError,
    ToolCallView,
    ToolDef,
    ToolError,
    ToolParams,
    ToolResult,
)
from inspect_ai.util import store

from rtlab.agent import Policy, RunningTabPolicy, clip_frame, make_policy
from rtlab.environment import TAB_TOOLS, Environment, strip_status, with_status
from rtlab.ingest import ClipPolicy
from rtlab.ingest.readers.inspect import CLIPS_KEY, SETTINGS_KEY, STORE_PREFIX, TRANSCRIPT_KEY, live_step
from rtlab.records import Step

SUBMIT = "submit"
"""The submit tool's name (react()'s own)."""

TAB_KEY = f"{STORE_PREFIX}tab"
"""The tab's final state: requirements, read log (ids, steps, paths, commands, excerpts), ranked candidates."""
STEPS_KEY = f"{STORE_PREFIX}steps"
"""What the live agent gave at each step: ``{step, call_id, tool, status, reply}`` (``reply``: a policy tool's
answer as the model read it, status line included)."""
FINISH_KEY = f"{STORE_PREFIX}finish"
"""The answers the policy gave to stops, in order (the finish check, the Self-Refine request)."""
PLANS_KEY = f"{STORE_PREFIX}plans"
"""The model-kept records (TODO's list, Self-Tracking's notes) after each change."""


@dataclass
class LiveStep:
    """What the live agent gave the model at one step."""

    step: int
    """The step's index (the tool call's position among the run's calls, as the reader numbers them)."""
    call_id: str
    """Inspect's tool call id."""
    tool: str
    """The tool's name."""
    status: str | None = None
    """The status line appended to the result (``None``: no tab, or a submit)."""
    reply: str | None = None
    """A policy tool's answer as the model read it (the tab tools': reply and status line)."""


@dataclass
class LiveRun:
    """One sample's policy, environment and record; made fresh for each sample (no state is shared)."""

    policy: Policy
    """The method's policy (``rtlab.agent.make_policy``)."""
    clip: ClipPolicy
    """The clip policy applied to the workspace tools' text results (``none``: Inspect's own truncation only)."""
    environment: Environment | None = None
    """RunningTab's environment (``None`` for the other methods)."""
    steps: list[LiveStep] = field(default_factory=list)
    """Each step as given, in order."""
    stops: list[str] = field(default_factory=list)
    """The policy's answers to stops."""
    plans: list[dict[str, Any]] = field(default_factory=list)
    """Model-kept records after each change."""
    wrote: bool = False
    """A step wrote or edited a file (``Policy.on_stop``'s ``wrote``)."""
    _pending: dict[str, str] = field(default_factory=dict)
    """Status lines noted at capture and not yet appended, by call id."""
    _appended: set[str] = field(default_factory=set)
    """Call ids whose results have their status line."""
    _clipped: list[tuple[str, tuple[int, int] | None]] = field(default_factory=list)
    """What the clip wrapper returned, with the span of its clip marker, not yet matched to its call (calls run
    one at a time, so the next review is of the last call wrapped)."""
    _max_output: dict[str, int | None] = field(default_factory=dict)
    """Each workspace tool's own ``max_output`` (``None``: the generate config's ``max_tool_output``)."""
    clips: dict[str, tuple[int, int]] = field(default_factory=dict)
    """The clip marker's span in each clipped result, by call id (the store's ``rtlab_tab:clips``)."""

    @classmethod
    def start(cls, task: str, *, method: str, ablation: str, clip: ClipPolicy) -> LiveRun:
        """The run of one sample: ``task`` is the text the tab ranks candidates against (the sample's input)."""
        policy = make_policy(method, ablation)
        run = cls(policy, clip)
        if isinstance(policy, RunningTabPolicy):
            # No cwd: an Inspect log records none, so its replay has none either and both see the same paths
            run.environment = policy.start(task, None)
        return run

    # --- tools ------------------------------------------------------------------------------------------------

    def policy_tools(self) -> list[ToolDef]:
        """The policy's own tools (the tab tools, ``todo``, ``notes``) as Inspect tools, from their OpenAI
        definitions; answered by ``Policy.call``; never truncated (a tab reply is compared with its replay)."""
        return [self._policy_tool(t["function"]) for t in self.policy.tools]

    def _policy_tool(self, definition: dict[str, Any]) -> ToolDef:
        name = definition["name"]

        async def execute(**kwargs: Any) -> ToolResult:
            reply = self.policy.call(name, kwargs)
            if reply.plan is not None:
                self.plans.append(reply.plan)
            return reply.text

        return ToolDef(
            execute,
            name=name,
            description=definition["description"],
            parameters=_described(definition["parameters"]),
            parallel=False,
            max_output=0,
        )

    def workspace_tool(self, tool: Tool) -> ToolDef:
        """A workspace tool made serial (calls run in the order the model made them) and, unless the clip policy
        is ``none``, with its text result clipped by it before Inspect truncates and records it."""
        tdef = ToolDef(tool, parallel=False)
        self._max_output[tdef.name] = tdef.max_output
        if self.clip.name == "none":
            return tdef
        inner, clip = tdef.tool, self.clip

        async def execute(**kwargs: Any) -> ToolResult:
            result = await inner(**kwargs)
            if not isinstance(result, str):
                return result
            shown = clip.apply(result)
            cut = clip_frame(result, shown)  # `rtlab run`'s rule for where a clip put its marker
            self._clipped.append((shown, None if cut is None else (cut.start, cut.end)))
            return shown

        execute.__signature__ = pyinspect.signature(inner)  # type: ignore[attr-defined]
        return ToolDef(
            execute,
            name=tdef.name,
            description=tdef.description,
            parameters=tdef.parameters,
            parallel=False,
            viewer=tdef.viewer,
            max_output=tdef.max_output,
        )

    def submit_tool(self) -> ToolDef:
        """The submit tool: the policy answers the stop (``Policy.on_stop``); an answer refuses the submission
        (a ``ToolError`` the model reads), none lets it count."""

        async def execute(answer: str) -> ToolResult:
            """Submit an answer for evaluation.

            Args:
              answer: Submitted answer
            """
            message = self.policy.on_stop(wrote=self.wrote)
            if message is not None:
                self.stops.append(message)
                raise ToolError(message)
            return answer

        return ToolDef(execute, name=SUBMIT, parallel=False, max_output=0)

    # --- capture, status lines --------------------------------------------------------------------------------

    async def reviewer(
        self,
        message: str,
        call: ToolCall,
        result: ChatMessageTool,
        output: ToolResult,
        view: ToolCallView,
        history: list[ChatMessage],
    ) -> Review:
        """Inspect's review of each executed call (observe only): the step captured as the model will see it,
        its status line noted; a policy tool's reply kept."""
        index = _call_index(history, call.id)
        if call.function == SUBMIT:
            return Review(decision="continue")
        if call.function in self.policy.tool_names:
            status = _status_of(result.text) if call.function in TAB_TOOLS else None
            self.steps.append(LiveStep(index, call.id, call.function, status=status, reply=result.text))
            return Review(decision="continue")
        self._capture(index, call, result, output)
        return Review(decision="continue")

    def _capture(self, index: int, call: ToolCall, result: ChatMessageTool, output: ToolResult) -> Step:
        limit = None
        if result.error is None and isinstance(output, str) and output != result.text:  # Inspect truncated it
            limit = _truncation_limit(self._max_output.get(call.function))
        logged: dict[str, Any] = {"id": call.id, "function": call.function, "arguments": call.arguments}
        if call.parse_error is not None:
            logged["parse_error"] = call.parse_error
        clip = None
        if self._clipped:
            shown, span = self._clipped.pop(0)
            if (
                span is not None and result.error is None and result.text == shown
            ):  # Inspect did not cut it too
                clip = self.clips[call.id] = span
        message = result.model_dump(mode="json", exclude_none=True)
        step = live_step(index, logged, message, limit=limit, clip=clip)
        if step.action is not None and step.action.kind in ("write", "edit"):
            self.wrote = True
        status = None
        if self.environment is not None:
            self.environment.record(step)
            status = self.environment.tab.status_line()
            self._pending[call.id] = status
        self.steps.append(LiveStep(index, call.id, call.function, status=status))
        return step

    async def on_continue(self, state: AgentState) -> bool:
        """After each turn: the status line appended to each of the turn's tool results (a call that never ran,
        refused by Inspect before the review, is captured here); the loop goes on."""
        self._append_statuses(state.messages)
        return True

    def _append_statuses(self, messages: list[ChatMessage]) -> None:
        if self.environment is None:
            return
        for message in _last_turn(messages):
            if not isinstance(message, ChatMessageTool) or message.tool_call_id is None:
                continue
            if message.function == SUBMIT or message.function in self.policy.tool_names:
                continue
            if message.tool_call_id in self._appended:
                continue
            status = self._pending.pop(message.tool_call_id, None)
            if status is None:  # not reviewed: an unknown tool, arguments that did not parse
                call = _find_call(messages, message.tool_call_id)
                if call is None:
                    continue
                index = _call_index(messages, message.tool_call_id)
                self._capture(index, call, message, message.text)
                status = self._pending.pop(message.tool_call_id)
            _append_status(message, status)
            self._appended.add(message.tool_call_id)

    # --- what is left behind ----------------------------------------------------------------------------------

    def finish(self, state: AgentState, settings: dict[str, Any]) -> None:
        """The sample's store: the conversation as the model saw it, the tab, the steps, the settings; and the
        conversation the scorer reads left in ``state.messages``: no tab calls, status lines or refused
        submissions (``rtlab.environment.evaluator_view``'s rule for Inspect's messages)."""
        self._append_statuses(state.messages)  # a last turn's other calls, beside the accepted submit
        transcript = _without_final_submit(state.messages)
        kept = store()
        kept.set(TRANSCRIPT_KEY, [m.model_dump(mode="json", exclude_none=True) for m in transcript])
        kept.set(STEPS_KEY, [vars(s).copy() for s in self.steps])
        if self.clips:
            kept.set(CLIPS_KEY, {k: list(v) for k, v in self.clips.items()})
        kept.set(SETTINGS_KEY, settings)
        kept.set(FINISH_KEY, list(self.stops))
        if self.plans:
            kept.set(PLANS_KEY, list(self.plans))
        if self.environment is not None:
            kept.set(TAB_KEY, self.environment.tab.to_dict())
        state.messages = scorer_view(state.messages, hidden=self.policy.tool_names)


@reviewer(name="tab_capture")
def capture(run: LiveRun) -> Reviewer:
    """The review policy's reviewer (Inspect's registry wants a registered one): :meth:`LiveRun.reviewer`."""

    async def review(
        message: str,
        call: ToolCall,
        result: ChatMessageTool,
        output: ToolResult,
        view: ToolCallView,
        history: list[ChatMessage],
    ) -> Review:
        return await run.reviewer(message, call, result, output, view, history)

    return review


def scorer_view(messages: Sequence[ChatMessage], *, hidden: frozenset[str]) -> list[ChatMessage]:
    """What the scorer reads: the messages without calls of the ``hidden`` tools (the method's machinery) or the
    submit tool, and their results; status lines stripped from the other tool results."""
    gone = hidden | {SUBMIT}
    out: list[ChatMessage] = []
    for message in messages:
        if isinstance(message, ChatMessageTool):
            if message.function in gone:
                continue
            update: dict[str, Any] = {"content": strip_status(message.text)}
            if message.error is not None:
                update["error"] = ToolCallError(message.error.type, strip_status(message.error.message))
            message = message.model_copy(update=update)
        elif isinstance(message, ChatMessageAssistant) and message.tool_calls:
            calls = [c for c in message.tool_calls if c.function not in gone]
            if len(calls) < len(message.tool_calls):
                message = message.model_copy(update={"tool_calls": calls})
        out.append(message)
    return out


def _truncation_limit(own: int | None) -> int:
    """The byte limit Inspect truncated a tool's result to: the tool's own ``max_output``, else the active
    ``GenerateConfig.max_tool_output``, else 16 KiB (model/_call_tools.py ``truncate_tool_output``; the
    ``ToolEvent.truncated`` the reader uses records the same). A reviewer is not handed it, and Inspect exports
    no accessor of the active config, so its private one is read (the extra pins ``inspect_ai<0.4``)."""
    if own is not None:
        return own
    from inspect_ai.model._generate_config import active_generate_config

    configured = active_generate_config().max_tool_output
    return configured if configured is not None else 16 * 1024


def _described(parameters: dict[str, Any]) -> ToolParams:
    """An OpenAI parameters schema as Inspect's ``ToolParams``. Inspect refuses a parameter without a
    description (tool/_tool_def.py ``validate_tool_parameters``): one with only an ``enum`` is described by its
    choices, as the model reads them in the schema anyway."""
    properties = {}
    for name, schema in parameters.get("properties", {}).items():
        if not schema.get("description"):
            choices = schema.get("enum")
            words = f"One of: {', '.join(map(str, choices))}." if choices else f"The {name}."
            schema = {**schema, "description": words}
        properties[name] = schema
    return ToolParams.model_validate({**parameters, "properties": properties})


def _status_of(text: str) -> str | None:
    stripped = strip_status(text)
    return text[len(stripped) :].lstrip("\n") or None


def _append_status(message: ChatMessageTool, status: str) -> None:
    """The status line after a tool result, in the text the model is sent: the content, or for a call that
    failed the error's message (what the providers send in its place)."""
    if message.error is not None:
        message.error = ToolCallError(message.error.type, with_status(message.error.message, status))
    else:
        message.content = with_status(message.text, status)


def _last_turn(messages: list[ChatMessage]) -> list[ChatMessage]:
    """The messages after the last assistant message (its tool results)."""
    for i in range(len(messages) - 1, -1, -1):
        if isinstance(messages[i], ChatMessageAssistant):
            return messages[i + 1 :]
    return []


def _calls(messages: Sequence[ChatMessage]) -> list[ToolCall]:
    return [c for m in messages if isinstance(m, ChatMessageAssistant) for c in m.tool_calls or []]


def _call_index(messages: Sequence[ChatMessage], call_id: str) -> int:
    """A call's step index: its position among the run's tool calls (the reader numbers steps so)."""
    ids = [c.id for c in _calls(messages)]
    return ids.index(call_id) if call_id in ids else len(ids)


def _find_call(messages: Sequence[ChatMessage], call_id: str) -> ToolCall | None:
    return next((c for c in _calls(messages) if c.id == call_id), None)


def _without_final_submit(messages: list[ChatMessage]) -> list[ChatMessage]:
    """The conversation as the model saw it: every message, less the accepted submission (its result ended
    the run and was never sent; the reader keeps it as an event from its ``ToolEvent``)."""
    out = list(messages)
    accepted = next(
        (
            i
            for i in range(len(out) - 1, -1, -1)
            if isinstance(out[i], ChatMessageTool) and out[i].function == SUBMIT and out[i].error is None  # type: ignore[union-attr]
        ),
        None,
    )
    if accepted is None:
        return out
    call_id = out[accepted].tool_call_id  # type: ignore[union-attr]
    del out[accepted]
    for i in range(len(out) - 1, -1, -1):
        message = out[i]
        if isinstance(message, ChatMessageAssistant) and message.tool_calls:
            calls = [c for c in message.tool_calls if c.id != call_id]
            if len(calls) < len(message.tool_calls):
                out[i] = message.model_copy(update={"tool_calls": calls})
                break
    return out

"""Simulated agents: seeded policies that work a task in a generated workspace through real commands.

A simulated agent is **not** a language model. It decides with a seeded random generator what to list, what to
open and what to write, but everything it is shown is genuine: its shell commands run in the workspace
(:class:`rtlab.synth.shell.Shell`), and RunningTab arms talk to :class:`rtlab.environment._environment.Environment` exactly
as a live agent would (status lines on every observation, ``tab_*`` calls, the finish check).

What it remembers is modelled, and that model is the point of the simulation (the paper's failure mode):

- A needed fact counts as **seen** when its value appears in text the agent was shown (an observation, a
  review, a ``tab_show`` reply); the position is the number of characters the agent had read by then.
- When the agent writes, a seen fact is **retained** with probability ``1 / (1 + (d / context_chars)^2)``
  (:func:`retention`), ``d`` being the characters read since it was last seen: reading displaces what was read
  earlier. Text that repeats what was read (a file opened again, an excerpt the tab shows back) counts a quarter
  (:data:`REPEAT_WEIGHT`). A fact seen again is fresh again; a RunningTab agent writes a requirement's values
  down as it resolves it (after the review and ``show`` put them back in front of it). That is how an
  environment-kept record helps and a model-kept one helps less (Self-Tracking's notes are written from memory,
  sometimes wrong, and displaced in turn; Self-Refine re-opens a file without knowing which value is missing).
- A lost fact is left out (Shown but Missing) or written wrong (Dropped or Distorted); a needed file never
  opened leaves its facts unseen (discovery failure); computations and format instructions fail on their own.
  The cause of every failed rubric item is recorded from this state (:class:`ItemOutcome`).

Three model profiles differ the way the paper describes its three LLMs operating the tab (review-driven,
finish-check-driven, candidate-driven); their parameters were set by hand so that those styles, and gains of
the paper's size and direction, arise from the mechanisms above. They are not fits to any model, and nothing in
the results is written in: every number comes from the simulated runs.
"""

from __future__ import annotations

import random
import re
import shlex
from dataclasses import dataclass, field
from datetime import datetime

from rtlab.environment import Environment, TabConfig
from rtlab.records import Action, Frame, Step
from rtlab.synth.judge import judge
from rtlab.synth.pi_session import PiSession
from rtlab.synth.profiles import Arm, Profile
from rtlab.synth.shell import Shell
from rtlab.synth.world import Fact, Item, SynthTask, World
from rtlab.text import NumberIndex, find_numbers, normalize_path, tokenize

AGENT_ROOT = "/workspace"
"""The simulated agents' workspaces are mounted at ``/workspace/<role>`` (what their sessions record as cwd)."""
OUTPUT_DIR = "outputs"
"""Where the agents write their deliverable, relative to their working directory."""
REPEAT_WEIGHT = 0.25
"""How far text that repeats what was already read moves the agent on, relative to new text."""


@dataclass(frozen=True)
class ItemOutcome:
    """The judge's verdict on one rubric item and, for a failed one, the simulated cause."""

    index: int
    """The rubric item's index."""
    passed: bool
    """The judge's verdict (a simulated judge error fails an item that passed)."""
    evidence: str
    """The judge's evidence text, in a judge's words."""
    cause: str | None = None
    """``shown_but_missing``, ``dropped_or_distorted``, ``discovery`` or ``other``; ``None`` when passed."""
    subreason: str | None = None
    """Under ``other``: ``format_instructions``, ``reasoning_computation`` or ``judge_error``."""


@dataclass
class RunResult:
    """One simulated run: the session it leaves, its deliverable and the simulation's ground truth."""

    session: str
    """The Pi session's ``.jsonl`` text."""
    deliverable: str
    """The deliverable's final text."""
    deliverable_path: str
    """Where the agent wrote it: the task's deliverable in the run's output folder."""
    facts_seen: dict[str, int]
    """Needed fact key -> the agent's reading position (in characters) when it last saw the value."""
    files_read: list[str]
    """Files the agent opened, in the order it first opened them."""
    written: dict[str, str | None] = field(default_factory=dict)
    """Per needed fact: what the deliverable states for it (the value, a distorted value, or ``None``)."""
    computed: dict[int, str | None] = field(default_factory=dict)
    """Per covered computed item (by index): the value the deliverable states (right, wrong, ``None``)."""
    formats: dict[int, bool] = field(default_factory=dict)
    """Per covered format item (by index): the deliverable meets it."""
    covered: set[int] = field(default_factory=set)
    """Indices of the items the deliverable addresses."""
    version_read: set[str] = field(default_factory=set)
    """Needed files of which only an old version was opened."""


def xlsx_command(path: str) -> str:
    """The one-liner the simulated agents print a workbook with (the same the generator's facts assume)."""
    code = (
        f"import openpyxl; wb = openpyxl.load_workbook({path!r}, data_only=True); "
        "[print('\\t'.join('' if c is None else str(c) for c in r)) for ws in wb for r in ws.iter_rows(values_only=True)]"
    )
    return "python3 -c " + shlex.quote(code)


class _Agent:
    """One run in progress: the session being recorded, the environment (tab arms), what was seen and when."""

    def __init__(
        self,
        world: World,
        task: SynthTask,
        arm: Arm,
        profile: Profile,
        rng: random.Random,
        shell: Shell,
        session: PiSession,
    ) -> None:
        self.world, self.task, self.arm, self.p, self.rng, self.shell = world, task, arm, profile, rng, shell
        self.session = session
        self.cwd = session.cwd
        self.env: Environment | None = None
        if arm.tab:
            config = TabConfig.ablation(arm.variant or "full")
            self.env = Environment(task.instruction, config=config, cwd=self.cwd, root=self.cwd)
        self.needed: dict[str, Fact] = {k: world.facts[k] for item in task.items for k in item.facts}
        self.readings = {k: next(iter(find_numbers(f.value)), None) for k, f in self.needed.items()}
        self.pos = 0
        self.seen: dict[str, int] = {}
        self.listed: list[str] = []
        self._listed_set: set[str] = set()
        self.read: list[str] = []
        self.step = 0
        self.requirements: dict[str, list[str]] = {}
        """Requirement id -> the needed files it is about."""
        self.drafted: dict[str, str | None] = {}
        """Values the agent settled while resolving a requirement (written down then, not recalled later)."""

    # -- recording --------------------------------------------------------------------------------------
    def _see(self, text: str, *, repeat: bool = False) -> None:
        """Note the needed facts ``text`` shows (numbers by :mod:`rtlab.text._numbers`, names as written).

        Reading moves the agent on by the text's length; text that repeats what the agent already read (a
        file opened again, an excerpt the tab shows back) by :data:`REPEAT_WEIGHT` of it: what displaces earlier
        content is new content competing for attention, not the same content seen again."""
        index: NumberIndex | None = None
        for key, fact in self.needed.items():
            if fact.numeric:
                index = index or NumberIndex(text)
                reading = self.readings[key]
                found = index.find(reading) if reading is not None else None
                start = found.start if found is not None else -1
            else:
                start = text.find(fact.value)
            if start >= 0:
                self.seen[key] = self.pos + int(start * (REPEAT_WEIGHT if repeat else 1.0))
        self.pos += int(len(text) * (REPEAT_WEIGHT if repeat else 1.0))

    def _tool(
        self,
        name: str,
        arguments: dict[str, object],
        command: str,
        output: str,
        *,
        action: Action,
        frames: tuple[Frame, ...] = (),
        error: bool = False,
        say: str | None = None,
        repeat: bool = False,
    ) -> str:
        """Record one tool call and its observation (with the status line on tab arms); returns what was shown.
        ``action`` and ``frames`` tell the environment what the call did and which words are this harness's."""
        shown = output
        if self.env is not None:
            step = Step(
                index=self.step,
                tool=name,
                command=command,
                args=dict(arguments),
                output=output,
                shown=output,
                is_error=error,
                cwd=self.cwd,
                action=action,
                frames=frames,
            )
            shown = self.env.observe(step)
        (call_id,) = self.session.assistant(say, [(name, arguments)])
        self.session.tool_result(call_id, name, shown, is_error=error)
        self.step += 1
        self._see(shown, repeat=repeat)
        return shown

    def bash(self, command: str, say: str | None = None, *, repeat: bool = False) -> str:
        result = self.shell.run(command)
        text, error = result.output, result.exit_code != 0
        frames: tuple[Frame, ...] = ()
        if error:  # Pi's bash tool appends the exit status: the harness's words, not output
            frames = (
                Frame(
                    len(text),
                    len(text) + len(status := f"\n\nCommand exited with code {result.exit_code}"),
                    "frame",
                ),
            )
            text += status
        return self._tool(
            "bash", {"command": command}, command, text, action=Action.shell(command), frames=frames, error=error,
            say=say, repeat=repeat,
        )  # fmt: skip

    def tab(self, tool: str, arguments: dict[str, str], say: str | None = None) -> str:
        assert self.env is not None
        reply = self.env.call(tool, arguments, step=self.step)
        (call_id,) = self.session.assistant(say, [(tool, arguments)])
        self.session.tool_result(call_id, tool, reply)
        self.step += 1
        self._see(reply, repeat=tool in ("tab_list", "tab_show"))  # the review and show give back excerpts
        return reply

    def write(self, path: str, content: str, say: str | None = None) -> None:
        output = f"Successfully wrote {len(content.encode('utf-8'))} bytes to {path}"
        args: dict[str, object] = {"path": path, "content": content}
        self._tool("write", args, f"write {path}", output, action=Action("write", path=path), say=say)
        self.pos += len(content)

    def say(self, text: str) -> None:
        self.session.assistant(text)
        self.pos += len(text)

    # -- exploring and reading ------------------------------------------------------------------------------
    def _note_listed(self, output: str) -> None:
        for line in output.splitlines():
            path = normalize_path(line.strip()) if line.strip() else ""
            if path and "." in path.rsplit("/", 1)[-1] and path not in self._listed_set:
                self._listed_set.add(path)
                self.listed.append(path)

    def topic_words(self) -> list[str]:
        """Instruction words that also name the needed files (what a search would try first)."""
        instruction = set(tokenize(self.task.instruction))
        words: list[str] = []
        for source in self.task.sources:
            stem = source.rsplit("/", 1)[-1].rsplit(".", 1)[0]
            for w in re.split(r"[^A-Za-z]+", stem):
                if len(w) >= 4 and w.lower() in instruction and w.lower() not in words:
                    words.append(w.lower())
        return words

    def explore(self) -> None:
        self.bash("ls", say="Let me look at the workspace first.")
        if self.rng.random() < self.p.list_all:
            out = self.bash("find . -type f | sort")
        else:
            out = self.bash("find . -maxdepth 3 -type f | sort")
        self._note_listed(out)
        words = self.topic_words()
        self.rng.shuffle(words)
        for word in words[: self.rng.randint(1, 3)]:
            if self.rng.random() < 0.5:
                out = self.bash(f"grep -rli {shlex.quote(word)} . | sort | head -n 30")
            else:
                out = self.bash(f"find . -iname {shlex.quote('*' + word + '*')} | sort")
            self._note_listed(out)

    def read_file(self, path: str) -> None:
        kind = path.rsplit(".", 1)[-1].lower()
        quoted = shlex.quote(path)
        again = path in self.read
        if kind == "xlsx":
            self.bash(xlsx_command(path), repeat=again)
        elif kind in ("md", "txt") and self.rng.random() < 0.4:
            text = self.shell.read_text(path)
            self._tool("read", {"path": path}, f"read {path}", text, action=Action.read(path), repeat=again)
        elif kind == "csv" and self.rng.random() < 0.3:
            self.bash(f"head -n 200 {quoted}", repeat=again)
        elif self.rng.random() < 0.3:
            self.bash(f"sed -n '1,400p' {quoted}", repeat=again)
        else:
            self.bash(f"cat {quoted}", repeat=again)
        if path not in self.read:
            self.read.append(path)

    def _versions_of(self, source: str) -> list[str]:
        folder = source.rsplit("/", 1)[0] if "/" in source else ""
        stem = re.sub(r"_(final|v\d+|draft|old|copy)$", "", source.rsplit("/", 1)[-1].rsplit(".", 1)[0])
        files = self.world.role(self.task.role).files
        return [
            f.path
            for f in files
            if f.role == "version"
            and f.path in self._listed_set
            and (f.path.rsplit("/", 1)[0] if "/" in f.path else "") == folder
            and stem in f.path
        ]

    def plan_reads(self) -> tuple[list[str], set[str]]:
        """Files to open: each needed file found with chance ``search``; versions opened by mistake; extras."""
        plan: list[str] = []
        version_only: set[str] = set()
        for source in self.task.sources:
            if source in self._listed_set and self.rng.random() < self.p.search:
                plan.append(source)
                continue
            versions = self._versions_of(source)
            if versions and self.rng.random() < self.p.version_confusion:
                plan.append(self.rng.choice(versions))
                version_only.add(source)
        words = set(self.topic_words())
        role_files = {f.path: f for f in self.world.role(self.task.role).files}
        on_topic = [
            p
            for p in self.listed
            if p not in plan
            and p in role_files
            and role_files[p].role in ("distractor", "version")
            and words & set(tokenize(p))
        ]
        lo, hi = self.p.extra_reads
        extra = self.rng.sample(on_topic, min(len(on_topic), self.rng.randint(lo, hi)))
        for path in extra:
            plan.insert(self.rng.randint(0, len(plan)), path)
        return plan, version_only

    # -- the tab ------------------------------------------------------------------------------------------
    def requirement_texts(self) -> list[tuple[str, list[str]]]:
        """The agent's own decomposition: one requirement per needed file's topic, merged down to at most 5."""
        groups: list[list[str]] = [[s] for s in self.task.sources]
        while len(groups) > 5:
            a = groups.pop()
            groups[-1].extend(a)
        out = []
        for sources in groups:
            labels: list[str] = []
            for item in self.task.items:
                for key in item.facts:
                    fact = self.world.facts[key]
                    if fact.file in sources and fact.label not in labels:
                        labels.append(fact.label)
            topic = " and ".join(_topic(s) for s in sources)
            text = f"Report the {topic}: " + "; ".join(labels[:3]) if labels else f"Report the {topic}"
            out.append((text, sources))
        return out

    def state_requirements(self) -> None:
        assert self.env is not None
        reqs = self.requirement_texts()
        calls = [("tab_add", {"text": text}) for text, _ in reqs]
        ids = self.session.assistant("I will record what the task asks for in the tab.", calls)
        for (tool, arguments), call_id, (_, sources) in zip(calls, ids, reqs, strict=True):
            reply = self.env.call(tool, arguments, step=self.step)
            self.session.tool_result(call_id, tool, reply)
            self.step += 1
            self._see(reply)
            m = re.match(r"Added (R\d+):", reply)
            if m:
                self.requirements[m.group(1)] = sources

    def settle(self, *, before_finish: bool) -> None:
        """Pull the review, open what it points to, and resolve requirements (a RunningTab agent's settling)."""
        assert self.env is not None
        tab = self.env.tab
        if not tab.open_requirements():
            return
        self.tab("tab_list", {}, say="Let me check the tab before writing.")
        review = {item.requirement: item for item in tab.review().items} if self.env.config.review else {}
        for req in list(tab.open_requirements()):
            item = review.get(req.id)
            entries = [m.id for m in item.entries] if item is not None else []
            candidates = [c.path for c in item.candidates] if item is not None else []
            if not self.env.config.review:  # a plain index: the agent picks by path, less reliably
                words = set(tokenize(req.text))
                entries = [e.id for e in tab.read_log if words & set(tokenize(e.path))]
                self.rng.shuffle(entries)
                entries = entries[:1] if self.rng.random() < 0.5 else []
            files = set(self.requirements.get(req.id, ()))
            gap = any(k not in self.seen for k, f in self.needed.items() if f.file in files)
            if gap and candidates and self.rng.random() < self.p.open_candidates:
                # a value the requirement needs was never seen: open a candidate, current versions first
                path = next((c for c in candidates if not _OLD_VERSION.search(c)), candidates[0])
                if path not in self.read:
                    self.read_file(path)
                    entries = [e.id for e in tab.read_log if e.path == path][-1:] + entries
            if entries and self.rng.random() < self.p.show * (
                0.6 if not self.env.config.evidence_check else 1.0
            ):
                self.tab("tab_show", {"id": entries[0]})
            if before_finish and self.rng.random() > self.p.resolve_before_finish:
                continue
            if self._resolve(req.id, entries):
                self._draft_requirement(req.id)

    def _draft_requirement(self, rid: str) -> None:
        """Write down the values of a requirement just resolved, from what the agent holds right now."""
        files = set(self.requirements.get(rid, ()))
        lines = []
        for key, fact in self.needed.items():
            if fact.file not in files or key not in self.seen or key in self.drafted:
                continue
            if _retained(self, key):
                value: str | None = fact.value
            else:
                value = fact.distorted if self.rng.random() < self.p.distort else None
            self.drafted[key] = value
            if value is not None:
                lines.append(f"- {fact.label}: {value}")
        if lines:
            self.say(f"For {rid}:\n" + "\n".join(lines))

    def _resolve(self, rid: str, entries: list[str]) -> bool:
        """Resolve a requirement, citing the review's first entry (or, less carefully, any entry); ``True`` when
        it ends done."""
        assert self.env is not None
        log = [e.id for e in self.env.tab.read_log]
        if not log:
            self.tab(
                "tab_resolve", {"id": rid, "status": "unavailable", "reason": "nothing I read covers it"}
            )
            return False
        cite = entries[0] if entries and self.rng.random() < self.p.cite_reviewed else self.rng.choice(log)
        reply = self.tab("tab_resolve", {"id": rid, "status": "done", "cite": cite})
        if not reply.startswith(f"{rid} done"):
            if entries and entries[0] != cite:
                reply = self.tab("tab_resolve", {"id": rid, "status": "done", "cite": entries[0]})
                return reply.startswith(f"{rid} done")
            self.tab(
                "tab_resolve", {"id": rid, "status": "unavailable", "reason": "no file I read states it"}
            )
            return False
        return True


# ---------------------------------------------------------------------------------------------------------
# Writing the deliverable


_PERIOD_OR_VERSION = re.compile(r"^(q[1-4]|h[12]|\d{4}|final|v\d+|draft|old)$", re.IGNORECASE)


def _topic(path: str) -> str:
    """What a file is about, in the words of its name, without periods and version marks (``energy usage``)."""
    stem = path.rsplit("/", 1)[-1].rsplit(".", 1)[0]
    return " ".join(w for w in re.split(r"[_\-\s]+", stem) if w and not _PERIOD_OR_VERSION.match(w))


_OLD_VERSION = re.compile(r"_(v\d+|draft|old)\.\w+$")


def retention(distance: float, context_chars: float) -> float:
    """Chance that a value last seen ``distance`` characters ago is still usable: 1 / (1 + (d / C)^2), so
    recent reading is kept well, and reading about ``C`` characters more halves the chance."""
    return 1.0 / (1.0 + (distance / context_chars) ** 2)


def _retained(agent: _Agent, key: str) -> bool:
    return agent.rng.random() < retention(agent.pos - agent.seen[key], agent.p.context_chars)


def _format_like(number: float, like: str) -> str:
    decimals = len(like.split(".")[1]) if "." in like.split()[0] else 0
    text = f"{number:,.{decimals}f}" if "," in like else f"{number:.{decimals}f}"
    return text


def _compute_wrong(expected: str, rng: random.Random) -> str:
    readings = find_numbers(expected)
    if not readings:
        return expected + " (approx.)"
    value = readings[0].value * rng.choice((0.91, 0.94, 1.06, 1.12))
    return _format_like(value, readings[0].text)


@dataclass
class _Draft:
    written: dict[str, str | None] = field(default_factory=dict)
    computed: dict[int, str | None] = field(default_factory=dict)
    formats: dict[int, bool] = field(default_factory=dict)


def _draft(
    agent: _Agent,
    covered: set[int],
    version_only: set[str],
    draft: _Draft | None = None,
    refresh: set[str] | None = None,
) -> _Draft:
    """What the agent writes for each covered item, from what it retains now; with ``draft``, only the facts in
    ``refresh`` are reconsidered (an edit)."""
    rng = agent.rng
    out = draft or _Draft()
    for item in agent.task.items:
        if item.index not in covered:
            continue
        if item.kind == "format":
            if draft is None:
                out.formats[item.index] = rng.random() < agent.p.follow_format
            continue
        for key in item.facts:
            if draft is not None and (refresh is None or key not in refresh):
                continue
            if draft is not None and out.written.get(key) == agent.needed[key].value:
                continue
            fact = agent.needed[key]
            if agent.drafted.get(key) is not None:
                out.written[key] = agent.drafted[key]
            elif key in agent.seen:
                if _retained(agent, key):
                    out.written[key] = fact.value
                else:
                    out.written[key] = fact.distorted if rng.random() < agent.p.distort else None
            elif fact.file in version_only and rng.random() < 0.6:
                out.written[key] = fact.distorted
            else:
                out.written[key] = None
        if item.kind == "computed" and (draft is None or refresh and set(item.facts) & refresh):
            values = [out.written.get(k) for k in item.facts]
            truth = [agent.needed[k].value for k in item.facts]
            if all(v is None for v in values):
                out.computed[item.index] = None
            elif values == truth and rng.random() < agent.p.compute:
                out.computed[item.index] = item.expected[0] if item.expected else None
            else:
                out.computed[item.index] = _compute_wrong(item.expected[0], rng) if item.expected else None
    return out


def _title(task: SynthTask) -> str:
    stem = task.deliverable.rsplit(".", 1)[0]
    return re.sub(r"[_\-]+", " ", stem).strip().title()


def render(task: SynthTask, world: World, draft: _Draft) -> str:
    """The deliverable's text: a markdown report with one section per needed file's topic."""
    lines = [f"# {_title(task)}", ""]
    by_file: dict[str, list[tuple[Fact, str]]] = {}
    for item in task.items:
        for key in item.facts:
            value = draft.written.get(key)
            if value is not None:
                fact = world.facts[key]
                pairs = by_file.setdefault(fact.file, [])
                if all(f.key != key for f, _ in pairs):
                    pairs.append((fact, value))
    for source in task.sources:
        pairs = by_file.get(source, [])
        if not pairs:
            continue
        stem = source.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        heading = re.sub(r"[_\-]+", " ", stem).strip().capitalize()
        lines += [f"## {heading}", ""]
        lines += [f"- {fact.label}: {value}" for fact, value in pairs]
        lines.append("")
    totals = [(task.items[i], v) for i, v in sorted(draft.computed.items()) if v is not None]
    if totals:
        lines += ["## Totals", ""]
        lines += [f"- {_computed_label(item)}: {value}" for item, value in totals]
        lines.append("")
    for index, ok in sorted(draft.formats.items()):
        item = task.items[index]
        if ok and item.expected:
            lines += [
                f"## {item.expected[0]}",
                "",
                "See the sections above for the figures this draws on.",
                "",
            ]
    return "\n".join(lines).rstrip() + "\n"


def _computed_label(item: Item) -> str:
    text = re.sub(r"\s*\([^)]*\)", "", item.text)
    text = re.sub(r"[:\s]*[-−$€£]?\d[\d,.]*\s*(%|million|thousand)?\.?\s*$", "", text)
    return text.rstrip(" .:")


def _cause(agent: _Agent, item: Item, draft: _Draft, version_only: set[str]) -> tuple[str, str | None]:
    """Why a failed item failed, from the simulation's state (the codebook's categories)."""
    if item.kind == "format":
        return "other", "format_instructions"
    facts = [agent.needed[k] for k in item.facts]
    if any(f.file not in agent.read for f in facts):
        return "discovery", None
    written = [draft.written.get(f.key) for f in facts]
    if item.kind == "computed":
        # the codebook's rules: a wrong aggregate delivered is a distortion (R8); none delivered, reasoning (R10)
        if draft.computed.get(item.index) is not None:
            return "dropped_or_distorted", None
        return "other", "reasoning_computation"
    if any(w is not None and w != f.value for w, f in zip(written, facts, strict=True)):
        return "dropped_or_distorted", None
    if any(w == f.value for w, f in zip(written, facts, strict=True)):
        return "dropped_or_distorted", None  # part of it delivered, part dropped
    return "shown_but_missing", None


# ---------------------------------------------------------------------------------------------------------
# A whole run


def simulate(
    world: World,
    task: SynthTask,
    arm: Arm,
    profile: Profile,
    *,
    rng: random.Random,
    shell: Shell,
    session_id: str,
    start: datetime,
    judge_error_rate: float = 0.04,
) -> tuple[RunResult, list[ItemOutcome]]:
    """Run one simulated agent on ``task`` and judge its deliverable; returns the run and each item's outcome."""
    role = world.role(task.role)
    session = PiSession(session_id, f"{AGENT_ROOT}/{role.name}", profile.name, start)
    agent = _Agent(world, task, arm, profile, rng, shell, session)
    session.user(task.instruction)
    p = profile

    stated = arm.tab and rng.random() < p.state_requirements
    if stated:
        agent.state_requirements()
    cover = p.cover
    if arm.method == "TODO" or stated:  # a written list of what the task asks keeps its parts in view
        cover = 1 - (1 - p.cover) * 0.8
    if arm.method == "TODO":
        agent.say("Plan:\n" + "\n".join(f"- [ ] {t}" for t, _ in agent.requirement_texts()))

    agent.explore()
    plan, version_only = agent.plan_reads()
    for n, path in enumerate(plan):
        agent.read_file(path)
        if arm.method == "Self-Tracking" and n % 3 == 2:
            noted = [
                k for k in agent.needed if k in agent.seen and rng.random() < 0.5 and _retained(agent, k)
            ]
            notes = [
                f"- {agent.needed[k].label}: {agent.needed[k].value if rng.random() < 0.8 else agent.needed[k].distorted}"
                for k in noted
            ]
            if notes:
                agent.say("Notes so far:\n" + "\n".join(notes))
                for k in noted:  # restating a value keeps it in recent context, if it was restated right
                    f = agent.needed[k]
                    if f"- {f.label}: {f.value}" in notes and rng.random() < 0.3:
                        agent.seen[k] = agent.pos
        if arm.method == "TODO" and n == len(plan) // 2:
            agent.say("Plan update: still to cover the remaining files' figures.")
    for source in task.sources:  # the mistaken version was all the agent had of these
        if source in agent.read:
            version_only.discard(source)

    if arm.tab and stated and rng.random() < p.review:
        agent.settle(before_finish=True)
    for source in task.sources:
        if source in agent.read:
            version_only.discard(source)

    covered = {item.index for item in task.items if rng.random() < cover}
    draft = _draft(agent, covered, version_only)
    deliverable_path = f"{OUTPUT_DIR}/{task.deliverable}"
    agent.write(deliverable_path, render(task, world, draft), say="Writing the deliverable.")

    if arm.method == "Self-Refine":
        text = render(task, world, draft)
        agent._tool(
            "read",
            {"path": deliverable_path},
            f"read {deliverable_path}",
            text,
            action=Action.read(deliverable_path),
            say="Let me check the draft against the files.",
        )
        # the draft does not say which values it lacks or where they were: the agent re-opens one file it read
        if agent.read and rng.random() < 0.6:
            path = rng.choice(agent.read)
            agent.read_file(path)
            refresh = {k for k, f in agent.needed.items() if f.file == path and draft.written.get(k) is None}
            if refresh:
                covered |= {item.index for item in task.items if set(item.facts) & refresh}
                draft = _draft(agent, covered, version_only, draft, refresh=refresh)
                agent.write(deliverable_path, render(task, world, draft), say="Adding what the draft missed.")

    agent.say(f"Done: the deliverable is {deliverable_path}.")
    if agent.env is not None:
        message = agent.env.finish()
        if message is not None:
            session.user(message)
            agent.pos += len(message)
            if rng.random() < p.act_on_finish:
                before = dict(agent.seen), set(agent.drafted)
                agent.settle(before_finish=False)
                refreshed = {k for k, v in agent.seen.items() if before[0].get(k) != v}
                refreshed |= set(agent.drafted) - before[1]
                if rng.random() < p.edit_on_finish:
                    reopen = {k for k in agent.needed if draft.written.get(k) != agent.needed[k].value}
                    covered |= {item.index for item in task.items if set(item.facts) & refreshed}
                    draft = _draft(agent, covered, version_only, draft, refresh=refreshed & reopen)
                    agent.write(deliverable_path, render(task, world, draft), say="Updating the deliverable.")
            agent.say(f"Finished: {deliverable_path}.")

    deliverable = render(task, world, draft)
    outcomes = []
    for index, passed, evidence in judge(task, world, deliverable):
        item = task.items[index]
        if passed and rng.random() < judge_error_rate:
            outcomes.append(
                ItemOutcome(
                    index,
                    False,
                    "No evidence found; the excerpt of the deliverable the judge saw was truncated.",
                    "other",
                    "judge_error",
                )
            )
        elif passed:
            outcomes.append(ItemOutcome(index, True, evidence))
        else:
            cause, sub = _cause(agent, item, draft, version_only)
            outcomes.append(ItemOutcome(index, False, evidence, cause, sub))
    result = RunResult(
        session=session.text(),
        deliverable=deliverable,
        deliverable_path=deliverable_path,
        facts_seen=dict(agent.seen),
        files_read=list(agent.read),
        written=dict(draft.written),
        computed=dict(draft.computed),
        formats=dict(draft.formats),
        covered=covered,
        version_read=version_only,
    )
    return result, outcomes


def run_seed(*parts: object) -> int:
    """A stable seed from labels (``hash()`` of a str differs between interpreter runs)."""
    import hashlib

    digest = hashlib.sha256("\x1f".join(map(str, parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


__all__ = ["ItemOutcome", "RunResult", "render", "retention", "run_seed", "simulate", "xlsx_command"]

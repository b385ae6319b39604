"""The arms and the simulated model profiles: which methods run, and how each simulated model behaves.

A profile's numbers were set by hand so that the three styles the paper describes (review-driven,
finish-check-driven, candidate-driven) and gains of the paper's size and direction arise from the mechanisms in
:mod:`rtlab.synth.agents`; they are not fits to any model.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from rtlab.environment import AblationName

Method = Literal["DCI", "TODO", "Self-Refine", "Self-Tracking", "RunningTab"]
Style = Literal["review-driven", "finish-check-driven", "candidate-driven"]
METHODS: tuple[Method, ...] = ("DCI", "TODO", "Self-Refine", "Self-Tracking", "RunningTab")
ABLATIONS: tuple[AblationName, ...] = ("no-capture", "no-review", "no-evidence-check", "no-finish-check")


@dataclass(frozen=True)
class Profile:
    """A simulated model: how it explores, what it retains, how it operates the tab."""

    name: str
    """The simulated model's name (``sim-reviewer``): the runs' ``model`` and the session's model id."""
    style: Style
    """The style of the paper it is built to show (``review-driven``, ``finish-check-driven``, ...)."""
    context_chars: float
    """Displacement scale: a fact read this many characters ago is retained with probability 1/2."""
    search: float
    """Chance of opening a needed file once it has been listed."""
    list_all: float
    """Chance of listing the whole workspace (``find . -type f``) rather than its top folders."""
    extra_reads: tuple[int, int]
    """Files opened besides the needed ones (on-topic distractors, versions), low and high."""
    version_confusion: float
    """Chance of opening an old version instead of a needed file it missed."""
    cover: float
    """Chance that a part of the task stays in the agent's plan without a written list."""
    distort: float
    """Share of lost values written wrong rather than left out."""
    compute: float
    """Chance of getting a computation over retained values right."""
    follow_format: float
    """Chance of meeting a format item the deliverable covers."""
    state_requirements: float
    """RunningTab: chance of stating requirements (``tab_add``) at the start."""
    review: float
    """RunningTab: chance of pulling the review (``tab_list``) before writing."""
    show: float
    """RunningTab: chance, per requirement, of opening its best entry with ``tab_show``."""
    cite_reviewed: float
    """RunningTab: chance of citing the entry the review put first (else some other entry)."""
    open_candidates: float
    """RunningTab: chance, per requirement, of opening the review's top unopened candidate."""
    resolve_before_finish: float
    """RunningTab: chance, per requirement, of resolving it before stopping."""
    act_on_finish: float
    """RunningTab: chance of operating the tab after the finish check."""
    edit_on_finish: float
    """RunningTab: chance of editing the deliverable after the finish check."""


PROFILES: dict[str, Profile] = {
    p.name: p
    for p in (
        Profile(
            name="sim-reviewer",
            style="review-driven",
            context_chars=24_000,
            search=0.96,
            list_all=0.9,
            extra_reads=(1, 3),
            version_confusion=0.5,
            cover=0.86,
            distort=0.85,
            compute=0.6,
            follow_format=0.5,
            state_requirements=1.0,
            review=1.0,
            show=0.8,
            cite_reviewed=0.8,
            open_candidates=0.25,
            resolve_before_finish=0.9,
            act_on_finish=0.5,
            edit_on_finish=0.3,
        ),
        Profile(
            name="sim-finisher",
            style="finish-check-driven",
            context_chars=32_000,
            search=0.96,
            list_all=0.9,
            extra_reads=(1, 4),
            version_confusion=0.4,
            cover=0.9,
            distort=0.85,
            compute=0.7,
            follow_format=0.6,
            state_requirements=0.6,
            review=0.35,
            show=0.7,
            cite_reviewed=0.6,
            open_candidates=0.15,
            resolve_before_finish=0.3,
            act_on_finish=0.75,
            edit_on_finish=0.2,
        ),
        Profile(
            name="sim-explorer",
            style="candidate-driven",
            context_chars=42_000,
            search=0.85,
            list_all=0.95,
            extra_reads=(3, 7),
            version_confusion=0.3,
            cover=0.92,
            distort=0.8,
            compute=0.75,
            follow_format=0.6,
            state_requirements=1.0,
            review=0.75,
            show=0.35,
            cite_reviewed=0.7,
            open_candidates=0.7,
            resolve_before_finish=0.7,
            act_on_finish=0.5,
            edit_on_finish=0.25,
        ),
    )
}


@dataclass(frozen=True)
class Arm:
    """A method, or RunningTab with one component removed (``variant``)."""

    method: Method
    """One of :data:`METHODS`."""
    variant: AblationName | None = None
    """The ablation of RunningTab (one of :data:`ABLATIONS`); ``None`` for a method as it is."""

    @property
    def slug(self) -> str:
        return self.method if self.variant is None else f"{self.method}--{self.variant}"

    @property
    def tab(self) -> bool:
        return self.method == "RunningTab"


ARMS: tuple[Arm, ...] = (*(Arm(m) for m in METHODS), *(Arm("RunningTab", a) for a in ABLATIONS))

"""The vocabulary of rtlab: trajectories, steps and their typed actions, events, deliverables, tasks,
rubric items and judgements, their versioned dictionary form and their notebook display. Imports nothing of
rtlab but its errors and the HTML primitives of :mod:`rtlab.display`."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.records._records import SCHEMA as SCHEMA
    from rtlab.records._records import SCHEMA_VERSION as SCHEMA_VERSION
    from rtlab.records._records import STATUS_PREFIX as STATUS_PREFIX
    from rtlab.records._records import STATUS_SEPARATOR as STATUS_SEPARATOR
    from rtlab.records._records import Action as Action
    from rtlab.records._records import ActionKind as ActionKind
    from rtlab.records._records import Deliverable as Deliverable
    from rtlab.records._records import DeliverableFile as DeliverableFile
    from rtlab.records._records import Event as Event
    from rtlab.records._records import EventKind as EventKind
    from rtlab.records._records import Frame as Frame
    from rtlab.records._records import FrameKind as FrameKind
    from rtlab.records._records import ItemResult as ItemResult
    from rtlab.records._records import Judgement as Judgement
    from rtlab.records._records import ReadWarning as ReadWarning
    from rtlab.records._records import RubricItem as RubricItem
    from rtlab.records._records import Step as Step
    from rtlab.records._records import Task as Task
    from rtlab.records._records import TokenUsage as TokenUsage
    from rtlab.records._records import Trajectory as Trajectory
    from rtlab.records._records import WarningKind as WarningKind
    from rtlab.records._records import frame_spans as frame_spans
    from rtlab.records._records import item_key as item_key
    from rtlab.records._records import status_start as status_start
    from rtlab.records._records import step_html as step_html
    from rtlab.records._records import trajectory_from_dict as trajectory_from_dict
    from rtlab.records._records import trajectory_html as trajectory_html
    from rtlab.records._records import trajectory_to_dict as trajectory_to_dict

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._records": (
            "STATUS_PREFIX",
            "STATUS_SEPARATOR",
            "status_start",
            "Action",
            "ActionKind",
            "Frame",
            "FrameKind",
            "SCHEMA",
            "SCHEMA_VERSION",
            "EventKind",
            "TokenUsage",
            "Step",
            "Event",
            "DeliverableFile",
            "Deliverable",
            "RubricItem",
            "Task",
            "ItemResult",
            "Judgement",
            "ReadWarning",
            "WarningKind",
            "Trajectory",
            "trajectory_to_dict",
            "trajectory_from_dict",
            "item_key",
            "step_html",
            "frame_spans",
            "trajectory_html",
        ),
    },
)

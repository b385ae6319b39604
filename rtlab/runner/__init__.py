"""Where the environment meets ingest: many recorded runs read and replayed in worker processes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.runner._replay_many import ReplayFailure as ReplayFailure
    from rtlab.runner._replay_many import ReplayOptions as ReplayOptions
    from rtlab.runner._replay_many import agent_root_for as agent_root_for
    from rtlab.runner._replay_many import replay_paths as replay_paths
    from rtlab.runner._replay_many import workspace_for as workspace_for

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._replay_many": (
            "ReplayFailure",
            "ReplayOptions",
            "agent_root_for",
            "workspace_for",
            "replay_paths",
        ),
    },
)

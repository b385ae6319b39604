"""The analysis store: every run's tables (trajectories, steps, read log, candidates, requirements, tab
statistics, values, labels, scores) built once into Parquet, incrementally and atomically (``rtlab build``),
and read back as DataFrames or queried with SQL through DuckDB (``rtlab.open``). Layout and schemas:
docs/STORE.md."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rtlab._lazy import attach

if TYPE_CHECKING:
    from rtlab.store._alias import open as open  # noqa: A004
    from rtlab.store._build import MANIFEST as MANIFEST
    from rtlab.store._build import BuildOptions as BuildOptions
    from rtlab.store._build import BuildSummary as BuildSummary
    from rtlab.store._build import Mapper as Mapper
    from rtlab.store._build import UnitRows as UnitRows
    from rtlab.store._build import UnitTask as UnitTask
    from rtlab.store._build import build_store as build_store
    from rtlab.store._build import build_unit as build_unit
    from rtlab.store._build import cluster_mapper as cluster_mapper
    from rtlab.store._build import is_store as is_store
    from rtlab.store._build import local_mapper as local_mapper
    from rtlab.store._build import read_manifest as read_manifest
    from rtlab.store._build import unit_frames as unit_frames
    from rtlab.store._open import Store as Store
    from rtlab.store._open import concat_tables as concat_tables
    from rtlab.store._open import open_store as open_store
    from rtlab.store._open import stores_in as stores_in
    from rtlab.store._schema import KEY_COLUMNS as KEY_COLUMNS
    from rtlab.store._schema import TABLES as TABLES
    from rtlab.store._schema import Column as Column
    from rtlab.store._summaries import summaries as summaries

__getattr__, __dir__, __all__ = attach(
    __name__,
    {
        "._alias": ("open",),
        "._build": (
            "MANIFEST",
            "BuildOptions",
            "BuildSummary",
            "Mapper",
            "UnitRows",
            "UnitTask",
            "build_store",
            "build_unit",
            "cluster_mapper",
            "is_store",
            "local_mapper",
            "read_manifest",
            "unit_frames",
        ),
        "._open": ("Store", "concat_tables", "open_store", "stores_in"),
        "._schema": ("KEY_COLUMNS", "TABLES", "Column"),
        "._summaries": ("summaries",),
    },
)

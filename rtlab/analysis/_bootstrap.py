"""The one bootstrap draw: units (tasks, items) resampled with replacement, as counts per unit."""

from __future__ import annotations

import numpy as np


def bootstrap_weights(n_units: int, n_boot: int, seed: int) -> np.ndarray:
    """``n_boot`` resamples of ``n_units`` units with replacement, as counts per unit (shape n_boot x n_units).

    A statistic that is a ratio of per-unit sums is then evaluated on every resample at once as
    ``weights @ numerators / weights @ denominators``; the same seed gives the same draws.
    """
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, n_units, size=(n_boot, n_units))
    offsets = np.arange(n_boot)[:, None] * n_units
    return np.bincount((draws + offsets).ravel(), minlength=n_boot * n_units).reshape(n_boot, n_units)

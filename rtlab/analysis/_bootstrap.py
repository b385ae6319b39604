"""The one bootstrap draw: units (tasks, items) resampled with replacement, as counts per unit; and the one
interval read off the replicates (the percentile interval)."""

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


def percentile_interval(replicates: np.ndarray, ci: float) -> tuple[float, float] | None:
    """The ``ci`` percentile interval of the defined (finite) replicates: their ``(1 - ci) / 2`` and
    ``(1 + ci) / 2`` quantiles by numpy's linear interpolation; ``None`` when no replicate is defined."""
    defined = replicates[np.isfinite(replicates)]
    if not defined.size:
        return None
    low, high = np.percentile(defined, [50 * (1 - ci), 50 * (1 + ci)])
    return float(low), float(high)

"""Moved to :mod:`mwz_metrics.interactive.scoring.export`; this path keeps working until release 0.2."""

from mwz_metrics.interactive.scoring.export import *  # noqa: F403
from mwz_metrics.interactive.scoring.export import to_dataset  # noqa: F401

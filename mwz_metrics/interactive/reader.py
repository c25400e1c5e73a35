"""Moved to :mod:`mwz_metrics.interactive.user.reader`; this path keeps working until release 0.2."""

from mwz_metrics.interactive.user.reader import *  # noqa: F403
from mwz_metrics.interactive.user.reader import measure  # noqa: F401

"""Moved to :mod:`mwz_metrics.interactive.scoring.export`; this path keeps working until release 0.2, each name
read here with a ``DeprecationWarning``. Its ``to_dataset`` is :func:`mwz_metrics.interactive.to_dataset`, the
one that takes a session file's path or session records."""

from __future__ import annotations

import warnings
from typing import Any

from mwz_metrics.interactive.scoring import export as _moved
from mwz_metrics.moved import UNTIL, public_names, read_moved

__all__ = sorted({*public_names(_moved), "to_dataset"})  # for ``import *``; each name warns as it is read


def __getattr__(name: str) -> Any:
    if name == "to_dataset":
        from mwz_metrics.interactive.harness.api import to_dataset

        warnings.warn(
            f"mwz_metrics.interactive.export.to_dataset is deprecated (until release {UNTIL}): use "
            "mwz_metrics.interactive.to_dataset, which takes a session file's path or session records",
            DeprecationWarning,
            stacklevel=2,
        )
        return to_dataset
    return read_moved("mwz_metrics.interactive.export", _moved, name)

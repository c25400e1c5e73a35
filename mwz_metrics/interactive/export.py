"""Moved to :mod:`mwz_metrics.interactive.scoring.export`; this path keeps working until release 0.2, each name
read here with a ``DeprecationWarning``. Its ``to_dataset`` is :func:`mwz_metrics.interactive.to_dataset`, the
one that takes a session file's path or session records."""

from __future__ import annotations

import types
import warnings
from typing import Any

from mwz_metrics.interactive.scoring import export as _moved

# what the moved module itself defines (for ``import *``; each name warns as it is read)
__all__ = [
    n
    for n, v in vars(_moved).items()
    if not n.startswith("_")
    and not isinstance(v, types.ModuleType)
    and getattr(v, "__module__", _moved.__name__) == _moved.__name__
]


def __getattr__(name: str) -> Any:
    if name == "to_dataset":
        from mwz_metrics.interactive.harness.api import to_dataset

        warnings.warn(
            "mwz_metrics.interactive.export.to_dataset is deprecated (until release 0.2): use "
            "mwz_metrics.interactive.to_dataset, which takes a session file's path or session records",
            DeprecationWarning,
            stacklevel=2,
        )
        return to_dataset
    value = getattr(_moved, name)  # AttributeError names the module that has no such name
    warnings.warn(
        f"mwz_metrics.interactive.export is deprecated (until release 0.2): import {name} from "
        "mwz_metrics.interactive.scoring.export",
        DeprecationWarning,
        stacklevel=2,
    )
    return value

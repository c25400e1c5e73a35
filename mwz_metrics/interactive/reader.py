"""Moved to :mod:`mwz_metrics.interactive.user.reader`; this path keeps working until release 0.2, each name
read here with a ``DeprecationWarning``."""

from __future__ import annotations

import types
import warnings
from typing import Any

from mwz_metrics.interactive.user import reader as _moved

# what the moved module itself defines (for ``import *``; each name warns as it is read)
__all__ = [
    n
    for n, v in vars(_moved).items()
    if not n.startswith("_")
    and not isinstance(v, types.ModuleType)
    and getattr(v, "__module__", _moved.__name__) == _moved.__name__
]


def __getattr__(name: str) -> Any:
    value = getattr(_moved, name)  # AttributeError names the module that has no such name
    warnings.warn(
        f"mwz_metrics.interactive.reader is deprecated (until release 0.2): import {name} from "
        "mwz_metrics.interactive.user.reader",
        DeprecationWarning,
        stacklevel=2,
    )
    return value

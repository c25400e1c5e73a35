"""Old import paths kept for one release: a module that moved leaves a shim whose names warn as they are read.

A shim is two lines (``__all__ = public_names(new)`` and a ``__getattr__`` calling :func:`read_moved`), so that
every moved path warns the same way and ``import *`` still finds the names.
"""

from __future__ import annotations

import types
import warnings
from typing import Any

UNTIL = "0.2"  # the release that drops the old paths


def public_names(module: types.ModuleType) -> list[str]:
    """What ``module`` itself defines (not what it imports): the names an old path's ``import *`` gives."""
    return [
        name
        for name, value in vars(module).items()
        if not name.startswith("_")
        and not isinstance(value, types.ModuleType)
        and getattr(value, "__module__", module.__name__) == module.__name__
    ]


def read_moved(old: str, module: types.ModuleType, name: str) -> Any:
    """``module``'s ``name``, read through the old path ``old``, with a ``DeprecationWarning`` naming the new
    home (an ``AttributeError`` naming the module when it has no such name)."""
    value = getattr(module, name)
    warnings.warn(
        f"{old} is deprecated (until release {UNTIL}): import {name} from {module.__name__}",
        DeprecationWarning,
        stacklevel=3,
    )
    return value

"""Moved to :mod:`mwz_metrics.interactive.user.reader`; this path keeps working until release 0.2, each name
read here with a ``DeprecationWarning``."""

from __future__ import annotations

from typing import Any

from mwz_metrics.interactive.user import reader as _moved
from mwz_metrics.moved import public_names, read_moved

__all__ = public_names(_moved)  # for ``import *``; each name warns as it is read


def __getattr__(name: str) -> Any:
    return read_moved("mwz_metrics.interactive.reader", _moved, name)

"""Wrapping a library's name-resolution function so registered names route to us.

Both ``datasets`` and ``evaluate`` resolve names through a module-level factory;
wrapping it (once, idempotently) keeps our names off the Hub. The factories are
private API, so the library version is checked against the range we test.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from types import ModuleType
from typing import Any

logger = logging.getLogger(__name__)

_MARK = "_mwz_original"


def wrap_factory(
    owner: ModuleType,
    attribute: str,
    make_wrapper: Callable[[Callable[..., Any]], Callable[..., Any]],
    *,
    library: str,
    version: str,
    tested: tuple[tuple[int, int], tuple[int, int]],
) -> None:
    """Replace ``owner.attribute`` by ``make_wrapper(original)`` unless already done."""
    current = getattr(owner, attribute)
    if hasattr(current, _MARK):
        return
    major_minor = tuple(int(p) for p in version.split(".")[:2])
    low, high = tested
    if not (low <= major_minor < high):
        logger.warning("%s %s is outside the tested range %s..%s", library, version, low, high)
    wrapper = make_wrapper(current)
    setattr(wrapper, _MARK, current)
    setattr(owner, attribute, wrapper)

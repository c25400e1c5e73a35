"""Progress bars for long work (building references, preparing datasets, scoring), on stderr.

Shown only where someone watches: stderr is a terminal and ``MWZ_QUIET`` is not set (``mwz -q``
sets it, and wins). ``MWZ_PROGRESS=1`` forces them on otherwise (for tests and logs). It lives in the lowest layer
so that datasets, metrics and the CLI share one switch.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Iterable, Iterator
from typing import TypeVar

T = TypeVar("T")


def enabled() -> bool:
    """Whether progress bars are shown now."""
    if os.environ.get("MWZ_QUIET"):
        return False
    return os.environ.get("MWZ_PROGRESS") == "1" or sys.stderr.isatty()


def progress(items: Iterable[T], description: str, total: int | None = None) -> Iterator[T]:
    """``items`` with a tqdm bar on stderr when :func:`enabled`, else ``items`` untouched."""
    if not enabled():
        yield from items
        return
    from tqdm import tqdm

    yield from tqdm(items, desc=description, total=total, file=sys.stderr, leave=False, unit="it")

"""What a system's code prints never reaches mwz's own output (``--json`` stays JSON).

While a run loads its system (the import, the factory) and while sessions run, ``sys.stdout`` and
``sys.stderr`` are routed: a thread working for a system writes into its own buffer, which is then
logged under the ``mwz.system`` logger at DEBUG (``mwz -v interact`` shows it), each line labelled
with the system (and the session and turn); every other write goes to the real stream.
"""

from __future__ import annotations

import contextlib
import logging
import sys
import threading
from collections.abc import Iterator
from typing import Any

system_output = logging.getLogger("mwz.system")  # what systems print, at DEBUG (shown with -v)

_working = threading.local()  # .buffer: what the system working in this thread has printed


class _Routed:
    """``sys.stdout`` or ``sys.stderr`` while routed: a thread working for a system writes into its
    buffer; every other write goes to the real stream."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, text: str) -> int:
        buffer = getattr(_working, "buffer", None)
        if buffer is None:
            return self.stream.write(text)
        buffer.append(text)
        return len(text)

    def flush(self) -> None:
        if getattr(_working, "buffer", None) is None:
            self.stream.flush()

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextlib.contextmanager
def routed_output() -> Iterator[None]:
    """Route ``sys.stdout`` and ``sys.stderr`` (see :class:`_Routed`) for the duration."""
    if isinstance(sys.stdout, _Routed):  # already routed (a run inside a run)
        yield
        return
    saved = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = _Routed(saved[0]), _Routed(saved[1])
    try:
        yield
    finally:
        sys.stdout, sys.stderr = saved


@contextlib.contextmanager
def printed_by(label: str) -> Iterator[None]:
    """What this thread prints meanwhile is the system's: logged under ``label`` afterwards (output
    must be routed, see :func:`routed_output`)."""
    outer = getattr(_working, "buffer", None)
    _working.buffer = []
    try:
        yield
    finally:
        printed = "".join(_working.buffer)
        _working.buffer = outer
        for line in printed.rstrip().splitlines():
            system_output.debug("%s: %s", label, line)

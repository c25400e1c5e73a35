"""What a file holds, told from its bytes alone: a session file of ``mwz interact``, its export as
predictions (``--predictions``), or neither (predictions of a system).

Light on purpose: ``mwz evaluate`` asks it of every input, and static evaluation must not pay for
importing the interactive room to learn that a predictions file is only predictions.
"""

from __future__ import annotations

import json
import os

SESSIONS_FORMAT = "mwz-interact-sessions"  # the ``format`` of a session file's header line
EXPORT_KEY = "mwz"  # per system turn of an export: what mwzeval's keys do not hold


def is_session_file(path: str | os.PathLike) -> bool:
    """Whether a file starts with a session file's header."""
    try:
        with open(path, "rb") as f:
            first = f.readline(1 << 16)
        return json.loads(first).get("format") == SESSIONS_FORMAT
    except (OSError, ValueError, AttributeError, RecursionError):
        return False


def may_be_export(path: str | os.PathLike) -> bool:
    """Whether a file may be an export of sessions (it holds the export's key; its reader decides)."""
    try:
        with open(path, "rb") as f:
            return f'"{EXPORT_KEY}"'.encode() in f.read()
    except OSError:
        return False


def holds_sessions(path: str | os.PathLike) -> bool:
    """A session file, or what may be its export: a file to read as sessions (:func:`is_session_file`,
    :func:`may_be_export`)."""
    return is_session_file(path) or may_be_export(path)

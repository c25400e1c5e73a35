"""Session files: one JSON line per finished session, after a header line naming the run.

A session is appended (and flushed) the moment it ends, so an interrupted run loses at most
the sessions in flight. The header holds the run's configuration; ``--resume`` continues a file
only under the same configuration, skips the sessions it holds, and drops a last line cut off by
a killed process. Because each session is seeded by the run's seed and its dialogue id, the
resumed file holds the same sessions as an uninterrupted run (in another order: sessions are
written as they finish; readers order them by the goals).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from mwz_metrics.inputs import InputError

logger = logging.getLogger(__name__)

FORMAT = "mwz-interact-sessions"
FORMAT_VERSION = 1


def header(run: Mapping[str, Any]) -> dict[str, Any]:
    """The first line of a session file."""
    return {"format": FORMAT, "version": FORMAT_VERSION, "run": dict(run)}


def read(path: str | os.PathLike, *, repair: bool = False) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header's run configuration and the sessions of a file.

    A last line that is not complete JSON (a killed writer) is dropped with a warning, and with
    ``repair`` cut from the file; any other bad line is an error naming file and line.
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot read the session file ({error.strerror or error})") from None
    lines = raw.split(b"\n")
    if not lines or not lines[0].strip():
        raise InputError(f"{path}: empty; not a session file of mwz interact")
    try:
        first = json.loads(lines[0])
    except (json.JSONDecodeError, UnicodeDecodeError):
        first = None
    if not isinstance(first, dict) or first.get("format") != FORMAT:
        raise InputError(f"{path}: line 1 is not the header of an mwz interact session file")
    if first.get("version") != FORMAT_VERSION:
        raise InputError(f"{path}: session file version {first.get('version')}, this mwz-eval reads {FORMAT_VERSION}")
    sessions: list[dict[str, Any]] = []
    good_end = len(lines[0]) + 1
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            good_end += len(line) + 1
            continue
        try:
            session = json.loads(line)
            if not isinstance(session, dict) or "id" not in session or "turns" not in session:
                raise ValueError("not a session record")
        except (json.JSONDecodeError, UnicodeDecodeError, ValueError) as error:
            if number == len(lines) or (number == len(lines) - 1 and not lines[-1].strip()):
                logger.warning("%s: line %d is incomplete (an interrupted run); dropped", path, number)
                if repair:
                    with open(path, "r+b") as f:
                        f.truncate(min(good_end, len(raw)))
                break
            raise InputError(f"{path}: line {number} is not a session record ({error})") from None
        sessions.append(session)
        good_end += len(line) + 1
    return first["run"], sessions


def add_outcomes(path: str | os.PathLike, per_session: list[Mapping[str, Any]]) -> None:
    """Write each session's scored outcome (``outcome``: mwzeval's per-domain Inform/Success, the
    simulator's view, the act figures) into the session file of the run that wrote it, atomically.

    Only the run that wrote a file calls this (``--score-only`` reads a file, it never changes it);
    a resumed run keeps the outcomes, which are no part of the run's configuration.
    """
    path = Path(path)
    outcomes = {record["id"]: record for record in per_session}
    lines = path.read_text(encoding="utf-8").splitlines()
    out = [lines[0]]
    for line in lines[1:]:
        if not line.strip():
            continue
        session = json.loads(line)
        if session["id"] in outcomes:
            session["outcome"] = {k: v for k, v in outcomes[session["id"]].items() if k != "id"}
        out.append(json.dumps(session, ensure_ascii=False))
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_text("\n".join(out) + "\n", encoding="utf-8")
    os.replace(temporary, path)


def looks_like_session_file(path: str | os.PathLike) -> bool:
    """Whether a file starts with a session-file header."""
    try:
        with open(path, "rb") as f:
            first = f.readline(1 << 16)
        return json.loads(first).get("format") == FORMAT
    except (OSError, ValueError, AttributeError):
        return False


class SessionWriter:
    """Appends session lines to a file, one at a time (thread-safe), flushed at once."""

    def __init__(self, path: str | os.PathLike, run: Mapping[str, Any], *, append: bool) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        if not append:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "w", encoding="utf-8") as f:
                f.write(json.dumps(header(run), ensure_ascii=False) + "\n")
        self._file = open(self.path, "a", encoding="utf-8")  # noqa: SIM115 (closed by close())

    def write(self, session: Mapping[str, Any]) -> None:
        """Append one session and flush it to the operating system."""
        line = json.dumps(session, ensure_ascii=False)
        with self._lock:
            self._file.write(line + "\n")
            self._file.flush()

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._file.close()


def in_goal_order(sessions: list[dict[str, Any]], order: list[str]) -> Iterator[dict[str, Any]]:
    """Sessions sorted by the position of their goal in ``order`` (unknown ids last, by id)."""
    position = {key: i for i, key in enumerate(order)}
    yield from sorted(sessions, key=lambda s: (position.get(s["id"], len(position)), s["id"]))

"""Session files: one JSON line per finished session, after a header line naming the run.

A session is appended (and flushed) the moment it ends, so an interrupted run loses at most
the sessions in flight. The header holds the run's configuration; ``--resume`` continues a file
only under the same configuration (settings that do not change what is measured, such as
``--timeout``, ``--retries`` and ``-j``, may differ: a ``resumed`` line records them), skips the
sessions it holds, and drops a last line cut off by a killed process. Because each session is
seeded by the run's seed and its dialogue id, the resumed file holds the same sessions as an
uninterrupted run (in another order: sessions are written as they finish; readers order them by
the goals).

Any text survives a session file: lines are written with ``ensure_ascii`` (a lone surrogate is
kept as its escape, U+2028, U+2029 and U+0085 never break a line) and split on ``\\n`` bytes only.
One process writes a file at a time (:func:`exclusive`, an advisory lock beside it); a file that
holds a session twice all the same (an older version, a copy) is read with each session once and
a warning. A session's identity is :func:`session_key`.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import fcntl
import json
import logging
import os
import socket
import threading
from collections.abc import Callable, Hashable, Iterator, Mapping
from pathlib import Path
from typing import Any

from mwz_metrics.inputs import InputError
from mwz_metrics.interactive.protocol import parse_session_id

logger = logging.getLogger(__name__)

FORMAT = "mwz-interact-sessions"
FORMAT_VERSION = 1
RESUMED = "resumed"  # the key of a line that records a resumption (not a session)


def session_key(record: Mapping[str, Any]) -> Hashable:
    """What makes a session one: its goal and trial, as its id says them (the dialogue id, with ``#trial``
    in a run of several trials per goal: :func:`~mwz_metrics.interactive.protocol.session_id`); a file
    holds each key once."""
    return str(record["id"])


def encode(record: Mapping[str, Any]) -> bytes:
    """One line of a session file: ASCII JSON (no text of a system can break the line or the encoding)."""
    return json.dumps(record, ensure_ascii=True).encode("ascii") + b"\n"


def header(run: Mapping[str, Any]) -> dict[str, Any]:
    """The first line of a session file."""
    return {"format": FORMAT, "version": FORMAT_VERSION, "run": dict(run)}


@dataclasses.dataclass
class SessionFile:
    """What a session file holds: the run's configuration, its sessions (each once, in file
    order), the resumptions recorded, and how many repeated sessions were left out."""

    run: dict[str, Any]
    sessions: list[dict[str, Any]]
    resumptions: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    duplicates: int = 0


def read_file(path: str | os.PathLike, *, repair: bool = False) -> SessionFile:
    """The whole of a session file (see :class:`SessionFile`).

    A last line that is not complete JSON (a killed writer) is dropped with a warning, and with
    ``repair`` cut from the file; any other bad line is an error naming file and line. A session
    held twice is kept once (the first) with a warning.
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
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        first = None
    if not isinstance(first, dict) or first.get("format") != FORMAT:
        raise InputError(f"{path}: line 1 is not the header of an mwz interact session file")
    if first.get("version") != FORMAT_VERSION:
        raise InputError(f"{path}: session file version {first.get('version')}, this mwz-eval reads {FORMAT_VERSION}")
    found = SessionFile(first["run"], [])
    seen: set[Hashable] = set()
    good_end = len(lines[0]) + 1
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            good_end += len(line) + 1
            continue
        try:
            record = json.loads(line)
            if isinstance(record, dict) and RESUMED in record and "id" not in record:
                found.resumptions.append(record[RESUMED])
                good_end += len(line) + 1
                continue
            if not isinstance(record, dict) or "id" not in record or "turns" not in record:
                raise ValueError("not a session record")
        except (json.JSONDecodeError, UnicodeDecodeError, ValueError, RecursionError) as error:
            if number == len(lines) or (number == len(lines) - 1 and not lines[-1].strip()):
                logger.warning("%s: line %d is incomplete (an interrupted run); dropped", path, number)
                if repair:
                    with open(path, "r+b") as f:
                        f.truncate(min(good_end, len(raw)))
                break
            raise InputError(f"{path}: line {number} is not a session record ({error})") from None
        good_end += len(line) + 1
        key = session_key(record)
        if key in seen:
            found.duplicates += 1
            continue
        seen.add(key)
        found.sessions.append(record)
    if found.duplicates:
        logger.warning(
            "%s holds %d session(s) more than once (two runs wrote it?); each is read once, the first",
            path,
            found.duplicates,
        )
    return found


def read(path: str | os.PathLike, *, repair: bool = False) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header's run configuration and the sessions of a file (see :func:`read_file`)."""
    found = read_file(path, repair=repair)
    return found.run, found.sessions


def _rewrite_records(path: Path, rewrite: Callable[[bytes, Any], bytes]) -> None:
    """Replace a file atomically: its header as it is, each record's line by ``rewrite(line, record)``
    (b"" drops it), blank lines left out."""
    lines = path.read_bytes().split(b"\n")
    out = [lines[0] + b"\n"] + [rewrite(line, json.loads(line)) for line in lines[1:] if line.strip()]
    temporary = path.with_name(path.name + ".tmp")
    temporary.write_bytes(b"".join(out))
    os.replace(temporary, path)


def add_outcomes(path: str | os.PathLike, per_session: list[Mapping[str, Any]]) -> None:
    """Write each session's scored outcome (``outcome``: mwzeval's per-domain Inform/Success, the
    simulator's view, the act figures) into the session file of the run that wrote it, atomically.

    Only the run that wrote a file calls this (``--score-only`` reads a file, it never changes it);
    a resumed run keeps the outcomes, which are no part of the run's configuration.
    """
    outcomes = {session_key(record): record for record in per_session}

    def with_outcome(line: bytes, record: Any) -> bytes:
        if isinstance(record, dict) and "id" in record and session_key(record) in outcomes:
            record["outcome"] = {k: v for k, v in outcomes[session_key(record)].items() if k != "id"}
        return encode(record)

    _rewrite_records(Path(path), with_outcome)


def drop_sessions(path: str | os.PathLike, keys: set[Hashable]) -> None:
    """Remove the sessions ``keys`` from a file (atomically), to run them again."""

    def kept(line: bytes, record: Any) -> bytes:
        dropped = isinstance(record, dict) and "id" in record and session_key(record) in keys
        return b"" if dropped else line + b"\n"

    _rewrite_records(Path(path), kept)


def looks_like_session_file(path: str | os.PathLike) -> bool:
    """Whether a file starts with a session-file header."""
    try:
        with open(path, "rb") as f:
            first = f.readline(1 << 16)
        return json.loads(first).get("format") == FORMAT
    except (OSError, ValueError, AttributeError, RecursionError):
        return False


# -- one writer per file ---------------------------------------------------------------------

_held: dict[str, list[int]] = {}  # lock files this process holds: [times held, descriptor]
_held_lock = threading.Lock()


def lock_path(path: str | os.PathLike) -> Path:
    """The advisory lock file beside a session file."""
    path = Path(path)
    return path.with_name(path.name + ".lock")


def _acquire(lock: Path, path: Path) -> int:
    """An exclusive ``flock`` on ``lock`` (the file it names, not one unlinked meanwhile)."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    while True:
        fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            try:
                holder = os.read(fd, 300).decode("utf-8", "replace").strip() or "another process"
            finally:
                os.close(fd)
            raise InputError(
                f"{path}: another run is writing this session file ({holder}); wait for it to end or choose another -o"
            ) from None
        try:
            same = os.stat(lock).st_ino == os.fstat(fd).st_ino
        except FileNotFoundError:
            same = False
        if same:
            break
        os.close(fd)  # the holder removed it as we opened it: take the new one
    started = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M:%S UTC")
    os.ftruncate(fd, 0)
    os.write(fd, f"pid {os.getpid()} on {socket.gethostname()}, since {started}\n".encode())
    return fd


@contextlib.contextmanager
def exclusive(path: str | os.PathLike) -> Iterator[None]:
    """Hold the advisory lock of a session file for the duration (reentrant within a process); another
    process asking for it meanwhile gets :class:`InputError` naming the holder."""
    lock = lock_path(path)
    key = str(lock.resolve())
    with _held_lock:
        if key in _held:
            _held[key][0] += 1
        else:
            _held[key] = [1, _acquire(lock, Path(path))]
    try:
        yield
    finally:
        with _held_lock:
            _held[key][0] -= 1
            if not _held[key][0]:
                _, fd = _held.pop(key)
                with contextlib.suppress(OSError):
                    os.unlink(lock)
                os.close(fd)


class SessionWriter:
    """Appends session lines to a file, one at a time (thread-safe), flushed at once."""

    def __init__(self, path: str | os.PathLike, run: Mapping[str, Any], *, append: bool) -> None:
        self.path = Path(path)
        self._lock = threading.Lock()
        if not append:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with open(self.path, "wb") as f:
                f.write(encode(header(run)))
        self._file = open(self.path, "ab")  # noqa: SIM115 (closed by close())

    def write(self, session: Mapping[str, Any]) -> None:
        """Append one session and flush it to the operating system."""
        line = encode(session)
        with self._lock:
            self._file.write(line)
            self._file.flush()

    def note_resumption(self, what: Mapping[str, Any]) -> None:
        """Record a resumption (its settings, the sessions run again) in a line of its own."""
        self.write({RESUMED: dict(what)})

    def close(self) -> None:
        """Close the file."""
        with self._lock:
            self._file.close()


def in_goal_order(sessions: list[dict[str, Any]], order: list[str]) -> list[dict[str, Any]]:
    """Sessions sorted by the position of their goal in ``order`` (unknown goals last, by id), each goal's
    trials in order: what a file's readers score, whatever order its sessions finished in."""
    position = {key: i for i, key in enumerate(order)}

    def where(session: Mapping[str, Any]) -> tuple[int, str, int]:
        goal, trial = parse_session_id(str(session["id"]))
        return position.get(goal, len(position)), goal, trial or 0

    return sorted(sessions, key=where)

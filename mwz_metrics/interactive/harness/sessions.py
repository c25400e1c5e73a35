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
from collections.abc import Callable, Hashable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mwz_metrics import outputs
from mwz_metrics.inputs import InputError, is_session_file
from mwz_metrics.records import header as headers
from mwz_metrics.records.header import FORMAT as FORMAT
from mwz_metrics.records.header import FORMAT_VERSION as FORMAT_VERSION
from mwz_metrics.records.header import header as header
from mwz_metrics.records.session import parse_session_id, problem

logger = logging.getLogger(__name__)

RESUMED = "resumed"  # the key of a line that records a resumption (not a session)


def session_key(record: Mapping[str, Any]) -> Hashable:
    """What makes a session one: its goal and trial, as its id says them (the dialogue id, with ``#trial``
    in a run of several trials per goal: :func:`~mwz_metrics.interactive.protocol.session_id`); a file
    holds each key once."""
    return str(record["id"])


def encode(record: Mapping[str, Any]) -> bytes:
    """One line of a session file: ASCII JSON (no text of a system can break the line or the encoding)."""
    return json.dumps(record, ensure_ascii=True).encode("ascii") + b"\n"


@dataclasses.dataclass
class SessionFile:
    """What a session file holds: the run's configuration, its sessions (each once, in file
    order), the resumptions recorded, how many repeated sessions were left out, and how many
    sessions of goals (or trials) outside the run's."""

    run: dict[str, Any]
    sessions: list[dict[str, Any]]  # each a valid SessionRecord (mwz_metrics.records.session)
    resumptions: list[dict[str, Any]] = dataclasses.field(default_factory=list)
    duplicates: int = 0
    foreign: int = 0


def read_file(path: str | os.PathLike, *, repair: bool = False) -> SessionFile:
    """The whole of a session file (see :class:`SessionFile`).

    A last line that is not complete JSON (a killed writer) is dropped with a warning, and with
    ``repair`` cut from the file; a complete last line without its newline is read, and with ``repair``
    given its newline (so that nothing is ever appended onto it). Any other bad line, or a record of the
    wrong shape (a hand-edited file), is an error naming file, line and field. A session held twice is
    kept once (the first) with a warning; sessions outside the run's goals are left out with a warning
    (:func:`within_run`).
    """
    path = Path(path)
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise InputError(f"{path}: cannot read the session file ({error.strerror or error})") from None
    lines = raw.split(b"\n")
    if not lines or not lines[0].strip():
        raise InputError(f"{path}: empty; not a session file of mwz interact")
    first = headers.from_json(_json(lines[0]), path)
    found = SessionFile(first["run"], [])  # type: ignore[arg-type]  # a RunConfig, read as a plain dict
    seen: set[Hashable] = set()
    good_end = len(lines[0]) + 1
    last = max((n for n, line in enumerate(lines) if line.strip()), default=0)  # the last line with text
    for number, line in enumerate(lines[1:], start=2):
        if not line.strip():
            good_end += len(line) + 1
            continue
        record = _json(line)
        if record is _BROKEN:
            if number - 1 == last:
                logger.warning("%s: line %d is incomplete (an interrupted run); dropped", path, number)
                if repair:
                    with open(path, "r+b") as f:
                        f.truncate(min(good_end, len(raw)))
                break
            raise InputError(f"{path}: line {number} is not JSON (a session record is one line of JSON)")
        if isinstance(record, dict) and RESUMED in record and "id" not in record:
            found.resumptions.append(record[RESUMED])
        else:
            wrong = problem(record)
            if wrong:
                raise InputError(f"{path}: line {number}: {wrong}")
            key = session_key(record)
            if key in seen:
                found.duplicates += 1
            else:
                seen.add(key)
                found.sessions.append(record)
        good_end += len(line) + 1
    if repair and raw and not raw.endswith(b"\n") and good_end > len(raw):  # a complete last line, no newline
        with open(path, "ab") as f:
            f.write(b"\n")
    if found.duplicates:
        logger.warning(
            "%s holds %d session(s) more than once (two runs wrote it?); each is read once, the first",
            path,
            found.duplicates,
        )
    found.sessions, found.foreign = within_run(found.run, found.sessions, str(path), first.get("goal_ids"))
    return found


_BROKEN = object()  # a line that is not JSON


def _json(line: bytes) -> Any:
    """A line's JSON, or :data:`_BROKEN` (a number too long for Python's int counts as broken: a file's
    bytes must not become an internal error)."""
    try:
        return json.loads(line)
    except (ValueError, UnicodeDecodeError, RecursionError):
        return _BROKEN


def within_run(
    run: Mapping[str, Any], sessions: list[dict[str, Any]], source: str, goal_ids: Sequence[str] | None = None
) -> tuple[list[dict[str, Any]], int]:
    """The sessions that belong to the run (its goals, ``goal_ids`` where the file names them, and its
    trials), and how many were left out, with a warning saying so (sessions appended from another run
    must not change the figures unnoticed). A file of an older version names no goal ids: its sessions
    of more goals than the run had are refused."""
    trials = run.get("trials", 1) if isinstance(run.get("trials", 1), int) else 1
    allowed = set(goal_ids) if isinstance(goal_ids, list) else None
    kept = []
    for session in sessions:
        goal, trial = parse_session_id(str(session["id"]))
        in_trials = trial is None if trials == 1 else trial is not None and 0 <= trial < trials
        if in_trials and (allowed is None or goal in allowed):
            kept.append(session)
    left_out = len(sessions) - len(kept)
    if left_out:
        logger.warning(
            "%s: %d session(s) of goals or trials outside the run's (%s) left out: not scored, not resumed",
            source,
            left_out,
            f"{len(allowed)} goals" if allowed is not None else f"{trials} trial(s) per goal",
        )
    count = (run.get("goals") or {}).get("count") if isinstance(run.get("goals"), Mapping) else None
    goals = {parse_session_id(str(s["id"]))[0] for s in kept}
    if allowed is None and isinstance(count, int) and len(goals) > count:
        raise InputError(
            f"{source}: sessions of {len(goals)} goals, but its run had {count}: sessions of another run were added"
        )
    return kept, left_out


def read(path: str | os.PathLike, *, repair: bool = False) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The header's run configuration and the sessions of a file (see :func:`read_file`)."""
    found = read_file(path, repair=repair)
    return found.run, found.sessions


def _rewrite_records(path: Path, rewrite: Callable[[bytes, Any], bytes]) -> None:
    """Replace a file atomically: its header as it is, each record's line by ``rewrite(line, record)``
    (b"" drops it), blank lines left out."""
    lines = path.read_bytes().split(b"\n")
    out = [lines[0] + b"\n"] + [rewrite(line, json.loads(line)) for line in lines[1:] if line.strip()]
    outputs.write_bytes(path, b"".join(out), then=f"score it with mwz interact --score-only -i {path}")


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
    """Whether a file starts with a session-file header (:func:`mwz_metrics.inputs.is_session_file`)."""
    return is_session_file(path)


# -- one writer per file ---------------------------------------------------------------------

_held: dict[str, list[int]] = {}  # lock files this process holds: [times held, descriptor]
_held_lock = threading.Lock()


def lock_path(path: str | os.PathLike) -> Path:
    """The advisory lock file beside a session file's real file (one file under two names has one lock)."""
    path = outputs.real_path(path)
    return path.with_name(path.name + ".lock")


def _acquire(lock: Path, path: Path) -> int:
    """An exclusive ``flock`` on ``lock`` (the file it names, not one unlinked meanwhile; never through a
    symlink, :func:`~mwz_metrics.outputs.open_lock`)."""
    try:
        lock.parent.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InputError(f"{path}: its folder cannot be made ({error.strerror or error})") from None
    while True:
        fd = outputs.open_lock(lock)
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
            same = os.lstat(lock).st_ino == os.fstat(fd).st_ino
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
    """Appends session lines to a file, one at a time (thread-safe), flushed at once. A write the machine
    refuses (a full disk...) is an :class:`InputError` naming the file: the sessions written so far are
    kept, and ``--resume`` continues them."""

    def __init__(
        self, path: str | os.PathLike, run: Mapping[str, Any], *, append: bool, goal_ids: Sequence[str] | None = None
    ) -> None:
        self.path = outputs.real_path(path)  # a symlink is written through, never replaced
        self.shown = Path(path)
        self._lock = threading.Lock()
        self._file: Any = None
        try:
            if not append:
                self.path.parent.mkdir(parents=True, exist_ok=True)
                with open(self.path, "wb") as f:
                    f.write(encode(header(run, goal_ids)))
            self._file = open(self.path, "ab")  # noqa: SIM115 (closed by close())
        except OSError as error:
            raise self._refused(error) from None

    def _refused(self, error: OSError) -> Exception:
        if error.errno not in outputs.RESOURCE_ERRORS:
            return error
        return InputError(outputs.resource_error(error, self.shown, f"mwz interact --resume -o {self.shown} continues"))

    def write(self, session: Mapping[str, Any]) -> None:
        """Append one session and flush it to the operating system."""
        line = encode(session)
        with self._lock:
            try:
                self._file.write(line)
                self._file.flush()
            except OSError as error:
                raise self._refused(error) from None

    def note_resumption(self, what: Mapping[str, Any]) -> None:
        """Record a resumption (its settings, the sessions run again) in a line of its own."""
        self.write({RESUMED: dict(what)})

    def close(self) -> None:
        """Close the file (what a refused write left in its buffer is dropped: ``--resume`` repairs a cut line)."""
        with self._lock:
            if self._file is None:
                return
            with contextlib.suppress(OSError):  # the file is closed all the same
                self._file.close()


def in_goal_order(sessions: list[dict[str, Any]], order: list[str]) -> list[dict[str, Any]]:
    """Sessions sorted by the position of their goal in ``order`` (unknown goals last, by id), each goal's
    trials in order: what a file's readers score, whatever order its sessions finished in."""
    position = {key: i for i, key in enumerate(order)}

    def where(session: Mapping[str, Any]) -> tuple[int, str, int]:
        goal, trial = parse_session_id(str(session["id"]))
        return position.get(goal, len(position)), goal, trial or 0

    return sorted(sessions, key=where)

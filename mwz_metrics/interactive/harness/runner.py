"""The session runner: a simulated user and the system under test take turns, one goal each.

Every session is seeded by the run's seed, its dialogue id and its trial
(:func:`~.protocol.session_seed`; the system receives the seed in the request), and the system sees
only the request of :mod:`.protocol`, so sessions are independent: ``jobs`` of them run at once (threads;
what helps is a system that waits, such as an HTTP endpoint), and a resumed run gives the same
sessions as an uninterrupted one. A failing system or simulator ends its own session with a
recorded reason (:data:`~.protocol.END_REASONS`) naming the system, the session and the turn; the
run goes on.

The user's acts reach the system only where the run says so (``user_acts``: act level, as
ConvLab evaluates a system without its NLU); otherwise the system reads the user's words alone.
What a system's code prints while it answers (``print``, a library's warnings) never reaches
mwz's own output: it is captured per session and turn and logged (``mwz -v interact`` shows it).
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import random
import threading
import time
import traceback
from collections.abc import Callable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any, TypeVar

from mwz_metrics.inputs import InputError
from mwz_metrics.interactive.acts import acts_json
from mwz_metrics.interactive.goals import UserGoal
from mwz_metrics.interactive.harness import capture
from mwz_metrics.interactive.harness import sessions as session_files
from mwz_metrics.interactive.harness.defaults import DEFAULT_MAX_TURNS, DEFAULT_USER_ACTS
from mwz_metrics.interactive.protocol import (
    FAILED_ENDS,
    INFRASTRUCTURE_ENDS,
    MAX_RESPONSE_CHARS,
    SessionEnd,
    System,
    SystemTurn,
    describe_failure,
    own_failure,
    parse_system_turn,
    session_id,
    session_seed,
)
from mwz_metrics.interactive.user.base import SimulatorFactory
from mwz_metrics.records import request as requests
from mwz_metrics.records.ends import End
from mwz_metrics.records.session import SessionRecord, end_reason
from mwz_metrics.records.turns import TurnRecord

logger = logging.getLogger(__name__)
# A failing system's or simulator's traceback: always in the session's ``end``, on stderr under ``mwz --debug``.
failures = logging.getLogger("mwz.failures")
TRACEBACK_CHARS = 4000  # the end of a traceback kept in a session record (the innermost frames)


_Record = TypeVar("_Record", bound=Mapping[str, Any])


def _copy(record: _Record) -> _Record:
    """A deep copy of a JSON record (each turn is copied once, not the whole history each turn)."""
    copied: _Record = json.loads(json.dumps(record))
    return copied


def _end(reason: str, detail: str = "", error: BaseException | None = None) -> End:
    end: End = {"reason": reason, **({"detail": detail[:300]} if detail else {})}  # type: ignore[typeddict-item]
    if error is not None:  # the code's own failure: where it happened, for its author
        text = "".join(traceback.format_exception(error))
        end["traceback"] = text[-TRACEBACK_CHARS:]
        failures.debug("%s\n%s", detail, text.rstrip())
    return end


def _ask(system: System, request: Mapping[str, Any], label: str) -> Any:
    """The system's answer; what it printed meanwhile logged under ``label`` (system, session, turn)."""
    with capture.printed_by(label):
        return system.respond(request)


# -- one session ----------------------------------------------------------------------------


class _Session:
    """One session as it runs: its records, what the system has seen, how it ended."""

    def __init__(
        self,
        goal: UserGoal,
        system: System,
        *,
        name: str,
        user_acts: bool,
        max_chars: int,
        trial: int | None = None,
        seed: int = 0,
    ) -> None:
        self.goal, self.system, self.name, self.user_acts = goal, system, name, user_acts
        self.max_chars = max_chars
        self.trial, self.id = trial, session_id(goal.dialogue_id, trial)
        self.seed_text, self.seed = session_seed(seed, goal.dialogue_id, trial)
        self.turns: list[TurnRecord] = []
        self.history: list[TurnRecord] = []  # what the system sees: copies, so that it cannot touch the records
        self.booked: list[list[str]] = []
        self.end: End | None = None
        self.simulator: Any = None

    def where(self, index: int) -> str:
        """``system NAME, session ID, turn N``: what an error names."""
        return f"system {self.name}, session {self.id}, turn {index}"

    def start(self, factory: SimulatorFactory, rng: random.Random) -> Any:
        """The simulator's first user turn (None, the session ended, if the simulator failed)."""
        try:
            self.simulator = factory.session(self.goal, rng)
            return self.simulator.start()
        except BaseException as error:  # a plugin's simulator: whatever it raises ends this session only
            if not own_failure(error):
                raise
            self.end = _end("simulator_error", f"session {self.id}: {describe_failure(error)}", error)
            return None

    def hear(self, user: Any) -> None:
        """Record the user's turn; the system's view of it without the acts unless the run gives them."""
        self.turns.append(user.record())
        seen = _copy(self.turns[-1])
        if not self.user_acts:
            seen.pop("acts", None)
        self.history.append(seen)

    def request(self, index: int) -> requests.Request:
        """What the system receives for its turn ``index`` (see :mod:`~mwz_metrics.interactive.protocol`)."""
        return requests.request(self.goal.dialogue_id, index, self.history, self.seed, self.trial)

    def answer(self, index: int) -> SystemTurn | None:
        """The system's validated turn ``index`` (None, the session ended, if it failed)."""
        try:
            answer = _ask(self.system, self.request(index), self.where(index))
            return parse_system_turn(answer, self.goal.dialogue_id, index, max_chars=self.max_chars)
        except SessionEnd as stop:
            self.end = _end(stop.reason, f"{self.where(index)}: {stop.detail}" if stop.detail else self.where(index))
        except BaseException as error:  # the system under test: its failure is a finding, not a crash
            if not own_failure(error):
                raise
            self.end = _end("system_error", f"{self.where(index)}: {describe_failure(error)}", error)
            logger.info("%s failed: %s", self.where(index), describe_failure(error))
        return None

    def reply(self, turn: SystemTurn, user: Any, index: int) -> Any:
        """The simulator reads the system's turn; the user's next turn (None when the session ends)."""
        self.booked.append(list(user.booked))
        record = turn.record()
        try:
            understood = self.simulator.observe(turn)
            self.history.append(_copy(record))
            if turn.acts is None:
                record["read_acts"] = acts_json(understood)
            self.turns.append(record)
            if user.final:
                self.end = _end("user_done")
                return None
            return self.simulator.next_turn()
        except BaseException as error:
            if not own_failure(error):
                raise
            if not self.turns or self.turns[-1] is not record:
                self.turns.append(record)
            self.end = _end("simulator_error", f"session {self.id}, turn {index}: {describe_failure(error)}", error)
            return None

    def record(self) -> SessionRecord:
        """The record a session file stores (see :mod:`.sessions`)."""
        end = self.end or _end("max_turns")
        simulator = self.simulator
        session: dict[str, Any] = {"id": self.id}  # built in the order of its keys in a file
        if self.trial is not None:
            session["trial"] = self.trial
        session |= {
            "goal": self.goal.as_json(),
            "turns": self.turns,
            "booked": self.booked,
            "end": end,
            "complete": simulator.complete() if simulator is not None and end["reason"] != "simulator_error" else None,
            "details": simulator.details() if simulator is not None else {},
        }
        report = getattr(self.system, "report", None)
        if callable(report):
            try:
                session["system_report"] = report(self.id)
            except BaseException as error:  # the system's code, as respond() is
                if not own_failure(error):
                    raise
                session["system_report"] = {"error": describe_failure(error)}
        record: SessionRecord = session  # type: ignore[assignment]
        return record


class SteppedSession:
    """One session advanced a system turn at a time: :func:`run_session`'s loop, for a caller that
    hands the system's turns in (a Gymnasium environment whose agent is the system)."""

    def __init__(
        self,
        goal: UserGoal,
        factory: SimulatorFactory,
        system: System,
        *,
        seed: int = 0,
        max_turns: int = DEFAULT_MAX_TURNS,
        user_acts: bool = DEFAULT_USER_ACTS,
        name: str = "",
        max_response_chars: int = MAX_RESPONSE_CHARS,
        trial: int | None = None,
    ) -> None:
        label = name or getattr(system, "name", "") or "under test"
        self.session = _Session(
            goal, system, name=label, user_acts=user_acts, max_chars=max_response_chars, trial=trial, seed=seed
        )
        self.max_turns = max_turns
        self.index = 0  # the system turn asked for next
        self.user = self.session.start(factory, random.Random(self.session.seed_text))
        if not self.done:
            self.session.hear(self.user)

    @property
    def done(self) -> bool:
        """The session has ended (the user, a failure, or the turn limit)."""
        return self.user is None or self.index >= self.max_turns

    def request(self) -> requests.Request:
        """What the system receives for the next turn."""
        return self.session.request(self.index)

    def step(self) -> None:
        """The system answers the next turn; the user replies (unless the session ends)."""
        turn = self.session.answer(self.index)
        self.user = None if turn is None else self.session.reply(turn, self.user, self.index)
        self.index += 1
        if not self.done:
            self.session.hear(self.user)

    def record(self) -> SessionRecord:
        """The record a session file stores (see :mod:`.sessions`)."""
        return self.session.record()


def run_session(
    goal: UserGoal,
    factory: SimulatorFactory,
    system: System,
    *,
    seed: int = 0,
    max_turns: int = DEFAULT_MAX_TURNS,
    user_acts: bool = DEFAULT_USER_ACTS,
    name: str = "",
    max_response_chars: int = MAX_RESPONSE_CHARS,
    trial: int | None = None,
) -> SessionRecord:
    """One session of ``goal``: the record a session file stores (see :mod:`.sessions`). ``user_acts``:
    whether the system sees the user's acts; ``name``: the system's, for the errors;
    ``max_response_chars``: a longer response ends the session (``malformed_response``); ``trial``:
    which of the goal's trials (None in a run of one trial per goal)."""
    steps = SteppedSession(
        goal,
        factory,
        system,
        seed=seed,
        max_turns=max_turns,
        user_acts=user_acts,
        name=name,
        max_response_chars=max_response_chars,
        trial=trial,
    )
    while not steps.done:
        steps.step()
    return steps.record()


# -- every session ----------------------------------------------------------------------------

# Ends that say nothing about the system's dialogue skill: ``--retry-failed`` runs these sessions again.
RETRIED_ENDS = INFRASTRUCTURE_ENDS
# Settings that change how a run goes, never what it measures: a resumed run may change them.
OPERATIONAL = ("timeout", "retries")


def _measured(run: Mapping[str, Any]) -> dict[str, Any]:
    """A run configuration without its operational settings (see :data:`OPERATIONAL`)."""
    out = dict(run)
    for part in ("system", "simulator"):
        if isinstance(out.get(part), Mapping):
            out[part] = {k: v for k, v in out[part].items() if k not in OPERATIONAL}
            if isinstance(out[part].get("options"), Mapping):
                out[part]["options"] = {k: v for k, v in out[part]["options"].items() if k not in OPERATIONAL}
    return out


def _operational(run: Mapping[str, Any]) -> dict[str, Any]:
    """A run's operational settings, as ``system.timeout``... (see :data:`OPERATIONAL`)."""
    out = {}
    for part in ("system", "simulator"):
        section: Mapping[str, Any] = run.get(part) if isinstance(run.get(part), Mapping) else {}  # type: ignore[assignment]
        options: Mapping[str, Any] = section.get("options") if isinstance(section.get("options"), Mapping) else {}  # type: ignore[assignment]
        for key in OPERATIONAL:
            if key in section:
                out[f"{part}.{key}"] = section[key]
            elif key in options:
                out[f"{part}.{key}"] = options[key]
    return out


Unit = tuple[UserGoal, "int | None"]  # one session to run: a goal and its trial (None: one trial per goal)


def units(goals: Sequence[UserGoal], trials: int) -> list[Unit]:
    """Every session of a run, in goal order and each goal's trials in order (``trials`` 1: no trial)."""
    if trials == 1:
        return [(goal, None) for goal in goals]
    return [(goal, trial) for goal in goals for trial in range(trials)]


def _resumed(
    out: str | Path | None, run: Mapping[str, Any], goals: Sequence[Unit], *, retry_failed: bool
) -> tuple[dict[Any, dict[str, Any]], dict[str, Any]]:
    """The sessions an interrupted run of the same configuration already wrote to ``out`` (less those
    ``retry_failed`` runs again, dropped from the file), and what the resumption changes."""
    if out is None or not Path(out).is_file():
        raise InputError(f"--resume: no session file {out} to continue")
    found = session_files.read_file(out, repair=True)
    previous = found.run
    if _measured(previous) != _measured(run):
        before, now = _measured(previous), _measured(run)
        changed = sorted(k for k in set(before) | set(now) if before.get(k) != now.get(k))
        raise InputError(f"--resume: {out} was written by another run configuration (differs in {', '.join(changed)})")
    done = {session_files.session_key(s): s for s in found.sessions}
    again = {key for key, s in done.items() if retry_failed and end_reason(s) in RETRIED_ENDS}
    if again:
        session_files.drop_sessions(out, again)
        done = {key: s for key, s in done.items() if key not in again}
    logger.info(
        "resuming %s: %d of %d sessions already done%s",
        out,
        len(done),
        len(goals),
        f", {len(again)} ended {'/'.join(RETRIED_ENDS)} run again" if again else "",
    )
    settings = {k: v for k, v in _operational(run).items() if _operational(previous).get(k) != v}
    return done, {"settings": settings, "run_again": len(again), "already_done": len(done)}


def _in_flight(work: Callable[[Unit], SessionRecord], todo: Sequence[Unit], jobs: int) -> Iterator[SessionRecord]:
    """Each session (a goal and its trial) as it finishes, ``jobs`` at once, in daemon threads: an interrupt (Ctrl-C)
    ends the run at once, whatever a system is doing; the sessions in flight are dropped (``--resume``
    runs them)."""
    tasks: queue.SimpleQueue[Unit] = queue.SimpleQueue()
    for unit in todo:
        tasks.put(unit)
    finished: queue.SimpleQueue[tuple[SessionRecord | None, BaseException | None]] = queue.SimpleQueue()
    stop = threading.Event()

    def worker() -> None:
        while not stop.is_set():
            try:
                unit = tasks.get_nowait()
            except queue.Empty:
                return
            try:
                finished.put((work(unit), None))
            except BaseException as error:  # a bug of ours: the run stops with it
                finished.put((None, error))

    for number in range(max(1, min(jobs, len(todo)))):
        threading.Thread(target=worker, name=f"mwz-session-{number}", daemon=True).start()
    try:
        for _ in range(len(todo)):
            while True:
                try:
                    session, error = finished.get(timeout=0.1)  # wakes for a signal
                    break
                except queue.Empty:
                    continue
            if error is not None:
                raise error
            assert session is not None
            yield session
    finally:
        stop.set()


def run_all(
    goals: Sequence[UserGoal],
    factory: SimulatorFactory,
    system: System,
    *,
    run: Mapping[str, Any],
    seed: int = 0,
    max_turns: int = DEFAULT_MAX_TURNS,
    jobs: int = 1,
    out: str | Path | None = None,
    resume: bool = False,
    retry_failed: bool = False,
    overwrite: bool = False,
    progress: Callable[[int, int, int], None] | None = None,
    user_acts: bool = DEFAULT_USER_ACTS,
    name: str = "",
    max_response_chars: int = MAX_RESPONSE_CHARS,
    trials: int = 1,
) -> list[dict[str, Any]]:
    """Every goal's sessions (``trials`` of each), in goal order; each appended to ``out`` as it finishes.

    With ``resume``, ``out`` must be a session file of the same ``run`` configuration (its
    operational settings aside): its sessions are kept and only the missing (goal, trial) sessions
    are run, and with
    ``retry_failed`` those that ended for an infrastructure reason (:data:`RETRIED_ENDS`) too.
    Without ``resume``, an existing ``out`` is replaced only with ``overwrite``. One process writes
    ``out`` at a time (:func:`.sessions.exclusive`). What the system prints is captured (:mod:`.capture`).
    """
    if retry_failed and not resume:
        raise InputError("--retry-failed goes with --resume")
    if jobs < 1:
        raise InputError(f"-j {jobs}: give a positive number of sessions in flight")
    with session_files.exclusive(out) if out is not None else contextlib.nullcontext():
        if out is not None and not resume and not overwrite and Path(out).is_file() and Path(out).stat().st_size:
            raise InputError(f"{out} exists: --resume continues it, --overwrite replaces it (or choose another -o)")
        every = units(goals, trials)
        done, resumption = _resumed(out, run, every, retry_failed=retry_failed) if resume else ({}, {})
        return _run_into(
            every,
            done,
            resumption,
            out,
            run,
            progress,
            jobs,
            lambda unit: run_session(
                unit[0],
                factory,
                system,
                seed=seed,
                max_turns=max_turns,
                user_acts=user_acts,
                name=name,
                max_response_chars=max_response_chars,
                trial=unit[1],
            ),
        )


def _run_into(
    goals: Sequence[Unit],
    done: dict[Any, dict[str, Any]],
    resumption: dict[str, Any],
    out: str | Path | None,
    run: Mapping[str, Any],
    progress: Callable[[int, int, int], None] | None,
    jobs: int,
    work: Callable[[Unit], SessionRecord],
) -> list[dict[str, Any]]:
    """Run the sessions (goal, trial) not ``done``, appending each session to ``out`` as it ends."""
    ids = [session_id(goal.dialogue_id, trial) for goal, trial in goals]
    todo = [unit for unit, key in zip(goals, ids) if key not in done]
    goal_ids = list(dict.fromkeys(goal.dialogue_id for goal, _ in goals))
    writer = session_files.SessionWriter(out, run, append=bool(resumption), goal_ids=goal_ids) if out else None
    results = dict(done)
    failed = sum(end_reason(s) in FAILED_ENDS for s in done.values())
    if progress is not None:
        progress(len(results), len(goals), failed)
    started = time.perf_counter()
    try:
        if writer is not None and resumption and (todo or resumption["settings"]):
            writer.note_resumption({**resumption, "jobs": jobs})
        with capture.routed_output():
            for session in _in_flight(work, todo, jobs):
                results[session_files.session_key(session)] = session
                if writer is not None:
                    writer.write(session)
                if progress is not None:
                    failed += end_reason(session) in FAILED_ENDS
                    progress(len(results), len(goals), failed)
    finally:
        if writer is not None:
            writer.close()
    logger.info("%d sessions in %.1f s", len(todo), time.perf_counter() - started)
    return [results[key] for key in ids if key in results]

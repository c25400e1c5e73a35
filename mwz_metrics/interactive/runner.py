"""The session runner: a simulated user and the system under test take turns, one goal each.

Every session is seeded by the run's seed and its dialogue id, and the system sees only the
request of :mod:`.protocol`, so sessions are independent: ``jobs`` of them run at once (threads;
what helps is a system that waits, such as an HTTP endpoint), and a resumed run gives the same
sessions as an uninterrupted one. A failing system or simulator ends its own session with a
recorded reason (:data:`~.protocol.END_REASONS`); the run goes on.
"""

from __future__ import annotations

import concurrent.futures
import json
import logging
import random
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from mwz_metrics.inputs import InputError
from mwz_metrics.interactive import sessions as session_files
from mwz_metrics.interactive.acts import acts_json
from mwz_metrics.interactive.goals import UserGoal
from mwz_metrics.interactive.protocol import SessionEnd, System, parse_system_turn
from mwz_metrics.interactive.simulators.base import SimulatorFactory

logger = logging.getLogger(__name__)

DEFAULT_MAX_TURNS = 20


def _copy(record: dict[str, Any]) -> dict[str, Any]:
    """A deep copy of a JSON record (each turn is copied once, not the whole history each turn)."""
    return json.loads(json.dumps(record))


def _end(reason: str, detail: str = "") -> dict[str, str]:
    return {"reason": reason, **({"detail": detail[:300]} if detail else {})}


def run_session(
    goal: UserGoal,
    factory: SimulatorFactory,
    system: System,
    *,
    seed: int = 0,
    max_turns: int = DEFAULT_MAX_TURNS,
) -> dict[str, Any]:
    """One session of ``goal``: the record a session file stores (see :mod:`.sessions`)."""
    rng = random.Random(f"{seed}:{goal.dialogue_id}")
    turns: list[dict[str, Any]] = []
    history: list[dict[str, Any]] = []  # what the system sees: copies, so that it cannot touch the records
    booked: list[list[str]] = []
    end: dict[str, str] | None = None
    simulator = None
    try:
        simulator = factory.session(goal, rng)
        user = simulator.start()
    except Exception as error:  # a plugin's simulator: whatever it raises ends this session only
        end = _end("simulator_error", f"{type(error).__name__}: {error}")
    for index in range(max_turns if end is None else 0):
        turns.append(user.record())
        history.append(_copy(turns[-1]))
        request = {"dialogue_id": goal.dialogue_id, "turn": index, "history": list(history)}
        try:
            turn = parse_system_turn(system.respond(request), goal.dialogue_id, index)
        except SessionEnd as stop:
            end = _end(stop.reason, stop.detail)
            break
        except Exception as error:  # the system under test: its failure is a finding, not a crash
            end = _end("system_error", f"{type(error).__name__}: {error}")
            break
        booked.append(list(user.booked))
        record = turn.record()
        try:
            understood = simulator.observe(turn)  # type: ignore[union-attr]
            history.append(_copy(record))
            if turn.acts is None:
                record["read_acts"] = acts_json(understood)
            turns.append(record)
            if user.final:
                end = _end("user_done")
                break
            user = simulator.next_turn()  # type: ignore[union-attr]
        except Exception as error:
            turns.append(record)
            end = _end("simulator_error", f"{type(error).__name__}: {error}")
            break
    if end is None:
        end = _end("max_turns")
    session: dict[str, Any] = {
        "id": goal.dialogue_id,
        "goal": goal.as_json(),
        "turns": turns,
        "booked": booked,
        "end": end,
        "complete": simulator.complete() if simulator is not None and end["reason"] != "simulator_error" else None,
        "details": simulator.details() if simulator is not None else {},
    }
    report = getattr(system, "report", None)
    if callable(report):
        session["system_report"] = report(goal.dialogue_id)
    return session


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
    progress: Callable[[int, int], None] | None = None,
) -> list[dict[str, Any]]:
    """Every goal's session, in goal order; each appended to ``out`` as it finishes.

    With ``resume``, ``out`` must be a session file of the same ``run`` configuration: its
    sessions are kept and only the missing goals are run.
    """
    done: dict[str, dict[str, Any]] = {}
    if resume:
        if out is None or not Path(out).is_file():
            raise InputError(f"--resume: no session file {out} to continue")
        previous, stored = session_files.read(out, repair=True)
        if dict(previous) != dict(run):
            changed = sorted(k for k in set(previous) | set(run) if previous.get(k) != run.get(k))
            raise InputError(
                f"--resume: {out} was written by another run configuration (differs in {', '.join(changed)})"
            )
        done = {s["id"]: s for s in stored}
        logger.info("resuming %s: %d of %d sessions already done", out, len(done), len(goals))
    todo = [g for g in goals if g.dialogue_id not in done]
    writer = session_files.SessionWriter(out, run, append=resume) if out is not None else None
    results = dict(done)
    lock = threading.Lock()
    started = time.perf_counter()

    def finish(session: dict[str, Any]) -> None:
        with lock:
            results[session["id"]] = session
            if writer is not None:
                writer.write(session)
            if progress is not None:
                progress(len(results), len(goals))

    try:
        if jobs <= 1:
            for goal in todo:
                finish(run_session(goal, factory, system, seed=seed, max_turns=max_turns))
        else:
            with concurrent.futures.ThreadPoolExecutor(max_workers=jobs) as pool:
                futures = [
                    pool.submit(run_session, goal, factory, system, seed=seed, max_turns=max_turns) for goal in todo
                ]
                try:
                    for future in concurrent.futures.as_completed(futures):
                        finish(future.result())
                except BaseException:
                    for future in futures:
                        future.cancel()
                    raise
    finally:
        if writer is not None:
            writer.close()
    logger.info("%d sessions in %.1f s", len(todo), time.perf_counter() - started)
    return [results[g.dialogue_id] for g in goals if g.dialogue_id in results]

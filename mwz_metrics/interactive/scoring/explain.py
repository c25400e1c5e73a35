"""Failed sessions as transcripts: what failed in each goal domain, and on whose side.

A domain fails by mwzeval (its Inform or Success is false) or by the simulator (it lacked
something, or gave the domain up). Whose side a failure is on:

- **system**: mwzeval fails the domain (the system never offered a venue meeting the goal, or
  never gave a requested attribute or the reference), or the session ended on the system's error;
- **simulator**: mwzeval counts the domain successful, yet the simulator lacked something or gave
  up (it misread the system, or the system gave what mwzeval checks but not the rest of the
  goal: the simulator's reasons say which), or the session ended on the simulator's error.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

_SYSTEM_ENDS = ("system_out_of_turns", "system_timeout", "system_error", "malformed_response")


def failed(record: Mapping[str, Any]) -> bool:
    """Whether a scored session (a ``per_session`` entry) failed by mwzeval or by the simulator."""
    return record.get("success") == 0.0 or record.get("complete") == 0.0


def mwzeval_failed(record: Mapping[str, Any]) -> bool:
    """Whether mwzeval fails the session (its Success is 0): the system's side, whatever the simulator says."""
    return record.get("success") == 0.0


def _lacked(outcome: Mapping[str, Any]) -> str:
    """What the simulator lacked in a domain, or why it gave the domain up ("" when satisfied)."""
    return outcome.get("given_up") or ", ".join(outcome.get("missing") or ())


def _mwzeval_ok(outcome: Mapping[str, Any]) -> bool:
    return outcome.get("inform") is not False and outcome.get("success") is not False


def sides(record: Mapping[str, Any]) -> list[str]:
    """Whose side the failures of a scored session are on: ``system``, ``simulator``, both or neither
    (the same verdict as :func:`domain_verdicts`, as a filter reads it)."""
    found = set()
    for outcome in record["domains"].values():
        if not _mwzeval_ok(outcome):
            found.add("system")
        elif _lacked(outcome):
            found.add("simulator")
    if record.get("end") in _SYSTEM_ENDS:
        found.add("system")
    elif record.get("end") == "simulator_error":
        found.add("simulator")
    return [side for side in ("system", "simulator") if side in found]


def explain_order(record: Mapping[str, Any], trial: int | None = None) -> tuple:
    """Which failed sessions ``--explain`` shows first: mwzeval's failures (the system's side) before the
    sessions mwzeval counts successful; then the most domains mwzeval fails, the most the simulator
    lacked; ties broken by dialogue id and trial, so the choice does not depend on the file's order."""
    outcomes = record["domains"].values()
    return (
        0 if mwzeval_failed(record) else 1,
        -sum(1 for o in outcomes if not _mwzeval_ok(o)),
        -sum(1 for o in outcomes if _lacked(o)),
        str(record["id"]),
        trial or 0,
    )


def domain_verdicts(record: Mapping[str, Any]) -> list[str]:
    """One line per failed goal domain: what failed and whose side it is on."""
    lines = []
    for domain, outcome in record["domains"].items():
        mwzeval_ok = _mwzeval_ok(outcome)
        lacked = _lacked(outcome)
        if mwzeval_ok and not lacked:
            continue
        if not mwzeval_ok:
            what = "Inform" if outcome.get("inform") is False else "Success"
            view = f"; the simulator: {lacked}" if lacked else "; the simulator was satisfied"
            lines.append(f"{domain}: system's side: mwzeval's {what} fails{view}")
        else:
            lines.append(f"{domain}: simulator's side: mwzeval counts it, the simulator: {lacked}")
    reason = record.get("end")
    if reason in _SYSTEM_ENDS:
        lines.append(f"session: system's side: it ended with {reason}")
    elif reason == "simulator_error":
        lines.append("session: simulator's side: it ended with simulator_error")
    elif reason == "max_turns":
        lines.append("session: it reached the turn limit")
    return lines


def transcript(session: Mapping[str, Any]) -> list[str]:
    """The session's turns, each with the acts the system sent (or the simulator read) and the user's."""
    lines = []
    for turn in session["turns"]:
        speaker = "user  " if turn["speaker"] == "user" else "system"
        lines.append(f"  {speaker} {turn['text']}")
        acts = turn.get("acts") if turn.get("acts") is not None else turn.get("read_acts")
        if acts:
            label = "read" if turn.get("acts") is None else "acts"
            lines.append(f"         {label}: " + "; ".join(" ".join(a) for a in acts))
    return lines


def explain(sessions: Sequence[Mapping[str, Any]], per_session: Sequence[Mapping[str, Any]], count: int) -> str:
    """``count`` failed sessions as transcripts with their verdicts, mwzeval's failures first
    (:func:`explain_order`). ``per_session`` is in the order of ``sessions`` (one record each)."""
    pairs = [(record, session) for record, session in zip(per_session, sessions) if failed(record)]
    chosen = sorted(pairs, key=lambda pair: explain_order(pair[0], pair[1].get("trial")))[:count]
    out = [f"{len(chosen)} of {len(pairs)} failed sessions:"]
    for record, session in chosen:
        end = session["end"]
        detail = f" ({end['detail']})" if end.get("detail") else ""
        out.append("")
        trial = f" trial {session['trial']}" if session.get("trial") is not None else ""
        out.append(
            f"{record['id']}{trial}: success {_flag(record.get('success'))}, complete {_flag(record.get('complete'))}, "
            f"ended {end['reason']}{detail}"
        )
        for part in session["goal"]["domains"]:
            wanted = ", ".join(f"{k}={v}" for k, v in part["info"].items())
            extra = f"; book {part['book']}" if part.get("book") else ""
            extra += f"; asks {', '.join(part['reqt'])}" if part.get("reqt") else ""
            out.append(f"  goal {part['domain']}: {wanted}{extra}")
        out.extend(f"  -> {line}" for line in domain_verdicts(record))
        out.extend(transcript(session))
    return "\n".join(printable(line) for line in out)


# What a terminal would act on rather than show: C0 and C1 controls (ANSI escapes, NUL, a carriage
# return), line and paragraph separators, bidirectional overrides, lone surrogates.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with what a terminal would act on written as escapes (``\\x1b``, ``\\u2028``)."""
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii"), text)


def _flag(value: float | None) -> str:
    return "n/a" if value is None else ("yes" if value else "no")

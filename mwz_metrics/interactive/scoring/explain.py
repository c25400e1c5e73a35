"""Failed sessions as transcripts: what failed in each goal domain, and on whose side.

A domain fails by mwzeval (its Inform or Success is false) or by the simulator (it lacked
something, or gave the domain up). Whose side a failure is on:

- **system**: mwzeval fails the domain (the system never offered a venue meeting the goal, or
  never gave a requested attribute or the reference), or the session ended on the system's error;
- **simulator**: mwzeval counts the domain successful, yet the simulator lacked something or gave
  up (it misread the system, or the system gave what mwzeval checks but not the rest of the
  goal: the simulator's reasons say which), or the session ended on the simulator's error.

Where the system's turns carry a ``trace`` (:mod:`mwz_metrics.interactive.protocol`: an agent's tool
calls and their results), a failed domain's line also names the lookups of that domain that found
nothing or failed ("looked up restaurant with area=cambridge, food=italian: 0 venues"), and the
transcript shows each call under its turn. A trace is what the system sent: anything may be missing or
of another type, and is shown as far as it is readable.

A run with profiles (``mwz interact --profiles``): **which user broke it** (:func:`explain_users`). The
sessions the system solves with the default user and fails with a profile, on the same goal, trial and
seed, are grouped per profile by their reasons (:func:`break_reasons`): each failed domain's verdict (the
user's give-up by its kind, mwzeval's Inform or Success failing), an end other than the user's, and what
the system asked that a user may not follow (a slot asked for after the user gave it, or asked again),
from the acts it sent or the simulator read: "terse: 61 sessions: the system asked for restaurant area
after the user gave it".
"""

from __future__ import annotations

import json
import re
from collections import Counter
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mwz_metrics.interactive.protocol import TRACE_VERSION
from mwz_metrics.records.session import end_of
from mwz_metrics.records.session import turns as session_turns
from mwz_metrics.records.turns import is_user

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


def domain_verdicts(record: Mapping[str, Any], session: Mapping[str, Any] | None = None) -> list[str]:
    """One line per failed goal domain: what failed and whose side it is on; with the ``session``, the
    lookups of the domain its system's trace shows finding nothing or failing (:func:`failed_lookups`)."""
    lines = []
    for domain, outcome in record["domains"].items():
        mwzeval_ok = _mwzeval_ok(outcome)
        lacked = _lacked(outcome)
        if mwzeval_ok and not lacked:
            continue
        if not mwzeval_ok:
            what = "Inform" if outcome.get("inform") is False else "Success"
            view = f"; the simulator: {lacked}" if lacked else "; the simulator was satisfied"
            line = f"{domain}: system's side: mwzeval's {what} fails{view}"
        else:
            line = f"{domain}: simulator's side: mwzeval counts it, the simulator: {lacked}"
        found = failed_lookups(session, domain) if session is not None else ""
        lines.append(f"{line}; {found}" if found else line)
    reason = record.get("end")
    if reason in _SYSTEM_ENDS:
        lines.append(f"session: system's side: it ended with {reason}")
    elif reason == "simulator_error":
        lines.append("session: simulator's side: it ended with simulator_error")
    elif reason == "max_turns":
        lines.append("session: it reached the turn limit")
    return lines


def transcript(session: Mapping[str, Any]) -> list[str]:
    """The session's turns, each with the acts the system sent (or the simulator read) and the user's,
    and a system turn's tool calls, finish reason (other than "stop") and warnings from its trace."""
    lines = []
    said: Sequence[Mapping[str, Any]] = session_turns(session)  # read as JSON: a user turn has no trace
    for turn in said:
        speaker = "user  " if is_user(turn) else "system"
        lines.append(f"  {speaker} {turn['text']}")
        acts = turn.get("acts") if turn.get("acts") is not None else turn.get("read_acts")
        if acts:
            label = "read" if turn.get("acts") is None else "acts"
            lines.append(f"         {label}: " + "; ".join(" ".join(a) for a in acts))
        lines.extend(f"         {line}" for line in trace_lines(turn.get("trace")))
    return lines


# -- a system turn's trace (see mwz_metrics.interactive.protocol) ---------------------------------------

CALL_CHARS = 300  # a call as one line (its name, arguments and result) at most, in --explain and the page
SHOWN_CALLS = 12  # a turn's calls --explain lists (the rest counted)
SHOWN_LOOKUPS = 3  # a domain's failed lookups a verdict names (the rest counted)


def shorten(text: str, limit: int) -> str:
    """``text`` of at most ``limit`` characters (``…`` ends a cut one)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def compact(value: Any) -> str:
    """A value as one line: a string as it is, anything else as compact JSON."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"), default=str)
    except (TypeError, ValueError, RecursionError):
        return str(value)


def trace_calls(trace: Any) -> Iterator[Mapping[str, Any]]:
    """The tool calls of a trace (those that are objects; none in a cut trace or one without ``calls``)."""
    calls = trace.get("calls") if isinstance(trace, Mapping) else None
    if isinstance(calls, list):
        yield from (call for call in calls if isinstance(call, Mapping))


def call_parts(arguments: Any) -> tuple[str | None, list[str]]:
    """A call's domain (None: none given as text) and its other arguments as ``slot=value``, the
    ``constraints`` object of a lookup spread out (arguments sent as text that were not JSON: one part)."""
    if not isinstance(arguments, Mapping):
        return None, [] if arguments is None else [compact(arguments)]
    domain = arguments.get("domain")
    parts: list[str] = []
    for key, value in arguments.items():
        if key == "domain" and isinstance(value, str):
            continue
        if key == "constraints" and isinstance(value, Mapping):
            parts.extend(f"{slot}={compact(v)}" for slot, v in value.items())
        else:
            parts.append(f"{key}={compact(value)}")
    return (domain if isinstance(domain, str) else None), parts


def _count(value: Any) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def result_text(result: Any) -> str:
    """A tool result in a few words: ``0 venues``, ``2 venues: A, B``, ``booked: reference X``,
    ``error: ...``; anything else as compact JSON."""
    if isinstance(result, Mapping):
        if result.get("booked") is True:
            said = [f"{key} {compact(result[key])}" for key in ("reference", "car", "phone") if key in result]
            return "booked" + (": " + ", ".join(said) if said else "")
        error = result.get("error")
        if error not in (None, "", False):
            return ("not booked: " if result.get("booked") is False else "error: ") + compact(error)
        if result.get("booked") is False:
            return "not booked"
        venues = result.get("venues")
        count = _count(result.get("count"))
        if count is None and isinstance(venues, list):
            count = len(venues)
        if count is not None:
            names = [
                compact(venue.get("name", venue.get("trainID")))
                for venue in (venues if isinstance(venues, list) else [])
                if isinstance(venue, Mapping) and ("name" in venue or "trainID" in venue)
            ]
            shown = ": " + ", ".join(names[:3]) + (", …" if len(names) > 3 else "") if names else ""
            return f"{count} venue{'' if count == 1 else 's'}{shown}"
    return compact(result)


def call_text(call: Mapping[str, Any]) -> str:
    """One call as a line: ``find_venues restaurant area=centre pricerange=cheap → 0 venues``."""
    domain, parts = call_parts(call.get("arguments"))
    words = " ".join([compact(call.get("name", "?")), *([domain] if domain is not None else []), *parts])
    said = f"{words} → {result_text(call['result'])}" if "result" in call else f"{words} (no result)"
    return said + (" (written as text)" if call.get("as_text") is True else "")


def _verdict(call: Mapping[str, Any]) -> tuple[str, str | None]:
    """What a call of a domain was ("looked up" or "tried to book") and, when it found nothing or failed
    (no venue, an error, no booking), what it got (None: it found or booked something, or has no result)."""
    result = call.get("result")
    booking = call.get("name") == "book" or (isinstance(result, Mapping) and "booked" in result)
    if booking:
        failed = isinstance(result, Mapping) and result.get("booked") is not True
        return "tried to book", result_text(result) if failed else None
    if not isinstance(result, Mapping):
        return "looked up", None
    count = _count(result.get("count"))
    empty = count == 0 or (count is None and result.get("venues") == [])
    failed = empty or result.get("error") not in (None, "", False)
    return "looked up", result_text(result) if failed else None


def failed_lookups(session: Mapping[str, Any], domain: str) -> str:
    """The lookups (and bookings) of ``domain`` the session's system traced as finding nothing or failing,
    as one phrase ("looked up restaurant with area=cambridge, food=italian: 0 venues"), distinct ones in
    the order made, at most :data:`SHOWN_LOOKUPS` (the rest counted); "" when there are none."""
    failed: list[str] = []
    found = 0
    for turn in session.get("turns") or ():
        if not isinstance(turn, Mapping) or turn.get("speaker") != "system":
            continue
        for call in trace_calls(turn.get("trace")):
            called, parts = call_parts(call.get("arguments"))
            if called is None or called.strip().lower() != domain.lower():
                continue
            kind, got = _verdict(call)
            if got is None:
                found += 1 if kind == "looked up" and "result" in call else 0
                continue
            text = f"{kind} {called} with {', '.join(parts)}: {got}" if parts else f"{kind} {called}: {got}"
            if text not in failed:
                failed.append(text)
    if not failed:
        return ""
    shown = [shorten(text, CALL_CHARS) for text in failed[:SHOWN_LOOKUPS]]
    more = f"; {len(failed) - SHOWN_LOOKUPS} more such calls" if len(failed) > SHOWN_LOOKUPS else ""
    other = f" ({found} other lookup{'s' if found != 1 else ''} of {domain} found venues)" if found else ""
    return "; ".join(shown) + more + other


def trace_lines(trace: Any) -> list[str]:
    """A system turn's trace in a few lines: each call (at most :data:`SHOWN_CALLS`), a finish reason other
    than "stop", the warnings, a cut trace or another version said as such."""
    if not isinstance(trace, Mapping):
        return []
    if trace.get("cut"):
        return [f"trace: cut ({compact(trace.get('bytes', '?'))} bytes, over the limit)"]
    lines = []
    if "version" in trace and trace["version"] != TRACE_VERSION:
        version = shorten(compact(trace["version"]), 40)
        lines.append(f"trace: version {version} (this mwz-eval reads version {TRACE_VERSION}: its known fields shown)")
    calls = list(trace_calls(trace))
    lines.extend(f"call: {shorten(call_text(call), CALL_CHARS)}" for call in calls[:SHOWN_CALLS])
    if len(calls) > SHOWN_CALLS:
        lines.append(f"call: … {len(calls) - SHOWN_CALLS} more")
    finish = trace.get("finish_reason")
    if finish is not None and finish != "stop":
        lines.append(f"finish: {shorten(compact(finish), 80)}")
    warnings = trace.get("warnings")
    if isinstance(warnings, list) and warnings:
        lines.append(shorten("warnings: " + ", ".join(compact(w) for w in warnings), CALL_CHARS))
    return lines


def explain(sessions: Sequence[Mapping[str, Any]], per_session: Sequence[Mapping[str, Any]], count: int) -> str:
    """``count`` failed sessions as transcripts with their verdicts, mwzeval's failures first
    (:func:`explain_order`). ``per_session`` is in the order of ``sessions`` (one record each)."""
    pairs = [(record, session) for record, session in zip(per_session, sessions) if failed(record)]
    chosen = sorted(pairs, key=lambda pair: explain_order(pair[0], pair[1].get("trial")))[:count]
    out = [f"{len(chosen)} of {len(pairs)} failed sessions:"]
    for record, session in chosen:
        out.append("")
        out.extend(_session_lines(record, session))
    return "\n".join(printable(line) for line in out)


def _session_lines(record: Mapping[str, Any], session: Mapping[str, Any], label: str = "") -> list[str]:
    """A failed session as ``--explain`` shows it: outcome, goal, verdicts, transcript (``label``: before its id)."""
    end = end_of(session)
    detail = f" ({end['detail']})" if end.get("detail") else ""
    trial = f" trial {session['trial']}" if session.get("trial") is not None else ""
    out = [
        f"{label}{record['id']}{trial}: success {_flag(record.get('success'))}, "
        f"complete {_flag(record.get('complete'))}, ended {end['reason']}{detail}"
    ]
    for part in session["goal"]["domains"]:
        wanted = ", ".join(f"{k}={v}" for k, v in part["info"].items())
        extra = f"; book {part['book']}" if part.get("book") else ""
        extra += f"; asks {', '.join(part['reqt'])}" if part.get("reqt") else ""
        out.append(f"  goal {part['domain']}: {wanted}{extra}")
    out.extend(f"  -> {line}" for line in domain_verdicts(record, session))
    out.extend(transcript(session))
    return out


# -- which user broke it: a run with profiles (mwz interact --profiles) ---------------------------------

SHOWN_REASONS = 8  # a profile's reasons --explain lists (the rest counted)
SHOWN_EXAMPLES = 3  # sessions named per reason
SHOWN_DETAILS = 4  # the items a reason names (the attributes not given, the simulator lacked)


def _acts_of(turn: Mapping[str, Any]) -> list[Any]:
    """A turn's acts as sent, else as the simulator read them (a system that sends words only)."""
    acts = turn.get("acts") if turn.get("acts") is not None else turn.get("read_acts")
    return [a for a in acts or () if isinstance(a, (list, tuple)) and len(a) >= 3]


def system_requests(session: Mapping[str, Any]) -> list[str]:
    """What the session's system asked in ways a user may not follow, one phrase per (domain, slot): a slot
    it asked for after the user had given it (``the system asked for restaurant area after the user gave
    it``), else one it asked for more than once (``the system asked again for restaurant area``), from the
    acts it sent or the simulator read."""
    asked: Counter[tuple[str, str]] = Counter()
    given: set[tuple[str, str]] = set()
    after: set[tuple[str, str]] = set()
    for turn in session.get("turns") or ():
        if not isinstance(turn, Mapping):
            continue
        for act in _acts_of(turn):
            intent, domain, slot = (str(part).lower() for part in act[:3])
            if turn.get("speaker") == "user":
                if intent == "inform" and slot not in ("none", ""):
                    given.add((domain, slot))
            elif intent == "request" and slot not in ("none", ""):
                asked[(domain, slot)] += 1
                if (domain, slot) in given:
                    after.add((domain, slot))
    return [
        f"the system asked for {d} {s} after the user gave it"
        if (d, s) in after
        else f"the system asked again for {d} {s}"
        for (d, s), n in asked.items()
        if (d, s) in after or n > 1
    ]


def break_reasons(record: Mapping[str, Any], session: Mapping[str, Any]) -> list[tuple[str, list[str]]]:
    """Why a failed session failed, as reasons that group across sessions: ``(reason, items)``, the items
    being what the reason names in this session (the attributes not given, what the simulator lacked).
    Per failed goal domain, the verdict of :func:`domain_verdicts` (the user's give-up by its kind: ``no
    offer``, ``not given``...; mwzeval's Inform or Success failing); how the session ended when not by the
    user; what the system asked (:func:`system_requests`)."""
    out: list[tuple[str, list[str]]] = []
    for domain, outcome in record["domains"].items():
        given_up = str(outcome.get("given_up") or "")
        missing = [str(m) for m in outcome.get("missing") or ()]
        kind, _, items = given_up.partition(":")
        named = [item.strip() for item in items.split(",") if item.strip()]
        if not _mwzeval_ok(outcome):
            what = "Inform" if outcome.get("inform") is False else "Success"
            if given_up:
                out.append((f"{domain}: mwzeval's {what} fails; the user gave up: {kind.strip()}", named))
            else:
                lacked = "; the user lacked something" if missing else "; the user was satisfied"
                out.append((f"{domain}: mwzeval's {what} fails{lacked}", missing))
        elif given_up:
            out.append((f"{domain}: the user gave up: {kind.strip()} (mwzeval counts it)", named))
        elif missing:
            out.append((f"{domain}: the user lacked something (mwzeval counts it)", missing))
    reason = record.get("end")
    if reason in _SYSTEM_ENDS or reason in ("simulator_error", "max_turns"):
        out.append((f"ended {reason}", []))
    out.extend((phrase, []) for phrase in system_requests(session))
    return out


def _paired(per_session: Sequence[Mapping[str, Any]]) -> dict[str, Mapping[str, Any]]:
    return {str(record["id"]): record for record in per_session if record.get("success") is not None}


def broken_by_users(
    runs: Mapping[str, tuple[Sequence[Mapping[str, Any]], Sequence[Mapping[str, Any]]]], default: str = "default"
) -> dict[str, dict[str, Any]]:
    """Per user other than ``default`` (``runs``: user -> (sessions, their ``per_session``, in the same
    order), the sessions the system solves with the default user and fails with that user, the same goal
    and trial (the same seed): how many (``broken``, of ``paired``), how many the other way (``fixed``), how
    they ended, and their reasons (:func:`break_reasons`), each with its number of sessions, the items it
    named most and a few session ids, most sessions first (a session may give several reasons)."""
    base = _paired(runs[default][1])
    out: dict[str, dict[str, Any]] = {}
    for user, (sessions, per_session) in runs.items():
        if user == default:
            continue
        broken: list[tuple[Mapping[str, Any], Mapping[str, Any]]] = []
        fixed = paired = 0
        for record, session in zip(per_session, sessions):
            other = base.get(str(record["id"]))
            if other is None or record.get("success") is None:
                continue
            paired += 1
            if other["success"] == 1.0 and record["success"] == 0.0:
                broken.append((record, session))
            elif other["success"] == 0.0 and record["success"] == 1.0:
                fixed += 1
        ends: Counter[str] = Counter(str(record.get("end")) for record, _ in broken)
        sessions_of: dict[str, list[str]] = {}
        items_of: dict[str, Counter[str]] = {}
        for record, session in broken:
            for reason, items in break_reasons(record, session):
                ids = sessions_of.setdefault(reason, [])
                if str(record["id"]) not in ids:
                    ids.append(str(record["id"]))
                items_of.setdefault(reason, Counter()).update(items)
        ordered = sorted(sessions_of.items(), key=lambda item: (-len(item[1]), item[0]))  # most sessions first
        reasons = [
            {"reason": reason, "sessions": len(ids), "items": dict(items_of[reason].most_common()), "examples": ids}
            for reason, ids in ordered
        ]
        out[user] = {
            "paired": paired,
            "broken": len(broken),
            "fixed": fixed,
            "ends": dict(ends.most_common()),
            "reasons": reasons,
        }
    return out


def broken_lines(broken: Mapping[str, Mapping[str, Any]], default: str = "default") -> list[str]:
    """:func:`broken_by_users` as text: per user, the sessions broken, how they ended and why."""
    out = [
        f"which user broke it: sessions solved with the {default} user and failed with another "
        "(the same goal, trial and seed; a session may give several reasons):"
    ]
    for user, found in broken.items():
        other_way = f"; {found['fixed']} the other way" if found["fixed"] else ""
        if not found["broken"]:
            out.append(f"  {user}: none of {found['paired']} sessions{other_way}")
            continue
        ends = ", ".join(f"{end} {n}" for end, n in found["ends"].items())
        out.append(f"  {user}: {found['broken']} of {found['paired']} sessions{other_way} (ended: {ends})")
        for reason in found["reasons"][:SHOWN_REASONS]:
            items = list(reason["items"].items())
            named = ", ".join(f"{item} {n}" for item, n in items[:SHOWN_DETAILS])
            named += f", {len(items) - SHOWN_DETAILS} more" if len(items) > SHOWN_DETAILS else ""
            shown = ", ".join(reason["examples"][:SHOWN_EXAMPLES])
            more = ", ..." if len(reason["examples"]) > SHOWN_EXAMPLES else ""
            line = f"    {reason['sessions']:4d}  {reason['reason']}" + (f" ({named})" if named else "")
            out.append(f"{line}; e.g. {shown}{more}")
        if len(found["reasons"]) > SHOWN_REASONS:
            out.append(f"          {len(found['reasons']) - SHOWN_REASONS} more reasons")
    return out


def explain_users(
    runs: Mapping[str, tuple[Sequence[Mapping[str, Any]], Sequence[Mapping[str, Any]]]],
    count: int,
    default: str = "default",
) -> str:
    """``--explain`` of a run with profiles: which user broke which sessions (:func:`broken_lines`), then
    ``count`` of those sessions as transcripts (the users in turn, each one's mwzeval failures first)."""
    broken = broken_by_users(runs, default)
    out = broken_lines(broken, default)
    base = _paired(runs[default][1])
    queues = []
    for user, (sessions, per_session) in runs.items():
        if user == default:
            continue
        pairs = [
            (record, session)
            for record, session in zip(per_session, sessions)
            if record.get("success") == 0.0 and (base.get(str(record["id"])) or {}).get("success") == 1.0
        ]
        queues.append((user, sorted(pairs, key=lambda pair: explain_order(pair[0], pair[1].get("trial")))))
    chosen: list[tuple[str, Mapping[str, Any], Mapping[str, Any]]] = []
    while len(chosen) < count and any(pairs for _, pairs in queues):
        for user, pairs in queues:
            if pairs and len(chosen) < count:
                chosen.append((user, *pairs.pop(0)))
    total = sum(found["broken"] for found in broken.values())
    if total:
        out += ["", f"{len(chosen)} of {total} sessions solved with the {default} user and failed with another:"]
    for user, record, session in chosen:
        out.append("")
        out.extend(_session_lines(record, session, f"[{user}] "))
    return "\n".join(printable(line) for line in out)


# What a terminal would act on rather than show: C0 and C1 controls (ANSI escapes, NUL, a carriage
# return), line and paragraph separators, bidirectional overrides, lone surrogates.
_UNPRINTABLE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def printable(text: str) -> str:
    """``text`` with what a terminal would act on written as escapes (``\\x1b``, ``\\u2028``)."""
    return _UNPRINTABLE.sub(lambda m: m.group().encode("unicode_escape", "backslashreplace").decode("ascii"), text)


def _flag(value: float | None) -> str:
    return "n/a" if value is None else ("yes" if value else "no")

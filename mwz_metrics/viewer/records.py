"""What the page of ``mwz view`` holds: each run's figures, signature and sessions, in a compact form.

A run is a session file of ``mwz interact`` (or its ``--predictions`` export) scored as ``mwz interact
--score-only`` scores it, so the page shows the same figures, per-domain outcomes and signature. A
session's turns keep what a reader needs: the words as written and as mwzeval read them (delexicalized,
where it rewrote them), the acts, the state's changes, the active domains, and the system's ``trace``
where it sent one (:func:`trace_view`: its tool calls, each as one line with its result summarised and the
result's JSON cut at :data:`MAX_RESULT` characters, at most :data:`MAX_CALLS` calls a turn; the finish
reason, the warnings, the tokens). A session's tokens are its system's report (``system_report``, as
``mwz interact`` counts them) or else the sum of its turns' traces, and the simulator's; a run's, the
sum of its sessions'. A system under test may send anything: every string is cut at :data:`MAX_TEXT`
characters (the page says how many were left out), and the page escapes all of it (:mod:`.page`).

A run with profiles (the default user's run and its profiles' runs on the page, :func:`robustness_view`)
adds its robustness: the worst user's and the mean Success with their intervals and paired difference
to the default user, and which user broke which sessions (solved with the default user, failed with the
profile), by reason, each reason with the sessions to open.
"""

from __future__ import annotations

import math
import os
from collections import Counter
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from mwz_metrics.inputs import dialogue_key
from mwz_metrics.interactive.protocol import MAX_TRACE_BYTES, TRACE_VERSION
from mwz_metrics.interactive.scoring.explain import (
    CALL_CHARS,
    call_parts,
    compact,
    domain_verdicts,
    result_text,
    sides,
    trace_calls,
)
from mwz_metrics.interactive.scoring.trials import figure_rows
from mwz_metrics.records.header import system_name
from mwz_metrics.records.session import turns as session_turns
from mwz_metrics.records.turns import is_system

# A longer string is cut (a system may answer megabytes); the page says how many characters it left out.
MAX_TEXT = 4000
MAX_VALUE = 300  # a value in acts or a state
# A turn's trace: its first MAX_CALLS tool calls are shown (the rest counted), each result's JSON cut at
# MAX_RESULT characters beside its one-line summary (a lookup's result is about 1,000: its first venues);
# MAX_WARNINGS warnings a turn. A run counts at most MAX_KINDS names of calls and of warnings (the rest: "other").
MAX_CALLS = 20
MAX_RESULT = 400
MAX_WARNINGS = 20
MAX_KINDS = 20

# The run's figures the page shows, in the order of ``mwz interact``'s table.
FIGURES = (
    ("Inform", "inform"),
    ("Success", "success"),
    ("Book rate", "book_rate"),
    ("Complete", "complete"),
    ("Inform precision", "inform_precision"),
    ("Inform recall", "inform_recall"),
    ("Inform F1", "inform_f1"),
    ("Turns", "turns"),
    ("Turns (successful)", "turns_successful"),
)

# One turn as an array (positions the page's script reads; acts as "intent domain slot value" strings):
# user:   ["u", text, acts]
# system: ["s", text, delexicalized text or None (as written), acts, read acts or None, state changes, active]
#         and, where the turn has a trace, its :func:`trace_view` as an eighth item
USER, SYSTEM = "u", "s"


def cut(text: Any, limit: int = MAX_TEXT) -> str:
    """A string as the page shows it: at most ``limit`` characters, then how many more there were."""
    text = text if isinstance(text, str) else str(text)
    if len(text) <= limit:
        return text
    return f"{text[:limit]}… [{len(text) - limit:,} more characters not shown]"


def _acts(acts: Any) -> list[str]:
    """Each act as one string, ``intent domain slot value`` (what the page shows; half the bytes of lists)."""
    return [cut(" ".join(map(str, act)), MAX_VALUE) for act in acts or [] if isinstance(act, (list, tuple))]


def state_changes(before: Mapping[str, Any], after: Mapping[str, Any]) -> list[list[Any]]:
    """``[domain, slot, old, new]`` for each slot the turn's state set, changed or dropped (None: absent)."""
    changes = []
    for domain in sorted(set(before) | set(after), key=str):
        old: Mapping[str, Any] = before[domain] if isinstance(before.get(domain), Mapping) else {}
        new: Mapping[str, Any] = after[domain] if isinstance(after.get(domain), Mapping) else {}
        for slot in sorted(set(old) | set(new), key=str):
            if old.get(slot) != new.get(slot):
                shown = [None if v is None else cut(v, MAX_VALUE) for v in (old.get(slot), new.get(slot))]
                changes.append([cut(domain, MAX_VALUE), cut(slot, MAX_VALUE), *shown])
    return changes


def turns(session: Mapping[str, Any], read: Sequence[str] | None) -> list[list[Any]]:
    """The session's turns as the page reads them; ``read``: its responses as mwzeval read them (or None)."""
    out: list[list[Any]] = []
    state: Mapping[str, Any] = {}
    index = 0
    said: Sequence[Mapping[str, Any]] = session_turns(session)  # read as JSON, whichever the speaker
    for turn in said:
        if not is_system(turn):
            out.append([USER, cut(turn.get("text", "")), _acts(turn.get("acts"))])
            continue
        new_state: Mapping[str, Any] = turn["state"] if isinstance(turn.get("state"), Mapping) else {}
        delexicalized = read[index] if read is not None and index < len(read) else None
        if delexicalized == turn.get("text"):
            delexicalized = None
        row: list[Any] = [
            SYSTEM,
            cut(turn.get("text", "")),
            None if delexicalized is None else cut(delexicalized),
            _acts(turn.get("acts")),
            None if turn.get("acts") is not None else _acts(turn.get("read_acts")),
            state_changes(state, new_state),
            [cut(d, MAX_VALUE) for d in turn.get("active_domains") or []],
        ]
        if turn.get("trace") is not None:
            row.append(trace_view(turn["trace"]))
        out.append(row)
        state, index = new_state, index + 1
    return out


def _tokens(tokens: Any) -> list[int] | None:
    """``[prompt, completion]`` of a ``tokens`` object (a missing or unreadable count: 0; None: neither)."""
    if not isinstance(tokens, Mapping):
        return None
    counts = [tokens.get("prompt"), tokens.get("completion")]
    read = [
        int(c) if isinstance(c, (int, float)) and not isinstance(c, bool) and math.isfinite(c) and c >= 0 else None
        for c in counts
    ]
    return None if read == [None, None] else [c or 0 for c in read]


def _call_row(call: Mapping[str, Any]) -> list[Any]:
    """``[name, arguments, result summarised, result's JSON cut or None, written as text]`` of one call (the
    JSON only where the summary is not all of it)."""
    domain, parts = call_parts(call.get("arguments"))
    arguments = " ".join([*([domain] if domain is not None else []), *parts])
    if "result" not in call:
        summary, raw = "no result", None
    else:
        summary, raw = result_text(call["result"]), compact(call["result"])
    return [
        cut(compact(call.get("name", "?")), MAX_VALUE),
        cut(arguments, CALL_CHARS),
        cut(summary, CALL_CHARS),
        None if raw is None or raw == summary else cut(raw, MAX_RESULT),
        call.get("as_text") is True,
    ]


def trace_view(trace: Any) -> dict[str, Any]:
    """A turn's trace as the page shows it: ``calls`` (:func:`_call_row`; ``more_calls`` past
    :data:`MAX_CALLS`), ``finish`` (a finish reason other than "stop"), ``tokens`` ``[prompt, completion]``,
    ``warnings``, and a ``note`` for a trace cut for its size, of another version or of no known field
    (then ``raw``: its JSON cut)."""
    if not isinstance(trace, Mapping):
        return {"note": "a trace that is not an object", "raw": cut(compact(trace), MAX_RESULT)}
    if trace.get("cut"):
        size = trace.get("bytes")
        size = f"{size:,}" if isinstance(size, int) and not isinstance(size, bool) else "?"
        return {"note": f"trace cut: {size} bytes, over the limit of {MAX_TRACE_BYTES:,}"}
    out: dict[str, Any] = {}
    calls = list(trace_calls(trace))
    if calls:
        out["calls"] = [_call_row(call) for call in calls[:MAX_CALLS]]
        if len(calls) > MAX_CALLS:
            out["more_calls"] = len(calls) - MAX_CALLS
    finish = trace.get("finish_reason")
    if finish is not None and finish != "stop":
        out["finish"] = cut(compact(finish), MAX_VALUE)
    tokens = _tokens(trace.get("tokens"))
    if tokens is not None:
        out["tokens"] = tokens
    warnings = trace.get("warnings")
    if isinstance(warnings, list) and warnings:
        out["warnings"] = [cut(compact(w), MAX_VALUE) for w in warnings[:MAX_WARNINGS]]
        if len(warnings) > MAX_WARNINGS:
            out["warnings"].append(f"… {len(warnings) - MAX_WARNINGS} more")
    if "version" in trace and trace["version"] != TRACE_VERSION:
        version = cut(compact(trace["version"]), 40)
        out["note"] = f"trace version {version} (this page reads version {TRACE_VERSION}: its known fields shown)"
    if not out.keys() - {"note"} and trace.keys() - {"version", "calls", "finish_reason", "tokens", "warnings"}:
        out["raw"] = cut(compact(trace), MAX_RESULT)  # nothing known in it: what it holds
    return out


def session_tokens(session: Mapping[str, Any], record: Mapping[str, Any]) -> dict[str, list[int]]:
    """``{"system": [prompt, completion], "simulator": [...]}``, the sides that reported tokens: the system's
    from its report (``system_report``, as ``mwz interact`` counts them) or else summed over its traces."""
    out: dict[str, list[int]] = {}
    reported: Mapping[str, Any] = record["tokens"] if isinstance(record.get("tokens"), Mapping) else {}
    for side in ("system", "simulator"):
        if (tokens := _tokens(reported.get(side))) is not None:
            out[side] = tokens
    if "system" not in out:
        traced = [_tokens(t["trace"].get("tokens")) for t in _traced(session)]
        if any(t is not None for t in traced):
            out["system"] = [sum(t[i] for t in traced if t is not None) for i in (0, 1)]
    return out


def _traced(session: Mapping[str, Any]) -> list[Mapping[str, Any]]:
    """The session's system turns that carry a trace (an object)."""
    return [
        turn
        for turn in session.get("turns") or ()
        if isinstance(turn, Mapping) and turn.get("speaker") == "system" and isinstance(turn.get("trace"), Mapping)
    ]


def _top(counts: Counter[str]) -> dict[str, int]:
    """The :data:`MAX_KINDS` most frequent of ``counts`` (names cut), the rest summed as "other"."""
    top = counts.most_common(MAX_KINDS)
    out = {cut(name, MAX_VALUE): n for name, n in top}
    rest = sum(counts.values()) - sum(n for _, n in top)
    if rest:
        out["other"] = out.get("other", 0) + rest
    return out


def run_traces(sessions: Sequence[Mapping[str, Any]]) -> dict[str, Any] | None:
    """What a run's traces hold, counted: turns with a trace, calls by name (``empty``: the lookups that
    found nothing or failed), finish reasons other than "stop", warnings, cut traces (None: no trace)."""
    turns = calls = cut_traces = 0
    names: Counter[str] = Counter()
    finishes: Counter[str] = Counter()
    warnings: Counter[str] = Counter()
    for session in sessions:
        for turn in _traced(session):
            trace = turn["trace"]
            turns += 1
            cut_traces += bool(trace.get("cut"))
            for call in trace_calls(trace):
                calls += 1
                names[compact(call.get("name", "?"))] += 1
            finish = trace.get("finish_reason")
            if finish is not None and finish != "stop":
                finishes[compact(finish)] += 1
            if isinstance(trace.get("warnings"), list):
                warnings.update(compact(w) for w in trace["warnings"])
    if not turns:
        return None
    return {
        "turns": turns,
        "calls": calls,
        "by_name": _top(names),
        "finish": _top(finishes),
        "warnings": _top(warnings),
        "cut": cut_traces,
    }


def _domains(record: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per goal domain: mwzeval's Inform and Success (None: not counted), what the simulator lacked, why it
    gave the domain up."""
    out = {}
    for domain, outcome in record["domains"].items():
        out[domain] = {
            "inform": outcome.get("inform"),
            "success": outcome.get("success"),
            "lacked": cut(", ".join(outcome.get("missing") or ()), MAX_VALUE),
            "given_up": cut(outcome.get("given_up") or "", MAX_VALUE),
        }
    return out


def session_row(session: Mapping[str, Any], record: Mapping[str, Any], read: Sequence[str] | None) -> dict:
    """One session of the page: its key (goal and trial), outcome, verdicts, side and turns."""
    end = session.get("end") or {}
    return {
        "id": str(session["id"]),
        "goal": goal_key(session),
        "trial": session.get("trial"),
        "end": str(end.get("reason", "")),
        "detail": cut(end.get("detail") or "", MAX_VALUE),
        "inform": record.get("inform"),
        "success": record.get("success"),
        "complete": record.get("complete"),
        "turns": record.get("turns"),
        "book_rate": record.get("book_rate"),
        "domains": _domains(record),
        "sides": sides(record),
        "verdicts": [cut(v) for v in domain_verdicts(record, session)],
        "tokens": session_tokens(session, record),
        "transcript": turns(session, read),
    }


def goal_key(session: Mapping[str, Any]) -> str:
    """The goal a session pursued (a run of several trials names its sessions ``goal#trial``)."""
    return str((session.get("goal") or {}).get("dialogue_id") or session["id"])


def goal_of(session: Mapping[str, Any]) -> dict[str, Any]:
    """The goal as the page shows it (once per goal, whichever runs and trials meet it)."""
    goal = session.get("goal") or {}
    parts = []
    for part in goal.get("domains") or []:
        parts.append(
            {
                "domain": cut(part.get("domain", ""), MAX_VALUE),
                "info": {cut(k, MAX_VALUE): cut(v, MAX_VALUE) for k, v in (part.get("info") or {}).items()},
                "book": {cut(k, MAX_VALUE): cut(v, MAX_VALUE) for k, v in (part.get("book") or {}).items()},
                "reqt": [cut(r, MAX_VALUE) for r in part.get("reqt") or []],
            }
        )
    return {"domains": parts, "messages": [cut(m) for m in goal.get("messages") or []]}


def run_data(
    path: str | os.PathLike,
    config: Mapping[str, Any],
    sessions: Sequence[Mapping[str, Any]],
    result: Mapping[str, Any],
    read: Mapping[str, list[str]],
    goals: dict[str, dict[str, Any]],
) -> dict[str, Any]:
    """One run of the page (``goals``: filled with the goals of its sessions, shared by the runs)."""
    rows = []
    for session, record in zip(sessions, result["per_session"]):  # per_session is in the sessions' order
        goals.setdefault(goal_key(session), goal_of(session))
        rows.append(session_row(session, record, read.get(dialogue_key(str(session["id"])))))
    tokens: dict[str, list[int]] = {}
    for row in rows:
        for side, counts in row["tokens"].items():
            tokens[side] = [a + b for a, b in zip(tokens.get(side, [0, 0]), counts)]
    return {
        "name": Path(path).name,
        "path": str(path),
        "system": cut(system_name(config) or "?"),
        "simulator": cut((config.get("simulator") or {}).get("name") or "?"),
        "figures": figures(result),
        "trials": _trials(result.get("trials")),
        "by_domain": {
            d: [result["inform_by_domain"][d], (result.get("success_by_domain") or {}).get(d)]
            for d in (result.get("inform_by_domain") or {})
        },
        "end_reasons": result.get("end_reasons") or {},
        "give_ups": result.get("give_ups") or {},
        "warnings": [
            cut(f"{w.get('kind')} x{w.get('count', 1)}: {w.get('effect', '')}") for w in result.get("warnings") or []
        ],
        "signature": cut(result["signature"]["line"]),
        "tokens": tokens,
        "traces": run_traces(sessions),
        "sessions": rows,
    }


def figures(result: Mapping[str, Any]) -> list[list[Any]]:
    """``[label, value, interval]`` of each figure the run has, in the order of ``mwz interact``'s report:
    :data:`FIGURES`, then over trials (a run of ``--trials K``) pass^k for each k and the goals solved in
    every trial and in none."""
    ci = result.get("ci95") or {}
    shown = [[label, result.get(key), ci.get(key)] for label, key in FIGURES if key in result]
    if result.get("trials"):
        shown += [list(row) for row in figure_rows(result["trials"])]
    return shown


def _trials(trials: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """Sessions per goal, goals and pass^k's definition (None: a run of one trial per goal)."""
    if not trials:
        return None
    return {"per_goal": trials["trials"], "goals": trials["goals"], "definition": trials["definition"]}


MAX_REASONS = 30  # a profile's reasons the page lists (the rest counted)
MAX_EXAMPLES = 50  # the sessions a reason links to


def _session_keys(sessions: Sequence[Mapping[str, Any]]) -> dict[str, str]:
    """Session id -> the page's key of the session (``goal~trial``, as the script's ``keyOf``)."""
    return {str(s["id"]): f"{goal_key(s)}~{s.get('trial') or 0}" for s in sessions}


def robustness_view(
    users: Mapping[str, int],
    scored: Sequence[tuple[Mapping[str, Any], Sequence[Mapping[str, Any]], Mapping[str, Any]]],
    *,
    resamples: int,
) -> dict[str, Any] | None:
    """A run with profiles on the page: ``users`` (user -> index of its run among ``scored``, each (config,
    sessions, result); the default user first) as ``{"runs": {user: index}, "profiles", "signature",
    "figures", "broken"}``: the robustness figures (:func:`~mwz_metrics.interactive.scoring.trials.robustness`)
    and, per profile, the sessions solved with the default user and failed with it, by reason
    (:func:`~mwz_metrics.interactive.scoring.explain.broken_by_users`), each reason with the page's keys
    of its sessions (at most :data:`MAX_EXAMPLES`; at most :data:`MAX_REASONS` reasons). None where the users
    share no goal."""
    from mwz_metrics.comparison.inputs import profile_set, profiles_signature
    from mwz_metrics.interactive.scoring.explain import broken_by_users
    from mwz_metrics.interactive.scoring.trials import robustness

    default = next(iter(users))
    per_user = {user: scored[i][2]["per_session"] for user, i in users.items()}
    found = robustness(per_user, resamples=resamples, seed=0, default=default)
    if found is None:
        return None
    runs = {user: (scored[i][1], scored[i][2]["per_session"]) for user, i in users.items()}
    broken = {}
    for user, seen in broken_by_users(runs, default).items():
        keys = _session_keys(scored[users[user]][1])
        reasons = [
            {
                "reason": cut(reason["reason"], MAX_VALUE),
                "sessions": reason["sessions"],
                "items": [[cut(item, MAX_VALUE), n] for item, n in list(reason["items"].items())[:MAX_KINDS]],
                "keys": [keys[i] for i in reason["examples"][:MAX_EXAMPLES] if i in keys],
            }
            for reason in seen["reasons"][:MAX_REASONS]
        ]
        broken[user] = {
            **{k: seen[k] for k in ("paired", "broken", "fixed")},
            "ends": _top(Counter(seen["ends"])),
            "reasons": reasons,
            "more_reasons": max(0, len(seen["reasons"]) - MAX_REASONS),
        }
    configs = {user: scored[i][0] for user, i in users.items()}
    signature = profiles_signature(scored[users[default]][2]["signature"], configs)
    return {
        "runs": dict(users),
        "default": default,
        "profiles": cut(profile_set(configs)),
        "signature": cut(signature["line"]),
        "figures": found,
        "broken": broken,
    }

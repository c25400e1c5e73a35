"""Scores of interactive sessions (each figure is defined in ``docs/interactive/index.md``, "The figures").

- **Inform / Success**: mwzeval's, computed by the same code as ``mwz evaluate`` from the
  system's states and delexicalized responses, against the session's goal; a reference number
  counts in a domain once the user has asked for the booking there (``replay``: once the test
  dialogue had booked, exactly mwzeval's rule). A turn without a state is an empty state.
- **Act figures** (as ConvLab reports them, from the system's acts, or what the simulator read
  from its text): inform precision/recall/F1 over the goal's requested attributes (an attribute
  given unasked counts against precision unless the goal constrains it), book rate (booking
  domains booked at a venue that meets the goal; which domain a booking act books is the goal
  tracker's rule, the simulator's own), complete (the simulator's own verdict that
  every part of its goal was met).
- **Book rate**, defined over the sessions whose goal books something, and only those: a session's
  share of its goal's booking domains booked (a session that ended before its booking, for whatever
  reason, booked none: 0); the run's, their mean. A session whose goal books nothing has none (None),
  and a run with no such session has none either: ``None`` in the JSON, ``n/a (no goal books)`` in
  the table, never 0.0. So 0.0 always means goals with bookings and none booked (the first three test
  goals book nothing: a run of them shows n/a where a longer run of the same system shows 0.0).
- **Turns**: system turns per session (one per user turn), over all sessions and over the
  successful ones; **end reasons** counted.
- **System warnings**: what an LLM system counted in its replies (``system_report["warnings"]``:
  empty replies, replies cut at the length limit, tool calls written as text...; see
  :mod:`mwz_metrics.interactive.systems.llm`), summed per run as ``system_warnings`` (and each
  session's in its figures), as the retries and failures of an HTTP system are (``system_failures``).
- Bootstrap 95% intervals over goals (a goal's trials resampled together, :mod:`.trials`; with one
  trial per goal, over sessions); pass^k and the goals solved in every trial or none with
  ``--trials`` (:mod:`.trials`); richness of all responses; BLEU only for ``replay``
  sessions (the only ones with references); session coherence when asked and installed.
"""

from __future__ import annotations

import logging
from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mwz_metrics import bootstrap
from mwz_metrics.interactive.acts import Act, goal_slot_to_act
from mwz_metrics.interactive.goals import UserGoal
from mwz_metrics.interactive.scoring import export
from mwz_metrics.interactive.scoring import trials as trial_scoring
from mwz_metrics.interactive.user.tracker import GoalTracker
from mwz_metrics.interactive.vocabulary import INFORMING, precision_recall_f1
from mwz_metrics.records.session import end_reason
from mwz_metrics.records.session import turns as session_turns
from mwz_metrics.records.turns import is_user

logger = logging.getLogger(__name__)

# The attributes a user may ask for, per domain (ConvLab's lists, in act slots; "ref" is left to the
# book rate): one the system gives that the goal neither requests nor constrains is a false positive.
REQUESTABLE = {
    "attraction": {"post", "phone", "addr", "fee", "area", "type"},
    "restaurant": {"addr", "phone", "post", "price", "area", "food"},
    "train": {"ticket", "time", "id", "arrive", "leave"},
    "hotel": {"addr", "post", "phone", "price", "internet", "parking", "area", "type", "stars"},
    "taxi": {"car", "phone"},
    "hospital": {"post", "phone", "addr"},
    "police": {"addr", "post", "phone"},
}
# Fewer sessions than this behind a figure: no interval (n/a).
MIN_SESSIONS = 10


def bookings(session: Mapping[str, Any], goal: UserGoal | None = None) -> list[set[str]]:
    """Per system turn, the goal domains its acts book, by the goal tracker's rule: the book rate and the
    simulator's own verdict (``complete``) decide which domain a booking act books in one place
    (:meth:`GoalTracker.observe`, fed with the session's user and system acts as they were recorded)."""
    tracker = GoalTracker(goal or UserGoal.from_json(session["goal"]))
    out = []
    for turn in session_turns(session):
        if is_user(turn):
            tracker.observe_user([Act(*a) for a in turn.get("acts") or ()])
            continue
        before = {d.domain for d in tracker.domains if d.booked}
        tracker.observe([Act(*a) for a in export.acts_of(turn)])
        out.append({d.domain for d in tracker.domains if d.booked} - before)
    return out


def _mwzeval_goal(goal: UserGoal, normalize) -> dict[str, Any]:
    """The goal in mwzeval's format (as :func:`mwz_datasets.goals.goal_from_raw` builds it)."""
    from mwz_datasets.goals import goal_from_raw

    raw = {}
    for part in goal.domains:
        raw[part.domain] = {"info": part.info, "reqt": list(part.reqt), **({"book": part.book} if part.book else {})}
    return goal_from_raw(raw, normalize)


def act_figures(session: Mapping[str, Any], inform: Mapping[str, bool] | None) -> dict[str, Any]:
    """Per session: inform TP/FP/FN over requested attributes, and the booking outcome per domain."""
    goal = UserGoal.from_json(session["goal"])
    domains = {d.domain for d in goal.domains}
    requested = {
        (d.domain, slot) for d in goal.domains for r in d.reqt if (slot := goal_slot_to_act(r, requested=True))
    }
    constrained = {(d.domain, s) for d in goal.domains for k in d.info if (s := goal_slot_to_act(k))}
    informed: set[tuple[str, str]] = set()
    booking = [d.domain for d in goal.domains if d.book]
    for turn in export.system_turns(session):
        for intent, domain, slot, _value in export.acts_of(turn):
            if intent in INFORMING and domain in domains and slot in REQUESTABLE.get(domain, ()):
                informed.add((domain, slot))
    booked = set().union(*bookings(session, goal))
    book_ok = [d for d in booking if d in booked and (inform or {}).get(d, False)]
    return {
        "tp": len(requested & informed),
        "fp": len(informed - requested - constrained),
        "fn": len(requested - informed),
        "book_rate": len(book_ok) / len(booking) if booking else None,
    }


def _interval(samples: np.ndarray) -> list[float] | None:
    if samples.size == 0 or np.all(np.isnan(samples)):
        return None
    low, high = bootstrap.confidence_interval(samples[~np.isnan(samples)])
    return [low, high]


def session_truth(sessions: Sequence[Mapping[str, Any]], testset: Any, *, aligned: bool) -> Any:
    """What mwzeval's Inform/Success score ``sessions`` against: each session's goal (a test dialogue's
    exactly as ``mwz evaluate`` reads it, another goal converted) and the bookings the user asked for."""
    from mwz_metrics.multiwoz.evaluator import SessionTruth

    test_goals = testset.multiwoz21["goals"]
    goal_of = {s["id"]: trial_scoring.goal_of(s) for s in sessions}  # a trial's goal
    return SessionTruth(
        goals={
            s["id"]: test_goals[goal_of[s["id"]]]
            if goal_of[s["id"]] in test_goals
            else _mwzeval_goal(UserGoal.from_json(s["goal"]), testset.chain)
            for s in sessions
        },
        booked={s["id"]: s["booked"] for s in sessions},
        aligned=aligned,
    )


def score_sessions(
    sessions: Sequence[Mapping[str, Any]],
    static: Mapping[str, Any],
    *,
    resamples: int = 1000,
    seed: int = 0,
) -> dict[str, Any]:
    """Every figure of the module docstring for ``sessions`` (in the order given); ``static``: mwzeval's
    metrics of their system turns (:func:`mwz_metrics.metric.assemble` of the registered ``success``,
    ``richness`` and ``bleu`` scored with :func:`session_truth`), per dialogue."""
    if not sessions:
        raise ValueError("no sessions to score")
    outcomes = static["success"]["per_dialogue"] if static.get("success") else {}
    per_session = [_session_figures(session, outcomes) for session in sessions]
    resampler = trial_scoring.GoalResampler(trial_scoring.groups(sessions), resamples, seed)
    result = _summary(per_session, resampler)
    trials = max((trial_scoring.trial_of(s) + 1 for s in sessions if "trial" in s), default=1)
    if trials > 1:
        result["trials"] = trial_scoring.trial_figures(
            sessions, per_session, trials=trials, resamples=resamples, seed=seed
        )
    for key in ("bleu", "richness"):
        if static.get(key) is not None:
            result[key] = static[key]
    if static.get("success"):
        result["inform_by_domain"] = static["success"]["inform"]
        result["success_by_domain"] = static["success"]["success"]
        result["exact"] = static["success"]["exact"]
    result["system_failures"] = _system_failures(sessions)
    result["system_warnings"] = _system_warnings(sessions)
    tokens = _tokens(sessions)
    if tokens:  # an LLM system or simulator: what the endpoint reported it spent
        result["tokens"] = tokens
    result["per_session"] = per_session
    result["static_signature"] = static["signature"]
    result["warnings"] = static.get("warnings", [])
    return result


def _session_figures(session: Mapping[str, Any], outcomes: Mapping[str, Any]) -> dict[str, Any]:
    """One session's figures: mwzeval's outcome, the act figures, turns, how it ended, per domain."""
    outcome = outcomes.get(session["id"], {"inform": {}, "success": {}})
    counted = "total" in outcome["inform"] or "total" in outcome["success"]
    return {
        "id": session["id"],
        "inform": float(outcome["inform"].get("total", 0)) if counted else None,
        "success": float(outcome["success"].get("total", 0)) if counted else None,
        "complete": None if session.get("complete") is None else float(bool(session["complete"])),
        "turns": len(export.system_turns(session)),
        "end": end_reason(session),
        **act_figures(session, outcome["inform"]),
        "domains": _domain_outcomes(session, outcome),
        **({"tokens": tokens} if (tokens := _session_tokens(session)) else {}),
        **({"system_warnings": warnings} if (warnings := _session_warnings(session)) else {}),
    }


def _summary(per_session: list[dict[str, Any]], resampler: trial_scoring.GoalResampler) -> dict[str, Any]:
    """Rates, act figures, turns and end reasons with their bootstrap intervals (``resampler``: goals).

    A figure over sessions of one kind (the book rate over sessions with a booking, turns over the
    successful ones) resamples those sessions only; with fewer than :data:`MIN_SESSIONS` of them its
    interval is None (shown as n/a), never a [0, 100] made of empty resamples.
    """
    n = len(per_session)
    out: dict[str, Any] = {"sessions": n}
    ci: dict[str, Any] = {}
    for key in ("inform", "success", "complete", "book_rate"):
        mask = [s[key] is not None for s in per_session]
        present = [float(s[key]) for s in per_session if s[key] is not None]
        out[key] = 100.0 * sum(present) / len(present) if present else None
        ci[key] = _resampled(present, resampler, mask, _percent)
    tp, fp, fn = (np.array([s[k] for s in per_session], dtype=np.float64) for k in ("tp", "fp", "fn"))
    precision, recall, f1 = precision_recall_f1(tp.sum(), fp.sum(), fn.sum())
    out["inform_precision"], out["inform_recall"], out["inform_f1"] = 100 * precision, 100 * recall, 100 * f1
    weights = resampler.weights(None, MIN_SESSIONS)
    for i, key in enumerate(("inform_precision", "inform_recall", "inform_f1")):
        ci[key] = None
        if weights is not None:
            sums = [weights @ x for x in (tp, fp, fn)]
            ci[key] = _interval(np.array([100 * precision_recall_f1(*t)[i] for t in zip(*sums)]))
    turns = [float(s["turns"]) for s in per_session]
    successful = [float(s["turns"]) for s in per_session if s["success"] == 1.0]
    out["turns"] = float(np.mean(turns))
    out["turns_successful"] = float(np.mean(successful)) if successful else None
    ci["turns"] = _resampled(turns, resampler, [True] * n, _mean)
    ci["turns_successful"] = _resampled(successful, resampler, [s["success"] == 1.0 for s in per_session], _mean)
    out["end_reasons"] = {reason: count for reason, count in Counter(s["end"] for s in per_session).most_common()}
    out["give_ups"] = _give_ups(per_session)
    out["ci95"] = ci
    return out


# A resample's weights sum to its number of sessions (with one trial per goal: always all of them).
def _percent(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return 100.0 * (weights @ values) / np.maximum(weights.sum(axis=1), 1)


def _mean(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    return (weights @ values) / np.maximum(weights.sum(axis=1), 1)


def _resampled(
    values: Sequence[float], resampler: trial_scoring.GoalResampler, mask: Sequence[bool], score
) -> list[float] | None:
    """The interval of ``score(values, weights)`` resampling (the goals of) these values' sessions only
    (``mask``: which sessions the values are of); None with fewer than :data:`MIN_SESSIONS` of them."""
    weights = resampler.weights(mask, MIN_SESSIONS)
    if weights is None:
        return None
    return _interval(score(np.asarray(values, dtype=np.float64), weights))


def _give_ups(per_session: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Sessions in which the simulator gave a domain up, by domain and reason ("train: no offer")."""
    counts: Counter[str] = Counter()
    for session in per_session:
        for domain, outcome in session["domains"].items():
            if outcome.get("given_up"):
                reason = outcome["given_up"].split(":")[0]  # "not given: fee, phone" counts as "not given"
                counts[f"{domain}: {reason}"] += 1
    return dict(counts.most_common())


def _domain_outcomes(session: Mapping[str, Any], outcome: Mapping[str, Any]) -> dict[str, dict[str, Any]]:
    """Per goal domain: mwzeval's inform and success, and the simulator's view (what it lacked, why it gave up)."""
    simulated = (session.get("details") or {}).get("domains") or {}
    given_up = (session.get("details") or {}).get("given_up") or {}
    out = {}
    for part in session["goal"]["domains"]:
        domain = part["domain"]
        view = simulated.get(domain, {})
        out[domain] = {
            "inform": outcome["inform"].get(domain),
            "success": outcome["success"].get(domain),
            **({"missing": view["missing"]} if view.get("missing") else {}),
            **({"given_up": given_up[domain]} if domain in given_up else {}),
        }
    return out


def _system_failures(sessions: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """Retries and failures an HTTP system reported, summed over sessions."""
    total: Counter[str] = Counter()
    for session in sessions:
        report = session.get("system_report") or {}
        total["retries"] += int(report.get("retries", 0))
        for kind, count in (report.get("failures") or {}).items():
            total[kind] += int(count)
    return {k: v for k, v in total.items() if v}


def _session_warnings(session: Mapping[str, Any]) -> dict[str, int]:
    """The warnings an LLM system counted in one session's replies (``system_report["warnings"]``: an
    empty reply, one cut at the length limit, a tool call written as text...), by name."""
    report = session.get("system_report")
    warnings = report.get("warnings") if isinstance(report, Mapping) else None
    if not isinstance(warnings, Mapping):
        return {}
    return {str(k): int(v) for k, v in warnings.items() if isinstance(v, int) and not isinstance(v, bool) and v > 0}


def _system_warnings(sessions: Sequence[Mapping[str, Any]]) -> dict[str, int]:
    """:func:`_session_warnings` summed over sessions, the most frequent first."""
    total: Counter[str] = Counter()
    for session in sessions:
        total.update(_session_warnings(session))
    return dict(total.most_common())


def _session_tokens(session: Mapping[str, Any]) -> dict[str, dict[str, int]]:
    """The prompt and completion tokens an LLM system (``system_report``) and an LLM simulator
    (``details``) reported in one session, by side."""
    out = {}
    for side, part in (("system", session.get("system_report")), ("simulator", session.get("details"))):
        tokens = part.get("tokens") if isinstance(part, Mapping) else None
        if isinstance(tokens, Mapping) and tokens:
            out[side] = {k: int(v) for k, v in tokens.items()}
    return out


def _tokens(sessions: Sequence[Mapping[str, Any]]) -> dict[str, dict[str, int]]:
    """:func:`_session_tokens` summed over sessions."""
    total: dict[str, Counter[str]] = {}
    for session in sessions:
        for side, tokens in _session_tokens(session).items():
            total.setdefault(side, Counter()).update(tokens)
    return {side: {"prompt": c["prompt"], "completion": c["completion"]} for side, c in total.items()}

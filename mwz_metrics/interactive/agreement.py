"""Does the simulator's goal tracker understand real wizards? The agreement check on the test dialogues.

Each MultiWOZ 2.1 test dialogue is fed, turn by turn, to the goal tracker (:mod:`.tracker`) with
that dialogue's goal: the user's annotated acts (what the real user said), then the system's
annotated acts (``acts``), or what the system-act reader reads in the system's delexicalized
text (``text``). The tracker's verdict (every goal domain offered or identified, booked and
answered) is compared with mwzeval's Success on the same gold dialogue (the MultiWOZ references
with the gold states, as ``mwz evaluate --oracle`` scores them): the agreement is the share of
the dialogues mwzeval counts successful that the tracker finds satisfied. Every disagreement
(either way) gets a category: the domain and what the tracker found missing there, and whether
the real user ever asked for a missing attribute (a wizard who was never asked is the user's
deviation from its goal, not a misreading).
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from mwz_metrics.interactive.acts import Act, parse_acts
from mwz_metrics.interactive.goals import UserGoal
from mwz_metrics.interactive.reader import ReaderContext, SystemActReader
from mwz_metrics.interactive.tracker import GoalTracker

SOURCES = ("acts", "text")


# What mwzeval's Success checks, in act slots: the venue (or train, when its id is asked for), the booking,
# and these attributes; a goal's other requests (a train's duration, a fee, a type...) it does not check.
MWZEVAL_ATTRIBUTES = frozenset({"phone", "addr", "post", "ref", "id"})


@dataclasses.dataclass(frozen=True)
class Verdict:
    """The tracker's reading of one gold dialogue.

    ``complete``: every goal domain offered or identified, booked and answered, as the goal asks;
    ``complete_checked``: the same on what mwzeval's Success checks (:data:`MWZEVAL_ATTRIBUTES`);
    ``categories``: what was missing, one line per unfulfilled domain (``train: answer:time``).
    """

    dialogue_id: str
    complete: bool
    complete_checked: bool
    categories: tuple[str, ...]


def _checked(domain: str, missing: str, requests: Sequence[str]) -> bool:
    """Whether mwzeval's Success checks what the tracker found missing."""
    if missing.startswith("answer:"):
        return missing[7:] in MWZEVAL_ATTRIBUTES
    if missing == "offer" and domain == "train":
        return "id" in requests  # mwzeval needs no train offered unless its id is asked for
    return missing != "untold"


def _system_reader(
    reader: SystemActReader | None, source: str
) -> Callable[[Mapping[str, Any], ReaderContext], list[Act]]:
    if source == "acts":
        return lambda turn, _context: parse_acts(turn.get("dialog_act") or {})
    if reader is None:
        raise ValueError("reading the system's text needs the system-act reader")
    from mwz_metrics.coherence.data import delexicalize_21

    return lambda turn, context: reader.read(delexicalize_21(turn["text"], turn.get("span_info") or []), context)


def track_dialogue(
    goal: UserGoal,
    turns: Sequence[Mapping[str, Any]],
    *,
    source: str = "acts",
    reader: SystemActReader | None = None,
) -> Verdict:
    """Feed one gold dialogue (raw 2.1 turns: ``text``, ``dialog_act``, ``span_info``) to a tracker."""
    read_system = _system_reader(reader, source)
    tracker = GoalTracker(goal)
    asked: set[tuple[str, str]] = set()
    talked: set[str] = set()
    known: set[str] = set()
    last: set[str] = set()
    domain = "none"
    for index, turn in enumerate(turns):
        if index % 2 == 0:
            acts = parse_acts(turn.get("dialog_act") or {})
            tracker.observe_user(acts)
            asked |= {(a.domain, a.slot) for a in acts if a.intent == "request"}
            talked |= {a.domain for a in acts}
            last = {a.slot for a in acts if a.intent == "inform" and a.slot != "none"}
            known |= last
            domains = [a.domain for a in acts if a.domain not in ("general", "booking")]
            domain = domains[0] if domains else domain
            continue
        tracker.observe(read_system(turn, ReaderContext(domain, frozenset(known), frozenset(last))))
    categories = []
    checked = True
    for state in tracker.domains:
        missing = state.missing()
        if not missing:
            continue
        if any(_checked(state.domain, m, state.requests) for m in missing):
            checked = False
        unasked = [m for m in missing if m.startswith("answer:") and (state.domain, m[7:]) not in asked]
        label = ", ".join(missing)
        if state.domain not in talked:
            label += " (the real user never talked about it)"
        elif unasked and len(unasked) == len(missing):
            label += " (never asked by the real user)"
        elif not any(_checked(state.domain, m, state.requests) for m in missing):
            label += " (not given; mwzeval does not check it)"
        categories.append(f"{state.domain}: {label}")
    return Verdict(goal.dialogue_id, tracker.complete(), checked, tuple(categories))


def agreement(verdicts: Iterable[Verdict], successful: Mapping[str, bool]) -> dict[str, Any]:
    """The agreement figures and the disagreements by category.

    ``successful``: mwzeval's Success per gold dialogue. ``agreement`` is the share of mwzeval's
    successes the tracker finds satisfied (``agreement_checked``: satisfied in what mwzeval checks);
    ``satisfied_not_successful`` counts the other way.
    """
    verdicts = [v for v in verdicts if v.dialogue_id in successful]
    wins = [v for v in verdicts if successful[v.dialogue_id]]
    misses: Counter[str] = Counter()
    examples: dict[str, list[str]] = {}
    for verdict in wins:
        if not verdict.complete:
            for category in verdict.categories:
                misses[category] += 1
                examples.setdefault(category, []).append(verdict.dialogue_id)
    extra = [v.dialogue_id for v in verdicts if v.complete and not successful[v.dialogue_id]]

    def share(count: int, total: int) -> float | None:
        return 100.0 * count / total if total else None

    return {
        "dialogues": len(verdicts),
        "successful": len(wins),
        "agreement": share(sum(v.complete for v in wins), len(wins)),
        "agreement_checked": share(sum(v.complete_checked for v in wins), len(wins)),
        "satisfied_not_successful": len(extra),
        "disagreements": [
            {"category": category, "dialogues": count, "examples": examples[category][:5]}
            for category, count in misses.most_common()
        ],
        "satisfied_not_successful_examples": extra[:10],
    }

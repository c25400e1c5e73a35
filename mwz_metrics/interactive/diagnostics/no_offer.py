"""After a no-offer that asks something: does the user change its constraints, or answer the question?

MultiWOZ wizards often follow a no-offer with a question ("I don't have any hotel in the north ...
Would you like me to look in a different area?"). For every wizard turn holding a ``NoOffer`` act
and a ``Request`` act (the MultiWOZ 2.1 validation dialogues), the user's next turn is read by its
acts, for the real user and for a simulated one said after the same oracle history (the dialogue up
to that wizard turn, the real user's acts as if the simulator had said them: :func:`.realism.oracle_histories`):

- **changes** a constraint: it informs, in the no-offer's domain, a slot it gave before with
  another value, or a slot it had not given and was not asked for ("how about a guesthouse?");
  whether or not it also answers the request ("would you like another food type?" -- "chinese");
- **answers** the request: it informs a requested slot and changes nothing else ("I don't mind about
  the area", or a value for an area it had not given);
- **other**: neither (a yes, a request of its own, a goodbye, acts the annotators left out).

The shares come with Wilson's 95% interval (turns counted as independent).
"""

from __future__ import annotations

import dataclasses
import math
import random
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from mwz_metrics.interactive.acts import Act, parse_acts
from mwz_metrics.interactive.goals import UserGoal
from mwz_metrics.interactive.language.extract import detokenize
from mwz_metrics.interactive.protocol import SystemTurn
from mwz_metrics.interactive.vocabulary import NO_VALUE, NOT_A_VALUE

OUTCOMES = ("changes", "answers", "other")
LABELS = {
    "changes": "changes a constraint (%)",
    "answers": "answers the request only (%)",
    "other": "neither (%)",
}


@dataclasses.dataclass(frozen=True)
class Situation:
    """A wizard turn with a no-offer and a request: its dialogue, its index among the system turns."""

    dialogue_id: str
    index: int  # the system turn's index (0 = the first); the user's answer is user turn index + 1
    system_acts: tuple[Act, ...]


def situations(dialogues: Mapping[str, Sequence[Mapping[str, Any]]]) -> list[Situation]:
    """Every wizard turn (raw 2.1 turns) with a ``NoOffer`` and a ``Request`` act, followed by a user turn."""
    out = []
    for key, turns in dialogues.items():
        systems = turns[1::2]
        for index, turn in enumerate(systems):
            acts = tuple(parse_acts(turn.get("dialog_act") or {}))
            if 2 * index + 2 >= len(turns):
                continue
            if any(a.intent == "nooffer" for a in acts) and any(a.intent == "request" for a in acts):
                out.append(Situation(key, index, acts))
    return out


def _given(history: Iterable[Sequence[Act]]) -> dict[tuple[str, str], str]:
    """The values the user informed so far, per (domain, slot): its latest."""
    given: dict[tuple[str, str], str] = {}
    for acts in history:
        for act in acts:
            value = " ".join(act.value.lower().split())
            if act.intent == "inform" and act.slot not in NO_VALUE and value not in NO_VALUE:
                given[(act.domain, act.slot)] = value
    return given


def outcome(system_acts: Sequence[Act], history: Iterable[Sequence[Act]], answer: Sequence[Act]) -> str:
    """What the user's ``answer`` does after ``system_acts`` (a no-offer with a request), given the user's
    acts before (``history``): one of :data:`OUTCOMES`."""
    given = _given(history)
    failed = {a.domain for a in system_acts if a.intent == "nooffer"}
    requested = {a.slot for a in system_acts if a.intent == "request"}
    changes = answers = False
    for act in answer:
        value = " ".join(act.value.lower().split())
        if act.intent != "inform" or act.slot in NO_VALUE:
            continue
        if act.slot in requested:
            answers = True
        if act.domain not in failed or value in NOT_A_VALUE:
            continue
        before = given.get((act.domain, act.slot))
        if (before is not None and before != value) or (before is None and act.slot not in requested):
            changes = True
    return "changes" if changes else "answers" if answers else "other"


def wilson(hits: int, total: int, z: float = 1.96) -> tuple[float, float]:
    """Wilson's score interval of a share (percent)."""
    if not total:
        return (0.0, 100.0)
    share = hits / total
    centre = (share + z * z / (2 * total)) / (1 + z * z / total)
    half = z * math.sqrt(share * (1 - share) / total + z * z / (4 * total * total)) / (1 + z * z / total)
    return (100 * max(0.0, centre - half), 100 * min(1.0, centre + half))


def rates(outcomes: Sequence[str]) -> dict[str, Any]:
    """Per outcome: its share (%) and Wilson's 95% interval; and the number of turns."""
    total = len(outcomes)
    out: dict[str, Any] = {"turns": total}
    for name in OUTCOMES:
        hits = sum(1 for o in outcomes if o == name)
        out[name] = {"rate": 100 * hits / max(total, 1), "ci95": list(wilson(hits, total))}
    return out


def _user_acts(turns: Sequence[Mapping[str, Any]]) -> list[list[Act]]:
    return [parse_acts(t.get("dialog_act") or {}) for t in turns[0::2]]


def real(dialogues: Mapping[str, Sequence[Mapping[str, Any]]], found: Sequence[Situation] | None = None) -> list[str]:
    """The real users' outcome after each situation (:func:`situations`)."""
    out = []
    for situation in situations(dialogues) if found is None else found:
        users = _user_acts(dialogues[situation.dialogue_id])
        out.append(outcome(situation.system_acts, users[: situation.index + 1], users[situation.index + 1]))
    return out


def simulated(
    goals: Mapping[str, UserGoal],
    dialogues: Mapping[str, Sequence[Mapping[str, Any]]],
    make_user: Callable[[UserGoal, random.Random], Any],
    *,
    seed: int = 0,
    found: Sequence[Situation] | None = None,
) -> list[str]:
    """The simulated user's outcome after each situation's oracle history (the dialogues with a goal only).

    ``make_user(goal, rng)`` makes a simulated user with ``assume(acts, text)`` (an agenda user)."""
    out = []
    for situation in situations(dialogues) if found is None else found:
        goal = goals.get(situation.dialogue_id)
        if goal is None:
            continue
        turns = dialogues[situation.dialogue_id]
        users, systems = turns[0::2], turns[1::2]
        user = make_user(goal, random.Random(f"{seed}:{situation.dialogue_id}:{situation.index + 1}"))
        history = []
        for real_user, real_system in zip(users[: situation.index + 1], systems[: situation.index + 1]):
            acts = parse_acts(real_user.get("dialog_act") or {})
            history.append(acts)
            user.assume(acts, detokenize(real_user["text"]))
            said = tuple(parse_acts(real_system.get("dialog_act") or {}))
            user.observe(SystemTurn(detokenize(real_system["text"]), acts=said))
        answer = user.next_turn()
        out.append(outcome(situation.system_acts, history, answer.acts or ()))
    return out


def measure(
    goals: Mapping[str, UserGoal],
    dialogues: Mapping[str, Sequence[Mapping[str, Any]]],
    users: Mapping[str, Callable[[UserGoal, random.Random], Any]],
    *,
    seed: int = 0,
) -> dict[str, Any]:
    """The real users' rates and each simulated user's (``users``: label -> ``make_user``) on the same turns."""
    found = [s for s in situations(dialogues) if s.dialogue_id in goals]
    report: dict[str, Any] = {"real": rates(real(dialogues, found))}
    for label, make_user in users.items():
        report[label] = rates(simulated(goals, dialogues, make_user, seed=seed, found=found))
    return report

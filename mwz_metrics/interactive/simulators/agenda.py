"""``agenda``: a goal-driven user that needs no model (offline, seeded).

The user pursues the goal's domains in the order its messages introduce them. In each domain
it gives its constraints (two or three per turn), waits for an offer, books (all booking details
in one turn), then asks for the attributes the goal requests, and moves on; when every domain
is done or given up it thanks the system and says goodbye. It reacts to the system:

- a request is answered first: with the constraint or booking detail the goal has, the other of
  a train's two times if the system asks for the one the goal lacks, else "don't care";
- a no-offer switches to the goal's final constraints when the first ones were ``fail_info``
  (otherwise the domain is given up), a failed booking to the final booking details likewise;
- when the system sends acts, an offered value that contradicts a constraint already given is
  given again (once per slot).

It reads the system's ``acts`` when sent, else its text through the system-act reader
(:mod:`..reader`). What it cannot get after ``patience`` tries (an offer, a booking, an
attribute) it gives up, so that no session loops. The user's language comes from templates of
MultiWOZ 2.1 validation user turns (:mod:`..templates`), filled with the goal's values.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from mwz_metrics.interactive.acts import VENUE_DOMAINS, Act
from mwz_metrics.interactive.goals import UserGoal, taxi_endpoints
from mwz_metrics.interactive.protocol import SystemTurn
from mwz_metrics.interactive.reader import ReaderContext, SystemActReader
from mwz_metrics.interactive.simulators.base import SimulatorFactory, UserSimulator, UserTurn
from mwz_metrics.interactive.templates import TemplateBank
from mwz_metrics.interactive.tracker import (
    NO_BOOKING,
    NO_OFFER,
    NOT_GIVEN,
    DomainState,
    GoalTracker,
    TrackedUser,
    booking_slots,
)

VERSION = "1.0.0"

# Slots a user answers "don't care" when the goal has no value for them.
_DONTCARE_SLOTS = {"area", "price", "type", "stars", "internet", "parking", "food"}
# Constraints whose contradicting value the user corrects (others, such as times, are compared loosely).
_CHECKED_SLOTS = {"area", "price", "type", "stars", "internet", "parking", "food", "day", "depart", "dest"}


def _plain(text: str) -> str:
    """Text compared as words: lowercase, punctuation and spacing ignored."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


class AgendaUser(TrackedUser, UserSimulator):
    """The simulated user of one goal (see the module docstring)."""

    def __init__(
        self,
        goal: UserGoal,
        rng: random.Random,
        templates: TemplateBank,
        reader: SystemActReader,
        *,
        max_informs: int = 3,
        max_requests: int = 3,
        patience: int = 2,
    ) -> None:
        self.goal = goal
        self.rng = rng
        self.templates = templates
        self.reader = reader
        self.max_informs = max_informs
        self.max_requests = max_requests
        self.patience = patience
        self.tracker = GoalTracker(goal, patience=patience, track_told=True)
        self.order: dict[str, list[str]] = {}
        self.pending: list[Act] = []
        self.asked: Counter[tuple[str, str]] = Counter()
        self.stalls: Counter[str] = Counter()
        self.corrected: set[tuple[str, str]] = set()
        self.known: set[str] = set()
        self.last: set[str] = set()
        self.finished = False
        self.said = ""  # the user's last text
        # Venue names the user knows: its goal's, then those the system offered (with acts).
        self.names = {d.domain: d.info["name"] for d in goal.domains if d.info.get("name")}

    # -- reading the system ------------------------------------------------------------

    def observe(self, turn: SystemTurn) -> list[Act]:
        """Read the system turn: its acts, else its text; queue answers to its requests."""
        current = self.tracker.current
        if turn.acts is not None:
            acts = list(turn.acts)
            self._check_values(acts)
            for act in acts:
                if (
                    act.slot == "name"
                    and act.intent in ("inform", "recommend", "book")
                    and act.value not in ("?", "none")
                ):
                    state = self.tracker.state(act.domain) or current
                    if state is not None and state.domain in VENUE_DOMAINS and "name" not in state.goal.info:
                        self.names[state.domain] = act.value
        elif _plain(turn.response) == _plain(self.said):
            acts = []  # the user's own words said back tell it nothing
        else:
            context = ReaderContext(current.domain if current else "none", frozenset(self.known), frozenset(self.last))
            acts = self.reader.read(turn.response, context)
        for act in acts:
            if act.intent == "request":
                self._answer(act)
        self.tracker.observe(acts)  # a switch to the goal's final values leaves them to be said again
        return acts

    def _complete_taxi(self, state: DomainState) -> None:
        """A taxi between the goal's two places: its ends, named as the user knows them."""
        if state.domain != "taxi" or {"depart", "dest"} <= state.constraints.keys():
            return
        ends = taxi_endpoints(self.goal)
        if ends is None:
            return
        for slot, domain in zip(("depart", "dest"), ends):
            state.constraints.setdefault(slot, self.names.get(domain, f"the {domain}"))

    def _answer(self, act: Act) -> None:
        state = self.tracker.state(act.domain) or self.tracker.current
        if state is None or state.failed:
            return
        self._complete_taxi(state)
        slot, domain = act.slot, state.domain
        if slot in state.constraints:
            answer = Act("inform", domain, slot, state.constraints[slot])
        elif slot in state.book:
            answer = Act("inform", domain, slot, state.book[slot])
        elif slot in ("leave", "arrive") and ({"leave", "arrive"} - {slot}) & state.constraints.keys():
            other = "arrive" if slot == "leave" else "leave"
            answer = Act("inform", domain, other, state.constraints[other])
        elif slot in _DONTCARE_SLOTS and domain in (*VENUE_DOMAINS, "train"):
            answer = Act("inform", domain, slot, "dontcare")
        else:
            return
        if answer not in self.pending:
            self.pending.append(answer)

    def _check_values(self, acts: list[Act]) -> None:
        """An offered value contradicting a constraint already given: give it again (once)."""
        for act in acts:
            if act.intent not in ("inform", "recommend", "select") or act.slot not in _CHECKED_SLOTS:
                continue
            state = self.tracker.state(act.domain)
            if state is None or act.slot not in (state.told or ()):
                continue
            wanted = state.constraints.get(act.slot, "")
            if wanted.lower() in ("dontcare", "") or act.value.strip().lower() == wanted.lower():
                continue
            if (state.domain, act.slot) not in self.corrected:
                self.corrected.add((state.domain, act.slot))
                self.pending.append(Act("inform", state.domain, act.slot, wanted))

    # -- the agenda ----------------------------------------------------------------------

    def _untold(self, state: DomainState) -> list[str]:
        if state.domain not in self.order:
            self._complete_taxi(state)
            slots = list(state.constraints)
            self.rng.shuffle(slots)
            self.order[state.domain] = slots
        order = self.order[state.domain] + [s for s in state.constraints if s not in self.order[state.domain]]
        return [s for s in order if s in state.constraints and s not in (state.told or ())]

    def _stalled(self, state: DomainState, why: str) -> list[Act]:
        """Nothing new to say while waiting: repeat once per ``patience``, then give up."""
        self.stalls[state.domain] += 1
        if self.stalls[state.domain] > self.patience:
            state.failed = why
            return []
        if state.needs_booking and state.offered:
            return [Act("inform", state.domain, s, v) for s, v in state.book.items()]
        return [Act("inform", state.domain, s, v) for s, v in state.constraints.items()]

    def _domain_acts(self, state: DomainState, answered: set[tuple[str, str]]) -> list[Act]:
        domain = state.domain
        untold = [s for s in self._untold(state) if (domain, s) not in answered]
        if untold:
            count = min(len(untold), self.rng.randint(2, self.max_informs) if len(untold) > 1 else 1)
            chosen = untold[:count]
            state.add_constraints()  # an offer made before these constraints must be confirmed
            return [Act("inform", domain, s, state.constraints[s]) for s in chosen]
        if state.needs_offer and not state.offered:
            return self._stalled(state, NO_OFFER)
        if state.needs_booking and not state.booked:
            missing = [s for s in booking_slots(domain) if s in state.book and s not in state.book_told]
            if missing:
                acts = [Act("inform", domain, s, state.book[s]) for s in missing]
                if self.rng.random() < 0.5:
                    acts.append(Act("request", domain, "ref", "?"))
                return acts
            return self._stalled(state, NO_BOOKING)
        wanted = [s for s in state.requests if s not in state.answered]
        ask = [s for s in wanted if self.asked[(domain, s)] < self.patience]
        if wanted and not ask:
            state.failed = f"{NOT_GIVEN}: {', '.join(wanted)}"
            return []
        chosen = ask[: self.rng.randint(1, self.max_requests)]
        for slot in chosen:
            self.asked[(domain, slot)] += 1
        return [Act("request", domain, s, "?") for s in chosen]

    def _acts(self) -> tuple[list[Act], bool]:
        acts, self.pending = self.pending, []
        answered = {(a.domain, a.slot) for a in acts}
        for _ in range(len(self.tracker.domains) + 1):
            state = self.tracker.current
            if state is None:
                return [Act("thank", "general"), Act("bye", "general")], True
            new = self._domain_acts(state, answered)
            if new or acts:
                return acts + new, False
        return [Act("thank", "general"), Act("bye", "general")], True

    def _turn(self) -> UserTurn:
        acts, final = self._acts()
        self.tracker.observe_user(acts)  # a booking counts as asked for once every detail was given
        self.last = {a.slot for a in acts if a.intent == "inform"}
        self.known |= self.last
        self.finished = final
        text = self.templates.realize(acts, self.rng)
        self.said = text
        return UserTurn(text, tuple(acts), final, self.tracker.booked_domains())

    def start(self) -> UserTurn:
        """The first turn: the first domain's first constraints."""
        return self._turn()

    def next_turn(self) -> UserTurn:
        """Answers owed, then the next step of the agenda."""
        return self._turn()


class AgendaFactory(SimulatorFactory):
    """Agenda users sharing the run's templates and reader."""

    name = "agenda"
    version = VERSION

    def __init__(self, context: Any, *, max_informs: int = 3, max_requests: int = 3, patience: int = 2) -> None:
        self.context = context
        self._options = {"max_informs": max_informs, "max_requests": max_requests, "patience": patience}

    def session(self, goal: UserGoal, rng: random.Random) -> AgendaUser:
        """The agenda user of ``goal``."""
        return AgendaUser(goal, rng, self.context.user_templates, self.context.reader, **self._options)

    def options(self) -> Mapping[str, Any]:
        """max_informs, max_requests and patience."""
        return dict(self._options)


def make(context: Any, **options: Any) -> AgendaFactory:
    """The ``agenda`` simulator (the loader its plugin entry names)."""
    return AgendaFactory(context, **options)

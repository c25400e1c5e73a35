"""Goal tracking from the user's side: what the system has offered, answered and booked.

Shared by the ``agenda`` and ``llm`` simulators. It reads system acts (the system's own, or the
system-act reader's reading of its text) and keeps, per goal domain: the constraints now in
force (switching from ``fail_info`` to ``info`` on a no-offer, from the failing booking details
to ``book`` on a failed booking), whether a venue was offered, which requested attributes were
given, whether the booking was made, and whether the domain was given up.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from mwz_metrics.interactive.acts import BOOK_SLOTS, VENUE_DOMAINS, Act, goal_slot_to_act
from mwz_metrics.interactive.goals import DomainGoal, UserGoal

_NEEDS_OFFER = (*VENUE_DOMAINS, "train")


def act_slots(slots: dict[str, str], *, requested: bool = False) -> dict[str, str]:
    """Goal slots -> act slots (unknown names are dropped)."""
    out = {}
    for slot, value in slots.items():
        name = goal_slot_to_act(slot, requested=requested)
        if name:
            out[name] = value
    return out


@dataclasses.dataclass
class DomainState:
    """The user's view of one goal domain."""

    goal: DomainGoal
    constraints: dict[str, str] = dataclasses.field(default_factory=dict)  # act slot -> value, in force
    switched: bool = False  # fail_info -> info done
    book: dict[str, str] = dataclasses.field(default_factory=dict)  # act slot -> value, in force
    book_switched: bool = False
    offered: bool = False
    booked: bool = False
    booking_asked: bool = False
    answered: set[str] = dataclasses.field(default_factory=set)
    failed: str = ""  # why the user gave this domain up
    # Constraints the user has stated (None: the simulator does not track them, e.g. free text).
    told: set[str] | None = None

    def __post_init__(self) -> None:
        self.constraints = act_slots(self.goal.first_info)
        self.book = act_slots(self.goal.first_book)

    @property
    def domain(self) -> str:
        """The domain's name."""
        return self.goal.domain

    @property
    def requests(self) -> list[str]:
        """The act slots the goal asks for (``reqt``), in the goal's order."""
        out = []
        for slot in self.goal.reqt:
            name = goal_slot_to_act(slot, requested=True)
            if name and name not in out:
                out.append(name)
        return out

    @property
    def needs_offer(self) -> bool:
        """Whether the domain needs a venue (or train) offered."""
        return self.domain in _NEEDS_OFFER

    @property
    def needs_booking(self) -> bool:
        """Whether the goal books in this domain."""
        return bool(self.book)

    @property
    def done(self) -> bool:
        """Fulfilled or given up."""
        return bool(self.failed) or self.fulfilled

    @property
    def fulfilled(self) -> bool:
        """Offered (where needed), every requested attribute given, booked (where wanted)."""
        return (
            (self.told is None or self.told >= self.constraints.keys())
            and (self.offered or not self.needs_offer)
            and all(s in self.answered for s in self.requests)
            and (self.booked or not self.needs_booking)
        )

    def switch_info(self) -> list[str]:
        """On a no-offer: the goal's final constraints; returns the slots that changed."""
        if self.switched or not self.goal.fail_info:
            return []
        new = act_slots(self.goal.info)
        changed = [s for s, v in new.items() if self.constraints.get(s) != v]
        self.constraints, self.switched, self.offered = new, True, False
        return changed

    def switch_book(self) -> list[str]:
        """On a failed booking: the goal's final booking details; returns the slots that changed."""
        if self.book_switched or not self.goal.fail_book:
            return []
        new = act_slots(self.goal.book)
        changed = [s for s, v in new.items() if self.book.get(s) != v]
        self.book, self.book_switched = new, True
        return changed


class GoalTracker:
    """Every domain of a goal, and the domain being talked about."""

    def __init__(self, goal: UserGoal) -> None:
        self.goal = goal
        self.domains = [DomainState(g) for g in goal.domains]
        self.index = 0

    @property
    def current(self) -> DomainState | None:
        """The first domain not yet done (None when all are)."""
        while self.index < len(self.domains) and self.domains[self.index].done:
            self.index += 1
        return self.domains[self.index] if self.index < len(self.domains) else None

    def state(self, domain: str) -> DomainState | None:
        """The state of a goal domain."""
        return next((d for d in self.domains if d.domain == domain), None)

    def _target(self, act: Act) -> DomainState | None:
        """The domain an act is about: its own if the goal has it, else the current one."""
        return self.state(act.domain) or self.current

    def observe(self, acts: Iterable[Act]) -> dict[str, list[str]]:
        """Update from system acts; returns the constraint and booking slots that switched."""
        switched: dict[str, list[str]] = {}
        failures: set[tuple[str, str]] = set()  # several no-offer acts in one turn are one no-offer
        for act in acts:
            if act.intent in ("nooffer", "nobook"):
                key = (act.intent, act.domain)
                if key in failures:
                    continue
                failures.add(key)
            if act.intent == "nooffer":
                state = self._target(act)
                if state is None:
                    continue
                changed = state.switch_info()
                if changed:
                    switched[f"info:{state.domain}"] = changed
                elif state.needs_offer and not state.offered:
                    state.failed = "no venue matches the goal's constraints"
            elif act.intent == "nobook":
                state = self._booking_target()
                if state is None:
                    continue
                changed = state.switch_book()
                if changed:
                    switched[f"book:{state.domain}"] = changed
                elif state.booking_asked:
                    state.failed = "the booking failed"
            elif act.intent in ("book", "offerbooked") or (act.intent == "inform" and act.slot == "ref"):
                state = self._booking_target()
                if state is not None and state.booking_asked:
                    state.booked = True
                    state.offered = True
            else:
                state = self._target(act)
                if state is None:
                    continue
                if act.intent in ("inform", "recommend", "select", "offerbook") and act.slot in ("name", "id"):
                    state.offered = True
                if act.intent in ("inform", "recommend") and act.slot in state.requests:
                    state.answered.add(act.slot)
        return switched

    def _booking_target(self) -> DomainState | None:
        """The domain a booking act is about: the current one if it books, else one awaiting its booking."""
        current = self.current
        if current is not None and current.needs_booking:
            return current
        return next((d for d in self.domains if d.booking_asked and not d.booked), None)

    def complete(self) -> bool:
        """Every domain fulfilled (none given up)."""
        return all(d.fulfilled for d in self.domains)

    def booked_domains(self) -> tuple[str, ...]:
        """The domains whose booking the user has asked for, in mwzeval's order."""
        asked = {d.domain for d in self.domains if d.booking_asked}
        return tuple(d for d in ("restaurant", "hotel", "train", "attraction") if d in asked)


class TrackedUser:
    """What a simulator with a :class:`GoalTracker` reports: its verdict and the domains given up."""

    tracker: GoalTracker

    def complete(self) -> bool:
        """Every domain fulfilled, as the tracker saw it."""
        return self.tracker.complete()

    def details(self) -> dict[str, object]:
        """The domains given up, and why."""
        return {"given_up": {d.domain: d.failed for d in self.tracker.domains if d.failed}}


def booking_slots(domain: str) -> tuple[str, ...]:
    """The act slots a booking in ``domain`` needs."""
    return BOOK_SLOTS.get(domain, ())

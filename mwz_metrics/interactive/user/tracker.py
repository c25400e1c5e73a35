"""Goal tracking from the user's side: what the system has offered, answered and booked.

Shared by the ``agenda`` and ``llm`` simulators and by the agreement check
(:mod:`.agreement`), which feeds it the 1000 test dialogues. It reads the user's acts
(:meth:`GoalTracker.observe_user`: the constraints stated, a venue the user named itself, the
booking details given) and the system's acts (:meth:`GoalTracker.observe`: the system's own, or
the system-act reader's reading of its text), and keeps per goal domain: the constraints in force
(switching from ``fail_info`` to ``info`` on a no-offer, from the failing booking details to
``book`` on a failed booking), whether a venue was offered or identified, which requested
attributes the user knows, whether the booking was made, and whether the domain was given up.

It understands what the 1000 human wizards of the test set do, not only one policy:

- an **offer** is a venue's name or a train's id in any informing act (``Inform``, ``Recommend``,
  ``Select`` of several, ``OfferBook``, a booking); for trains also an offer to book one
  (``Train-OfferBook`` with its times but no id) or a single train's departure or arrival time;
  for venues an offer to book (``Booking-Inform``) once constraints were given;
- a venue the user **named itself** is identified once the system speaks about it without a
  no-offer (the system need not repeat the name);
- after the user adds a constraint to an offered venue, the system **confirming** it (any inform
  about the domain without a no-offer) keeps the offer;
- a **booking** is announced by a booking act or a reference number in any act and domain, and
  goes to the goal domain waiting for one;
- an attribute is **answered** by any informing act of that slot, in its own domain or, when its
  domain does not ask for it, in the domain being talked about (annotations and systems mix up
  domains); an attribute the user stated itself is known.

Giving up is the simulator's policy: with ``patience``, a domain is given up after that many
no-offers (or failed bookings) with no alternative left in the goal; without it, never.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from mwz_metrics.interactive.acts import BOOK_SLOTS, VENUE_DOMAINS, Act, goal_slot_to_act
from mwz_metrics.interactive.goals import DomainGoal, UserGoal

_NEEDS_OFFER = (*VENUE_DOMAINS, "train")
_INFORMING = ("inform", "recommend", "select", "offerbook", "offerbooked", "book")
_NO_VALUE = ("?", "none", "", "dontcare")
_BOOKING_ANNOUNCED = ("book", "offerbooked")

# Why a domain was given up (the summary counts them, by domain).
NO_OFFER = "no offer"
NO_VENUE = "no venue matches the goal's constraints"
NO_BOOKING = "no booking"
BOOKING_FAILED = "the booking failed"
NOT_GIVEN = "not given"


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
    on_table: bool = False  # a venue was offered before the user's latest constraints
    named: bool = False  # the user named the venue its goal names
    booked: bool = False
    booking_asked: bool = False
    answered: set[str] = dataclasses.field(default_factory=set)
    failed: str = ""  # why the user gave this domain up
    # Constraints the user has stated (None: the simulator does not track them, e.g. free text).
    told: set[str] | None = None
    book_told: set[str] = dataclasses.field(default_factory=set)
    no_offers: int = 0  # no-offers since the last offer, with no alternative left
    no_bookings: int = 0  # failed bookings with no alternative left
    offered_values: dict[str, str] = dataclasses.field(default_factory=dict)  # what the system said of its offer
    said: dict[str, str] = dataclasses.field(default_factory=dict)  # the constraints the user stated, as stated

    def __post_init__(self) -> None:
        self.constraints = act_slots(self.goal.first_info)
        self.book = act_slots(self.goal.first_book)

    @property
    def domain(self) -> str:
        """The domain's name."""
        return self.goal.domain

    @property
    def requests(self) -> list[str]:
        """The act slots the goal asks for (``reqt``), in the goal's order; then a venue's name where the
        goal does not give it (a user must know where to go: "it is in the south" offers no venue)."""
        out = []
        for slot in self.goal.reqt:
            name = goal_slot_to_act(slot, requested=True)
            if name and name not in out:
                out.append(name)
        if self.domain in VENUE_DOMAINS and "name" not in self.goal.info and "name" not in out:
            out.append("name")
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
        """Offered (where needed), every requested attribute known, booked (where wanted)."""
        return not self.missing()

    def missing(self) -> list[str]:
        """What the domain still lacks: ``untold``, ``offer``, ``booking``, ``answer:SLOT`` (empty when fulfilled)."""
        out = []
        if self.told is not None and not self.told >= self.constraints.keys():
            out.append("untold")
        if self.needs_offer and not self.offered:
            out.append("offer")
        if self.needs_booking and not self.booked:
            out.append("booking")
        out.extend(f"answer:{s}" for s in self.requests if s not in self.answered)
        return out

    def switch_info(self) -> list[str]:
        """On a no-offer: the goal's final constraints; returns the slots that changed."""
        if self.switched or not self.goal.fail_info:
            return []
        new = act_slots(self.goal.info)
        changed = [s for s, v in new.items() if self.constraints.get(s) != v]
        self.constraints, self.switched, self.offered, self.on_table = new, True, False, False
        if self.told is not None:
            self.told -= set(changed)  # to be said again, with the final values
        return changed

    def switch_book(self) -> list[str]:
        """On a failed booking: the goal's final booking details; returns the slots that changed."""
        if self.book_switched or not self.goal.fail_book:
            return []
        new = act_slots(self.goal.book)
        changed = [s for s, v in new.items() if self.book.get(s) != v]
        self.book, self.book_switched = new, True
        self.book_told -= set(changed)
        self.booking_asked = False
        return changed

    def add_constraint(self, slot: str, value: str) -> None:
        """The user states a constraint after an offer: the offer stands once the system confirms it
        (:attr:`on_table`); a venue known to contradict it is no longer the one, its name unknown."""
        known = self.offered_values.get(slot)
        if not self.offered or (known is not None and known.strip().lower() == value.strip().lower()):
            return  # nothing offered yet, or the system said its offer meets it
        self.offered, self.on_table = False, True
        if known is not None:
            self.answered.discard("name")


class GoalTracker:
    """Every domain of a goal, the domain being worked on, and the one being talked about."""

    def __init__(
        self, goal: UserGoal, *, patience: int | None = None, track_told: bool = False, require_details: bool = False
    ) -> None:
        self.goal = goal
        self.patience = patience
        self.require_details = require_details
        self.domains = [DomainState(g) for g in goal.domains]
        if track_told:
            for state in self.domains:
                state.told = set()
        self.index = 0
        self.focus: str | None = None  # the goal domain of the user's latest acts

    @property
    def current(self) -> DomainState | None:
        """The first domain not yet done (None when all are)."""
        while self.index < len(self.domains) and self.domains[self.index].done:
            self.index += 1
        return self.domains[self.index] if self.index < len(self.domains) else None

    def state(self, domain: str) -> DomainState | None:
        """The state of a goal domain."""
        return next((d for d in self.domains if d.domain == domain), None)

    def _focused(self) -> DomainState | None:
        """The domain being talked about: the user's latest, else the one being worked on."""
        return (self.state(self.focus) if self.focus else None) or self.current

    # -- the user's side ---------------------------------------------------------------

    def observe_user(self, acts: Iterable[Act]) -> None:
        """What the user said: the constraints and booking details stated, a venue named, a reference asked for."""
        focus = None
        for act in acts:
            state = self.state(act.domain)
            if state is None:
                continue
            focus = focus or state.domain  # a turn is about the domain it starts with
            if "name" in state.goal.info:
                state.named = True  # the user knows the venue it talks about (annotations often miss the name)
            if act.intent == "request" and act.slot == "ref":
                state.booking_asked = state.needs_booking or state.booking_asked
            if act.intent != "inform" or act.slot == "none":
                continue
            if act.slot in state.constraints:
                if state.said.get(act.slot) != act.value.strip().lower() and not state.booked:
                    state.add_constraint(act.slot, act.value)  # a new constraint, not one said again
                state.said[act.slot] = act.value.strip().lower()
                if state.told is not None:
                    state.told.add(act.slot)
            elif act.slot in BOOK_SLOTS.get(state.domain, ()):
                state.book_told.add(act.slot)
            if act.slot in state.requests and act.value.strip().lower() not in _NO_VALUE:
                state.answered.add(act.slot)  # the user chose it: it knows it
        self.focus = focus or self.focus
        for state in self.domains:
            if state.needs_booking and state.book_told >= state.book.keys():
                state.booking_asked = True

    # -- the system's side -------------------------------------------------------------

    def _booking_target(self, act: Act, slots: Iterable[str] = ()) -> DomainState | None:
        """The goal domain a booking act is about: its own, else the one talked about, else one awaiting a
        booking. A "booking" act's slots say which where they can: a stay books a room, a time a table, a
        venue's name no train, a train id a train."""
        waiting = [d for d in self.domains if d.needs_booking and not d.booked and not d.failed]
        if self.require_details:
            waiting = [d for d in waiting if d.booking_asked] or waiting
        if act.domain == "booking":
            slots = set(slots)
            hinted = [
                d
                for d in waiting
                if not (slots & {"stay", "time"}) - set(BOOK_SLOTS.get(d.domain, ()))
                and not ("name" in slots and d.domain == "train")
                and not ("id" in slots and d.domain != "train")
            ]
            waiting = hinted or waiting
            # MultiWOZ's wizards book a train with a train act: a "booking" act books a table or a room
            # where one waits (some systems book trains with it too)
            waiting = [d for d in waiting if d.domain != "train"] or waiting
        for state in (self.state(act.domain), self._focused()):
            if state is not None and state in waiting:
                return state
        return next((d for d in waiting if d.booking_asked), waiting[0] if waiting else None)

    def _answer_target(self, act: Act) -> DomainState | None:
        """The goal domain an informed attribute answers: its own if it asks for it, else the one talked
        about, else the one domain still waiting for it."""
        own, focused = self.state(act.domain), self._focused()
        for state in (own, focused):
            if state is not None and act.slot in state.requests and act.slot not in state.answered:
                return state
        waiting = [d for d in self.domains if act.slot in d.requests and act.slot not in d.answered and not d.failed]
        return waiting[0] if len(waiting) == 1 else own

    @staticmethod
    def _offers(state: DomainState, act: Act) -> bool:
        """Whether a system act (about ``state``'s domain) puts a venue or a train on offer."""
        if act.intent not in _INFORMING:
            return False
        if state.domain == "train":
            return (
                act.slot == "id"
                or act.intent in ("offerbook", "offerbooked")
                or (
                    act.slot in ("leave", "arrive")
                    and act.intent in ("inform", "recommend", "select")
                    and not act.value.startswith("[")  # a time the reader found may be the user's own
                )
            )
        return act.slot == "name"

    def _bookings(self, acts: list[Act]) -> set[str]:
        """Book what the booking acts of one system turn announce; returns the domains booked.

        An act of a goal domain that books is that domain's booking; the others ("Booking-Book",
        a reference in another act) repeat it, or else are one booking of the domain awaiting one.
        """
        own = [s for a in acts if (s := self.state(a.domain)) is not None and s.needs_booking]
        targets = {s.domain: s for s in own}
        if acts and not targets:
            shared = self._booking_target(acts[0], [a.slot for a in acts if a.value.strip().lower() not in _NO_VALUE])
            if shared is not None:
                targets[shared.domain] = shared
        if self.require_details:
            # a booking made before the user gave its details, or with other details, is not the goal's
            targets = {d: s for d, s in targets.items() if s.booking_asked and self._details_match(s, acts)}
        for state in targets.values():
            state.booked = state.offered = True
            state.answered.add("ref")
        for act in acts:  # what was booked was on offer, also where the goal books nothing
            offered = self.state(act.domain) or self._focused()
            if offered is not None and not targets:
                offered.offered = True
        return set(targets)

    @staticmethod
    @staticmethod
    def _note_value(state: DomainState, act: Act) -> None:
        """Remember what the system says of the venue it offers (a new name: a new venue)."""
        value = act.value.strip()
        if value.lower() in _NO_VALUE or value.startswith("[") or act.slot in ("none", "choice"):
            return
        if act.slot in ("name", "id") and state.offered_values.get(act.slot) != value:
            state.offered_values = {}
        state.offered_values[act.slot] = value

    @staticmethod
    def _gives_value(act: Act) -> bool:
        """Whether an informing act answers its slot: with a value, or "?" (the system does not know it, as
        the database does not know many entrance fees: no system can say more). 2.1 annotates "free
        parking" and "free wifi" with the value "none"; any other "none" answers nothing."""
        value = act.value.strip().lower()
        return value != "" and (value != "none" or act.slot in ("internet", "parking"))

    @staticmethod
    def _details_match(state: DomainState, acts: list[Act]) -> bool:
        """Whether the booking details the acts state (where they carry values) are the ones in force."""
        for act in acts:
            wanted = state.book.get(act.slot)
            value = act.value.strip().lower()
            if wanted is None or value in _NO_VALUE or value.startswith("["):
                continue
            if value != wanted.strip().lower() and value.split()[0] != wanted.strip().lower():
                return False
        return True

    @staticmethod
    def _announces_booking(act: Act) -> bool:
        """A booking act, or a reference number given in any act (annotators file some under ``NoBook``)."""
        return act.intent in _BOOKING_ANNOUNCED or (act.slot == "ref" and act.value.strip().lower() not in _NO_VALUE)

    def observe(self, acts: Iterable[Act]) -> dict[str, list[str]]:
        """Update from system acts; returns the constraint and booking slots that switched."""
        acts = list(acts)
        booked = self._bookings([a for a in acts if self._announces_booking(a)])
        no_offer: dict[str, DomainState] = {}
        no_booking: dict[str, DomainState] = {}
        for act in acts:
            if act.intent == "nooffer":
                state = self.state(act.domain) or self._focused()
                if state is not None:
                    no_offer[state.domain] = state
            elif act.intent == "nobook" and not self._announces_booking(act):
                hints = [a.slot for a in acts if a.intent == "nobook" and a.value.strip().lower() not in _NO_VALUE]
                state = self._booking_target(act, hints) or self._focused()
                if state is not None and state.domain not in booked:
                    no_booking[state.domain] = state
        spoken: set[str] = set()  # domains the system informed about in this turn
        for act in acts:
            if act.intent not in _INFORMING:
                continue
            # an act of a domain the goal lacks ("booking", or a slip of the system or annotator) is about
            # the domain being talked about
            about = self.state(act.domain) or self._focused()
            if about is not None:
                spoken.add(about.domain)
                self._note_value(about, act)
                if self._offers(about, act) or (
                    act.domain == "booking" and act.intent == "inform" and about.domain in VENUE_DOMAINS
                ):
                    about.offered, about.no_offers = True, 0
            if act.slot not in ("none", "choice") and self._gives_value(act):
                target = self._answer_target(act)
                if target is not None and act.slot in target.requests:
                    target.answered.add(act.slot)
        for domain in spoken - no_offer.keys():
            state = self.state(domain)
            if state is not None and (state.named or state.on_table) and not state.offered:
                state.offered, state.on_table = True, False  # identified, or its new constraint confirmed
        return self._failures(no_offer, no_booking)

    def _failures(self, no_offer: dict[str, DomainState], no_booking: dict[str, DomainState]) -> dict[str, list[str]]:
        """No-offers and failed bookings: the goal's alternatives, else counted (and given up past ``patience``)."""
        switched: dict[str, list[str]] = {}
        for state in no_offer.values():
            changed = state.switch_info()
            if changed:
                switched[f"info:{state.domain}"] = changed
            elif state.needs_offer and not state.offered:
                state.no_offers += 1
                if self.patience is not None and state.no_offers >= self.patience:
                    state.failed = NO_VENUE
        for state in no_booking.values():
            changed = state.switch_book()
            if changed:
                switched[f"book:{state.domain}"] = changed
            elif state.booking_asked:
                state.no_bookings += 1
                state.booking_asked = False  # to be asked again
                if self.patience is not None and state.no_bookings >= self.patience:
                    state.failed = BOOKING_FAILED
        return switched

    def complete(self) -> bool:
        """Every domain fulfilled (none given up)."""
        return all(d.fulfilled for d in self.domains)

    def booked_domains(self) -> tuple[str, ...]:
        """The domains whose booking the user has asked for, in mwzeval's order."""
        asked = {d.domain for d in self.domains if d.booking_asked or d.booked}
        return tuple(d for d in ("restaurant", "hotel", "train", "attraction") if d in asked)

    def outcomes(self) -> dict[str, dict[str, object]]:
        """Per goal domain: fulfilled, what it lacks, and why it was given up (if it was)."""
        return {
            d.domain: {"fulfilled": d.fulfilled, "missing": d.missing(), **({"given_up": d.failed} if d.failed else {})}
            for d in self.domains
        }


class TrackedUser:
    """What a simulator with a :class:`GoalTracker` reports: its verdict and each domain's outcome."""

    tracker: GoalTracker

    def complete(self) -> bool:
        """Every domain fulfilled, as the tracker saw it."""
        return self.tracker.complete()

    def details(self) -> dict[str, object]:
        """The domains given up (and why), and each domain's outcome."""
        return {
            "given_up": {d.domain: d.failed for d in self.tracker.domains if d.failed},
            "domains": self.tracker.outcomes(),
        }


def booking_slots(domain: str) -> tuple[str, ...]:
    """The act slots a booking in ``domain`` needs."""
    return BOOK_SLOTS.get(domain, ())

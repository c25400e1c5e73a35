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

Each domain's state is a small state machine (:class:`DomainState`): the search (:class:`Offer`:
asked, offered, reconfirming), the user's booking request (:class:`Request`), booked, and given
up; the transitions are the tables :data:`OFFER_MOVES` and :data:`REQUEST_MOVES`. Only the
tracker moves it; the simulators read it (and ask the tracker to give a domain up).

Giving up is the simulator's policy: with ``patience``, a domain is given up after that many
no-offers (or failed bookings) with no alternative left in the goal; without it, never.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping
from collections.abc import Set as AbstractSet

from mwz_metrics.interactive.acts import Act, goal_slot_to_act
from mwz_metrics.interactive.goals import DomainGoal, UserGoal
from mwz_metrics.interactive.vocabulary import (
    BOOK_SLOTS,
    BOOKING_INTENTS,
    INFORMING,
    MWZEVAL_BOOKING_ORDER,
    NOT_A_VALUE,
    OFFER_DOMAINS,
    VENUE_DOMAINS,
)

# The tracker also reads a booking act's slots as given ("booked at X, reference Y"); the scoring's inform
# F1 leaves "book" to the book rate, as ConvLab does: a difference on purpose.
_INFORMING = INFORMING | {"book"}

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


class Offer(enum.Enum):
    """Where the search for a venue (or a train) stands."""

    ASKED = "asked"  # constraints given (or being given), nothing on offer
    OFFERED = "offered"  # a venue or train on offer, or the venue the user named identified
    RECONFIRMING = "reconfirming"  # offered, then a constraint added: the offer stands once the system confirms it


class Request(enum.Enum):
    """Whether the user has asked for the booking (the system's booking is a region of its own: wizards
    book before being asked, and a user may ask again after a booking)."""

    NOT_REQUESTED = "not requested"
    REQUESTED = "booking requested"  # every booking detail given, or the reference asked for


# The transitions, by event: {from: to}. A state missing under its event is a bug of the tracker.
OFFER_MOVES: dict[str, dict[Offer, Offer]] = {
    # the system puts a venue or train on offer (or books one)
    "offer": {Offer.ASKED: Offer.OFFERED, Offer.OFFERED: Offer.OFFERED, Offer.RECONFIRMING: Offer.OFFERED},
    # the system speaks about the venue the user named (guard: named), or confirms the added constraint
    "identify": {Offer.ASKED: Offer.OFFERED, Offer.RECONFIRMING: Offer.OFFERED},
    # the user adds a constraint the offer is not known to meet
    "reconsider": {Offer.OFFERED: Offer.RECONFIRMING},
    # a no-offer switched the constraints to the goal's final ones: search again
    "search again": {Offer.ASKED: Offer.ASKED, Offer.OFFERED: Offer.ASKED, Offer.RECONFIRMING: Offer.ASKED},
}
REQUEST_MOVES: dict[str, dict[Request, Request]] = {
    "request": {Request.NOT_REQUESTED: Request.REQUESTED, Request.REQUESTED: Request.REQUESTED},
    # a failed booking counted: to be asked again
    "booking failed": {Request.REQUESTED: Request.NOT_REQUESTED},
    # a failed booking switched the details to the goal's final ones
    "new details": {Request.NOT_REQUESTED: Request.NOT_REQUESTED, Request.REQUESTED: Request.NOT_REQUESTED},
}


class DomainState:
    """The user's view of one goal domain: data (constraints and booking details in force, what was told
    and answered) and three regions of state (the offer, the booking request, booked), plus given up.

    Only :class:`GoalTracker` changes it (through the ``_`` methods below); the simulators read it.
    """

    def __init__(self, goal: DomainGoal, *, track_told: bool = False) -> None:
        self.goal = goal
        self._constraints = act_slots(goal.first_info)  # act slot -> value, in force
        self._switched = False  # fail_info -> info done
        self._book = act_slots(goal.first_book)  # act slot -> value, in force
        self._book_switched = False
        self._offer = Offer.ASKED
        self._named = False  # the user named the venue its goal names
        self._request = Request.NOT_REQUESTED
        self._booked = False
        self._given_up = ""  # why the user gave this domain up
        self._answered: set[str] = set()
        # Constraints the user has stated (None: the simulator does not track them, e.g. free text).
        self._told: set[str] | None = set() if track_told else None
        self._book_told: set[str] = set()
        self._no_offers = 0  # no-offers since the last offer, with no alternative left
        self._no_bookings = 0  # failed bookings with no alternative left
        self._offered_values: dict[str, str] = {}  # what the system said of its offer
        self._said: dict[str, str] = {}  # the constraints the user stated, as stated
        self._requests = self._requested_slots()  # the goal is frozen: computed once

    # -- reading -----------------------------------------------------------------------

    @property
    def domain(self) -> str:
        """The domain's name."""
        return self.goal.domain

    @property
    def offer(self) -> Offer:
        """Where the search stands."""
        return self._offer

    @property
    def request(self) -> Request:
        """Whether the user has asked for the booking."""
        return self._request

    @property
    def offered(self) -> bool:
        """A venue (or train) on offer or identified."""
        return self._offer is Offer.OFFERED

    @property
    def named(self) -> bool:
        """The user named the venue its goal names."""
        return self._named

    @property
    def booking_requested(self) -> bool:
        """The user has asked for the booking."""
        return self._request is Request.REQUESTED

    @property
    def booked(self) -> bool:
        """The system announced the booking."""
        return self._booked

    @property
    def given_up(self) -> str:
        """Why the user gave this domain up ("" while it has not)."""
        return self._given_up

    @property
    def constraints(self) -> Mapping[str, str]:
        """Act slot -> value: the constraints in force."""
        return self._constraints

    @property
    def book(self) -> Mapping[str, str]:
        """Act slot -> value: the booking details in force."""
        return self._book

    @property
    def answered(self) -> AbstractSet[str]:
        """The requested attributes the user knows."""
        return self._answered

    @property
    def told(self) -> AbstractSet[str] | None:
        """The constraints the user has stated (None: not tracked)."""
        return self._told

    @property
    def book_told(self) -> AbstractSet[str]:
        """The booking details the user has given."""
        return self._book_told

    @property
    def requests(self) -> tuple[str, ...]:
        """The act slots the goal asks for (``reqt``), in the goal's order; then a venue's name where the
        goal does not give it (a user must know where to go: "it is in the south" offers no venue)."""
        return self._requests

    def _requested_slots(self) -> tuple[str, ...]:
        out = []
        for slot in self.goal.reqt:
            name = goal_slot_to_act(slot, requested=True)
            if name and name not in out:
                out.append(name)
        if self.domain in VENUE_DOMAINS and "name" not in self.goal.info and "name" not in out:
            out.append("name")
        return tuple(out)

    @property
    def needs_offer(self) -> bool:
        """Whether the domain needs a venue (or train) offered."""
        return self.domain in OFFER_DOMAINS

    @property
    def needs_booking(self) -> bool:
        """Whether the goal books in this domain."""
        return bool(self._book)

    @property
    def done(self) -> bool:
        """Fulfilled or given up."""
        return bool(self._given_up) or self.fulfilled

    @property
    def fulfilled(self) -> bool:
        """Offered (where needed), every requested attribute known, booked (where wanted)."""
        return not self.missing()

    def missing(self) -> list[str]:
        """What the domain still lacks: ``untold``, ``offer``, ``booking``, ``answer:SLOT`` (empty when fulfilled)."""
        out = []
        if self._told is not None and not self._told >= self._constraints.keys():
            out.append("untold")
        if self.needs_offer and not self.offered:
            out.append("offer")
        if self.needs_booking and not self._booked:
            out.append("booking")
        out.extend(f"answer:{s}" for s in self.requests if s not in self._answered)
        return out

    # -- the transitions (the tracker's) --------------------------------------------------

    def _move_offer(self, event: str) -> None:
        moves = OFFER_MOVES[event]
        if self._offer not in moves:
            raise AssertionError(f"bug: {self.domain}: no offer transition {event!r} from {self._offer.value!r}")
        self._offer = moves[self._offer]

    def _move_request(self, event: str) -> None:
        moves = REQUEST_MOVES[event]
        if self._request not in moves:
            raise AssertionError(f"bug: {self.domain}: no request transition {event!r} from {self._request.value!r}")
        self._request = moves[self._request]

    def _offered_now(self) -> None:
        """The system offers a venue or train: the no-offers counted so far no longer count."""
        self._move_offer("offer")
        self._no_offers = 0

    def _identify(self) -> None:
        """The system speaks about the venue the user named, or confirms the constraint it added."""
        if self._offer is Offer.ASKED and not self._named:
            raise AssertionError(f"bug: {self.domain}: identified with no venue named")
        self._move_offer("identify")

    def _book_now(self) -> None:
        """The system announced the booking: booked, and what it booked is on offer."""
        self._booked = True
        self._move_offer("offer")
        self._answered.add("ref")

    def _answer(self, slot: str) -> None:
        """The system answered a requested attribute."""
        self._answered.add(slot)

    def _forget(self, slot: str) -> None:
        """The user missed the system's answer about ``slot`` (it asks again)."""
        self._answered.discard(slot)

    def _give_up(self, why: str) -> None:
        """The user gives the domain up (a later reason replaces an earlier one)."""
        self._given_up = why

    def _switch_info(self) -> list[str]:
        """On a no-offer: the goal's final constraints; returns the slots that changed."""
        if self._switched or not self.goal.fail_info:
            return []
        new = act_slots(self.goal.info)
        changed = [s for s, v in new.items() if self._constraints.get(s) != v]
        self._constraints, self._switched = new, True
        self._move_offer("search again")
        if self._told is not None:
            self._told -= set(changed)  # to be said again, with the final values
        return changed

    def _switch_book(self) -> list[str]:
        """On a failed booking: the goal's final booking details; returns the slots that changed."""
        if self._book_switched or not self.goal.fail_book:
            return []
        new = act_slots(self.goal.book)
        changed = [s for s, v in new.items() if self._book.get(s) != v]
        self._book, self._book_switched = new, True
        self._book_told -= set(changed)
        self._move_request("new details")
        return changed

    def _no_offer(self, patience: int | None) -> list[str]:
        """A no-offer: the goal's alternative constraints, else counted (given up past ``patience``)."""
        changed = self._switch_info()
        if not changed and self.needs_offer and not self.offered:
            self._no_offers += 1
            if patience is not None and self._no_offers >= patience:
                self._give_up(NO_VENUE)
        return changed

    def _booking_failed(self, patience: int | None) -> list[str]:
        """A failed booking: the goal's alternative details, else counted and to be asked again (given up
        past ``patience``)."""
        changed = self._switch_book()
        if not changed and self.booking_requested:
            self._no_bookings += 1
            self._move_request("booking failed")
            if patience is not None and self._no_bookings >= patience:
                self._give_up(BOOKING_FAILED)
        return changed

    def _add_constraint(self, slot: str, value: str) -> None:
        """The user states a constraint after an offer: the offer stands once the system confirms it
        (:attr:`Offer.RECONFIRMING`); a venue known to contradict it is no longer the one, its name unknown."""
        known = self._offered_values.get(slot)
        if not self.offered or (known is not None and known.strip().lower() == value.strip().lower()):
            return  # nothing offered yet, or the system said its offer meets it
        self._move_offer("reconsider")
        if known is not None:
            self._answered.discard("name")

    def _user_informs(self, act: Act) -> None:
        """The user states a constraint or a booking detail (``act`` informs a slot of this domain)."""
        value = act.value.strip().lower()
        if act.slot in self._constraints:
            if self._said.get(act.slot) != value and not self._booked:
                self._add_constraint(act.slot, act.value)  # a new constraint, not one said again
            self._said[act.slot] = value
            if self._told is not None:
                self._told.add(act.slot)
        elif act.slot in BOOK_SLOTS.get(self.domain, ()):
            self._book_told.add(act.slot)
        if act.slot in self.requests and value not in NOT_A_VALUE:
            self._answered.add(act.slot)  # the user chose it: it knows it

    def _note_value(self, act: Act) -> None:
        """Remember what the system says of the venue it offers (a new name: a new venue)."""
        value = act.value.strip()
        if value.lower() in NOT_A_VALUE or value.startswith("[") or act.slot in ("none", "choice"):
            return
        if act.slot in ("name", "id") and self._offered_values.get(act.slot) != value:
            self._offered_values = {}
        self._offered_values[act.slot] = value

    def _name_venue(self) -> None:
        """The user speaks about the domain: it knows the venue its goal names (annotations often miss it)."""
        if "name" in self.goal.info:
            self._named = True

    def _request_booking(self) -> None:
        """The user asks for the booking (a goal that books nothing asks for none)."""
        if self.needs_booking:
            self._move_request("request")

    def _change_constraint(self, slot: str, value: str) -> None:
        """The user changes its mind about a constraint: the new value is in force, to be said, and what
        was on offer met the old one (search again)."""
        self._constraints[slot] = value
        if self._told is not None:
            self._told.discard(slot)
        self._move_offer("search again")

    def _fill_constraint(self, slot: str, value: str) -> None:
        """A constraint the goal leaves implicit (a taxi's ends), unless the goal has one."""
        self._constraints.setdefault(slot, value)


class GoalTracker:
    """Every domain of a goal, the domain being worked on, and the one being talked about."""

    def __init__(
        self,
        goal: UserGoal,
        *,
        patience: int | None = None,
        track_told: bool = False,
        require_details: bool = False,
        booking_requested: bool = False,
    ) -> None:
        """``booking_requested``: every booking of the goal counts as asked for from the start (a user whose
        acts are not known)."""
        self.goal = goal
        self.patience = patience
        self.require_details = require_details
        self.domains = [DomainState(g, track_told=track_told) for g in goal.domains]
        self._by_domain: dict[str, DomainState] = {}
        for state in self.domains:
            self._by_domain.setdefault(state.domain, state)  # the first, as a search in order finds it
        if booking_requested:
            for state in self.domains:
                state._request_booking()
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
        return self._by_domain.get(domain)

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
            state._name_venue()
            if act.intent == "request" and act.slot == "ref":
                state._request_booking()
            if act.intent == "inform" and act.slot != "none":
                state._user_informs(act)
        self.focus = focus or self.focus
        for state in self.domains:
            if state.needs_booking and state.book_told >= state.book.keys():
                state._request_booking()

    def fill_constraint(self, domain: str, slot: str, value: str) -> None:
        """A constraint of ``domain`` the goal leaves implicit (a taxi's ends), unless the goal has one."""
        state = self.state(domain)
        if state is not None:
            state._fill_constraint(slot, value)

    def change_constraint(self, domain: str, slot: str, value: str) -> None:
        """The user changes a constraint of ``domain`` unprompted (a profile's policy, :mod:`.profiles`)."""
        state = self.state(domain)
        if state is not None:
            state._change_constraint(slot, value)

    def forget(self, domain: str, slot: str) -> bool:
        """The user missed an answer about ``slot`` of ``domain`` (a profile's policy, :mod:`.profiles`): it is
        to be asked again. Only in a domain still being worked on (False where the user has moved past it)."""
        state = self.state(domain)
        position = self.domains.index(state) if state is not None else -1
        if state is None or position < self.index or state.given_up or slot not in state.answered:
            return False
        state._forget(slot)
        return True

    def recall(self, domain: str, slot: str) -> None:
        """The user knows the answer about ``slot`` after all (it let the moment to ask again pass)."""
        state = self.state(domain)
        if state is not None and slot in state.requests:
            state._answer(slot)

    def give_up(self, domain: str, why: str) -> None:
        """The user gives ``domain`` up (the simulator's policy: it stalled, or asked too often)."""
        state = self.state(domain)
        if state is not None:
            state._give_up(why)

    # -- the system's side -------------------------------------------------------------

    def _booking_target(self, act: Act, slots: Iterable[str] = ()) -> DomainState | None:
        """The goal domain a booking act is about: its own, else the one talked about, else one awaiting a
        booking. A "booking" act's slots say which where they can: a stay books a room, a time a table, a
        venue's name no train, a train id a train."""
        waiting = [d for d in self.domains if d.needs_booking and not d.booked and not d.given_up]
        if self.require_details:
            waiting = [d for d in waiting if d.booking_requested] or waiting
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
        return next((d for d in waiting if d.booking_requested), waiting[0] if waiting else None)

    def _answer_target(self, act: Act) -> DomainState | None:
        """The goal domain an informed attribute answers: its own if it asks for it, else the one talked
        about, else the one domain still waiting for it."""
        own, focused = self.state(act.domain), self._focused()
        for state in (own, focused):
            if state is not None and act.slot in state.requests and act.slot not in state.answered:
                return state
        waiting = [d for d in self.domains if act.slot in d.requests and act.slot not in d.answered and not d.given_up]
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
            shared = self._booking_target(acts[0], [a.slot for a in acts if a.value.strip().lower() not in NOT_A_VALUE])
            if shared is not None:
                targets[shared.domain] = shared
        if self.require_details:
            # a booking made before the user gave its details, or with other details, is not the goal's
            targets = {d: s for d, s in targets.items() if s.booking_requested and self._details_match(s, acts)}
        for state in targets.values():
            state._book_now()
        for act in acts:  # what was booked was on offer, also where the goal books nothing
            offered = self.state(act.domain) or self._focused()
            if offered is not None and not targets:
                offered._move_offer("offer")
        return set(targets)

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
            if wanted is None or value in NOT_A_VALUE or value.startswith("["):
                continue
            if value != wanted.strip().lower() and value.split()[0] != wanted.strip().lower():
                return False
        return True

    @staticmethod
    def _announces_booking(act: Act) -> bool:
        """A booking act, or a reference number given in any act (annotators file some under ``NoBook``)."""
        return act.intent in BOOKING_INTENTS or (act.slot == "ref" and act.value.strip().lower() not in NOT_A_VALUE)

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
                hints = [a.slot for a in acts if a.intent == "nobook" and a.value.strip().lower() not in NOT_A_VALUE]
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
                about._note_value(act)
                if self._offers(about, act) or (
                    act.domain == "booking" and act.intent == "inform" and about.domain in VENUE_DOMAINS
                ):
                    about._offered_now()
            if act.slot not in ("none", "choice") and self._gives_value(act):
                target = self._answer_target(act)
                if target is not None and act.slot in target.requests:
                    target._answer(act.slot)
        for domain in spoken - no_offer.keys():
            state = self.state(domain)
            if state is not None and (
                state.offer is Offer.RECONFIRMING or (state.named and state.offer is Offer.ASKED)
            ):
                state._identify()  # identified, or its new constraint confirmed
        return self._failures(no_offer, no_booking)

    def _failures(self, no_offer: dict[str, DomainState], no_booking: dict[str, DomainState]) -> dict[str, list[str]]:
        """No-offers and failed bookings: the goal's alternatives, else counted (and given up past ``patience``)."""
        switched: dict[str, list[str]] = {}
        for state in no_offer.values():
            changed = state._no_offer(self.patience)
            if changed:
                switched[f"info:{state.domain}"] = changed
        for state in no_booking.values():
            changed = state._booking_failed(self.patience)
            if changed:
                switched[f"book:{state.domain}"] = changed
        return switched

    def complete(self) -> bool:
        """Every domain fulfilled (none given up)."""
        return all(d.fulfilled for d in self.domains)

    def booked_domains(self) -> tuple[str, ...]:
        """The domains whose booking the user has asked for, in mwzeval's order."""
        asked = {d.domain for d in self.domains if d.booking_requested or d.booked}
        return tuple(d for d in MWZEVAL_BOOKING_ORDER if d in asked)

    def outcomes(self) -> dict[str, dict[str, object]]:
        """Per goal domain: fulfilled, what it lacks, and why it was given up (if it was)."""
        return {
            d.domain: {
                "fulfilled": d.fulfilled,
                "missing": d.missing(),
                **({"given_up": d.given_up} if d.given_up else {}),
            }
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
            "given_up": {d.domain: d.given_up for d in self.tracker.domains if d.given_up},
            "domains": self.tracker.outcomes(),
        }


def booking_slots(domain: str) -> tuple[str, ...]:
    """The act slots a booking in ``domain`` needs."""
    return BOOK_SLOTS.get(domain, ())

"""``agenda``: a goal-driven user that needs no model (offline, seeded).

The user pursues the goal's domains in the order its messages introduce them. In each domain
it gives its constraints (two or three per turn), waits for an offer, books (all booking details
in one turn), then asks for the attributes the goal requests, and moves on; when every domain
is done or given up it thanks the system and says goodbye. It reacts to the system:

- a request is answered first: with the constraint or booking detail the goal has, the other of
  a train's two times if the system asks for the one the goal lacks, else "don't care";
- a no-offer switches to the goal's final constraints when the first ones were ``fail_info``
  (otherwise the domain is given up), a failed booking to the final booking details likewise; it is
  heard first, whatever else the turn asks ("I don't have any hotel ... Would you like me to look in
  a different area?"): the user's next turn gives the changed constraints (or details), and answers a
  request of that turn only with a value the goal has (never "don't care": the goal's next constraints
  are its answer). After the validation wizards' no-offers with a request, the user changes a
  constraint as often as the real users do (:mod:`..diagnostics.no_offer`);
- when the system sends acts, an offered value that contradicts a constraint already given is
  given again (once per slot).

It reads the system's ``acts`` when sent, else its text through the system-act reader
(:mod:`..reader`). What it cannot get after ``patience`` tries (an offer, a booking, an
attribute) it gives up, so that no session loops. The user's language comes from templates of
MultiWOZ 2.1 validation user turns (:mod:`..language`), filled with the goal's values.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import re
from collections import Counter
from collections.abc import Mapping
from typing import Any

from mwz_metrics.interactive.acts import Act
from mwz_metrics.interactive.goals import UserGoal, taxi_endpoints
from mwz_metrics.interactive.language.banks import UserTemplates
from mwz_metrics.interactive.language.moments import DECLINE, asks
from mwz_metrics.interactive.protocol import SystemTurn
from mwz_metrics.interactive.user.base import SimulatorFactory, UserSimulator, UserTurn
from mwz_metrics.interactive.user.profiles import DEFAULT, Profile
from mwz_metrics.interactive.user.reader import ReaderContext, SystemActReader
from mwz_metrics.interactive.user.tracker import (
    NO_BOOKING,
    NO_OFFER,
    NOT_GIVEN,
    DomainState,
    GoalTracker,
    TrackedUser,
    booking_slots,
)
from mwz_metrics.interactive.vocabulary import NO_VALUE, OFFER_DOMAINS, VENUE_DOMAINS
from mwz_metrics.settings import typed

# Slots a user answers "don't care" when the goal has no value for them.
_DONTCARE_SLOTS = {"area", "price", "type", "stars", "internet", "parking", "food"}
# Constraints whose contradicting value the user corrects (others, such as times, are compared loosely).
_CHECKED_SLOTS = {"area", "price", "type", "stars", "internet", "parking", "food", "day", "depart", "dest"}


@dataclasses.dataclass(frozen=True)
class AgendaOptions:
    """How the user talks (the factory's options)."""

    max_informs: int = 3  # constraints given at most in one turn
    max_requests: int = 3  # attributes asked for at most in one turn
    patience: int = 2  # tries (an offer, a booking, an attribute) before giving up


@dataclasses.dataclass
class Plan:
    """What the user means to say and what it has tried (its agenda, beside the tracker's goal state)."""

    names: dict[str, str]  # venue names the user knows: its goal's, then those the system offered (with acts)
    order: dict[str, list[str]] = dataclasses.field(default_factory=dict)  # per domain, its constraints' order
    # answers owed: after a no-offer the goal's next constraints, and to the system's requests
    pending: list[Act] = dataclasses.field(default_factory=list)
    asked: Counter[tuple[str, str]] = dataclasses.field(default_factory=Counter)  # requests per (domain, slot)
    stalls: Counter[str] = dataclasses.field(default_factory=Counter)  # turns per domain with nothing new to say
    corrected: set[tuple[str, str]] = dataclasses.field(default_factory=set)  # contradicted values said again


@dataclasses.dataclass
class Talk:
    """The conversation so far, as the user remembers it."""

    turns: int = 0
    said: str = ""  # the user's last text
    last: set[str] = dataclasses.field(default_factory=set)  # the slots its last turn informed
    known: set[str] = dataclasses.field(default_factory=set)  # every slot it informed
    talked: set[str] = dataclasses.field(default_factory=set)  # the domains it has spoken about
    finished: bool = False
    system_failed: bool = False  # the system's last turn found nothing or failed to book
    system_asked: bool = False  # the system's last turn asked something (anything else? shall I book it?)


def _plain(text: str) -> str:
    """Text compared as words: lowercase, punctuation and spacing ignored."""
    return " ".join(re.findall(r"[a-z0-9]+", text.lower()))


class AgendaUser(TrackedUser, UserSimulator):
    """The simulated user of one goal (see the module docstring)."""

    def __init__(
        self,
        goal: UserGoal,
        rng: random.Random,
        templates: UserTemplates,
        reader: SystemActReader,
        options: AgendaOptions = AgendaOptions(),
        profile: Profile = DEFAULT,
    ) -> None:
        self.goal = goal
        self.rng = rng
        self.templates = templates
        self.reader = reader
        self.options = options
        self.tracker = GoalTracker(goal, patience=options.patience, track_told=True, require_details=True)
        self.plan = Plan(names={d.domain: d.info["name"] for d in goal.domains if d.info.get("name")})
        self.talk = Talk()
        self.profile = profile  # the kind of user (:mod:`.profiles`): its hooks below
        self.profile_state: dict[str, Any] = {}
        profile.begin(self)

    # -- reading the system ------------------------------------------------------------

    def observe(self, turn: SystemTurn) -> list[Act]:
        """Read the system turn: its acts, else its text; queue answers to its requests."""
        current = self.tracker.current
        if turn.acts is not None:
            acts = list(turn.acts)
            self._check_values(acts)
            for act in acts:
                if act.slot == "name" and act.intent in ("inform", "recommend", "book") and act.value not in NO_VALUE:
                    state = self.tracker.state(act.domain) or current
                    if state is not None and state.domain in VENUE_DOMAINS and "name" not in state.goal.info:
                        self.plan.names[state.domain] = act.value
        elif _plain(turn.response) == _plain(self.talk.said):
            acts = []  # the user's own words said back tell it nothing
        else:
            context = ReaderContext(
                current.domain if current else "none", frozenset(self.talk.known), frozenset(self.talk.last)
            )
            acts = self.reader.read(turn.response, context)
        # the domain each request is about, as the user saw it before this turn moved anything
        requests = [(a, self.tracker.state(a.domain) or current) for a in acts if a.intent == "request"]
        self.talk.system_failed = any(a.intent in ("nooffer", "nobook") for a in acts)
        self.talk.system_asked = asks(acts)  # a closing then declines
        # the no-offer (or failed booking) is heard first: the goal's next constraints are what the user owes
        relaxed = self._relax(self.tracker.observe(acts))
        for act, state in requests:
            self._answer(act, state, relaxed)
        self.profile.observed(self, acts)
        return acts

    def _relax(self, switched: Mapping[str, list[str]]) -> set[str]:
        """After a no-offer (or a failed booking) that switched a domain to its goal's final constraints (or
        booking details): say the changed ones first, whatever else the system asked; the domains switched."""
        relaxed = set()
        for key, slots in switched.items():
            kind, _, domain = key.partition(":")
            state = self.tracker.state(domain)
            if state is None or state.given_up:
                continue
            values = state.constraints if kind == "info" else state.book
            for slot in slots:
                answer = Act("inform", domain, slot, values[slot])
                if answer not in self.plan.pending:
                    self.plan.pending.append(answer)
            relaxed.add(domain)
        return relaxed

    def _complete_taxi(self, state: DomainState) -> None:
        """A taxi between the goal's two places: its ends, named as the user knows them."""
        if state.domain != "taxi" or {"depart", "dest"} <= state.constraints.keys():
            return
        ends = taxi_endpoints(self.goal)
        if ends is None:
            return
        for slot, domain in zip(("depart", "dest"), ends):
            self.tracker.fill_constraint(state.domain, slot, self.plan.names.get(domain, f"the {domain}"))

    def _answer(self, act: Act, state: DomainState | None, relaxed: set[str]) -> None:
        """Owe an answer to a request about ``state``'s domain: the value the goal has, else "don't care"
        where it allows any; in a domain just ``relaxed`` (a no-offer), only a value the goal has."""
        if state is None or state.given_up:
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
        elif slot in _DONTCARE_SLOTS and domain in OFFER_DOMAINS and domain not in relaxed:
            answer = Act("inform", domain, slot, "dontcare")
        else:
            return
        if answer not in self.plan.pending:
            self.plan.pending.append(answer)

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
            if (state.domain, act.slot) not in self.plan.corrected:
                self.plan.corrected.add((state.domain, act.slot))
                self.plan.pending.append(Act("inform", state.domain, act.slot, wanted))

    # -- the agenda ----------------------------------------------------------------------

    def untold(self, state: DomainState) -> list[str]:
        """The constraints of ``state`` not said yet, in the order the user says them."""
        if state.domain not in self.plan.order:
            self._complete_taxi(state)
            slots = list(state.constraints)
            self.rng.shuffle(slots)
            self.plan.order[state.domain] = slots
        order = self.plan.order[state.domain] + [s for s in state.constraints if s not in self.plan.order[state.domain]]
        return [s for s in order if s in state.constraints and s not in (state.told or ())]

    def _say(self, options: list[list[Act]], moment: str, default: list[Act]) -> list[Act]:
        """One of the act sets ``options``, drawn by how often users said it at ``moment`` (else ``default``)."""
        weights = self.templates.weights(options, moment)
        if not any(weights):
            return default
        return self.rng.choices(options, weights=weights)[0]

    def _moment(self, domain: str) -> str:
        """Where a turn about ``domain`` stands (its acts decided, bar the constraints' number)."""
        if not self.talk.turns:
            return "open"
        if self.talk.system_failed:
            return "retry"
        return "intro" if domain not in self.talk.talked else "continue"

    def _stalled(self, state: DomainState, why: str) -> list[Act]:
        """Nothing new to say while waiting: repeat what is wanted once per ``patience``, then give up."""
        self.plan.stalls[state.domain] += 1
        if self.plan.stalls[state.domain] > self.options.patience:
            self.tracker.give_up(state.domain, why)
            return []
        wanted = state.book if state.needs_booking and state.offered else state.constraints
        acts = [Act("inform", state.domain, s, v) for s, v in wanted.items()]
        options = [list(c) for n in range(len(acts), 0, -1) for c in itertools.combinations(acts, n)]
        return self._say(options, "retry" if self.talk.system_failed else "continue", acts)

    def _constraints(self, state: DomainState, untold: list[str]) -> list[Act]:
        """Some of the constraints not said yet: as many at once as users say at this moment (at most
        ``max_informs``); a domain brought up may first be named alone ("I also need a train")."""
        moment = self._moment(state.domain)
        acts = [Act("inform", state.domain, s, state.constraints[s]) for s in untold]
        count = min(len(untold), self.rng.randint(2, self.options.max_informs) if len(untold) > 1 else 1)
        options = [list(c) for n in range(1, self.options.max_informs + 1) for c in itertools.combinations(acts, n)]
        if moment in ("open", "intro") and not (state.told or state.offered):
            options.append([Act("inform", state.domain)])
        return self._say(options, moment, acts[:count])

    def _booking(self, state: DomainState, missing: list[str]) -> list[Act]:
        """Booking details not given yet (some or all, as users give them), maybe asking for the reference."""
        details = [Act("inform", state.domain, s, state.book[s]) for s in missing]
        ref = Act("request", state.domain, "ref", "?")
        options = [
            [*c, *extra]
            for n in range(len(details), 0, -1)
            for c in itertools.combinations(details, n)
            for extra in ([], [ref])
        ]
        default = details + ([ref] if self.rng.random() < 0.5 else [])
        return self._say(options, self._moment(state.domain), default)

    def _requests(self, state: DomainState, ask: list[str]) -> list[Act]:
        """The attributes still wanted: as many at once as users are heard asking for together (at most
        ``max_requests``), so that the system is not asked again after each answer."""
        acts = [Act("request", state.domain, s, "?") for s in ask]
        moment = self._moment(state.domain)
        chosen = acts[: self.rng.randint(1, self.options.max_requests)]
        for n in range(min(len(acts), self.options.max_requests), 0, -1):
            options = [list(c) for c in itertools.combinations(acts, n)]
            if any(self.templates.weights(options, moment)):
                chosen = self._say(options, moment, chosen)
                break
        for act in chosen:
            self.plan.asked[(state.domain, act.slot)] += 1
        return chosen

    def _domain_acts(self, state: DomainState) -> list[Act]:
        domain = state.domain
        untold = self.untold(state)
        if untold:
            return self._constraints(state, untold)
        if state.needs_offer and not state.offered:
            return self._stalled(state, NO_OFFER)
        if state.needs_booking and not state.booked:
            missing = [s for s in booking_slots(domain) if s in state.book and s not in state.book_told]
            if missing:
                return self._booking(state, missing)
            return self._stalled(state, NO_BOOKING)
        wanted = [s for s in state.requests if s not in state.answered]
        ask = [s for s in wanted if self.plan.asked[(domain, s)] < self.options.patience]
        if wanted and not ask:
            self.tracker.give_up(domain, f"{NOT_GIVEN}: {', '.join(wanted)}")
            return []
        return self._requests(state, ask)

    def _answers(self, pending: list[Act]) -> list[Act]:
        """What the system asked for, maybe with more constraints of the same domain, as users answer."""
        domain = pending[0].domain
        state = self.tracker.state(domain)
        if state is None or state.given_up:
            return pending
        answered = {a.slot for a in pending}
        extra = [Act("inform", domain, s, state.constraints[s]) for s in self.untold(state) if s not in answered]
        options = [pending] + [pending + list(c) for n in (1, 2) for c in itertools.combinations(extra, n)]
        return self._say(options, "retry" if self.talk.system_failed else "answer", pending)

    def _acts(self) -> tuple[list[Act], bool, str]:
        """The next turn's acts, whether it is the last, and where it stands."""
        pending, self.plan.pending = self.plan.pending, []
        if pending:
            # answers come first, and alone: one domain's request per turn
            same = [a for a in pending if a.domain == pending[0].domain]
            self.plan.pending = [a for a in pending if a.domain != pending[0].domain]
            return self._answers(same), False, "retry" if self.talk.system_failed else "answer"
        for _ in range(len(self.tracker.domains) + 1):
            state = self.tracker.current
            if state is None:
                break
            new = self._domain_acts(state)
            if new:
                return new, False, self._moment(state.domain)
        return [Act("thank", "general"), Act("bye", "general")], True, DECLINE if self.talk.system_asked else "close"

    def _turn(self) -> UserTurn:
        acts, final, moment = self._acts()
        if not final:
            acts = self.profile.shape(self, acts)
        self.tracker.observe_user(acts)  # a booking counts as asked for once every detail was given
        self.talk.last = {a.slot for a in acts if a.intent == "inform"}
        self.talk.known |= self.talk.last
        self.talk.talked |= {a.domain for a in acts}
        self.talk.finished = final
        text = self.profile.words(self, self.templates.realize(acts, self.rng, moment))
        self.talk.said = text
        self.talk.turns += 1
        return UserTurn(text, tuple(acts), final, self.tracker.booked_domains())

    def assume(self, acts: list[Act], text: str = "") -> None:
        """An oracle history: the user said ``acts`` (a real user's), as if it had chosen them itself."""
        self.plan.pending = []
        self.tracker.observe_user(acts)
        for act in acts:
            if act.intent == "request":
                self.plan.asked[(act.domain, act.slot)] += 1
        self.talk.last = {a.slot for a in acts if a.intent == "inform"}
        self.talk.known |= self.talk.last
        self.talk.talked |= {a.domain for a in acts if a.domain not in ("general", "booking")}
        self.talk.said = text
        self.talk.turns += 1

    def details(self) -> dict[str, Any]:
        """The domains given up and each domain's outcome; what the profile keeps (a population's draw)."""
        return {**super().details(), **self.profile.details(self)}

    def start(self) -> UserTurn:
        """The first turn: the first domain's first constraints."""
        return self._turn()

    def next_turn(self) -> UserTurn:
        """Answers owed, then the next step of the agenda."""
        return self._turn()


class AgendaFactory(SimulatorFactory):
    """Agenda users sharing the run's templates and reader."""

    name = "agenda"

    def __init__(
        self,
        context: Any,
        *,
        max_informs: int = AgendaOptions.max_informs,
        max_requests: int = AgendaOptions.max_requests,
        patience: int = AgendaOptions.patience,
        profile: Profile = DEFAULT,
    ) -> None:
        self.context = context
        changed = {"max_informs": max_informs, "max_requests": max_requests, "patience": patience}
        changed.update(profile.options())  # what the profile changes wins
        self._options = AgendaOptions(**changed)
        self.profile = profile

    def session(self, goal: UserGoal, rng: random.Random) -> AgendaUser:
        """The agenda user of ``goal`` (playing the factory's profile)."""
        return AgendaUser(
            goal, rng, self.context.user_templates, self.context.reader, self._options, profile=self.profile
        )

    def options(self) -> Mapping[str, Any]:
        """max_informs, max_requests and patience."""
        return dataclasses.asdict(self._options)


def make(context: Any, **options: Any) -> AgendaFactory:
    """The ``agenda`` simulator (the loader its plugin entry names), with ``--simulator-option`` read
    into :class:`AgendaOptions` (``patience=3`` is the number 3); ``profile``: the user profile it plays."""
    profile = options.pop("profile", DEFAULT)
    typed_options = dataclasses.asdict(typed(AgendaOptions, options, "--simulator agenda"))
    return AgendaFactory(context, **typed_options, profile=profile)

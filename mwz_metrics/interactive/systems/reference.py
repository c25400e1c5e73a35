"""Reference systems that calibrate the harness: an upper bound and two lower bounds.

``oracle`` reads the user's acts (the simulator's own, or ``replay``'s annotations) from the
history, tracks the belief state, queries the venue database, offers a matching venue (the
first in database order; for trains the earliest to leave after, or the latest to arrive
before, the times asked), answers requests from the venue's row, asks for missing booking
details, books with a reference number, gives a taxi's car and phone, and says goodbye. It is
stateless: each turn it folds its policy over the whole history, so the same history always
gets the same answer, and so does a resumed run. Its words come from templates of MultiWOZ 2.1
validation system turns (delexicalized with mwzeval's ``[value_*]`` placeholders); the acts it
returns are those of the template it chose, with their values.

``oracle-text`` is the same policy without its ``acts`` in the answer: the simulator must read
its text. ``oracle-lex`` is ``oracle-text`` speaking values, as a system that writes words for
people does ("Pizza Hut City Centre is in the centre"): each placeholder is filled with the value
of the act it said, so its numbers measure what reading lexicalized words costs (the simulator's
reader, then :mod:`mwz_metrics.delexicalize` for the scores). ``echo`` repeats the user's last turn
and ``silent`` says nothing; neither keeps a state.

**Hearing words.** By default (``hear=acts``) the three oracles read the user's acts, which reach them
whatever the run's ``--user-acts`` says, and a user turn without acts gets "I did not understand"; the
run refuses a user that sends words only (the ``llm`` simulator). Made with ``--system-option
hear=words``, an oracle is a system like any other: the user's acts reach it only with ``--user-acts``,
and every user turn that comes without acts is read through the user-act reader
(:mod:`.user_acts`, learnt from the MultiWOZ 2.1 validation user turns). ``mwz interact --system
oracle-text --system-option hear=words --simulator agenda`` measures the policy on the agenda user's
words only; ``--simulator llm`` can then be checked against a known system. What it read of the last
user turn is kept in the turn's ``trace`` (``{"read_user_acts": [...]}``).
"""

from __future__ import annotations

import dataclasses
import random
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mwz_datasets.database import SERVICE_VENUES, column_name
from mwz_metrics.interactive.acts import ACT_TO_COLUMN, Act, parse_acts, state_slot
from mwz_metrics.interactive.language.banks import SystemTemplates
from mwz_metrics.interactive.systems.user_acts import UserContext
from mwz_metrics.interactive.vocabulary import (
    BOOK_SLOTS,
    DOMAINS,
    NOT_A_VALUE,
    OFFER_DOMAINS,
    PLACEHOLDER_SLOTS,
    VENUE_DOMAINS,
    reference_number,
    taxi_car,
    taxi_phone,
)

_TRAIN_NEEDS = ("depart", "dest", "day")
_TAXI_NEEDS = ("depart", "dest")
_OFFER_SLOTS = {
    **{
        d: {"name", "area", "food", "price", "type", "stars", "choice", "internet", "parking", "none"}
        for d in VENUE_DOMAINS
    },
    "train": {"id", "leave", "arrive", "depart", "dest", "day", "choice", "ticket", "time", "none"},
}
# More venues (or trains) than this matching: the oracle asks for one of these slots before offering.
_NARROW_ABOVE = 5
_NARROWING_SLOTS = {
    "restaurant": ("food", "area", "price"),
    "hotel": ("area", "price", "type", "stars"),
    "attraction": ("type", "area"),
    "train": ("leave", "arrive"),
}


@dataclasses.dataclass
class _Part:
    """Something to say: acts of ``intents`` in ``domain`` about ``allowed`` slots (``required`` ones at least)."""

    intents: frozenset[str]
    domain: str
    allowed: frozenset[str]
    required: frozenset[str]
    values: dict[str, str]
    about: str | None = None  # the domain a "booking" or "general" part is about
    asks: bool = False  # the required slots are asked for, not informed


def _part(intents: Iterable[str], domain: str, allowed, required=(), values=None) -> _Part:
    return _Part(frozenset(intents), domain, frozenset(allowed), frozenset(required), dict(values or {}))


@dataclasses.dataclass
class OracleState:
    """What the oracle knows after a prefix of the dialogue."""

    semi: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    book: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)
    venue: dict[str, dict[str, Any]] = dataclasses.field(default_factory=dict)
    offered_for: dict[str, frozenset] = dataclasses.field(default_factory=dict)
    booked: dict[str, str] = dataclasses.field(default_factory=dict)
    wants_booking: set[str] = dataclasses.field(default_factory=set)
    current: str | None = None
    asked: set[tuple[str, str]] = dataclasses.field(default_factory=set)  # (domain, slot) the oracle asked for
    booked_with: dict[str, frozenset] = dataclasses.field(default_factory=dict)  # the details of each booking

    def prediction_state(self) -> dict[str, dict[str, str]]:
        """The belief state in mwzeval's predictions form (slot names as its states use them)."""
        out: dict[str, dict[str, str]] = {}
        for domain in sorted(set(self.semi) | set(self.book)):
            slots = {state_slot(s): v for s, v in self.semi.get(domain, {}).items()}
            slots.update(self.book.get(domain, {}))
            if slots:
                out[domain] = slots
        return out


class OraclePolicy:
    """The oracle's decisions (see the module docstring)."""

    def __init__(self, database: Any, templates: SystemTemplates) -> None:
        self.db = database
        self.templates = templates

    # -- understanding ----------------------------------------------------------------

    @staticmethod
    def _update(state: OracleState, acts: Sequence[Act]) -> tuple[list[tuple[str, str]], bool]:
        requests: list[tuple[str, str]] = []
        closing = False
        for act in acts:
            domain = act.domain
            if act.intent == "inform" and domain in DOMAINS and act.slot != "none":
                if act.slot in BOOK_SLOTS.get(domain, ()) and not (domain == "train" and act.slot == "day"):
                    state.book.setdefault(domain, {})[act.slot] = act.value
                    state.wants_booking.add(domain)
                else:
                    state.semi.setdefault(domain, {})[act.slot] = act.value
            elif act.intent == "request" and domain in DOMAINS:
                if act.slot == "ref":
                    state.wants_booking.add(domain)
                else:
                    requests.append((domain, act.slot))
            elif act.intent in ("thank", "bye"):
                closing = True
        domains = [a.domain for a in acts if a.domain in DOMAINS]
        if domains:
            state.current = domains[0]
        return requests, closing

    # -- deciding ---------------------------------------------------------------------

    def _matches(self, domain: str, state: OracleState) -> list[dict[str, Any]]:
        constraints = {column_name(ACT_TO_COLUMN.get(s, s)): v for s, v in state.semi.get(domain, {}).items()}
        rows = self.db.rows(domain, self.db.query(domain, constraints))
        semi = state.semi.get(domain, {})
        if not rows and semi.get("name"):
            # mwzeval's normalizer renames a few venues the database spells as users do
            # ("the junction" -> "junction theatre"): the exact name still finds them
            wanted = semi["name"].strip().lower()
            rows = [r for r in self.db.all_rows(domain) if str(r.get("name", "")).lower() == wanted]
        if domain == "train" and rows:
            if semi.get("arrive") and semi.get("arrive") != "dontcare":
                rows.sort(key=lambda r: r.get("arriveBy", ""), reverse=True)
            else:
                rows.sort(key=lambda r: r.get("leaveAt", ""))
        return rows

    @staticmethod
    def _value(domain: str, row: Mapping[str, Any], slot: str) -> str:
        if domain == "train" and slot == "time":
            return str(row.get("duration", ""))
        return str(row.get(ACT_TO_COLUMN.get(slot, slot), row.get(slot, "")))

    def _venue_parts(self, domain: str, state: OracleState, requests: list[str], dialogue_id: str) -> list[_Part]:
        semi = state.semi.get(domain, {})
        if domain == "train":
            missing = [s for s in _TRAIN_NEEDS if s not in semi]
            if missing:
                return [_part(["request"], domain, missing, missing[:1])]
        rows = self._matches(domain, state)
        if not rows:
            state.venue.pop(domain, None)
            return [_part(["nooffer"], domain, {*semi, "none"}, values=semi)]
        narrowing = self._narrowing(domain, state, rows, requests)
        if narrowing is not None:
            return [narrowing]
        key_slot = "id" if domain == "train" else "name"
        id_column = "trainID" if domain == "train" else "id"
        chosen = state.venue.get(domain)
        if chosen is None or all(r.get(id_column) != chosen.get(id_column) for r in rows):
            chosen = rows[0]
            state.venue[domain] = chosen
        parts = []
        constraints = frozenset(semi.items())
        if state.offered_for.get(domain) != constraints:
            state.offered_for[domain] = constraints
            values = {s: self._value(domain, chosen, s) for s in _OFFER_SLOTS[domain] if s != "none"}
            values["choice"] = str(len(rows))
            parts.append(_part(["inform", "recommend"], domain, _OFFER_SLOTS[domain], [key_slot], values))
        if requests:
            values = {s: self._value(domain, chosen, s) for s in {*requests, key_slot}}
            parts.append(_part(["inform"], domain, {*requests, key_slot}, requests, values))
        details = state.book.get(domain, {})
        rebook = state.booked_with.get(domain) not in (None, frozenset(details.items()))  # new details: book again
        if domain in state.wants_booking and (domain not in state.booked or rebook) and domain in BOOK_SLOTS:
            missing = [s for s in BOOK_SLOTS[domain] if s not in details]
            if missing:
                parts.append(_part(["request"], "train" if domain == "train" else "booking", missing, missing[:1]))
            else:
                reference = reference_number(dialogue_id, domain, str(chosen.get(id_column)), *sorted(details.values()))
                state.booked[domain] = reference
                state.booked_with[domain] = frozenset(details.items())
                values = {**details, "ref": reference, key_slot: self._value(domain, chosen, key_slot)}
                if domain == "train":
                    allowed = {"ref", "id", "people", "ticket", "leave", "arrive", "day", "depart", "dest", "none"}
                    values.update({s: self._value(domain, chosen, s) for s in ("ticket", "leave", "arrive")})
                    values.update({s: semi[s] for s in ("day", "depart", "dest") if s in semi})
                    parts.append(_part(["offerbooked"], domain, allowed, ["ref"], values))
                else:
                    allowed = {"ref", "name", *BOOK_SLOTS[domain], "none"}  # a table has a time, a room a stay
                    parts.append(_part(["book"], "booking", allowed, ["ref"], values))
        elif parts and domain in BOOK_SLOTS and domain not in state.booked and not requests:
            if domain == "train":
                parts.append(_part(["offerbook"], domain, {"none"}))
            else:
                parts.append(_part(["inform"], "booking", {"none"}))
        return parts

    @staticmethod
    def _narrowing(domain: str, state: OracleState, rows: list, requests: list[str]) -> _Part | None:
        """Before a first offer among many venues, ask for a constraint the user has not given, as
        MultiWOZ's wizards do ("There are 21 of those. What area would you like?"); at most twice a domain."""
        if len(rows) <= _NARROW_ABOVE or requests or domain in state.offered_for or domain in state.wants_booking:
            return None
        semi = state.semi.get(domain, {})
        asked = [slot for d, slot in state.asked if d == domain]
        if len(asked) >= 2:
            return None
        slot = next((s for s in _NARROWING_SLOTS.get(domain, ()) if s not in semi and s not in asked), None)
        if slot is None or (domain == "train" and {"leave", "arrive"} & semi.keys()):
            return None
        state.asked.add((domain, slot))
        values = {**semi, "choice": str(len(rows))}
        part = _part(["inform", "request"], domain, {"choice", "none", slot, *semi}, [slot], values)
        part.asks = True
        return part

    def _taxi_parts(self, state: OracleState, requests: list[str], dialogue_id: str) -> list[_Part]:
        semi = state.semi.get("taxi", {})
        missing = [s for s in _TAXI_NEEDS if s not in semi]
        if not ({"leave", "arrive"} & semi.keys()):
            missing.append("leave")
        if missing:
            return [_part(["request"], "taxi", missing, missing[:1])]
        digest = int(reference_number(dialogue_id, "taxi", *sorted(semi.values())), 16)
        values = {
            "car": taxi_car(digest),
            "phone": taxi_phone(digest),
            **{s: v for s, v in semi.items() if s in ("depart", "dest", "leave", "arrive")},
        }
        if "taxi" not in state.booked or requests:
            state.booked["taxi"] = values["phone"]
            return [
                _part(
                    ["inform"],
                    "taxi",
                    {"car", "phone", "depart", "dest", "leave", "arrive", "none"},
                    ["car", "phone"],
                    values,
                )
            ]
        return []

    @staticmethod
    def _service_parts(domain: str, requests: list[str]) -> list[_Part]:
        """Police and hospital: the requested attributes (placeholders; their tables are not queried)."""
        if not requests:
            return []
        return [_part(["inform"], domain, set(requests), requests, dict.fromkeys(requests, "?"))]

    def decide(self, state: OracleState, acts: Sequence[Act], dialogue_id: str) -> list[_Part]:
        """Update ``state`` with the user's acts and decide what to say."""
        requests, closing = self._update(state, acts)
        domain = state.current
        mine = [slot for d, slot in requests if d == domain]
        parts: list[_Part] = []
        if domain in OFFER_DOMAINS:
            parts = self._venue_parts(domain, state, mine, dialogue_id) if acts and not _only_closing(acts) else []
        elif domain == "taxi" and not _only_closing(acts):
            parts = self._taxi_parts(state, mine, dialogue_id)
        elif domain in ("police", "hospital"):
            parts = self._service_parts(domain, mine)
        if closing and not parts:
            return [_part(["bye", "welcome"], "general", {"none"})]
        last = parts[-1] if parts else None
        asks = last is not None and (
            bool(last.intents & {"request", "offerbook", "nooffer"})
            or (last.domain == "booking" and last.intents == {"inform"})
        )
        if not asks:
            parts.append(_part(["reqmore"], "general", {"none"}))
        for part in parts:
            part.about = domain if domain in DOMAINS else None
        return parts

    # -- saying -----------------------------------------------------------------------

    def realize(self, parts: Sequence[_Part], rng: random.Random) -> tuple[str, list[Act]]:
        """Text and acts of the decided parts, from the system templates."""
        texts, acts = [], []
        for part in parts:
            chosen = self.templates.choose(
                part.intents, part.domain, part.allowed, part.required, rng, part.about, part.asks
            )
            if chosen is None and len(part.required) > 1:
                for slot in sorted(part.required):
                    single = _part(part.intents, part.domain, {slot, "name", "id"}, {slot}, part.values)
                    single.about = part.about
                    text, said = self.realize([single], rng)
                    texts.append(text)
                    acts.extend(said)
                continue
            if chosen is None:
                fallback = [
                    Act(sorted(part.intents)[0], part.domain, s, part.values.get(s, "?"))
                    for s in sorted(part.required) or ["none"]
                ]
                texts.append(self.templates.realize(fallback, rng))
                acts.extend(fallback)
                continue
            keys, text = chosen
            texts.append(text)
            for intent, domain, slot, kind in keys:
                value = "?" if intent == "request" else part.values.get(slot, "none") if kind == "value" else "none"
                acts.append(Act(intent, domain, slot, value))
        return " ".join(t for t in texts if t), acts


def _asked(parts: Sequence[_Part]) -> frozenset[str]:
    """The slots the oracle's decided turn asks the user for (what a user's "I don't mind" answers)."""
    return frozenset(slot for part in parts if "request" in part.intents for slot in part.required)


def _only_closing(acts: Sequence[Act]) -> bool:
    return bool(acts) and all(a.intent in ("thank", "bye", "greet") for a in acts)


def lexicalize(text: str, acts: Sequence[Act]) -> str:
    """``text`` with each ``[value_*]`` placeholder replaced by the value of an act it says (in the
    acts' order, each act once while others are left; police and hospital from MultiWOZ's own)."""
    import re

    values: dict[str, list[str]] = {}
    for act in acts:
        value = act.value
        if act.domain in SERVICE_VENUES and str(value).strip().lower() in NOT_A_VALUE:  # not in the database
            value = SERVICE_VENUES[act.domain].get(ACT_TO_COLUMN.get(act.slot, act.slot), value)
        if str(value).strip().lower() == "dontcare":
            value = "any"  # "no hotel in any area"
        if str(value).strip().lower() not in NOT_A_VALUE:
            values.setdefault(act.slot, []).append(str(value))
    used: dict[str, int] = {}

    def fill(match: re.Match) -> str:
        for slot in PLACEHOLDER_SLOTS.get(match.group(1).lower(), ()):
            said = values.get(slot)
            if said:
                index = used.get(slot, 0)
                used[slot] = index + 1
                value = said[min(index, len(said) - 1)]
                return value.title() if slot == "name" else value  # a name as people write it
        name = match.group(1).lower()
        return "some" if "choice" in name or "count" in name else "not listed"  # the database's "?"

    return re.sub(r"\[(value_\w+)\]", fill, text)


HEARING = ("acts", "words")  # what an oracle reads of the user (``--system-option hear=...``)


class OracleSystem:
    """The oracle speaking the system protocol (``with_acts=False``: ``oracle-text``; ``lexicalized``:
    ``oracle-lex``, its words with values in place of placeholders; ``hear="words"``: the user's text
    read where a turn comes without acts)."""

    def __init__(self, context: Any, *, with_acts: bool = True, lexicalized: bool = False, hear: str = "acts") -> None:
        if hear not in HEARING:
            from mwz_plugins.errors import InputError

            raise InputError(
                f"--system-option hear={hear}: acts (the user's acts, the default) or words (its text, read)"
            )
        self.policy = OraclePolicy(context.database, context.system_templates)
        self.with_acts = with_acts
        self.lexicalized = lexicalized
        self.name = "oracle-lex" if lexicalized else "oracle" if with_acts else "oracle-text"
        self.reader = context.user_reader if hear == "words" else None
        # the run's signature: the user's acts reach it whatever --user-acts says (hear=acts), or as any system's
        self.reads_user_acts = hear == "acts"

    def respond(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """Fold the policy over the history; answer its last user turn."""
        dialogue_id = str(request.get("dialogue_id", ""))
        state = OracleState()
        parts: list[_Part] = []
        understood = True
        read: list[Act] | None = None  # what was read of the last user turn (its text, without acts)
        for entry in request.get("history", ()):
            if entry.get("speaker") != "user":
                continue
            read = None
            if entry.get("acts") is not None:
                acts = parse_acts(entry["acts"])
            elif self.reader is not None:  # hear=words: its text, read in what the oracle knows
                context = UserContext(state.current or "none", _asked(parts))
                acts = read = self.reader.read(str(entry.get("text") or ""), context)
            else:
                understood = False
                parts = []
                continue
            understood = True
            parts = self.policy.decide(state, acts, dialogue_id)
        if not understood:
            text, acts = (
                "I am sorry, I did not understand that. Could you say it differently?",
                [Act("reqmore", "general")],
            )
        else:
            rng = random.Random(f"oracle:{dialogue_id}:{request.get('turn', 0)}")
            text, acts = self.policy.realize(parts, rng)
            if self.lexicalized:
                text = lexicalize(text, acts)
        turn: dict[str, Any] = {
            "response": text,
            "state": state.prediction_state(),
            "active_domains": [state.current] if state.current else [],
        }
        if self.with_acts:
            turn["acts"] = [a.as_list() for a in acts]
        if read is not None:
            turn["trace"] = {"read_user_acts": [a.as_list() for a in read]}
        return turn


class EchoSystem:
    """Repeats the user's last turn (a lower bound)."""

    name = "echo"

    def respond(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """The user's last text."""
        users = [e for e in request.get("history", ()) if e.get("speaker") == "user"]
        return {"response": users[-1]["text"] if users else ""}


class SilentSystem:
    """Says nothing (a lower bound)."""

    name = "silent"

    def respond(self, request: Mapping[str, Any]) -> dict[str, Any]:
        """An empty response."""
        return {"response": ""}


def make_oracle(context: Any, *, hear: str = "acts") -> OracleSystem:
    """``oracle``: acts and text (``hear=words``: reads the user's text where its acts do not come)."""
    return OracleSystem(context, with_acts=True, hear=hear)


def make_oracle_text(context: Any, *, hear: str = "acts") -> OracleSystem:
    """``oracle-text``: text only (``hear=words``: reads the user's text where its acts do not come)."""
    return OracleSystem(context, with_acts=False, hear=hear)


def make_oracle_lex(context: Any, *, hear: str = "acts") -> OracleSystem:
    """``oracle-lex``: text with values, no acts (``hear=words``: reads the user's text too)."""
    return OracleSystem(context, with_acts=False, lexicalized=True, hear=hear)


def make_echo(context: Any) -> EchoSystem:
    """``echo`` (it takes no options)."""
    return EchoSystem()


def make_silent(context: Any) -> SilentSystem:
    """``silent`` (it takes no options)."""
    return SilentSystem()

"""User goals of MultiWOZ 2.1 dialogues, as a simulated user pursues them.

A goal names, per domain, the constraints the venue must meet (``info``), what to book
(``book``) and which attributes to ask for (``reqt``). Two parts describe a first attempt that
fails: ``fail_info`` (constraints tried first; the crowd-worker's message says "if there is no
such hotel, how about ...") and ``fail_book`` (booking details tried first: "if the booking
fails how about ..."). The 2.1 annotations keep ``fail_info`` in some goals whose messages never
mention it and whose constraints do match venues; such a part is not a first attempt, so
:func:`user_goal` keeps ``fail_info`` only where it matches no venue of the database (the
notes say which were dropped).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mwz_datasets.database import column_name
from mwz_metrics.interactive.vocabulary import BOOK_SLOTS, DOMAINS, OFFER_DOMAINS, VENUE_DOMAINS

Query = Callable[[str, Mapping[str, str]], Sequence[str]]

_TAG = re.compile(r"<[^>]+>")
# Words by which the goal messages introduce each domain (the first mention orders the domains).
_DOMAIN_WORDS = {
    "hotel": ("place to stay", "hotel", "guesthouse", "guest house"),
    "restaurant": ("restaurant", "place to dine", "place to eat", "a table"),
    "attraction": ("attraction", "places to go", "place to go", "to visit", "entertainment", "museum", "college"),
    "train": ("train",),
    "taxi": ("taxi",),
    "police": ("police",),
    "hospital": ("hospital",),
}


@dataclasses.dataclass(frozen=True)
class DomainGoal:
    """What the user wants in one domain (goal slot names as in the corpus: ``arriveBy``, ``car type``)."""

    domain: str
    info: dict[str, str]
    fail_info: dict[str, str] = dataclasses.field(default_factory=dict)
    book: dict[str, str] = dataclasses.field(default_factory=dict)
    fail_book: dict[str, str] = dataclasses.field(default_factory=dict)
    reqt: tuple[str, ...] = ()

    @property
    def first_info(self) -> dict[str, str]:
        """The constraints of the first attempt (``fail_info`` where the goal has one)."""
        return dict(self.fail_info or self.info)

    @property
    def first_book(self) -> dict[str, str]:
        """The booking details of the first attempt (``book`` with ``fail_book``'s values)."""
        return {**self.book, **self.fail_book} if self.book else {}

    def as_json(self) -> dict[str, Any]:
        """JSON form."""
        return {
            "domain": self.domain,
            "info": self.info,
            "fail_info": self.fail_info,
            "book": self.book,
            "fail_book": self.fail_book,
            "reqt": list(self.reqt),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> DomainGoal:
        """The domain goal written by :meth:`as_json`."""
        return cls(
            data["domain"],
            dict(data["info"]),
            dict(data.get("fail_info") or {}),
            dict(data.get("book") or {}),
            dict(data.get("fail_book") or {}),
            tuple(data.get("reqt") or ()),
        )


@dataclasses.dataclass(frozen=True)
class UserGoal:
    """A dialogue's goal: its domains in the order the messages introduce them, and the messages."""

    dialogue_id: str
    domains: tuple[DomainGoal, ...]
    messages: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()

    def domain(self, name: str) -> DomainGoal | None:
        """The goal of one domain, if the goal has it."""
        return next((d for d in self.domains if d.domain == name), None)

    def as_json(self) -> dict[str, Any]:
        """JSON form (what a session record stores)."""
        return {
            "dialogue_id": self.dialogue_id,
            "domains": [d.as_json() for d in self.domains],
            "messages": list(self.messages),
            "notes": list(self.notes),
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any]) -> UserGoal:
        """The goal written by :meth:`as_json`."""
        return cls(
            data["dialogue_id"],
            tuple(DomainGoal.from_json(d) for d in data["domains"]),
            tuple(data.get("messages") or ()),
            tuple(data.get("notes") or ()),
        )


def plain_message(message: str) -> str:
    """A goal message without its HTML emphasis tags."""
    return " ".join(_TAG.sub("", message).split())


def _slots(items: Sequence[Mapping[str, Any]] | None) -> dict[str, str]:
    return {str(item["slot"]): str(item["value"]) for item in items or ()}


def _order(domains: list[str], messages: Sequence[str]) -> list[str]:
    """Domains by the first message that mentions them; unmentioned ones after, in a fixed order."""
    lowered = [m.lower() for m in messages]

    def first(domain: str) -> tuple[int, int]:
        for index, message in enumerate(lowered):
            positions = [message.find(w) for w in _DOMAIN_WORDS.get(domain, (domain,)) if w in message]
            if positions:
                return index, min(positions)
        return len(lowered), DOMAINS.index(domain) if domain in DOMAINS else len(DOMAINS)

    return sorted(domains, key=first)


def user_goal(dialogue: Mapping[str, Any], query: Query | None = None) -> UserGoal:
    """The goal of one dialogue in the unified dataset schema (:mod:`mwz_datasets.multiwoz`).

    ``query(domain, constraints) -> venue ids`` decides which ``fail_info`` parts are first
    attempts (those matching no venue); without it every non-empty ``fail_info`` is kept.
    """
    goal = dialogue["goal"]
    messages = tuple(plain_message(m) for m in goal.get("message") or ())
    parts: dict[str, DomainGoal] = {}
    notes: list[str] = []
    for item in goal["domains"]:
        domain = item["domain"]
        info = _slots(item.get("info"))
        book = {k: v for k, v in _slots(item.get("book")).items() if k in BOOK_SLOTS.get(domain, ())}
        reqt = tuple(str(r) for r in item.get("reqt") or ())
        if not (info or book or reqt):
            continue
        fail_info = _slots(item.get("fail_info"))
        if fail_info == info:
            fail_info = {}
        if (
            fail_info
            and query is not None
            and domain in OFFER_DOMAINS
            and query(domain, {column_name(k): v for k, v in fail_info.items()})
        ):
            notes.append(f"{domain}: fail_info {fail_info} matches venues, so it is not a first attempt (dropped)")
            fail_info = {}
        fail_book = {k: v for k, v in _slots(item.get("fail_book")).items() if k in book and book[k] != v}
        parts[domain] = DomainGoal(domain, info, fail_info, book, fail_book, reqt)
    ordered = _order(list(parts), messages)
    return UserGoal(str(dialogue["key"]), tuple(parts[d] for d in ordered), messages, tuple(notes))


_ARRIVES = re.compile(r"arrives? (?:at )?the (hotel|restaurant|attraction)")
_LEAVES = re.compile(r"leaves? (?:from )?the (hotel|restaurant|attraction)")


def taxi_endpoints(goal: UserGoal) -> tuple[str, str] | None:
    """The domains a taxi goes between when its goal does not name the places ("a taxi to commute
    between the two places; ... it arrives the restaurant by the booked time"): ``(from, to)``.

    The messages say which end is which (it *arrives* at one, *leaves* the other); otherwise the
    goal's first venue domain is the departure. None unless the goal has two venue domains.
    """
    venues = [d.domain for d in goal.domains if d.domain in VENUE_DOMAINS]
    if len(venues) != 2:
        return None
    text = " ".join(goal.messages).lower()
    arrives, leaves = _ARRIVES.search(text), _LEAVES.search(text)
    if arrives and arrives.group(1) in venues:
        destination = arrives.group(1)
        return next(v for v in venues if v != destination), destination
    if leaves and leaves.group(1) in venues:
        departure = leaves.group(1)
        return departure, next(v for v in venues if v != departure)
    return venues[0], venues[1]

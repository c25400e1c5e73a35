"""Dialogue acts as interactive evaluation exchanges them, in MultiWOZ 2.1's act vocabulary.

An act is ``(intent, domain, slot, value)``, lowercase except the value: ``("inform", "hotel",
"area", "south")``, ``("request", "restaurant", "phone", "?")``, ``("bye", "general", "none",
"none")``. Intents, domains and slots are MultiWOZ 2.1's (``Hotel-Inform`` -> ``inform``,
``hotel``; slots ``addr``, ``post``, ``arrive``, ``leave``, ``depart``, ``dest``, ``ref``, ``id``,
``ticket``, ``fee``, ``car``...). A system may send its acts as a list of
``[intent, domain, slot, value]`` or in 2.1's own form ``{"Hotel-Inform": [["Area", "south"]]}``;
:func:`parse_acts` reads both.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from mwz_metrics.interactive.vocabulary import DOMAINS
from mwz_plugins.errors import InputError


class Act(NamedTuple):
    """One dialogue act: intent, domain and slot lowercase; the value as given."""

    intent: str
    domain: str
    slot: str = "none"
    value: str = "none"

    def as_list(self) -> list[str]:
        """The JSON form ``[intent, domain, slot, value]``."""
        return [self.intent, self.domain, self.slot, self.value]


class ActError(InputError):
    """Acts that cannot be read; the message says what was expected."""


# Goal (and database) slot names -> act slots, for constraints (``info``/``book``) ...
GOAL_TO_ACT = {
    "area": "area",
    "pricerange": "price",
    "food": "food",
    "name": "name",
    "type": "type",
    "stars": "stars",
    "internet": "internet",
    "parking": "parking",
    "department": "department",
    "arriveby": "arrive",
    "leaveat": "leave",
    "departure": "depart",
    "destination": "dest",
    "day": "day",
    "people": "people",
    "stay": "stay",
    "time": "time",
}
# ... and for requested attributes (``reqt``), which name a few of them differently.
REQUEST_TO_ACT = {
    **{k: v for k, v in GOAL_TO_ACT.items() if k not in ("people", "stay", "day", "time")},
    "address": "addr",
    "postcode": "post",
    "phone": "phone",
    "entrance fee": "fee",
    "car type": "car",
    "duration": "time",  # a train's travel time: 2.1 annotates it Train-Request Time
    "price": "ticket",  # a train ticket's price
    "trainid": "id",
    "reference": "ref",
}
# Act slot -> the database column it reads, per domain where it differs from the act slot.
ACT_TO_COLUMN = {
    "addr": "address",
    "post": "postcode",
    "price": "pricerange",
    "fee": "entrance fee",
    "arrive": "arriveBy",
    "leave": "leaveAt",
    "depart": "departure",
    "dest": "destination",
    "id": "trainID",
    "ticket": "price",
}
# Act slot -> the state slot name mwzeval's predictions use (``normalize_slot_name`` of the goal slot).
ACT_TO_STATE = {
    "price": "pricerange",
    "arrive": "arrive",
    "leave": "leave",
    "depart": "departure",
    "dest": "destination",
}

_INTENTS = {
    "inform",
    "request",
    "recommend",
    "select",
    "nooffer",
    "nobook",
    "book",
    "offerbook",
    "offerbooked",
    "reqmore",
    "bye",
    "welcome",
    "greet",
    "thank",
}
_DOMAINS = {*DOMAINS, "booking", "general"}


def goal_slot_to_act(slot: str, *, requested: bool = False) -> str | None:
    """The act slot of a goal slot name (``arriveBy`` -> ``arrive``; ``entrance fee`` -> ``fee``)."""
    key = slot.lower()
    if key not in ("entrance fee", "car type"):
        key = key.replace(" ", "")
    return (REQUEST_TO_ACT if requested else GOAL_TO_ACT).get(key)


def state_slot(act_slot: str) -> str:
    """The slot name a dialogue state uses for an act slot (``price`` -> ``pricerange``)."""
    return ACT_TO_STATE.get(act_slot, act_slot)


def _one(raw: Any, where: str) -> Act:
    if isinstance(raw, Act):
        return raw
    if not isinstance(raw, (list, tuple)) or not 2 <= len(raw) <= 4 or not all(isinstance(x, str) for x in raw):
        raise ActError(f"{where}: an act must be [intent, domain, slot, value] strings, got {raw!r}")
    intent, domain = raw[0].lower(), raw[1].lower()
    slot = raw[2].lower() if len(raw) > 2 else "none"
    value = raw[3] if len(raw) > 3 else "none"
    if intent not in _INTENTS:
        raise ActError(f"{where}: unknown intent {raw[0]!r} (known: {', '.join(sorted(_INTENTS))})")
    if domain not in _DOMAINS:
        raise ActError(f"{where}: unknown domain {raw[1]!r} (known: {', '.join(sorted(_DOMAINS))})")
    return Act(intent, domain, slot, value)


def parse_acts(raw: Any, where: str = "acts") -> list[Act]:
    """Acts from ``[[intent, domain, slot, value], ...]`` or 2.1's ``{"Domain-Intent": [[slot, value]]}``."""
    if raw is None:
        return []
    if isinstance(raw, Mapping):
        acts = []
        for name, pairs in raw.items():
            domain, sep, intent = str(name).partition("-")
            if not sep:
                raise ActError(f"{where}: act name {name!r} is not 'Domain-Intent'")
            if not isinstance(pairs, list):
                raise ActError(f"{where}: {name!r} must map to a list of [slot, value] pairs")
            for pair in pairs or [["none", "none"]]:
                if not isinstance(pair, (list, tuple)) or len(pair) != 2:
                    raise ActError(f"{where}: {name!r} has a malformed [slot, value] pair {pair!r}")
                acts.append(_one([intent, domain, str(pair[0]), str(pair[1])], where))
        return acts
    if isinstance(raw, (list, tuple)):
        return [_one(item, f"{where}[{i}]") for i, item in enumerate(raw)]
    raise ActError(f"{where}: expected a list of acts or a dict of 'Domain-Intent' lists, got {type(raw).__name__}")


def acts_json(acts: Iterable[Act]) -> list[list[str]]:
    """Acts in their JSON form."""
    return [act.as_list() for act in acts]


def from_dataset(dialogue_acts: Iterable[Mapping[str, Any]]) -> list[Act]:
    """Acts of a turn in the unified dataset schema (``{"act": "Hotel-Inform", "slot", "value"}``)."""
    acts = []
    for item in dialogue_acts:
        domain, _, intent = str(item["act"]).partition("-")
        slot = str(item.get("slot") or "none").lower()
        value = str(item.get("value") if item.get("value") is not None else "none")
        acts.append(Act(intent.lower(), domain.lower(), slot, value))
    return acts

"""Acts mapped to goals, states and the database, for interactive evaluation.

What an act is (``(intent, domain, slot, value)`` in MultiWOZ 2.1's vocabulary) and how a system's acts
are read (:func:`parse_acts`) is the records' grammar, :mod:`mwz_metrics.records.acts`, re-exported here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

# The act grammar is the records' (a session record is validated with it): re-exported here.
from mwz_metrics.records.acts import Act
from mwz_metrics.records.acts import ActError as ActError
from mwz_metrics.records.acts import acts_json as acts_json
from mwz_metrics.records.acts import parse_acts as parse_acts

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


def goal_slot_to_act(slot: str, *, requested: bool = False) -> str | None:
    """The act slot of a goal slot name (``arriveBy`` -> ``arrive``; ``entrance fee`` -> ``fee``)."""
    key = slot.lower()
    if key not in ("entrance fee", "car type"):
        key = key.replace(" ", "")
    return (REQUEST_TO_ACT if requested else GOAL_TO_ACT).get(key)


def state_slot(act_slot: str) -> str:
    """The slot name a dialogue state uses for an act slot (``price`` -> ``pricerange``)."""
    return ACT_TO_STATE.get(act_slot, act_slot)


def from_dataset(dialogue_acts: Iterable[Mapping[str, Any]]) -> list[Act]:
    """Acts of a turn in the unified dataset schema (``{"act": "Hotel-Inform", "slot", "value"}``)."""
    acts = []
    for item in dialogue_acts:
        domain, _, intent = str(item["act"]).partition("-")
        slot = str(item.get("slot") or "none").lower()
        value = str(item.get("value") if item.get("value") is not None else "none")
        acts.append(Act(intent.lower(), domain.lower(), slot, value))
    return acts

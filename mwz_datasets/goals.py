"""Dialogue goals and booked domains in mwzeval's format, from MultiWOZ 2.1 raw data.

mwzeval (Tomiinek/MultiWOZ_Evaluation @7f19ee0) ships them as ``goals.json`` and
``booked_domains.json``; these functions rebuild them from the ``goal`` and
``log`` fields of MultiWOZ 2.1 ``data.json``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mwz_datasets.database import column_name

# Keys of a raw goal that are not domains.
NON_DOMAIN_KEYS = frozenset({"topic", "message"})

# Raw ``reqt`` entries that mwzeval's Success checks, and their placeholders.
REQUESTABLE = {"phone": "PHONE", "address": "ADDRESS", "postcode": "POST", "reference": "REFERENCE", "id": "TRAINID"}

BOOKABLE_DOMAINS = ("restaurant", "hotel", "train", "attraction")

Normalizer = Callable[[str | None, str, str], str]


def _requestable(domain: str, goal: Mapping[str, Any]) -> list[str]:
    requested = goal.get("reqt", [])
    if domain == "train":
        slots = ["REFERENCE"] if "book" in goal else []
        if "trainID" in requested:
            slots.append("TRAINID")
        return slots
    slots = [REQUESTABLE[slot] for slot in requested if slot in REQUESTABLE]
    if "book" in goal:
        slots.append("REFERENCE")
    return slots


def goal_from_raw(goal: Mapping[str, Any], normalize: Normalizer) -> dict[str, dict[str, Any]]:
    """One dialogue's goal as mwzeval's ``{domain: {"informable": ..., "requestable": [...]}}``.

    Domains with an empty raw goal are left out; ``info`` slot names become
    database column names and values go through ``normalize(domain, slot, value)``.
    """
    result: dict[str, dict[str, Any]] = {}
    for domain, domain_goal in goal.items():
        if domain in NON_DOMAIN_KEYS or not domain_goal:
            continue
        if not isinstance(domain_goal, Mapping):
            raise ValueError(f"goal of domain {domain!r} is not an object: {domain_goal!r}")
        informable = {}
        for slot, value in domain_goal.get("info", {}).items():
            slot = column_name(slot)
            informable[slot] = normalize(domain, slot, value)
        result[domain] = {"informable": informable, "requestable": _requestable(domain, domain_goal)}
    return result


def booked_domains_from_raw(log: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """Per system turn (odd index of ``log``), the domains with a booking in its metadata.

    A domain counts when ``metadata[domain]["book"]["booked"]`` is non-empty; the
    order is :data:`BOOKABLE_DOMAINS`.
    """
    booked: list[list[str]] = []
    for index in range(1, len(log), 2):
        metadata = log[index].get("metadata") or {}
        try:
            booked.append([d for d in BOOKABLE_DOMAINS if d in metadata and metadata[d]["book"]["booked"]])
        except (KeyError, TypeError) as error:
            raise ValueError(f"turn {index}: malformed booking metadata ({error!r})") from None
    return booked

"""Dialogue goals and booked domains in mwzeval's format, from MultiWOZ 2.1 raw data.

mwzeval (Tomiinek/MultiWOZ_Evaluation @7f19ee0) ships them as ``goals.json`` and
``booked_domains.json``; these functions rebuild them from the ``goal`` and
``log`` fields of MultiWOZ 2.1 ``data.json``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mwz_datasets.database import column_name
from mwz_plugins.errors import InputError

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
            raise InputError(f"goal of domain {domain!r} is not an object: {domain_goal!r}")
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
            raise InputError(f"turn {index}: malformed booking metadata ({error!r})") from None
    return booked


def _constraints(metadata: Mapping[str, Any], domains: Sequence[str]) -> dict[str, dict[str, str]]:
    """The filled belief slots (``semi`` and ``book`` but ``booked``) of each goal domain."""
    out: dict[str, dict[str, str]] = {}
    for domain in domains:
        parts = metadata.get(domain) or {}
        slots = {
            slot: value
            for part in ("semi", "book")
            for slot, value in (parts.get(part) or {}).items()
            if slot != "booked" and isinstance(value, str) and value not in ("", "not mentioned", "none")
        }
        if slots:
            out[domain] = slots
    return out


def gold_active_domains_from_raw(goal: Mapping[str, Any], log: Sequence[Mapping[str, Any]]) -> list[list[str]]:
    """Per system turn, its domains as DAMD's preprocessing derives them (its ``turn_domain``).

    DAMD (thu-spmi/damd-multiwoz, ``preprocess.py``) takes the goal domains whose
    belief constraints are new or changed at this turn, then the domains of the
    system turn's dialogue acts (``general`` and ``booking`` dropped when others are
    present, ``booking`` never kept); with none it keeps the previous turn's domains
    (``general`` at the start); of two domains one of which is ``general``, the other;
    of two others, the previous turn's single domain goes first. DAMD collects the
    act domains in a set (arbitrary order); here they keep the acts' order.
    """
    domains = [d for d in ("restaurant", "hotel", "attraction", "train", "taxi", "police", "hospital") if goal.get(d)]
    active: list[list[str]] = []
    previous = ["general"]
    previous_constraints: dict[str, dict[str, str]] = {}
    for index in range(1, len(log), 2):
        turn = log[index]
        constraints = _constraints(turn.get("metadata") or {}, domains)
        turn_domain = [d for d in constraints if previous_constraints.get(d) != constraints[d]]
        from_acts: list[str] = []
        for act in turn.get("dialog_act") or {}:
            domain = act.split("-")[0].lower()
            if domain not in from_acts:
                from_acts.append(domain)
        for dropped in ("general", "booking"):
            if len(from_acts) != 1 and dropped in from_acts:
                from_acts.remove(dropped)
        for domain in from_acts:
            if domain != "booking" and domain not in turn_domain:
                turn_domain.append(domain)
        if not turn_domain:
            turn_domain = list(previous)
        if len(turn_domain) == 2 and "general" in turn_domain:
            turn_domain.remove("general")
        if len(turn_domain) == 2 and len(previous) == 1 and previous[0] == turn_domain[1]:
            turn_domain = turn_domain[::-1]
        active.append(turn_domain)
        previous = turn_domain
        previous_constraints = constraints
    return active

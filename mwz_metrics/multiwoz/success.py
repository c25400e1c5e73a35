"""Inform and Success rates: mwzeval's algorithm, on normalized inputs.

The database query (``query(domain, constraints) -> venue ids``) is injected;
:class:`mwz_datasets.database.VenueDatabase` provides mwzeval's semantics.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from mwz_metrics.settings import SuccessConfig
from mwz_plugins.ontology import REQUESTABLE_SLOTS, State

# What is offered by an entity Inform checks against the database: a venue by its name, a train by its id
# (mwzeval's "venue domains"; the interactive vocabulary's VENUE_DOMAINS are the venues alone).
OFFER_DOMAINS = ("restaurant", "hotel", "attraction", "train")
NO_DATABASE_DOMAINS = ("taxi", "police", "hospital")

Query = Callable[[str, Mapping[str, str]], Sequence[str]]
_MWZEVAL = SuccessConfig().resolved()  # mwzeval's own choices


def estimate_active_domains(states: Sequence[State]) -> list[list[str]]:
    """mwzeval's estimate of each turn's domain from changes of the dialogue state.

    The domain whose slot-value pairs changed is current; among several changed
    domains the old current one is kept if it changed, else the one with most
    slots; with no change, a second domain that changed last turn takes over.
    """
    estimates: list[list[str]] = []
    current: str | None = None
    old_state: State = {}
    old_changed: list[str] = []
    for state in states:
        changed = [
            domain for domain in state if set(state.get(domain, {}).items()) - set(old_state.get(domain, {}).items())
        ]
        if not changed:
            if current is None:
                estimates.append([])
                continue  # mwzeval keeps the old state here too
            if len(old_changed) > 1:
                old_changed = [d for d in old_changed if d in state and d != current]
                if old_changed:
                    current = old_changed[0]
        elif current not in changed:
            current = max(changed, key=lambda d: len(state[d]))
        old_state = state
        old_changed = changed
        estimates.append([current] if current is not None else [])
    return estimates


# Slots that identify one venue: with ``name_only`` the other constraints are ignored.
IDENTIFYING_SLOTS = ("name", "trainid", "id")


def __getattr__(name: str) -> Any:
    """``Variant``, the old name of :class:`~mwz_metrics.settings.SuccessConfig` (until the next release)."""
    if name == "Variant":
        import warnings

        warnings.warn(
            "mwz_metrics.multiwoz.success.Variant is now mwz_metrics.settings.SuccessConfig",
            DeprecationWarning,
            stacklevel=2,
        )
        return SuccessConfig
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _offer_constraints(constraints: Mapping[str, str], variant: SuccessConfig) -> Mapping[str, str]:
    if variant.name_constraints == "name_only":
        named = {slot: constraints[slot] for slot in IDENTIFYING_SLOTS if slot in constraints}
        if named:
            return named
    return constraints


@dataclasses.dataclass(frozen=True)
class DialogueOutcome:
    """Per-domain inform and success of one dialogue (and ``total``)."""

    inform: dict[str, bool]
    success: dict[str, bool]


def dialogue_success(
    goal: Mapping[str, Mapping],
    booked_domains: Sequence[Sequence[str]],
    responses: Sequence[str],
    states: Sequence[State],
    active_domains: Sequence[Sequence[str]],
    query: Query,
    variant: SuccessConfig | None = None,
) -> DialogueOutcome:
    """Inform and success of one dialogue (mwzeval's ``get_dialog_success``, or another variant: a
    :class:`~mwz_metrics.settings.SuccessConfig`, its choices made by :meth:`~SuccessConfig.resolved`)."""
    variant = variant or _MWZEVAL
    wanted = {d: set(goal[d]["requestable"]) for d in goal}
    # offered venue ids per domain, or MATCHED where no venue needs matching
    offered: dict[str, list[str] | str] = {d: [] for d in goal}
    provided: dict[str, set[str]] = {d: set() for d in goal}

    for response, state, booked, active in zip(responses, states, booked_domains, active_domains):
        for domain in goal:
            if domain not in active:
                continue
            mentions_venue = ("NAME" in response and domain in ("restaurant", "hotel", "attraction")) or (
                "TRAINID" in response and domain == "train"
            )
            if mentions_venue:
                # Only the last mention counts: the matching venues replace the
                # offered ones unless those are still all among them.
                matching = list(query(domain, _offer_constraints(state[domain], variant))) if domain in state else []
                previous = offered[domain]
                # a set: a state like {"train": {}} matches every train, and a list made this quadratic
                if not previous or isinstance(previous, str) or not set(matching).issuperset(previous):
                    offered[domain] = matching
            for slot in REQUESTABLE_SLOTS:
                if slot in response:
                    # A reference counts only where the gold dialogue booked.
                    if slot != "REFERENCE" or domain in booked:
                        provided[domain].add(slot)

    for domain in goal:
        if "name" in goal[domain]["informable"] or domain in NO_DATABASE_DOMAINS:
            offered[domain] = "MATCHED"
        if domain == "train" and not offered["train"] and "TRAINID" not in goal["train"]["requestable"]:
            offered[domain] = "MATCHED"

    inform: dict[str, bool] = {}
    for domain in goal:
        matched = False
        if offered[domain] == "MATCHED":
            matched = True
        elif domain in OFFER_DOMAINS and len(offered[domain]) > 0:
            goal_venues = set(query(domain, goal[domain]["informable"]))
            venues = set(offered[domain])
            matched = bool(venues & goal_venues) if variant.matching == "intersection" else venues <= goal_venues
        inform[domain] = matched
    inform["total"] = sum(inform.values()) == len(inform)

    success: dict[str, bool] = {}
    if inform["total"]:
        for domain in goal:
            success[domain] = len(provided[domain] & wanted[domain]) == len(wanted[domain])
        success["total"] = sum(success.values()) >= len(success)
    return DialogueOutcome(inform, success)


def aggregate(outcomes: Mapping[str, DialogueOutcome]) -> tuple[dict[str, float], dict[str, float], dict[str, float]]:
    """Per-domain and total rates in percent, unrounded: (inform, success, dialogues per domain)."""
    total: Counter = Counter()
    inform: Counter = Counter()
    success: Counter = Counter()
    for outcome in outcomes.values():
        for domain in set(outcome.inform) | set(outcome.success):
            total[domain] += 1
            inform[domain] += outcome.inform.get(domain, 0)
            success[domain] += outcome.success.get(domain, 0)
    order = sorted(d for d in total if d != "total") + ["total"] * ("total" in total)  # stable output
    inform_rate = {d: 100 * inform[d] / total[d] for d in order}
    success_rate = {d: 100 * success[d] / total[d] for d in order}
    return inform_rate, success_rate, {d: total[d] for d in order}

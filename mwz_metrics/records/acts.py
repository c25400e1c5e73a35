"""Dialogue acts as the records carry them, in MultiWOZ 2.1's act vocabulary.

An act is ``(intent, domain, slot, value)``, lowercase except the value: ``("inform", "hotel",
"area", "south")``, ``("request", "restaurant", "phone", "?")``, ``("bye", "general", "none",
"none")``. Intents, domains and slots are MultiWOZ 2.1's (``Hotel-Inform`` -> ``inform``,
``hotel``; slots ``addr``, ``post``, ``arrive``, ``leave``, ``depart``, ``dest``, ``ref``, ``id``,
``ticket``, ``fee``, ``car``...). A system may send its acts as a list of
``[intent, domain, slot, value]`` or in 2.1's own form ``{"Hotel-Inform": [["Area", "south"]]}``;
:func:`parse_acts` reads both. The grammar lives here, below the rooms, because a session record and a
system's turn are validated with it; the interactive room's vocabulary names its domains from here.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, NamedTuple

from mwz_plugins.errors import InputError

# The domains of a user's goal (the interactive vocabulary's ``DOMAINS``).
SERVICE_DOMAINS = ("restaurant", "hotel", "attraction", "train", "taxi", "police", "hospital")
# What an act may name as its domain: a service, or 2.1's "booking" and "general".
ACT_DOMAINS = frozenset({*SERVICE_DOMAINS, "booking", "general"})
INTENTS = frozenset(
    {
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
)

ActJson = list[str]  # ``[intent, domain, slot, value]``, an act as a record writes it


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


def _one(raw: Any, where: str) -> Act:
    if isinstance(raw, Act):
        return raw
    if not isinstance(raw, (list, tuple)) or not 2 <= len(raw) <= 4 or not all(isinstance(x, str) for x in raw):
        raise ActError(f"{where}: an act must be [intent, domain, slot, value] strings, got {raw!r}")
    intent, domain = raw[0].lower(), raw[1].lower()
    slot = raw[2].lower() if len(raw) > 2 else "none"
    value = raw[3] if len(raw) > 3 else "none"
    if intent not in INTENTS:
        raise ActError(f"{where}: unknown intent {raw[0]!r} (known: {', '.join(sorted(INTENTS))})")
    if domain not in ACT_DOMAINS:
        raise ActError(f"{where}: unknown domain {raw[1]!r} (known: {', '.join(sorted(ACT_DOMAINS))})")
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

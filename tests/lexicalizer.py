"""A lexicalizer for the round-trip test: a delexicalized system's responses with their placeholders
filled from the venue database and the system's own states, as a system that writes values would say
them ("[value_name] is in the [value_area]" -> "pizza hut city centre is in the centre").

It is the test's, not the package's: the package only goes the other way (``mwz_metrics.delexicalize``).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import Any

from mwz_datasets.database import column_name
from mwz_metrics.multiwoz.success import estimate_active_domains
from mwz_plugins import get_registry
from mwz_plugins.ontology import PLACEHOLDER_RE

_VENUES = ("restaurant", "hotel", "attraction", "train")
_STATE_TO_COLUMN = {"leave": "leaveAt", "arrive": "arriveBy", "leaveat": "leaveAt", "arriveby": "arriveBy"}


class Lexicalizer:
    """Fills placeholders of any registered style (see the module docstring)."""

    def __init__(self, database: Any) -> None:
        self.db = database
        self.placeholders = get_registry().placeholder_map()

    def dialogue(self, dialogue_id: str, turns: Sequence[Mapping[str, Any]]) -> list[dict[str, Any]]:
        """The dialogue's turns with lexicalized responses (states and the rest as they were)."""
        states = [turn.get("state") or {} for turn in turns]
        estimated = estimate_active_domains([_lowered(s) for s in states])
        out = []
        for index, turn in enumerate(turns):
            active = list(turn.get("active_domains") or estimated[index] or [])
            text = self.response(str(turn["response"]), states[index], active, f"{dialogue_id}:{index}")
            out.append({**turn, "response": text})
        return out

    def response(self, text: str, state: Mapping[str, Any], active: Sequence[str], seed: str) -> str:
        """One response lexicalized."""
        state = _lowered(state)
        places = iter(_places(state))
        counter = [0]

        def fill(match: re.Match) -> str:
            name = match.group(1).lower()
            slot = self.placeholders.get(name)
            domain = next((d for d in _VENUES if name.startswith(d)), None) or _domain(active, state)
            counter[0] += 1
            return self._value(slot, domain, state, places, f"{seed}:{counter[0]}") + match.group(2)

        return PLACEHOLDER_RE.sub(fill, text)

    def _venue(self, domain: str | None, state: Mapping[str, Any]) -> dict[str, Any]:
        if domain not in _VENUES:
            domain = "restaurant"
        constraints = {column_name(_STATE_TO_COLUMN.get(k, k)): v for k, v in state.get(domain, {}).items()}
        ids = self.db.query(domain, constraints)
        rows = self.db.rows(domain, ids[:1]) if ids else self.db.all_rows(domain)[:1]
        return rows[0] if rows else {}

    def _value(self, slot: str | None, domain: str | None, state: Mapping[str, Any], places, seed: str) -> str:
        venue = self._venue(domain, state)
        mine = state.get(domain or "", {})
        if slot == "NAME":
            return str(venue.get("name", "pizza hut city centre"))
        if slot == "TRAINID":
            return str(self._venue("train", state).get("trainID", "TR7075"))
        if slot in ("ADDRESS", "PHONE", "POST"):
            key = {"ADDRESS": "address", "PHONE": "phone", "POST": "postcode"}[slot]
            return str(
                venue.get(key) or {"address": "regent street", "phone": "01223323737", "postcode": "cb21ab"}[key]
            )
        if slot == "REFERENCE":
            return hashlib.sha256(seed.encode()).hexdigest()[:6].upper() + "9Q"  # letters and digits, as MultiWOZ
        if slot == "TIME":
            return str(mine.get("leave") or mine.get("leaveat") or mine.get("time") or venue.get("leaveAt") or "10:15")
        if slot == "PRICE":
            if domain == "train":
                return str(self._venue("train", state).get("price", "10.10 pounds"))
            return str(mine.get("pricerange") or venue.get("pricerange") or "cheap")
        if slot == "COUNT":
            return str(mine.get("people") or mine.get("stay") or 2)
        if slot in ("AREA", "FOOD", "TYPE", "DAY"):
            key = slot.lower()
            default = {"area": "centre", "food": "italian", "type": "guesthouse", "day": "monday"}[key]
            given = mine.get(key) if mine.get(key) not in ("dontcare", "not mentioned") else None
            return str(given or venue.get(key) or default)
        if slot == "PLACE":
            return next(places, "cambridge")
        return {"INTERNET": "free wifi", "PARKING": "free parking"}.get(slot or "", "yes")


def _lowered(state: Mapping[str, Any]) -> dict[str, dict[str, str]]:
    return {
        str(d).lower(): {str(k).lower().replace(" ", ""): str(v) for k, v in (slots or {}).items()}
        for d, slots in (state or {}).items()
        if isinstance(slots, Mapping)
    }


def _domain(active: Sequence[str], state: Mapping[str, Any]) -> str | None:
    for domain in active:
        if domain in _VENUES:
            return domain
    return next((d for d in reversed(list(state)) if d in _VENUES), None)


def _places(state: Mapping[str, Any]) -> list[str]:
    out = []
    for domain in ("train", "taxi"):
        for key in ("departure", "destination"):
            value = state.get(domain, {}).get(key)
            if value and value not in ("dontcare", "not mentioned"):
                out.append(value)
    return out or ["cambridge", "london kings cross"]

"""Lexicalized responses read like delexicalized ones.

mwzeval's Inform and Success read placeholders (``[value_name]``, ``[value_phone]``...): a system that
writes its values ("Pizza Hut City Centre is a cheap italian restaurant") would score near zero. The
:class:`Delexicalizer` writes mwzeval's placeholders back where a response carries values: what the
venue database holds (venue names, addresses, phone numbers, postcodes, train ids and stations,
foods, areas, price ranges, types), what the dialogue's own state holds, and what a pattern tells
(reference numbers, times, prices, durations, days, counts).

:func:`decide` chooses per response set (``mode``): ``never`` leaves responses as written;
``always`` delexicalizes every response (placeholders already there are kept); ``auto`` (the
default) delexicalizes a set whose responses carry more values than placeholders, and leaves a
delexicalized set as written, so the numbers of every delexicalized system stay mwzeval's. A result
says which (a counted warning, and ``delexicalized=`` in its signature when values were replaced);
a set with neither placeholders nor values gets a warning of its own.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Mapping
from typing import Any

from mwz_datasets.database import SERVICE_VENUES
from mwz_plugins.errors import InputError

VERSION = "1.0.0"
MODES = ("auto", "always", "never")

# What each pattern finds, in the order they are applied (earlier ones protect their digits).
_PATTERNS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\b(?=[a-z]*\d)[a-z0-9]{8}\b", re.IGNORECASE), "[value_reference]"),
    (re.compile(r"\btr ?\d{4}\b", re.IGNORECASE), "[value_id]"),
    (re.compile(r"(?<![\d.])\+?(?:44 ?)?\(?0\d{3,4}\)? ?\d{3} ?\d{3,4}(?!\d)"), "[value_phone]"),
    (re.compile(r"(?<![\d.])\d{10,11}(?!\d|\.\d)"), "[value_phone]"),  # a taxi's number, as ConvLab writes them
    (re.compile(r"\bc\.? ?b\.? ?\d{1,2} ?,? ?\d ?[a-z]\.? ?[a-z]\b", re.IGNORECASE), "[value_postcode]"),
    (re.compile(r"(?:£ ?\d+(?:\.\d{1,2})?|\b\d+(?:\.\d{1,2})? ?(?:pounds?|gbp)\b)", re.IGNORECASE), "[value_price]"),
    (re.compile(r"\b(?:[01]?\d|2[0-3])[:.][0-5]\d(?: ?[ap]\.?m\b\.?)?", re.IGNORECASE), "[value_time]"),
    (re.compile(r"\b(?:1[0-2]|0?[1-9]) ?[ap]\.?m\b\.?", re.IGNORECASE), "[value_time]"),
    (re.compile(r"\b\d+ ?(?:minutes?|mins?)\b", re.IGNORECASE), "[value_time]"),
)
# "Its phone number is not listed": the database's "?" said, an answer about that attribute.
_NOT_LISTED = re.compile(
    r"\b(?P<attribute>phone number|phone|postcode|post code|address|entrance fee|fee|price|area)\b"
    r"(?P<between>[^.?!\[]{0,30}?)\bnot listed\b",
    re.IGNORECASE,
)
_NOT_LISTED_FEE = re.compile(r"\bnot listed\b(?= to (?:enter|get in|go in|visit|attend)\b)", re.IGNORECASE)
_NOT_LISTED_PLACEHOLDERS = {
    "phone number": "[value_phone]",
    "phone": "[value_phone]",
    "postcode": "[value_postcode]",
    "post code": "[value_postcode]",
    "address": "[value_address]",
    "entrance fee": "[value_price]",
    "fee": "[value_price]",
    "price": "[value_price]",
    "area": "[value_area]",
}
_COUNT = re.compile(r"(?<![\w\[])\d+(?![\w\]])")
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_AREAS = ("north", "south", "east", "west", "centre", "center", "city centre", "town centre")
_PRICE_RANGES = ("cheap", "moderate", "moderately priced", "expensive")
# Words that are a value's name but far more often an ordinary word of a response.
_TOO_COMMON = {"hotel", "restaurant", "attraction", "train", "taxi", "the", "free", "yes", "no", "none", "place"}
_SPELLINGS = {"concert hall": "[value_type]", "swimming pool": "[value_type]", "multiple sports": "[value_type]"}
# MultiWOZ's taxi cars: a colour and a make.
_CAR_COLOURS = ("black", "white", "red", "yellow", "blue", "grey", "gray")
_CAR_MAKES = ("toyota", "skoda", "bmw", "honda", "ford", "audi", "lexus", "volvo", "volkswagen", "tesla")
# A state slot (mwzeval's names, lowercased) -> the placeholder of its values.
_STATE_SLOTS = {
    "name": "[value_name]",
    "area": "[value_area]",
    "food": "[value_food]",
    "pricerange": "[value_pricerange]",
    "type": "[value_type]",
    "departure": "[value_place]",
    "destination": "[value_place]",
    "day": "[value_day]",
    "leaveat": "[value_time]",
    "leave": "[value_time]",
    "arriveby": "[value_time]",
    "arrive": "[value_time]",
    "time": "[value_time]",
    "department": "[value_department]",
}
_WORD = re.compile(r"[a-z0-9]+(?:'[a-z]+)?")


class Delexicalizer:
    """Replaces the values a response carries by mwzeval's ``[value_*]`` placeholders (see the module
    docstring). Phrases are matched whole-word and longest first, without case."""

    def __init__(self, phrases: Mapping[str, str]) -> None:
        self._phrases: dict[str, dict[tuple[str, ...], str]] = {}
        for phrase, placeholder in phrases.items():
            self._add(self._phrases, phrase, placeholder)

    @staticmethod
    def _add(table: dict[str, dict[tuple[str, ...], str]], phrase: str, placeholder: str) -> None:
        words = tuple(_WORD.findall(phrase.lower()))
        if not words or " ".join(words) in _TOO_COMMON:
            return
        table.setdefault(words[0], {}).setdefault(words, placeholder)

    @classmethod
    def from_database(cls, database: Any) -> Delexicalizer:
        """The values of mwzeval's venue database (and MultiWOZ's police station and hospital)."""
        return cls(_database_phrases(database))

    def delexicalize(self, text: str, state: Mapping[str, Mapping[str, Any]] | None = None) -> str:
        """``text`` with its values replaced by placeholders; ``state``: the dialogue's belief state at
        this turn, whose values are found too (a value the user gave that the database spells otherwise)."""
        for pattern, placeholder in _PATTERNS:
            text = pattern.sub(placeholder, text)
        text = _NOT_LISTED.sub(_not_listed, text)
        text = _NOT_LISTED_FEE.sub("[value_price]", text)
        text = _CASED.sub("[value_name]", text)
        text = self._phrases_replaced(text, _state_phrases(state) if state else None)
        return _COUNT.sub("[value_count]", text)

    def finds_values(self, text: str) -> bool:
        """Whether ``text`` carries a value this delexicalizer replaces."""
        return self.delexicalize(text) != text

    def _phrases_replaced(self, text: str, extra: dict[str, dict[tuple[str, ...], str]] | None) -> str:
        lowered = text.lower()
        words = [(m.group(), m.start(), m.end()) for m in _WORD.finditer(lowered)]
        pieces: list[str] = []
        position = index = 0
        while index < len(words):
            found = self._longest(words, index, extra)
            if found is None:
                index += 1
                continue
            length, placeholder = found
            start, end = words[index][1], words[index + length - 1][2]
            if "[" in lowered[max(0, start - 7) : start] and "]" not in lowered[max(0, start - 7) : start]:
                index += 1  # inside a placeholder's name ("[value_name]"): leave it
                continue
            pieces.append(text[position:start])
            pieces.append(placeholder)
            position, index = end, index + length
        return "".join(pieces) + text[position:]

    def _longest(
        self, words: list[tuple[str, int, int]], index: int, extra: dict[str, dict[tuple[str, ...], str]] | None
    ) -> tuple[int, str] | None:
        best: tuple[int, str] | None = None
        for table in (extra, self._phrases):
            for phrase, placeholder in (table or {}).get(words[index][0], {}).items():
                n = len(phrase)
                if (best is None or n > best[0]) and tuple(w for w, _, _ in words[index : index + n]) == phrase:
                    best = (n, placeholder)
        return best


def _not_listed(match: re.Match) -> str:
    attribute = match.group("attribute")
    return attribute + match.group("between") + _NOT_LISTED_PLACEHOLDERS[attribute.lower()]


# Venue names that are also common phrases ("the place"): a name only when written as one.
_CASED = re.compile(r"\bThe Place\b")


def _database_phrases(database: Any) -> dict[str, str]:
    """Every value of the database a response may carry, with its placeholder (a longer phrase first
    claims its words: ``pizza hut city centre`` is a name, not a name and an area)."""
    phrases: dict[str, str] = {}

    def add(value: Any, placeholder: str) -> None:
        text = str(value or "").strip().lower()
        if text and text != "?" and text not in _TOO_COMMON and text != "the place":  # see _CASED
            phrases.setdefault(text, placeholder)
            if text.startswith("the ") and len(text) > 8:
                phrases.setdefault(text[4:], placeholder)

    for domain in ("restaurant", "hotel", "attraction"):
        for row in database.all_rows(domain):
            add(row.get("name"), "[value_name]")
            add(row.get("address"), "[value_address]")
            add(row.get("type"), "[value_type]")
            add(row.get("food"), "[value_food]")
    for row in database.all_rows("train"):
        add(row.get("departure"), "[value_place]")
        add(row.get("destination"), "[value_place]")
    for venue in SERVICE_VENUES.values():  # police and hospital, not in mwzeval's database
        add(venue["name"], "[value_name]")
        add(venue["address"], "[value_address]")
    add("hills road, cambridge", "[value_address]")
    for words, placeholder in ((_DAYS, "[value_day]"), (_AREAS, "[value_area]"), (_PRICE_RANGES, "[value_pricerange]")):
        for word in words:
            add(word, placeholder)
    add("guest house", "[value_type]")
    for value, placeholder in _SPELLINGS.items():
        add(value, placeholder)
    for make in _CAR_MAKES:
        add(make, "[value_car]")
        for colour in _CAR_COLOURS:
            add(f"{colour} {make}", "[value_car]")
    return phrases


def _state_phrases(state: Mapping[str, Mapping[str, Any]]) -> dict[str, dict[tuple[str, ...], str]]:
    table: dict[str, dict[tuple[str, ...], str]] = {}
    for slots in state.values():
        if not isinstance(slots, Mapping):
            continue
        for slot, value in slots.items():
            placeholder = _STATE_SLOTS.get(str(slot).lower().replace(" ", ""))
            text = str(value or "").strip().lower()
            if placeholder and text and text not in ("dontcare", "none", "not mentioned"):
                Delexicalizer._add(table, text, placeholder)
    return table


def has_placeholder(text: str) -> bool:
    """Whether ``text`` carries a placeholder (``[...]``, of any style, known or not)."""
    from mwz_plugins.ontology import PLACEHOLDER_RE

    return PLACEHOLDER_RE.search(text) is not None


@dataclasses.dataclass
class Decision:
    """What :func:`decide` found in a response set and whether it delexicalizes it."""

    mode: str
    responses: int = 0
    with_placeholders: int = 0
    with_values: int = 0  # responses without a placeholder that carry a value
    apply: bool = False
    changed: int = 0  # responses the delexicalizer changed (filled in by the caller)

    def warnings(self) -> list[dict[str, Any]]:
        """The result's warnings: values replaced, or neither placeholders nor values."""
        out = []
        if self.apply and self.changed:
            out.append(
                {
                    "kind": "lexicalized_responses",
                    "count": self.changed,
                    "effect": f"values in {self.changed} of {self.responses} responses replaced by mwzeval's "
                    f"placeholders (venue database and each dialogue's states; delexicalize={self.mode}), "
                    "so that Inform, Success and BLEU read them",
                }
            )
        if self.mode == "never" and self.with_values > self.with_placeholders:
            out.append(
                {
                    "kind": "values_read_as_written",
                    "count": self.with_values,
                    "effect": f"{self.with_values} of {self.responses} responses carry values and few carry "
                    "placeholders, which are all Inform and Success read (delexicalize=never)",
                }
            )
        if self.responses and not self.with_placeholders and not self.with_values:
            out.append(
                {
                    "kind": "no_placeholders_or_values",
                    "count": self.responses,
                    "effect": "the responses carry no placeholder and no value of the venue database: Inform and "
                    "Success find no venue, reference or attribute in them (are these the system's responses?)",
                }
            )
        return out

    def details(self) -> dict[str, Any]:
        """What the signature's details say of it."""
        return {"delexicalizer": f"mwz-delex@{VERSION}", **dataclasses.asdict(self)}


def decide(responses: Iterable[str], mode: str, delexicalizer: Any) -> Decision:
    """Whether a response set is delexicalized (see the module docstring); ``delexicalizer`` is called
    only when needed (a callable returning a :class:`Delexicalizer`, for a set with few placeholders)."""
    if mode not in MODES:
        raise InputError(f"delexicalize must be one of {', '.join(MODES)}, not {mode!r}")
    texts = list(responses)
    decision = Decision(mode, len(texts))
    decision.with_placeholders = sum(1 for t in texts if has_placeholder(t))
    if mode != "always" and decision.with_placeholders * 4 >= len(texts):
        return decision  # a delexicalized system, as mwzeval reads it: nothing to look for
    finder = delexicalizer() if callable(delexicalizer) else delexicalizer
    decision.with_values = sum(1 for t in texts if not has_placeholder(t) and finder.finds_values(t))
    decision.apply = mode == "always" or (mode == "auto" and decision.with_values > decision.with_placeholders)
    return decision

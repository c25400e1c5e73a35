"""Language from templates built from MultiWOZ 2.1 validation turns (never test).

Each annotated turn whose values all have a span becomes a template: its text with every span
replaced by a slot marker, filed under the turn's *act signature* (intent, domain, slot and
kind of value of each act). To say a set of acts, :meth:`TemplateBank.realize` picks a template
of exactly that signature (seeded choice); when none exists it splits the acts into groups
that have templates (by intent and domain, then the largest sub-combinations) and joins their
sentences; a single act without any template gets a plain fallback sentence.

User templates carry the values' markers (``[hotel-area]``) and are filled with the goal's
values. System templates write placeholders in mwzeval's ``[value_*]`` vocabulary instead of
values: the reference systems speak delexicalized text, as the systems under test do.
"""

from __future__ import annotations

import dataclasses
import functools
import itertools
import random
import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mwz_metrics.interactive.acts import Act, from_dataset

# Values that are no value: an act slot without one, a request, a "don't care".
NO_VALUE = {"none", "?", ""}
DONTCARE = {"dontcare", "do nt care", "dont care", "don't care", "do n't care", "any", "does not matter"}

# Act slot -> the mwzeval placeholder a system template writes for it (``[value_name]``...).
SYSTEM_PLACEHOLDERS = {
    "name": "value_name",
    "addr": "value_address",
    "phone": "value_phone",
    "post": "value_postcode",
    "ref": "value_reference",
    "id": "value_id",
    "leave": "value_leave",
    "arrive": "value_arrive",
    "ticket": "value_price",
    "fee": "value_price",
    "choice": "value_choice",
    "area": "value_area",
    "food": "value_food",
    "price": "value_pricerange",
    "type": "value_type",
    "stars": "value_stars",
    "day": "value_day",
    "people": "value_people",
    "stay": "value_stay",
    "time": "value_time",
    "depart": "value_departure",
    "dest": "value_destination",
    "car": "value_car",
    "department": "value_department",
    "open": "openhours",
}

_DETOKENIZE = [
    (re.compile(r" (n't|'s|'m|'re|'ve|'ll|'d)\b", re.IGNORECASE), r"\1"),
    (re.compile(r"\b(ca|wo|do|does|did|is|are|was|were|could|would|should|have|has|had) n't\b", re.I), r"\1n't"),
    (re.compile(r" ([.,?!:;%])"), r"\1"),
    (re.compile(r"\( "), "("),
    (re.compile(r" \)"), ")"),
    (re.compile(r"\s+"), " "),
]


def detokenize(text: str) -> str:
    """MultiWOZ 2.1's tokenized text (``I 'm``, ``do n't``, ``town .``) as it was typed."""
    for pattern, replacement in _DETOKENIZE:
        text = pattern.sub(replacement, text)
    return text.strip()


def value_kind(act: Act) -> str:
    """``value``, ``dontcare`` or ``none`` (a request's ``?`` and slotless acts)."""
    value = act.value.strip().lower()
    if act.slot == "none" or value in NO_VALUE:
        return "none"
    if act.slot in ("internet", "parking") and value in ("yes", "free"):
        return "none"  # 2.1 annotates "free parking" as Parking "none" in system turns; yes is the word
    return "dontcare" if value in DONTCARE else "value"


def signature(acts: Iterable[Act]) -> str:
    """The key templates are filed under: each act's intent, domain, slot and kind of value."""
    return ";".join(sorted({f"{a.intent}|{a.domain}|{a.slot}|{value_kind(a)}" for a in acts}))


def user_marker(act: Act) -> str:
    """The marker a user template holds for an act's value (``[hotel-area]``)."""
    return f"[{act.domain}-{act.slot}]"


def system_marker(act: Act) -> str | None:
    """The placeholder a system template holds for an act's value (``[value_area]``), if any."""
    if act.domain == "train" and act.slot == "time":
        return "[value_duration]"  # a train's "time" is its travel time
    name = SYSTEM_PLACEHOLDERS.get(act.slot)
    return f"[{name}]" if name else None


def _template(words: list[str], acts: list[Act], spans: Sequence[Mapping[str, Any]], *, system: bool) -> str | None:
    """The turn's text with each value's span replaced by its marker; None if a value has no span."""
    by_act: dict[tuple[str, str, str], tuple[int, int]] = {}
    for span in spans:
        domain, _, intent = str(span["act"]).partition("-")
        key = (intent.lower(), domain.lower(), str(span["slot"]).lower())
        start, end = int(span["start"]), int(span["end"])
        if 0 <= start <= end < len(words):
            by_act.setdefault(key, (start, end))
    replacements: dict[int, tuple[int, str]] = {}
    for act in acts:
        if value_kind(act) != "value":
            continue
        found = by_act.get((act.intent, act.domain, act.slot))
        marker = system_marker(act) if system else user_marker(act)
        if found is None:
            if system and marker is None:
                continue  # e.g. parking "yes": stays in the words
            return None
        if marker is None:
            continue
        start, end = found
        if any(s <= end and start <= e for s, (e, _) in replacements.items()):
            return None  # overlapping spans: an ambiguous template
        replacements[start] = (end, marker)
    out: list[str] = []
    position = 0
    for start in sorted(replacements):
        end, marker = replacements[start]
        out.extend(words[position:start])
        out.append(marker)
        position = end + 1
    out.extend(words[position:])
    return detokenize(" ".join(out))


# Words of values a user template must not keep outside its markers: they would contradict the goal.
_LEFTOVER = re.compile(
    r"\d|\b(north|south|east|west|centre|center|cheap|expensive|moderate|monday|tuesday|wednesday|thursday"
    r"|friday|saturday|sunday)\b",
    re.IGNORECASE,
)
# Slots whose annotated values, left in a template's words, would name something the goal may not.
_VALUE_SLOTS = {"food", "area", "price", "type", "name", "depart", "dest", "day", "department"}
_NOT_VALUES = {"hotel", "hotels", "restaurant", "train", "taxi", "attraction", "cambridge", "yes", "no", "free", "any"}
# Words that name a domain: a user template about one domain must not name another.
_DOMAIN_WORDS = {
    "hotel": ("hotel", "guesthouse", "guest house", "place to stay"),
    "restaurant": ("restaurant", "place to eat", "dine", "dinner", "lunch"),
    "train": ("train",),
    "taxi": ("taxi", "cab"),
    "attraction": ("attraction",),
}


def _annotated_values(dialogues: Iterable[Mapping[str, Any]]) -> re.Pattern | None:
    """One pattern matching every value the user turns annotate (three letters or more)."""
    values: set[str] = set()
    for dialogue in dialogues:
        for turn in dialogue["turns"]:
            for act in from_dataset(turn["dialogue_acts"]):
                value = detokenize(act.value.lower())
                if act.slot in _VALUE_SLOTS and len(value) >= 3 and value not in _NOT_VALUES | NO_VALUE | DONTCARE:
                    values.add(value)
    if not values:
        return None
    alternatives = "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\b")


def _user_template_ok(template: str, acts: list[Act], values: re.Pattern | None) -> bool:
    """A user template keeps no stray value and names no domain but its acts'."""
    words = re.sub(r"\[[^\]]*\]", " ", template).lower()
    if _LEFTOVER.search(words) or (values is not None and values.search(words)):
        return False
    domains = {a.domain for a in acts}
    return not any(
        domain not in domains and any(re.search(rf"\b{w}", words) for w in names)
        for domain, names in _DOMAIN_WORDS.items()
    )


def build_bank(dialogues: Iterable[Mapping[str, Any]], *, system: bool) -> dict[str, list[str]]:
    """Templates of every user (or system) turn of the dialogues, by act signature."""
    dialogues = list(dialogues)
    values = None if system else _annotated_values(dialogues)
    bank: dict[str, list[str]] = {}
    for dialogue in dialogues:
        for turn in dialogue["turns"]:
            if (turn["speaker"] == "SYSTEM") != system:
                continue
            acts = from_dataset(turn["dialogue_acts"])
            if not acts:
                continue
            keys = [(a.intent, a.domain, a.slot) for a in acts if value_kind(a) == "value"]
            if len(keys) != len(set(keys)):
                continue  # two values of one slot ("3 or 4 stars"): not fillable
            template = _template(turn["utterance"].split(), acts, turn["spans"], system=system)
            if not template:
                continue
            if not system and not _user_template_ok(template, acts, values):
                continue  # a value the annotation missed, an alternative, another domain
            if system and {a.intent for a in acts} == {"reqmore"} and not template.endswith("?"):
                continue  # "anything else?" must ask
            bank.setdefault(signature(acts), [])
            if template not in bank[signature(acts)]:
                bank[signature(acts)].append(template)
    return {key: bank[key] for key in sorted(bank)}


_FALLBACK_USER = {
    "inform": "I would like the {slot} to be {value}.",
    "request": "Can you tell me the {slot}?",
    "thank": "Thank you.",
    "bye": "Goodbye.",
    "greet": "Hello.",
}
# How a user states one constraint when no template says it (``{v}``: the value).
_USER_PHRASES = {
    "area": "in the {v} area",
    "price": "in the {v} price range",
    "stars": "with {v} stars",
    "type": "of the type {v}",
    "food": "serving {v} food",
    "name": "called {v}",
    "day": "on {v}",
    "people": "for {v} people",
    "stay": "for {v} nights",
    "time": "at {v}",
    "leave": "leaving after {v}",
    "arrive": "arriving by {v}",
    "depart": "from {v}",
    "dest": "to {v}",
    "department": "in the {v} department",
}
_USER_FLAGS = {("parking", "yes"): "with free parking", ("parking", "no"): "without free parking"}
_USER_FLAGS.update({("internet", "yes"): "with free wifi", ("internet", "no"): "without free wifi"})
_REQUEST_WORDS = {
    "addr": "address",
    "post": "postcode",
    "fee": "entrance fee",
    "ticket": "price",
    "time": "travel time",
    "id": "train ID",
    "ref": "reference number",
    "car": "car type",
    "price": "price range",
    "leave": "departure time",
    "arrive": "arrival time",
}
_FALLBACK_SYSTEM = {
    "inform": "The {slot} is {value}.",
    "recommend": "I recommend {value}.",
    "request": "What {slot} would you like?",
    "nooffer": "I am sorry, there is nothing matching that.",
    "nobook": "I am sorry, the booking was unsuccessful.",
    "book": "I have booked it, the reference number is [value_reference].",
    "offerbooked": "I have booked it, the reference number is [value_reference].",
    "offerbook": "Would you like me to book it?",
    "reqmore": "Is there anything else I can help you with?",
    "bye": "Goodbye.",
    "welcome": "You are welcome.",
    "greet": "Hello.",
    "select": "Which one would you like?",
}


@dataclasses.dataclass
class TemplateBank:
    """Templates by act signature, for one side of the dialogue."""

    templates: dict[str, list[str]]
    system: bool

    def _fill(self, template: str, acts: Sequence[Act]) -> str:
        if self.system:
            return template
        for act in acts:
            if value_kind(act) == "value":
                template = template.replace(user_marker(act), act.value)
        return template

    def _fallback(self, act: Act) -> str:
        if self.system:
            return _FALLBACK_SYSTEM.get(act.intent, "").format(slot=act.slot, value=system_marker(act) or act.value)
        word = _REQUEST_WORDS.get(act.slot, act.slot)
        if value_kind(act) == "dontcare":
            return f"I don't mind about the {word}."
        if act.intent == "inform":
            phrase = _constraint_phrase(act)
            if phrase:
                return f"I am looking for {_noun(act.domain)} {phrase}."
        return _FALLBACK_USER.get(act.intent, "").format(slot=word, value=act.value)

    def _split(self, acts: list[Act]) -> list[list[Act]]:
        """Groups of the acts that have templates: the largest sub-combination first, greedily."""
        for size in range(len(acts) - 1, 0, -1):
            for chosen in itertools.combinations(range(len(acts)), size):
                group = [acts[i] for i in chosen]
                if signature(group) in self.templates:
                    rest = [a for i, a in enumerate(acts) if i not in chosen]
                    return [group, *self._split(rest)] if rest else [group]
        return [[act] for act in acts]

    def realize(self, acts: Sequence[Act], rng: random.Random) -> str:
        """Text saying ``acts``: a template of their signature, else of groups of them."""
        acts = list(acts)
        if not acts:
            return ""
        found = self.templates.get(signature(acts))
        if found:
            return self._fill(rng.choice(found), acts)
        groups: dict[tuple[str, str], list[Act]] = {}
        for act in acts:
            groups.setdefault((act.intent, act.domain), []).append(act)
        if len(groups) > 1:
            return " ".join(t for t in (self.realize(g, rng) for g in groups.values()) if t)
        if len(acts) == 1:
            return self._fallback(acts[0])
        texts, untemplated = [], []
        for group in self._split(acts):
            if len(group) == 1 and signature(group) not in self.templates:
                untemplated.append(group[0])
            else:
                texts.append(self.realize(group, rng))
        phrases = [_constraint_phrase(a) for a in untemplated] if not self.system else []
        if untemplated and all(phrases):
            texts.append(f"I am looking for {_noun(untemplated[0].domain)} {' '.join(phrases)}.")  # type: ignore[arg-type]
        else:
            texts.extend(self._fallback(a) for a in untemplated)
        return " ".join(t for t in texts if t)

    @functools.cached_property
    def _parsed(self) -> list[tuple[str, frozenset[tuple[str, str, str, str]]]]:
        return [(key, frozenset(tuple(part.split("|")) for part in key.split(";"))) for key in self.templates]  # type: ignore[misc]

    def choose(
        self,
        intents: Iterable[str],
        domain: str,
        allowed: Iterable[str],
        required: Iterable[str],
        rng: random.Random,
    ) -> tuple[list[tuple[str, str, str, str]], str] | None:
        """A template saying acts of ``intents`` in ``domain`` about ``allowed`` slots, at least the
        ``required`` ones (``"none"`` allows slotless acts): its act keys and its text.

        Used by reference systems, which choose what to say among what the corpus says; a
        signature is drawn with probability proportional to its number of templates.
        """
        intents, allowed, required = frozenset(intents), frozenset(allowed), frozenset(required)
        key = (intents, domain, allowed, required)
        candidates = self._choices.get(key)
        if candidates is None:
            candidates = [
                (name, parts)
                for name, parts in self._parsed
                if all(p[0] in intents and p[1] == domain and p[2] in allowed for p in parts)
                and required <= {p[2] for p in parts if p[3] == "value" or p[0] == "request"}
            ]
            self._choices[key] = candidates
        if not candidates:
            return None
        weights = [len(self.templates[name]) for name, _ in candidates]
        name, parts = rng.choices(candidates, weights=weights)[0]
        return sorted(parts), rng.choice(self.templates[name])

    @functools.cached_property
    def _choices(self) -> dict[tuple, list]:
        return {}


def _noun(domain: str) -> str:
    return "a place to go" if domain == "attraction" else f"a {domain}"


def _constraint_phrase(act: Act) -> str | None:
    phrase = _USER_FLAGS.get((act.slot, act.value.lower()))
    if phrase is None and act.slot in _USER_PHRASES:
        phrase = _USER_PHRASES[act.slot].format(v=act.value)
    return phrase

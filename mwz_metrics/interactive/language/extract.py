"""Templates built from MultiWOZ 2.1 validation turns (never test), and what a template may say.

Each annotated turn whose values all have a span becomes a template: its text with every span
replaced by a slot marker, filed under the turn's *act signature* (intent, domain, slot and
kind of value of each act). User templates are also filed by where their turn stood
(:data:`MOMENTS`), and kept only when every sentence says one of their acts, no value or domain
but theirs is left in their words, and they fit where they stood (a greeting only opens a
dialogue; an opening never reads as a reply). :mod:`.banks` says acts with them; the
words are judged by :mod:`.lexicon`, the moments by :mod:`.moments`.

User templates carry the values' markers (``[hotel-area]``) and are filled with the goal's
values. System templates write placeholders in mwzeval's ``[value_*]`` vocabulary instead of
values: the reference systems speak delexicalized text, as the systems under test do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mwz_metrics.interactive.acts import Act, from_dataset
from mwz_metrics.interactive.language.lexicon import (
    GENERIC,
    LEFTOVER,
    MARKER,
    MISPLACED,
    OFFERS_MORE,
    VALUE_SLOTS,
    asks_unasked,
    named_domains,
    says_only_its_acts,
    value_kind,
)
from mwz_metrics.interactive.language.moments import MOMENTS, fits_moment, user_moment
from mwz_metrics.interactive.vocabulary import DONTCARE_SPELLINGS, NO_VALUE, SLOT_PLACEHOLDERS
from mwz_metrics.records.corpus import dialogue_turns, is_system_turn, is_user_turn, span_bounds

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
    name = SLOT_PLACEHOLDERS.get(act.slot)
    return f"[{name}]" if name else None


def _template(words: list[str], acts: list[Act], spans: Sequence[Mapping[str, Any]], *, system: bool) -> str | None:
    """The turn's text with each value's span replaced by its marker; None if a value has no span."""
    by_act: dict[tuple[str, str, str], tuple[int, int]] = {}
    for span in spans:
        domain, _, intent = str(span["act"]).partition("-")
        key = (intent.lower(), domain.lower(), str(span["slot"]).lower())
        start, end = span_bounds(span)
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


def _annotated_values(dialogues: Iterable[Mapping[str, Any]]) -> re.Pattern | None:
    """One pattern matching every value the turns annotate (three letters or more; annotations of
    plain words such as "all", "there" or "in town" are no values)."""
    values: set[str] = set()
    for dialogue in dialogues:
        for turn in dialogue_turns(dialogue):
            for act in from_dataset(turn["dialogue_acts"]):
                value = detokenize(act.value.lower())
                if act.slot not in VALUE_SLOTS or len(value) < 3 or value in NO_VALUE | DONTCARE_SPELLINGS:
                    continue
                if not set(re.findall(r"[a-z']+", value)) <= GENERIC:
                    values.add(value)
    if not values:
        return None
    alternatives = "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\b")


def _usable(turn: Mapping[str, Any], acts: list[Act], *, system: bool) -> str | None:
    """The template of an annotated turn, or None when its values cannot all be marked."""
    keys = [(a.intent, a.domain, a.slot) for a in acts if value_kind(a) == "value"]
    if len(keys) != len(set(keys)):
        return None  # two values of one slot ("3 or 4 stars"): not fillable
    return _template(turn["utterance"].split(), acts, turn["spans"], system=system)


def build_user_bank(dialogues: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, list[str]]]:
    """Templates of the user turns of ``dialogues``: ``{moment: {act signature: [template]}}``.

    A turn is kept when every value it annotates has a span, no other value or domain is left in
    its words, every sentence says one of its acts, and it fits where it stands (:func:`fits_moment`).
    """
    dialogues = list(dialogues)
    values = _annotated_values(dialogues)
    bank: dict[str, dict[str, list[str]]] = {moment: {} for moment in MOMENTS}
    for dialogue in dialogues:
        seen: set[str] = set()
        system_before: list[Act] = []
        said = dialogue_turns(dialogue)
        for index, turn in enumerate(t for t in said if is_user_turn(t)):
            position = said.index(turn)
            if position > 0:
                system_before = from_dataset(said[position - 1]["dialogue_acts"])
            acts = from_dataset(turn["dialogue_acts"])
            moment = user_moment(index, acts, system_before, seen)
            seen |= {a.domain for a in acts if a.domain not in ("general", "booking")}
            if not acts:
                continue
            template = _usable(turn, acts, system=False)
            if not template:
                continue
            words = MARKER.sub(" ", template).lower()
            if LEFTOVER.search(words) or (values is not None and values.search(words)):
                continue  # a value the annotation missed, or an alternative
            if named_domains(template) - {a.domain for a in acts}:
                continue  # it names another domain
            if not says_only_its_acts(template, acts) or asks_unasked(template, acts):
                continue  # words its acts do not say
            if not fits_moment(template, moment, {a.domain for a in acts}):
                continue
            found = bank[moment].setdefault(signature(acts), [])
            if template not in found:
                found.append(template)
    return {moment: {key: bank[moment][key] for key in sorted(bank[moment])} for moment in MOMENTS}


def build_system_bank(dialogues: Iterable[Mapping[str, Any]]) -> dict[str, list[str]]:
    """Templates of the system turns of ``dialogues``, by act signature (placeholders for values).

    A turn is kept when every value it annotates has a span, no other value is left in its words
    ("the closest to 19:30", "picked up from rosa's bed and breakfast"), no placeholder stands where
    another slot's value goes ("their telephone number is [value_name]"), every sentence says one of
    its acts, and an offer of more help or of a booking asks.
    """
    dialogues = list(dialogues)
    values = _annotated_values(dialogues)
    bank: dict[str, list[str]] = {}
    for dialogue in dialogues:
        for turn in dialogue_turns(dialogue):
            if not is_system_turn(turn):
                continue
            acts = from_dataset(turn["dialogue_acts"])
            if not acts:
                continue
            template = _usable(turn, acts, system=True)
            if not template:
                continue
            words = MARKER.sub(" ", template).lower()
            if LEFTOVER.search(words) or (values is not None and values.search(words)) or MISPLACED.search(template):
                continue
            if not says_only_its_acts(template, acts, system=True):
                continue  # "Yeah, let me know the winning numbers on the next lottery, lol."
            if {a.intent for a in acts} == {"reqmore"} and not OFFERS_MORE.search(template):
                continue  # "what would you like to know?" asks about the venue, not for more
            if {(a.intent, a.domain, a.slot) for a in acts} == {("inform", "booking", "none")} and "?" not in template:
                continue  # "I will book that for you now" offers nothing
            found = bank.setdefault(signature(acts), [])
            if template not in found:
                found.append(template)
    return {key: bank[key] for key in sorted(bank)}

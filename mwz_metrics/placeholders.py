"""Placeholders of every delexicalization style read alike, and MultiWOZ 2.1's spans turned into them.

``[value_name]``, ``[restaurant_name]``, ``[NAME]`` and mwzeval's normalized bare ``NAME`` are one
placeholder, ``[NAME]`` (a slot of the unified ontology, :data:`mwz_plugins.ontology.ONTOLOGY_SLOTS`):
the coherence and fluency models, the system-act reader and the tokenizers read them so. The
placeholder names come from the registered delexicalization styles.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from typing import Any

from mwz_plugins.ontology import PLACEHOLDER_RE

# MultiWOZ 2.1 dialogue-act slot names (span_info) -> unified ontology slot.
ACT_SLOT_TO_ONTOLOGY = {
    "addr": "ADDRESS",
    "area": "AREA",
    "arrive": "TIME",
    "leave": "TIME",
    "time": "TIME",
    "day": "DAY",
    "dest": "PLACE",
    "depart": "PLACE",
    "food": "FOOD",
    "name": "NAME",
    "phone": "PHONE",
    "post": "POST",
    "price": "PRICE",
    "ticket": "PRICE",
    "fee": "PRICE",
    "ref": "REFERENCE",
    "choice": "COUNT",
    "stars": "COUNT",
    "people": "COUNT",
    "stay": "COUNT",
    "type": "TYPE",
    "car": "TYPE",
    "id": "TRAINID",
    "internet": "INTERNET",
    "parking": "PARKING",
    "department": "DEPARTMENT",
    "open": "OPEN",
}
_SKIPPED_VALUES = {"none", "dontcare", "?", ""}


def delexicalize_21(text: str, span_info: Sequence[Sequence[Any]]) -> str:
    """Replace 2.1 ``span_info`` word spans (inclusive word offsets) by ``[SLOT]``.

    Spans are applied in start order; an overlapping span, a span of an unknown
    slot or of a non-value (``none``, ``dontcare``, ``?``) is skipped.
    """
    words = text.split()
    spans = []
    for _act, slot, value, start, end in span_info:
        target = ACT_SLOT_TO_ONTOLOGY.get(str(slot).lower())
        if target is None or str(value).strip().lower() in _SKIPPED_VALUES:
            continue
        if not (0 <= int(start) <= int(end) < len(words)):
            continue
        spans.append((int(start), int(end), target))
    pieces: list[str] = []
    position = 0
    for start, end, target in sorted(spans, key=lambda s: (s[0], s[1])):
        if start < position:
            continue
        pieces.extend(words[position:start])
        pieces.append(f"[{target}]")
        position = end + 1
    pieces.extend(words[position:])
    return " ".join(pieces)


@functools.lru_cache(maxsize=1)
def _placeholder_map() -> dict[str, str]:
    from mwz_plugins import get_registry

    return dict(get_registry().placeholder_map())


def normalize_placeholders(text: str) -> str:
    """Known ``[name]`` placeholders -> ``[SLOT]``, a plural ``s``/``es`` dropped (as mwzeval does);
    unknown ones kept, lowercased. A hyphenated suffix is the next word's (``[stars]-star``): kept."""
    mapping = _placeholder_map()

    def replace(match: re.Match) -> str:
        name = match.group(1).lower()
        slot = mapping.get(name) or (name.upper() if name.upper() in _ontology() else None)
        suffix = match.group(2) if match.group(2).startswith("-") else ""
        return (f"[{slot}]" if slot else f"[{name}]") + suffix

    return PLACEHOLDER_RE.sub(replace, text)


@functools.lru_cache(maxsize=1)
def _ontology() -> frozenset[str]:
    from mwz_plugins.ontology import ONTOLOGY_SLOTS

    return ONTOLOGY_SLOTS


@functools.lru_cache(maxsize=1)
def _bare_slot_re() -> re.Pattern:
    slots = "|".join(sorted(_ontology(), key=len, reverse=True))
    return re.compile(rf"(?<![\[\w])({slots})(?:es|s)?(?![\]\w])")


def canonical_placeholders(text: str) -> str:
    """Every placeholder style in one form, ``[SLOT]``: ``[value_name]``, ``[restaurant_name]``,
    ``[NAME]`` and mwzeval's normalized bare ``NAME`` (an all-capitals ontology slot name) alike."""
    return _bare_slot_re().sub(r"[\1]", normalize_placeholders(text))


def has_placeholders(text: str) -> bool:
    """Whether ``text`` holds a placeholder any style (or the ontology) knows."""
    mapping = _placeholder_map()
    return any(
        m.group(1).lower() in mapping or m.group(1).upper() in _ontology() for m in PLACEHOLDER_RE.finditer(text)
    )

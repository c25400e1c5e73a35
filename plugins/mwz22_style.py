"""Built-in plugin: the delexicalization style ``mwz22``.

The canonical style of Nekvinda & Dusek (2021): system turns of MultiWOZ 2.2 with
every annotated span replaced by ``[slot]`` (spans sorted by start; a span
overlapping the previous one, or whose value is ``dontcare``, is skipped). Its
vocabulary covers every placeholder name mwzeval maps onto the ontology, so
hypotheses delexicalized with any of those names normalize the same way.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mwz_plugins.hookspecs import hookimpl
from mwz_plugins.registry import DelexStyle

VERSION = "1.0.0"

_VOCABULARY: dict[str, tuple[str, ...]] = {
    "ADDRESS": (
        "address",
        "attraction_address",
        "hospital_address",
        "hotel_address",
        "police_address",
        "restaurant_address",
        "value_address",
    ),
    "AREA": ("area", "value_area", "attraction_area", "restaurant_area", "hotel_area"),
    "TIME": (
        "booktime",
        "value_time",
        "time",
        "duration",
        "value_duration",
        "train_duration",
        "arriveby",
        "taxi_arriveby",
        "value_arrive",
        "arrive by",
        "train_arriveby",
        "leaveat",
        "value_leave",
        "leave at",
        "train_leaveat",
        "train_leave",
        "train_arrive",
        "taxi_leaveat",
    ),
    "DAY": ("day", "value_day", "bookday", "train_day"),
    "PLACE": (
        "destination",
        "value_destination",
        "departure",
        "value_departure",
        "value_place",
        "train_departure",
        "train_destination",
        "taxi_destination",
        "taxi_departure",
    ),
    "FOOD": ("food", "value_food", "restaurant_food"),
    "NAME": (
        "name",
        "attraction_name",
        "hospital_name",
        "hotel_name",
        "police_name",
        "restaurant_name",
        "value_name",
    ),
    "PHONE": (
        "phone",
        "attraction_phone",
        "hospital_phone",
        "hotel_phone",
        "police_phone",
        "restaurant_phone",
        "taxi_phone",
        "value_phone",
    ),
    "POST": (
        "postcode",
        "attraction_postcode",
        "hospital_postcode",
        "hotel_postcode",
        "restaurant_postcode",
        "value_postcode",
        "police_postcode",
    ),
    "PRICE": (
        "price",
        "value_price",
        "entrancefee",
        "entrance fee",
        "train_price",
        "attraction_entrancefee",
        "pricerange",
        "value_pricerange",
        "price range",
        "restaurant_pricerange",
        "hotel_pricerange",
        "attraction_pricerange",
        "attraction_price",
    ),
    "REFERENCE": (
        "ref",
        "attraction_reference",
        "hotel_reference",
        "restaurant_reference",
        "train_reference",
        "value_reference",
        "reference",
    ),
    "COUNT": (
        "stars",
        "value_stars",
        "hotel_stars",
        "bookstay",
        "value_stay",
        "stay",
        "bookpeople",
        "value_people",
        "people",
        "choice",
        "value_choice",
        "value_count",
        "attraction_choice",
        "hotel_choice",
        "restaurant_choice",
        "train_choice",
    ),
    "TYPE": (
        "type",
        "taxi_type",
        "taxi_car",
        "value_type",
        "value_car",
        "car",
        "restaurant_type",
        "hotel_type",
        "attraction_type",
    ),
    "TRAINID": ("trainid", "train_id", "value_id", "id", "train", "train_trainid"),
    "INTERNET": ("internet", "hotel_internet"),
    "PARKING": ("parking", "hotel_parking"),
    "ID": ("hospital_id", "attraction_id", "restaurant_id"),
    "DEPARTMENT": ("value_department", "department", "hospital_department"),
    "OPEN": ("openhours",),
}

PLACEHOLDERS: dict[str, str] = {name: slot for slot, names in _VOCABULARY.items() for name in names}


def delexicalize(utterance: str, spans: Sequence[Mapping[str, Any]]) -> str:
    """Replace annotated spans by ``[slot]`` as mwzeval builds its 2.2 references."""
    pieces: list[str] = []
    previous_end = 0
    for span in sorted(spans, key=lambda s: s["start"]):  # stable, like mwzeval's sort
        start, end = span["start"], span["end"]
        if start < previous_end or span["value"] == "dontcare":
            continue
        pieces.append(utterance[previous_end:start])
        pieces.append(f"[{span['slot']}]")
        previous_end = end
    pieces.append(utterance[previous_end:])
    return "".join(pieces)


STYLE = DelexStyle(
    name="mwz22",
    version=VERSION,
    placeholders=PLACEHOLDERS,
    delexicalize=delexicalize,
    reference_source="2.2",
    description="MultiWOZ 2.2 span annotations -> [slot] placeholders (mwzeval's references)",
)


@hookimpl
def mwz_register_delex_styles(register):
    """Register the ``mwz22`` style."""
    register(STYLE)

"""The interactive room's vocabulary: one home for what its parts name alike.

Domains and which of them offer or book, the values that are no value, the intents that inform or
announce a booking, mwzeval's placeholders and the act slots they say, the booking details the
reference systems make up, and F1. The user, the systems, the scoring and the diagnostics import
these instead of spelling them again (a second copy drifts: "venue domains" had train in one place
and not in another; "no value" had four definitions).

Where the ``multiwoz`` room (mwzeval's algorithm) names the same fact, it is imported from there;
where mwzeval differs on purpose, the comment says so.
"""

from __future__ import annotations

import hashlib

from mwz_datasets.goals import BOOKABLE_DOMAINS
from mwz_metrics.multiwoz.success import OFFER_DOMAINS as OFFER_DOMAINS  # the venues and the train
from mwz_metrics.records.acts import SERVICE_DOMAINS

# -- domains -----------------------------------------------------------------------------------

DOMAINS = SERVICE_DOMAINS  # the act grammar's (mwz_metrics.records.acts), which validates records with them
VENUE_DOMAINS = ("restaurant", "hotel", "attraction")  # a venue, offered by its name
# What is offered, a venue by its name or a train by its id, is OFFER_DOMAINS: mwzeval's "venue domains",
# defined once in multiwoz/success.py (the domains whose offered entity Inform checks).
# A booking needs these details (act slots); the user's goal names them under ``book``.
BOOK_SLOTS = {"restaurant": ("people", "day", "time"), "hotel": ("people", "day", "stay"), "train": ("people",)}
BOOKING_DOMAINS = tuple(BOOK_SLOTS)  # a booking with a reference number (a taxi's is its car and phone)
# mwzeval's order of a dialogue's booked domains (mwz_datasets.goals.BOOKABLE_DOMAINS). It lists the
# attraction, which books nothing: mwzeval's format, on purpose; a simulator reports its bookings so.
MWZEVAL_BOOKING_ORDER: tuple[str, ...] = BOOKABLE_DOMAINS

# -- values ------------------------------------------------------------------------------------

NO_VALUE = frozenset({"", "?", "none"})  # an act without a value: slotless, or a request
DONTCARE = "dontcare"  # the user does not mind (2.1's annotation)
NOT_A_VALUE = NO_VALUE | {DONTCARE}  # nothing to use or to check: no value, or no preference
# How 2.1's annotations and users spell "don't care" (the templates' kind of value). mwzeval's database
# query has its own list (mwz_datasets.database.DONTCARE_VALUES, with "not mentioned"): mwzeval's, on purpose.
DONTCARE_SPELLINGS = frozenset(
    {"dontcare", "do nt care", "dont care", "don't care", "do n't care", "any", "does not matter"}
)
# A belief-state value that constrains nothing (mwzeval's states write "not mentioned"; a model, "any").
NO_CONSTRAINT = NOT_A_VALUE | {"not mentioned", "any"}

# -- intents -----------------------------------------------------------------------------------

# Acts that give the user a value: what ConvLab's inform precision/recall/F1 counts.
INFORMING = frozenset({"inform", "recommend", "select", "offerbook", "offerbooked"})
# Acts that announce a booking (a reference number in any act does too: see the tracker).
BOOKING_INTENTS = frozenset({"book", "offerbooked"})

# -- placeholders ------------------------------------------------------------------------------

# Act slot -> the mwzeval placeholder a system template writes for its value (``[value_name]``...).
SLOT_PLACEHOLDERS = {
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
# The other way, for any system's text: a placeholder -> the act slots whose values it may say (in the
# order a value is looked for). Other systems write placeholders the templates never do (``[value_count]``).
PLACEHOLDER_SLOTS = {
    "value_name": ("name",),
    "value_address": ("addr",),
    "value_phone": ("phone",),
    "value_postcode": ("post",),
    "value_reference": ("ref",),
    "value_id": ("id",),
    "value_price": ("ticket", "price", "fee"),
    "value_pricerange": ("price",),
    "value_leave": ("leave",),
    "value_arrive": ("arrive",),
    "value_time": ("time", "leave", "arrive"),
    "value_duration": ("time",),
    "value_day": ("day",),
    "value_departure": ("depart",),
    "value_destination": ("dest",),
    "value_place": ("depart", "dest"),
    "value_food": ("food",),
    "value_area": ("area",),
    "value_type": ("type",),
    "value_car": ("car",),
    "value_choice": ("choice",),
    "value_count": ("choice", "people", "stay", "stars"),
    "value_people": ("people",),
    "value_stay": ("stay",),
    "value_stars": ("stars",),
}
# The same for a placeholder read as mwzeval's ontology slot (any style of placeholder normalized by
# mwzeval's mapping, as the system-act reader sees them: ``[value_phone]``, ``[hotel_phone]`` -> PHONE).
ONTOLOGY_PLACEHOLDER_SLOTS = {
    "NAME": ("name",),
    "ADDRESS": ("addr",),
    "PHONE": ("phone",),
    "POST": ("post",),
    "REFERENCE": ("ref",),
    "TRAINID": ("id",),
    "PRICE": ("price", "ticket", "fee"),
    "TIME": ("time", "leave", "arrive"),
    "DAY": ("day",),
    "PLACE": ("depart", "dest"),
    "FOOD": ("food",),
    "AREA": ("area",),
    "TYPE": ("type", "car"),
    "COUNT": ("choice", "stars", "people", "stay"),
    "INTERNET": ("internet",),
    "PARKING": ("parking",),
    "DEPARTMENT": ("department",),
    "OPEN": ("open",),
}

# -- made-up booking details (the reference systems') --------------------------------------------

TAXI_CARS = ("black toyota", "white skoda", "red bmw", "yellow honda", "blue ford", "grey audi", "black lexus")


def booking_digest(*parts: str) -> str:
    """A booking's digest (upper-case hex): the same booking, the same reference, car and phone."""
    return hashlib.sha256(":".join(parts).encode()).hexdigest().upper()


def reference_number(*parts: str) -> str:
    """The ``oracle``'s reference number: eight hex digits of the booking's digest."""
    return booking_digest(*parts)[:8]


def multiwoz_reference(*parts: str) -> str:
    """A reference number as MultiWOZ's look (five letters and digits, then three digits): the ``llm``
    system's. Kept apart from :func:`reference_number` so that both systems' sessions stay as they were."""
    digest = booking_digest(*parts)
    return digest[:5] + str(int(digest[5:9], 16) % 1000).zfill(3)


def taxi_car(code: int, fleet: int = len(TAXI_CARS)) -> str:
    """The car of a taxi booking's ``code``, from the first ``fleet`` cars (the ``llm`` system knows six)."""
    return TAXI_CARS[code % fleet]


def taxi_phone(code: int) -> str:
    """A taxi's mobile number from a booking's ``code``: 07 and nine digits."""
    return "07" + str(code % 10**9).zfill(9)


# -- figures -----------------------------------------------------------------------------------


def precision_recall_f1(tp: float, fp: float, fn: float) -> tuple[float, float, float]:
    """Precision, recall and F1 (0 where undefined) of true and false positives and false negatives."""
    precision = tp / (tp + fp) if tp + fp else 0.0
    recall = tp / (tp + fn) if tp + fn else 0.0
    return precision, recall, 2 * precision * recall / (precision + recall) if precision + recall else 0.0

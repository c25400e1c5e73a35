"""The unified slot ontology that every delexicalization style maps onto.

These are mwzeval's 19 placeholder names (Nekvinda & Dusek, 2021).
"""

import re
from collections.abc import Mapping

ONTOLOGY_SLOTS: frozenset[str] = frozenset(
    {
        "ADDRESS",
        "AREA",
        "TIME",
        "DAY",
        "PLACE",
        "FOOD",
        "NAME",
        "PHONE",
        "POST",
        "PRICE",
        "REFERENCE",
        "COUNT",
        "TYPE",
        "TRAINID",
        "INTERNET",
        "PARKING",
        "ID",
        "DEPARTMENT",
        "OPEN",
    }
)

# Slots whose mention in a response counts as providing a requested attribute
# (Success) or identifying a venue (Inform).
REQUESTABLE_SLOTS: tuple[str, ...] = ("PHONE", "ADDRESS", "POST", "REFERENCE", "TRAINID")

# A dialogue state: domain -> slot -> value (slot names as the state's source writes them).
State = Mapping[str, Mapping[str, str]]

# A placeholder in a delexicalized text, ``[restaurant_name]``, with mwzeval's optional
# plural suffix (``[value_count]s``): group 1 is the name, group 2 the suffix.
PLACEHOLDER_RE = re.compile(r"\[([\w\s\d]+)\](es|s|-s|-es|)")

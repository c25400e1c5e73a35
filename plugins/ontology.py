"""The unified slot ontology that every delexicalization style maps onto.

These are mwzeval's 19 placeholder names (Nekvinda & Dusek, 2021).
"""

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

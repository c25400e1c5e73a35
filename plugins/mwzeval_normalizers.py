"""Built-in plugin: mwzeval's slot-value normalization as the chain ``mwzeval``.

Reproduces ``normalize_state_slot_value`` of mwzeval (Tomiinek/MultiWOZ_Evaluation
@7f19ee0): venue-name aliases (applied to ``name``, ``destination`` and
``departure`` whatever the domain, as mwzeval calls it without one), attraction and
hotel types, food types, times to ``HH:MM``, ``free`` parking/internet to ``yes``,
and the spellings of "don't care" that the database query skips.

Two deliberate differences, both on inputs mwzeval itself mishandles, so that the
conformance contract holds (never raise, idempotent):
- where mwzeval would raise (``int()`` on a malformed ``pm`` time), the value is
  returned unchanged;
- each normalizer is applied until its output stops changing (mwzeval applies it
  once; the two differ only on odd strings such as ``"1 pm."``).
"""

from __future__ import annotations

from collections.abc import Callable

from mwz_plugins.hookspecs import hookimpl
from mwz_plugins.registry import NormalizerChain, ValueNormalizer

VERSION = "1.0.0"

# mwzeval checks the restaurant, hotel and attraction tables in turn; their keys
# are disjoint, so one table gives the same result.
NAME_ALIASES = {
    # restaurant
    "hotel du vin bistro": "hotel du vin and bistro",
    "the river bar and grill": "the river bar steakhouse and grill",
    "nando's": "nandos",
    "city center b and b": "city center north b and b",
    "acorn house": "acorn guest house",
    "caffee uno": "caffe uno",
    "cafe uno": "caffe uno",
    "rosa's": "rosas bed and breakfast",
    "restaurant called two two": "restaurant two two",
    "restaurant 2 two": "restaurant two two",
    "restaurant two 2": "restaurant two two",
    "restaurant 2 2": "restaurant two two",
    "restaurant 1 7": "restaurant one seven",
    "restaurant 17": "restaurant one seven",
    # hotel
    "lime house": "limehouse",
    "cityrooms": "cityroomz",
    "whale of time": "whale of a time",
    "huntingdon hotel": "huntingdon marriott hotel",
    "holiday inn exlpress, cambridge": "express by holiday inn cambridge",
    "university hotel": "university arms hotel",
    "arbury guesthouse and lodge": "arbury lodge guesthouse",
    "bridge house": "bridge guest house",
    "arbury guesthouse": "arbury lodge guesthouse",
    "nandos in the city centre": "nandos city centre",
    # attraction
    "broughton gallery": "broughton house gallery",
    "scudamores punt co": "scudamores punting co",
    "cambridge botanic gardens": "cambridge university botanic gardens",
    "the junction": "junction theatre",
    "trinity street college": "trinity college",
    "christ college": "christ's college",
    "christs": "christ's college",
    "history of science museum": "whipple museum of the history of science",
    "parkside pools": "parkside swimming pool",
    "the botanical gardens at cambridge university": "cambridge university botanic gardens",
    "cafe jello museum": "cafe jello gallery",
}

TYPE_ALIASES = {
    "swimming pool": "swimmingpool",
    "mutliple sports": "multiple sports",
    "night club": "nightclub",
    "guest house": "guesthouse",
}

FOOD_ALIASES = {
    "eriterean": "mediterranean",
    "brazilian": "portuguese",
    "sea food": "seafood",
    "portugese": "portuguese",
    "modern american": "north american",
    "americas": "north american",
    "intalian": "italian",
    "italain": "italian",
    "asian or oriental": "asian",
    "english": "british",
    "australasian": "australian",
    "gastropod": "gastropub",
    "brutish": "british",
    "bristish": "british",
    "europeon": "european",
}

# Whole-string time phrases mwzeval maps directly (after strip + lower).
TIME_PHRASES = {
    "afternoon": "13:00",
    "lunch": "12:00",
    "noon": "12:00",
    "mid-day": "12:00",
    "around lunch time": "12:00",
    "morning": "08:00",
    "seven o'clock tomorrow evening": "07:00",
    "three forty five p.m": "15:45",
    "one thirty p.m.": "13:30",
    "six fourty five": "06:45",
    "eight thirty": "08:30",
}
TIME_PREFIXES = (("one o'clock p.m", "13:00"), ("ten o'clock a.m", "10:00"))

DONTCARE_VARIANTS = frozenset({"dontcare", "not mentioned", "don't care", "dont care", "do n't care", "do not care"})

NAME_SLOTS = frozenset({"name", "destination", "departure"})
TIME_SLOTS = frozenset({"arrive", "leave", "arriveby", "leaveat", "time"})
BOOLEAN_SLOTS = frozenset({"parking", "internet"})


def canonical_name(value: str) -> str:
    """mwzeval's venue name: lowercased, ``&`` as ``and``, known aliases resolved."""
    name = value.strip().lower().replace(" & ", " and ").replace("&", " and ").replace(" '", "'")
    return NAME_ALIASES.get(name, name)


# mwzeval @1d03eb4 (January 2023, PRs #15-#17): after the ``&``/``'`` replacements
# ``bed and breakfast`` becomes ``b and b``, and two more hotel aliases.
NAME_ALIASES_2023 = {
    **NAME_ALIASES,
    "a and b guest house": "a and b guesthouse",
    "acorn guesthouse": "acorn guest house",
}


def canonical_name_2023(value: str) -> str:
    """mwzeval @1d03eb4's ``name_to_canonical``: @7f19ee0's plus the 2023 hotel-name fixes."""
    name = value.strip().lower().replace(" & ", " and ").replace("&", " and ").replace(" '", "'")
    name = name.replace("bed and breakfast", "b and b")
    return NAME_ALIASES_2023.get(name, name)


def canonical_type(value: str) -> str:
    """mwzeval's venue type spelling."""
    return TYPE_ALIASES.get(value, value)


def canonical_food(value: str) -> str:
    """mwzeval's food type spelling."""
    food = value.strip().lower()
    return FOOD_ALIASES.get(food, food)


def _strip_suffix(text: str, suffix: str) -> str:
    return text[: -len(suffix)].strip() if text.endswith(suffix) else text


def canonical_time(value: str) -> str:
    """mwzeval's ``time_to_canonical``: the database's ``HH:MM`` where it can."""
    time = value.strip().lower()
    if time in TIME_PHRASES:
        return TIME_PHRASES[time]
    for prefix, canonical in TIME_PREFIXES:
        if time.startswith(prefix):
            return canonical
    if time.startswith("by"):
        time = time[3:]
    if time.startswith("after"):
        time = time[5:].strip()
    if time.startswith("afer"):
        time = time[4:].strip()
    time = _strip_suffix(time, "am")
    time = _strip_suffix(time, "a.m.")
    if time.endswith("pm") or time.endswith("p.m."):
        time = _strip_suffix(time, "pm")
        time = _strip_suffix(time, "p.m.")
        parts = time.split(":")
        if len(parts) == 2:
            return str(int(parts[0]) + 12) + ":" + parts[1]
        if len(parts) == 1 and parts[0].isdigit():
            return str(int(parts[0]) + 12) + ":00"
    if not time:
        return "00:00"
    if time[-1] in ".,?":
        time = time[:-1]
    if time.isdigit() and len(time) == 4:
        return time[:2] + ":" + time[2:]
    if time.isdigit():
        return time.zfill(2) + ":00"
    if ":" in time:
        time = "".join(time.split(" "))
    if len(time) == 4 and time[1] == ":":
        hours, minutes = time.split(":")
        return hours.zfill(2) + ":" + minutes
    return time


def _stable(function: Callable[[str], str]) -> Callable[[str], str]:
    """Apply ``function`` until its output stops changing; unchanged if it raises."""

    def apply(value: str) -> str:
        for _ in range(16):
            try:
                new = function(value)
            except (ValueError, IndexError):
                return value
            if new == value:
                return new
            value = new
        return value

    apply.__name__ = function.__name__
    apply.__doc__ = function.__doc__
    return apply


_name = _stable(canonical_name)
_name_2023 = _stable(canonical_name_2023)
_type = _stable(canonical_type)
_food = _stable(canonical_food)
_time = _stable(canonical_time)


def normalize_name(domain: str | None, slot: str, value: str) -> str:
    """Venue names as mwzeval @7f19ee0 canonicalizes them (``name``/``destination``/``departure``)."""
    return _name(value) if slot in NAME_SLOTS else value


def normalize_name_2023(domain: str | None, slot: str, value: str) -> str:
    """Venue names as mwzeval @1d03eb4 canonicalizes them (``name``/``destination``/``departure``)."""
    return _name_2023(value) if slot in NAME_SLOTS else value


def normalize_type(domain: str | None, slot: str, value: str) -> str:
    """The ``type`` slot's value as mwzeval spells it."""
    return _type(value) if slot == "type" else value


def normalize_food(domain: str | None, slot: str, value: str) -> str:
    """The ``food`` slot's value as mwzeval spells it."""
    return _food(value) if slot == "food" else value


def normalize_time(domain: str | None, slot: str, value: str) -> str:
    """Times (``arrive``, ``leave``, ``time``) as ``HH:MM``, as mwzeval writes them."""
    return _time(value) if slot in TIME_SLOTS else value


def normalize_boolean(domain: str | None, slot: str, value: str) -> str:
    """``free`` as ``yes`` for the boolean slots (internet, parking)."""
    return "yes" if slot in BOOLEAN_SLOTS and value == "free" else value


def normalize_dontcare(domain: str | None, slot: str, value: str) -> str:
    """The exact spellings mwzeval's database query skips, mapped to ``dontcare``."""
    return "dontcare" if value in DONTCARE_VARIANTS else value


NORMALIZERS = (
    ValueNormalizer("mwzeval-name", VERSION, normalize_name, "venue-name aliases for name/destination/departure"),
    ValueNormalizer("mwzeval-type", VERSION, normalize_type, "attraction and hotel type spellings"),
    ValueNormalizer("mwzeval-food", VERSION, normalize_food, "food type spellings"),
    ValueNormalizer("mwzeval-time", VERSION, normalize_time, "times to HH:MM"),
    ValueNormalizer("mwzeval-boolean", VERSION, normalize_boolean, "parking/internet 'free' -> 'yes'"),
    ValueNormalizer("mwzeval-dontcare", VERSION, normalize_dontcare, "don't-care spellings -> 'dontcare'"),
    ValueNormalizer(
        "mwzeval-name-2023",
        VERSION,
        normalize_name_2023,
        "venue-name aliases of mwzeval @1d03eb4 (bed and breakfast -> b and b, two hotel aliases)",
    ),
)

# Which mwzeval commit each chain reproduces; the signature names it.
MWZEVAL_COMMITS = {"mwzeval": "7f19ee0", "mwzeval-2023": "1d03eb4"}
_OTHER_STEPS = ("mwzeval-type", "mwzeval-food", "mwzeval-time", "mwzeval-boolean")


@hookimpl
def mwz_register_value_normalizers(register):
    """Register mwzeval's normalizers and its two chains, ``mwzeval`` and ``mwzeval-2023``."""
    for normalizer in NORMALIZERS:
        register(normalizer)
    register(
        NormalizerChain(
            "mwzeval",
            VERSION,
            ("mwzeval-name", *_OTHER_STEPS),
            "mwzeval @7f19ee0's normalize_state_slot_value, for states and goals",
        )
    )
    # @1d03eb4 also adds phone numbers of three restaurants to its database copy;
    # phones are never query constraints, so they cannot change a score: no data here.
    register(
        NormalizerChain(
            "mwzeval-2023",
            VERSION,
            ("mwzeval-name-2023", *_OTHER_STEPS),
            "mwzeval @1d03eb4's (January 2023) normalize_state_slot_value, for states and goals",
        )
    )

"""The user-act reader: what a user's words say, for reference systems that hear words.

A user that writes words only (the ``llm`` simulator, a person, or any simulator when the run does not
give its acts) leaves the reference systems nothing to read: they fold their policy over the user's
acts. This reader writes acts ``[intent, domain, slot, value]`` from a user turn's text, in MultiWOZ
2.1's act vocabulary, as the reference systems use them:

- **values** (``inform``): found in the text by matching the venue database's values (names, foods,
  areas, price ranges, types, train stations), the values MultiWOZ 2.1 validation users are annotated
  with, days, times (``17:15``, ``5 pm``) and numbers (``4``, ``four``, ``4-star``); each value found
  is then given its slot and domain (``train-leave``, ``restaurant-time``, ``taxi-dest``, ``none``: not
  a value of the user's goal) by a logistic regression (:mod:`..user.linear`) over its kind, the words
  around it, the domain words of its sentence, the domain talked about and what the system asked;
- **the turn** (another regression over the words, word pairs and triples with the values written as
  their kinds): the slots asked for (``request``), the slots the user does not mind (``dontcare``),
  free wifi or parking wanted, a domain named without a value (``inform DOMAIN none``), thanks,
  goodbye, a greeting, and the domain(s) the turn is about (which gives requests their domain).

It is trained on the user turns of MultiWOZ 2.1 **validation** (their annotated acts and spans), never
test, and measured on the test user turns (:func:`measure`; ``mwz simulator user-reader``). The
interactive context builds it once and caches its model under ``$MWZ_CACHE``, keyed by the validation
file's checksum, the database's and this code's (``InteractiveContext.user_reader``).

The reference systems read a user turn through it wherever the turn comes without acts, when made with
``--system-option hear=words`` (:mod:`.reference`).
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
import threading
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from mwz_datasets.database import SERVICE_VENUES
from mwz_metrics.interactive.acts import Act, from_dataset
from mwz_metrics.interactive.language.lexicon import DOMAIN_PATTERNS, DONTCARE_WORDS, GENERIC, INTRO_PATTERNS
from mwz_metrics.interactive.vocabulary import DOMAINS, DONTCARE_SPELLINGS, precision_recall_f1
from mwz_metrics.records.corpus import dialogue_turns, is_user_turn, span_bounds
from mwz_metrics.tokens import tokenize

VERSION = "1.0.0"

# Training settings (chosen on a split of the validation turns: 80% to train, 20% to score).
EPOCHS = 5
LEARNING_RATE = 0.2
L2 = 3e-3
MIN_COUNT = 2
THRESHOLD = 0.4  # a turn label is said from this probability on
SEED = 0

NONE = "none"  # a value found that is no value of the user's (a mention's label)
_VENUES = ("restaurant", "hotel", "attraction")
_PLACES = ("train-depart", "train-dest", "taxi-depart", "taxi-dest")
_TAXI_PLACES = ("taxi-depart", "taxi-dest")
# What a value found may be, by its kind (the labels a mention is chosen among, besides ``none``).
_KIND_LABELS: dict[str, tuple[str, ...]] = {
    "area": tuple(f"{d}-area" for d in _VENUES),
    "price": ("restaurant-price", "hotel-price"),
    "food": ("restaurant-food",),
    "day": ("restaurant-day", "hotel-day", "train-day"),
    "time": ("restaurant-time", "train-leave", "train-arrive", "taxi-leave", "taxi-arrive"),
    "number": ("restaurant-people", "hotel-people", "train-people", "hotel-stay", "hotel-stars"),
    "station": _PLACES,
    "department": ("hospital-department",),
}
_SLOT_KINDS = {"area": "area", "price": "price", "food": "food", "day": "day", "department": "department"}
_NUMBER_WORDS = {
    w: str(i) for i, w in enumerate("zero one two three four five six seven eight nine ten eleven twelve".split())
}
_DAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
_AREAS = {"north": "north", "south": "south", "east": "east", "west": "west", "centre": "centre", "center": "centre"}
_AREAS.update({"city centre": "centre", "town centre": "centre", "city center": "centre", "town center": "centre"})
_PRICES = {"cheap": "cheap", "moderate": "moderate", "moderately priced": "moderate", "expensive": "expensive"}
_PRICES.update({"moderately-priced": "moderate", "inexpensive": "cheap", "budget": "cheap", "pricey": "expensive"})
_HOTEL_TYPES = {"hotel": "hotel", "guesthouse": "guesthouse", "guest house": "guesthouse", "guesthouses": "guesthouse"}
_HOTEL_TYPES.update({"hotels": "hotel", "guest houses": "guesthouse"})
_TYPE_SPELLINGS = {"concerthall": "concert hall", "swimmingpool": "swimming pool", "nightclub": "night club"}
_STATION_COLUMNS = ("departure", "destination")
_FOOD_HEADS = frozenset({"food", "cuisine", "restaurant", "restaurants", "dishes"})
_NOT_FOOD = frozenset(
    """a an the some any that this these those my our your their its his her good nice great fine local particular
    specific certain different other another same new decent cheap cheaper cheapest expensive moderate moderately
    priced pricey budget affordable reasonably reasonable upscale fancy luxury luxurious type kind sort of for to in
    at on with and or but also serves serve serving served eat eating find book like want need looking recommend
    place restaurant food star popular best favorite favourite quality real tasty delicious authentic which what
    more less much many lots lot serious whole quick small big large little famous top high low well very really
    just only please is are be was were it they there here i you we he she me us them not no yes any one called
    named try trying about get got have has had some""".split()
)
_PLACE_WORDS = ("hotel", "restaurant", "attraction", "museum", "college", "station")
_PLACE_REFS = frozenset(f"the {word}" for word in _PLACE_WORDS)  # "from the hotel": a taxi's end, by what it is
_TIME = re.compile(r"^([01]?\d|2[0-4])[:.]([0-5]\d)(am|pm|a\.m\.|p\.m\.)?$")
_HOUR = re.compile(r"^(1[0-2]|0?[1-9])(?:[:.]([0-5]\d))?(am|pm|a\.m\.|p\.m\.)$")
_STARS = re.compile(r"^(\d)-?stars?$")
_DIGITS = re.compile(r"^\d{1,2}$")
_AMPM = {"am": "am", "pm": "pm", "a.m.": "am", "p.m.": "pm", "a.m": "am", "p.m": "pm"}
_SENTENCE_END = {".", "?", "!"}
_DONTCARE = re.compile(DONTCARE_WORDS)
_FLAGS = {"internet": re.compile(r"\b(internet|wifi|wi-fi|wi fi)\b"), "parking": re.compile(r"\bpark")}
# "I don't mind about the stars": 2.1's annotations say it too rarely (32 validation turns) to be learnt,
# so a sentence that says it gives "don't care" to the slot it names, else to the one the system asked for.
_NO_PREFERENCE = re.compile(
    r"n't (care|mind|matter)|\bnot (care|mind|matter|picky|particular|fussy|important|bothered)"
    r"|\bno (preference|particular|specific|real preference)|\bwhatever\b|\beither (way|one|is fine|will do)"
    r"|\bdoes not matter|\bany (\w+ ){0,2}(is fine|will do|would be fine|is okay|is ok|works)|\bdo nt care"
    r"|\bdoesnt matter|\bopen to any|\banywhere\b"
)
_DONTCARE_SLOTS = {
    "area": re.compile(r"\b(area|part of town|parts of town|location|side|where|anywhere)\b"),
    "price": re.compile(r"\b(price|prices|cost|expensive|cheap|budget|pricerange)\b"),
    "type": re.compile(r"\b(type|kind|sort)\b"),
    "stars": re.compile(r"\b(star|stars|rating)\b"),
    "internet": _FLAGS["internet"],
    "parking": _FLAGS["parking"],
    "food": re.compile(r"\b(food|cuisine)\b"),
}
_FLAG_WORDS = re.compile(r"\b(internet|wifi|wi-fi|parking)\b")
_WITHOUT = re.compile(r"\b(without|no|not|n't|nt|neither|nor)\b")


# -- who hears what ----------------------------------------------------------------------------


def sends_user_acts(factory: Any) -> bool:
    """Whether a simulator's users send their acts with their words (its factory's ``sends_user_acts``,
    :class:`~mwz_metrics.interactive.user.base.SimulatorFactory`'s default True; the ``llm`` user's False)."""
    return bool(getattr(factory, "sends_user_acts", True))


def user_acts_reach(loaded: Any, factory: Any, system: str, simulator: str, *, user_acts: bool) -> bool:
    """Whether the user's acts reach the system in a run (what its signature's ``user_acts`` says): the
    run gives them (``--user-acts``), or a reference system reads them anyway, and the user has acts to
    give. A system that reads acts only, paired with a user that sends words only, is refused (one line).

    ``loaded``: the run's :class:`~..harness.loading.LoadedSystem`; ``factory``: its simulator factory."""
    from mwz_metrics.inputs import InputError

    reads_acts = bool(loaded.reads_user_acts) and bool(getattr(loaded.system, "reads_user_acts", True))
    if sends_user_acts(factory):
        return bool(user_acts or reads_acts)
    if reads_acts:
        raise InputError(
            f"--system {system} reads the user's acts and --simulator {simulator} sends words only: "
            f"add --system-option hear=words (the oracle then reads the user's words)"
        )
    return False


# -- values ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Mention:
    """A value found in a turn: words ``start``..``end`` (exclusive), its value, its kinds, what it may be."""

    start: int
    end: int
    value: str
    kinds: tuple[str, ...]
    labels: frozenset[str]  # ``domain-slot`` labels it may have (``none`` always may)


def _expand(label: str) -> set[str]:
    """The labels a value seen as ``label`` may also have (a venue's name is a taxi's end...)."""
    domain, _, slot = label.partition("-")
    if slot == "name" and domain in _VENUES:
        return {label, *_TAXI_PLACES}
    if slot in ("depart", "dest"):
        return set(_PLACES) if domain == "train" else set(_TAXI_PLACES)
    kind = _SLOT_KINDS.get(slot)
    return {label, *_KIND_LABELS[kind]} if kind else {label}


def _kind_of(label: str) -> str:
    domain, _, slot = label.partition("-")
    if slot in ("depart", "dest"):
        return "station" if domain == "train" else "name"
    return _SLOT_KINDS.get(slot, slot)


class ValueFinder:
    """Finds the values of a tokenized turn: phrases (the database's, the annotated validation values,
    days, areas, price ranges), times and numbers, longest first, left to right, never overlapping."""

    def __init__(self, phrases: Mapping[tuple[str, ...], tuple[str, frozenset[str], frozenset[str]]]) -> None:
        self.phrases: dict[str, dict[tuple[str, ...], tuple[str, frozenset[str], frozenset[str]]]] = {}
        for words, entry in phrases.items():
            self.phrases.setdefault(words[0], {})[words] = entry
        self.longest = {first: max(len(w) for w in table) for first, table in self.phrases.items()}

    @classmethod
    def build(cls, database: Any, annotated: Mapping[str, Mapping[str, str]] | None = None) -> ValueFinder:
        """The values of ``database`` and fixed tables, with ``annotated`` ``{phrase: {label: value}}``
        (:func:`annotated_values`)."""
        table: dict[tuple[str, ...], tuple[str, set[str], set[str]]] = {}

        def add(phrase: str, value: str, labels: Iterable[str], kinds: Iterable[str]) -> None:
            words = tuple(tokenize(phrase).split())
            if not words:
                return
            found = table.setdefault(words, (value, set(), set()))
            found[1].update(labels)
            found[2].update(kinds)

        for domain in _VENUES:
            for row in database.all_rows(domain):
                name = str(row.get("name") or "").strip().lower()
                if name and name not in GENERIC:
                    for spelling in _spellings(name):
                        add(spelling, name, _expand(f"{domain}-name"), ["name"])
                if domain == "attraction" and row.get("type"):
                    kind = str(row["type"]).lower()
                    for spelling in {kind, _TYPE_SPELLINGS.get(kind, kind)}:
                        add(spelling, kind, ["attraction-type"], ["type"])
                        add(spelling + "s", kind, ["attraction-type"], ["type"])
                if domain == "restaurant" and row.get("food"):
                    add(str(row["food"]).lower(), str(row["food"]).lower(), ["restaurant-food"], ["food"])
        stations = {
            str(row.get(c) or "").strip().lower() for row in database.all_rows("train") for c in _STATION_COLUMNS
        }
        for station in sorted(stations - {""}):
            add(station, station, _PLACES, ["station"])
            for suffix in (" train station", " station", " railway station"):  # a taxi's end
                add(station + suffix, station + suffix, _TAXI_PLACES, ["name"])
        for domain, venue in SERVICE_VENUES.items():  # police and hospital: a taxi's ends too
            name = str(venue.get("name") or "").lower()
            for spelling in {name, f"the {name}", "police station" if domain == "police" else name}:
                add(spelling, name, [f"{domain}-name", *_TAXI_PLACES], ["name"])
        for spelling, value in _AREAS.items():
            add(spelling, value, _KIND_LABELS["area"], ["area"])
        for spelling, value in _PRICES.items():
            add(spelling, value, _KIND_LABELS["price"], ["price"])
        for spelling, value in _HOTEL_TYPES.items():
            add(spelling, value, ["hotel-type"], ["type"])
        for day in _DAYS:
            add(day, day, _KIND_LABELS["day"], ["day"])
        for ref in _PLACE_REFS:  # read as a name: where it stands says whether it is a taxi's end
            add(ref, ref, _TAXI_PLACES, ["name"])
        for phrase, labels in (annotated or {}).items():
            for label, value in labels.items():
                add(phrase, value, _expand(label), [_kind_of(label)])
        frozen = {
            words: (value, frozenset(labels), frozenset(kinds)) for words, (value, labels, kinds) in table.items()
        }
        return cls(frozen)

    def find(self, words: Sequence[str]) -> list[Mention]:
        """The values of ``words`` (a tokenized turn), in order."""
        found: list[Mention] = []
        index = 0
        while index < len(words):
            mention = (
                self._time(words, index)
                or self._food(words, index)
                or self._phrase(words, index)
                or self._number(words, index)
            )
            if mention is None:
                index += 1
                continue
            found.append(mention)
            index = mention.end
        return found

    def _phrase(self, words: Sequence[str], index: int) -> Mention | None:
        table = self.phrases.get(words[index])
        if not table:
            return None
        for length in range(min(self.longest[words[index]], len(words) - index), 0, -1):
            entry = table.get(tuple(words[index : index + length]))
            if entry is not None:
                value, labels, kinds = entry
                return Mention(index, index + length, value, tuple(sorted(kinds)), labels)
        return None

    def _food(self, words: Sequence[str], index: int) -> Mention | None:
        """A food no table holds, from the words before "food", "cuisine" or "restaurant" ("sri lankan
        food", "a brazilian restaurant"): one or two words that are no plain word nor a known value."""
        for length in (2, 1):
            head = index + length
            if head >= len(words) or words[head] not in _FOOD_HEADS:
                continue
            span = words[index:head]
            if any(not w.isalpha() or w in _NOT_FOOD or w in GENERIC for w in span):
                continue
            known = [self._phrase(words, i) for i in range(index, head)]
            if known[0] is not None and (known[0].end >= head or "food" in known[0].kinds):
                return None  # a value the tables know: found as such
            if any(k is not None and (k.end >= head or "food" in k.kinds) for k in known[1:]):
                continue  # "called bloomsbury restaurant", "try indian food": the known value alone
            return Mention(index, head, " ".join(span), ("food", "guess"), frozenset({"restaurant-food"}))
        return None

    @staticmethod
    def _time(words: Sequence[str], index: int) -> Mention | None:
        """A time at ``index`` (``17:15``, ``5:30pm``, ``5 pm``, ``noon``) as ``hh:mm``."""
        word = words[index]
        after = words[index + 1] if index + 1 < len(words) else ""
        end = index + 1
        match = _TIME.match(word) or _HOUR.match(word)
        if match is None and _DIGITS.match(word) and after in _AMPM:  # "5 pm"
            match = re.match(r"^(\d{1,2})()$", word)
            end = index + 2
            half = _AMPM[after]
        elif match is not None:
            half = _AMPM.get(match.group(3) or "", "")
            if not half and after in _AMPM:
                half, end = _AMPM[after], index + 2
        elif word in ("noon", "midday"):
            return Mention(index, end, "12:00", ("time",), frozenset(_KIND_LABELS["time"]))
        else:
            return None
        if match is None:
            return None
        hour, minute = int(match.group(1)), int(match.group(2) or 0)
        if half == "pm" and hour < 12:
            hour += 12
        elif half == "am" and hour == 12:
            hour = 0
        if hour > 24:
            return None
        return Mention(index, end, f"{hour:02d}:{minute:02d}", ("time",), frozenset(_KIND_LABELS["time"]))

    @staticmethod
    def _number(words: Sequence[str], index: int) -> Mention | None:
        word = words[index]
        labels = frozenset(_KIND_LABELS["number"])
        stars = _STARS.match(word)
        if stars:
            return Mention(index, index + 1, stars.group(1), ("number", "stars"), labels)
        if _DIGITS.match(word):
            return Mention(index, index + 1, str(int(word)), ("number",), labels)
        if word in _NUMBER_WORDS:
            return Mention(index, index + 1, _NUMBER_WORDS[word], ("number", "word"), labels)
        return None


def _spellings(name: str) -> set[str]:
    """A venue's name as users write it: as the database does, without "the", with "and" for "&"..."""
    out = {name, name.replace("&", "and"), name.replace(" and ", " & ")}
    out |= {s[4:] for s in out if s.startswith("the ") and s[4:] not in GENERIC and len(s) > 9}
    out |= {s.replace("guesthouse", "guest house") for s in out} | {s.replace("guest house", "guesthouse") for s in out}
    return {s for s in out if s.strip()}


# -- features ----------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class UserContext:
    """What a system knows when it reads a user turn: the domain talked about, the slots it just asked for."""

    domain: str = "none"
    asked: frozenset[str] = frozenset()


def _placed(words: Sequence[str], mentions: Sequence[Mention]) -> list[str]:
    """The words with each value written as its kind (``<time>``)."""
    out: list[str] = []
    index = 0
    for mention in mentions:
        out.extend(words[index : mention.start])
        out.append(f"<{mention.kinds[0]}>")
        index = mention.end
    out.extend(words[index:])
    return out


def _domain_words(text: str) -> set[str]:
    return {domain for domain, pattern in DOMAIN_PATTERNS.items() if pattern.search(text)}


def _introduced(text: str) -> set[str]:
    """The domains a text's looser words bring up ("somewhere to stay", "a place to eat", "a ride")."""
    return {domain for domain, pattern in INTRO_PATTERNS.items() if pattern.search(text)}


def _named(words: Sequence[str], mentions: Sequence[Mention]) -> set[str]:
    """The domains a turn's words name, "the hotel" a taxi leaves from aside."""
    refs = [m for m in mentions if m.value in _PLACE_REFS]
    kept = [w for i, w in enumerate(words) if not any(m.start <= i < m.end for m in refs)]
    return _domain_words(" ".join(kept))


def _context_features(context: UserContext) -> set[str]:
    out = {f"dom={context.domain}"}
    out.update(f"asked={slot}" for slot in context.asked)
    return out


def turn_features(words: Sequence[str], mentions: Sequence[Mention], context: UserContext) -> set[str]:
    """The features of a whole turn (its words with values written as their kinds)."""
    placed = _placed(words, mentions)
    out = set(placed) | {f"w={w}" for w in words}
    out.update(f"{a}_{b}" for a, b in zip(placed, placed[1:]))
    out.update(f"{a}_{b}_{c}" for a, b, c in zip(placed, placed[1:], placed[2:]))
    text = " ".join(words)
    context_features = _context_features(context)
    out |= context_features
    domains = _named(words, mentions)
    out.update(f"DW={d}" for d in domains)
    out.update(f"DW={d}&{f}" for d in domains for f in context_features)
    if not domains:
        out.add("noDW")
        out.update(f"noDW&{f}" for f in context_features)
    out.update(f"IW={d}" for d in _introduced(" ".join(placed)))
    if _DONTCARE.search(text):
        out.add("DC")
        out.update(f"DC&{f}" for f in context_features)
        out.update(f"DC&{w}" for w in placed)
    if "?" in placed:
        out.add("Q")
    for slot, pattern in _FLAGS.items():
        if pattern.search(text):
            out.add(f"FLAG={slot}")
    out.add(f"values={min(len(mentions), 3)}")
    out.update(f"K={m.kinds[0]}" for m in mentions)
    return out


def mention_features(
    words: Sequence[str], mentions: Sequence[Mention], index: int, context: UserContext, domains: set[str]
) -> set[str]:
    """The features of the ``index``-th value of a turn: its kinds, value, neighbours, sentence and context."""
    mention = mentions[index]
    placed = _placed(words, mentions)
    position = mention.start - sum(m.end - m.start - 1 for m in mentions[:index])  # its place in ``placed``
    left = placed[max(0, position - 4) : position]
    right = placed[position + 1 : position + 4]
    local = {f"L1={left[-1] if left else '^'}", f"R1={right[0] if right else '$'}"}
    if len(left) >= 2:
        local.add(f"L12={left[-2]}_{left[-1]}")
    if len(right) >= 2:
        local.add(f"R12={right[0]}_{right[1]}")
    local.update(f"LW={w}" for w in left)
    local.update(f"RW={w}" for w in right)
    start = max((i for i in range(position) if placed[i] in _SENTENCE_END), default=-1) + 1
    end = next((i for i in range(position, len(placed)) if placed[i] in _SENTENCE_END), len(placed))
    sentence = " ".join(placed[start:end])
    sentence_domains = _domain_words(sentence)
    introduced = _introduced(sentence)
    out = {f"K={k}" for k in mention.kinds} | local
    out.update(f"SIW={d}" for d in introduced)
    if mention.value not in _PLACE_REFS:  # "the hotel" is rarely a value, but where it is, its words say so
        out.add(f"V={mention.value}")
    out.update(f"SDW={d}" for d in sentence_domains)
    out.update(f"TDW={d}" for d in domains)
    out.update(f"SW={w}" for w in placed[start:end])
    context_features = _context_features(context)
    out |= context_features
    same = [m for m in mentions if m.kinds[0] == mention.kinds[0]]
    out.add(f"nth={same.index(mention)}/{min(len(same), 3)}")
    for kind in mention.kinds:
        out.update(f"{kind}&{f}" for f in local | context_features)
        out.update(f"{kind}&SDW={d}" for d in sentence_domains)
        out.update(f"{kind}&TDW={d}" for d in domains)
        out.update(f"{kind}&SIW={d}" for d in introduced)
        if not sentence_domains:
            out.add(f"{kind}&noSDW")
    return out


# -- training examples --------------------------------------------------------------------------


def turn_labels(acts: Iterable[Act]) -> set[str]:
    """The turn-level labels of a user turn's annotated acts."""
    labels: set[str] = set()
    for act in acts:
        if act.domain in DOMAINS:
            labels.add(f"domain:{act.domain}")
        value = act.value.strip().lower()
        if act.intent == "request":
            labels.add(f"request:{act.slot}")
        elif act.intent in ("thank", "bye", "greet"):
            labels.add(act.intent)
        elif act.intent == "inform" and act.slot == "none":
            labels.add("mention")
        elif act.intent == "inform" and value in DONTCARE_SPELLINGS | {"do nt care", "dont care"}:
            labels.add(f"dontcare:{act.slot}")
        elif act.intent == "inform" and act.slot in _FLAGS and value in ("yes", "free", "true"):
            labels.add(f"flag:{act.slot}")
    return labels


@dataclasses.dataclass
class Example:
    """One user turn prepared for the reader: words, values found, context, and its annotations."""

    words: list[str]
    mentions: list[Mention]
    context: UserContext
    acts: list[Act]
    mention_labels: list[str | None]


def _gold_spans(turn: Mapping[str, Any], acts: Sequence[Act], words: Sequence[str]) -> list[tuple[int, int, str]]:
    """``(start, end, label)`` of the turn's annotated inform spans (word indices, when they still fit)."""
    if len(words) != len(str(turn["utterance"]).split()):
        return []
    out = []
    for span in turn.get("spans") or ():
        domain, _, intent = str(span["act"]).partition("-")
        if intent.lower() != "inform":
            continue
        start, last = span_bounds(span)
        out.append((start, last + 1, f"{domain.lower()}-{str(span['slot']).lower()}"))
    return out


def _label_mentions(
    mentions: Sequence[Mention], gold: Sequence[tuple[int, int, str]], acts: Sequence[Act]
) -> list[str | None]:
    """Each value found's annotated label: the span it overlaps, else an inform act of its value (the same
    words, or words one holds of the other), else ``none``. None (not learnt from) where an annotated
    value of a label it may have is left that no value found holds: the annotation names it otherwise
    ("leave the hotel by 10:00" annotated with the hotel's name; "3:30" annotated as 15:30)."""
    informs = [
        (normalize_value(a.slot, a.value), f"{a.domain}-{a.slot}")
        for a in acts
        if a.intent == "inform" and a.slot != "none" and normalize_value(a.slot, a.value) != "dontcare"
    ]
    labels: list[str | None] = [None] * len(mentions)
    for index, mention in enumerate(mentions):
        labels[index] = next(
            (lab for s, e, lab in gold if s < mention.end and mention.start < e and lab in mention.labels), None
        )

    def words(value: str) -> set[str]:
        return set(value.split()) - {"the", "a", "an"}

    for same in (True, False):
        for index, mention in enumerate(mentions):
            if labels[index] is not None:
                continue
            for value, label in informs:
                if label not in mention.labels or label in labels:
                    continue
                said = normalize_value(label.partition("-")[2], mention.value)
                if value == said or (
                    not same and words(value) and (words(value) <= words(said) or words(said) <= words(value))
                ):
                    labels[index] = label
                    break
    left = {label for _, label in informs} - set(labels)
    return [
        label if label is not None else None if mention.labels & left else NONE
        for mention, label in zip(mentions, labels)
    ]


@functools.cache
def _state_slot(slot: str) -> str | None:
    from mwz_metrics.interactive.acts import goal_slot_to_act

    return goal_slot_to_act(slot)


def _state(turn: Mapping[str, Any] | None) -> dict[tuple[str, str], str]:
    """A system turn's belief state: ``{(domain, act slot): value}`` of the slots that hold a value."""
    out: dict[tuple[str, str], str] = {}
    for item in (turn or {}).get("belief_state") or ():
        value = item.get("value")
        if not value or value == "not mentioned":
            continue
        value = str(value).strip().lower()
        slot = _state_slot(str(item.get("slot") or ""))
        if slot and value and value != "none":
            out[(str(item.get("domain")), slot)] = value
    return out


def examples(dialogues: Iterable[Mapping[str, Any]], finder: ValueFinder) -> Iterator[Example]:
    """Every user turn of ``dialogues``: its words, values found, context (the domain of the annotated user
    acts before it, the slots the system turn before it asked for) and annotated acts. Its values found
    are labelled by its annotated acts, and by the belief state it changed besides (2.1's user acts leave
    out many a value said again: "from the soul tree nightclub")."""
    for dialogue in dialogues:
        domain = "none"
        asked: frozenset[str] = frozenset()
        before: dict[tuple[str, str], str] = {}
        turns = list(dialogue_turns(dialogue))
        for index, turn in enumerate(turns):
            acts = from_dataset(turn["dialogue_acts"])
            if not is_user_turn(turn):
                asked = frozenset(a.slot for a in acts if a.intent == "request")
                before = _state(turn)
                continue
            after = _state(turns[index + 1] if index + 1 < len(turns) else None)
            changed = [Act("inform", d, slot, v) for (d, slot), v in after.items() if before.get((d, slot)) != v]
            words = tokenize(str(turn["utterance"])).split()
            mentions = finder.find(words)
            gold = _gold_spans(turn, acts, words)
            labels = _label_mentions(mentions, gold, [*acts, *changed])
            yield Example(words, mentions, UserContext(domain, asked), acts, labels)
            domains = [a.domain for a in acts if a.domain in DOMAINS]
            domain = domains[0] if domains else domain


def annotated_values(dialogues: Iterable[Mapping[str, Any]]) -> dict[str, dict[str, str]]:
    """``{phrase: {label: value}}``: the words of the annotated user inform spans of ``dialogues`` (names,
    areas, foods, price ranges, types, places, days, departments; not times or numbers, which patterns
    find), each with the label and value most often annotated; plain words and "don't care" left out."""
    counts: Counter[tuple[str, str, str]] = Counter()
    for dialogue in dialogues:
        for turn in dialogue_turns(dialogue):
            if not is_user_turn(turn):
                continue
            words = str(turn["utterance"]).lower().split()
            for span in turn.get("spans") or ():
                domain, _, intent = str(span["act"]).partition("-")
                slot = str(span["slot"]).lower()
                if intent.lower() != "inform" or slot not in ("name", "depart", "dest", "type", *_SLOT_KINDS):
                    continue
                start, end = span_bounds(span)
                if not 0 <= start <= end < len(words) or end - start > 7:
                    continue
                phrase = tokenize(" ".join(words[start : end + 1]))
                value = tokenize(str(span["value"]))
                if len(phrase) < 3 or phrase in DONTCARE_SPELLINGS or value in DONTCARE_SPELLINGS:
                    continue
                if set(re.findall(r"[a-z']+", phrase)) <= GENERIC or re.search(r"\d", phrase + value):
                    continue
                if not set(phrase.split()) & set(value.split()) and normalize_value(slot, phrase) != value:
                    continue  # "the same price range" annotated as the price said before: no spelling of it
                counts[(phrase, f"{domain.lower()}-{slot}", value)] += 1
    out: dict[str, dict[str, str]] = {}
    for (phrase, label, value), _ in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        out.setdefault(phrase, {}).setdefault(label, value)
    for phrase, label in _goal_values(dialogues):  # what the goals hold, as written (foods the database lacks)
        out.setdefault(phrase, {}).setdefault(label, phrase)
    return {phrase: out[phrase] for phrase in sorted(out)}


_GOAL_SLOTS = {"area", "pricerange", "food", "name", "type", "departure", "destination", "department"}


def _goal_values(dialogues: Iterable[Mapping[str, Any]]) -> list[tuple[str, str]]:
    """``(phrase, label)`` of the values the dialogues' goals constrain (``info`` and ``fail_info``)."""
    from mwz_metrics.interactive.acts import goal_slot_to_act

    found: set[tuple[str, str]] = set()
    for dialogue in dialogues:
        goal = dialogue.get("goal") or {}
        for part in goal.get("domains") or () if isinstance(goal, Mapping) else ():
            for key in ("info", "fail_info"):
                for item in part.get(key) or ():
                    slot, value = str(item.get("slot") or ""), tokenize(str(item.get("value") or ""))
                    act_slot = goal_slot_to_act(slot)
                    if slot.lower() not in _GOAL_SLOTS or not act_slot or len(value) < 3 or re.search(r"\d", value):
                        continue
                    if value in DONTCARE_SPELLINGS or set(value.split()) <= GENERIC:
                        continue
                    found.add((value, f"{part['domain']}-{act_slot}"))
    return sorted(found)


# -- the reader ---------------------------------------------------------------------------------


class UserActReader:
    """Reads a user turn's text into acts (see the module docstring)."""

    def __init__(
        self, slot_model: Any, domain_model: Any, turn_model: Any, finder: ValueFinder, annotated: Mapping[str, Any]
    ):
        self.slot_model = slot_model  # a value's slot (or ``none``)
        self.domain_model = domain_model  # a value's domain
        self.turn_model = turn_model
        self.finder = finder
        self.annotated = dict(annotated)
        self._memo: dict[tuple[str, UserContext], tuple[Act, ...]] = {}
        self._lock = threading.Lock()

    def as_json(self) -> dict[str, Any]:
        """Both models and the annotated values (the database is the run's: :meth:`from_json` takes it)."""
        return {
            "version": VERSION,
            "slots": self.slot_model.as_json(),
            "domains": self.domain_model.as_json(),
            "turns": self.turn_model.as_json(),
            "annotated": self.annotated,
        }

    @classmethod
    def from_json(cls, data: Mapping[str, Any], database: Any) -> UserActReader:
        """The reader :meth:`as_json` wrote, its values found with ``database``'s."""
        from mwz_metrics.interactive.user.linear import LinearModel

        annotated = data["annotated"]
        finder = ValueFinder.build(database, annotated)
        slots, domains, turns = (LinearModel.from_json(data[name]) for name in ("slots", "domains", "turns"))
        return cls(slots, domains, turns, finder, annotated)

    def read(self, text: str, context: UserContext = UserContext()) -> list[Act]:
        """The acts of a user turn's ``text`` (any casing and spacing) in ``context``."""
        key = (text, context)
        found = self._memo.get(key)
        if found is None:
            words = tokenize(text).split()
            found = tuple(self.read_words(words, self.finder.find(words), context))
            with self._lock:
                if len(self._memo) > 50_000:
                    self._memo.clear()
                self._memo[key] = found
        return list(found)

    def read_words(self, words: Sequence[str], mentions: Sequence[Mention], context: UserContext) -> list[Act]:
        """The acts of a tokenized turn whose values have been found."""
        text = " ".join(words)
        named = _named(words, mentions)
        informs: list[Act] = []
        seen: set[tuple[str, str]] = set()
        for index, mention in enumerate(mentions):
            label = self._label(words, mentions, index, context, named)
            if label == NONE:
                continue
            domain, _, slot = label.partition("-")
            if (domain, slot) in seen:
                continue
            seen.add((domain, slot))
            informs.append(Act("inform", domain, slot, mention.value))
        # "hotel" is a type and the domain's name: "a hotel in the north with free wifi" names the domain,
        # "a hotel, please" (nothing else said of it) the type
        others = any(a.domain == "hotel" and a.slot != "type" for a in informs) or bool(_FLAG_WORDS.search(text))
        bare = [a for a in informs if a[1:] == ("hotel", "type", "hotel")]
        if bare and others:
            informs.remove(bare[0])
        elif not bare and not others and ("hotel", "type") not in seen and not _no_preference(text, context):
            if any(m.value == "hotel" and words[m.start] == "hotel" for m in mentions):
                seen.add(("hotel", "type"))
                informs.append(Act("inform", "hotel", "type", "hotel"))
        probabilities = dict(
            zip(self.turn_model.labels, self.turn_model.probabilities([turn_features(words, mentions, context)])[0])
        )
        said = {label for label, p in probabilities.items() if p >= self.turn_model.threshold}
        said |= {f"dontcare:{slot}" for slot in _no_preference(text, context)}
        said -= {f"request:{label.split(':', 1)[1]}" for label in said if label.startswith("dontcare:")}
        domain = self._domain(probabilities, said, informs, named, context)
        acts = list(informs)
        for label in sorted(said):
            kind, _, slot = label.partition(":")
            if kind == "dontcare" and (domain, slot) not in seen:
                seen.add((domain, slot))
                acts.append(Act("inform", domain, slot, "dontcare"))
        for label in sorted(said):
            kind, _, slot = label.partition(":")
            if kind == "flag" and (domain, slot) not in seen:
                acts.append(Act("inform", domain, slot, _flag_value(text, slot)))
        acts.extend(
            Act("request", domain, label.split(":", 1)[1], "?")
            for label in sorted(said)
            if label.startswith("request:")
        )
        if "mention" in said and not acts and domain in DOMAINS:
            acts.append(Act("inform", domain))
        acts = [a for a in acts if a.domain in DOMAINS]
        acts.sort(key=lambda a: a.domain != domain)  # the turn's domain first (a system follows the first)
        acts.extend(Act(intent, "general") for intent in ("greet", "thank", "bye") if intent in said)
        return acts

    def _label(
        self, words: Sequence[str], mentions: Sequence[Mention], index: int, context: UserContext, named: set[str]
    ) -> str:
        """The most probable label a value may have: P(slot) x P(domain | the domains that slot may have
        here), or P(none). The slot model learns what the words say of any domain's value ("by" a time is
        an arrival), the domain model which domain is talked about; a name is its venue's domain's."""
        features = [mention_features(words, mentions, index, context, named)]
        slots = dict(zip(self.slot_model.labels, self.slot_model.probabilities(features)[0]))
        domains = dict(zip(self.domain_model.labels, self.domain_model.probabilities(features)[0]))
        possible: dict[str, list[str]] = {}
        taxi = context.domain == "taxi" or "taxi" in named
        for label in mentions[index].labels:
            domain, _, slot = label.partition("-")
            if domain == "taxi" and not taxi:
                continue  # a taxi's ends and times only where a taxi is talked about
            possible.setdefault(slot, []).append(domain)
        scored = [(slots.get(NONE, 0.0), NONE)]
        for slot, options in sorted(possible.items()):
            total = sum(domains.get(d, 0.0) for d in options)
            for domain in sorted(options):
                share = domains.get(domain, 0.0) / total if total > 0 else 1.0 / len(options)
                scored.append((slots.get(slot, 0.0) * share, f"{domain}-{slot}"))
        return max(scored)[1]

    @staticmethod
    def _domain(
        probabilities: Mapping[str, float],
        said: set[str],
        informs: Sequence[Act],
        named: set[str],
        context: UserContext,
    ) -> str:
        """The domain of the turn's requests and "don't care"s: police or hospital named; else the most
        probable domain label said; else the values' domain; else the one talked about; else the most probable."""
        services = [d for d in ("police", "hospital") if d in named]
        if services and not named - set(services):
            return services[0]
        domains = sorted(
            ((p, label.split(":", 1)[1]) for label, p in probabilities.items() if label.startswith("domain:")),
            reverse=True,
        )
        if domains and f"domain:{domains[0][1]}" in said:
            return domains[0][1]
        if informs:
            return Counter(a.domain for a in informs).most_common(1)[0][0]
        if context.domain in DOMAINS:
            return context.domain
        return domains[0][1] if domains else "none"


def _sentences(text: str) -> list[str]:
    return [s for s in re.split(r"(?<=[.?!])\s+|\s+(?:but|and)\s+", text) if s.strip()]


def _no_preference(text: str, context: UserContext) -> set[str]:
    """The slots a turn does not mind (see :data:`_NO_PREFERENCE`)."""
    out: set[str] = set()
    for sentence in _sentences(text):
        if not _NO_PREFERENCE.search(sentence):
            continue
        named = {slot for slot, pattern in _DONTCARE_SLOTS.items() if pattern.search(sentence)}
        asked = {slot for slot in context.asked if slot in _DONTCARE_SLOTS}
        out |= named or asked
    return out


def _flag_value(text: str, slot: str) -> str:
    """``no`` where the sentence naming free wifi or parking says it is not wanted ("without free parking"), else ``yes``."""
    for sentence in _sentences(text):
        match = _FLAGS[slot].search(sentence)
        if match and _WITHOUT.search(sentence[: match.start()]):
            return "no"
    return "yes"


def train(dialogues: Iterable[Mapping[str, Any]], database: Any) -> UserActReader:
    """The reader learnt from the user turns of ``dialogues`` (deterministic)."""
    from mwz_metrics.interactive.user import linear

    dialogues = list(dialogues)
    annotated = annotated_values(dialogues)
    finder = ValueFinder.build(database, annotated)
    data = list(examples(dialogues, finder))
    settings: dict[str, Any] = {
        "min_count": MIN_COUNT,
        "epochs": EPOCHS,
        "learning_rate": LEARNING_RATE,
        "l2": L2,
        "seed": SEED,
    }
    slot_x, slot_y, domain_x, domain_y = [], [], [], []
    for example in data:
        named = _named(example.words, example.mentions)
        for index, label in enumerate(example.mention_labels):
            if label is None:
                continue
            features = mention_features(example.words, example.mentions, index, example.context, named)
            slot_x.append(features)
            slot_y.append([label.partition("-")[2] or NONE])
            if label != NONE:
                domain_x.append(features)
                domain_y.append([label.partition("-")[0]])
    slot_model = linear.fit(slot_x, slot_y, threshold=0.5, **settings)
    domain_model = linear.fit(domain_x, domain_y, threshold=0.5, **settings)
    turn_model = linear.fit(
        [turn_features(e.words, e.mentions, e.context) for e in data],
        [turn_labels(e.acts) for e in data],
        threshold=THRESHOLD,
        **settings,
    )
    return UserActReader(slot_model, domain_model, turn_model, finder, annotated)


@functools.cache
def fingerprint() -> str:
    """sha256 of this module (its model is cached under it)."""
    return hashlib.sha256(Path(__file__).read_bytes()).hexdigest()


# -- measuring ----------------------------------------------------------------------------------


def normalize_value(slot: str, value: str) -> str:
    """A value as compared: lowercase words, "don't care" in one spelling, numbers as digits, times as
    ``hh:mm``, areas and price ranges as the database writes them, "free" wifi or parking as yes."""
    text = " ".join(tokenize(str(value)).split())
    if text in DONTCARE_SPELLINGS or text in ("do n't care", "dont care", "do nt care", "don't care"):
        return "dontcare"
    if slot in ("internet", "parking") and text in ("free", "yes", "true", "y"):
        return "yes"
    words = text.split()
    if words and words[0] in _NUMBER_WORDS and slot in ("people", "stay", "stars"):
        return _NUMBER_WORDS[words[0]]
    if slot in ("people", "stay", "stars") and words and re.match(r"^\d+", words[0]):
        return re.match(r"^\d+", words[0]).group()  # type: ignore[union-attr]
    time = ValueFinder._time(words, 0) if words else None
    if time is not None and slot in ("leave", "arrive", "time"):
        return time.value
    if slot == "area":
        return _AREAS.get(text, text)
    if slot == "price":
        return _PRICES.get(text, text)
    if slot == "type":
        return _HOTEL_TYPES.get(text, text)
    return text[4:] if text.startswith("the ") and slot == "name" else text


def _tuple(act: Act, *, values: bool) -> tuple[str, ...]:
    key = (act.intent, act.domain, act.slot)
    if not values:
        return key
    value = "?" if act.intent == "request" else normalize_value(act.slot, act.value)
    return (*key, value)


def measure(reader: UserActReader, dialogues: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Act precision, recall and F1 on the user turns of ``dialogues`` against their annotated acts:
    ``acts`` compares ``(intent, domain, slot, value)`` with values normalized (:func:`normalize_value`),
    ``slots`` leaves the value out; per intent besides. The context of each turn is the annotations'
    (the domain of the user acts before it, the slots the system turn before it asked for)."""
    counts = {"acts": [0, 0, 0], "slots": [0, 0, 0]}
    per_intent: dict[str, list[int]] = {}
    turns = exact = 0
    for example in examples(dialogues, reader.finder):
        turns += 1
        predicted = reader.read_words(example.words, example.mentions, example.context)
        exact += {_tuple(a, values=True) for a in predicted} == {_tuple(a, values=True) for a in example.acts}
        for name, values in (("acts", True), ("slots", False)):
            mine = {_tuple(a, values=values) for a in predicted}
            gold = {_tuple(a, values=values) for a in example.acts}
            tallies = counts[name]
            tallies[0] += len(mine & gold)
            tallies[1] += len(mine - gold)
            tallies[2] += len(gold - mine)
            if values:
                for act in mine | gold:
                    tally = per_intent.setdefault(act[0], [0, 0, 0])
                    tally[0 if act in mine and act in gold else 1 if act in mine else 2] += 1

    def scores(tp: int, fp: int, fn: int) -> dict[str, float | int]:
        precision, recall, f1 = precision_recall_f1(tp, fp, fn)
        return {
            "precision": round(100 * precision, 2),
            "recall": round(100 * recall, 2),
            "f1": round(100 * f1, 2),
            "support": tp + fn,
        }

    return {
        "turns": turns,
        "exact_turns": round(100 * exact / turns, 2) if turns else 0.0,
        "acts": scores(*counts["acts"]),
        "slots": scores(*counts["slots"]),
        "intents": {intent: scores(*per_intent[intent]) for intent in sorted(per_intent)},
    }

"""Templates built from MultiWOZ 2.1 validation turns (never test), and what a template may say.

Each annotated turn whose values all have a span becomes a template: its text with every span
replaced by a slot marker, filed under the turn's *act signature* (intent, domain, slot and
kind of value of each act). User templates are also filed by where their turn stood
(:data:`MOMENTS`), and kept only when every sentence says one of their acts, no value or domain
but theirs is left in their words, and they fit where they stood (a greeting only opens a
dialogue; an opening never reads as a reply). :mod:`.language` says acts with them.

User templates carry the values' markers (``[hotel-area]``) and are filled with the goal's
values. System templates write placeholders in mwzeval's ``[value_*]`` vocabulary instead of
values: the reference systems speak delexicalized text, as the systems under test do.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from mwz_metrics.interactive.acts import Act, from_dataset
from mwz_metrics.interactive.vocabulary import DONTCARE_SPELLINGS, NO_VALUE, SLOT_PLACEHOLDERS

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
    return "dontcare" if value in DONTCARE_SPELLINGS else "value"


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


# -- what a template may say ----------------------------------------------------------------

# Where a user turn stands in its dialogue: its first turn, a turn bringing up a domain not talked
# about yet, an answer to what the system asked, a turn after the system found nothing or failed to
# book, any other turn, the closing thanks and goodbye.
# The closing after a question of the system ("Anything else?", "Shall I book it?") is a "decline":
# "No, that's all, thanks."
DECLINE = "decline"
MOMENTS = ("open", "intro", "answer", "retry", "continue", "close", DECLINE)
_QUESTIONS = ("request", "reqmore", "offerbook", "select")

# Words of values a template must not keep outside its markers: they would contradict the goal (or
# the system's database: "the closest to 19:30").
_LEFTOVER = re.compile(
    r"\d|\b(north|south|east|west|centre|center|cheap|expensive|moderate|monday|tuesday|wednesday|thursday"
    r"|friday|saturday|sunday|mon|tues?|wed|weds|thu|thur|thurs|fri|sat)\b",
    re.IGNORECASE,
)
# Slots whose annotated values, left in a template's words, would name something the goal may not.
_VALUE_SLOTS = {"food", "area", "price", "type", "name", "depart", "dest", "day", "department"}
_NOT_VALUES = {"hotel", "hotels", "restaurant", "train", "taxi", "attraction", "cambridge", "yes", "no", "free", "any"}
_GENERIC = _NOT_VALUES | set(
    "the a an in of all there fine town city area same more many other some several nearby near eat restaurants "
    "place places one located centrally cheapest cheaper".split()
)
# Words that name a domain: a template about one domain must not name another.
DOMAIN_WORDS = {
    "hotel": ("hotel", "guesthouse", "guest house", "place to stay", "room", "nights", "lodging", "accommodation"),
    "restaurant": ("restaurant", "place to eat", "dine", "dinner", "lunch", "table", "cuisine"),
    "train": ("train", "railway"),
    "taxi": ("taxi", "cab"),
    "attraction": ("attraction", "museum", "college", "entrance fee", "places to go", "place to go"),
    "police": ("police",),
    "hospital": ("hospital",),
}
_DOMAIN_PATTERNS = {
    d: re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + ")") for d, words in DOMAIN_WORDS.items()
}

# A sentence without a marker must say one of its turn's acts: the words each act may be said with.
_REQUEST_SLOT_WORDS = {
    "addr": r"address|where|located|location|street|find it",
    "post": r"post ?code|postal|zip",
    "phone": r"phone|number|contact|call|reach",
    "price": r"price|cost|expensive|cheap|range|pricey|afford",
    "ticket": r"price|cost|fare|ticket|how much|pay",
    "fee": r"fee|entrance|admission|cost|price|free|charge|how much",
    "area": r"area|part of (town|the city)|side|where|located|location|neighbou?rhood",
    "type": r"type|kind|sort|what is it|what it is",
    "stars": r"stars?|rating|rated",
    "internet": r"internet|wifi|wi-fi",
    "parking": r"park",
    "food": r"food|cuisine|serve|kind",
    "time": r"time|long|duration|minutes|travel|take",
    "leave": r"leave|leaving|depart|time|when",
    "arrive": r"arriv|get (in|there)|time|when",
    "id": r"\bid\b|number|train|which",
    "ref": r"reference|ref\b|confirmation|number|book",
    "car": r"car|type|kind|model|make|vehicle|color|colour",
    "name": r"name|called|which",
}
# The words that name a requestable attribute for sure (a user template naming one says something of it).
_NAMED_ATTRIBUTES = {
    slot: re.compile(pattern)
    for slot, pattern in {
        "phone": r"phone|contact number|telephone",
        "addr": r"\baddress",
        "post": r"post ?code|postal code|zip",
        "car": r"car type|type of car|kind of car|make of (the )?car|model",
        "fee": r"entrance fee|admission|entry fee",
        "ref": r"reference|confirmation number",
        "time": r"travel time|duration|how long",
    }.items()
}
_INTENT_WORDS = {
    "thank": r"thank|appreciat|grateful|cheers|helpful|great help",
    "bye": r"\bbye\b|goodbye|good day|nice day|great day|good night|have a|take care|enjoy",
    "greet": r"^(hi|hello|hey|greetings|good (morning|afternoon|evening))\b",
}
_FLAG_WORDS = {"internet": r"internet|wifi|wi-fi", "parking": r"park"}
_DONTCARE_WORDS = r"n'?t (care|mind|matter)|no (preference|particular|specific)|not (picky|particular)|any\b|either|whatever|doesn'?t matter|does not matter|do not (care|mind)|flexible|open to"
# The words a system sentence without a placeholder may say its acts with.
_SYSTEM_INTENT_WORDS = {
    "request": r"\?|which|what|where|when|how many|how long|would you|do you|could you|can you|let me know|need|prefer|looking for|have in mind|particular|specific",
    "nooffer": r"\bno\b|not|n'?t|sorry|unfortunately|nothing|none|afraid|unable|couldn'?t|can'?t",
    "nobook": r"\bno\b|not|n'?t|sorry|unfortunately|unable|afraid|fail|unsuccessful|booked|full|available",
    "book": r"book|reserv|confirm|set|done|all set|successful|table|room|ticket",
    "offerbooked": r"book|reserv|confirm|set|done|successful|ticket",
    "offerbook": r"book|reserv|would you like|shall i|should i|want me|\?",
    "reqmore": r"anything else|something else|help|assist|need|further|other|more|\?",
    "bye": r"bye|day|enjoy|thank|welcome|glad|pleasure|care|stay|trip|visit|contact|let us know|hope|night|evening|fun|as well|any ?time",
    "welcome": r"welcome|pleasure|glad|thank|problem|happy|anytime",
    "greet": r"hello|hi\b|welcome|thank|glad|happy|sure|certainly|of course|great|absolutely|definitely|enjoy|trip",
    "select": r"which|prefer|or\b|\?",
    "recommend": r"recommend|suggest|how about|what about|try|like|great|nice|popular|favou?rite|good",
    "inform": r"it|they|this|that|there|located|yes|both|all|free|wifi|internet|parking|has|have|offer|include",
}
# Closing words go with thanks and goodbye: "no, that's all".
_CLOSING_WORDS = (
    r"that'?s (all|it|everything)|that is (all|it|everything)|all (i need|set)|nothing else|that will (be|do)"
    r"|all for (now|today)|i'?m (all )?(set|done|good)|be all|that should be|no,? thank|no more|everything i need"
)
_HELP = r"^(can|could|would|will) you (please )?(help|assist)|^(i need|i would like|i'd like) (some )?(help|assistance|information|info)|^please help|^help me"
# Short acknowledgements ("Great.", "Yes please.", "That sounds good!") carry no act; they may reply.
_ACK_WORDS = frozenset(
    "yes yeah yep sure ok okay great perfect good fine wonderful awesome excellent alright cool no nope please "
    "that that's thats sounds sound is it will would be work works do does lovely nice fantastic splendid super "
    "brilliant right oh well hmm um ah very much so just".split()
)
_SYSTEM_ACK_WORDS = frozenset("certainly absolutely of course problem definitely why there are i can".split())
# A first word that answers something said before: never how a session opens.
_REPLY_OPENERS = frozenset(
    "yes yeah yep sure ok okay great perfect good fine wonderful awesome excellent alright cool no nope thanks "
    "thank that that's thats sounds also and actually so well um oh".split()
)
_YES_NO = frozenset("yes yeah yep sure no nope".split())
# What asks for something: never in a closing ("Can I have address please thank you").
_ASKING = re.compile(
    r"\b(can|could|would|will) (i|you|we)\b|\bplease (book|send|give|tell|make|find|get)|\b(book|address|phone|number"
    r"|post ?code|reserv|looking|interested)"
)
# Words by which a user brings up a domain.
_INTRO_WORDS = {
    **DOMAIN_WORDS,
    "hotel": (*DOMAIN_WORDS["hotel"], "stay", "b&b", "bed and breakfast", "sleep"),
    "restaurant": (*DOMAIN_WORDS["restaurant"], "eat", "food", "meal", "breakfast"),
    "attraction": (
        *DOMAIN_WORDS["attraction"],
        "things to do",
        "something to do",
        "visit",
        "to see",
        "sights",
        "entertainment",
        "fun",
        "sightseeing",
        "go to",
        "places",
    ),
    "taxi": (*DOMAIN_WORDS["taxi"], "car", "ride", "pick me up", "pick up"),
}
_INTRO_PATTERNS = {
    d: re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + ")") for d, words in _INTRO_WORDS.items()
}
# Words that point back at something said before: never in an opening turn.
_BACK_REFERENCES = re.compile(r"\b(also|as well|same|another|too|one more|that one|it\b|they|them|there)\b")
# Words that try again after the system found nothing or could not book.
_RETRY_WORDS = re.compile(r"\b(instead|another|different|other|how about|what about|try|change|unavailable|then)\b")
_SENTENCE = re.compile(r"[^.?!]+[.?!]*")
# "Anything else?": an offer of more help asks, and asks about more than the venue talked about.
_OFFERS_MORE = re.compile(
    r"^(?!.*(would you like to know|preference|requirement|looking for|type of information|in mind))"
    r".*(else|further|anything|all for|everything|be all|other).*\?",
    re.IGNORECASE,
)
# A name's placeholder where a phone, an address or a postcode goes: a mislabelled span.
_MISPLACED = re.compile(r"(number|phone|address|post ?code) (is|are|of) \[value_name\]", re.IGNORECASE)
_CLAUSE = re.compile(r"[,;:]|\s-+\s|\s(?:but|and then|so)\s")
_MARKER = re.compile(r"\[[^\]]*\]")


def _annotated_values(dialogues: Iterable[Mapping[str, Any]]) -> re.Pattern | None:
    """One pattern matching every value the turns annotate (three letters or more; annotations of
    plain words such as "all", "there" or "in town" are no values)."""
    values: set[str] = set()
    for dialogue in dialogues:
        for turn in dialogue["turns"]:
            for act in from_dataset(turn["dialogue_acts"]):
                value = detokenize(act.value.lower())
                if act.slot not in _VALUE_SLOTS or len(value) < 3 or value in NO_VALUE | DONTCARE_SPELLINGS:
                    continue
                if not set(re.findall(r"[a-z']+", value)) <= _GENERIC:
                    values.add(value)
    if not values:
        return None
    alternatives = "|".join(re.escape(v) for v in sorted(values, key=len, reverse=True))
    return re.compile(rf"\b(?:{alternatives})\b")


def named_domains(template: str) -> set[str]:
    """The domains a template's words name (markers aside)."""
    words = _MARKER.sub(" ", template).lower()
    return {domain for domain, pattern in _DOMAIN_PATTERNS.items() if pattern.search(words)}


_ACK = "ack"  # a clause that only acknowledges: allowed, but a template must say more than that


def _sentence_says(sentence: str, acts: Sequence[Act]) -> bool | str:
    """Whether a sentence without a marker says one of ``acts`` (:data:`_ACK`: it only acknowledges)."""
    words = sentence.lower().strip()
    tokens = re.findall(r"[a-z']+", words)
    if not tokens or (len(tokens) <= 5 and all(t in _ACK_WORDS for t in tokens)):
        return _ACK
    if re.search(_HELP, words) and not any(a.intent in ("thank", "bye") for a in acts):
        return _ACK  # "can you help me?"
    for act in acts:
        kind = value_kind(act)
        if act.intent in _INTENT_WORDS and re.search(_INTENT_WORDS[act.intent], words):
            return True
        if act.intent in ("thank", "bye") and re.search(_CLOSING_WORDS, words):
            return True
        if act.intent == "request" and re.search(_REQUEST_SLOT_WORDS.get(act.slot, act.slot), words):
            return True
        if act.intent == "inform" and kind == "dontcare" and re.search(_DONTCARE_WORDS, words):
            return True
        if act.intent == "inform" and act.slot in _FLAG_WORDS and re.search(_FLAG_WORDS[act.slot], words):
            return True
        if act.intent == "inform" and act.domain in _DOMAIN_PATTERNS and _DOMAIN_PATTERNS[act.domain].search(words):
            return True
        if act.intent == "inform" and act.slot == "none" and re.search(_HELP, words):
            return True
        if act.slot == "people" and re.search(r"\b(just me|myself|alone|only me|by myself)\b", words):
            return True
    return False


def _system_sentence_says(sentence: str, acts: Sequence[Act]) -> bool | str:
    """Whether a system sentence without a placeholder says one of ``acts`` (:data:`_ACK`: it only
    acknowledges, or offers more help where no act does)."""
    words = sentence.lower().strip()
    tokens = re.findall(r"[a-z']+", words)
    if not tokens or (len(tokens) <= 5 and all(t in _ACK_WORDS | _SYSTEM_ACK_WORDS for t in tokens)):
        return _ACK
    for act in acts:
        intent = (
            "offerbook" if act.domain == "booking" and act.intent == "inform" and act.slot == "none" else act.intent
        )
        pattern = _SYSTEM_INTENT_WORDS.get(intent)
        if (
            act.intent == "inform"
            and act.slot in _REQUEST_SLOT_WORDS
            and re.search(_REQUEST_SLOT_WORDS[act.slot], words)
        ):
            return True
        if act.intent == "inform" and act.domain == "taxi" and re.search(r"book|taxi", words):
            return True  # a taxi's car and phone are its booking
        if pattern and re.search(pattern, words) and (act.intent != "inform" or value_kind(act) != "value"):
            return True
    if re.search(_SYSTEM_INTENT_WORDS["reqmore"], words) and re.search(r"else|help|assist|\?", words):
        return _ACK  # an offer of more help no act annotates
    return False


def _asks_unasked(template: str, acts: Sequence[Act]) -> bool:
    """Whether a user template names an attribute its acts neither ask for nor state ("Can I get the
    contact number and car type?" annotated as a request for the car type alone)."""
    words = _MARKER.sub(" ", template).lower()
    covered = {a.slot for a in acts}
    return any(slot not in covered and pattern.search(words) for slot, pattern in _NAMED_ATTRIBUTES.items())


def _says_only_its_acts(template: str, acts: Sequence[Act], *, system: bool = False) -> bool:
    """Every sentence (a user's: every clause) holds a marker or says one of the acts: no words the
    acts do not carry ("Thanks, can I have their number?" is no closing); and one says more than an
    acknowledgement ("Sure, I can!" is no goodbye)."""
    if system:
        pieces, says = _SENTENCE.findall(template), _system_sentence_says
    else:
        pieces, says = [c for s in _SENTENCE.findall(template) for c in _CLAUSE.split(s)], _sentence_says
    verdicts = [True if _MARKER.search(p) else says(p, acts) for p in pieces]
    return all(verdicts) and any(v is True for v in verdicts)


def _first_word(template: str) -> str:
    match = re.match(r"\W*([A-Za-z']+)", template)
    return match.group(1).lower() if match else ""


def names_its_domain(template: str, domains: Iterable[str]) -> bool:
    """Whether a user template says which of ``domains`` it is about: a word of the domain, or a marker
    of what names a venue of it ("[attraction-type]", "[restaurant-food]", "[hotel-name]")."""
    words = _MARKER.sub(" ", template).lower()
    for domain in domains:
        if domain in _INTRO_PATTERNS and _INTRO_PATTERNS[domain].search(words):
            return True
        if any(f"[{domain}-{slot}]" in template for slot in ("name", "type", "food")):
            return True
    return False


def fits_moment(template: str, moment: str, domains: Iterable[str] = ()) -> bool:
    """Whether a user template about ``domains`` can stand at ``moment``: a greeting only opens a session;
    an opening turn neither opens as a reply nor points back at something said before; a turn that
    brings up a domain names it; an answer does not start with "yes"; a closing asks nothing."""
    lowered = _MARKER.sub(" ", template).lower()
    domains = [d for d in domains if d not in ("general", "booking")]
    if moment in ("open", "intro") and domains and not names_its_domain(template, domains):
        return False
    greets = re.search(_INTENT_WORDS["greet"], lowered.strip()) is not None
    if moment == "open":
        return _first_word(template) not in _REPLY_OPENERS and not _BACK_REFERENCES.search(lowered)
    if moment not in ("retry", "close", DECLINE) and _RETRY_WORDS.search(lowered):
        return False  # "how about ... instead" answers a failure
    if moment in ("close", DECLINE) and ("?" in template or _ASKING.search(lowered)):
        return False  # a closing asks nothing
    if moment == "answer" and _first_word(template) in _YES_NO:
        return False  # "yes, cambridge" answers no "where to?"
    return not greets and "nice to meet" not in lowered


def asks(acts: Sequence[Act]) -> bool:
    """Whether system acts ask the user something ("anything else?" too, and an offer to book)."""
    return any(a.intent in _QUESTIONS or (a.domain == "booking" and a.intent == "inform") for a in acts)


def user_moment(index: int, acts: Sequence[Act], system_before: Sequence[Act], seen_domains: set[str]) -> str:
    """Where a user turn of a dialogue stands (:data:`MOMENTS`)."""
    if index == 0:
        return "open"
    domains = {a.domain for a in acts if a.domain not in ("general", "booking")}
    if acts and not domains and all(a.intent in ("thank", "bye") for a in acts):
        return DECLINE if asks(system_before) else "close"
    if any(a.intent in ("nooffer", "nobook") for a in system_before):
        return "retry"
    if domains - seen_domains:
        return "intro"
    asked = {a.slot for a in system_before if a.intent == "request"}
    if any(a.intent == "inform" and a.slot in asked for a in acts):
        return "answer"
    return "continue"


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
        for index, turn in enumerate(t for t in dialogue["turns"] if t["speaker"] == "USER"):
            position = dialogue["turns"].index(turn)
            if position > 0:
                system_before = from_dataset(dialogue["turns"][position - 1]["dialogue_acts"])
            acts = from_dataset(turn["dialogue_acts"])
            moment = user_moment(index, acts, system_before, seen)
            seen |= {a.domain for a in acts if a.domain not in ("general", "booking")}
            if not acts:
                continue
            template = _usable(turn, acts, system=False)
            if not template:
                continue
            words = _MARKER.sub(" ", template).lower()
            if _LEFTOVER.search(words) or (values is not None and values.search(words)):
                continue  # a value the annotation missed, or an alternative
            if named_domains(template) - {a.domain for a in acts}:
                continue  # it names another domain
            if not _says_only_its_acts(template, acts) or _asks_unasked(template, acts):
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
        for turn in dialogue["turns"]:
            if turn["speaker"] != "SYSTEM":
                continue
            acts = from_dataset(turn["dialogue_acts"])
            if not acts:
                continue
            template = _usable(turn, acts, system=True)
            if not template:
                continue
            words = _MARKER.sub(" ", template).lower()
            if _LEFTOVER.search(words) or (values is not None and values.search(words)) or _MISPLACED.search(template):
                continue
            if not _says_only_its_acts(template, acts, system=True):
                continue  # "Yeah, let me know the winning numbers on the next lottery, lol."
            if {a.intent for a in acts} == {"reqmore"} and not _OFFERS_MORE.search(template):
                continue  # "what would you like to know?" asks about the venue, not for more
            if {(a.intent, a.domain, a.slot) for a in acts} == {("inform", "booking", "none")} and "?" not in template:
                continue  # "I will book that for you now" offers nothing
            found = bank.setdefault(signature(acts), [])
            if template not in found:
                found.append(template)
    return {key: bank[key] for key in sorted(bank)}

"""The English heuristics of the templates: word lists and patterns, and what a sentence of a template says.

A template is kept only when its words say its acts and nothing else (:mod:`.extract`), and a user
template stands only where it fits (:mod:`.moments`): both ask this lexicon. Each table is a list
of English words or a regular expression over lowercased text; each judgment is a function of one
sentence (or template) and its acts, tested table by table in tests/interactive/test_language.py.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from mwz_metrics.interactive.acts import Act
from mwz_metrics.interactive.vocabulary import DONTCARE_SPELLINGS, NO_VALUE


def value_kind(act: Act) -> str:
    """``value``, ``dontcare`` or ``none`` (a request's ``?`` and slotless acts)."""
    value = act.value.strip().lower()
    if act.slot == "none" or value in NO_VALUE:
        return "none"
    if act.slot in ("internet", "parking") and value in ("yes", "free"):
        return "none"  # 2.1 annotates "free parking" as Parking "none" in system turns; yes is the word
    return "dontcare" if value in DONTCARE_SPELLINGS else "value"


# Words of values a template must not keep outside its markers: they would contradict the goal (or
# the system's database: "the closest to 19:30").
LEFTOVER = re.compile(
    r"\d|\b(north|south|east|west|centre|center|cheap|expensive|moderate|monday|tuesday|wednesday|thursday"
    r"|friday|saturday|sunday|mon|tues?|wed|weds|thu|thur|thurs|fri|sat)\b",
    re.IGNORECASE,
)
# Slots whose annotated values, left in a template's words, would name something the goal may not.
VALUE_SLOTS = {"food", "area", "price", "type", "name", "depart", "dest", "day", "department"}
NOT_VALUE_WORDS = {
    "hotel",
    "hotels",
    "restaurant",
    "train",
    "taxi",
    "attraction",
    "cambridge",
    "yes",
    "no",
    "free",
    "any",
}
GENERIC = NOT_VALUE_WORDS | set(
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
DOMAIN_PATTERNS = {
    d: re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + ")") for d, words in DOMAIN_WORDS.items()
}

# A sentence without a marker must say one of its turn's acts: the words each act may be said with.
REQUEST_SLOT_WORDS = {
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
NAMED_ATTRIBUTES = {
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
INTENT_WORDS = {
    "thank": r"thank|appreciat|grateful|cheers|helpful|great help",
    "bye": r"\bbye\b|goodbye|good day|nice day|great day|good night|have a|take care|enjoy",
    "greet": r"^(hi|hello|hey|greetings|good (morning|afternoon|evening))\b",
}
FLAG_WORDS = {"internet": r"internet|wifi|wi-fi", "parking": r"park"}
DONTCARE_WORDS = r"n'?t (care|mind|matter)|no (preference|particular|specific)|not (picky|particular)|any\b|either|whatever|doesn'?t matter|does not matter|do not (care|mind)|flexible|open to"
# The words a system sentence without a placeholder may say its acts with.
SYSTEM_INTENT_WORDS = {
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
CLOSING_WORDS = (
    r"that'?s (all|it|everything)|that is (all|it|everything)|all (i need|set)|nothing else|that will (be|do)"
    r"|all for (now|today)|i'?m (all )?(set|done|good)|be all|that should be|no,? thank|no more|everything i need"
)
HELP = r"^(can|could|would|will) you (please )?(help|assist)|^(i need|i would like|i'd like) (some )?(help|assistance|information|info)|^please help|^help me"
# Short acknowledgements ("Great.", "Yes please.", "That sounds good!") carry no act; they may reply.
ACK_WORDS = frozenset(
    "yes yeah yep sure ok okay great perfect good fine wonderful awesome excellent alright cool no nope please "
    "that that's thats sounds sound is it will would be work works do does lovely nice fantastic splendid super "
    "brilliant right oh well hmm um ah very much so just".split()
)
SYSTEM_ACK_WORDS = frozenset("certainly absolutely of course problem definitely why there are i can".split())
# A first word that answers something said before: never how a session opens.
REPLY_OPENERS = frozenset(
    "yes yeah yep sure ok okay great perfect good fine wonderful awesome excellent alright cool no nope thanks "
    "thank that that's thats sounds also and actually so well um oh".split()
)
YES_NO = frozenset("yes yeah yep sure no nope".split())
# What asks for something: never in a closing ("Can I have address please thank you").
ASKING = re.compile(
    r"\b(can|could|would|will) (i|you|we)\b|\bplease (book|send|give|tell|make|find|get)|\b(book|address|phone|number"
    r"|post ?code|reserv|looking|interested)"
)
# Words by which a user brings up a domain.
INTRO_WORDS = {
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
INTRO_PATTERNS = {
    d: re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + ")") for d, words in INTRO_WORDS.items()
}
# Words that point back at something said before: never in an opening turn.
BACK_REFERENCES = re.compile(r"\b(also|as well|same|another|too|one more|that one|it\b|they|them|there)\b")
# Words that try again after the system found nothing or could not book.
RETRY_WORDS = re.compile(r"\b(instead|another|different|other|how about|what about|try|change|unavailable|then)\b")
SENTENCE = re.compile(r"[^.?!]+[.?!]*")
# "Anything else?": an offer of more help asks, and asks about more than the venue talked about.
OFFERS_MORE = re.compile(
    r"^(?!.*(would you like to know|preference|requirement|looking for|type of information|in mind))"
    r".*(else|further|anything|all for|everything|be all|other).*\?",
    re.IGNORECASE,
)
# A name's placeholder where a phone, an address or a postcode goes: a mislabelled span.
MISPLACED = re.compile(r"(number|phone|address|post ?code) (is|are|of) \[value_name\]", re.IGNORECASE)
CLAUSE = re.compile(r"[,;:]|\s-+\s|\s(?:but|and then|so)\s")
MARKER = re.compile(r"\[[^\]]*\]")


def named_domains(template: str) -> set[str]:
    """The domains a template's words name (markers aside)."""
    words = MARKER.sub(" ", template).lower()
    return {domain for domain, pattern in DOMAIN_PATTERNS.items() if pattern.search(words)}


ACK = "ack"  # a clause that only acknowledges: allowed, but a template must say more than that


def sentence_says(sentence: str, acts: Sequence[Act]) -> bool | str:
    """Whether a sentence without a marker says one of ``acts`` (:data:`ACK`: it only acknowledges)."""
    words = sentence.lower().strip()
    tokens = re.findall(r"[a-z']+", words)
    if not tokens or (len(tokens) <= 5 and all(t in ACK_WORDS for t in tokens)):
        return ACK
    if re.search(HELP, words) and not any(a.intent in ("thank", "bye") for a in acts):
        return ACK  # "can you help me?"
    for act in acts:
        kind = value_kind(act)
        if act.intent in INTENT_WORDS and re.search(INTENT_WORDS[act.intent], words):
            return True
        if act.intent in ("thank", "bye") and re.search(CLOSING_WORDS, words):
            return True
        if act.intent == "request" and re.search(REQUEST_SLOT_WORDS.get(act.slot, act.slot), words):
            return True
        if act.intent == "inform" and kind == "dontcare" and re.search(DONTCARE_WORDS, words):
            return True
        if act.intent == "inform" and act.slot in FLAG_WORDS and re.search(FLAG_WORDS[act.slot], words):
            return True
        if act.intent == "inform" and act.domain in DOMAIN_PATTERNS and DOMAIN_PATTERNS[act.domain].search(words):
            return True
        if act.intent == "inform" and act.slot == "none" and re.search(HELP, words):
            return True
        if act.slot == "people" and re.search(r"\b(just me|myself|alone|only me|by myself)\b", words):
            return True
    return False


def system_sentence_says(sentence: str, acts: Sequence[Act]) -> bool | str:
    """Whether a system sentence without a placeholder says one of ``acts`` (:data:`ACK`: it only
    acknowledges, or offers more help where no act does)."""
    words = sentence.lower().strip()
    tokens = re.findall(r"[a-z']+", words)
    if not tokens or (len(tokens) <= 5 and all(t in ACK_WORDS | SYSTEM_ACK_WORDS for t in tokens)):
        return ACK
    for act in acts:
        intent = (
            "offerbook" if act.domain == "booking" and act.intent == "inform" and act.slot == "none" else act.intent
        )
        pattern = SYSTEM_INTENT_WORDS.get(intent)
        if act.intent == "inform" and act.slot in REQUEST_SLOT_WORDS and re.search(REQUEST_SLOT_WORDS[act.slot], words):
            return True
        if act.intent == "inform" and act.domain == "taxi" and re.search(r"book|taxi", words):
            return True  # a taxi's car and phone are its booking
        if pattern and re.search(pattern, words) and (act.intent != "inform" or value_kind(act) != "value"):
            return True
    if re.search(SYSTEM_INTENT_WORDS["reqmore"], words) and re.search(r"else|help|assist|\?", words):
        return ACK  # an offer of more help no act annotates
    return False


def asks_unasked(template: str, acts: Sequence[Act]) -> bool:
    """Whether a user template names an attribute its acts neither ask for nor state ("Can I get the
    contact number and car type?" annotated as a request for the car type alone)."""
    words = MARKER.sub(" ", template).lower()
    covered = {a.slot for a in acts}
    return any(slot not in covered and pattern.search(words) for slot, pattern in NAMED_ATTRIBUTES.items())


def says_only_its_acts(template: str, acts: Sequence[Act], *, system: bool = False) -> bool:
    """Every sentence (a user's: every clause) holds a marker or says one of the acts: no words the
    acts do not carry ("Thanks, can I have their number?" is no closing); and one says more than an
    acknowledgement ("Sure, I can!" is no goodbye)."""
    if system:
        pieces, says = SENTENCE.findall(template), system_sentence_says
    else:
        pieces, says = [c for s in SENTENCE.findall(template) for c in CLAUSE.split(s)], sentence_says
    verdicts = [True if MARKER.search(p) else says(p, acts) for p in pieces]
    return all(verdicts) and any(v is True for v in verdicts)


def first_word(template: str) -> str:
    """A template's first word, lowercased ("" if none)."""
    match = re.match(r"\W*([A-Za-z']+)", template)
    return match.group(1).lower() if match else ""


def names_its_domain(template: str, domains: Iterable[str]) -> bool:
    """Whether a user template says which of ``domains`` it is about: a word of the domain, or a marker
    of what names a venue of it ("[attraction-type]", "[restaurant-food]", "[hotel-name]")."""
    words = MARKER.sub(" ", template).lower()
    for domain in domains:
        if domain in INTRO_PATTERNS and INTRO_PATTERNS[domain].search(words):
            return True
        if any(f"[{domain}-{slot}]" in template for slot in ("name", "type", "food")):
            return True
    return False

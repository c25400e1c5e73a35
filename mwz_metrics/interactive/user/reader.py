"""The system-act reader: what a system's delexicalized text does, for simulators that only see text.

A simulated user must know whether the system asked for something, offered a venue, found
nothing, booked, failed to book or said goodbye. When a system sends ``acts`` the simulator
reads those; otherwise this reader reads the text:

- placeholders (any style, read as mwzeval's ontology slots: ``[value_phone]``,
  ``[restaurant_phone]`` and ``PHONE`` alike) say which attributes were given;
- a logistic regression (:mod:`.linear`) over the words, word pairs and triples, the words of
  question sentences and a few word classes decides the rest: one label per requested slot
  (``request:area``...) and ``offer``, ``nooffer``, ``book``, ``nobook``, ``offerbook``,
  ``reqmore``, ``bye``, ``welcome``, ``greet``. It also reads the simulator's context: the domain
  being talked about and the slots the user has given (all of them, and in its last turn).

It is trained on the system turns of MultiWOZ 2.1 **validation** (their annotated acts, their
spans delexicalized) and measured on the test system turns (:func:`measure`;
``mwz simulator reader``).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from typing import Any

from mwz_metrics.interactive.acts import Act, from_dataset
from mwz_metrics.interactive.user import linear
from mwz_metrics.interactive.vocabulary import ONTOLOGY_PLACEHOLDER_SLOTS, precision_recall_f1
from mwz_metrics.records.corpus import dialogue_turns, is_user_turn, span_bounds
from mwz_metrics.tokens import tokenize

# Training and scoring settings: the best requested-slot F1 of a 5-fold cross-validation on the
# validation turns (epochs 10/20, rate 0.1/0.3, L2 1e-4/1e-3/3e-3, threshold 0.25-0.5).
EPOCHS = 10
LEARNING_RATE = 0.1
L2 = 3e-3
MIN_COUNT = 2
THRESHOLD = 0.25
SEED = 0

_LEXICON = {
    **dict.fromkeys(("food", "cuisine"), "FOODW"),
    **dict.fromkeys(("price", "pricerange", "expensive", "cheap", "budget", "moderate"), "PRICEW"),
    **dict.fromkeys(("area", "part", "location", "side", "areas", "town"), "AREAW"),
    **dict.fromkeys(("star", "stars", "rating"), "STARW"),
    **dict.fromkeys(("internet", "wifi"), "NETW"),
    "parking": "PARKW",
    **dict.fromkeys(("type", "kind", "sort"), "TYPEW"),
    **dict.fromkeys(("people", "party", "guests", "tickets", "seats", "persons"), "PEOPLEW"),
    **dict.fromkeys(("nights", "night", "long", "stay"), "STAYW"),
    **dict.fromkeys(("day", "date", "dates"), "DAYW"),
    "when": "WHENW",
    "time": "TIMEW",
    **dict.fromkeys(("leave", "leaving"), "LEAVEW"),
    **dict.fromkeys(("depart", "departing", "departure"), "DEPW"),
    "from": "FROMW",
    **dict.fromkeys(("arrive", "arrival", "arriving"), "ARRW"),
    **dict.fromkeys(("destination", "going"), "DESTW"),
    "to": "TOW",
    "travel": "TRAVW",
    "where": "WHEREW",
    **dict.fromkeys(("name", "particular"), "NAMEW"),
    "specific": "SPECW",
    "preference": "PREFW",
}
_FLAG_WORDS = {"INTERNET": ("internet", "wifi", "wi-fi"), "PARKING": ("parking",)}
_NEGATIONS = {"no", "none", "nothing", "not", "n't", "unfortunately", "sorry", "unable", "afraid", "nope", "neither"}
_BOOKING_WORDS = {"book", "booked", "booking", "reservation", "reserve", "reserved", "table", "room", "seats"}
_ASKING = ("?", " please", " need to know", "let me know", "tell me", " could you", " can you", " do you")
_SENTENCE = re.compile(r"[^.?!]+[.?!]?")


@dataclasses.dataclass(frozen=True)
class ReaderContext:
    """What the simulator knows when it reads a system turn."""

    domain: str = "none"
    known: frozenset[str] = frozenset()  # act slots the user has informed so far
    last: frozenset[str] = frozenset()  # act slots the user informed in its last turn


def features(text: str, context: ReaderContext) -> set[str]:
    """The feature strings of a tokenized, placeholder-canonical text in its context."""
    words = text.split()
    out = set(words)
    out.update(f"{a}_{b}" for a, b in zip(words, words[1:]))
    out.update(f"{a}_{b}_{c}" for a, b, c in zip(words, words[1:], words[2:]))
    domain = context.domain
    out.add(f"dom={domain}")
    sentences = [s.split() for s in _SENTENCE.findall(text)]
    for sentence in sentences:
        joined = " " + " ".join(sentence)
        if any(cue in joined for cue in _ASKING):
            for word in sentence:
                out.update((f"q:{word}", f"{domain}&q:{word}"))
                if word in _LEXICON:
                    out.update((f"Q{_LEXICON[word]}", f"{domain}&Q{_LEXICON[word]}"))
            out.update(f"q:{a}_{b}" for a, b in zip(sentence, sentence[1:]))
        if " or " in joined + " ":
            out.update(f"OR&{_LEXICON[w]}" for w in sentence if w in _LEXICON)
    if sentences:
        last = sentences[-1]
        out.update(f"L:{w}" for w in last)
        out.update(f"L:{a}_{b}" for a, b in zip(last, last[1:]))
    if any(w in _NEGATIONS for w in words):
        out.add("NEG")
        out.update(f"NEG&{_LEXICON[w]}" for w in words if w in _LEXICON)
        out.update(f"NEG&{w}" for w in words if w.startswith("["))
        if any(w in _BOOKING_WORDS for w in words):
            out.add("NEG&BOOKW")
        if context.last & {"people", "stay", "time", "day"}:
            out.add("NEG&asked_booking")
    out.update(f"known:{s}" for s in context.known)
    out.update(f"last:{s}" for s in context.last)
    if context.last & {"people", "stay", "time"}:
        out.add("asked_booking")
    return out


def labels_of(acts: Iterable[Act]) -> set[str]:
    """The reader's labels for a system turn's annotated acts."""
    labels: set[str] = set()
    for act in acts:
        intent, domain, slot = act.intent, act.domain, act.slot
        if intent == "request":
            labels.add(f"request:{slot}")
        if intent in ("inform", "recommend", "select") and slot == "name" and domain != "booking":
            labels.add("offer")
        if domain == "train" and intent in ("inform", "select", "offerbook") and slot == "id":
            labels.add("offer")
        if intent == "nooffer":
            labels.add("nooffer")
        if (domain == "booking" and intent == "book") or intent == "offerbooked":
            labels.add("book")
        if intent == "nobook":
            labels.add("nobook")
        if (domain == "booking" and intent == "inform") or intent == "offerbook":
            labels.add("offerbook")
        if domain == "general" and intent in ("reqmore", "bye", "welcome", "greet"):
            labels.add(intent)
    return labels


def _placeholder_text(text: str) -> str:
    from mwz_metrics.placeholders import canonical_placeholders

    return tokenize(canonical_placeholders(text))


def examples(
    dialogues: Iterable[Mapping[str, Any]], *, delexicalized: bool = True, lexicon: Lexicon | None = None
) -> Iterator[tuple[str, ReaderContext, set[str]]]:
    """``(text, context, labels)`` of every system turn: spans delexicalized into ``[SLOT]`` (or the
    text as written, its values found by ``lexicon``), the context from the annotated acts of the
    user turns before it."""
    from mwz_metrics.placeholders import delexicalize_21

    for dialogue in dialogues:
        domain, known = "none", set()
        last: set[str] = set()
        for turn in dialogue_turns(dialogue):
            acts = from_dataset(turn["dialogue_acts"])
            if is_user_turn(turn):
                domains = [a.domain for a in acts if a.domain not in ("general", "booking")]
                domain = domains[0] if domains else domain
                last = {a.slot for a in acts if a.intent == "inform" and a.slot != "none"}
                known |= last
                continue
            spans = [[s["act"], s["slot"], s["value"], *span_bounds(s)] for s in turn["spans"]]
            if delexicalized:
                utterance = delexicalize_21(turn["utterance"], spans)
            else:
                utterance = lexicon.placeholders(turn["utterance"]) if lexicon else turn["utterance"]
            text = _placeholder_text(utterance)
            yield text, ReaderContext(domain, frozenset(known), frozenset(last)), labels_of(acts)


def train(dialogues: Iterable[Mapping[str, Any]]) -> linear.LinearModel:
    """The reader's model, trained on the system turns of ``dialogues`` (deterministic)."""
    data = list(examples(dialogues))
    return linear.fit(
        [features(text, context) for text, context, _ in data],
        [labels for _, _, labels in data],
        min_count=MIN_COUNT,
        epochs=EPOCHS,
        learning_rate=LEARNING_RATE,
        l2=L2,
        seed=SEED,
        threshold=THRESHOLD,
    )


class Lexicon:
    """Writes placeholders into lexicalized text: every value :class:`~mwz_metrics.delexicalize.Delexicalizer`
    finds (the venue database's names, addresses, phones, postcodes, areas, foods, types, train ids
    and stations; reference numbers, times, prices, days, counts, taxi cars), and an entrance that
    is free (what the reader needs to see an offer, a booking or an answer in a system that writes values)."""

    _ABOUT_FEES = re.compile(r"\b(?:fee|fees|entrance|admission|cost|charge|free to|free of)\b", re.IGNORECASE)
    _FREE = re.compile(r"\bfree\b", re.IGNORECASE)
    _HOTEL_TYPE = re.compile(r"\b((?:is|it's) an? )hotel\b", re.IGNORECASE)

    def __init__(self, delexicalizer: Any) -> None:
        self.delexicalizer = delexicalizer

    @classmethod
    def from_database(cls, database: Any) -> Lexicon:
        """The values of ``database`` (see :mod:`mwz_metrics.delexicalize`)."""
        from mwz_metrics.delexicalize import Delexicalizer

        return cls(Delexicalizer.from_database(database))

    def placeholders(self, text: str) -> str:
        """``text`` with the values it recognizes replaced by ``[SLOT]`` placeholders (mwzeval's ontology)."""
        from mwz_metrics.placeholders import canonical_placeholders

        text = self.delexicalizer.delexicalize(text)
        text = self._HOTEL_TYPE.sub(r"\1[value_type]", text)  # "it is a hotel": its type (too common a word to score)

        def fee(sentence: re.Match) -> str:  # "it is free to enter": a fee given
            said = sentence.group()
            return self._FREE.sub("[value_price]", said) if self._ABOUT_FEES.search(said) else said

        return canonical_placeholders(re.sub(r"[^.?!]+[.?!]*", fee, text))


class SystemActReader:
    """Reads a system turn's text into acts (see the module docstring)."""

    def __init__(self, model: linear.LinearModel, lexicon: Lexicon | None = None):
        self.model = model
        self.lexicon = lexicon

    def labels(self, text: str, context: ReaderContext) -> list[str]:
        """The labels the model gives ``text`` (already tokenized and placeholder-canonical)."""
        return self.model.predict(features(text, context))

    def read(self, text: str, context: ReaderContext) -> list[Act]:
        """The acts of a system response (any placeholder style, or lexicalized text)."""
        from mwz_metrics.placeholders import canonical_placeholders

        canonical = canonical_placeholders(text)
        if self.lexicon is not None and "[" not in canonical:
            canonical = self.lexicon.placeholders(canonical)  # a lexicalized system: find its values
        prepared = tokenize(canonical)
        domain = context.domain if context.domain != "none" else "general"
        acts: list[Act] = []
        seen: set[str] = set()
        slots = re.findall(r"\[([A-Z]+)\]", canonical)
        # Yes/no attributes are words, not placeholders ("it has free wifi"): a statement naming one gives it.
        for sentence in _SENTENCE.findall(prepared):
            if not sentence.strip().endswith("?"):
                slots.extend(slot for slot, words in _FLAG_WORDS.items() if any(w in sentence.split() for w in words))
        for slot in slots:
            if slot in seen:
                continue
            seen.add(slot)
            acts.extend(Act("inform", domain, s, f"[{slot}]") for s in ONTOLOGY_PLACEHOLDER_SLOTS.get(slot, ()))
        for label in self.labels(prepared, context):
            if label.startswith("request:"):
                acts.append(Act("request", domain, label.split(":", 1)[1], "?"))
            elif label == "offer" and not seen & {"NAME", "TRAINID"}:
                acts.append(Act("recommend", domain, "id" if domain == "train" else "name", "?"))
            elif label in ("nooffer", "offerbook"):
                acts.append(Act(label, domain))
            elif label == "book":
                acts.append(Act("book", "booking", "ref", "?"))
            elif label == "nobook":
                acts.append(Act("nobook", "booking"))
            elif label in ("reqmore", "bye", "welcome", "greet"):
                acts.append(Act(label, "general"))
        return acts


def _scores(tp: int, fp: int, fn: int) -> dict[str, float | int]:
    precision, recall, f1 = precision_recall_f1(tp, fp, fn)
    return {"precision": precision, "recall": recall, "f1": f1, "support": tp + fn, "tp": tp, "fp": fp, "fn": fn}


def measure(
    reader: SystemActReader, dialogues: Sequence[Mapping[str, Any]], *, delexicalized: bool = True
) -> dict[str, Any]:
    """Per-label precision, recall and F1 on the system turns of ``dialogues`` (delexicalized by
    their spans, or as written), and the micro-averaged F1 over all requested-slot labels."""
    counts: dict[str, list[int]] = {}
    turns = 0
    for text, context, gold in examples(dialogues, delexicalized=delexicalized, lexicon=reader.lexicon):
        turns += 1
        predicted = set(reader.labels(text, context))
        for label in predicted | gold:
            tp_fp_fn = counts.setdefault(label, [0, 0, 0])
            if label in predicted and label in gold:
                tp_fp_fn[0] += 1
            elif label in predicted:
                tp_fp_fn[1] += 1
            else:
                tp_fp_fn[2] += 1
    per_label = {label: _scores(*counts[label]) for label in sorted(counts)}
    requests = [counts[label] for label in counts if label.startswith("request:")]
    summed = [sum(c[i] for c in requests) for i in range(3)]
    return {"turns": turns, "request_slots": _scores(*summed), "labels": per_label}

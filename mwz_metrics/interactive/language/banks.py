"""Saying acts in words: user and system templates of MultiWOZ 2.1 validation, chosen by where a turn stands.

:class:`UserTemplates` says a simulated user's acts with a template of exactly those acts taken
from a user turn that stood where this one stands (:data:`~.moments.MOMENTS`: the opening turn,
a turn bringing up a new domain, an answer, any other turn, the closing); a template from another
moment is used only if it fits this one (:func:`~.moments.fits_moment`), and acts no template
says together are said by groups. :meth:`UserTemplates.weights` tells a simulator which act sets
the corpus can say at a moment, so that it chooses what to say among them.

:class:`SystemTemplates` lets a reference system choose what to say among what the corpus's
wizards said (:meth:`SystemTemplates.choose`), never naming a domain other than the one the
turn is about.
"""

from __future__ import annotations

import dataclasses
import itertools
import random
import threading
from collections.abc import Iterable, Mapping, Sequence

from mwz_metrics.interactive.acts import Act
from mwz_metrics.interactive.language.extract import signature, system_marker, user_marker
from mwz_metrics.interactive.language.lexicon import named_domains, value_kind
from mwz_metrics.interactive.language.moments import DECLINE, MOMENTS, fits_moment

# Where to look when no template of a turn's moment says its acts.
_BACKOFF = {
    "open": ("open", "intro", "continue", "answer"),
    "intro": ("intro", "continue", "answer"),
    "answer": ("answer", "continue", "intro"),
    "retry": ("retry", "answer", "continue", "intro"),
    "continue": ("continue", "answer", "intro"),
    "close": ("close", DECLINE),
    DECLINE: (DECLINE, "close"),
}

_FALLBACK_USER = {
    "inform": "I would like the {slot} to be {value}.",
    "request": "Can you tell me the {slot}?",
    "thank": "Thank you.",
    "bye": "Goodbye.",
    "greet": "Hello.",
}
# How a user states one constraint when no template says it (``{v}``: the value).
_USER_PHRASES = {
    "area": "in the {v} area",
    "price": "in the {v} price range",
    "stars": "with {v} stars",
    "type": "of the type {v}",
    "food": "serving {v} food",
    "name": "called {v}",
    "day": "on {v}",
    "people": "for {v} people",
    "stay": "for {v} nights",
    "time": "at {v}",
    "leave": "leaving after {v}",
    "arrive": "arriving by {v}",
    "depart": "from {v}",
    "dest": "to {v}",
    "department": "in the {v} department",
}
_USER_FLAGS = {("parking", "yes"): "with free parking", ("parking", "no"): "without free parking"}
_USER_FLAGS.update({("internet", "yes"): "with free wifi", ("internet", "no"): "without free wifi"})
_REQUEST_WORDS = {
    "addr": "address",
    "post": "postcode",
    "fee": "entrance fee",
    "ticket": "price",
    "time": "travel time",
    "id": "train ID",
    "ref": "reference number",
    "car": "car type",
    "price": "price range",
    "leave": "departure time",
    "arrive": "arrival time",
}
_FALLBACK_SYSTEM = {
    "inform": "The {slot} is {value}.",
    "recommend": "I recommend {value}.",
    "request": "What {slot} would you like?",
    "nooffer": "I am sorry, there is nothing matching that.",
    "nobook": "I am sorry, the booking was unsuccessful.",
    "book": "I have booked it, the reference number is [value_reference].",
    "offerbooked": "I have booked it, the reference number is [value_reference].",
    "offerbook": "Would you like me to book it?",
    "reqmore": "Is there anything else I can help you with?",
    "bye": "Goodbye.",
    "welcome": "You are welcome.",
    "greet": "Hello.",
    "select": "Which one would you like?",
}


@dataclasses.dataclass
class UserTemplates:
    """User templates by moment and act signature, filled with the goal's values."""

    bank: Mapping[str, Mapping[str, list[str]]]
    # (moment, source moment, signature) -> the templates that fit: filled as the -j worker threads ask,
    # under the lock (one bank serves every session of a run)
    _fitting: dict[tuple[str, str, str], list[str]] = dataclasses.field(
        default_factory=dict, init=False, repr=False, compare=False
    )
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        unknown = set(self.bank) - set(MOMENTS)
        if unknown:
            raise ValueError(f"unknown moments {sorted(unknown)}; expected {MOMENTS}")

    def _candidates(self, key: str, moment: str) -> list[str]:
        """Templates of signature ``key`` that fit ``moment``: its own first, else the first backoff that has some."""
        for source in _BACKOFF[moment]:
            cache_key = (moment, source, key)
            with self._lock:
                found = self._fitting.get(cache_key)
                if found is None:
                    templates = self.bank.get(source, {}).get(key, [])
                    domains = {part.split("|")[1] for part in key.split(";")}
                    found = templates if source == moment else [t for t in templates if fits_moment(t, moment, domains)]
                    self._fitting[cache_key] = found
            if found:
                return found
        return []

    def count(self, acts: Sequence[Act], moment: str) -> int:
        """How many templates of ``moment`` itself say exactly ``acts``."""
        return len(self.bank.get(moment, {}).get(signature(acts), ()))

    def weights(self, options: Sequence[Sequence[Act]], moment: str) -> list[int]:
        """Per option (a set of acts), how many templates of ``moment`` say it (0: none)."""
        return [self.count(acts, moment) for acts in options]

    @staticmethod
    def _fill(template: str, acts: Sequence[Act]) -> str:
        for act in acts:
            if value_kind(act) == "value":
                template = template.replace(user_marker(act), act.value)
        return template

    def _closing(self, acts: Sequence[Act], rng: random.Random, moment: str) -> str | None:
        """Thanks and goodbye: any closing template of ``moment`` whose acts are among them."""
        intents = {a.intent for a in acts}
        pool = [
            t
            for key, templates in self.bank.get(moment, {}).items()
            if {part.split("|")[0] for part in key.split(";")} <= intents
            for t in templates
        ]
        return rng.choice(pool) if pool else None

    def realize(self, acts: Sequence[Act], rng: random.Random, moment: str = "continue") -> str:
        """Text saying ``acts`` at ``moment``: one template of their signature, else of groups of them."""
        acts = list(acts)
        if not acts:
            return ""
        if moment in ("close", DECLINE):
            closing = self._closing(acts, rng, moment) or self._closing(acts, rng, "close")
            if closing:
                return closing
            moment = "close"
        found = self._candidates(signature(acts), moment)
        if found:
            return self._fill(rng.choice(found), acts)
        groups: dict[tuple[str, str], list[Act]] = {}
        for act in acts:
            groups.setdefault((act.intent, act.domain), []).append(act)
        if len(groups) > 1:
            texts = [self.realize(g, rng, moment if i == 0 else "continue") for i, g in enumerate(groups.values())]
            return " ".join(t for t in texts if t)
        if len(acts) == 1:
            return _fallback_user(acts[0])
        texts, untemplated = [], []
        for index, group in enumerate(self._split(acts, moment)):
            if len(group) == 1 and not self._candidates(signature(group), moment):
                untemplated.append(group[0])
            else:
                texts.append(self.realize(group, rng, moment if index == 0 else "continue"))
        phrases = [_constraint_phrase(a) for a in untemplated]
        if untemplated and all(phrases):
            texts.append(f"I am looking for {_noun(untemplated[0].domain)} {' '.join(phrases)}.")  # type: ignore[arg-type]
        else:
            texts.extend(_fallback_user(a) for a in untemplated)
        return " ".join(t for t in texts if t)

    def _split(self, acts: list[Act], moment: str) -> list[list[Act]]:
        """Groups of the acts that have templates: the largest sub-combination first, greedily."""
        for size in range(len(acts) - 1, 0, -1):
            for chosen in itertools.combinations(range(len(acts)), size):
                group = [acts[i] for i in chosen]
                if self._candidates(signature(group), moment):
                    rest = [a for i, a in enumerate(acts) if i not in chosen]
                    return [group, *self._split(rest, "continue")] if rest else [group]
        return [[act] for act in acts]


@dataclasses.dataclass
class SystemTemplates:
    """System templates by act signature, with mwzeval's ``[value_*]`` placeholders for values."""

    templates: Mapping[str, list[str]]
    # Read by the -j worker threads: the parsed signatures and the domains each template names are computed
    # once here; the candidates of a part are filled as the threads ask, under the lock.
    _parsed: list[tuple[str, frozenset[tuple[str, str, str, str]]]] = dataclasses.field(
        init=False, repr=False, compare=False
    )
    _named: dict[str, list[frozenset[str]]] = dataclasses.field(init=False, repr=False, compare=False)
    _choices: dict[tuple, list] = dataclasses.field(default_factory=dict, init=False, repr=False, compare=False)
    _lock: threading.Lock = dataclasses.field(default_factory=threading.Lock, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._parsed = [(key, frozenset(tuple(part.split("|")) for part in key.split(";"))) for key in self.templates]  # type: ignore[misc]
        self._named = {key: [frozenset(named_domains(t)) for t in found] for key, found in self.templates.items()}

    def candidates(
        self,
        intents: Iterable[str],
        domain: str,
        allowed: Iterable[str],
        required: Iterable[str],
        about: str | None = None,
        asks: bool = False,
    ) -> list[tuple[list[tuple[str, str, str, str]], list[str]]]:
        """Every act signature saying acts of ``intents`` in ``domain`` about ``allowed`` slots, at
        least the ``required`` ones (``"none"`` allows slotless acts), with its usable texts (see :meth:`choose`)."""
        intents, allowed, required = frozenset(intents), frozenset(allowed), frozenset(required)
        topic = frozenset({about or domain} - {"general", "booking"})
        key = (intents, domain, allowed, required, topic, asks)
        with self._lock:
            candidates = self._choices.get(key)
            if candidates is None:
                candidates = []
                for name, parts in self._parsed:
                    if not all(p[0] in intents and p[1] == domain and p[2] in allowed for p in parts):
                        continue
                    if not required <= {p[2] for p in parts if (p[3] == "value" and not asks) or p[0] == "request"}:
                        continue
                    texts = self.texts(name, topic)
                    if texts:
                        candidates.append((sorted(parts), texts))
                self._choices[key] = candidates
        return candidates

    def texts(self, key: str, topic: Iterable[str]) -> list[str]:
        """The templates of signature ``key`` that name no domain outside ``topic``."""
        topic = frozenset(topic)
        return [t for t, named in zip(self.templates.get(key, ()), self._named.get(key, ())) if named <= topic]

    def choose(
        self,
        intents: Iterable[str],
        domain: str,
        allowed: Iterable[str],
        required: Iterable[str],
        rng: random.Random,
        about: str | None = None,
        asks: bool = False,
    ) -> tuple[list[tuple[str, str, str, str]], str] | None:
        """A template saying acts of ``intents`` in ``domain`` about ``allowed`` slots, at least the
        ``required`` ones (``"none"`` allows slotless acts): its act keys and its text.

        ``about``: the domain the turn is about (a "booking" or "general" act's); a template naming
        any other domain is never chosen. ``asks``: the required slots must be asked for (requests). Used by reference systems, which choose what to say among
        what the corpus says; a signature is drawn with probability proportional to its templates.
        """
        candidates = self.candidates(intents, domain, allowed, required, about, asks)
        if not candidates:
            return None
        parts, texts = rng.choices(candidates, weights=[len(t) for _, t in candidates])[0]
        return parts, rng.choice(texts)

    def realize(self, acts: Sequence[Act], rng: random.Random) -> str:
        """One act said by a fallback sentence (when no template of the corpus says it)."""
        return " ".join(
            _FALLBACK_SYSTEM.get(a.intent, "").format(slot=a.slot, value=system_marker(a) or a.value) for a in acts
        ).strip()


def _fallback_user(act: Act) -> str:
    word = _REQUEST_WORDS.get(act.slot, act.slot)
    if value_kind(act) == "dontcare":
        return f"I don't mind about the {word}."
    if act.intent == "inform":
        phrase = _constraint_phrase(act)
        if phrase:
            return f"I am looking for {_noun(act.domain)} {phrase}."
        if act.slot == "none":
            return f"I am looking for {_noun(act.domain)}."
    return _FALLBACK_USER.get(act.intent, "").format(slot=word, value=act.value)


def _noun(domain: str) -> str:
    return "a place to go" if domain == "attraction" else f"a {domain}"


def _constraint_phrase(act: Act) -> str | None:
    if value_kind(act) != "value":
        return None  # "don't care" is said on its own, never "in the dontcare area"
    phrase = _USER_FLAGS.get((act.slot, act.value.lower()))
    if phrase is None and act.slot in _USER_PHRASES:
        phrase = _USER_PHRASES[act.slot].format(v=act.value)
    return phrase

"""The act level of ``mwz/MultiWOZ-SystemActs-v0``: what the vector says, what an action says, how
an action becomes a system turn. Versioned (:data:`VERSION`): a policy trained on one version is
played by the same version (``examples/policy_system.py`` checks it).

**Reading** a request (the protocol's history, with the user's acts: act level, as ConvLab's) folds
the reference policy's tracker over the user's acts (:class:`~mwz_metrics.interactive.systems.reference.OraclePolicy`:
the belief state, the current domain, the venue on offer) and the agent's own acts over its turns
(what it offered, booked, answered).

**The observation** (:data:`FEATURES`, all in [0, 1]):

- ``domain=D``: the current domain (the user's last act's), or ``domain=none``;
- ``belief=D.S``: the user has constrained slot S of D (a value or "don't care");
- ``db=D:B``: how many venues (trains) of D match the belief state, in buckets ``0``, ``1``,
  ``2-5``, ``6+`` (``unasked`` while D has no constraint);
- ``user=I.D.S``: the user's last acts (inform of a belief slot, request of an attribute), and
  ``user=I`` for greet, thank, bye; ``user=other.D`` for any other act of D;
- ``pending=D.S``: an attribute the user asked for that the agent has not given since;
- ``book=D:wants|details|booked``: the user wants a booking of D, has given all its details, the
  agent has booked it; ``offered=D``: the agent has named a venue (train) of D; ``taxi=booked``;
- ``turn``: system turns so far / 20.

**An action** is one entry of the vocabulary (:func:`vocabulary`): the act set of a MultiWOZ 2.1
validation wizard turn, delexicalized to intent, domain, slot and kind of value
(``inform|restaurant|name|value;reqmore|general|none|none``), single (one act) or composite
(several, as one turn said them). Values are filled by rule, as ConvLab's vector does: from the
venue on offer (the first matching venue in database order; trains sorted as the reference system
sorts them), the count of matches, the user's booking details and a reference number, ``?`` for a
request. The words are a wizard template of that act set
(:class:`~mwz_metrics.interactive.language.banks.SystemTemplates`), drawn with a generator seeded
by the dialogue and the turn; the turn carries the acts and the belief state, as the reference
system's do.

The vocabulary is the :data:`SIZE` act sets the validation wizards say most often (of those a
template says; ties by name), built from the data and cached like the other derived material. In
version 2.0.0 it covers 65.9% of the wizards' turns with acts, and the reference policy said
through it (:meth:`ActLevel.expert_index`: its act set, else the nearest entry) succeeds on 99.5%
of 200 held-out validation goals. Version 1 held the reference policy's own combinations instead.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import logging
import random
import weakref
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mwz_metrics.interactive.acts import Act, parse_acts
from mwz_metrics.interactive.language.extract import signature
from mwz_metrics.interactive.scoring.figures import REQUESTABLE
from mwz_metrics.interactive.systems.reference import OraclePolicy, OracleState
from mwz_metrics.interactive.vocabulary import (
    BOOK_SLOTS,
    DOMAINS,
    INFORMING,
    VENUE_DOMAINS,
    reference_number,
    taxi_car,
    taxi_phone,
)

logger = logging.getLogger(__name__)

VERSION = "2.0.0"
SIZE = 300  # actions at most

_INFORMABLE = {
    "restaurant": ("food", "area", "price", "name", "people", "day", "time"),
    "hotel": ("area", "price", "type", "stars", "internet", "parking", "name", "people", "day", "stay"),
    "attraction": ("type", "area", "name"),
    "train": ("depart", "dest", "day", "leave", "arrive", "people"),
    "taxi": ("depart", "dest", "leave", "arrive"),
    "hospital": ("department",),
    "police": (),
}
_ASKABLE = {d: tuple(sorted({*slots, "ref"} if d in BOOK_SLOTS else slots)) for d, slots in REQUESTABLE.items()}
_COUNTED = ("restaurant", "hotel", "attraction", "train")
_BUCKETS = ("unasked", "0", "1", "2-5", "6+")
_GENERAL = ("greet", "thank", "bye")
_VALUE_SLOTS = (
    "name", "area", "food", "price", "type", "stars", "internet", "parking", "addr", "phone", "post", "fee",
    "id", "leave", "arrive", "depart", "dest", "day", "ticket", "time",
)  # fmt: skip
_GIVING = INFORMING | {"book"}


def _features() -> list[str]:
    names = [f"domain={d}" for d in (*DOMAINS, "none")]
    names += [f"belief={d}.{s}" for d in DOMAINS for s in _INFORMABLE[d]]
    names += [f"db={d}:{b}" for d in _COUNTED for b in _BUCKETS]
    names += [f"user=inform.{d}.{s}" for d in DOMAINS for s in _INFORMABLE[d]]
    names += [f"user=request.{d}.{s}" for d in DOMAINS for s in _ASKABLE[d]]
    names += [f"user={i}" for i in _GENERAL] + [f"user=other.{d}" for d in DOMAINS]
    names += [f"pending={d}.{s}" for d in DOMAINS for s in _ASKABLE[d]]
    names += [f"book={d}:{k}" for d in BOOK_SLOTS for k in ("wants", "details", "booked")]
    names += [f"offered={d}" for d in _COUNTED] + ["taxi=booked", "turn"]
    return names


FEATURES = _features()
OBSERVATION_SIZE = len(FEATURES)
_INDEX = {name: i for i, name in enumerate(FEATURES)}


@dataclasses.dataclass
class Reading:
    """What the agent knows before its turn (see the module docstring)."""

    dialogue_id: str
    turn: int
    state: OracleState
    parts: list[Any]  # the reference policy's decision for the last user turn
    user_acts: list[Act]
    pending: set[tuple[str, str]] = dataclasses.field(default_factory=set)
    offered: set[str] = dataclasses.field(default_factory=set)
    booked: set[str] = dataclasses.field(default_factory=set)
    values: dict[str, dict[str, str]] = dataclasses.field(default_factory=dict)  # filled lazily per domain


def _key(parts: Sequence[Sequence[str]]) -> str:
    return ";".join(sorted("|".join(p) for p in parts))


def _bucket(count: int) -> str:
    return "0" if count == 0 else "1" if count == 1 else "2-5" if count <= 5 else "6+"


class ActLevel:
    """Reads requests into vectors and says actions as system turns (see the module docstring)."""

    def __init__(self, context: Any, vocabulary_keys: Sequence[Sequence[str]] | None = None) -> None:
        self.templates = context.system_templates
        self.policy = OraclePolicy(context.database, self.templates)
        keys = vocabulary(context) if vocabulary_keys is None else vocabulary_keys
        self.vocabulary: list[tuple[str, ...]] = [tuple(k) for k in keys]
        self.index = {k: i for i, k in enumerate(self.vocabulary)}
        self._triples = [frozenset(p.rsplit("|", 1)[0] for key in k for p in key.split(";")) for k in self.vocabulary]
        self._nearest: dict[tuple[str, ...], int] = {}

    @property
    def identity(self) -> dict[str, Any]:
        """The version and the vocabulary's checksum (a policy is played by the same ones)."""
        digest = hashlib.sha256(json.dumps(self.vocabulary).encode()).hexdigest()[:12]
        return {"version": VERSION, "actions": len(self.vocabulary), "vocabulary": digest, "features": OBSERVATION_SIZE}

    # -- reading ---------------------------------------------------------------------------------

    def read(self, request: Mapping[str, Any]) -> Reading:
        """Fold the history (the user's acts through the reference tracker, the agent's own acts)."""
        dialogue_id = str(request.get("dialogue_id", ""))
        reading = Reading(dialogue_id, int(request.get("turn", 0)), OracleState(), [], [])
        for entry in request.get("history", ()):
            acts = parse_acts(entry.get("acts") or [])
            if entry.get("speaker") == "user":
                reading.parts = self.policy.decide(reading.state, acts, dialogue_id)
                reading.user_acts = acts
                reading.pending |= {(a.domain, a.slot) for a in acts if a.intent == "request" and a.domain in DOMAINS}
            else:
                self._heard_agent(reading, acts)
        return reading

    @staticmethod
    def _heard_agent(reading: Reading, acts: Sequence[Act]) -> None:
        for act in acts:
            domain = act.domain if act.domain in DOMAINS else reading.state.current
            if domain is None:
                continue
            if act.intent in _GIVING and act.value not in ("?", "none"):
                reading.pending.discard((domain, act.slot))
            if act.intent in _GIVING and act.slot in ("name", "id"):
                reading.offered.add(domain)
            if act.intent in ("book", "offerbooked") or act.slot == "ref":
                reading.booked.add(domain)
                reading.pending.discard((domain, "ref"))
            if domain == "taxi" and act.slot == "car":
                reading.booked.add("taxi")

    def observe(self, reading: Reading) -> np.ndarray:
        """The vector of :data:`FEATURES`."""
        on: list[str] = [f"domain={reading.state.current or 'none'}"]
        state = reading.state
        for domain in DOMAINS:
            given = {**state.semi.get(domain, {}), **state.book.get(domain, {})}
            on += [f"belief={domain}.{s}" for s in _INFORMABLE[domain] if s in given]
        for domain in _COUNTED:
            asked = bool(state.semi.get(domain))
            on.append(f"db={domain}:{_bucket(len(self.policy._matches(domain, state))) if asked else 'unasked'}")
        for act in reading.user_acts:
            name = f"user={act.intent}.{act.domain}.{act.slot}"
            if name in _INDEX:
                on.append(name)
            elif act.intent in _GENERAL:
                on.append(f"user={act.intent}")
            elif act.domain in DOMAINS:
                on.append(f"user=other.{act.domain}")
        on += [f"pending={d}.{s}" for d, s in reading.pending]
        for domain, slots in BOOK_SLOTS.items():
            details = state.book.get(domain, {})
            if domain in state.wants_booking:
                on.append(f"book={domain}:wants")
            if all(s in details for s in slots):
                on.append(f"book={domain}:details")
            if domain in reading.booked:
                on.append(f"book={domain}:booked")
        on += [f"offered={d}" for d in reading.offered if d in _COUNTED]
        if "taxi" in reading.booked:
            on.append("taxi=booked")
        vector = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
        vector[[_INDEX[n] for n in on if n in _INDEX]] = 1.0
        vector[_INDEX["turn"]] = min(reading.turn, 20) / 20.0
        return vector

    # -- the reference policy's choice ---------------------------------------------------------------

    def expert_keys(self, reading: Reading) -> tuple[str, ...]:
        """The reference policy's decision, each part said by its most frequent wizard signature."""
        keys: list[str] = []
        for part in reading.parts:
            keys += self._canonical(part)
        return tuple(keys)

    def _canonical(self, part: Any) -> list[str]:
        found = self.templates.candidates(part.intents, part.domain, part.allowed, part.required, part.about, part.asks)
        if found:
            return [max((len(texts), _key(parts)) for parts, texts in found)[1]]
        if len(part.required) > 1:  # as the reference system says it: one slot at a time
            out: list[str] = []
            for slot in sorted(part.required):
                out += self._canonical(
                    dataclasses.replace(part, allowed=frozenset({slot, "name", "id"}), required=frozenset({slot}))
                )
            return out
        intent = sorted(part.intents)[0]
        return [
            signature([Act(intent, part.domain, s, part.values.get(s, "?")) for s in sorted(part.required) or ["none"]])
        ]

    def expert_index(self, reading: Reading) -> int:
        """The vocabulary's entry for the reference policy's choice (the closest one when it has none)."""
        return self.nearest(self.expert_keys(reading))

    def nearest(self, keys: tuple[str, ...]) -> int:
        """The vocabulary's entry for act set ``keys``: itself, else the one sharing most of its
        intent-domain-slot triples (Jaccard)."""
        if keys in self.index:
            return self.index[keys]
        if keys not in self._nearest:
            wanted = frozenset(p.rsplit("|", 1)[0] for key in keys for p in key.split(";"))
            scores = [len(wanted & t) / len(wanted | t) for t in self._triples]
            self._nearest[keys] = int(np.argmax(scores))
        return self._nearest[keys]

    # -- saying ------------------------------------------------------------------------------------

    def turn(self, reading: Reading, keys: Sequence[str]) -> dict[str, Any]:
        """The system turn of an action: wizard words, the acts with values filled, the belief state."""
        rng = random.Random(f"act-level:{reading.dialogue_id}:{reading.turn}")
        about = reading.state.current
        texts: list[str] = []
        said: list[Act] = []
        for key in keys:
            parts = [p.split("|") for p in key.split(";")]
            acts = [Act(i, d, s, self._fill(reading, i, d, s, kind, about)) for i, d, s, kind in parts]
            topic = {about or parts[0][1]} - {"general", "booking"}
            options = self.templates.texts(key, topic)
            texts.append(rng.choice(options) if options else self.templates.realize(acts, rng))
            said += acts
        state = reading.state
        return {
            "response": " ".join(t for t in texts if t),
            "state": state.prediction_state(),
            "active_domains": [state.current] if state.current else [],
            "acts": [a.as_list() for a in said],
        }

    def _fill(self, reading: Reading, intent: str, domain: str, slot: str, kind: str, about: str | None) -> str:
        if intent == "request":
            return "?"
        if kind in ("none", "dontcare"):
            return kind
        target = domain if domain in DOMAINS else about
        if target is None:
            return "?"
        if target not in reading.values:
            reading.values[target] = self._values(reading, target)
        return reading.values[target].get(slot, "?")

    def _values(self, reading: Reading, domain: str) -> dict[str, str]:
        """What the agent's acts in ``domain`` say: the venue on offer, the count, the booking."""
        state = reading.state
        values = dict(state.semi.get(domain, {}))
        if domain in (*VENUE_DOMAINS, "train"):
            rows = self.policy._matches(domain, state)
            values["choice"] = str(len(rows))
            if rows:
                id_column = "trainID" if domain == "train" else "id"
                chosen = state.venue.get(domain)
                if chosen is None or all(r.get(id_column) != chosen.get(id_column) for r in rows):
                    chosen = rows[0]
                values.update({s: self.policy._value(domain, chosen, s) for s in _VALUE_SLOTS})
                details = state.book.get(domain, {})
                values.update(details)
                values["ref"] = reference_number(
                    reading.dialogue_id, domain, str(chosen.get(id_column)), *sorted(details.values())
                )
        elif domain == "taxi":
            digest = int(reference_number(reading.dialogue_id, "taxi", *sorted(values.values())), 16)
            values.update(car=taxi_car(digest), phone=taxi_phone(digest))
        return values


def _build(context: Any) -> list[list[str]]:
    from mwz_metrics.training import wizards

    said = context.system_templates.templates
    counts = wizards.act_sets(context)
    ranked = sorted((key for key in counts if said.get(key)), key=lambda key: (-counts[key], key))
    chosen = [[key] for key in ranked[:SIZE]]
    covered = sum(counts[key] for (key,) in chosen)
    logger.info(
        "act vocabulary: %d act sets of the validation wizards, %.1f%% of their %d turns with acts",
        len(chosen),
        100 * covered / max(sum(counts.values()), 1),
        sum(counts.values()),
    )
    return chosen


_VOCABULARIES: weakref.WeakKeyDictionary[Any, list[list[str]]] = weakref.WeakKeyDictionary()  # per context


def vocabulary(context: Any) -> list[list[str]]:
    """The action vocabulary (see the module docstring), built once per data and code version."""
    if context not in _VOCABULARIES:
        from pathlib import Path

        from mwz_datasets.derived import cached
        from mwz_metrics.interactive.harness.context import code_fingerprint

        _paths, checksum = context.dialogue_files("validation")
        # this module and the wizards' turns as read shape the vocabulary (the templates: code_fingerprint)
        shaping = [Path(__file__), Path(__file__).with_name("wizards.py")]
        code = hashlib.sha256(b"".join(p.read_bytes() for p in shaping)).hexdigest()
        _VOCABULARIES[context] = cached(
            "training-act-vocabulary", [checksum, code_fingerprint(), code, VERSION], lambda: _build(context)
        )
    return _VOCABULARIES[context]

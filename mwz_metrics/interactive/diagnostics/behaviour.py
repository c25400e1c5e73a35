"""Rates of the behaviours the user profiles change, measured alike on real and simulated users.

Each figure reads a session's user turns (their words and acts; a real turn's acts are its
annotation) and is what one profile moves (:mod:`mwz_metrics.interactive.user.profiles`):

- ``informs_per_user_turn``: constraints and booking details given per user turn (``terse`` lowers it);
- ``first_turn_acts``: acts (informs and requests) in the first user turn about each domain
  (``eager`` raises it);
- ``sessions_changing_a_value`` (%): sessions in which the user gives a slot of a domain another value
  than it gave before (``fickle`` raises it; real users do it when the goal's ``fail_info`` tells them to);
- ``repeated_requests`` (%): requests asking again for an attribute the user asked for before in the
  session; after oracle histories (:func:`.realism.repeated_requests`, where real wizards leave
  requests unanswered, as ``oracle-text`` hardly does) ``impatient`` lowers it: it gives up instead;
- ``misspelled_words`` (%): words of user turns that are one edit from a word of the corpus's
  vocabulary without being in it (``noisy`` raises it): a typing slip;
- ``user_turns_with_two_domains`` (%, also in :func:`.realism.distribution`) (``multidomain`` raises it).
"""

from __future__ import annotations

import re
import string
from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

_GENERAL = ("general", "booking")
_WORD = re.compile(r"[a-z]+")
# A word seen at least this often in the vocabulary's dialogues is a word; rarer ones may be slips.
KNOWN = 3
# What these figures are called in a report, by figure.
LABELS = {
    "informs_per_user_turn": "informs per user turn",
    "first_turn_acts": "acts in a domain's first turn",
    "sessions_changing_a_value": "sessions changing a value (%)",
    "repeated_requests": "requests repeated (%)",
    "misspelled_words": "misspelled words (%)",
    "user_turns_with_two_domains": "user turns with two domains (%)",
}
# The profile that moves each figure, and which way.
MOVED_BY = {
    "informs_per_user_turn": ("terse", "down"),
    "first_turn_acts": ("eager", "up"),
    "sessions_changing_a_value": ("fickle", "up"),
    "repeated_requests": ("impatient", "down after oracle histories (above)"),
    "misspelled_words": ("noisy", "up"),
    "user_turns_with_two_domains": ("multidomain", "up"),
}


class Vocabulary:
    """The words of a corpus (seen at least :data:`KNOWN` times) and of the venue database."""

    def __init__(self, texts: Iterable[str], extra: Iterable[str] = ()) -> None:
        counts = Counter(w for text in texts for w in _WORD.findall(text.lower()))
        self.words = {w for w, n in counts.items() if n >= KNOWN}
        self.words |= {w for text in extra for w in _WORD.findall(text.lower())}

    def misspelled(self, word: str) -> bool:
        """Not a word, but one edit (a letter dropped, added, changed, or two swapped) from one."""
        if len(word) < 3 or word in self.words:
            return False
        return any(candidate in self.words for candidate in _edits(word))


def _edits(word: str) -> Iterable[str]:
    splits = [(word[:i], word[i:]) for i in range(len(word) + 1)]
    for left, right in splits:
        if right:
            yield left + right[1:]
        if len(right) > 1:
            yield left + right[1] + right[0] + right[2:]
        for letter in string.ascii_lowercase:
            if right:
                yield left + letter + right[1:]
            yield left + letter + right


# Each figure as a ratio of sums over sessions: (numerator, denominator) keys of :func:`_counts`, and a scale.
_RATIOS = {
    "informs_per_user_turn": ("informs", "user_turns", 1),
    "first_turn_acts": ("first_turn_acts", "first_turns", 1),
    "sessions_changing_a_value": ("changing", "sessions", 100),
    "repeated_requests": ("repeated", "requests", 100),
    "misspelled_words": ("misspelled", "words", 100),
    "user_turns_with_two_domains": ("two_domains", "user_turns", 100),
}


def _counts(session: Sequence[Any], vocabulary: Vocabulary) -> dict[str, int]:
    """What one session adds to each figure's numerator and denominator."""
    users = [t for t in session if t.speaker == "user"]
    seen: set[str] = set()
    given: dict[tuple[str, str], str] = {}
    asked: set[tuple[str, str]] = set()
    counts = dict.fromkeys(("informs", "first_turn_acts", "first_turns", "changing", "repeated", "requests"), 0)
    changed = False
    for turn in users:
        counts["informs"] += sum(1 for a in turn.acts if a.intent == "inform" and a.slot not in ("", "none"))
        domains = {a.domain for a in turn.acts} - set(_GENERAL)
        for domain in domains - seen:
            counts["first_turns"] += 1
            counts["first_turn_acts"] += sum(
                1 for a in turn.acts if a.domain == domain and a.intent in ("inform", "request")
            )
        seen |= domains
        for act in turn.acts:
            key = (act.domain, act.slot)
            value = " ".join(act.value.lower().split())
            if act.intent == "inform" and act.slot not in ("", "none") and value not in ("", "dontcare", "?"):
                changed |= key in given and given[key] != value
                given[key] = value
            elif act.intent == "request":
                counts["requests"] += 1
                counts["repeated"] += key in asked
                asked.add(key)
    words = [w for t in users for w in _WORD.findall(t.text.lower()) if len(w) >= 3]
    counts.update(
        changing=int(changed),
        sessions=1,
        user_turns=len(users),
        two_domains=sum(1 for t in users if len({a.domain for a in t.acts} - set(_GENERAL)) > 1),
        words=len(words),
        misspelled=sum(1 for w in words if vocabulary.misspelled(w)),
    )
    return counts


def _figures(counts: Sequence[Mapping[str, int]]) -> dict[str, float]:
    out = {}
    for key, (numerator, denominator, scale) in _RATIOS.items():
        total = sum(c[denominator] for c in counts)
        out[key] = scale * sum(c[numerator] for c in counts) / max(total, 1)
    return out


def behaviour(sessions: Sequence[Sequence[Any]], vocabulary: Vocabulary) -> dict[str, float]:
    """The figures of the module docstring over sessions of turns (``speaker``, ``text``, ``acts``)."""
    return _figures([_counts(s, vocabulary) for s in sessions])


def behaviour_intervals(
    sessions: Sequence[Sequence[Any]], vocabulary: Vocabulary, *, resamples: int = 1000, seed: int = 0
) -> dict[str, tuple[float, float]]:
    """Each figure's 95% interval: the percentile bootstrap over sessions (a dialogue's turns resampled
    together, as its user's behaviours are one person's; :mod:`mwz_metrics.bootstrap`)."""
    from mwz_metrics import bootstrap

    counts = [_counts(s, vocabulary) for s in sessions]
    if not counts:
        return {key: (0.0, 0.0) for key in _RATIOS}
    weights = bootstrap.resample_weights(len(counts), resamples, seed)
    out = {}
    for key, (numerator, denominator, scale) in _RATIOS.items():
        score = bootstrap.ratio([c[numerator] for c in counts], [c[denominator] for c in counts])
        low, high = bootstrap.confidence_interval(score(weights) * scale / 100)
        out[key] = (low, high)
    return out


def distance(value: float, interval: Sequence[float]) -> float:
    """How far ``value`` lies outside ``interval`` (signed: above is positive; 0 within)."""
    low, high = interval
    return value - high if value > high else value - low if value < low else 0.0

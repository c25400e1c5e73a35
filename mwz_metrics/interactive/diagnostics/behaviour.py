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
from collections.abc import Iterable, Sequence
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


def behaviour(sessions: Sequence[Sequence[Any]], vocabulary: Vocabulary) -> dict[str, float]:
    """The figures of the module docstring over sessions of turns (``speaker``, ``text``, ``acts``)."""
    users = [t for s in sessions for t in s if t.speaker == "user"]
    informs = [sum(1 for a in t.acts if a.intent == "inform" and a.slot not in ("", "none")) for t in users]
    first_turn, changing, requests, repeated = [], 0, 0, 0
    for session in sessions:
        seen: set[str] = set()
        given: dict[tuple[str, str], str] = {}
        asked: set[tuple[str, str]] = set()
        changed = False
        for turn in (t for t in session if t.speaker == "user"):
            domains = {a.domain for a in turn.acts} - set(_GENERAL)
            for domain in domains - seen:
                first_turn.append(sum(1 for a in turn.acts if a.domain == domain and a.intent in ("inform", "request")))
            seen |= domains
            for act in turn.acts:
                key = (act.domain, act.slot)
                value = " ".join(act.value.lower().split())
                if act.intent == "inform" and act.slot not in ("", "none") and value not in ("", "dontcare", "?"):
                    changed |= key in given and given[key] != value
                    given[key] = value
                elif act.intent == "request":
                    requests += 1
                    repeated += key in asked
                    asked.add(key)
        changing += changed
    words = [w for t in users for w in _WORD.findall(t.text.lower()) if len(w) >= 3]
    domains_per_turn = [len({a.domain for a in t.acts} - set(_GENERAL)) for t in users]
    return {
        "informs_per_user_turn": sum(informs) / max(len(users), 1),
        "first_turn_acts": sum(first_turn) / max(len(first_turn), 1),
        "sessions_changing_a_value": 100 * changing / max(len(sessions), 1),
        "repeated_requests": 100 * repeated / max(requests, 1),
        "misspelled_words": 100 * sum(1 for w in words if vocabulary.misspelled(w)) / max(len(words), 1),
        "user_turns_with_two_domains": 100 * sum(1 for d in domains_per_turn if d > 1) / max(len(users), 1),
    }

"""Incoherent variants of a turn pair: the negatives the classifier learns from and is probed with.

Random negatives alone teach *topic* (an echo of the user's turn is on topic), so
each kind below targets a way a response can be on topic and still wrong.
"""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

# kind -> weight when sampling one negative per positive for training
KINDS: dict[str, float] = {
    "random": 3.0,  # a same-role turn of another dialogue (the paper's negatives)
    "neighbour": 3.0,  # a same-role turn of the same dialogue, two turns away
    "other_domain": 1.0,  # a same-role turn of a dialogue about other domains
    "echo": 1.0,  # the first turn repeated
    "next_user": 1.0,  # the response replaced by the user's next turn
    "shuffle": 1.0,  # the second turn's words shuffled
    "truncate": 1.0,  # the second turn cut to at most half of its words
    "empty": 0.5,  # nothing said
}


def shuffle_words(text: str, rng: random.Random) -> str:
    """The words of ``text`` in a random order that differs from the original where it can."""
    words = text.split()
    if len(set(words)) < 2:
        return text
    for _ in range(10):
        shuffled = words[:]
        rng.shuffle(shuffled)
        if shuffled != words:
            return " ".join(shuffled)
    return " ".join(reversed(words))


def truncate_words(text: str, rng: random.Random) -> str:
    """The first 1..n/2 words of ``text``."""
    words = text.split()
    if len(words) < 2:
        return ""
    return " ".join(words[: rng.randint(1, max(1, len(words) // 2))])


class NegativeSampler:
    """Negatives for pairs of a set of sessions (lists of texts, user first, alternating)."""

    def __init__(self, sessions: Mapping[str, Sequence[str]], domains: Mapping[str, frozenset[str]]):
        self.names = sorted(sessions)
        self.sessions = {name: list(sessions[name]) for name in self.names}
        self.domains = {name: domains.get(name, frozenset()) for name in self.names}

    def _same_role_turn(self, name: str, parity: int, rng: random.Random, exclude: str) -> str | None:
        turns = self.sessions[name]
        choices = [t for t in turns[parity::2] if t != exclude]
        return rng.choice(choices) if choices else None

    def negative(self, kind: str, name: str, position: int, rng: random.Random) -> str | None:
        """A replacement for turn ``position`` (the second of the pair ``position-1, position``), or None."""
        turns = self.sessions[name]
        first, second = turns[position - 1], turns[position]
        parity = position % 2
        if kind == "random":
            for _ in range(20):
                other = rng.choice(self.names)
                if other != name:
                    return self._same_role_turn(other, parity, rng, second)
            return None
        if kind == "neighbour":
            options = [p for p in (position - 2, position + 2) if 0 <= p < len(turns) and turns[p] != second]
            return turns[rng.choice(options)] if options else None
        if kind == "other_domain":
            mine = self.domains[name]
            for _ in range(50):
                other = rng.choice(self.names)
                if mine and self.domains[other] and not (mine & self.domains[other]):
                    return self._same_role_turn(other, parity, rng, second)
            return None
        if kind == "echo":
            return first if first != second else None
        if kind == "next_user":
            # system slot filled with the user's next turn
            if parity == 1 and position + 1 < len(turns) and turns[position + 1] != second:
                return turns[position + 1]
            return None
        if kind == "shuffle":
            shuffled = shuffle_words(second, rng)
            return shuffled if shuffled != second else None
        if kind == "truncate":
            cut = truncate_words(second, rng)
            return cut if cut != second and cut else None
        if kind == "empty":
            return "" if second.strip() else None
        raise ValueError(f"unknown negative kind {kind!r}")

    def sample(self, name: str, position: int, rng: random.Random) -> tuple[str, str]:
        """(kind, text) of one negative, by KINDS' weights; falls back to random."""
        kinds = list(KINDS)
        weights = [KINDS[k] for k in kinds]
        kind = rng.choices(kinds, weights)[0]
        text = self.negative(kind, name, position, rng)
        if text is None:
            kind, text = "random", self.negative("random", name, position, rng)
        return kind, text or ""


def degenerate_predictions(
    gold_users: Mapping[str, Sequence[str]],
    gold_responses: Mapping[str, Sequence[str]],
    kind: str,
    *,
    seed: int = 0,
) -> dict[str, list[dict[str, str]]]:
    """mwzeval-format predictions built from the test set itself, to probe what the metric rewards.

    ``gold_users[d]`` are the user turns and ``gold_responses[d]`` the (delexicalized)
    gold system turns of dialogue ``d``.
    """
    rng = random.Random(seed)
    everything = [r for name in sorted(gold_responses) for r in gold_responses[name]]
    shuffled_pool = everything[:]
    rng.shuffle(shuffled_pool)
    out: dict[str, list[dict[str, str]]] = {}
    k = 0
    for name in sorted(gold_responses):
        users, responses = gold_users[name], gold_responses[name]
        turns = []
        for t, response in enumerate(responses):
            if kind == "echo_user":
                text = users[t]
            elif kind == "copy_next_user":
                text = users[t + 1] if t + 1 < len(users) else ""
            elif kind == "shuffled_words":
                text = shuffle_words(response, rng)
            elif kind == "shuffled_responses":
                text = shuffled_pool[k % len(shuffled_pool)]
                k += 1
            elif kind == "constant":
                text = "is there anything else i can help you with ?"
            elif kind == "empty":
                text = ""
            else:
                raise ValueError(f"unknown degenerate system {kind!r}")
            turns.append({"response": text})
        out[name] = turns
    return out


DEGENERATES = ("echo_user", "copy_next_user", "shuffled_words", "shuffled_responses", "constant", "empty")

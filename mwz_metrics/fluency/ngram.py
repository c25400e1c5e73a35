"""An interpolated modified Kneser-Ney n-gram language model, in pure Python.

Chen & Goodman (1998): the highest order uses raw counts, the lower orders continuation counts
(how many distinct words precede an n-gram), each order its three discounts ``D1, D2, D3+``
estimated from its count-of-counts; unseen words get the uniform share ``1 / (V + 1)`` of the
lowest order's interpolation. Counting is deterministic: the same sentences give the same model,
to the last bit.
"""

from __future__ import annotations

import hashlib
import math
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence

BOS, EOS = "<s>", "</s>"


class KneserNey:
    """A model of ``order`` over tokenized sentences (lists of tokens)."""

    def __init__(self, sentences: Iterable[Sequence[str]], order: int = 4) -> None:
        if order < 1:
            raise ValueError(f"order must be at least 1, got {order}")
        self.order = order
        digest = hashlib.sha256()
        top: Counter[tuple[str, ...]] = Counter()
        self.sentences = 0
        for sentence in sentences:
            self.sentences += 1
            digest.update(("\u241f".join(sentence) + "\n").encode("utf-8"))
            padded = [BOS] * (order - 1) + list(sentence) + [EOS]
            for i in range(order - 1, len(padded)):
                top[tuple(padded[i - order + 1 : i + 1])] += 1
        self.training_sha256 = digest.hexdigest()
        self.counts: dict[int, Counter[tuple[str, ...]]] = {order: top}
        for k in range(order - 1, 0, -1):
            continuation: Counter[tuple[str, ...]] = Counter()
            for gram in self.counts[k + 1]:
                continuation[gram[1:]] += 1
            self.counts[k] = continuation
        self.vocabulary = len({gram[0] for gram in self.counts[1]})
        self.discounts: dict[int, tuple[float, float, float, float]] = {}
        self.totals: dict[int, dict[tuple[str, ...], int]] = {}
        self.gammas: dict[int, dict[tuple[str, ...], float]] = {}
        for k in range(1, order + 1):
            self.discounts[k] = _discounts(self.counts[k])
            totals: Counter[tuple[str, ...]] = Counter()
            kinds: dict[tuple[str, ...], list[int]] = defaultdict(lambda: [0, 0, 0])
            for gram, count in self.counts[k].items():
                totals[gram[:-1]] += count
                kinds[gram[:-1]][min(count, 3) - 1] += 1
            d = self.discounts[k]
            self.totals[k] = dict(totals)
            self.gammas[k] = {h: (d[1] * n[0] + d[2] * n[1] + d[3] * n[2]) / totals[h] for h, n in kinds.items()}
        self._uniform = 1.0 / (self.vocabulary + 1)

    def probability(self, context: Sequence[str], word: str) -> float:
        """P(word | the last ``order - 1`` tokens of ``context``)."""
        probability = self._uniform
        for k in range(1, self.order + 1):
            history = tuple(context[len(context) - (k - 1) :]) if k > 1 else ()
            total = self.totals[k].get(history)
            if not total:
                continue  # an unseen history passes the lower order's probability on
            count = self.counts[k].get((*history, word), 0)
            discount = self.discounts[k][min(count, 3)] if count else 0.0
            probability = max(count - discount, 0.0) / total + self.gammas[k][history] * probability
        return probability

    def cross_entropy(self, tokens: Sequence[str]) -> float:
        """Mean negative log-probability (nats) of the tokens and the sentence end."""
        padded = [BOS] * (self.order - 1) + list(tokens) + [EOS]
        total = 0.0
        for i in range(self.order - 1, len(padded)):
            total -= math.log(self.probability(padded[i - self.order + 1 : i], padded[i]))
        return total / (len(padded) - self.order + 1)

    def identity(self) -> dict[str, object]:
        """What the model is: order, training text checksum, sizes and discounts (for signatures)."""
        return {
            "kind": "kneser-ney",
            "order": self.order,
            "training_sha256": self.training_sha256,
            "sentences": self.sentences,
            "vocabulary": self.vocabulary,
            "ngrams": {k: len(c) for k, c in self.counts.items()},
            "discounts": {k: [round(x, 12) for x in d[1:]] for k, d in self.discounts.items()},
        }


def _discounts(counts: Counter[tuple[str, ...]]) -> tuple[float, float, float, float]:
    """Chen & Goodman's D1, D2, D3+ from the count-of-counts (index 0 is no discount)."""
    of = Counter(counts.values())
    n1, n2, n3, n4 = of[1], of[2], of[3], of[4]
    if not (n1 and n2 and n3 and n4):
        return (0.0, 0.5, 1.0, 1.5)  # too few counts to estimate: fixed, conservative discounts
    y = n1 / (n1 + 2 * n2)
    return (0.0, 1 - 2 * y * n2 / n1, 2 - 3 * y * n3 / n2, 3 - 4 * y * n4 / n3)

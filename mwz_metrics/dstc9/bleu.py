"""Sentence BLEU as nltk 3.5 computes it with one reference and no smoothing.

nltk 3.5 ``sentence_bleu(weights=[1/n]*n)``: clipped n-gram precisions,
brevity penalty ``exp(1 - r/c)``; 0 when no unigram matches; a zero higher-order
precision is replaced by ``sys.float_info.min`` (so the score is tiny, not 0).
"""

from __future__ import annotations

import math
import sys

try:  # the C loop behind Counter.update, without a Counter's construction cost per n-gram order
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other Pythons

    def _count_elements(mapping, iterable):
        for item in iterable:
            mapping[item] = mapping.get(item, 0) + 1


MAX_ORDER = 4


def ngram_counts(tokens: list[str], max_order: int = MAX_ORDER) -> list[dict]:
    """n-gram counts of orders 1..``max_order`` (plain dicts: word, then n-gram tuple -> count)."""
    counts = []
    for n in range(1, max_order + 1):
        order: dict = {}
        _count_elements(order, zip(*[tokens[k:] for k in range(n)]) if n > 1 else tokens)
        counts.append(order)
    return counts


def precision_counts(ref_counts: list[dict], hyp_counts: list[dict]) -> list[tuple[int, int]]:
    """(clipped matches, hypothesis n-gram count or 1) for each order."""
    result = []
    for hyp, ref in zip(hyp_counts, ref_counts):
        matches = 0
        for gram, count in hyp.items():
            found = ref.get(gram)
            if found:
                matches += count if count < found else found
        result.append((matches, max(1, sum(hyp.values()))))
    return result


def bleu_from_counts(counts: list[tuple[int, int]], ref_len: int, hyp_len: int) -> list[float]:
    """BLEU-1..BLEU-n (nltk 3.5, no smoothing) from clipped counts and lengths."""
    max_order = len(counts)
    if counts[0][0] == 0:
        return [0.0] * max_order
    if hyp_len > ref_len:
        penalty = 1.0
    elif hyp_len == 0:
        penalty = 0.0
    else:
        penalty = math.exp(1 - ref_len / hyp_len)
    logs = [math.log(num / den) if num else math.log(sys.float_info.min) for num, den in counts]
    scores = []
    for n in range(1, max_order + 1):
        weight = 1.0 / n
        scores.append(penalty * math.exp(math.fsum(weight * value for value in logs[:n])))
    return scores

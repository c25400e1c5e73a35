"""Sentence BLEU as nltk 3.5 computes it with one reference and no smoothing.

nltk 3.5 ``sentence_bleu(weights=[1/n]*n)``: clipped n-gram precisions,
brevity penalty ``exp(1 - r/c)``; 0 when no unigram matches; a zero higher-order
precision is replaced by ``sys.float_info.min`` (so the score is tiny, not 0).
"""

from __future__ import annotations

import math
import sys
from collections import Counter

MAX_ORDER = 4


def _ngram_counts(tokens: list[str], n: int) -> Counter:
    return Counter(zip(*(tokens[k:] for k in range(n))))


def ngram_counts(tokens: list[str], max_order: int = MAX_ORDER) -> list[Counter]:
    """n-gram counts of orders 1..``max_order``."""
    return [_ngram_counts(tokens, n) for n in range(1, max_order + 1)]


def precision_counts(ref_counts: list[Counter], hyp_counts: list[Counter]) -> list[tuple[int, int]]:
    """(clipped matches, hypothesis n-gram count or 1) for each order."""
    result = []
    for hyp, ref in zip(hyp_counts, ref_counts):
        matches = sum(min(count, ref[gram]) for gram, count in hyp.items() if gram in ref)
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

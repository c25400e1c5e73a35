"""Sentence BLEU as nltk 3.5 computes it with one reference and no smoothing.

nltk 3.5 ``sentence_bleu(weights=[1/n]*n)``: clipped n-gram precisions,
brevity penalty ``exp(1 - r/c)``; 0 when no unigram matches; a zero higher-order
precision is replaced by ``sys.float_info.min`` (so the score is tiny, not 0).
"""

from __future__ import annotations

import math
import sys

from mwz_metrics.ngrams import clipped_matches, counts_by_order

MAX_ORDER = 4


def ngram_counts(tokens: list[str], max_order: int = MAX_ORDER) -> tuple[dict[str, int], ...]:
    """n-gram counts of orders 1..``max_order`` (:func:`mwz_metrics.ngrams.counts_by_order`)."""
    return counts_by_order(tokens, max_order)


def precision_counts(
    ref_counts: tuple[dict[str, int], ...], hyp_counts: tuple[dict[str, int], ...]
) -> list[tuple[int, int]]:
    """(clipped matches, hypothesis n-gram count or 1) for each order."""
    return [(clipped_matches(hyp, ref), max(1, sum(hyp.values()))) for hyp, ref in zip(hyp_counts, ref_counts)]


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

"""Lexical richness of normalized responses, as mwzeval's ``get_richness``."""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Iterable, Sequence

from mwz_plugins.errors import InputError

# its figures, in the order it gives them
RICHNESS_KEYS = ("entropy", "cond_entropy", "msttr", "avg_lengths", "num_unigrams", "num_bigrams", "num_trigrams")

# lexical-diversity 0.1.1's tokenizer and MSTTR, written here because that package imports
# pkg_resources, which current setuptools (and Python >= 3.12 venvs) no longer ship. Same
# removals in the same order (so "-LRB-" loses its dashes first, as there), same split.
_PUNCTUATION = "`` '' ' . , ? ! ) ( % / - _ -LRB- -RRB- SYM : ;".split(" ")
_SPACES = re.compile(r"\s+")


def tokenize(text: str) -> list[str]:
    """lexical-diversity 0.1.1's ``lex_div.tokenize``: punctuation removed, lowercased, split on spaces."""
    for mark in _PUNCTUATION:
        text = text.replace(mark, "")
    return _SPACES.sub(" ", text).lower().split(" ")


def msttr(tokens: Sequence[str], window_length: int = 50) -> float:
    """lexical-diversity 0.1.1's ``lex_div.msttr``: mean type-token ratio of full windows."""
    if len(tokens) < window_length + 1:
        return len(set(tokens)) / len(tokens) if tokens else 0
    segments = len(tokens) // window_length
    total = 0.0
    for start in range(0, segments * window_length, window_length):
        window = tokens[start : start + window_length]
        total += len(set(window)) / len(window)
    return total / segments


def richness(responses: Iterable[str]) -> dict[str, float | int]:
    """Entropy, conditional bigram entropy, average length, MSTTR-50 and n-gram counts."""
    unigrams: Counter = Counter()
    bigrams: Counter = Counter()
    trigrams: Counter = Counter()
    all_tokens: list[str] = []
    total_length = turns = 0
    for response in responses:
        tokens = tokenize(response)
        all_tokens.extend(tokens)
        total_length += len(tokens)
        turns += 1
        unigrams.update(tokens)
        bigrams.update(zip(tokens, tokens[1:]))
        trigrams.update(zip(tokens, tokens[1:], tokens[2:]))
    if turns == 0:
        raise InputError("richness needs at least one response")
    total = sum(unigrams.values())
    entropy = -sum((c / total) * math.log(c / total, 2) for c in unigrams.values())
    # Same summation order as mwzeval, so floats agree to the last bit.
    conditional = [bigrams[(h, w)] / unigrams[h] for h, w in bigrams]
    joint = [bigrams[(h, w)] / total for h, w in bigrams]
    cond_entropy = -sum(j * math.log(c, 2) for c, j in zip(conditional, joint))
    return {
        "entropy": entropy,
        "cond_entropy": cond_entropy,
        "avg_lengths": total_length / turns,
        "msttr": msttr(all_tokens, window_length=50),
        "num_unigrams": len(unigrams),
        "num_bigrams": len(bigrams),
        "num_trigrams": len(trigrams),
    }

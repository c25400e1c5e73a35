"""Lexical richness of normalized responses, as mwzeval's ``get_richness``."""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable


def richness(responses: Iterable[str]) -> dict[str, float | int]:
    """Entropy, conditional bigram entropy, average length, MSTTR-50 and n-gram counts."""
    from lexical_diversity import lex_div  # imported when used: keeps evaluate.load fast

    unigrams: Counter = Counter()
    bigrams: Counter = Counter()
    trigrams: Counter = Counter()
    all_tokens: list[str] = []
    total_length = turns = 0
    for response in responses:
        tokens = lex_div.tokenize(response)
        all_tokens.extend(tokens)
        total_length += len(tokens)
        turns += 1
        unigrams.update(tokens)
        bigrams.update(zip(tokens, tokens[1:]))
        trigrams.update(zip(tokens, tokens[1:], tokens[2:]))
    if turns == 0:
        raise ValueError("richness needs at least one response")
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
        "msttr": lex_div.msttr(all_tokens, window_length=50),
        "num_unigrams": len(unigrams),
        "num_bigrams": len(bigrams),
        "num_trigrams": len(trigrams),
    }

"""n-gram counts shared by the BLEU implementations (mwzeval's sacrebleu, DSTC9's nltk 3.5).

An n-gram is its tokens joined by a space: whitespace-split tokens hold none, so the joined
form maps one to one onto the tuple form, and a string caches its hash (matching is faster).
"""

from __future__ import annotations

try:  # the C loop behind Counter.update, without a Counter's construction cost per order
    from collections import _count_elements  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - other Pythons

    def _count_elements(mapping, iterable):
        for item in iterable:
            mapping[item] = mapping.get(item, 0) + 1


def counts_by_order(tokens: list[str], max_order: int) -> tuple[dict[str, int], ...]:
    """The n-gram counts of ``tokens`` for orders 1..``max_order``, one dict per order."""
    counts = []
    grams = tokens
    for order in range(1, max_order + 1):
        if order > 1:
            grams = [f"{a} {b}" for a, b in zip(grams, tokens[order - 1 :])]
        found: dict[str, int] = {}
        _count_elements(found, grams)
        counts.append(found)
    return tuple(counts)


def clipped_matches(hypothesis: dict[str, int], reference: dict[str, int]) -> int:
    """Sum over shared n-grams of the smaller count (symmetric: the smaller side is walked)."""
    if len(hypothesis) > len(reference):
        hypothesis, reference = reference, hypothesis
    matches = 0
    for gram, count in hypothesis.items():
        found = reference.get(gram)
        if found:
            matches += count if count < found else found
    return matches

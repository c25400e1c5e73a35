"""ROUGE-1, ROUGE-2 and ROUGE-L F as the ``rouge`` 1.0.0 package computes them.

With ``Rouge()`` defaults: ROUGE-N counts n-grams as multisets over the words
of all sentences (split on "."), ROUGE-L is the summary-level union LCS over
*distinct* words, with the package's own LCS back-trace (ties go left). F is
``2 * (p * r) / (p + r + 1e-8)``. The package raises on an empty hypothesis or
reference; here that pair scores 0 (see ``scorer``).
"""

from __future__ import annotations


def sentences(text: str) -> list[str]:
    """Sentences as the rouge package splits them."""
    return [" ".join(part.split()) for part in text.split(".") if len(part) > 0]


def _words(sents: list[str]) -> list[str]:
    return [word for sent in sents for word in sent.split(" ")]


def _f(overlap: int, hyp_count: int, ref_count: int) -> float:
    precision = overlap / hyp_count if hyp_count else 0.0
    recall = overlap / ref_count if ref_count else 0.0
    return 2.0 * ((precision * recall) / (precision + recall + 1e-8))


def _backtrace(x: list[str], y: list[str], cell) -> set[str]:
    """Distinct words on the LCS path rouge 1.0.0's back-trace takes through ``cell(i, j)``."""
    words = set()
    i, j = len(x), len(y)
    while i and j:
        if x[i - 1] == y[j - 1]:
            words.add(x[i - 1])
            i -= 1
            j -= 1
        elif cell(i - 1, j) > cell(i, j - 1):
            i -= 1
        else:
            j -= 1
    return words


def _lcs_words_table(x: list[str], y: list[str]) -> set[str]:
    """Distinct words of the LCS of x and y that rouge 1.0.0's back-trace picks (plain DP)."""
    rows = [[0] * (len(y) + 1)]
    for xi in x:
        prev = rows[-1]
        row = [0]
        for j, yj in enumerate(y):
            if xi == yj:
                row.append(prev[j] + 1)
            else:
                up, left = prev[j + 1], row[j]
                row.append(up if up > left else left)
        rows.append(row)
    return _backtrace(x, y, lambda i, j: rows[i][j])


def _lcs_words(x: list[str], y: list[str]) -> set[str]:
    """Same as :func:`_lcs_words_table`, with the DP rows as bit vectors (Hyyro 2004).

    Row i is a bit vector V_i over the columns of y where LCS(x[:i], y[:j]) equals
    j minus the number of set bits among the lowest j bits; the back-trace reads
    table cells from it and so takes the same path as the plain table.
    """
    masks: dict[str, int] = {}
    for j, word in enumerate(y):
        masks[word] = masks.get(word, 0) | (1 << j)
    full = (1 << len(y)) - 1
    v = full
    rows = [v]
    for word in x:
        u = v & masks.get(word, 0)
        v = ((v + u) | (v - u)) & full
        rows.append(v)
    return _backtrace(x, y, lambda i, j: j - (rows[i] & ((1 << j) - 1)).bit_count())


def rouge_l(hyp_sents: list[str], ref_sents: list[str]) -> float:
    """Summary-level ROUGE-L F score (rouge 1.0.0)."""
    ref_distinct = len(set(_words(ref_sents)))
    hyp_distinct = len(set(_words(hyp_sents)))
    union: set[str] = set()
    total = 0
    for ref in ref_sents:
        before = len(union)
        ref_words = ref.split(" ")
        for hyp in hyp_sents:
            union |= _lcs_words(ref_words, hyp.split(" "))
        total += len(union) - before
    recall = total / ref_distinct
    precision = total / hyp_distinct
    return 2.0 * ((precision * recall) / (precision + recall + 1e-8))


def rouge_from_tokens(
    hyp_tokens: list[str], ref_tokens: list[str], overlaps: tuple[int, int]
) -> tuple[float, float, float] | None:
    """ROUGE-1/2/L F for texts already free of "." (one sentence each), from precomputed
    multiset n-gram overlaps (the clipped BLEU matches of orders 1 and 2)."""
    if not hyp_tokens or not ref_tokens:
        return None
    h, r = len(hyp_tokens), len(ref_tokens)
    total = len(_lcs_words(ref_tokens, hyp_tokens))
    recall, precision = total / len(set(ref_tokens)), total / len(set(hyp_tokens))
    return (
        _f(overlaps[0], h, r),
        _f(overlaps[1], max(h - 1, 0), max(r - 1, 0)),
        2.0 * ((precision * recall) / (precision + recall + 1e-8)),
    )

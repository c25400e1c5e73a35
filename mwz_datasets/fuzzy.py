"""fuzzywuzzy-compatible ``partial_ratio`` on rapidfuzz primitives.

mwzeval matches venue names, food types and train stations with
``fuzzywuzzy.fuzz.partial_ratio`` (fuzzywuzzy 0.18 backed by python-Levenshtein).
That function does not search every alignment: it aligns the shorter string
against the windows of the longer one that start at the Levenshtein matching
blocks only, scores each window with the InDel ratio, and rounds the best score
to an int (Python's ``round``, so halves go to the even integer).
``rapidfuzz.fuzz.partial_ratio`` searches all windows and returns an unrounded
float, so its >= 90 decisions can differ; this module reproduces fuzzywuzzy's.
"""

from __future__ import annotations

import math

from rapidfuzz.distance import Indel, LCSseq, Levenshtein


def partial_ratio(s1: str, s2: str) -> int:
    """fuzzywuzzy 0.18 ``fuzz.partial_ratio(s1, s2)`` with python-Levenshtein."""
    if s1 is None or s2 is None:
        return 0
    if s1 == s2:
        return 100
    if not s1 or not s2:
        return 0
    # Equal lengths: fuzzywuzzy takes s1 as the shorter one.
    shorter, longer = (s1, s2) if len(s1) <= len(s2) else (s2, s1)
    width = len(shorter)
    best = 0.0
    for block in Levenshtein.opcodes(shorter, longer).as_matching_blocks():
        start = max(block.b - block.a, 0)
        score = Indel.normalized_similarity(shorter, longer[start : start + width])
        if score > 0.995:
            return 100
        best = max(best, score)
    return int(round(100 * best))


def partial_ratio_reaches(s1: str, s2: str, threshold: float) -> bool:
    """``partial_ratio(s1, s2) >= threshold``, rejecting most pairs cheaply.

    Every window scored by :func:`partial_ratio` is a substring ``W`` of the longer
    string, with ratio ``2 * LCS(shorter, W) / (len(shorter) + len(W))``. Since
    ``LCS(shorter, W) <= min(L, len(W))`` with ``L = LCS(shorter, longer)``, that
    ratio is at most ``2L / (len(shorter) + L)``. The rounded score reaches the
    integer ``t = ceil(threshold)`` only if ``100 * ratio >= t - 0.5``.
    """
    if s1 is None or s2 is None or s1 == s2 or not s1 or not s2:
        return partial_ratio(s1, s2) >= threshold
    shorter, longer = (s1, s2) if len(s1) <= len(s2) else (s2, s1)
    common = LCSseq.similarity(shorter, longer)
    needed = math.ceil(threshold)
    # 100 * 2L / (s + L) < needed - 0.5, in integers
    if 400 * common < (2 * needed - 1) * (len(shorter) + common):
        return False
    return partial_ratio(s1, s2) >= threshold

"""METEOR exactly as nltk 3.5's ``single_meteor_score`` computes it.

nltk 3.5 aligns in three stages (exact, Porter stem, WordNet synonym), each
matching hypothesis words from the last to the first against the last remaining
reference word. Its stem stage does not remove the stem-matched words from the
lists handed to the synonym stage (a bug later fixed in nltk), so one word can
be matched twice: the official DSTC9 scores depend on it, and so this does too.
Later nltk versions changed the function; this keeps the 3.5 behaviour.
"""

from __future__ import annotations

from mwz_metrics.dstc9 import porter
from mwz_metrics.dstc9.memo import PersistentMemo
from mwz_metrics.dstc9.wordnet import WordNet

ALPHA, BETA, GAMMA = 0.9, 3, 0.5


def _stemmer_code() -> str:
    """Checksum of the stemmer's code: stems kept on disk are dropped when it changes."""
    import hashlib
    from pathlib import Path

    return hashlib.sha256(Path(porter.__file__).read_bytes()).hexdigest()[:16]


class Stemmer:
    """nltk 3.5's Porter stemmer (NLTK_EXTENSIONS), as :mod:`.porter` writes it: no nltk import."""

    version = porter.VERSION

    def __init__(self, memo: PersistentMemo | None = None) -> None:
        # stems kept between runs (:meth:`save`): most words of a new entry were seen before
        self.memo = memo if memo is not None else PersistentMemo(f"porter-stems-{_stemmer_code()}")
        self.stems: dict[str, str] = self.memo.values

    def __call__(self, word: str) -> str:
        """The Porter stem of ``word``."""
        found = self.stems.get(word)
        if found is None:
            found = self.memo.get(word, porter.stem)
        return found

    def save(self) -> None:
        """Keep the stems computed so far for the next run."""
        self.memo.save()

    def many(self, items: list[tuple[int, str]]) -> list[tuple[int, str]]:
        """``(position, stem)`` of ``(position, word)`` items."""
        stems = self.stems
        return [(i, stems.get(w) or self(w)) for i, w in items]


def _match(hyp: list[tuple[int, str]], ref: list[tuple[int, str]], pairs: list) -> None:
    """nltk 3.5 ``_match_enums``: removes matched words from ``hyp`` and ``ref``.

    nltk scans hypothesis words from the last, each taking the last remaining
    equal reference word; a stack of positions per word gives the same pairs.
    """
    positions: dict[str, list[int]] = {}
    for k, (_, word) in enumerate(ref):
        positions.setdefault(word, []).append(k)
    taken: set[int] = set()
    kept: list[tuple[int, str]] = []
    for item in reversed(hyp):
        stack = positions.get(item[1])
        if stack:
            k = stack.pop()
            taken.add(k)
            pairs.append((item[0], ref[k][0]))
        else:
            kept.append(item)
    if taken:
        hyp[:] = kept[::-1]
        ref[:] = [item for k, item in enumerate(ref) if k not in taken]


def _chunks(matches: list[tuple[int, int]]) -> int:
    chunks = 1
    for (h0, r0), (h1, r1) in zip(matches, matches[1:]):
        if not (h1 == h0 + 1 and r1 == r0 + 1):
            chunks += 1
    return chunks


def meteor(reference_tokens: list[str], hypothesis_tokens: list[str], stem: Stemmer, wordnet: WordNet) -> float:
    """METEOR of pre-normalized token lists (nltk 3.5 semantics)."""
    hyp_len, ref_len = len(hypothesis_tokens), len(reference_tokens)
    if hyp_len == 0 or ref_len == 0:
        return 0.0
    hyp = list(enumerate(hypothesis_tokens))
    ref = list(enumerate(reference_tokens))
    exact: list[tuple[int, int]] = []
    _match(hyp, ref, exact)
    # Stem stage on copies: hyp/ref keep the stem-matched words (nltk 3.5).
    stemmed: list[tuple[int, int]] = []
    if hyp and ref:
        _match(stem.many(hyp), stem.many(ref), stemmed)
    synonyms: list[tuple[int, int]] = []
    for i in range(len(hyp) - 1, -1, -1) if ref else ():
        names = wordnet.synonyms(hyp[i][1])
        for j in range(len(ref) - 1, -1, -1):
            if ref[j][1] in names:
                synonyms.append((hyp[i][0], ref[j][0]))
                hyp.pop(i)
                ref.pop(j)
                break
    matches = sorted(exact + stemmed + synonyms, key=lambda pair: pair[0])  # stable, like nltk
    count = len(matches)
    if count == 0:
        return 0.0
    precision = float(count) / hyp_len
    recall = float(count) / ref_len
    fmean = (precision * recall) / (ALPHA * precision + (1 - ALPHA) * recall)
    fragmentation = float(_chunks(matches)) / count
    penalty = GAMMA * fragmentation**BETA
    return (1 - penalty) * fmean

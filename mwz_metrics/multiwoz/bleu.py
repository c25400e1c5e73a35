"""Corpus BLEU of normalized responses against each style's normalized references."""

from __future__ import annotations

import re
from collections import OrderedDict
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from mwz_metrics.ngrams import clipped_matches, counts_by_order

# One sacrebleu BLEU (default settings) per process; reference statistics are memoized per
# reference string, so systems covering different dialogues (or in another order) share them.
_SCORER: list[Any] = []
_REFERENCE_INFO: dict[str, tuple[tuple[dict[str, int], ...], int]] = {}
_SEGMENTS: OrderedDict[tuple, list] = OrderedDict()
_MAX_SEGMENT_LISTS = 8
# hypothesis -> (its n-gram counts per order, its length, its n-gram total per order) after sacrebleu's preprocessing: the same for every
# style (only the references differ), so each response is tokenized and counted once
_HYPOTHESIS_NGRAMS: dict[str, tuple[tuple[dict[str, int], ...], int, list[int]]] = {}
_MAX_TEXTS = 200_000


def scorer() -> Any:
    """The process's sacrebleu BLEU (default settings: 13a, exponential smoothing, one reference)."""
    if not _SCORER:
        from sacrebleu.metrics import BLEU  # imported when used: keeps evaluate.load fast

        # one reference per segment, as every style here has: the signature says nrefs:1
        _SCORER.append(BLEU(references=[[""]]))
    return _SCORER[0]


# sacrebleu's 13a tokenizer (Tokenizer13a, then TokenizerRegexp). Its first rule pads single ASCII
# characters, a space among them, so most of its matches are spaces: one str.translate does the same
# (the table is built from that very pattern) without a Python call per match.
_PAD_13A = re.compile(r"([\{-\~\[-\` -\&\(-\+\:-\@\/])")
_PAD_13A_TABLE = str.maketrans({chr(c): f" {chr(c)} " for c in range(128) if _PAD_13A.fullmatch(chr(c))})
# its other rules, their templates (r"\1 \2 ", r" \1 \2", r"\1 \2 ") written as functions: faster per match
_SPLIT_AFTER_NON_DIGIT = re.compile(r"([^0-9])([\.,])"), lambda m: f"{m[1]} {m[2]} "
_SPLIT_BEFORE_NON_DIGIT = re.compile(r"([\.,])([^0-9])"), lambda m: f" {m[1]} {m[2]}"
_SPLIT_DASH_AFTER_DIGIT = re.compile(r"([0-9])(-)"), lambda m: f"{m[1]} {m[2]} "


def tokenize_13a(line: str) -> str:
    """sacrebleu's ``Tokenizer13a()(line)`` (the tests compare them on every text here)."""
    line = line.replace("<skipped>", "").replace("-\n", "").replace("\n", " ")
    if "&" in line:
        line = line.replace("&quot;", '"').replace("&amp;", "&").replace("&lt;", "<").replace("&gt;", ">")
    line = f" {line} ".translate(_PAD_13A_TABLE)
    if "." in line or "," in line:  # a rule cannot match without its character
        for pattern, replace in (_SPLIT_AFTER_NON_DIGIT, _SPLIT_BEFORE_NON_DIGIT):
            line = pattern.sub(replace, line)
    if "-" in line:
        pattern, replace = _SPLIT_DASH_AFTER_DIGIT
        line = pattern.sub(replace, line)
    return " ".join(line.split())


def _preprocess(scorer: Any, segment: str) -> str:
    # sacrebleu's BLEU._preprocess_segment with its default 13a tokenizer (the signature says tok:13a)
    if scorer.lowercase:
        segment = segment.lower()
    return tokenize_13a(segment.rstrip())


def ngrams_by_order(line: str, max_order: int) -> tuple[tuple[dict[str, int], ...], int]:
    """The counts of sacrebleu's ``extract_all_word_ngrams(line, 1, max_order)``, one dict per order
    (:func:`mwz_metrics.ngrams.counts_by_order`: n-grams as joined strings), and the token count."""
    tokens = line.split()
    return counts_by_order(tokens, max_order), len(tokens)


def _reference_info(scorer: Any, reference: str) -> tuple[tuple[dict[str, int], ...], int]:
    # sacrebleu's _extract_reference_info for one segment with one reference
    found = _REFERENCE_INFO.get(reference)
    if found is None:
        if len(_REFERENCE_INFO) >= _MAX_TEXTS:
            _REFERENCE_INFO.clear()
        found = ngrams_by_order(_preprocess(scorer, reference), scorer.max_ngram_order)
        _REFERENCE_INFO[reference] = found
    return found


def _hypothesis_ngrams(scorer: Any, hypothesis: str) -> tuple[tuple[dict[str, int], ...], int, list[int]]:
    found = _HYPOTHESIS_NGRAMS.get(hypothesis)
    if found is None:
        if len(_HYPOTHESIS_NGRAMS) >= _MAX_TEXTS:
            _HYPOTHESIS_NGRAMS.clear()
        ngrams, length = ngrams_by_order(_preprocess(scorer, hypothesis), scorer.max_ngram_order)
        # n-grams of order n in a line of `length` tokens
        totals = [max(0, length - n + 1) for n in range(1, scorer.max_ngram_order + 1)]
        found = (ngrams, length, totals)
        _HYPOTHESIS_NGRAMS[hypothesis] = found
    return found


def _segment(scorer: Any, hypothesis: str, reference: tuple[tuple[dict[str, int], ...], int]) -> list[int]:
    # sacrebleu's BLEU._compute_segment_statistics, on n-grams shared across styles: the
    # totals depend on the hypothesis alone, and only n-grams on both sides can match
    hyp_ngrams, hyp_len, totals = _hypothesis_ngrams(scorer, hypothesis)
    ref_ngrams, ref_length = reference
    ref_len = scorer._get_closest_ref_len(hyp_len, [ref_length])
    correct = [clipped_matches(hyp, ref) for hyp, ref in zip(hyp_ngrams, ref_ngrams)]
    return [hyp_len, ref_len, *correct, *totals]


def segment_statistics(flat_references: list[str], flat_hypotheses: list[str]) -> tuple[Any, list]:
    """The scorer and sacrebleu's per-segment statistics of the hypotheses against one
    reference each: corpus BLEU, per-group BLEU and the paired bootstrap all sum these, so
    each system's segments are counted once, each response tokenized once for all styles and
    each reference once per process."""
    bleu_scorer = scorer()
    key = (len(flat_hypotheses), hash(tuple(flat_hypotheses)), hash(tuple(flat_references)))
    segments = _SEGMENTS.get(key)
    if segments is None:
        segments = [
            _segment(bleu_scorer, h, _reference_info(bleu_scorer, r)) for h, r in zip(flat_hypotheses, flat_references)
        ]
        _SEGMENTS[key] = segments
        while len(_SEGMENTS) > _MAX_SEGMENT_LISTS:
            _SEGMENTS.popitem(last=False)
    return bleu_scorer, segments


def score_of(scorer: Any, segments: Sequence[Sequence[int]]) -> float:
    """BLEU of summed segment statistics (exactly sacrebleu's corpus BLEU for all of them)."""
    return scorer._compute_score_from_stats([sum(column) for column in zip(*segments)]).score


def bleu(
    hypotheses: Mapping[str, Sequence[str]], references: Mapping[str, Mapping[str, Sequence[str]]]
) -> tuple[dict[str, float], str]:
    """One sacrebleu corpus BLEU per style, hypotheses aligned turn by turn.

    ``hypotheses``: dialogue key -> normalized responses; ``references``: style ->
    dialogue key -> normalized references. Returns the scores and sacrebleu's
    signature (default BLEU: 13a tokenization, exponential smoothing).
    """
    scores = {}
    signature = ""
    for style, scorer, segments in _style_segments(hypotheses, references):
        scores[style] = score_of(scorer, segments)
        signature = str(scorer.get_signature())
    return scores, signature


def _style_segments(
    hypotheses: Mapping[str, Sequence[str]], references: Mapping[str, Mapping[str, Sequence[str]]]
) -> Iterator[tuple[str, Any, list]]:
    """Per style: the scorer and each turn's segment statistics, the turns in ``hypotheses``' dialogue
    order (a dialogue's references cut to its hypotheses)."""
    keys = list(hypotheses)
    flat_hypotheses = [h for key in keys for h in hypotheses[key]]
    for style, per_dialogue in references.items():
        flat_references = [r for key in keys for r in per_dialogue[key][: len(hypotheses[key])]]
        scorer, segments = segment_statistics(flat_references, flat_hypotheses)
        yield style, scorer, segments


def flat_bleu(
    hypotheses: Sequence[str], references: Sequence[str] | Sequence[Sequence[str]]
) -> tuple[dict[str, Any], list[dict]]:
    """Corpus BLEU of flat responses (``evaluate``'s convention), normalized like mwzeval.

    ``references``: one string per hypothesis, or a list of strings per hypothesis
    (the same number for each, as ``evaluate``'s sacrebleu requires). Hypotheses and
    references are both normalized (placeholders onto the ontology, mwzeval's text
    normalization). Returns ``{"bleu", "sacrebleu"}`` and warnings.
    """
    from sacrebleu.metrics import BLEU

    from mwz_metrics.inputs import InputError
    from mwz_metrics.multiwoz.normalize import ResponseNormalizer, UnknownPlaceholders

    if len(hypotheses) != len(references):
        raise InputError(f"{len(hypotheses)} predictions but {len(references)} references")
    per_hypothesis = [[r] if isinstance(r, str) else list(r) for r in references]
    counts = {len(r) for r in per_hypothesis}
    if len(counts) > 1:
        raise InputError(f"every prediction needs the same number of references; got counts {sorted(counts)}")
    normalizer = ResponseNormalizer()
    unknown = UnknownPlaceholders()
    hyps = [normalizer.normalize(h, f"prediction {i}", unknown) for i, h in enumerate(hypotheses)]
    refs = [[normalizer.normalize(r, f"reference {i}", unknown) for r in rs] for i, rs in enumerate(per_hypothesis)]
    streams = [list(stream) for stream in zip(*refs)]
    scorer = BLEU()
    score = scorer.corpus_score(hyps, streams).score
    warning = unknown.as_warning()
    return {"bleu": score, "sacrebleu": str(scorer.get_signature())}, [warning] if warning else []


def grouped_bleu(
    hypotheses: Mapping[str, Sequence[str]],
    references: Mapping[str, Mapping[str, Sequence[str]]],
    groups: Mapping[str, Sequence[tuple[str, int]]],
) -> dict[str, dict[str, float]]:
    """Corpus BLEU per style over each group of turns (``group -> [(dialogue key, turn)]``).

    Used for error analysis: per-domain BLEU (turns grouped by active domain) and
    per-dialogue BLEU (the turns of one dialogue). Returns ``{style: {group: BLEU}}``.
    """
    out: dict[str, dict[str, float]] = {}
    position: dict[tuple[str, int], int] = {}
    for key in hypotheses:
        for index in range(len(hypotheses[key])):
            position[(key, index)] = len(position)
    # Segment statistics once per style, summed per group: each group's BLEU equals
    # sacrebleu's corpus BLEU of its turns (same sums), without a scorer per group.
    for style, scorer, segments in _style_segments(hypotheses, references):
        out[style] = {}
        for group, turns in groups.items():
            out[style][group] = score_of(scorer, [segments[position[(key, index)]] for key, index in turns])
    return out


def bleu_of_statistics(stats: list[int]) -> float:
    """BLEU of summed sacrebleu statistics (the process's scorer: the same for every style)."""
    return score_of(scorer(), [stats])


def dialogue_statistics(
    inputs: tuple[Mapping[str, list[str]], Mapping[str, Mapping[str, Any]]],
) -> dict[str, dict[str, list[int]]]:
    """Per style, each dialogue's summed sacrebleu statistics of an evaluation's BLEU inputs (its
    hypotheses and references per style, by dialogue: ``Evaluator.last_bleu_inputs``)."""
    import numpy as np

    hypotheses, references = inputs
    order = list(hypotheses)
    out = {}
    for style, _scorer, segments in _style_segments(hypotheses, references):
        matrix = np.asarray(segments, dtype=np.int64)
        # per-dialogue sums: cumulative sums differenced at the dialogue boundaries
        ends = np.cumsum([len(hypotheses[key]) for key in order])
        cumulative = np.vstack([np.zeros((1, matrix.shape[1]), dtype=np.int64), np.cumsum(matrix, axis=0)])
        sums = cumulative[ends] - cumulative[np.concatenate([[0], ends[:-1]])]
        out[style] = {key: [int(x) for x in row] for key, row in zip(order, sums)}
    return out

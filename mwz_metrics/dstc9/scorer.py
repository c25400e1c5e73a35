"""DSTC9 Track 1 scores, identical to the official ``scripts/scores.py``.

Detection precision/recall/F1 over ``target``; for every true-positive
detection, knowledge selection (MRR@5, R@1, R@5) and response generation
(BLEU-1..4, METEOR, ROUGE-1/2/L) are summed, and each is reported as the F1 of
(sum / predicted targets, sum / true targets). Beyond the official scorer the
same scores are given per ``source`` subset of the labels (test: multiwoz,
sf_written, sf_spoken), with a ``signature``.

Differences from the official scorer, on input it cannot handle:
- an entry of another length than the labels is an error (the official one
  silently scores the common prefix);
- a pair whose normalized response (or reference) is empty gets ROUGE 0 (the
  ``rouge`` package raises there); such pairs are counted in ``warnings``.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator, Mapping, Sequence

from mwz_metrics.dstc9 import wordnet as wordnet_module
from mwz_metrics.dstc9.bleu import bleu_from_counts, ngram_counts, precision_counts
from mwz_metrics.dstc9.meteor import Stemmer, meteor
from mwz_metrics.dstc9.normalize import normalize_text
from mwz_metrics.dstc9.parallel import map_halves
from mwz_metrics.dstc9.rouge import rouge_from_tokens
from mwz_metrics.dstc9.validation import EntryError, validate_knowledge, validate_schema, validate_structure
from mwz_plugins.progress import progress
from mwz_plugins.version import __version__

logger = logging.getLogger(__name__)

GENERATION_KEYS = ("bleu-1", "bleu-2", "bleu-3", "bleu-4", "meteor", "rouge_1", "rouge_2", "rouge_l")
SELECTION_KEYS = ("mrr@5", "r@1", "r@5")


def _matches(ref_knowledge: Sequence[Mapping], hyp_knowledge: Sequence[Mapping]) -> list[bool]:
    refs = [(r["domain"], r["entity_id"], r["doc_id"]) for r in ref_knowledge]
    return [(h["domain"], h["entity_id"], h["doc_id"]) in refs for h in hyp_knowledge]


class _Sums:
    """Running sums in the official scorer's order (float addition is not associative)."""

    def __init__(self):
        self.tp = self.fp = self.tn = self.fn = 0.0
        self.selection = [0.0, 0.0, 0.0]
        self.generation = [0.0] * len(GENERATION_KEYS)

    def add(self, selection: Sequence[float], generation: Sequence[float]) -> None:
        self.tp += 1
        for k, value in enumerate(selection):
            self.selection[k] += value
        for k, value in enumerate(generation):
            self.generation[k] += value

    def _prf(self, total: float) -> tuple[float, float, float]:
        predicted, actual = self.tp + self.fp, self.tp + self.fn
        p = total / predicted if predicted > 0.0 else 0.0
        r = total / actual if actual > 0.0 else 0.0
        f = 2 * p * r / (p + r) if p + r > 0.0 else 0.0
        return p, r, f

    def scores(self) -> dict:
        p, r, f = self._prf(self.tp)
        return {
            "detection": {"prec": p, "rec": r, "f1": f},
            "selection": {key: self._prf(v)[2] for key, v in zip(SELECTION_KEYS, self.selection)},
            "generation": {key: self._prf(v)[2] for key, v in zip(GENERATION_KEYS, self.generation)},
        }


class Scorer:
    """Reusable scorer: keeps the stemmer and WordNet caches warm across entries."""

    def __init__(self):
        self.wordnet = wordnet_module.load()
        self.stem = Stemmer()
        self._references: dict[str, tuple] = {}  # reference text -> (tokens, n-gram counts)

    def _reference(self, text: str) -> tuple:
        cached = self._references.get(text)
        if cached is None:
            tokens = normalize_text(text).split()
            cached = (tokens, ngram_counts(tokens))
            if len(self._references) < 100_000:
                self._references[text] = cached
        return cached

    def generation(self, reference: str, hypothesis: str) -> tuple[list[float], bool]:
        """The 8 generation scores of one pair, and whether ROUGE was undefined."""
        ref_tokens, ref_counts = self._reference(reference)
        # Normalized text has no "." left, so rouge sees one sentence: the tokens.
        hyp_tokens = normalize_text(hypothesis).split()
        counts = precision_counts(ref_counts, ngram_counts(hyp_tokens))
        scores = bleu_from_counts(counts, len(ref_tokens), len(hyp_tokens))
        scores.append(meteor(ref_tokens, hyp_tokens, self.stem, self.wordnet))
        rouge = rouge_from_tokens(hyp_tokens, ref_tokens, (counts[0][0], counts[1][0]))
        scores.extend((rouge[0], rouge[1], rouge[2]) if rouge is not None else (0.0, 0.0, 0.0))
        return scores, rouge is None

    def _generations(self, entry: Sequence[Mapping], labels: Sequence[Mapping]) -> list[tuple[list[float], bool]]:
        """:meth:`generation` of every pair both sides mark as a target, in order (two processes
        where a second core is free: the same floats, see :mod:`.parallel`)."""
        pairs = [
            (ref["response"], hyp["response"])
            for ref, hyp in zip(labels, entry)
            if ref["target"] is True and hyp["target"] is True
        ]
        memos = (self.wordnet.memo, self.stem.memo)

        def merge(added: list[dict]) -> None:
            for memo, values in zip(memos, added):
                memo.merge(values)

        return map_halves(
            lambda pair: self.generation(*pair), pairs, child_state=lambda: [m.added for m in memos], merge_state=merge
        )

    def score(
        self,
        entry: Sequence[Mapping],
        labels: Sequence[Mapping],
        *,
        knowledge: Mapping | None = None,
        schema: Mapping | None = None,
        by_source: bool = True,
        official_schema: bool = False,
    ) -> dict:
        """Scores of ``entry`` against ``labels`` (official shape + ``by_source``, ``warnings``)."""
        _validate(entry, labels, knowledge=knowledge, schema=schema, official_schema=official_schema)
        generations = iter(self._generations(entry, labels))
        total = _Sums()
        subsets: dict[str, _Sums] = {}
        empty_rouge = extra_fields = 0
        for ref, hyp in progress(zip(labels, entry), "scoring DSTC9 instances", total=len(labels)):
            sums = [total]
            source = ref.get("source")
            if by_source and source is not None:
                sums.append(subsets.setdefault(source, _Sums()))
            if hyp["target"] is not True and len(hyp) > 1:
                extra_fields += 1
            empty_rouge += _tally(ref, hyp, sums, generations)
        result = _result(total, subsets if by_source else {}, instances=len(labels))
        result["warnings"] = {
            "empty_normalized_response_rouge_0": empty_rouge,
            "non_target_with_extra_fields": extra_fields,
        }
        if empty_rouge:
            logger.warning("%d pair(s) with an empty normalized response or reference got ROUGE 0", empty_rouge)
        self.wordnet.save()  # synonyms and stems of new words, for the next run
        self.stem.save()
        return result

    def options(self) -> dict:
        """What the scores depend on, for the signature's details."""
        return {
            "normalization": "dstc9 scripts/scores.py _normalize_text",
            "bleu": "nltk 3.5 sentence_bleu, weights 1/n, no smoothing (reimplemented)",
            "meteor": "nltk 3.5 single_meteor_score (reimplemented), alpha 0.9, beta 3, gamma 0.5",
            "stemmer": f"Porter, {self.stem.version} (mwz_metrics.dstc9.porter; parity-tested against nltk)",
            "wordnet": {"location": self.wordnet.location, "sha256": self.wordnet.sha256},
            "rouge": "rouge 1.0.0 Rouge() f (reimplemented); empty normalized text -> 0",
        }

    def signature(self, data: dict[str, str], split: str | None, details: dict) -> dict:
        """The result's signature (:class:`mwz_metrics.signature.Signature` as JSON)."""
        from mwz_metrics.signature import Signature

        options: dict[str, object] = {"wordnet": self.wordnet.sha256[:12], "stemmer": self.stem.version}
        if split:
            options["split"] = split
        return Signature.build("dstc9_track1", data=data, options=options, details=details).as_dict()


_DEFAULT: Scorer | None = None


def default_scorer() -> Scorer:
    """The process-wide scorer (its caches stay warm across entries)."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Scorer()
    return _DEFAULT


def score(entry, labels, *, knowledge=None, schema=None, by_source=True) -> dict:
    """Score one entry against labels given in memory; adds a ``signature``."""
    scorer = default_scorer()
    result = scorer.score(entry, labels, knowledge=knowledge, schema=schema, by_source=by_source)
    details = {
        "metric": "dstc9_track1",
        "version": __version__,
        "data": "labels given in memory",
        "options": scorer.options(),
    }
    result["signature"] = scorer.signature({"labels": "in-memory"}, None, details)
    return result


def official_view(result: Mapping) -> dict:
    """Only the keys of an official ``*.score.json``."""
    return {key: dict(result[key]) for key in ("detection", "selection", "generation")}


def _validate(
    entry: Sequence[Mapping],
    labels: Sequence[Mapping],
    *,
    knowledge: Mapping | None,
    schema: Mapping | None,
    official_schema: bool,
) -> None:
    """Refuse an entry the official scorer would refuse, or one that does not pair with the labels."""
    if len(entry) != len(labels) and isinstance(entry, list):
        mismatch = f"the entry has {len(entry)} instances but the labels have {len(labels)}"
        hint = " (an entry of another split? --split names the labels it is scored against)"
        try:
            _validate_shape(entry, schema, official_schema)
        except EntryError as error:  # another split's entry breaks this split's schema: say why first
            raise EntryError(f"{mismatch}{hint}; and {error}") from None
        raise EntryError(mismatch + hint)
    _validate_shape(entry, schema, official_schema)
    if knowledge is not None:
        validate_knowledge(entry, knowledge)


def _validate_shape(entry: Sequence[Mapping], schema: Mapping | None, official_schema: bool) -> None:
    """The split's schema (where given), then the structure the scorer reads."""
    if schema is not None:
        validate_schema(entry, schema, skeletons=official_schema)
    validate_structure(entry)


def _tally(ref: Mapping, hyp: Mapping, sums: Sequence[_Sums], generations: Iterator) -> int:
    """Count one instance into ``sums`` (detection cell, selection, generation); 1 if its ROUGE was undefined."""
    if ref["target"] is not True:
        for s in sums:
            if hyp["target"] is True:
                s.fp += 1
            else:
                s.tn += 1
        return 0
    if hyp["target"] is not True:
        for s in sums:
            s.fn += 1
        return 0
    relevance = _matches(ref["knowledge"], hyp["knowledge"])[:5]
    rank = relevance.index(True) + 1 if True in relevance else 0
    selection = (
        1.0 / rank if rank else 0.0,
        1.0 if relevance[:1] == [True] else 0.0,
        1.0 if rank else 0.0,
    )
    generation, undefined = next(generations)
    for s in sums:
        s.add(selection, generation)
    return int(undefined)


def _result(total: _Sums, subsets: Mapping[str, _Sums], *, instances: int) -> dict:
    """The official shape: scores, ``by_source`` where sources were asked for, and the detection counts."""
    result = total.scores()
    if subsets:
        result["by_source"] = {name: subsets[name].scores() for name in sorted(subsets)}
    result["counts"] = {
        "instances": instances,
        "tp": int(total.tp),
        "fp": int(total.fp),
        "fn": int(total.fn),
        "tn": int(total.tn),
    }
    return result

"""The text fluency is trained on and scored on: MultiWOZ 2.1 system turns, and any system's output.

Training text is the **validation** system turns with their annotated spans written as
placeholders (the form delexicalized systems write); test turns are only ever scored (gold and
the probes). Both are read through :mod:`mwz_datasets` (the pinned 2.1 zip, ``MWZ_MIRROR``, the
cache) by :func:`mwz_metrics.coherence.data.load_corpus`, and the tokenized training sentences are
cached on disk with the derived test-set data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from mwz_metrics.tokens import model_words

_SKIPPED = ("general", "booking")


def system_turn_texts(turns: Sequence[Mapping[str, Any]], *, delexicalized: bool = True) -> list[str]:
    """The system turns of one raw 2.1 dialogue (spans as placeholders when ``delexicalized``)."""
    from mwz_metrics.placeholders import delexicalize_21

    out = []
    for turn in turns[1::2]:
        text = turn["text"]
        out.append(delexicalize_21(text, turn.get("span_info") or []) if delexicalized else text)
    return out


def turn_domains(turns: Sequence[Mapping[str, Any]]) -> list[str]:
    """Per system turn of a raw 2.1 dialogue, its domain: that of its acts, else of the user turn
    before it, else the previous turn's (``general`` at the start)."""
    domains, current = [], "general"
    for index in range(1, len(turns), 2):
        for source in (turns[index], turns[index - 1]):
            acts = source.get("dialog_act") or {}
            named = (
                [a.split("-")[0].lower() for a in acts if a.split("-")[0].lower() not in _SKIPPED]
                if isinstance(acts, dict)
                else []
            )
            if named:
                current = named[0]
                break
        domains.append(current)
    return domains


def training_sentences(data_dir: str | None = None) -> list[list[str]]:
    """The tokenized validation system turns (cached)."""
    from mwz_datasets.corpus import corpus_source, load_corpus
    from mwz_datasets.derived import cached

    def build() -> list[list[str]]:
        corpus = load_corpus("validation", data_dir)
        return [model_words(t) for turns in corpus.dialogues.values() for t in system_turn_texts(turns)]

    checksum = str(corpus_source("validation", data_dir).get("sha256", ""))
    return cached("fluency-validation", [checksum, _code_fingerprint()], build)


def _code_fingerprint() -> str:
    """sha256 of the code that turns corpus text into training sentences."""
    import hashlib
    from pathlib import Path

    here = Path(__file__).resolve().parent
    digest = hashlib.sha256()
    for path in (here / "text.py", here.parent / "tokens.py", here.parent / "placeholders.py"):
        digest.update(path.read_bytes())
    return digest.hexdigest()

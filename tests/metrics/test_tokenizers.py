"""mwzeval's Moses round trip and sacrebleu's 13a tokenizer and n-grams, done here without them, equal theirs."""

from __future__ import annotations

import json
import os
import random
import subprocess
import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sacremoses import MosesDetokenizer, MosesTokenizer

from mwz_metrics.multiwoz import normalize

TOKENIZER, DETOKENIZER = MosesTokenizer(lang="en"), MosesDetokenizer(lang="en")
ASCII = {chr(i) for i in range(128)}
# ASCII text that exercises every rule: quotes, multidots, commas in numbers, escapes, prefixes...
PUNCTUATED = "ab sSnt'\".,-!?$%&|<>[](){}`@#;:/\\0129 \t\n\x01"


def sacremoses_round_trip(text: str) -> str:
    return DETOKENIZER.detokenize(TOKENIZER.tokenize(text))


def _ascii_members(characters: str) -> str:
    # sacremoses' class strings also hold '\n' (its data files' line breaks); no rule sees one
    return "".join(sorted(set(characters) & ASCII - {"\n"}))


def test_the_ascii_classes_are_sacremoses_ones():
    letters = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
    assert _ascii_members(MosesTokenizer.IsAlnum) == "0123456789" + letters
    assert _ascii_members(MosesTokenizer.IsAlpha) == _ascii_members(MosesDetokenizer.IsAlpha) == letters
    assert _ascii_members(MosesTokenizer.IsN) == "0123456789"
    assert _ascii_members(MosesTokenizer.IsSc) == _ascii_members(MosesDetokenizer.IsSc) == "$"
    assert _ascii_members(MosesTokenizer.IsLower) == "".join(sorted(normalize.LOWER))
    prefixes, numeric_only = normalize._prefixes()
    assert prefixes == set(TOKENIZER.NONBREAKING_PREFIXES)
    assert numeric_only == set(TOKENIZER.NUMERIC_ONLY_PREFIXES)


@pytest.mark.parametrize(
    "text",
    [
        "",
        "Mr. Smith lives at No. 5 , not No. five.",
        "the Jones' house, 'tis 5's and I can't... or ..",
        'he said "yes" and `no\' [value_name] | a<b> & c',
        "5,300 people, a,b and 1,5",
        "e.g. this. U.S.A. is it.'",
        "price $ 5 ( or [ 7 ] ) { x }",
        "café, naïve ‘quotes’ — and 東京",  # not ASCII: sacremoses itself
    ],
)
def test_known_cases(text):
    assert normalize.round_trip(text) == sacremoses_round_trip(text)


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=PUNCTUATED, max_size=40))
def test_generated_ascii_text(text):
    assert normalize.round_trip(text) == sacremoses_round_trip(text)


def test_the_responses_and_references_here(shared):
    """Every 4th distinct lowercased text of the 19 systems and the reference files (about 12,000;
    ``MWZ_MOSES_ALL=1``: all 46,636, as measured once: no difference)."""
    texts = set()
    for path in sorted((shared / "data/mwzeval/predictions").glob("*.json")):
        texts.update(turn["response"].lower() for turns in json.loads(path.read_text()).values() for turn in turns)
    for path in sorted((shared / "data/mwzeval/references").glob("*.json")):
        for turns in json.loads(path.read_text()).values():
            texts.update(t.lower() for t in turns if isinstance(t, str))
    assert len(texts) > 40_000
    chosen = sorted(texts) if os.environ.get("MWZ_MOSES_ALL") == "1" else sorted(texts)[::4]
    differing = [t for t in chosen if normalize.round_trip(t) != sacremoses_round_trip(t)]
    assert differing == []


def test_ascii_text_does_not_import_sacremoses():
    code = (
        "import sys; from mwz_metrics.multiwoz import normalize; "
        "print(normalize.round_trip('i have booked it , the reference is [ref] .')); print('sacremoses' in sys.modules)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.split("\n")[:2] == ["i have booked it, the reference is [ref].", "False"]


def test_13a_and_ngrams_are_sacrebleus(shared):
    from sacrebleu.metrics.helpers import extract_all_word_ngrams
    from sacrebleu.tokenizers.tokenizer_13a import Tokenizer13a

    from mwz_metrics.multiwoz.bleu import ngrams_by_order, tokenize_13a

    theirs = Tokenizer13a()
    texts = {"&quot;a&amp;b&lt;c&gt; <skipped> x-\ny", "1.5, 2,3 a.b 4-5 x-y.", "", "  ", "café 東京 - a.b"}
    for path in sorted((shared / "data/mwzeval/predictions").glob("*.json"))[:6]:
        texts.update(turn["response"] for turns in json.loads(path.read_text()).values() for turn in turns)
    rng = random.Random(0)
    texts.update("".join(rng.choice(PUNCTUATED + "&;quotamp-") for _ in range(rng.randint(0, 30))) for _ in range(3000))
    for text in texts:
        tokens = tokenize_13a(text)
        assert tokens == theirs(text), text
        by_order, length = ngrams_by_order(tokens, 4)
        ngrams = {tuple(gram.split(" ")): count for counts in by_order for gram, count in counts.items()}
        assert (ngrams, length) == extract_all_word_ngrams(tokens, 1, 4), text

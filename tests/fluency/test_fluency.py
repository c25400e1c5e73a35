"""Sentence fluency: the shipped default model, probes on a slice, one number through every door."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest
from conftest import shared_path, tiny_causal_lm

from mwz_metrics.fluency import api
from mwz_metrics.fluency.model import NgramFluency, same_identity, shipped_manifest
from mwz_metrics.fluency.ngram import KneserNey


@pytest.fixture(scope="module")
def model(synth22_module_env):
    return api.shared_model()


def test_kneser_ney_is_a_distribution_and_prefers_seen_text():
    sentences = [s.split() for s in ("the hotel is in the north", "the hotel is cheap", "a cheap hotel in the north")]
    lm = KneserNey(sentences, order=3)
    vocabulary = {w for s in sentences for w in s} | {"</s>"}
    for context in (["<s>", "<s>"], ["the", "hotel"], ["unseen", "words"]):
        # the vocabulary and one unseen word (all unseen words share one uniform share): exactly 1
        total = sum(lm.probability(context, w) for w in vocabulary) + lm.probability(context, "never-seen")
        assert total == pytest.approx(1.0, abs=1e-9)
    assert lm.cross_entropy("the hotel is cheap".split()) < lm.cross_entropy("cheap is hotel the".split())
    assert KneserNey(sentences, order=3).identity() == lm.identity()  # counting is deterministic


def test_the_default_model_is_the_shipped_one(model):
    manifest = shipped_manifest()
    assert same_identity(model.identity(), manifest["identity"]) and model.identity()["matches_manifest"]
    gold = api.score_gold(model=model, resamples=0)
    reference = manifest["reference"]
    assert gold["responses"] == reference["responses"] == 7372
    assert abs(gold["fluency"] - reference["test_system_turns_delexicalized"]) <= 1e-6
    # a second model counted from the same text gives the same floats
    assert NgramFluency().scores(["there are [value_choice] trains ."]) == model.scores(
        ["there are [value_choice] trains ."]
    )


def test_probe_ordering_on_a_slice(model):
    """The probe table's conclusions on 60 dialogues (the model card has all 1000)."""
    from mwz_metrics.fluency.research import probes

    material = probes.gold_material(dialogues=60)
    table = probes._probe_table(model, material, resamples=300)
    rows = table["probes"]
    for name in ("shuffled_words", "keyword_list", "repeated_word", "truncated", "echo_user"):
        assert rows[name]["minus_gold"]["low"] > 0, name
    assert (
        rows["shuffled_words"]["minus_gold"]["difference"] > 3.0
        and rows["keyword_list"]["minus_gold"]["difference"] > 3.0
    )
    assert rows["constant"]["minus_gold"]["high"] < 0  # fluent but useless: fluency alone does not rank systems


def test_placeholder_styles_score_alike(model):
    texts = [
        "[value_name] is a [value_pricerange] restaurant in the [value_area] .",
        "[restaurant_name] is a [restaurant_pricerange] restaurant in the [restaurant_area] .",
        "NAME is a PRICE restaurant in the AREA .",
    ]
    scores = model.scores(texts)
    assert max(scores) - min(scores) <= 0.01


def test_one_number_through_every_door(synth22_module_env, model, tmp_path):
    """evaluate.load("mwz_fluency"), mwz fluency, mwz evaluate/compare --fluency and mwz interact --fluency."""
    import evaluate

    import mwz_metrics  # noqa: F401  (routes the module name)

    full = json.loads(shared_path("data", "mwzeval", "predictions", "ubar.json").read_text())
    subset = {k: full[k] for k in sorted(full)[:25]}
    path = tmp_path / "ubar25.json"
    path.write_text(json.dumps(subset))
    expected = api.score_predictions(subset, model=model)["fluency"]
    assert evaluate.load("mwz_fluency").compute(predictions=subset)["fluency"] == expected

    environment = {**os.environ, "MWZ_MIRROR": str(synth22_module_env)}

    def mwz(*args):
        out = subprocess.run(
            [sys.executable, "-m", "mwz_metrics.cli", "-q", *args], env=environment, capture_output=True, text=True
        )
        assert out.returncode == 0, out.stderr
        return out.stdout

    assert json.loads(mwz("fluency", "-i", str(path), "--json"))["ubar25"]["fluency"] == expected
    assert json.loads(mwz("evaluate", "-i", str(path), "-r", "--fluency", "--json"))["fluency"]["fluency"] == expected
    compared = json.loads(mwz("compare", "-i", str(path), "-r", "--fluency", "--format", "json"))
    row = next(r for r in compared["rows"] if r["metric"] == "fluency" and r["domain"] == "total")
    assert row["value"] == expected and row["ci_low"] <= expected <= row["ci_high"]
    sessions = tmp_path / "replay.jsonl"
    interacted = json.loads(
        mwz("interact", "--system", str(path), "--simulator", "replay", "-o", str(sessions), "--fluency", "--json")
    )
    assert interacted["fluency"] == expected  # replayed, the file's responses are the sessions' responses
    assert "fluency" in interacted["signature"] and "model:kn4" in interacted["signature"]["line"]


def test_bad_inputs_get_one_line(synth22_module_env, tmp_path):
    environment = {**os.environ, "MWZ_MIRROR": str(synth22_module_env)}
    broken = tmp_path / "broken.json"
    broken.write_text("{not json")
    empty = tmp_path / "empty.json"
    empty.write_text("{}")
    for path, words in ((broken, "not JSON"), (empty, "no dialogue")):
        out = subprocess.run(
            [sys.executable, "-m", "mwz_metrics.cli", "fluency", "-i", str(path)],
            env=environment,
            capture_output=True,
            text=True,
        )
        assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
        assert out.stderr.count(str(path)) == 1 and words in out.stderr


def test_sgd_is_read_in_both_forms(tmp_path):
    from mwz_datasets.sgd import iter_dialogues
    from mwz_metrics.fluency.research.train import sgd_system_texts

    upstream = [
        {
            "dialogue_id": "1_00000",
            "services": ["Restaurants_2"],
            "turns": [
                {"speaker": "USER", "utterance": "Find me a table.", "frames": []},
                {
                    "speaker": "SYSTEM",
                    "utterance": "Sino is in San Jose.",
                    "frames": [
                        {
                            "slots": [
                                {"slot": "restaurant_name", "start": 0, "exclusive_end": 4},
                                {"slot": "city", "start": 11, "exclusive_end": 19},
                            ]
                        }
                    ],
                },
            ],
        }
    ]
    folder = tmp_path / "train"
    folder.mkdir()
    (folder / "dialogues_001.json").write_text(json.dumps(upstream))
    line = {
        "dialogue_id": "1_00000",
        "services": ["Restaurants_2"],
        "turns": [
            ["user", "Find me a table.", []],
            ["system", "Sino is in San Jose.", [["restaurant_name", 0, 4], ["city", 11, 19]]],
        ],
    }
    (tmp_path / "turns.jsonl").write_text(json.dumps(line) + "\n")
    assert list(iter_dialogues(tmp_path / "train")) == list(iter_dialogues(tmp_path / "turns.jsonl"))
    assert sgd_system_texts(str(tmp_path / "turns.jsonl")) == ["[NAME] is in [PLACE]."]


def test_a_causal_lm_is_fine_tuned_reproducibly_and_scores(synth22_module_env, tmp_path):
    """No download: a tiny GPT-2 with a word-level tokenizer built here stands in for gpt2."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")

    from mwz_metrics.fluency.model import CausalLMFluency
    from mwz_metrics.fluency.research.train import fine_tune
    from mwz_metrics.fluency.text import training_sentences

    texts = [" ".join(s) for s in training_sentences()[:2000]]
    base = tiny_causal_lm(tmp_path / "tiny", texts)
    first = fine_tune(str(base), tmp_path / "a", max_steps=3, batch_size=8, seed=1)
    second = fine_tune(str(base), tmp_path / "b", max_steps=3, batch_size=8, seed=1)
    assert first["steps"] == 3 and first["final_loss"] == second["final_loss"]
    responses = ["there are [value_choice] trains .", "trains there . are"]
    a, b = CausalLMFluency(str(tmp_path / "a")), CausalLMFluency(str(tmp_path / "b"))
    assert a.scores(responses) == pytest.approx(b.scores(responses), abs=1e-6)
    assert a.identity()["weights_sha256"] == b.identity()["weights_sha256"]


def test_a_causal_lms_score_is_per_subword_token_and_the_signature_says_so(synth22_module_env, tmp_path):
    """Under a subword tokenizer a word is several tokens: the Sent-Score averages over the tokens (and the
    end of text), as Cheng et al. score with GPT-2, and the signature says ``tokens=subwords``."""
    torch = pytest.importorskip("torch")
    transformers = pytest.importorskip("transformers")

    from mwz_metrics.fluency import api
    from mwz_metrics.fluency.model import CausalLMFluency, NgramFluency
    from mwz_metrics.tokens import model_words

    texts = ["there are [value_choice] trains to cambridge .", "the restaurant serves italian food ."] * 20
    torch.manual_seed(0)
    tiny_causal_lm(tmp_path / "bpe", texts, bpe=True, positions=64, width=16)
    fast = transformers.AutoTokenizer.from_pretrained(tmp_path / "bpe")
    model = CausalLMFluency(str(tmp_path / "bpe"))
    response = "the restaurant serves cambridge food ."
    words = model_words(response)
    ids = fast(fast.bos_token + " ".join(words) + fast.eos_token)["input_ids"]
    assert len(ids) - 1 > len(words) + 1  # more subword tokens (after the context token) than words and the end
    with torch.no_grad():
        logits = model.model(torch.tensor([ids])).logits[0, :-1]
    per_token = torch.nn.functional.cross_entropy(logits, torch.tensor(ids[1:])).item()  # the mean over tokens
    assert model.scores([response])[0] == pytest.approx(per_token, rel=1e-5)
    assert model.tokens == "subwords" and NgramFluency.tokens == "words"
    scored = api.score_predictions({"sng0073": [{"response": response}]}, model=model, resamples=0)
    assert "tokens=subwords" in scored["signature"]["line"] and "unit=nats per token" in scored["signature"]["line"]

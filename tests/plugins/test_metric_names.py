"""One registry, one name per metric (issue 50, item 3): ``mwz_success`` is what ``evaluate.load``,
``--metric``, the library and ``mwz plugins`` call it; the short names (``success``) are old names for
one release, each use saying so; a contributor's ``DialogueMetricEntry`` still registers, with a
:class:`DeprecationWarning`."""

from __future__ import annotations

import warnings

import pytest
from conftest import run_cli, shared_path

import mwz_plugins
from mwz_metrics import metric
from mwz_plugins import DialogueMetricEntry, MetricEntry, PluginError

OLD = {
    "success": "mwz_success",
    "bleu": "mwz_bleu",
    "richness": "mwz_richness",
    "dst": "mwz_dst",
    "coherence": "mwz_session_coherence",
    "fluency": "mwz_fluency",
    "inform": "mwz_inform",
}


def test_each_metric_is_one_entry_and_its_old_name_finds_it_with_a_warning():
    registry = mwz_plugins.get_registry()
    assert {old: registry.metric_name(old) for old in OLD} == OLD
    assert registry.metric_aliases == OLD  # nothing else has an old name
    for new in OLD.values():
        assert registry.metric_name(new) == new and registry.metrics[new].has_script
    assert not {"success", "bleu", "dst"} & set(registry.metrics)  # one name each in the one table
    with pytest.warns(DeprecationWarning, match="metric 'success' is now 'mwz_success'"):
        assert registry.metrics["success"] is registry.metrics["mwz_success"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert metric.entry("mwz_bleu").key == "bleu"
        assert metric.key("mwz_session_coherence") == metric.key("coherence") == "coherence"
        assert metric.MetricRequest.parse("mwz_success:matching=subset").name == "mwz_success"
    with pytest.warns(DeprecationWarning, match="metric 'bleu' is now 'mwz_bleu'"):
        assert metric.entry("bleu") is registry.metrics["mwz_bleu"]
    with pytest.warns(DeprecationWarning, match="metric 'success' is now 'mwz_success'"):
        assert metric.MetricRequest.parse("success:matching=subset").options == (("matching", "subset"),)


def test_a_request_built_with_an_old_name_says_so_when_loaded_and_once():
    with pytest.warns(DeprecationWarning, match="metric 'success' is now 'mwz_success'") as caught:
        loaded = metric.load_all([metric.MetricRequest("success")])
    assert list(loaded) == ["success"] and len([w for w in caught if w.category is DeprecationWarning]) == 1
    with pytest.warns(DeprecationWarning) as caught:  # parsed: said there, not again when loaded
        metric.load_all([metric.MetricRequest.parse("bleu")])
    assert len([w for w in caught if w.category is DeprecationWarning]) == 1
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        metric.load_all([metric.MetricRequest("mwz_success"), metric.MetricRequest.parse("dst", warn=False)])


def test_a_module_script_alone_is_not_a_metric_of_dialogues():
    with pytest.raises(metric.InputError, match=r"--metric mwz_inform: mwz_inform is an evaluate module script only"):
        metric.entry("mwz_inform")
    with pytest.raises(metric.InputError, match=r"--metric nope: no such metric is registered \(registered: mwz_bleu"):
        metric.entry("nope")


def test_evaluate_load_takes_the_name_and_the_old_name_with_a_warning():
    import evaluate

    import mwz_metrics  # noqa: F401  (routes the registered names)

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        new = evaluate.load("mwz_inform")
    with pytest.warns(DeprecationWarning, match="metric 'inform' is now 'mwz_inform'") as said:
        old = evaluate.load("inform")
    assert old.name == new.name == "mwz_inform"
    assert said[0].filename == __file__  # it points at the caller's evaluate.load


def test_the_command_line_takes_both_and_says_the_old_one_once(capsys, caplog, monkeypatch):
    from mwz_metrics.cli import main

    monkeypatch.setenv("MWZ_MIRROR", str(shared_path("data", "mirror-synth22")))
    predictions = str(shared_path("data", "mwzeval", "predictions", "ubar.json"))
    code, new, _ = run_cli(capsys, "evaluate", "-i", predictions, "--metric", "mwz_richness", "--json")
    assert code == 0 and '"richness"' in new
    code, old, err = run_cli(capsys, "evaluate", "-i", predictions, "--metric", "richness", "--json")
    assert (code, old, err) == (0, new, "")  # the same figures under the same keys; -q says nothing
    with caplog.at_level("WARNING", logger="mwz"):
        assert main(["evaluate", "-i", predictions, "--metric", "richness", "--metric", "richness"]) == 0
    said = [r.getMessage() for r in caplog.records if "is now" in r.getMessage()]
    assert said == ["--metric richness is now --metric mwz_richness (the old name works until the next release)"]
    capsys.readouterr()


def test_mwz_plugins_lists_one_name_per_metric_with_its_old_name(capsys):
    code, out, _ = run_cli(capsys, "plugins")
    line = next(line for line in out.splitlines() if line.strip().startswith("metrics:"))
    assert "mwz_success@1.0.0 (was success)" in line and "mwz_inform (was inform)" in line
    assert "dialogue_metrics" not in out and code == 0


def test_an_old_dialogue_metric_entry_still_registers_with_a_warning(in_process_plugin):
    def metrics(register):
        register(MetricEntry("mwz_shout", "mwz_metrics.modules", "mwz_bleu/mwz_bleu.py", "a script"))
        register(DialogueMetricEntry("mwz_shout", "0.1", "mwz_metrics.fluency.metric:make", higher_is_better=False))
        register(DialogueMetricEntry("whisper", "0.2", "mwz_metrics.fluency.metric:make"))

    in_process_plugin("shouting", mwz_register_dialogue_metrics=metrics)
    with pytest.warns(DeprecationWarning) as caught:
        registry = mwz_plugins.get_registry()
    said = [str(w.message) for w in caught]
    assert any("DialogueMetricEntry 'mwz_shout'" in m for m in said) and any("'whisper'" in m for m in said)
    shout = registry.metrics["mwz_shout"]  # its script and its loader: one entry, as two used to be
    assert (shout.script, shout.loader, shout.version, shout.higher_is_better) == (
        "mwz_bleu/mwz_bleu.py",
        "mwz_metrics.fluency.metric:make",
        "0.1",
        False,
    )
    assert registry.metrics["whisper"].key == "whisper" and "whisper" in registry.dialogue_metrics
    made, found = metric.load(metric.MetricRequest("whisper"))
    assert found.name == "whisper" and made.name == "fluency"


def test_an_old_name_taken_twice_is_refused(in_process_plugin):
    def metrics(register):
        register(MetricEntry("mwz_loud", loader="x.y:make", version="1.0", aliases=("success",)))

    in_process_plugin("loud", mwz_register_metrics=metrics)
    with pytest.raises(PluginError, match="metric 'mwz_loud' of plugin 'loud': its old name 'success' names metric"):
        mwz_plugins.get_registry()

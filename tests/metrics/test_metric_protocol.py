"""Every metric behind one interface: mwzeval's four, coherence and fluency registered as a contributor's
metric is (``mwz_register_metrics``, one name each), answering :mod:`mwz_metrics.metric`'s protocol, and the
commands taking each by name (their older flags are spellings of names)."""

from __future__ import annotations

import json

import pytest
from conftest import run_cli, shared_path

from mwz_metrics import metric
from mwz_metrics.inputs import InputError
from mwz_plugins import get_registry


@pytest.fixture()
def small_system(tmp_path, monkeypatch):
    """Twelve dialogues of a shared system's predictions, scored against the full-scale 2.2 mirror."""
    synth22 = shared_path("data", "mirror-synth22")
    monkeypatch.setenv("MWZ_MIRROR", str(synth22))
    augpt = json.loads(shared_path("data", "mwzeval", "predictions", "augpt.json").read_text(encoding="utf-8"))
    path = tmp_path / "augpt12.json"  # states and active domains: every metric of the group applies
    path.write_text(json.dumps({k: augpt[k] for k in sorted(augpt)[:12]}), encoding="utf-8")
    return path


def test_every_metric_of_dialogues_is_registered_alike():
    entries = get_registry().dialogue_metrics
    mwzeval = ["mwz_success", "mwz_bleu", "mwz_richness", "mwz_dst"]
    assert {*mwzeval, "mwz_session_coherence", "mwz_fluency"} <= set(entries)
    assert [n for n, e in entries.items() if e.group == "mwzeval"] == mwzeval
    assert [n for n, e in entries.items() if e.default] == mwzeval[:3]
    assert {n for n, e in entries.items() if e.needs_references} == {"mwz_bleu", "mwz_dst"}
    assert not entries["mwz_fluency"].higher_is_better
    for key in ("success", "bleu", "richness", "dst", "fluency"):
        made, found = metric.load(metric.MetricRequest(f"mwz_{key}"))
        # one name, the module script's; the figures keep their short key
        assert isinstance(made, metric.Metric) and made.name == key == found.key and found.has_script


def test_defaults_come_from_the_registry_when_none_of_their_group_is_asked():
    names = [r.name for r in metric.with_defaults([metric.MetricRequest("mwz_fluency")])]
    assert names == ["mwz_success", "mwz_bleu", "mwz_richness", "mwz_fluency"]
    assert [r.name for r in metric.with_defaults([metric.MetricRequest("mwz_dst")])] == ["mwz_dst"]
    assert [r.name for r in metric.with_defaults([metric.MetricRequest("dst")])] == ["dst"]  # an old name too
    loaded = metric.load_all([metric.MetricRequest(n) for n in ("mwz_fluency", "mwz_dst", "mwz_success")])
    assert list(loaded) == ["success", "dst", "fluency"]  # the registry's order, by key
    # groups are the registry's declared ones: success and dst join into one metric, fluency has none
    assert loaded["success"] is loaded["dst"] and loaded["success"].name == "success+dst"
    assert loaded["fluency"].name == "fluency"
    # how each is shown: its own presentation (a member's, for a joined one), direction and version the registry's
    shown = metric.presentations(loaded)
    registry = get_registry().metrics
    assert shown["fluency"] == metric.Presentation(
        label="sent-score", digits=3, higher_is_better=False, version=registry["mwz_fluency"].version
    )
    assert shown["dst"].lines is not None and shown["success"].lines is not None
    assert shown["success"].version == registry["mwz_success"].version and shown["success"].higher_is_better


def test_a_result_holds_figures_only_and_inputs_are_never_written():
    import dataclasses

    fields = {f.name for f in dataclasses.fields(metric.MetricResult)}
    assert not fields & {"higher_is_better", "version", "label", "digits", "lines", "memo"}  # the presentation's
    assert "memo" not in {f.name for f in dataclasses.fields(metric.MetricInputs)}
    result = metric.MetricResult("x", 1.0)
    with pytest.raises(dataclasses.FrozenInstanceError):
        result.value = 2.0  # type: ignore[misc]


def test_flags_are_spellings_of_registered_names(small_system, capsys):
    code, spelled, err = run_cli(capsys, "evaluate", "-i", str(small_system), "-b", "-s", "--dst", "--json")
    assert code == 0, err
    code, named, err = run_cli(
        capsys,
        "evaluate",
        "-i",
        str(small_system),
        "--metric",
        "dst",
        "--metric",
        "bleu",
        "--metric",
        "success",
        "--json",
    )
    assert code == 0, err
    assert named == spelled
    result = json.loads(named)
    assert result["richness"] is None and result["dst"]["joint_accuracy"] is not None
    assert "metrics=bleu+success+dst" in result["signature"]["line"]


def test_a_metric_option_is_the_command_setting(small_system, capsys):
    code, flag, err = run_cli(capsys, "evaluate", "-i", str(small_system), "-s", "--matching", "intersection", "--json")
    assert code == 0, err
    code, option, err = run_cli(
        capsys, "evaluate", "-i", str(small_system), "--metric", "success:matching=intersection", "--json"
    )
    assert code == 0, err
    assert option == flag and "matching=intersection" in json.loads(option)["signature"]["line"]
    code, flag, err = run_cli(capsys, "evaluate", "-i", str(small_system), "-b", "--style", "mwz22", "--style", "hdsa")
    assert code == 0, err
    code, option, err = run_cli(capsys, "evaluate", "-i", str(small_system), "--metric", "bleu:styles=mwz22+hdsa")
    assert code == 0, err
    assert option == flag and "hdsa " in option and "augpt" not in option.split("signature:")[0]
    code, out, err = run_cli(capsys, "evaluate", "-i", str(small_system), "--metric", "success:optimistic=maybe")
    assert code == 2 and out == "" and "optimistic is true or false" in err and len(err.strip().splitlines()) == 1
    code, out, err = run_cli(capsys, "evaluate", "-i", str(small_system), "--metric", "richness:styles=damd")
    assert code == 2 and "richness takes no options, got styles" in err


def test_each_metric_scored_alone_equals_the_group_pass(small_system):
    settings = metric.EvaluationSettings(per_dialogue=True, dialogue_scores=True)
    inputs = metric.MetricInputs(source=str(small_system), settings=settings)
    names = ("success", "bleu", "richness")
    together = metric.score(metric.load_all([metric.MetricRequest(f"mwz_{n}") for n in names]), inputs)
    for name in names:
        alone = metric.score(metric.load_all([metric.MetricRequest(f"mwz_{name}")]), inputs)[name]
        assert alone.section() == together[name].section()
        assert [(f.name, f.value) for f in alone.each_figure()] == [
            (f.name, f.value) for f in together[name].each_figure()
        ]
    # the group's members join into one metric with one evaluator, kept in it (not in the inputs) for the next system
    loaded = metric.load_all([metric.MetricRequest(n) for n in ("mwz_success", "mwz_bleu")])
    first = metric.score(loaded, inputs)
    joined = loaded["success"]
    kept = dict(joined.cache)
    assert loaded["bleu"] is joined and kept
    again = metric.score(loaded, inputs)
    assert joined.cache.keys() == kept.keys() and all(joined.cache[k] is kept[k] for k in kept)
    assert again["success"].section() == together["success"].section()
    # each member's result holds what the pass shares, once for all: mwzeval's keys and signature, the responses
    assert first["success"].shared is first["bleu"].shared and "signature" in first["success"].shared
    assert first["success"].responses is first["bleu"].responses
    figures = {f.name: f for r in together.values() for f in r.each_figure()}
    assert {"inform", "success", "bleu:mwz22", "richness:msttr"} <= set(figures)
    # what each dialogue contributes gives back the figure itself
    for name in ("inform", "success", "bleu:mwz22"):
        assert figures[name].scores.exact() == pytest.approx(figures[name].value, abs=0.05)  # mwzeval rounds rates
    assert sorted(together["success"].dialogue_columns()) == ["active_domains", "inform", "success"]


def test_a_metric_that_needs_references_refuses_free_sessions(small_system):
    from mwz_metrics.interactive.harness import api

    run = api.prepare("oracle", simulator="agenda", goals=2)
    sessions = api.run_sessions(run, output=None)
    with pytest.raises(InputError, match="bleu: it needs the test set's references"):
        api.score(sessions, run.config, metrics=["mwz_bleu"], resamples=0)
    scored = api.score(sessions, run.config, metrics=["mwz_bleu"], resamples=0, scorable_only=True)
    assert "bleu" not in scored and "bleu=false" in scored["signature"]["line"]
    assert "success" in scored and scored["richness"]["num_unigrams"] > 0


def test_static_evaluation_pays_for_static_evaluation(small_system):
    """``mwz evaluate -i predictions.json -s -r`` imports neither numpy (only a result with per-dialogue
    scores needs the bootstrap) nor the interactive room's scoring (a file without a session header)."""
    import subprocess
    import sys

    probe = (
        "import sys\nfrom mwz_metrics.cli import main\n"
        f"code = main(['-q', 'evaluate', '-i', {str(small_system)!r}, '-s', '-r'])\n"
        "heavy = [m for m in sys.modules if m == 'numpy' or m.startswith('mwz_metrics.interactive.scoring')]\n"
        "print('LOADED:', code, *heavy)\n"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout
    assert out.splitlines()[-1] == "LOADED: 0"


def test_the_success_path_calls_down_only(small_system):
    """benchmarks/metric_path.py on ``mwz evaluate -i ... -s``: no call goes back up into a module that
    imports its caller (a metric's module imports the protocol's types, never the module that loads it),
    and the path reaches Success through at most 8 modules (issue 50, item 3: 17 before the issue, 11 with
    the file's kind, mwzeval's metrics and its Moses tokenizer in modules of their own)."""
    import importlib.util
    from pathlib import Path

    script = Path(__file__).resolve().parents[2] / "benchmarks" / "metric_path.py"
    spec = importlib.util.spec_from_file_location("_metric_path", script)
    assert spec is not None and spec.loader is not None
    tracer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tracer)
    found = tracer.trace(str(small_system))
    assert found["calls_up"] == []
    assert found["modules"][0] == "mwz_metrics.cli.evaluate" and "mwz_metrics.multiwoz.success" in found["modules"]
    assert found["count"] <= 8, found["modules"]


def test_three_types_lie_between_a_request_and_a_printed_figure():
    import inspect
    import re

    own = {n for n, v in vars(metric).items() if inspect.isclass(v) and v.__module__ == metric.__name__}
    assert own == {"MetricRequest"}  # the rest are the protocol's, from metric_types
    steps = (metric.load_all, metric.presentations, metric.score, metric.section_lines, metric.assemble)
    named = {word for step in steps for word in re.findall(r"[A-Z]\w+", str(inspect.signature(step)))}
    # the request, the result and its presentation; beside them the metric that scores and what it scores
    assert named - {"Sequence", "Mapping", "None", "Any"} == {
        "MetricRequest",
        "MetricResult",
        "Presentation",
        "Metric",
        "MetricInputs",
    }


def test_a_metric_outside_a_group_that_sets_shared_is_a_bug():
    class Sharing:  # a fluency stand-in whose result claims a group's keys
        name = "fluency"

        def score(self, inputs):
            return metric.MetricResult("fluency", 1.0, shared={"coverage": {}})

    inputs = metric.MetricInputs(predictions={"mul0001": [{"response": "hello"}]})
    with pytest.raises(TypeError, match="metric fluency set MetricResult.shared.*a bug"):
        metric.score({"fluency": Sharing()}, inputs)

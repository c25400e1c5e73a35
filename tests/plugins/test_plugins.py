"""The plugin manager and registry: loading, allowlist, duplicates, listing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import mwz_plugins
from mwz_plugins import DelexStyle, NormalizerChain, PluginError, ValueNormalizer, manager
from mwz_plugins.version import __version__

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


def test_duplicate_names_are_rejected_naming_both_plugins(in_process_plugin):
    def styles(register):
        register(DelexStyle("mwz22", "9.9", {"name": "NAME"}))

    in_process_plugin("dup_plugin", mwz_register_delex_styles=styles)
    with pytest.raises(PluginError, match=r"duplicate style name 'mwz22'.*mwz-mwz22-style.*dup_plugin"):
        mwz_plugins.get_registry()


def test_placeholders_outside_the_ontology_are_rejected(in_process_plugin):
    def styles(register):
        register(DelexStyle("bad", "1.0", {"venue": "VENUE"}))

    in_process_plugin("bad_style", mwz_register_delex_styles=styles)
    with pytest.raises(PluginError, match="outside the ontology.*VENUE"):
        mwz_plugins.get_registry()


def test_conflicting_placeholder_mappings_are_rejected(in_process_plugin):
    def styles(register):
        register(DelexStyle("clash", "1.0", {"restaurant_name": "FOOD"}))

    in_process_plugin("clash_style", mwz_register_delex_styles=styles)
    with pytest.raises(PluginError, match=r"\[restaurant_name\] maps to NAME.*FOOD"):
        mwz_plugins.get_registry()


def test_chain_with_unknown_step_is_rejected(in_process_plugin):
    def normalizers(register):
        register(NormalizerChain("broken", "1.0", ("mwzeval-name", "no-such")))

    in_process_plugin("broken_chain", mwz_register_value_normalizers=normalizers)
    with pytest.raises(PluginError, match="unknown normalizers.*no-such"):
        mwz_plugins.get_registry()


def test_wrong_type_and_missing_version_are_rejected(in_process_plugin):
    def normalizers(register):
        register(ValueNormalizer("nover", "", lambda d, s, v: v))

    in_process_plugin("nover", mwz_register_value_normalizers=normalizers)
    with pytest.raises(PluginError, match="has no version"):
        mwz_plugins.get_registry()


def test_an_in_process_plugin_contributes_and_is_listed(in_process_plugin):
    def normalizers(register):
        register(ValueNormalizer("upper", "1.2", lambda d, s, v: v.upper()))
        register(NormalizerChain("shout", "1.2", ("mwzeval-name", "upper")))

    in_process_plugin("shouting", mwz_register_value_normalizers=normalizers)
    registry = mwz_plugins.get_registry()
    assert registry.chain("shout")("hotel", "name", " Nando's ") == "NANDOS"
    assert manager.registered_by("shouting") == {"normalizers": ["upper@1.2"], "chains": ["shout@1.2"]}


def test_registry_is_built_lazily_and_cached():
    manager.reset()
    assert manager._registry is None
    first = mwz_plugins.get_registry()
    assert mwz_plugins.get_registry() is first


def test_allowlist_restricts_loading(monkeypatch):
    monkeypatch.setenv("MWZ_PLUGINS", "mwz-mwz22-*")
    manager.reset()
    try:
        registry = mwz_plugins.get_registry()
        assert set(registry.styles) == {"mwz22"}
        assert registry.chains == {} and registry.datasets == {}
    finally:
        monkeypatch.delenv("MWZ_PLUGINS")
        manager.reset()


def _run(args, env=None, **kwargs):
    return subprocess.run([sys.executable, *args], capture_output=True, text=True, env=env, timeout=120, **kwargs)


def test_cli_lists_plugins_with_versions():
    out = _run(["-m", "mwz_metrics.cli", "plugins", "--json"])
    assert out.returncode == 0, out.stderr
    rows = {row["plugin"]: row for row in json.loads(out.stdout)}
    assert rows["mwz-mwz22-style"]["distribution"] == "mwz-eval"
    assert rows["mwz-mwz22-style"]["version"] == __version__
    assert rows["mwz-mwz22-style"]["registers"] == {"styles": ["mwz22@1.0.0"]}
    assert "chains" in rows["mwz-mwzeval-normalizers"]["registers"]


@pytest.fixture(scope="module")
def installed_example_plugin(tmp_path_factory):
    """The tiny test package, really installed (pip --target) into a fresh folder."""
    target = tmp_path_factory.mktemp("site")
    build = tmp_path_factory.mktemp("build")
    source = build / "example_plugin"
    subprocess.run(["cp", "-r", str(FIXTURES / "example_plugin"), str(source)], check=True)
    result = _run(
        [
            "-m",
            "pip",
            "install",
            "-q",
            "--no-deps",
            "--no-build-isolation",
            "--no-index",
            "--target",
            str(target),
            str(source),
        ]
    )
    assert result.returncode == 0, result.stderr
    assert list(target.glob("mwz_example_plugin-0.3.1.dist-info"))
    return target


def test_entry_point_plugin_is_loaded_and_listed(installed_example_plugin):
    env = dict(os.environ, PYTHONPATH=str(installed_example_plugin))
    env.pop("MWZ_PLUGINS", None)
    out = _run(["-m", "mwz_metrics.cli", "plugins", "--json"], env=env)
    assert out.returncode == 0, out.stderr
    rows = {row["plugin"]: row for row in json.loads(out.stdout)}
    assert rows["example"]["distribution"] == "mwz-example-plugin"
    assert rows["example"]["version"] == "0.3.1"
    assert rows["example"]["registers"]["styles"] == ["example@0.3.1"]
    assert rows["example"]["registers"]["chains"] == ["example@0.3.1"]


def test_allowlist_keeps_third_party_plugins_out(installed_example_plugin):
    env = dict(os.environ, PYTHONPATH=str(installed_example_plugin), MWZ_PLUGINS="mwz-*")
    out = _run(["-m", "mwz_metrics.cli", "plugins", "--json"], env=env)
    assert out.returncode == 0, out.stderr
    names = {row["plugin"] for row in json.loads(out.stdout)}
    assert "example" not in names and "mwz-mwz22-style" in names


def test_the_package_re_exports_every_name_on_first_use():
    import mwz_plugins

    assert sorted(mwz_plugins.__all__) == sorted(mwz_plugins._EXPORTS)
    for name in mwz_plugins.__all__:
        assert getattr(mwz_plugins, name) is not None
    with pytest.raises(AttributeError, match="no attribute 'nothing'"):
        mwz_plugins.nothing  # noqa: B018


def test_a_third_party_metric_reaches_evaluate_compare_and_interact(installed_example_plugin, tmp_path):
    """A contributor's metric of dialogues, installed as a plugin (the example package's ``words``), is
    computed by ``mwz evaluate``, ``mwz compare`` and ``mwz interact`` by name, in their output and
    their signatures, with no change to them."""
    from conftest import shared_path

    synth22 = shared_path("data", "mirror-synth22")
    hdsa = json.loads(shared_path("data", "mwzeval", "predictions", "hdsa.json").read_text(encoding="utf-8"))
    keys = sorted(hdsa)[:12]
    first, second = tmp_path / "a.json", tmp_path / "b.json"
    first.write_text(json.dumps({k: hdsa[k] for k in keys}))
    second.write_text(json.dumps({k: [{"response": "ok ."} for _ in hdsa[k]] for k in keys}))
    env = dict(os.environ, PYTHONPATH=str(installed_example_plugin), MWZ_MIRROR=str(synth22))
    env.pop("MWZ_PLUGINS", None)

    evaluated = _run(
        ["-m", "mwz_metrics.cli", "-q", "evaluate", "-i", str(first), "-r", "--metric", "words", "--json"], env=env
    )
    assert evaluated.returncode == 0, evaluated.stderr
    result = json.loads(evaluated.stdout)
    # the mean over all responses (bootstrap.means pools a dialogue's items)
    expected = sum(len(t["response"].split()) for k in keys for t in hdsa[k]) / sum(len(hdsa[k]) for k in keys)
    assert result["words"]["value"] == pytest.approx(expected) and result["words"]["ci95"]
    assert "words@0.3.1" in result["signature"]["line"] and "words=true" in result["signature"]["line"]
    table = _run(["-m", "mwz_metrics.cli", "-q", "evaluate", "-i", str(first), "-r", "--metric", "words"], env=env)
    assert "====== WORDS ======" in table.stdout and "(lower is better)" in table.stdout

    compared = _run(
        [
            "-m",
            "mwz_metrics.cli",
            "-q",
            "compare",
            "-i",
            f"a={first}",
            "-i",
            f"b={second}",
            "-r",
            "--metric",
            "words",
            "--baseline",
            "a",
            "--resamples",
            "200",
            "--format",
            "json",
            "--per-dialogue-csv",
            str(tmp_path / "d.csv"),
        ],
        env=env,
    )
    assert compared.returncode == 0, compared.stderr
    table = json.loads(compared.stdout)
    rows = {r["system"]: r for r in table["rows"] if r["metric"] == "words"}
    assert rows["a"]["value"] == pytest.approx(expected) and rows["b"]["value"] == 2.0
    assert rows["b"]["p_value"] < 0.05 and rows["a"]["ci_low"] <= rows["a"]["value"] <= rows["a"]["ci_high"]
    assert table["bootstrap"]["metrics"]["words"]["higher_is_better"] is False
    assert "words@0.3.1" in table["signature"]["line"] and "words=true" in table["signature"]["line"]
    assert (
        f"{keys[0]}," in (tmp_path / "d.csv").read_text()
        and "words" in (tmp_path / "d.csv").read_text().splitlines()[0]
    )

    interacted = _run(
        [
            "-m",
            "mwz_metrics.cli",
            "-q",
            "interact",
            "--system",
            "oracle",
            "--goals",
            "12",
            "--metric",
            "words",
            "-o",
            str(tmp_path / "run.jsonl"),
            "--json",
        ],
        env=env,
    )
    assert interacted.returncode == 0, interacted.stderr
    summary = json.loads(interacted.stdout)
    assert summary["words"] > 0 and summary["ci95"]["words"] and "words@0.3.1" in summary["signature"]["line"]
    shown = _run(
        [
            "-m",
            "mwz_metrics.cli",
            "-q",
            "interact",
            "--system",
            "oracle",
            "--score-only",
            "--metric",
            "words",
            "-i",
            str(tmp_path / "run.jsonl"),
        ],
        env=env,
    )
    assert "words (lower)" in shown.stdout

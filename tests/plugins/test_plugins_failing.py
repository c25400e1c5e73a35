"""A plugin that fails to load, or whose hook raises, is named and left out; ``MWZ_DISABLE_PLUGINS``.

The broken plugins are real installed distributions: a ``.dist-info`` folder (``METADATA`` and
``entry_points.txt``, what pip writes) beside their module in a folder on ``PYTHONPATH``, found by
``importlib.metadata`` like any other; the console script ``mwz`` runs in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import mwz_plugins
from mwz_plugins import DialogueMetricEntry, InputError, NotRegistered, PluginError, ValueNormalizer, manager

MWZ = Path(sys.executable).with_name("mwz")

# distribution name, version, entry point, module source
BROKEN = (
    "mwz-broken-import",
    "1.2.0",
    "broken",
    "import mwz_missing_dependency_of_a_plugin  # noqa\n",
)
RAISING = (
    "mwz-raising-hook",
    "0.4.0",
    "raising",
    """import mwz_plugins


@mwz_plugins.hookimpl
def mwz_register_value_normalizers(register):
    register(mwz_plugins.ValueNormalizer("shout-upper", "0.4.0", lambda d, s, v: v.upper()))


@mwz_plugins.hookimpl
def mwz_register_dialogue_metrics(register):
    register(mwz_plugins.DialogueMetricEntry("shout", "0.4.0", "mwz_raising_hook:make"))
    raise RuntimeError("no model configured for shout")
""",
)


def _install(site: Path, distribution: str, version: str, entry_point: str, source: str) -> None:
    module = distribution.replace("-", "_")
    info = site / f"{module}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {distribution}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(f"[mwz]\n{entry_point} = {module}\n")
    (site / f"{module}.py").write_text(source)


@pytest.fixture(scope="module")
def site(tmp_path_factory) -> Path:
    """A folder with the two broken plugins installed."""
    folder = tmp_path_factory.mktemp("broken-site")
    _install(folder, *BROKEN)
    _install(folder, *RAISING)
    return folder


def _mwz(site: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k not in ("MWZ_PLUGINS", "MWZ_DISABLE_PLUGINS")}
    environ["PYTHONPATH"] = os.pathsep.join(p for p in (str(site), os.environ.get("PYTHONPATH")) if p)
    environ.update(env)
    return subprocess.run([str(MWZ), *args], capture_output=True, text=True, env=environ, timeout=60)


def _warnings(stderr: str, plugin: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("WARNING") and f"plugin {plugin!r}" in line]


def test_mwz_plugins_lists_the_others_and_names_each_failed_plugin_once(site):
    out = _mwz(site, "plugins")
    assert out.returncode == 0, out.stderr
    assert "internal error" not in out.stderr and "bug" not in out.stderr
    (broken,) = _warnings(out.stderr, "broken")
    assert "mwz-broken-import 1.2.0" in broken and "entry point broken = mwz_broken_import" in broken
    assert "ModuleNotFoundError: No module named 'mwz_missing_dependency_of_a_plugin'" in broken
    assert "MWZ_DISABLE_PLUGINS=broken" in broken
    (raising,) = _warnings(out.stderr, "raising")
    assert "mwz-raising-hook 0.4.0" in raising and "entry point raising = mwz_raising_hook" in raising
    assert "mwz_register_dialogue_metrics raised RuntimeError: no model configured for shout" in raising
    assert "MWZ_DISABLE_PLUGINS=raising" in raising
    # the built-ins still listed, with what they register; the broken ones listed as failed
    assert "mwz-mwz22-style  [mwz-eval " in out.stdout and "styles: mwz22@" in out.stdout
    assert "broken  [mwz-broken-import 1.2.0]  mwz_broken_import\n    FAILED to load: ModuleNotFoundError" in out.stdout
    assert (
        "raising  [mwz-raising-hook 0.4.0]  mwz_raising_hook\n    FAILED to load: RuntimeError: no model configured"
        " for shout (raised by its hook mwz_register_dialogue_metrics)\n    run without it: MWZ_DISABLE_PLUGINS=raising"
    ) in out.stdout


def test_mwz_plugins_json_marks_failed_plugins_and_leaves_out_all_they_registered(site):
    out = _mwz(site, "plugins", "--json")
    assert out.returncode == 0, out.stderr
    rows = {row["plugin"]: row for row in json.loads(out.stdout)}
    assert rows["mwz-mwz22-style"]["status"] == "loaded"
    assert rows["broken"] | {"error": None} == {
        "plugin": "broken",
        "module": "mwz_broken_import",
        "distribution": "mwz-broken-import",
        "version": "1.2.0",
        "registers": {},
        "status": "failed",
        "stage": "load",
        "error": None,
        "disable": "MWZ_DISABLE_PLUGINS=broken",
    }
    assert rows["broken"]["error"].startswith("ModuleNotFoundError: ")
    raising = rows["raising"]
    assert (raising["status"], raising["stage"]) == ("failed", "mwz_register_dialogue_metrics")
    assert raising["error"] == "RuntimeError: no model configured for shout"
    # its normalizer (from a hook that did not raise) is left out too: a plugin is in whole or not at all
    assert raising["registers"] == {} and "shout-upper" not in out.stdout


def test_disabling_by_entry_point_or_distribution_name_silences_them(site):
    out = _mwz(site, "plugins", "--json", MWZ_DISABLE_PLUGINS="broken, mwz_Raising.hook")
    assert out.returncode == 0, out.stderr
    assert "WARNING" not in out.stderr, out.stderr
    names = {row["plugin"] for row in json.loads(out.stdout)}
    assert "mwz-mwz22-style" in names and not names & {"broken", "raising"}
    # one disabled, the other still named
    out = _mwz(site, "plugins", MWZ_DISABLE_PLUGINS="mwz-raising-hook")
    assert out.returncode == 0, out.stderr
    assert _warnings(out.stderr, "broken") and not _warnings(out.stderr, "raising")


def test_a_command_asking_for_what_a_failed_plugin_provides_is_bad_input_naming_it(site, tmp_path):
    predictions = tmp_path / "predictions.json"
    predictions.write_text(json.dumps({"sng0073": [{"response": "ok ."}]}))
    out = _mwz(site, "evaluate", "-i", str(predictions), "--metric", "shout")
    assert out.returncode == 2, out.stderr
    assert "internal error" not in out.stderr
    assert "mwz: error: --metric shout: no such metric is registered" in out.stderr
    (raising,) = _warnings(out.stderr, "raising")
    assert "failed to load" in raising and "MWZ_DISABLE_PLUGINS=raising" in raising


def test_the_environment_help_names_the_variable():
    out = subprocess.run([str(MWZ), "plugins", "--help"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert "MWZ_DISABLE_PLUGINS=NAME[,NAME]" in out.stdout


def test_a_raising_hook_in_process_leaves_its_plugin_out_and_a_lookup_names_it(in_process_plugin, caplog):
    def metrics(register):
        register(DialogueMetricEntry("shout", "1.0", "nowhere:make"))
        raise ValueError("shout needs a key")

    def normalizers(register):
        register(ValueNormalizer("shout-upper", "1.0", lambda d, s, v: v.upper()))

    in_process_plugin("shouting", mwz_register_value_normalizers=normalizers, mwz_register_dialogue_metrics=metrics)
    with caplog.at_level("WARNING", logger="mwz_plugins.manager"):
        registry = mwz_plugins.get_registry()
    assert "shout" not in registry.metrics and "mwz_bleu" in registry.dialogue_metrics
    assert "shout-upper" not in registry.normalizers  # from its hook that did not raise: in whole or not at all
    assert "shouting" not in manager.plugin_infos()
    failure = manager.plugin_failures()["shouting"]
    assert (failure.stage, failure.error) == ("mwz_register_dialogue_metrics", "ValueError: shout needs a key")
    assert [r.getMessage() for r in caplog.records] == [failure.warning()]
    with pytest.raises(NotRegistered, match=r"no metric 'shout' is registered.*plugin 'shouting'.*failed") as caught:
        registry.metrics["shout"]
    assert isinstance(caught.value, InputError) and isinstance(caught.value, KeyError)
    assert "plugin 'shouting'" in registry.failure_note()


def test_disabling_an_in_process_plugin_and_garbage_names_the_setting(in_process_plugin, monkeypatch):
    def styles(register):
        register("not a style")

    in_process_plugin("garbage", mwz_register_delex_styles=styles)
    with pytest.raises(PluginError, match=r"plugin 'garbage' registered 'not a style'.*MWZ_DISABLE_PLUGINS=garbage"):
        mwz_plugins.get_registry()
    monkeypatch.setenv("MWZ_DISABLE_PLUGINS", "garbage")
    manager.reset()
    try:
        assert "mwz22" in mwz_plugins.get_registry().styles
        assert "garbage" not in manager.plugin_infos() and not manager.plugin_failures()
    finally:
        monkeypatch.delenv("MWZ_DISABLE_PLUGINS")
        manager.reset()

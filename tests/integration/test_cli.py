"""The ``mwz`` command line as a user meets it: real processes, exit codes and messages."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from conftest import shared_path

HEAVY = ("torch", "transformers", "sentence_transformers", "evaluate.evaluator", "gymnasium", "stable_baselines3")


def _mwz(*args: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    full = {**os.environ, **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "mwz_metrics.cli", *args], capture_output=True, text=True, env=full, cwd=cwd, timeout=300
    )


def _modules_after(code: str) -> list[str]:
    probe = f"import sys\n{code}\nprint('HEAVY:', *[m for m in {HEAVY!r} if m in sys.modules])\n"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    return out.stdout.strip().splitlines()[-1].split()[1:]


@pytest.mark.parametrize(
    "code",
    [
        "import mwz_metrics, mwz_datasets",
        "from mwz_metrics.cli import main\ntry:\n    main(['--help'])\nexcept SystemExit:\n    pass",
        "from mwz_metrics.cli import main\ntry:\n    main(['--version'])\nexcept SystemExit:\n    pass",
        "from mwz_metrics.cli import main\nmain(['plugins'])",
    ],
    ids=["import", "help", "version", "plugins"],
)
def test_startup_imports_nothing_heavy(code):
    assert _modules_after(code) == []


def test_version():
    from mwz_plugins.version import __version__

    out = _mwz("--version")
    assert out.returncode == 0 and out.stdout.strip() == f"mwz-eval {__version__}"


@pytest.mark.parametrize("command", [["evaluate"], ["dstc9", "score"], ["coherence"], ["plugins"]])
def test_help_has_an_example_and_the_environment(command):
    out = _mwz(*command, "--help")
    assert out.returncode == 0
    assert "example:\n  mwz " + " ".join(command) in out.stdout
    assert "MWZ_MIRROR" in out.stdout and "MWZ_CACHE" in out.stdout


def test_top_level_help_says_what_it_is_and_what_each_group_holds():
    out = _mwz("--help").stdout
    assert "Evaluate task-oriented dialogue systems on MultiWOZ" in out and "``" not in out
    assert "commands: score" in out and "commands: clear, info" in out and "commands: export, push" in out


@pytest.fixture()
def predictions(tmp_path) -> Path:
    ubar = json.loads(shared_path("data", "mwzeval", "predictions", "ubar.json").read_text())
    path = tmp_path / "ubar3.json"
    path.write_text(json.dumps(dict(sorted(ubar.items())[:3])))
    return path


def test_json_to_stdout_and_table_with_signature(predictions, mirror, tmp_path):
    env = {"MWZ_MIRROR": str(mirror)}
    out = _mwz("-q", "evaluate", "-i", str(predictions), "-s", "-r", "--json", "-o", str(tmp_path / "o.json"), env=env)
    assert out.returncode == 0, out.stderr
    printed = json.loads(out.stdout)
    assert printed == json.loads((tmp_path / "o.json").read_text())
    table = _mwz("-q", "evaluate", "-i", str(predictions), "-s", "-r", env=env)
    assert table.returncode == 0
    assert table.stdout.rstrip().splitlines()[-1] == f"signature: {printed['signature']['line']}"


def test_user_error_is_one_line_and_debug_shows_the_traceback(tmp_path, mirror):
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps({"sng0073": [{"respons": "hi"}]}))
    out = _mwz("-q", "evaluate", "-i", str(bad), "-s", env={"MWZ_MIRROR": str(mirror)})
    assert out.returncode == 2
    assert out.stderr.strip() == f"mwz: error: {bad}: dialogue sng0073, turn 0: missing 'response'"
    debug = _mwz("-q", "--debug", "evaluate", "-i", str(bad), "-s", env={"MWZ_MIRROR": str(mirror)})
    assert debug.returncode != 0 and "Traceback (most recent call last)" in debug.stderr


def test_missing_extra_names_it(tmp_path):
    # A process where jsonschema cannot be imported, as without the dstc9 extra.
    code = textwrap.dedent("""
        import importlib.util, sys
        real = importlib.util.find_spec
        importlib.util.find_spec = lambda name, *a: None if name == "jsonschema" else real(name, *a)
        from mwz_metrics.cli import main
        sys.exit(main(["dstc9", "score", "--entry", "entry.json"]))
    """)
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert out.returncode == 2
    assert out.stderr.strip() == (
        "mwz: error: this needs the 'dstc9' extra (jsonschema not installed): pip install 'mwz-eval[dstc9]'"
    )


def test_incomplete_data_folder_names_the_file_and_the_fix(tmp_path, predictions):
    empty = tmp_path / "mirror"
    empty.mkdir()
    env = {"MWZ_MIRROR": str(empty), "MWZ_OFFLINE": "1"}
    out = _mwz("-q", "evaluate", "-i", str(predictions), "-s", env=env)
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert "budzianowski/multiwoz/data/MultiWOZ_2.1.zip" in out.stderr and "MWZ_MIRROR" in out.stderr
    truncated = tmp_path / "trunc" / "budzianowski/multiwoz/data/MultiWOZ_2.1.zip"
    truncated.parent.mkdir(parents=True)
    truncated.write_bytes(
        shared_path("data", "mirror", "budzianowski/multiwoz/data/MultiWOZ_2.1.zip").read_bytes()[:50000]
    )
    out = _mwz("-q", "evaluate", "-i", str(predictions), "-s", env={**env, "MWZ_MIRROR": str(tmp_path / "trunc")})
    assert out.returncode == 2 and "Traceback" not in out.stderr
    assert str(truncated) in out.stderr and "truncated or corrupt" in out.stderr


def test_progress_only_where_someone_watches(tmp_path):
    code = (
        "from mwz_plugins.progress import progress\n"
        "assert list(progress(range(300), 'counting things')) == list(range(300))\n"
    )
    env = {k: v for k, v in os.environ.items() if k not in ("MWZ_PROGRESS", "MWZ_QUIET")}
    quiet = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=60)
    assert quiet.returncode == 0 and quiet.stderr == ""  # stderr is not a terminal
    shown = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env={**env, "MWZ_PROGRESS": "1"}, timeout=60
    )
    assert shown.returncode == 0 and "counting things" in shown.stderr
    silenced = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={**env, "MWZ_PROGRESS": "1", "MWZ_QUIET": "1"},
        timeout=60,
    )
    assert silenced.stderr == ""


def test_global_options_are_accepted_after_the_subcommand():
    before = _mwz("-q", "plugins", "--json")
    after = _mwz("plugins", "--json", "-q")
    assert after.returncode == 0 and after.stdout == before.stdout
    assert _mwz("plugins", "-v", "--debug").returncode == 0
    help_text = _mwz("compare", "--help").stdout
    assert "-q, --quiet" in help_text and "--debug" in help_text

"""Errors with one root: every error class of the package is an MwzError, and the ``mwz`` console script
maps only those to one line and exit code 2; anything else is a bug (exit 1, a line asking for a report)."""

from __future__ import annotations

import ast
import importlib
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from mwz_plugins.errors import KINDS, InputError, MissingExtra, MwzError, SimulatorError, SystemUnderTestError

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {
    "plugins": "mwz_plugins",
    "mwz_datasets": "mwz_datasets",
    "mwz_metrics": "mwz_metrics",
    "hub_cards": "mwz_hub",
}
MWZ = Path(sys.executable).with_name("mwz")  # the console script itself

# A command that raises what it is told to: registered before the CLI builds its parser, from a
# sitecustomize module on PYTHONPATH, so the real console script runs it.
SITECUSTOMIZE = textwrap.dedent("""
    from mwz_metrics.cli.registry import command
    from mwz_plugins import errors

    RAISED = {
        "input": errors.InputError("predictions.json: dialogue sng0073, turn 2: missing 'response'"),
        "missing-extra": errors.MissingExtra("this needs the 'plot' extra: pip install 'mwz-eval[plot]'"),
        "system": errors.SystemUnderTestError("--system mine:make: the factory failed (OSError: no model)"),
        "simulator": errors.SimulatorError("the replay simulator takes no options, got ['x']"),
        "bug": ZeroDivisionError("division by zero"),
        "keyerror": KeyError("a lookup that should not have failed"),
    }

    def _arguments(parser):
        parser.add_argument("what")

    @command("raise", "raise an error (tests only)", _arguments)
    def _run(args):
        raise RAISED[args.what]
""")


def _error_classes() -> list[tuple[str, str]]:
    """(module, class name) of every class named *Error or MissingExtra* defined in the package."""
    found = []
    for folder, package in PACKAGES.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"))
            for node in tree.body:
                if (
                    isinstance(node, ast.ClassDef)
                    and node.name.endswith(("Error", "Failure"))
                    or (isinstance(node, ast.ClassDef) and node.name.startswith("Missing"))
                ):
                    parts = path.relative_to(ROOT / folder).with_suffix("").parts
                    module = ".".join([package, *[p for p in parts if p != "__init__"]])
                    found.append((module, node.name))
    return found


def test_every_error_class_has_the_one_root():
    classes = _error_classes()
    assert len(classes) >= 17  # the 16 of before (two missing-extra ones now one) and the kinds
    for module, name in classes:
        cls = getattr(importlib.import_module(module), name)
        assert issubclass(cls, MwzError), f"{module}.{name} does not derive from MwzError"
        assert cls.kind in KINDS


def test_one_missing_extra_and_the_kinds():
    from mwz_metrics.coherence import model
    from mwz_metrics.extras import MissingExtra as from_extras

    assert from_extras is MissingExtra and not hasattr(model, "MissingExtraError")
    kinds = {cls.kind for cls in (InputError, MissingExtra, SystemUnderTestError, SimulatorError)}
    assert kinds == set(KINDS)
    assert issubclass(InputError, ValueError)  # library callers catching ValueError keep working


def _run(tmp_path: Path, *args: str) -> subprocess.CompletedProcess:
    (tmp_path / "sitecustomize.py").write_text(SITECUSTOMIZE, encoding="utf-8")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path), os.environ.get("PYTHONPATH", "")])}
    return subprocess.run([str(MWZ), *args], capture_output=True, text=True, env=env, cwd=tmp_path, timeout=120)


@pytest.mark.skipif(not MWZ.exists(), reason="the mwz console script is not installed beside this Python")
def test_console_script_error_paths(tmp_path):
    for kind in KINDS:  # an MwzError of each kind: one line, exit 2
        out = _run(tmp_path, "raise", kind)
        assert out.returncode == 2, (kind, out.stderr)
        assert out.stderr.count("\n") == 1 and out.stderr.startswith("mwz: error: "), out.stderr
        assert "Traceback" not in out.stderr
    simulator = _run(tmp_path, "raise", "simulator")
    assert simulator.stderr == "mwz: error: the replay simulator takes no options, got ['x']\n"

    for bug in ("bug", "keyerror"):  # not an MwzError: a bug, never "bad input"
        out = _run(tmp_path, "-q", "raise", bug)
        assert out.returncode == 1, out.stderr
        lines = out.stderr.splitlines()
        assert len(lines) == 1 and lines[0].startswith("mwz: internal error ("), out.stderr
        assert "a bug" in lines[0] and "issue tracker" in lines[0] and "--debug" in lines[0]
        assert "Traceback" not in out.stderr
    out = _run(tmp_path, "raise", "bug")
    assert "ZeroDivisionError: division by zero" in out.stderr.splitlines()[0]

    debug = _run(tmp_path, "--debug", "raise", "bug")  # --debug: the traceback too, the same exit code
    assert debug.returncode == 1
    assert "Traceback (most recent call last)" in debug.stderr and "ZeroDivisionError" in debug.stderr
    assert debug.stderr.splitlines()[-1].startswith("mwz: internal error (")
    debug = _run(tmp_path, "raise", "input", "--debug")
    assert debug.returncode == 2 and "Traceback (most recent call last)" in debug.stderr


@pytest.mark.skipif(not MWZ.exists(), reason="the mwz console script is not installed beside this Python")
def test_real_input_errors_stay_exit_2(tmp_path):
    """What used to reach the user as a ValueError/OSError is an MwzError now: the same line, exit 2."""
    missing = _run(tmp_path, "-q", "evaluate", "-i", str(tmp_path / "nope.json"), "-s")
    assert missing.returncode == 2
    assert missing.stderr == f"mwz: error: {tmp_path / 'nope.json'}: no such file (predictions)\n"
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    out = _run(tmp_path, "-q", "evaluate", "-i", str(bad), "-s")
    assert out.returncode == 2 and out.stderr.startswith(f"mwz: error: {bad}: not JSON (")
    nothing = _run(tmp_path, "-q", "coherence")
    assert nothing.returncode == 2 and nothing.stderr == "mwz: error: give -i PREDICTIONS (repeatable) or --gold\n"


def test_an_output_that_cannot_be_written_is_the_users_input(tmp_path):
    from mwz_metrics.cli.registry import write_json

    target = tmp_path / "no" / "such" / "result.json"
    with pytest.raises(InputError, match=r"result.json: cannot be written \(No such file or directory\)"):
        write_json({"a": 1}, str(target))
    write_json({"a": 1}, str(tmp_path / "result.json"))
    assert (tmp_path / "result.json").read_text() == '{\n  "a": 1\n}\n'

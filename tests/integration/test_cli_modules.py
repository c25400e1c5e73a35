"""CLI modules are thin adapters (issue 50, item 5): what two commands share lives below the CLI, and no CLI
module reaches into another's private names."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

CLI = Path(__file__).resolve().parents[2] / "mwz_metrics" / "cli"
PACKAGE = "mwz_metrics.cli"


def private_imports(path: Path) -> list[str]:
    """``module.name`` for each private name (``_x``) of another CLI module that ``path`` imports or reads."""
    own = f"{PACKAGE}.{path.stem}"
    modules = {f"{PACKAGE}.{p.stem}" for p in CLI.glob("*.py")} - {own}
    found, aliases = [], {}
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module in modules:
            found += [f"{node.module}.{a.name}" for a in node.names if a.name.startswith("_")]
        elif isinstance(node, ast.ImportFrom) and node.module == PACKAGE:
            aliases |= {a.asname or a.name: f"{PACKAGE}.{a.name}" for a in node.names}
        elif isinstance(node, ast.Import):
            aliases |= {a.asname: a.name for a in node.names if a.asname and a.name in modules}
    for node in ast.walk(tree):  # interact._pairs after `from mwz_metrics.cli import interact`
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr.startswith("_"):
            module = aliases.get(node.value.id)
            if module in modules and not node.attr.startswith("__"):
                found.append(f"{module}.{node.attr}")
    return found


@pytest.mark.parametrize("path", sorted(CLI.glob("*.py")), ids=lambda p: p.name)
def test_no_cli_module_imports_another_ones_private_names(path):
    assert private_imports(path) == []


def test_the_check_finds_each_way_of_reaching_in(tmp_path, monkeypatch):
    monkeypatch.setattr(f"{__name__}.CLI", tmp_path)
    (tmp_path / "interact.py").write_text("def _pairs(): ...\n")
    (tmp_path / "realism.py").write_text(
        "def f():\n"
        "    from mwz_metrics.cli.interact import _llm_settings, table\n"
        "    from mwz_metrics.cli import interact as i\n"
        "    return i._pairs(), i.run, _llm_settings\n"
    )
    found = private_imports(tmp_path / "realism.py")
    assert found == ["mwz_metrics.cli.interact._llm_settings", "mwz_metrics.cli.interact._pairs"]
    assert private_imports(tmp_path / "interact.py") == []


def test_the_interactive_report_and_run_options_live_below_the_cli():
    from mwz_metrics.interactive.harness import options
    from mwz_metrics.interactive.scoring import report

    assert report.cost({"system": {"prompt": 1_000_000, "completion": 500_000}}, "2,4")["total"] == 4.0
    assert report.cell(None, None) == "     n/a" and report.cell(50.0, [40.0, 60.0]) == "    50.0  [40.0, 60.0]"
    given = options.GivenOptions("oracle", "llm", (), ("temperature=0.5",), "http://localhost:1/v1", "m")
    assert options.simulator_options(given)["temperature"] == "0.5"
    assert options.system_options(given) == {}  # the endpoint is the llm simulator's, not the system's
    assert options.pairs(["max-tokens=5"], "--system-option") == {"max_tokens": "5"}
    moved = {"cost", "_cell", "_plan", "_plan_text", "_pairs", "_llm_settings", "_keyed", "_secretless"}
    for path in CLI.glob("*.py"):  # the CLI's own modules define none of them again
        defined = {n.name for n in ast.parse(path.read_text()).body if isinstance(n, ast.FunctionDef)}
        assert not defined & (moved | ({"table"} if path.name == "interact.py" else set())), path.name

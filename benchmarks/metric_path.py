"""The metric path of ``mwz evaluate -i PREDICTIONS -s`` (issue 50, item 3): which project modules the
inputs pass through from the CLI to the Success figure and back to the printed table, and which of
those calls go back up into a higher layer.

A call carries the inputs when one of its arguments is the predictions file's path, the predictions
read from it, the metric inputs, one of the file's responses (or a list starting with one), or the
result on its way back (a metric result, or a section holding Inform and Success); the modules on
the call stack of such a call (from ``cli.evaluate.run`` down) are the path. A call goes up when the
called module imports the calling one (statically, any import in the file): the callee sits above
its caller. Run: ``MWZ_MIRROR=... python benchmarks/metric_path.py [PREDICTIONS]`` (ubar's by
default); prints the path, the count and the calls up; ``--json`` prints them as JSON.
"""

from __future__ import annotations

import ast
import contextlib
import io
import json
import pathlib
import sys
from typing import Any

DEFAULT = "/work/shared/data/mwzeval/predictions/ubar.json"
_PROJECT = ("mwz_metrics", "mwz_datasets", "mwz_plugins", "hub_cards")


def _module(frame: Any) -> str:
    return str(frame.f_globals.get("__name__", ""))


def _imports(name: str) -> set[str]:
    """Every module one project module imports (any import statement, in functions too)."""
    found = getattr(sys.modules.get(name), "__file__", None)
    if not found:
        return set()
    out: set[str] = set()
    for node in ast.walk(ast.parse(pathlib.Path(found).read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            out.add(node.module)
            out.update(f"{node.module}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
    return out


def trace(path: str) -> dict[str, Any]:
    """Run ``mwz -q evaluate -i path -s`` under a profiler; the path's modules and the calls up."""
    from mwz_metrics.cli import main

    predictions = json.loads(pathlib.Path(path).read_text(encoding="utf-8"))
    responses = {turn.get("response") for turns in predictions.values() for turn in turns}
    keys = {key.lower() for key in predictions}
    state: dict[str, Any] = {"on": False, "path": {}, "edges": {}}

    def carries(value: Any) -> bool:
        if isinstance(value, str):
            return value == path or value in responses
        kind = type(value).__name__
        if kind in ("MetricInputs", "MetricResult"):
            return True
        if isinstance(value, dict):
            if any(type(item).__name__ == "MetricResult" for item in value.values()):  # results by key
                return True
            if "success" in value and isinstance(value["success"], dict) and "inform" in value:
                return True
            return len(value) == len(predictions) and bool(value) and next(iter(value)).lower() in keys
        if isinstance(value, (list, tuple)) and value:
            return isinstance(value[0], str) and value[0] in responses
        return False

    def profile(frame: Any, event: str, _arg: Any) -> None:
        if event != "call" or frame.f_code.co_name == "<module>":
            return
        callee = _module(frame)
        if not state["on"]:
            state["on"] = frame.f_code.co_name == "run" and callee == "mwz_metrics.cli.evaluate"
            if not state["on"]:
                return
        if not callee.startswith(_PROJECT):
            return
        caller = _module(frame.f_back) if frame.f_back else ""
        if caller.startswith(_PROJECT) and caller != callee:
            state["edges"][(caller, callee)] = state["edges"].get((caller, callee), 0) + 1
        arguments = [frame.f_locals[n] for n in frame.f_code.co_varnames[: frame.f_code.co_argcount]]
        if any(carries(a) for a in arguments):
            stack = []
            walk = frame
            while walk is not None:
                name = _module(walk)
                if name.startswith(_PROJECT) and name not in stack:
                    stack.append(name)
                if walk.f_code.co_name == "run" and name == "mwz_metrics.cli.evaluate":
                    break
                walk = walk.f_back
            for name in reversed(stack):
                state["path"].setdefault(name, len(state["path"]))

    sys.setprofile(profile)
    try:
        with contextlib.redirect_stdout(io.StringIO()):
            main(["-q", "evaluate", "-i", path, "-s"])
    finally:
        sys.setprofile(None)
    modules = list(state["path"])
    up = [
        {"caller": a, "callee": b, "calls": n}
        for (a, b), n in state["edges"].items()
        if a in _imports(b) and a in modules
    ]
    return {"modules": modules, "count": len(modules), "calls_up": up}


def main(argv: list[str]) -> int:
    """Print the path of ``argv``'s predictions (ubar's by default)."""
    path = next((a for a in argv if not a.startswith("--")), DEFAULT)
    found = trace(path)
    if "--json" in argv:
        print(json.dumps(found, indent=2))
        return 0
    print(f"{found['count']} modules from the CLI to the Success figure and back:")
    for name in found["modules"]:
        print(f"  {name}")
    print(f"{len(found['calls_up'])} caller/callee pairs calling back up (the callee imports the caller):")
    for edge in found["calls_up"]:
        print(f"  {edge['caller']} -> {edge['callee']} ({edge['calls']} calls)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

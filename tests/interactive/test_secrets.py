"""Secrets stay secret (issue 47): a password or key in a system's URL, an endpoint or an option reaches
the host it was given for and nothing else, neither another host nor any file or line a run writes.

Every case runs on 127.0.0.1: a recording HTTP system (which sees the ``Authorization`` header) and
stub chat endpoints (:class:`hostile_system.HostileChat`), a few goals each, short timeouts. The run's
own files, ``mwz view``'s page and ``mwz compare``'s CSV are searched for every form of the secrets."""

from __future__ import annotations

import base64
import json
import socket
import subprocess
import sys
import urllib.parse
from pathlib import Path

import pytest
from hostile_system import HostileChat, HostileSystem, completion

from mwz_metrics.interactive import chat
from mwz_metrics.interactive.secrets import is_secret_name, redact_options, redact_text, redact_url, url_secrets

MWZ = str(Path(sys.executable).with_name("mwz"))
FAST = ("--resamples", "10")
PASSWORD = "pw-Sesame-4711"
KEY = "key-Open-0815"


@pytest.fixture()
def env(synth22_env):
    """The synth22 mirror for the test (its derived material cached for the console script)."""


def leaks(texts: dict[str, str], *secrets: str) -> list[str]:
    """Where any of ``secrets`` (as written, URL-encoded, or base64 of ``user:password``) shows."""
    forms = {s for secret in secrets for s in (secret, urllib.parse.quote(secret, safe=""))}
    forms.add(base64.b64encode(f"alice:{PASSWORD}".encode()).decode())
    return [f"{where}: {form}" for where, text in texts.items() for form in forms if form in text]


def written(folder: Path) -> dict[str, str]:
    """Every file under ``folder``, as text."""
    return {str(p): p.read_text(encoding="utf-8", errors="replace") for p in folder.rglob("*") if p.is_file()}


def dead_port() -> int:
    """A port on 127.0.0.1 nothing listens on (bound, then closed)."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


# -- what is shown -------------------------------------------------------------------------------


def test_redact_url_hides_userinfo_and_secret_parameters_and_nothing_else():
    assert redact_url(f"http://alice:{PASSWORD}@127.0.0.1:8/respond?api_key={KEY}") == (
        "http://***@127.0.0.1:8/respond?api_key=***"
    )
    assert redact_url("https://TOKEN@h.example/x") == "https://***@h.example/x"  # a user name alone: the token
    assert redact_url("https://h/v1?api-version=2024-02-01&sig=abc&X-Amz-Signature=s#access_token=t&x=1") == (
        "https://h/v1?api-version=2024-02-01&sig=***&X-Amz-Signature=***#access_token=***&x=1"
    )
    for unchanged in (
        "http://127.0.0.1:8/respond",
        "https://h.example/v1/?api-version=2024-02-01&x=%41+b&&y#frag",
        "http://h/a@b?",
        "http://h?key=",
        "not a url?key=1",
    ):
        assert redact_url(unchanged) == unchanged  # byte for byte
    assert url_secrets(f"http://alice:{PASSWORD}@h/?token={KEY}") == [f"alice:{PASSWORD}", PASSWORD, KEY]
    assert redact_text(f"failed: {PASSWORD}, {KEY}", [PASSWORD, KEY]) == "failed: ***, ***"


def test_secret_names():
    secret = ("api_key", "api-key", "apiKey", "API_KEY", "key", "token", "access_token", "secret", "client_secret",
              "sig", "signature", "password", "auth", "code", "X-Amz-Credential", "subscription-key")  # fmt: skip
    plain = ("api_key_env", "OPENAI_API_KEY_ENV", "max_tokens", "api-version", "endpoint", "model", "prompt",
             "temperature", "key_file", "client_id", "max_tool_rounds")  # fmt: skip
    assert [n for n in secret if not is_secret_name(n)] == []
    assert [n for n in plain if is_secret_name(n)] == []
    shown = redact_options({"endpoint": f"http://u:{PASSWORD}@h/v1?token={KEY}", "token": KEY, "model": "m"})
    assert shown == {"endpoint": "http://***@h/v1?token=***", "token": "***", "model": "m"}


# -- an HTTP system with a password and a key in its URL ---------------------------------------


def test_a_systems_password_and_key_reach_the_system_and_nothing_written(env, tmp_path, cli):
    out = tmp_path / "out"
    out.mkdir()
    printed: dict[str, str] = {}

    def plan(request):  # one failed turn: its session's detail names the URL
        return "status_500" if request["turn"] == 1 and request["dialogue_id"] == "sng0073" else "ok"

    with HostileSystem(plan) as sut:
        port = sut.server.server_address[1]
        url = f"http://alice:{PASSWORD}@127.0.0.1:{port}/respond?api_key={KEY}"
        arguments = [
            MWZ, "-v", "interact", "--system", url, "--dialogue", "sng0073", "--dialogue", "pmul4648",
            "--max-turns", 3, "--retries", 0, "--timeout", 5, *FAST, "--explain", 2,
            "-o", out / "run.jsonl", "--predictions", out / "run.json", "--result", out / "result.json",
        ]  # fmt: skip
        ran = subprocess.run(list(map(str, arguments)), capture_output=True, text=True, timeout=120)
    assert ran.returncode == 0, ran.stderr
    printed["interact"] = ran.stdout + ran.stderr
    assert "system_error 1" in ran.stdout and "http://***@127.0.0.1" in ran.stdout
    # the system got both: the key where it was written, the password as Basic authentication
    basic = "Basic " + base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
    assert sut.seen and set(sut.seen) == {(f"/respond?api_key={KEY}", basic)}
    ends = [json.loads(line).get("end") or {} for line in (out / "run.jsonl").read_text().splitlines()]
    assert [e["detail"] for e in ends if e.get("reason") == "system_error"] == [
        f"system http://***@127.0.0.1:{port}/respond?api_key=***, session sng0073, turn 1: "
        f"http://127.0.0.1:{port}/respond?api_key=*** answered HTTP 500"
    ]
    # a dead port: refused before the first session, in one line
    dead = f"http://alice:{PASSWORD}@127.0.0.1:{dead_port()}/respond?api_key={KEY}"
    refused = cli("interact", "--system", dead, "--goals", 2, *FAST, "-o", out / "dead.jsonl")
    assert refused.returncode == 2 and len(refused.stderr.strip().splitlines()) == 1, refused.stderr
    printed["dead"] = refused.stdout + refused.stderr
    # what reads the run: the view's page, compare's CSV
    for name, args in {
        "view": ("view", out / "run.jsonl", "-o", out / "page.html", *FAST),
        "view-predictions": ("view", out / "run.json", "-o", out / "predictions.html", *FAST),
        "compare": (
            "compare",
            "-i",
            f"run={out / 'run.jsonl'}",
            "-s",
            "--format",
            "csv",
            "-o",
            out / "compare.csv",
            *FAST,
        ),  # fmt: skip
        "compare-stdout": ("compare", "-i", out / "run.json", "-s", "--format", "csv", *FAST),
    }.items():
        shown = cli(*args)
        assert shown.returncode == 0, (name, shown.stderr)
        printed[name] = shown.stdout + shown.stderr
    assert {"page.html", "predictions.html", "compare.csv"} <= {p.name for p in out.iterdir()}
    assert leaks({**written(out), **printed}, PASSWORD, KEY) == []


def test_userinfo_is_basic_for_its_own_origin_only():
    words = completion({"role": "assistant", "content": "hello"})
    with HostileChat(lambda body, path: words) as elsewhere:
        with HostileChat(lambda body, path: (307, {"Location": elsewhere.endpoint + "/x"}, b"")) as first:
            netloc = urllib.parse.urlsplit(first.endpoint).netloc
            assert chat.post_json(f"http://alice:{PASSWORD}@{netloc}/v1", b"{}", {}, timeout=5) == words[2]
            given = {"Authorization": "Bearer mine"}  # the caller's header wins over the userinfo
            chat.post_json(f"http://alice:{PASSWORD}@{netloc}/v1", b"{}", given, timeout=5)
    basic = "Basic " + base64.b64encode(f"alice:{PASSWORD}".encode()).decode()
    assert [r["authorization"] for r in first.requests] == [basic, "Bearer mine"]
    assert [r["authorization"] for r in elsewhere.requests] == [None, None]  # another origin: dropped
    with pytest.raises(chat.HttpFailure) as failure:
        chat.post_json(f"http://alice:{PASSWORD}@127.0.0.1:{dead_port()}/r?token={KEY}", b"{}", {}, timeout=2)
    assert leaks({"message": str(failure.value)}, PASSWORD, KEY) == []


# -- one key per endpoint --------------------------------------------------------------------------


def _user(body: dict, path: str):
    """The llm simulator's endpoint: one request, then goodbye."""
    return completion({"role": "assistant", "content": "I want a cheap restaurant. Thanks, goodbye! [END]"})


def _wizard(body: dict, path: str):
    return completion({"role": "assistant", "content": "Sorry, I cannot help with that."})


def test_each_endpoint_gets_its_own_key_and_no_other(env, tmp_path, cli):
    def run(out: str, *options: object, env: dict[str, str]) -> subprocess.CompletedProcess:
        return cli(
            "interact", "--system", "llm", "--endpoint", system.endpoint, "--model", "stub", "--simulator", "llm",
            "--system-option", "tool_calls=skip-check", "--simulator-option", f"endpoint={user.endpoint}", *options,
            "--goals", 2, "--max-turns", 2,
            "--timeout", 5, "--retries", 0, *FAST, "-o", tmp_path / out, "--result", tmp_path / f"{out}.json",
            env=env,
        )  # fmt: skip

    keys = {"MWZ_LLM_API_KEY": "sk-system-key", "USER_KEY": "sk-user-key"}
    with HostileChat(_wizard) as system, HostileChat(_user) as user:
        shared = run("shared.jsonl", env=keys)
        assert shared.returncode == 0, shared.stderr
        assert system.requests and {r["authorization"] for r in system.requests} == {"Bearer sk-system-key"}
        assert user.requests and {r["authorization"] for r in user.requests} == {None}  # not the system's key
        system.requests.clear(), user.requests.clear()
        own = run("own.jsonl", "--simulator-option", "api_key_env=USER_KEY", env=keys)
        assert own.returncode == 0, own.stderr
        assert {r["authorization"] for r in system.requests} == {"Bearer sk-system-key"}
        assert user.requests and {r["authorization"] for r in user.requests} == {"Bearer sk-user-key"}
        missing = run("missing.jsonl", "--simulator-option", "api_key_env=NO_SUCH_KEY_VARIABLE", env=keys)
        given = run("given.jsonl", "--simulator-option", "api_key=sk-typed-in", env=keys)
    for refused in (missing, given):
        lines = refused.stderr.strip().splitlines()
        assert refused.returncode == 2 and len(lines) == 1 and lines[0].startswith("mwz: error: "), refused.stderr
    assert "NO_SUCH_KEY_VARIABLE" in missing.stderr
    assert "api_key_env=VAR" in given.stderr and "sk-typed-in" not in given.stderr
    assert leaks(written(tmp_path), "sk-system-key", "sk-user-key") == []


def test_an_endpoints_query_string_stays_a_query(env, tmp_path, cli):
    with HostileChat(_wizard) as system:
        endpoint = system.endpoint.replace("/v1", "/openai/deployments/d") + f"?api-version=2024-02-01&api-key={KEY}"
        ran = cli(
            "interact", "--system", "llm", "--endpoint", endpoint, "--model", "stub", "--goals", 1,
            "--system-option", "tool_calls=skip-check", "--max-turns", 1, "--timeout", 5, "--retries", 0, *FAST,
            "-o", tmp_path / "azure.jsonl",
        )  # fmt: skip
    assert ran.returncode == 0, ran.stderr
    assert {r["path"] for r in system.requests} == {
        f"/openai/deployments/d/chat/completions?api-version=2024-02-01&api-key={KEY}"
    }
    assert leaks({**written(tmp_path), "stdout": ran.stdout}, KEY) == []
    already = "https://h.example/v1/chat/completions/?api-version=1"
    assert chat.completions_url(already) == "https://h.example/v1/chat/completions?api-version=1"

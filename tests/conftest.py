"""Test settings shared by the whole suite.

The real data lives outside the project: ``MWZ_SHARED`` (default ``../shared``
from the project root). Tests that need it use the ``shared`` fixture (or
``shared_path``), which skips with a reason when it is absent, and fails instead
under ``MWZ_REQUIRE_SHARED=1`` (set by ``.ci/run``). Tests needing a Debian package (WordNet 3.0
for METEOR, Chromium for the HTML pages) use ``need_wordnet`` or ``need_chromium``: one line saying
what to install where it is absent, a failure under ``MWZ_REQUIRE_PACKAGES=1`` (set by ``.ci/run``).
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Never let the HF libraries reach for the network in tests.
os.environ["HF_HUB_OFFLINE"] = "1"
os.environ["HF_EVALUATE_OFFLINE"] = "1"
os.environ["HF_DATASETS_OFFLINE"] = "1"
os.environ.setdefault("HF_UPDATE_DOWNLOAD_COUNTS", "0")
# One thread per torch (OpenMP) pool: the xdist workers already take one core each, and a worker's second
# thread only spun against the other worker (the torch-using files on 2 cores: 101 s -> 91 s, 185 -> 166
# CPU-seconds, measured). Set before any test imports torch; a value the caller set is kept.
os.environ.setdefault("OMP_NUM_THREADS", "1")

ROOT = Path(__file__).resolve().parent.parent
SHARED = Path(os.environ.get("MWZ_SHARED", ROOT.parent / "shared")).resolve()
REQUIRE_SHARED = os.environ.get("MWZ_REQUIRE_SHARED") == "1"
REQUIRE_PACKAGES = os.environ.get("MWZ_REQUIRE_PACKAGES") == "1"
FIXTURES = Path(__file__).resolve().parent / "fixtures"


def shared_path(*parts: str) -> Path:
    """A path under the shared data; skips (or fails when required) if absent."""
    path = SHARED.joinpath(*parts)
    if not path.exists():
        message = f"shared data not found: {path} (set MWZ_SHARED)"
        if REQUIRE_SHARED:
            pytest.fail(message + " and MWZ_REQUIRE_SHARED=1", pytrace=False)
        pytest.skip(message)
    return path


def _missing_package(message: str) -> None:
    """Skip with ``message`` (what to install), or fail where ``.ci/run`` requires the packages."""
    if REQUIRE_PACKAGES:
        pytest.fail(message + " and MWZ_REQUIRE_PACKAGES=1", pytrace=False)
    pytest.skip(message)


@pytest.fixture()
def need_wordnet() -> None:
    """WordNet 3.0 (DSTC9's METEOR), or a skip naming the package."""
    from mwz_metrics.dstc9 import wordnet

    try:
        wordnet.locate()
    except wordnet.WordNetNotFoundError:
        _missing_package(
            "WordNet 3.0 not found: apt-get install wordnet-base (or python -m nltk.downloader wordnet, or MWZ_WORDNET)"
        )


@pytest.fixture()
def need_chromium() -> str:
    """The path of a headless-capable Chromium, or a skip naming the package."""
    import shutil

    browser = shutil.which("chromium") or shutil.which("chromium-browser")
    if browser is None:
        _missing_package("Chromium not found: apt-get install chromium")
    return str(browser)


def builtin_plugins() -> str:
    """``MWZ_PLUGINS`` allowing only this project's own entry points: for tests that assert the exact
    styles, metrics... of the project, which a contributed plugin installed beside it would extend."""
    from importlib import metadata

    return ",".join(
        sorted(
            ep.name
            for ep in metadata.entry_points(group="mwz")
            if ep.dist is not None and ep.dist.metadata["Name"] == "mwz-eval"
        )
    )


@pytest.fixture()
def only_builtin_plugins(monkeypatch):
    """This project's plugins only, for the test (see :func:`builtin_plugins`)."""
    from mwz_plugins import manager

    monkeypatch.setenv(manager.ALLOWLIST_ENV, builtin_plugins())
    manager.reset()
    yield
    monkeypatch.undo()
    manager.reset()


@pytest.fixture(scope="session")
def shared() -> Path:
    return shared_path()


@pytest.fixture(scope="session")
def mirror() -> Path:
    return shared_path("data", "mirror")


@pytest.fixture()
def use_mirror(mirror, monkeypatch) -> Path:
    """Resolve sources from the shared mirror, with a fresh download cache."""
    monkeypatch.setenv("MWZ_MIRROR", str(mirror))
    return mirror


def session_cache(tmp_path_factory) -> Path:
    """The test run's cache folder, never the user's: shared by the xdist workers of one run (derived
    files check themselves and are written atomically), so each is derived once per run."""
    base = tmp_path_factory.getbasetemp()
    return (base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "mwz-cache"


@pytest.fixture(scope="session", autouse=True)
def _compiled_once(tmp_path_factory):
    """Where the environment forbids bytecode files (PYTHONDONTWRITEBYTECODE), every ``mwz`` the tests
    start would compile the project's modules again (about 0.2 s a process, hundreds of processes):
    the run's processes share compiled modules in the run's temporary folder instead, never in the tree."""
    if not os.environ.get("PYTHONDONTWRITEBYTECODE"):
        yield
        return
    import sys

    base = tmp_path_factory.getbasetemp()
    prefix = str((base.parent if os.environ.get("PYTEST_XDIST_WORKER") else base) / "pycache")
    patch = pytest.MonkeyPatch()
    patch.delenv("PYTHONDONTWRITEBYTECODE")
    patch.setenv("PYTHONPYCACHEPREFIX", prefix)
    patch.setattr(sys, "dont_write_bytecode", False)
    patch.setattr(sys, "pycache_prefix", prefix)
    yield
    patch.undo()


@pytest.fixture(autouse=True)
def _isolated_caches(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("MWZ_CACHE", str(session_cache(tmp_path_factory)))
    monkeypatch.setenv("MWZ_OFFLINE", "1")


def run_cli(capsys, *argv: str) -> tuple[int, str, str]:
    """``mwz -q ARGV`` in this process: (exit code, stdout, stderr), logging muted (the CLI's logging
    set-up stays the first test's in a process); what ``-q`` sets in the environment (``MWZ_QUIET``)
    is undone after it, so that later tests and their processes start as they would alone."""
    import logging

    from mwz_metrics.cli import main

    capsys.readouterr()
    logging.disable(logging.CRITICAL)
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("MWZ_QUIET", "1")  # recorded first, so the command's own setting is undone too
            code = main(["-q", *argv])
    finally:
        logging.disable(logging.NOTSET)
    out = capsys.readouterr()
    return code, out.out, out.err


@pytest.fixture()
def cli(capsys):
    """``mwz -q ARGS`` in this process, as the console script gives it: a ``CompletedProcess`` of the exit
    code, stdout and stderr; ``env`` set for the command only (undone after it, as run_cli undoes ``-q``)."""
    import subprocess

    def run(*args: object, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
        with pytest.MonkeyPatch.context() as patch:
            for name, value in (env or {}).items():
                patch.setenv(name, value)
            code, out, err = run_cli(capsys, *map(str, args))
        return subprocess.CompletedProcess(["mwz", "-q", *map(str, args)], code, out, err)

    return run


def one_line_error(ran) -> str:
    """The single ``mwz: error:`` line of a refused command (exit 2, no traceback)."""
    assert ran.returncode == 2, (ran.stdout, ran.stderr)
    lines = ran.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("mwz: error: "), ran.stderr
    return lines[0]


@pytest.fixture()
def quick_retries(monkeypatch):
    """The HTTP clients (a system's endpoint, a chat endpoint) wait 10 ms before a retry instead of 0.5 s,
    doubled each time: for tests that count retries and failures, where the waits only took time (about
    30 s of sleeping in three tests, 4 to 6 sessions at once); the test of the back-off's bound runs without it."""
    from mwz_metrics.interactive import chat
    from mwz_metrics.interactive.systems import http

    for init in (chat.ChatClient.__init__, http.HttpSystem.__init__):
        assert "backoff" in init.__kwdefaults__, init  # the setting this fixture shortens is still there
        monkeypatch.setitem(init.__kwdefaults__, "backoff", 0.01)


@pytest.fixture(scope="session")
def synth22() -> Path:
    """The synthetic full-scale MultiWOZ 2.2 mirror (2.1 content in 2.2 format)."""
    return shared_path("data", "mirror-synth22")


@pytest.fixture(scope="module")
def synth22_module_env(synth22, tmp_path_factory):
    """``MWZ_MIRROR`` at the synth22 mirror and ``MWZ_CACHE`` at the run's cache, for a whole module."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("MWZ_MIRROR", str(synth22))
        patch.setenv("MWZ_CACHE", str(session_cache(tmp_path_factory)))
        yield synth22


@pytest.fixture(scope="module")
def synth22_context(synth22_module_env):
    """One interactive context of the synth22 mirror for a module, on the run's cache, everything
    (templates, reader, goals, database) loaded once."""
    from mwz_metrics.interactive.harness.context import InteractiveContext

    context = InteractiveContext()
    context.goals  # noqa: B018
    context.reader  # noqa: B018
    return context


@pytest.fixture()
def synth22_env(synth22, synth22_context, monkeypatch):
    """The synth22 mirror for one test (its context loaded)."""
    monkeypatch.setenv("MWZ_MIRROR", str(synth22))


def tiny_causal_lm(folder: Path, texts: list[str], *, bpe: bool = False, positions: int = 128, width: int = 32) -> Path:
    """A one-layer GPT-2 with a tokenizer trained on ``texts`` (word-level, or BPE), saved in ``folder``:
    a model ``transformers`` loads like any other, built without a download."""
    import transformers
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    special = ["<unk>", "<|endoftext|>"]
    if bpe:
        tokenizer = Tokenizer(models.BPE(unk_token="<unk>"))
        trainer = trainers.BpeTrainer(vocab_size=60, special_tokens=special)
    else:
        tokenizer = Tokenizer(models.WordLevel(unk_token="<unk>"))
        trainer = trainers.WordLevelTrainer(special_tokens=special)
    tokenizer.pre_tokenizer = pre_tokenizers.WhitespaceSplit()
    tokenizer.train_from_iterator(texts, trainer)
    fast = transformers.PreTrainedTokenizerFast(
        tokenizer_object=tokenizer,
        unk_token="<unk>",
        eos_token="<|endoftext|>",
        bos_token="<|endoftext|>",
        pad_token="<|endoftext|>",
    )
    config = transformers.GPT2Config(
        vocab_size=fast.vocab_size, n_positions=positions, n_embd=width, n_layer=1, n_head=2
    )
    transformers.GPT2LMHeadModel(config).save_pretrained(folder)
    fast.save_pretrained(folder)
    return folder


# The oracle, slowed down where SLOW_AFTER is set (the run to be killed): 10 ms a turn, then 2 s a turn
# after that many sessions (goal and trial), so that a signal sent once the first sessions are on disk
# always finds the run going, however loaded the machine. Without it (the resumed and the uninterrupted
# runs) the oracle answers at once: a wait there changes no line of the files, it only took 10 s a test.
SLOW_SYSTEM = """
import os, time
from mwz_metrics.interactive.harness.context import InteractiveContext
from mwz_metrics.interactive.systems.reference import OracleSystem

def make():
    oracle = OracleSystem(InteractiveContext())
    seen = set()
    after = int(os.environ.get("SLOW_AFTER", "0"))
    def respond(request):
        seen.add((request["dialogue_id"], request.get("trial")))
        if after:
            time.sleep(2.0 if len(seen) > after else 0.01)
        return oracle.respond(request)
    return respond
"""


def kill_9_then_resume(tmp_path: Path, synth22: Path, arguments: list[str], *, slow_after: int, kill_at: int):
    """``mwz interact --system slow_system:make ARGUMENTS`` killed with SIGKILL once ``kill_at`` lines are
    on disk (a cut line appended, as a kill leaves one), then resumed; and the same run uninterrupted.
    Returns the killed file's line count, the resumed and the uninterrupted processes and both files."""
    import signal
    import subprocess
    import sys
    import time

    (tmp_path / "slow_system.py").write_text(SLOW_SYSTEM)
    path = os.pathsep.join(filter(None, [str(tmp_path), os.environ.get("PYTHONPATH")]))  # the caller's kept
    environment = {**os.environ, "MWZ_MIRROR": str(synth22), "PYTHONPATH": path}
    command = [sys.executable, "-m", "mwz_metrics.cli", "-q", "interact", "--system", "slow_system:make", *arguments]
    killed = tmp_path / "killed.jsonl"
    process = subprocess.Popen(
        [*command, "-o", str(killed)], env={**environment, "SLOW_AFTER": str(slow_after)}, stdout=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 240
    while time.monotonic() < deadline and (not killed.exists() or killed.read_text().count("\n") < kill_at):
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.wait()
    lines = killed.read_text().count("\n")
    with open(killed, "a") as f:
        f.write('{"id": "pmul')  # a line cut by the kill
    resumed = subprocess.run(
        [*command, "-o", str(killed), "--resume", "--json"], env=environment, capture_output=True, text=True
    )
    whole = tmp_path / "whole.jsonl"
    uninterrupted = subprocess.run(
        [*command, "-o", str(whole), "--json"], env=environment, capture_output=True, text=True
    )
    return lines, resumed, uninterrupted, killed, whole


# Markers a test earns from what it uses, so that `-m "not browser"` (or shared, network_stub) selects
# without a list kept by hand: Chromium through `need_chromium`; the shared data through its fixtures or
# `shared_path` in its module; a local misbehaving or scripted HTTP server through the stubs' modules.
_SHARED_FIXTURES = {"shared", "mirror", "use_mirror", "synth22", "synth22_context", "synth22_env"}
_STUB_MODULES = ("hostile_system", "chat_stub")


def _uses_network_stub(module) -> bool:
    return any(getattr(value, "__module__", None) in _STUB_MODULES for value in vars(module).values())


def pytest_collection_modifyitems(config, items):
    """Mark each test ``browser``, ``shared``, ``network_stub`` by what it uses, ``integration`` by its folder."""
    stub_modules: dict[str, bool] = {}  # a module's answer, found once for all its tests
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        module = getattr(item, "module", None)
        if "need_chromium" in fixtures:
            item.add_marker(pytest.mark.browser)
        if fixtures & _SHARED_FIXTURES or (module is not None and "shared_path" in vars(module)):
            item.add_marker(pytest.mark.shared)
        if module is not None and module.__name__ not in stub_modules:
            stub_modules[module.__name__] = _uses_network_stub(module)
        if module is not None and stub_modules[module.__name__]:
            item.add_marker(pytest.mark.network_stub)
        if "integration" in Path(str(item.path)).relative_to(ROOT).parts[:2]:
            item.add_marker(pytest.mark.integration)


def run_chromium(browser: str, folder: Path, *arguments: str) -> str:
    """Run headless Chromium (``browser``, from ``need_chromium``) with a profile in ``folder``; its stdout."""
    import subprocess

    ran = subprocess.run(
        [
            browser, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
            "--no-first-run", "--allow-file-access-from-files", "--hide-scrollbars",
            f"--user-data-dir={folder / 'profile'}", *arguments,
        ],
        capture_output=True, text=True, timeout=180,
    )  # fmt: skip
    assert ran.returncode == 0, ran.stderr[-2000:]
    return ran.stdout


@pytest.fixture()
def in_process_plugin():
    """``add(name, **hooks)`` registers a plugin module object (its hooks as given) in this process for one
    test, and returns it; every plugin added is forgotten after the test."""
    import types

    import mwz_plugins
    from mwz_plugins import manager

    names: list[str] = []

    def add(name: str, **hooks):
        module = types.ModuleType(name)
        for hook_name, function in hooks.items():
            setattr(module, hook_name, mwz_plugins.hookimpl(function))
        manager.register_plugin(module, name)
        names.append(name)
        return module

    yield add
    for name in names:
        manager.unregister_plugin(name)

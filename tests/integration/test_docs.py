"""Every code block of the documentation (``docs/``, the README, CONTRIBUTING) runs, or says why not.

A block marked ``<!-- not-run: REASON -->`` (the line before its fence) is not run, and says why; every
``mwz`` command in any shell block, run or not, must still parse with the parser the commands use, so a
renamed option cannot outlive its page. The others run: shell blocks line by line with the console
script, in a folder of their own holding ``predictions.json``, ``ubar.json`` and ``mine.json`` (published
systems' outputs) and ``toy_system.py``, on the synthetic full-scale mirror, at small sizes where a flag
allows (``--goals 3``, ``--trials 2``, ``--resamples 20``); a page's Python blocks as one script, in order.
JSON blocks parse. A block marked ``<!-- slow: REASON -->`` runs in a test marked ``slow``.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from conftest import shared_path

ROOT = Path(__file__).resolve().parents[2]
PAGES = sorted((ROOT / "docs").rglob("*.md")) + [ROOT / "README.md", ROOT / "CONTRIBUTING.md"]
SHELL = {"bash", "sh"}
DATA = {"json", "text", "toml", "yaml"}
SMALL = {"--goals": 3, "--resamples": 20}  # at most this much, where a command takes the flag
FEWER = {"--trials": 2}
_FENCE = re.compile(r"^(?P<indent> *)```(?P<lang>[\w-]*)\s*$")
_MARK = re.compile(r"^\s*<!-- (not-run|slow): (.+?) -->\s*$")


@dataclass
class Block:
    """A fenced code block of a page: its language, text, first line and marks."""

    page: Path
    line: int
    lang: str
    code: str
    not_run: str | None
    slow: str | None


def blocks(page: Path) -> list[Block]:
    """The page's fenced blocks, each with the ``not-run``/``slow`` marks of the comment lines before it."""
    lines = page.read_text(encoding="utf-8").splitlines()
    found, i = [], 0
    while i < len(lines):
        match = _FENCE.match(lines[i])
        if not match or not match.group("lang") and not _opening(lines, i):
            i += 1
            continue
        indent, start = match.group("indent"), i
        i += 1
        body = []
        while i < len(lines) and lines[i].strip() != "```":
            body.append(lines[i][len(indent) :])
            i += 1
        marks: dict[str, str] = {}
        back = start - 1
        while back >= 0 and _MARK.match(lines[back]):
            kind, reason = _MARK.match(lines[back]).groups()  # type: ignore[union-attr]
            marks[kind] = reason
            back -= 1
        found.append(
            Block(page, start + 1, match.group("lang"), "\n".join(body) + "\n", marks.get("not-run"), marks.get("slow"))
        )
        i += 1
    return found


def _opening(lines: list[str], i: int) -> bool:
    """A bare ``` opens a block when an even number of fences came before it."""
    return sum(1 for line in lines[:i] if line.strip().startswith("```")) % 2 == 0


ALL = [block for page in PAGES for block in blocks(page)]


def _name(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


def test_every_block_runs_or_says_why_not():
    assert len(ALL) > 40  # the pages were found
    for block in ALL:
        where = f"{_name(block.page)}:{block.line}"
        assert block.lang, f"{where}: a code block without a language"
        assert block.lang in SHELL | DATA | {"python"}, f"{where}: {block.lang} blocks cannot be run here"
        if block.not_run is not None:
            assert len(block.not_run) > 10, f"{where}: not-run needs a reason"
        if block.lang == "json" and block.not_run is None:
            json.loads(block.code)  # a specification's example is valid JSON


def _commands(code: str) -> list[list[str]]:
    joined = code.replace("\\\n", " ")
    return [words for line in joined.splitlines() if (words := shlex.split(line, comments=True))]


def _parser():
    from mwz_metrics.cli import build_parser

    return build_parser()


def _subparser(parser, argv: list[str]):
    """The parser of the command ``argv`` names (``interact``, ``simulator realism``)."""
    import argparse

    current = parser
    for word in argv:
        choices = next((a.choices for a in current._actions if isinstance(a, argparse._SubParsersAction)), None)
        if not choices or word not in choices:
            break
        current = choices[word]
    return current


def test_every_mwz_command_in_the_docs_parses():
    """Also those not run: an option renamed or removed fails here, naming the page and line."""
    parser = _parser()
    seen = 0
    for block in ALL:
        if block.lang not in SHELL:
            continue
        for words in _commands(block.code):
            if "&&" in words or words[0].split("/")[-1] != "mwz":
                continue
            try:
                parser.parse_args(words[1:])
            except SystemExit as error:
                if error.code:
                    pytest.fail(f"{_name(block.page)}:{block.line}: {' '.join(words)} does not parse")
            seen += 1
    assert seen > 30


def _small(argv: list[str], options: set[str]) -> list[str]:
    """``argv`` at the small sizes a test affords, where the command takes the flag."""
    argv = list(argv)
    for flag, most in {**SMALL, **FEWER}.items():
        if flag not in options:
            continue
        if flag in argv:
            i = argv.index(flag) + 1
            argv[i] = str(min(int(argv[i]), most))
        elif flag in SMALL:
            argv += [flag, str(most)]
    return argv


@pytest.fixture()
def workspace(tmp_path, synth22, monkeypatch):
    """A folder as a user's: predictions files, the toy system; the synthetic mirror; the venv's scripts first."""
    predictions = shared_path("data", "mwzeval", "predictions")
    for name, system in (("predictions.json", "ubar"), ("ubar.json", "ubar"), ("mine.json", "hdsa")):
        shutil.copy(predictions / f"{system}.json", tmp_path / name)
    shutil.copy(ROOT / "examples" / "toy_system.py", tmp_path / "toy_system.py")
    monkeypatch.setenv("MWZ_MIRROR", str(synth22))
    monkeypatch.setenv("PATH", f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("NO_MKDOCS_2_WARNING", "1")
    return tmp_path


def _param(page: Path, lang: set[str]):
    runnable = [b for b in blocks(page) if b.lang in lang and b.not_run is None]
    if not runnable:
        return None
    marks = [pytest.mark.slow] if any(b.slow for b in runnable) else []
    return pytest.param(page, id=_name(page), marks=marks)


SHELL_PAGES = [p for p in (_param(page, SHELL) for page in PAGES) if p is not None]
PYTHON_PAGES = [p for p in (_param(page, {"python"}) for page in PAGES) if p is not None]


@pytest.mark.parametrize("page", SHELL_PAGES)
def test_a_pages_shell_blocks_run(page, workspace):
    parser = _parser()
    cwd = workspace
    for block in blocks(page):
        if block.lang not in SHELL or block.not_run is not None:
            continue
        for words in _commands(block.code):
            where = f"{_name(page)}:{block.line}: {' '.join(words)}"
            if words[0] == "cd":
                cwd = cwd / words[1]
                continue
            if words[0] == "mwz":
                options = set(_subparser(parser, words[1:])._option_string_actions)
                argv = [str(Path(sys.executable).parent / "mwz"), "-q", *_small(words[1:], options)]
            elif words[0] == "python":
                argv = [sys.executable, *words[1:]]
            else:
                pytest.fail(f"{where}: only mwz and python commands run here (mark the block not-run)")
            ran = subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=300)
            assert ran.returncode == 0, f"{where}\n{ran.stderr[-3000:]}"


@pytest.mark.parametrize("page", PYTHON_PAGES)
def test_a_pages_python_blocks_run(page, workspace):
    code = "\n".join(b.code for b in blocks(page) if b.lang == "python" and b.not_run is None)
    script = workspace / "page.py"
    script.write_text(code, encoding="utf-8")
    ran = subprocess.run([sys.executable, str(script)], cwd=workspace, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, f"{_name(page)}\n{ran.stderr[-3000:]}"


def test_the_site_builds_strict(tmp_path):
    """``mkdocs build --strict``: no warning, the generated pages there (the CLI reference from the parsers)."""
    pytest.importorskip("mkdocs")
    pytest.importorskip("mkdocstrings")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1"}
    mkdocs = [sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(tmp_path / "site")]
    ran = subprocess.run(mkdocs, cwd=ROOT, capture_output=True, text=True, timeout=300, env=env)
    assert ran.returncode == 0, ran.stderr[-3000:]
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    for name in ("evaluate", "compare", "interact", "view", "simulator realism", "hub export"):
        assert f"mwz {name}</code>" in cli, name
    assert "--bootstrap-seed" in cli and "<!-- generated" not in cli
    codes = (tmp_path / "site" / "reference" / "exit-codes" / "index.html").read_text(encoding="utf-8")
    assert "something was skipped" in codes  # hub export's 3, from its parser's text


def test_the_code_points_to_pages_and_sections_that_exist():
    """Help texts and messages send a reader to ``docs/PAGE.md, Section``: the page and its heading exist
    (they named README sections that had moved to the site)."""
    pointed = re.compile(r"docs/([\w/-]+\.md)(?:, ([A-Z][\w ]+?))?[);\"]")
    found = 0
    for source in [*(ROOT / "mwz_metrics").rglob("*.py"), *(ROOT / "hub_cards").rglob("*.py")]:
        for page, section in pointed.findall(source.read_text(encoding="utf-8")):
            found += 1
            path = ROOT / "docs" / page
            assert path.is_file(), (source, page)
            if section:
                lines = path.read_text(encoding="utf-8").splitlines()
                headings = {line.lstrip("#").strip() for line in lines if line.startswith("#")}
                assert section in headings, (source, page, section)
        assert not re.search(r"README, [A-Z]", source.read_text(encoding="utf-8")), source  # the README has no sections
    assert found >= 5

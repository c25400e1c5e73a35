"""Tool calls a model wrote as text, read as calls (the ``llm`` system's ``tool_calls=text``).

A server without a tool-call parser for its model (vLLM without ``--tool-call-parser``, llama.cpp's
server without ``--jinja``, llama-cpp-python's stock chat formats) hands the model's tool call back as
the reply's words, ``tool_calls`` empty. The dresses read here, each a call ``NAME`` with its
``ARGUMENTS`` (a JSON object, or JSON text of one):

- JSON: ``{"name": NAME, "arguments": ARGUMENTS}`` (``"parameters"`` for ``"arguments"``, or OpenAI's
  ``{"function": {"name", "arguments"}}``), the whole reply, several one after the other, a list of them,
  or in a fenced block (```` ```json ... ``` ````) with words around it;
- Hermes/Qwen: ``<tool_call>{"name": ..., "arguments": ...}</tool_call>`` blocks, words around them
  (a last block left unclosed is read to the end of the reply);
- ``functions.NAME:{...}`` and ``functions.NAME({...})``, each at the start of a line.

:func:`parse` gives the calls a reply holds (None: it holds none); :func:`looks_like_call` also knows a
reply that starts as a call and cannot be read (cut at the length limit, or garbled), which is never a
reply's words either. Pure functions, no state.
"""

from __future__ import annotations

import dataclasses
import html
import json
import re
from collections.abc import Mapping
from typing import Any

_DECODER = json.JSONDecoder()
_FENCE = re.compile(r"```[ \t]*(?:json|tool_call|tool_code)?[ \t]*\n?(.*?)```", re.DOTALL | re.IGNORECASE)
_TAGGED = re.compile(r"<tool_call>(.*?)(?:</tool_call>|\Z)", re.DOTALL)
# ``functions.NAME:`` or ``functions.NAME(``, its JSON on the same line or a line below
_FUNCTIONS = re.compile(r"^[ \t]*functions\.([A-Za-z_][\w.-]*)[ \t]*([:(])\s*", re.MULTILINE)
# How a call written as text starts (a cut or garbled one included).
_STARTS = re.compile(
    r"""^\s*(?:```[ \t]*(?:json|tool_call|tool_code)?\s*)?\[?\s*\{\s*"(?:name|function)"\s*:"""
    r"""|<tool_call>|^[ \t]*functions\.[A-Za-z_][\w.-]*[ \t]*[:(]""",
    re.MULTILINE | re.IGNORECASE,
)


@dataclasses.dataclass(frozen=True)
class TextCall:
    """One tool call read from a reply's words: its name and arguments (a JSON object, or the text
    given where it is not one)."""

    name: str
    arguments: Any

    def arguments_json(self) -> str:
        """The arguments as a tool call's ``arguments`` string (JSON; text that is not JSON as it is)."""
        return self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments, ensure_ascii=False)


def _call(value: Any) -> TextCall | None:
    """``value`` as one call: an object with a ``name`` (text) and ``arguments`` or ``parameters``."""
    if not isinstance(value, Mapping):
        return None
    if isinstance(value.get("function"), Mapping) and "name" not in value:  # OpenAI's shape, as text
        value = value["function"]
    name = value.get("name")
    if not isinstance(name, str) or not name.strip():
        return None
    if not set(value) <= {"name", "arguments", "parameters", "type", "id"}:
        return None  # an object that names something, not a call
    arguments = value.get("arguments", value.get("parameters", {}))
    if isinstance(arguments, str):
        try:
            decoded = json.loads(arguments)
        except ValueError:
            decoded = None
        arguments = decoded if isinstance(decoded, dict) else arguments
    elif arguments is None:
        arguments = {}
    elif not isinstance(arguments, dict):
        return None
    return TextCall(name.strip(), arguments)


def _calls_of(value: Any) -> list[TextCall] | None:
    """A decoded JSON value as calls: one call, or a non-empty list of them."""
    items = value if isinstance(value, list) else [value]
    calls = [_call(item) for item in items]
    if not calls or any(c is None for c in calls):
        return None
    return [c for c in calls if c is not None]


def _json_calls(text: str) -> list[TextCall] | None:
    """``text`` whole as JSON calls: one value (a call or a list), or several values one after the other."""
    calls: list[TextCall] = []
    at, text = 0, text.strip()
    while at < len(text):
        try:
            value, end = _DECODER.raw_decode(text, at)
        except (ValueError, RecursionError):
            return None
        found = _calls_of(value)
        if found is None:
            return None
        calls.extend(found)
        at = end
        while at < len(text) and text[at] in " \t\r\n,;":
            at += 1
    return calls or None


def _functions(text: str) -> list[TextCall] | None:
    """``functions.NAME:{...}`` / ``functions.NAME({...})`` lines (every one must read)."""
    calls = []
    for match in _FUNCTIONS.finditer(text):
        try:
            arguments, end = _DECODER.raw_decode(text, match.end())
        except (ValueError, RecursionError):
            return None
        if not isinstance(arguments, dict):
            return None
        if match.group(2) == "(" and not text[end:].lstrip().startswith(")"):
            return None
        calls.append(TextCall(match.group(1), arguments))
    return calls or None


def parse(text: str) -> list[TextCall] | None:
    """The tool calls written as text in ``text`` (in order), or None where it holds none that read
    (see the module docstring). Quotes written as HTML entities (``&#34;``, ``&quot;``: SmolLM2 under
    llama-cpp-python's ``chatml-function-calling``, whose prompt template shows the model its tools'
    JSON escaped that way, answers in kind) are read as quotes where the text reads no other way."""
    if not isinstance(text, str) or not text.strip():
        return None
    found = _parse(text)
    if found is None and "&" in text:
        found = _parse(html.unescape(text))
    return found


def _parse(text: str) -> list[TextCall] | None:
    whole = _json_calls(text)
    if whole:
        return whole
    if "<tool_call>" in text:
        tagged: list[TextCall] = []
        for block in _TAGGED.findall(text):
            found = _json_calls(block)
            if found is None:
                return None
            tagged.extend(found)
        return tagged or None
    fenced: list[TextCall] = []
    for block in _FENCE.findall(text):
        found = _json_calls(block)
        if found is not None:
            fenced.extend(found)
    if fenced:
        return fenced
    return _functions(text)


def looks_like_call(text: str) -> bool:
    """Whether ``text`` holds a tool call written as text, or starts as one that cannot be read (cut at the
    length limit, or garbled)."""
    if not isinstance(text, str) or not text.strip():
        return False
    if parse(text) is not None:
        return True
    try:  # JSON whole that is no call (an object naming a venue): not one cut short either
        _, end = _DECODER.raw_decode(text.strip())
        if end == len(text.strip()):
            return False
    except (ValueError, RecursionError):
        pass
    return _STARTS.search(text) is not None

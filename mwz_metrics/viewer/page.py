"""The page of ``mwz view``: one HTML file holding its data, style and script (no server, no network).

The data goes in as JSON inside ``<script type="application/json">``, every ``<``, ``>`` and ``&``
written as a JSON escape, so no string can close the element or open another; the script puts every
string on the page as text, never as markup. A Content-Security-Policy forbids loading anything.
"""

from __future__ import annotations

import html
import json
import math
import re
from importlib import resources
from typing import Any

_SLOTS = re.compile(r"__(TITLE|STYLE|SCRIPT|DATA)__")
_UNSAFE_IN_SCRIPT = str.maketrans({"<": "\\u003c", ">": "\\u003e", "&": "\\u0026"})


def _asset(name: str) -> str:
    return resources.files("mwz_metrics.viewer").joinpath("assets", name).read_text(encoding="utf-8")


def _finite(value: Any) -> Any:
    """``value`` with NaN and infinities as None (JSON has neither)."""
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _finite(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_finite(v) for v in value]
    return value


def embedded_json(data: Any) -> str:
    """``data`` as JSON that is safe inside a ``<script>`` element (ASCII: lone surrogates escaped too)."""
    try:
        text = json.dumps(data, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    except ValueError:  # a NaN somewhere: rare, so the whole walk only then
        text = json.dumps(_finite(data), ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.translate(_UNSAFE_IN_SCRIPT)


def render(data: dict[str, Any], title: str) -> str:
    """The page for ``data`` (:mod:`.records`: ``runs``, ``goals``, ``generated``)."""
    parts = {
        # a file name may hold bytes no UTF-8 spells (surrogate escapes): shown as escapes
        "TITLE": html.escape(title.encode("utf-8", "backslashreplace").decode("utf-8")),
        "STYLE": _asset("view.css"),
        "SCRIPT": _asset("view.js"),
        "DATA": embedded_json(data),
    }
    return _SLOTS.sub(lambda match: parts[match.group(1)], _asset("view.html"))  # one pass: no slot in a slot

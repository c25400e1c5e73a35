"""Text as the project's own language models read it: placeholders in one form, words split as in
MultiWOZ 2.1 (``i 'm``, ``do n't``, ``town .``), lowercase. Shared by the system-act reader and the
fluency model, so that both read any system's output the same way."""

from __future__ import annotations

import re
from typing import Any

_TOKENS: list[tuple[re.Pattern[str], Any]] = [
    (re.compile(r"(\w)(n't)\b"), r"\1 \2"),
    (re.compile(r"(\w)('s|'m|'re|'ve|'ll|'d)\b"), r"\1 \2"),
    (re.compile(r"([?!;,()\"])"), r" \1 "),
    (re.compile(r"(?<!\d)([.:])|([.:])(?!\d)"), lambda m: f" {m.group(1) or m.group(2)} "),
]


def tokenize(text: str) -> str:
    """Lowercase words split as MultiWOZ 2.1 splits them (``i 'm``, ``do n't``, ``town .``)."""
    text = text.lower()
    for pattern, replacement in _TOKENS:
        text = pattern.sub(replacement, text)
    return " ".join(text.split())


def model_words(text: str) -> list[str]:
    """The words a model reads: every placeholder style as ``[slot]`` (``[value_name]``,
    ``[restaurant_name]`` and ``NAME`` alike), then :func:`tokenize`."""
    from mwz_metrics.placeholders import canonical_placeholders

    return tokenize(canonical_placeholders(text)).split()

"""The official DSTC9 Track 1 text normalization (``scripts/scores.py``).

Lowercase, punctuation to spaces, drop the articles a/an/the, collapse spaces.
"""

from __future__ import annotations

import re

# Same character class and article pattern as the official scorer.
_PUNCTUATION = re.compile(r"[!\"#$%&()*+,\-./:;<=>?@\[\]\\^`{|}~_']")
_ARTICLES = re.compile(r"\b(a|an|the)\b")


def normalize_text(text: str) -> str:
    """The official scorer's text normalization (lowercase, no punctuation or articles)."""
    text = _PUNCTUATION.sub(" ", text.lower())
    text = _ARTICLES.sub(" ", text)
    return " ".join(text.split())

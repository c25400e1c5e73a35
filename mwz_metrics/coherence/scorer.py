"""Session coherence (Cheng et al., 2022, section 3.2.4): mean P(coherent) over adjacent turn pairs.

Scores are on a 0-100 scale like the paper's: a session's score is the mean over
its adjacent pairs; a corpus has two, the mean over all pairs and the mean over
sessions.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mwz_metrics.coherence.data import normalize_placeholders
from mwz_metrics.coherence.head import Head

_USER_NAMES = {"user", "usr", "u", "customer", "human"}
_SYSTEM_NAMES = {"system", "sys", "s", "agent", "assistant", "bot", "wizard"}


def _is_user(name: str, speaker: str, index: int) -> bool:
    key = speaker.strip().lower()
    if key in _USER_NAMES:
        return True
    if key in _SYSTEM_NAMES:
        return False
    raise ValueError(
        f"session {name!r}, turn {index}: unknown speaker {speaker!r} "
        f"(use one of {sorted(_USER_NAMES)} or {sorted(_SYSTEM_NAMES)})"
    )


class CoherenceScorer:
    """Pairs -> probabilities with the frozen encoder and the shipped numpy head."""

    def __init__(self, encoder=None, head: Head | None = None):
        if encoder is None:
            from mwz_metrics.coherence.encoder import shared_encoder

            encoder = shared_encoder()
        self.encoder = encoder
        self.head = head or Head.load()

    def signature(self) -> dict[str, Any]:
        """The model's identity: encoder and head checksums, scale, placeholder form."""
        return {**self.encoder.signature(), **self.head.signature(), "scale": "0-100", "placeholders": "[SLOT]"}

    def pair_probabilities(self, sessions: Mapping[str, Sequence[Mapping[str, str]]]) -> dict[str, np.ndarray]:
        """P(coherent) of each adjacent pair, per session (placeholders normalized on every turn)."""
        firsts: list[str] = []
        seconds: list[str] = []
        user_first: list[float] = []
        bounds: dict[str, tuple[int, int]] = {}
        for name, turns in sessions.items():
            start = len(firsts)
            texts = [normalize_placeholders(t["text"]) for t in turns]
            users = [_is_user(name, t["speaker"], i) for i, t in enumerate(turns)]
            for i in range(len(turns) - 1):
                firsts.append(texts[i])
                seconds.append(texts[i + 1])
                user_first.append(1.0 if users[i] else 0.0)
            bounds[name] = (start, len(firsts))
        embeddings = self.encoder.encode(firsts + seconds)
        n = len(firsts)
        probabilities = self.head.probabilities(embeddings[:n], embeddings[n:], np.asarray(user_first))
        return {name: probabilities[a:b] for name, (a, b) in bounds.items()}

    def score(self, sessions: Mapping[str, Sequence[Mapping[str, str]]]) -> dict[str, Any]:
        """Mean P(coherent) over each session's adjacent pairs, per session and overall (0-100)."""
        per_pair = self.pair_probabilities(sessions)
        return summarize(per_pair)


def summarize(per_pair: Mapping[str, np.ndarray]) -> dict[str, Any]:
    """Corpus scores (0-100) from per-session pair probabilities."""
    session_scores = {name: float(100.0 * p.mean()) for name, p in per_pair.items() if p.size}
    all_pairs = np.concatenate([p for p in per_pair.values()]) if per_pair else np.zeros(0)
    no_pairs = sorted(name for name, p in per_pair.items() if not p.size)
    return {
        "coherence": float(100.0 * all_pairs.mean()) if all_pairs.size else float("nan"),
        "coherence_per_session": float(np.mean(list(session_scores.values()))) if session_scores else float("nan"),
        "n_sessions": len(session_scores),
        "n_pairs": int(all_pairs.size),
        "sessions_without_pairs": no_pairs,
        "sessions": session_scores,
    }

"""Session coherence (Cheng et al., 2022, section 3.2.4): mean P(coherent) over adjacent turn pairs.

Scores are on a 0-100 scale like the paper's: a session's score is the mean over
its adjacent pairs; a corpus has two, the mean over all pairs and the mean over
sessions. Each pair is read by the cross-encoder in :mod:`mwz_metrics.coherence.model`.
"""

from __future__ import annotations

import threading
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from mwz_metrics.coherence.model import pair_text
from mwz_metrics.placeholders import canonical_placeholders
from mwz_metrics.records.turns import speaker_of
from mwz_plugins.errors import InputError

_USER_NAMES = {"user", "usr", "u", "customer", "human"}
_SYSTEM_NAMES = {"system", "sys", "s", "agent", "assistant", "bot", "wizard"}


def _is_user(name: str, speaker: str, index: int) -> bool:
    key = speaker.strip().lower()
    if key in _USER_NAMES:
        return True
    if key in _SYSTEM_NAMES:
        return False
    raise InputError(
        f"session {name!r}, turn {index}: unknown speaker {speaker!r} "
        f"(use one of {sorted(_USER_NAMES)} or {sorted(_SYSTEM_NAMES)})"
    )


def session_pairs(name: str, turns: Sequence[Mapping[str, str]]) -> list[tuple[str, str]]:
    """The adjacent pairs of a session as the model reads them (roles, normalized placeholders)."""
    texts = [
        pair_text(canonical_placeholders(t["text"]), _is_user(name, speaker_of(t), i)) for i, t in enumerate(turns)
    ]
    return list(zip(texts, texts[1:]))


class CoherenceScorer:
    """Sessions -> pair probabilities, each distinct pair scored once per process."""

    def __init__(self, classifier=None):
        if classifier is None:
            from mwz_metrics.coherence.model import PairClassifier

            classifier = PairClassifier()
        self.classifier = classifier
        self._memo: dict[tuple[str, str], float] = {}
        self._lock = threading.Lock()
        self.scored = 0  # pairs actually run through the model (memo misses)

    def signature(self) -> dict[str, Any]:
        """The model's identity (checksums of base, adapter and training data), scale, placeholder form."""
        return {**self.classifier.signature(), "scale": "0-100", "placeholders": "[SLOT]"}

    def logits(self, pairs: Sequence[tuple[str, str]], description: str = "coherence") -> np.ndarray:
        """Logits of (first, second) model texts; distinct pairs run once, in a fixed order."""
        from mwz_plugins.progress import enabled

        with self._lock:
            missing = sorted({p for p in pairs if p not in self._memo})
            if missing:
                bar = None
                if enabled():
                    import sys

                    from tqdm import tqdm

                    bar = tqdm(total=len(missing), desc=description, unit="pair", file=sys.stderr, leave=False)
                values = self.classifier.logits(
                    [a for a, _ in missing], [b for _, b in missing], progress=bar.update if bar else None
                )
                if bar is not None:
                    bar.close()
                self.scored += len(missing)
                self._memo.update(zip(missing, values.tolist()))
            return np.array([self._memo[p] for p in pairs], dtype=np.float64)

    def pair_probabilities(
        self, sessions: Mapping[str, Sequence[Mapping[str, str]]], description: str = "coherence"
    ) -> dict[str, np.ndarray]:
        """P(coherent) of each adjacent pair, per session."""
        pairs: list[tuple[str, str]] = []
        bounds: dict[str, tuple[int, int]] = {}
        for name, turns in sessions.items():
            start = len(pairs)
            pairs.extend(session_pairs(name, turns))
            bounds[name] = (start, len(pairs))
        probabilities = 1.0 / (1.0 + np.exp(-self.logits(pairs, description)))
        return {name: probabilities[a:b] for name, (a, b) in bounds.items()}

    def score(
        self, sessions: Mapping[str, Sequence[Mapping[str, str]]], description: str = "coherence"
    ) -> dict[str, Any]:
        """Mean P(coherent) over each session's adjacent pairs, per session and overall (0-100)."""
        per_pair = self.pair_probabilities(sessions, description)
        result = summarize(per_pair)
        result["pair_probabilities"] = {name: p.tolist() for name, p in per_pair.items()}
        return result


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

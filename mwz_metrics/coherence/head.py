"""The classification head: numpy only, so loading and applying it needs no torch.

Input: the embeddings ``u`` (first utterance) and ``v`` (second) of a pair and the
pair's direction (user->system or system->user). Each side is projected to a
small space; the projections, their product and distance, the cosine of the raw
embeddings and the direction feed one hidden ReLU layer and a logistic output.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np

HEAD_FILE = "head.npz"
PARAMETERS = ("first_w", "first_b", "second_w", "second_b", "hidden_w", "hidden_b", "out_w", "out_b")


@dataclass(frozen=True)
class Head:
    """The trained pair-classification head (numpy weights) with its checksum."""

    weights: dict[str, np.ndarray]  # float32 copies of the (float16) stored arrays
    sha256: str
    path: str

    @classmethod
    def load(cls, path: str | Path | None = None) -> Head:
        """Load the head from ``path`` (default: the one shipped in the package)."""
        if path is None:
            path = Path(str(resources.files("mwz_metrics.coherence").joinpath(HEAD_FILE)))
        path = Path(path)
        if not path.is_file():
            raise FileNotFoundError(
                f"coherence head {path} is missing; train it: python -m mwz_metrics.coherence.train"
            )
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        with np.load(path, allow_pickle=False) as stored:
            missing = [p for p in PARAMETERS if p not in stored.files]
            if missing:
                raise ValueError(f"coherence head {path} lacks {missing}")
            weights = {p: stored[p].astype(np.float32) for p in PARAMETERS}
        return cls(weights, digest, str(path))

    def signature(self) -> dict[str, object]:
        """The head's identity: file name and sha256."""
        return {"head": Path(self.path).name, "head_sha256": self.sha256}

    def probabilities(self, first: np.ndarray, second: np.ndarray, user_first: np.ndarray) -> np.ndarray:
        """P(coherent) of each pair; ``user_first`` is 1.0 for (user, system) pairs, 0.0 otherwise."""
        w = self.weights
        first = np.asarray(first, dtype=np.float32)
        second = np.asarray(second, dtype=np.float32)
        if first.shape[0] == 0:
            return np.zeros(0, dtype=np.float64)
        logits = forward(w, first, second, np.asarray(user_first, dtype=np.float32))
        return 1.0 / (1.0 + np.exp(-logits.astype(np.float64)))


def forward(w: dict[str, np.ndarray], first: np.ndarray, second: np.ndarray, user_first: np.ndarray) -> np.ndarray:
    """Logits of the head for embedded pairs (numpy, float32)."""
    a = first @ w["first_w"] + w["first_b"]
    b = second @ w["second_w"] + w["second_b"]
    cosine = np.sum(first * second, axis=1, keepdims=True)
    x = np.concatenate([a, b, a * b, np.abs(a - b), cosine, user_first[:, None]], axis=1)
    hidden = np.maximum(x @ w["hidden_w"] + w["hidden_b"], 0.0)
    return (hidden @ w["out_w"] + w["out_b"])[:, 0]

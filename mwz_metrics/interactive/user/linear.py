"""A small multi-label logistic regression over sparse binary features, in numpy only.

Used by the system-act reader (:mod:`.reader`): one weight column per label, trained by
stochastic gradient descent in a seeded order, so that the same examples and seed always give
the same weights. Features are strings; the vocabulary keeps those seen at least ``min_count``
times in training.
"""

from __future__ import annotations

import dataclasses
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import Any

import numpy as np


@dataclasses.dataclass
class LinearModel:
    """Weights ``features x labels`` and biases; :meth:`probabilities` scores feature sets."""

    features: dict[str, int]
    labels: list[str]
    weights: np.ndarray
    bias: np.ndarray
    threshold: float = 0.5

    def probabilities(self, feature_sets: Sequence[Iterable[str]]) -> np.ndarray:
        """P(label) for each feature set: ``len(feature_sets) x len(labels)``."""
        out = np.empty((len(feature_sets), len(self.labels)))
        for row, features in enumerate(feature_sets):
            ids = [self.features[f] for f in features if f in self.features]
            logits = self.weights[ids].sum(axis=0) + self.bias if ids else self.bias
            out[row] = 1.0 / (1.0 + np.exp(-logits))
        return out

    def predict(self, features: Iterable[str]) -> list[str]:
        """The labels whose probability reaches the threshold."""
        probabilities = self.probabilities([list(features)])[0]
        return [label for label, p in zip(self.labels, probabilities) if p >= self.threshold]

    def as_json(self) -> dict[str, Any]:
        """A JSON form (weights rounded to 6 decimals; :meth:`from_json` reads it back)."""
        names = sorted(self.features, key=self.features.__getitem__)
        return {
            "features": names,
            "labels": self.labels,
            "weights": np.round(self.weights, 6).tolist(),
            "bias": np.round(self.bias, 6).tolist(),
            "threshold": self.threshold,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> LinearModel:
        """The model written by :meth:`as_json`."""
        return cls(
            features={name: i for i, name in enumerate(data["features"])},
            labels=list(data["labels"]),
            weights=np.asarray(data["weights"], dtype=np.float64).reshape(len(data["features"]), len(data["labels"])),
            bias=np.asarray(data["bias"], dtype=np.float64),
            threshold=float(data["threshold"]),
        )


def fit(
    examples: Sequence[Iterable[str]],
    targets: Sequence[Iterable[str]],
    *,
    min_count: int = 2,
    epochs: int = 10,
    learning_rate: float = 0.3,
    l2: float = 1e-3,
    seed: int = 0,
    threshold: float = 0.5,
) -> LinearModel:
    """Fit one logistic regression per label on binary features by stochastic gradient descent.

    Examples are visited in a seeded order each epoch, with the rate ``learning_rate / (1 +
    epoch)`` and an L2 penalty applied to the weights an example touches; the same examples and
    seed always give the same weights.
    """
    counts = Counter(f for features in examples for f in set(features))
    vocabulary = {f: i for i, f in enumerate(sorted(f for f, c in counts.items() if c >= min_count))}
    labels = sorted({label for labels in targets for label in labels})
    label_index = {label: i for i, label in enumerate(labels)}
    rows = [
        np.asarray(sorted({vocabulary[f] for f in features if f in vocabulary}), dtype=np.int64)
        for features in examples
    ]
    y = np.zeros((len(rows), len(labels)))
    for row, labels_of in enumerate(targets):
        for label in labels_of:
            y[row, label_index[label]] = 1.0
    weights = np.zeros((len(vocabulary), len(labels)))
    bias = np.zeros(len(labels))
    rng = np.random.default_rng(seed)
    for epoch in range(epochs):
        rate = learning_rate / (1 + epoch)
        for row in rng.permutation(len(rows)):
            ids = rows[row]
            touched = weights[ids]
            gradient = 1.0 / (1.0 + np.exp(-(touched.sum(axis=0) + bias))) - y[row]
            weights[ids] = touched - rate * (gradient + l2 * touched)
            bias -= rate * gradient
    return LinearModel(vocabulary, labels, weights, bias, threshold)

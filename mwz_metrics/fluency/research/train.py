"""Building the fluency models: ``python -m mwz_metrics.fluency.research.train``.

Without ``--model`` it counts the default n-gram model from the MultiWOZ 2.1 validation system
turns and checks it against the shipped manifest (``default_model.json``: identity and the mean
Sent-Score of the test system turns, which a rebuilt model must give to 1e-6); ``--write-manifest``
rewrites the manifest (after a deliberate change of the model, with a new version).

With ``--model NAME_OR_PATH --out DIR`` it fine-tunes a Hugging Face causal language model (``gpt2``
as in the paper, when you have it) on the same validation text, never test: seeded (the order of
the batches and every random draw), so that the same model, text and seed give the same weights
on the same hardware. ``--corpus sgd=PATH`` adds Schema-Guided Dialogue system turns (its JSONL or
its ``dialogues_*.json``), delexicalized from their slot spans. Score with ``mwz fluency --fluency-model DIR``.
"""

from __future__ import annotations

import argparse
import json
import logging
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from mwz_metrics.fluency.model import MANIFEST, NgramFluency, same_identity
from mwz_metrics.records.corpus import dialogue_turns
from mwz_metrics.settings import parse_pair

MANIFEST_VERSION = "1.0.0"


def build_manifest(data_dir: str | None = None) -> dict[str, Any]:
    """The default model's identity and its reference score (all test system turns, delexicalized)."""
    from mwz_metrics.fluency import api

    model = NgramFluency(data_dir=data_dir)
    gold = api.score_gold(model=model, resamples=0, data_dir=data_dir)
    identity = {k: v for k, v in model.identity().items() if k != "matches_manifest"}
    return {
        "version": MANIFEST_VERSION,
        "identity": identity,
        "reference": {"test_system_turns_delexicalized": gold["fluency"], "responses": gold["responses"]},
    }


def sgd_system_texts(path: str) -> list[str]:
    """SGD's system turns, slot spans written as ``[SLOT]`` placeholders."""
    from mwz_datasets.sgd import delexicalize, iter_dialogues

    return [
        delexicalize(text, spans)
        for dialogue in iter_dialogues(path)
        for speaker, text, spans in dialogue_turns(dialogue)
        if speaker == "system"
    ]


def sgd_sentences(path: str | Path) -> list[str]:
    """System turns of Schema-Guided Dialogue, slot spans as placeholders (the JSONL of
    ``../shared/data/sgd`` or SGD's ``dialogues_*.json`` files)."""

    return sgd_system_texts(str(path))


def _seed_everything(seed: int) -> None:
    """Seed Python's, numpy's and torch's random generators (every random draw of a fine-tuning run)."""
    import random

    import numpy as np
    import torch

    random.seed(seed)
    np.random.seed(seed)
    torch.manual_seed(seed)


def _load_causal_lm(model_name: str) -> tuple[Any, Any]:
    """(tokenizer, model) of a Hugging Face causal LM, the model in training mode (padding with end of text where unset)."""
    from transformers import AutoModelForCausalLM, AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(model_name)
    if tokenizer.pad_token is None:
        tokenizer.pad_token = tokenizer.eos_token
    model = AutoModelForCausalLM.from_pretrained(model_name)
    model.train()
    return tokenizer, model


def _train_steps(
    model: Any,
    tokenizer: Any,
    texts: list[str],
    *,
    epochs: int,
    batch_size: int,
    learning_rate: float,
    seed: int,
    max_steps: int | None,
) -> tuple[int, list[float]]:
    """Train on ``texts`` in seeded batch order, each text between start and end of text; returns (steps, losses)."""
    import numpy as np
    import torch

    optimizer = torch.optim.AdamW(model.parameters(), lr=learning_rate)
    bos = tokenizer.bos_token or tokenizer.eos_token or ""
    eos = tokenizer.eos_token or ""
    order = np.random.default_rng(seed)
    steps, losses = 0, []
    for _epoch in range(epochs):
        permutation = order.permutation(len(texts))
        for start in range(0, len(texts), batch_size):
            batch = [bos + texts[i] + eos for i in permutation[start : start + batch_size]]
            encoded = tokenizer(batch, return_tensors="pt", padding=True, truncation=True, max_length=96)
            labels = encoded["input_ids"].masked_fill(encoded["attention_mask"] == 0, -100)
            loss = model(**encoded, labels=labels).loss
            loss.backward()
            optimizer.step()
            optimizer.zero_grad()
            losses.append(float(loss.detach()))
            steps += 1
            if max_steps is not None and steps >= max_steps:
                break
        if max_steps is not None and steps >= max_steps:
            break
    return steps, losses


def fine_tune(
    model_name: str,
    out: str | Path,
    *,
    epochs: int = 1,
    batch_size: int = 16,
    learning_rate: float = 5e-5,
    seed: int = 0,
    extra: Sequence[str] = (),
    data_dir: str | None = None,
    max_steps: int | None = None,
) -> dict[str, Any]:
    """Fine-tune a causal LM on validation system turns (+ ``extra`` texts); returns its training record."""
    from mwz_metrics.fluency.text import training_sentences

    _seed_everything(seed)
    texts = [" ".join(s) for s in training_sentences(data_dir)] + [" ".join(t.split()) for t in extra]
    tokenizer, model = _load_causal_lm(model_name)
    started = time.perf_counter()
    steps, losses = _train_steps(
        model,
        tokenizer,
        texts,
        epochs=epochs,
        batch_size=batch_size,
        learning_rate=learning_rate,
        seed=seed,
        max_steps=max_steps,
    )
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    model.save_pretrained(out)
    tokenizer.save_pretrained(out)
    record = {
        "base": model_name,
        "seed": seed,
        "epochs": epochs,
        "steps": steps,
        "batch_size": batch_size,
        "learning_rate": learning_rate,
        "texts": len(texts),
        "extra_texts": len(extra),
        "final_loss": losses[-1] if losses else None,
        "seconds": round(time.perf_counter() - started, 1),
    }
    (out / "mwz_fluency_training.json").write_text(json.dumps(record, indent=2) + "\n")
    return record


def _parser() -> argparse.ArgumentParser:
    """The command line of ``python -m mwz_metrics.fluency.research.train``."""
    parser = argparse.ArgumentParser(
        prog="python -m mwz_metrics.fluency.research.train", description=__doc__.splitlines()[0]
    )
    parser.add_argument("--model", help="a Hugging Face causal LM (name or path) to fine-tune")
    parser.add_argument("--out", help="where the fine-tuned model goes")
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--batch-size", type=int, default=16)
    parser.add_argument("--learning-rate", type=float, default=5e-5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--max-steps", type=int, help="stop after this many steps (a quick run)")
    parser.add_argument("--corpus", action="append", default=[], metavar="sgd=PATH", help="extra training text")
    parser.add_argument("--write-manifest", action="store_true", help="rewrite default_model.json")
    parser.add_argument("--data-dir", help="a copy of the MultiWOZ repository (else $MWZ_MIRROR, cache, download)")
    return parser


def _fine_tune_command(parser: argparse.ArgumentParser, args: argparse.Namespace) -> int:
    """``--model``: fine-tune it on the validation text (and any --corpus) and print the training record."""
    if not args.out:
        parser.error("--model needs --out DIR")
    extra: list[str] = []
    for spec in args.corpus:
        name, path = parse_pair(spec, "--corpus", "sgd=PATH")
        if name != "sgd":
            parser.error(f"--corpus {spec!r}: expected sgd=PATH")
        extra += sgd_sentences(path)
    record = fine_tune(
        args.model,
        args.out,
        epochs=args.epochs,
        batch_size=args.batch_size,
        learning_rate=args.learning_rate,
        seed=args.seed,
        extra=extra,
        data_dir=args.data_dir,
        max_steps=args.max_steps,
    )
    print(json.dumps(record, indent=2))
    return 0


def _manifest_command(args: argparse.Namespace) -> int:
    """Without ``--model``: rebuild the default model and check it against (or, with --write-manifest, write) the manifest."""
    manifest = build_manifest(args.data_dir)
    if args.write_manifest:
        MANIFEST.write_text(json.dumps(manifest, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        print(f"wrote {MANIFEST}")
        return 0
    shipped = json.loads(MANIFEST.read_text(encoding="utf-8")) if MANIFEST.is_file() else {}
    same = same_identity(shipped.get("identity") or {}, manifest["identity"])
    built = manifest["reference"]["test_system_turns_delexicalized"]
    expected = (shipped.get("reference") or {}).get("test_system_turns_delexicalized")
    close = expected is not None and abs(built - expected) <= 1e-6
    print(f"identity equal to the shipped manifest: {same}; reference score {built:.9f} (shipped {expected}): {close}")
    return 0 if same and close else 1


def main(argv: Sequence[str] | None = None) -> int:
    """Check (or write) the default model's manifest, or fine-tune a causal language model."""
    parser = _parser()
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    if args.model:
        return _fine_tune_command(parser, args)
    return _manifest_command(args)


if __name__ == "__main__":
    raise SystemExit(main())

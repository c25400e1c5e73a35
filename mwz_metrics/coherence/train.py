"""Train the coherence head: ``python -m mwz_metrics.coherence.train``.

Pairs from MultiWOZ: positives (user_t, system_t) and (system_t, user_t+1);
negatives replace the second utterance with a random utterance of the same role
(half from the same dialogue, half from another). System turns appear both as
written and delexicalized (2.1 ``span_info`` -> ``[SLOT]``), so that the head
scores delexicalized responses as it scores lexicalized ones.

With only MultiWOZ 2.1's val/test dialogues here, the head is trained on val
(10% of its dialogues held out to pick the epoch) and reported on test. The
encoder stays frozen; the head is trained with torch and shipped as float16 numpy.
Seeded and deterministic (one thread).
"""

from __future__ import annotations

import argparse
import logging
import random
import sys
import time
from pathlib import Path

import numpy as np

from mwz_metrics.coherence import data as cdata
from mwz_metrics.coherence.head import HEAD_FILE, PARAMETERS, Head

logger = logging.getLogger("mwz_metrics.coherence.train")

PACKAGE_DIR = Path(__file__).resolve().parent
SEED = 13
PROJECTION = 96
HIDDEN = 128
EPOCHS = 15
NEGATIVES = 2  # per positive and epoch, resampled every epoch
BATCH = 512
LEARNING_RATE = 1e-3
WEIGHT_DECAY = 1e-2
DEV_FRACTION = 0.1


# ---------------------------------------------------------------- pairs


def dialogue_forms(corpus: cdata.Corpus) -> dict[str, dict[str, list[dict[str, str]]]]:
    """id -> {"lex": session, "delex": session}."""
    return {
        name: {
            "lex": cdata.gold_session(turns, delexicalized=False),
            "delex": cdata.gold_session(turns, delexicalized=True),
        }
        for name, turns in corpus.dialogues.items()
    }


class PairIndex:
    """Every utterance of a split as a row index into one embedding matrix."""

    def __init__(self, forms: dict[str, dict[str, list[dict[str, str]]]], names: list[str]):
        self.names = names
        self.texts: list[str] = []
        self._row: dict[str, int] = {}
        # per dialogue, form: rows of its turns; per form and role: pools of rows
        self.turns: dict[str, dict[str, list[int]]] = {}
        self.roles: dict[str, dict[str, list[int]]] = {}  # form -> dialogue -> rows of system / user
        for name in names:
            self.turns[name] = {}
            for form, session in forms[name].items():
                self.turns[name][form] = [self.row(t["text"]) for t in session]

    def row(self, text: str) -> int:
        """The embedding row of ``text``, added if new."""
        text = cdata.normalize_placeholders(text)
        if text not in self._row:
            self._row[text] = len(self.texts)
            self.texts.append(text)
        return self._row[text]

    def positives(self) -> list[tuple[int, int, float, str, int, int]]:
        """(first, second, user_first, form, dialogue index, position of the second turn)."""
        pairs = []
        for d, name in enumerate(self.names):
            for form, rows in self.turns[name].items():
                for i in range(len(rows) - 1):
                    pairs.append((rows[i], rows[i + 1], 1.0 if i % 2 == 0 else 0.0, form, d, i + 1))
        return pairs

    def negatives(self, positives, rng: random.Random, per_positive: int):
        """Replace the second utterance by one of the same role and form; alternate same/other dialogue."""
        out = []
        k = 0
        for first, second, user_first, form, d, position in positives:
            role_parity = position % 2  # 1: system turn, 0: user turn
            for _ in range(per_positive):
                same = k % 2 == 0
                k += 1
                candidate = None
                for _attempt in range(20):
                    dd = d if same else rng.randrange(len(self.names) - 1)
                    if not same and dd >= d:
                        dd += 1
                    rows = self.turns[self.names[dd]][form]
                    choices = [j for j in range(role_parity, len(rows), 2) if not (dd == d and j == position)]
                    if not choices:
                        same = False
                        continue
                    pick = rows[rng.choice(choices)]
                    if pick != second:
                        candidate = pick
                        break
                if candidate is not None:
                    out.append((first, candidate, user_first, form, d, position))
        return out


def as_arrays(pairs, labels):
    """Pair index arrays and labels as numpy arrays."""
    first = np.array([p[0] for p in pairs], dtype=np.int64)
    second = np.array([p[1] for p in pairs], dtype=np.int64)
    user_first = np.array([p[2] for p in pairs], dtype=np.float32)
    return first, second, user_first, np.array(labels, dtype=np.float32)


# ---------------------------------------------------------------- metrics


def roc_auc(labels: np.ndarray, scores: np.ndarray) -> float:
    """Rank-based ROC-AUC (ties count half)."""
    labels = np.asarray(labels, dtype=bool)
    order = np.argsort(scores, kind="mergesort")
    ranks = np.empty(len(scores), dtype=np.float64)
    sorted_scores = np.asarray(scores)[order]
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and sorted_scores[j + 1] == sorted_scores[i]:
            j += 1
        ranks[order[i : j + 1]] = (i + j) / 2.0 + 1.0
        i = j + 1
    n_pos, n_neg = labels.sum(), (~labels).sum()
    return float((ranks[labels].sum() - n_pos * (n_pos + 1) / 2.0) / (n_pos * n_neg))


def pair_metrics(labels: np.ndarray, probabilities: np.ndarray) -> dict[str, float]:
    """ROC-AUC, accuracy and log loss of pair probabilities."""
    predicted = probabilities >= 0.5
    truth = labels >= 0.5
    return {
        "roc_auc": round(roc_auc(truth, probabilities), 4),
        "accuracy": round(float((predicted == truth).mean()), 4),
        "n_pairs": int(labels.size),
    }


# ---------------------------------------------------------------- training


def _torch_head(torch, dimension: int):
    nn = torch.nn

    class TorchHead(nn.Module):  # type: ignore[name-defined]
        def __init__(self):
            super().__init__()
            self.first = nn.Linear(dimension, PROJECTION)
            self.second = nn.Linear(dimension, PROJECTION)
            self.hidden = nn.Linear(4 * PROJECTION + 2, HIDDEN)
            self.out = nn.Linear(HIDDEN, 1)
            self.dropout = nn.Dropout(0.1)

        def forward(self, u, v, user_first):
            a, b = self.first(u), self.second(v)
            cosine = (u * v).sum(dim=1, keepdim=True)
            x = torch.cat([a, b, a * b, (a - b).abs(), cosine, user_first[:, None]], dim=1)
            h = self.dropout(torch.relu(self.hidden(x)))
            return self.out(h)[:, 0]

        def export(self) -> dict[str, np.ndarray]:
            def t(layer):
                return layer.weight.detach().numpy().T.copy(), layer.bias.detach().numpy().copy()

            out = {}
            out["first_w"], out["first_b"] = t(self.first)
            out["second_w"], out["second_b"] = t(self.second)
            out["hidden_w"], out["hidden_b"] = t(self.hidden)
            out["out_w"], out["out_b"] = t(self.out)
            return {k: v.astype(np.float16) for k, v in out.items()}

    return TorchHead()


def train_head(embeddings: np.ndarray, index: PairIndex, train_names: set[str], dev_names: set[str], seed: int):
    """Train the head with AdamW on the train pairs, choosing the epoch on dev ROC-AUC."""
    import torch

    torch.manual_seed(seed)
    torch.use_deterministic_algorithms(True)
    torch.set_num_threads(1)
    rng = random.Random(seed)
    model = _torch_head(torch, embeddings.shape[1])
    optimizer = torch.optim.AdamW(model.parameters(), lr=LEARNING_RATE, weight_decay=WEIGHT_DECAY)
    table = torch.from_numpy(embeddings)

    positives = index.positives()
    train_pos = [p for p in positives if index.names[p[4]] in train_names]
    dev_pos = [p for p in positives if index.names[p[4]] in dev_names]
    dev_neg = index.negatives(dev_pos, random.Random(seed + 1), 1)
    dev = as_arrays(dev_pos + dev_neg, [1.0] * len(dev_pos) + [0.0] * len(dev_neg))

    best = (-1.0, None, -1)
    for epoch in range(EPOCHS):
        negatives = index.negatives(train_pos, rng, NEGATIVES)
        first, second, user_first, labels = as_arrays(
            train_pos + negatives, [1.0] * len(train_pos) + [0.0] * len(negatives)
        )
        # positives weigh as much as all negatives together
        weight = np.where(labels > 0.5, float(NEGATIVES), 1.0).astype(np.float32)
        order = np.array(rng.sample(range(len(labels)), len(labels)))
        model.train()
        for start in range(0, len(order), BATCH):
            batch = order[start : start + BATCH]
            logits = model(table[first[batch]], table[second[batch]], torch.from_numpy(user_first[batch]))
            loss = torch.nn.functional.binary_cross_entropy_with_logits(
                logits, torch.from_numpy(labels[batch]), weight=torch.from_numpy(weight[batch])
            )
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
        exported = model.export()
        auc = evaluate_head(exported, embeddings, dev)["roc_auc"]
        logger.info("epoch %d: dev ROC-AUC %.4f", epoch + 1, auc)
        if auc > best[0]:
            best = (auc, exported, epoch + 1)
    return best


def evaluate_head(weights: dict[str, np.ndarray], embeddings: np.ndarray, arrays) -> dict[str, float]:
    """Pair metrics of a head on held-out pairs."""
    from mwz_metrics.coherence.head import forward

    first, second, user_first, labels = arrays
    w = {k: v.astype(np.float32) for k, v in weights.items()}
    logits = forward(w, embeddings[first], embeddings[second], user_first)
    return pair_metrics(labels, 1.0 / (1.0 + np.exp(-logits.astype(np.float64))))


def split_metrics(weights, embeddings, index: PairIndex, seed: int) -> dict[str, dict[str, float]]:
    """Held-out metrics per form and direction, one fixed negative per positive."""
    positives = index.positives()
    negatives = index.negatives(positives, random.Random(seed + 2), 1)
    results = {}
    for form in ("lex", "delex"):
        for label, keep in (("all", None), ("user->system", 1.0), ("system->user", 0.0)):
            pos = [p for p in positives if p[3] == form and (keep is None or p[2] == keep)]
            neg = [p for p in negatives if p[3] == form and (keep is None or p[2] == keep)]
            results[f"{form} {label}"] = evaluate_head(
                weights, embeddings, as_arrays(pos + neg, [1.0] * len(pos) + [0.0] * len(neg))
            )
    return results


# ---------------------------------------------------------------- main


def _store_path(cache_dir: Path, encoder, tag: str) -> Path:
    return cache_dir / f"coherence-{tag}-{(encoder.weights_sha256 or 'hub')[:12]}.npz"


def _load_store(path: Path | None) -> dict[str, np.ndarray]:
    if path is None or not path.is_file():
        return {}
    with np.load(path, allow_pickle=False) as stored:
        known = dict(zip(stored["texts"].tolist(), stored["vectors"]))
    logger.info("%d embeddings from %s", len(known), path)
    return known


def _save_store(path: Path | None, known: dict[str, np.ndarray]) -> None:
    if path is None:
        return
    path.parent.mkdir(parents=True, exist_ok=True)
    names = sorted(known)
    np.savez(path, texts=np.array(names), vectors=np.stack([known[n] for n in names]))


def _embed(encoder, texts: list[str], cache_dir: Path | None, tag: str) -> np.ndarray:
    """Embeddings of ``texts``; with ``cache_dir``, kept per text between runs (same encoder weights only)."""
    path = _store_path(cache_dir, encoder, tag) if cache_dir is not None else None
    known = _load_store(path)
    missing = [t for t in texts if t not in known]
    if missing:
        started = time.time()
        known.update(zip(missing, encoder.encode(missing)))
        logger.info("encoded %d %s texts in %.1f s", len(missing), tag, time.time() - started)
        _save_store(path, known)
    vectors = np.stack([known[t] for t in texts]).astype(np.float32)
    encoder.remember(texts, vectors)
    return vectors


def main(argv=None) -> int:
    """Train the coherence head and write it with its model card; returns the exit code."""
    parser = argparse.ArgumentParser(prog="python -m mwz_metrics.coherence.train", description=__doc__.splitlines()[0])
    parser.add_argument("--data-dir", help="a copy of the MultiWOZ repository (else $MWZ_MIRROR, cache, download)")
    parser.add_argument("--cache-dir", type=Path, help="keep embeddings here between runs (e.g. /tmp/mwz-coherence)")
    parser.add_argument("--out", type=Path, default=PACKAGE_DIR / HEAD_FILE, help="where to write the head")
    parser.add_argument(
        "--card", type=Path, default=PACKAGE_DIR / "MODEL_CARD.md", help="where to write the model card"
    )
    parser.add_argument("--predictions", type=Path, help="folder of mwzeval predictions (*.json) for the card's table")
    parser.add_argument("--seed", type=int, default=SEED)
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", stream=sys.stderr)

    from mwz_metrics.coherence.encoder import Encoder

    encoder = Encoder()
    val = cdata.load_corpus("validation", args.data_dir)
    test = cdata.load_corpus("test", args.data_dir)

    val_forms = dialogue_forms(val)
    names = sorted(val_forms)
    shuffled = names[:]
    random.Random(args.seed).shuffle(shuffled)
    n_dev = int(len(names) * DEV_FRACTION)
    dev_names, train_names = set(shuffled[:n_dev]), set(shuffled[n_dev:])
    val_index = PairIndex(val_forms, names)
    val_embeddings = _embed(encoder, val_index.texts, args.cache_dir, "validation")

    started = time.time()
    dev_auc, weights, epoch = train_head(val_embeddings, val_index, train_names, dev_names, args.seed)
    train_seconds = time.time() - started
    logger.info("best epoch %d (dev ROC-AUC %.4f), %.1f s", epoch, dev_auc, train_seconds)

    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "wb") as f:
        np.savez_compressed(f, **{k: weights[k] for k in PARAMETERS})
    head = Head.load(args.out)
    logger.info("wrote %s (%d bytes, sha256 %s)", args.out, args.out.stat().st_size, head.sha256)

    test_forms = dialogue_forms(test)
    test_index = PairIndex(test_forms, sorted(test_forms))
    test_embeddings = _embed(encoder, test_index.texts, args.cache_dir, "test")
    held_out = split_metrics(weights, test_embeddings, test_index, args.seed)
    for key, value in held_out.items():
        logger.info("test %s: %s", key, value)

    from mwz_metrics.coherence import card

    table = None
    gold_scores = None
    if args.predictions:
        store = _store_path(args.cache_dir, encoder, "systems") if args.cache_dir is not None else None
        known = _load_store(store)
        encoder.remember(list(known), np.stack(list(known.values())) if known else np.zeros((0, 1)))
        table = card.system_table(args.predictions, head=head, encoder=encoder, data_dir=args.data_dir)
        _save_store(store, {**known, **encoder.cached()})
        from mwz_metrics.coherence.api import score_gold
        from mwz_metrics.coherence.scorer import CoherenceScorer

        scorer = CoherenceScorer(encoder=encoder, head=head)
        gold_scores = {
            form: score_gold(scorer=scorer, delexicalized=form == "delexicalized", data_dir=args.data_dir)
            for form in ("lexicalized", "delexicalized")
        }
    card.write(
        args.card,
        head=head,
        head_bytes=args.out.stat().st_size,
        encoder=encoder,
        sources={"validation": val.source, "test": test.source},
        split_sizes={"train": len(train_names), "dev": len(dev_names), "test": len(test.dialogues)},
        seed=args.seed,
        best_epoch=epoch,
        dev_auc=dev_auc,
        train_seconds=train_seconds,
        held_out=held_out,
        table=table,
        gold_scores=gold_scores,
        hyper={
            "projection": PROJECTION,
            "hidden": HIDDEN,
            "epochs": EPOCHS,
            "negatives_per_positive": NEGATIVES,
            "batch": BATCH,
            "learning_rate": LEARNING_RATE,
            "weight_decay": WEIGHT_DECAY,
        },
    )
    logger.info("wrote %s", args.card)
    return 0


if __name__ == "__main__":
    sys.exit(main())

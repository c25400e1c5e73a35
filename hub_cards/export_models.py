"""Model repositories: the coherence cross-encoder with its adapters merged (full weights).

``models/mwz-session-coherence/`` holds what ``transformers`` loads with no code of ours
(``config.json``, ``model.safetensors``, the tokenizer), the output layer as
``coherence_head.safetensors`` and the model card. The package itself ships only
the small adapter; this is the same model, merged, for readers who want the weights.
"""

from __future__ import annotations

import importlib.util
import shutil
from pathlib import Path

from mwz_hub.manifest import Manifest

COHERENCE_MODEL = "mwz-session-coherence"
USAGE = """
## Load without mwz-eval

```python
import torch
from huggingface_hub import hf_hub_download
from safetensors.torch import load_file
from transformers import AutoModel, AutoTokenizer

tokenizer = AutoTokenizer.from_pretrained("{repo}")
model = AutoModel.from_pretrained("{repo}").eval()
head = load_file(hf_hub_download("{repo}", "coherence_head.safetensors"))
pair = tokenizer(["user: i need a cheap hotel ."], ["system: what area would you like ?"], return_tensors="pt")
hidden = model(**pair).last_hidden_state
mask = pair["attention_mask"].unsqueeze(-1).float()
pooled = (hidden * mask).sum(1) / mask.sum(1)
p_coherent = torch.sigmoid(pooled @ head["weight"].T + head["bias"])
```
"""


def export_models(out: Path, manifest: Manifest) -> None:
    """Export the coherence model with merged weights (skipped, with the reason, without the extra)."""
    missing = [m for m in ("torch", "transformers", "safetensors") if importlib.util.find_spec(m) is None]
    if missing:
        manifest.skip(f"model {COHERENCE_MODEL}", f"the coherence extra is not installed ({', '.join(missing)})")
        return
    from safetensors.torch import save_file

    from mwz_metrics.coherence.model import PairClassifier, default_adapter_path

    try:
        classifier = PairClassifier()
    except (OSError, ValueError) as error:
        manifest.skip(f"model {COHERENCE_MODEL}", str(error))
        return
    folder = out / "models" / COHERENCE_MODEL
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    classifier.model.save_pretrained(folder, safe_serialization=True)
    classifier.tokenizer.save_pretrained(folder)
    save_file(
        {"weight": classifier.output_weight.cpu().contiguous(), "bias": classifier.output_bias.cpu().contiguous()},
        str(folder / "coherence_head.safetensors"),
    )
    card = (default_adapter_path().parent / "MODEL_CARD.md").read_text(encoding="utf-8")
    front = "---\nlicense: mit\nlibrary_name: transformers\ntags:\n- multiwoz\n- dialogue\n- coherence\n---\n"
    (folder / "README.md").write_text(front + card + USAGE.format(repo=COHERENCE_MODEL), encoding="utf-8")
    manifest.models[COHERENCE_MODEL] = {
        "path": folder.relative_to(out).as_posix(),
        "signature": classifier.signature(),
    }

"""Metrics for the Hub: each registered ``evaluate`` module as a Space folder."""

from __future__ import annotations

import logging
import shutil
from pathlib import Path

from mwz_hub import cards
from mwz_hub.manifest import DISTRIBUTION, Manifest
from mwz_plugins.errors import InputError
from mwz_plugins.version import __version__

logger = logging.getLogger(__name__)


APP_TEMPLATE = '''\
"""Gradio app of the {name} metric Space (written by `mwz hub export`)."""

import json
from pathlib import Path

import evaluate
import gradio as gr

module = evaluate.load(str(Path(__file__).resolve().parent / "{name}.py"))


def score(predictions_json, options_json):
    predictions = json.loads(predictions_json)
    options = json.loads(options_json) if options_json.strip() else {{}}
    return module.compute(predictions=predictions, **options)


demo = gr.Interface(
    fn=score,
    inputs=[
        gr.Textbox(lines=14, label="predictions (JSON, as in the card's How to Use)"),
        gr.Textbox(lines=3, label="other compute() arguments (JSON object, optional)", value="{{}}"),
    ],
    outputs=gr.JSON(label="result"),
    title={title!r},
    description=module.info.description,
    article=module.info.inputs_description.replace("\\n", "<br>"),
)

if __name__ == "__main__":
    demo.launch()
'''


def requirements(name: str, extras: list[str] | None = None) -> list[str]:
    """The pip requirements of a metric's Space: this package, pinned, and the plugin that ships it."""
    from mwz_plugins import get_registry
    from mwz_plugins.manager import plugin_infos

    if "unknown" in __version__:
        raise InputError(f"cannot pin {DISTRIBUTION}: it is not installed (version {__version__})")
    extra = f"[{','.join(sorted(extras))}]" if extras else ""
    lines = [f"{DISTRIBUTION}{extra}=={__version__}"]
    owner = get_registry().owners.get(("metrics", name))
    info = plugin_infos().get(owner) if owner else None
    if info and info.distribution and info.distribution != DISTRIBUTION and info.version:
        lines.append(f"{info.distribution}=={info.version}")
    return lines


def export_space(name: str, out: Path, manifest: Manifest) -> Path | None:
    """Export a metric as an evaluate Space; returns the folder (None if skipped)."""
    from mwz_metrics.routing import script_path

    try:
        card = cards.load_card("metrics", name)
    except cards.CardError as error:
        manifest.skip(f"metric {name}", str(error))
        return None
    script = script_path(name)
    folder = out / "spaces" / name
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    # the script and anything it ships beside it (evaluate copies relative imports too)
    for path in sorted(script.parent.iterdir()):
        if path.is_file() and path.name != "README.md" and path.suffix != ".pyc":
            shutil.copy2(path, folder / path.name)
    title = card.metadata.get("title") or name
    (folder / "app.py").write_text(APP_TEMPLATE.format(name=name, title=title), encoding="utf-8")
    reqs = requirements(name, card.private("mwz_extras"))
    (folder / "requirements.txt").write_text("\n".join(reqs) + "\n", encoding="utf-8")
    (folder / "README.md").write_text(cards.render(card.public_metadata, card.body), encoding="utf-8")
    manifest.spaces[name] = {"path": folder.relative_to(out).as_posix(), "requirements": reqs}
    return folder


# ---------------------------------------------------------------- everything

"""Cards: every registered dataset and metric has one, and its metadata parses with huggingface_hub."""

from __future__ import annotations

import re

import pytest
from huggingface_hub import DatasetCard, SpaceCard

from mwz_datasets import catalog
from mwz_hub import cards
from mwz_hub.export import EXPORT_MARKER, Manifest, export_space
from mwz_plugins import get_registry, manager
from mwz_plugins.hookspecs import hookimpl
from mwz_plugins.registry import MetricEntry

SPACE_COLORS = {"red", "yellow", "green", "blue", "indigo", "purple", "pink", "gray"}
# evaluate's metric card template, in order
METRIC_SECTIONS = [
    "## Metric Description",
    "## How to Use",
    "### Inputs",
    "### Output Values",
    "## Limitations and Bias",
    "## Citation",
]


def test_every_registered_dataset_and_metric_has_a_card():
    missing = cards.missing_cards()
    assert missing == {"datasets": [], "metrics": []}, (
        f"registered without a card: {missing}; write hub_cards/cards/<kind>/<name>.md for each"
    )


@pytest.mark.parametrize("name", cards.registered_names("metrics"))
def test_metric_card(name):
    card = cards.load_card("metrics", name)
    parsed = SpaceCard(cards.render(card.public_metadata, card.body))
    data = parsed.data.to_dict()
    assert data["sdk"] == "gradio" and data["app_file"] == "app.py"
    assert {"evaluate", "metric"} <= set(data["tags"])
    assert data["title"] and data["emoji"] and data["description"]
    assert data["colorFrom"] in SPACE_COLORS and data["colorTo"] in SPACE_COLORS
    positions = [card.body.find(section) for section in METRIC_SECTIONS]
    assert all(p >= 0 for p in positions), [s for s, p in zip(METRIC_SECTIONS, positions) if p < 0]
    assert positions == sorted(positions), "sections out of evaluate's template order"
    assert f"# Metric Card for {name}" in card.body
    assert "```bibtex" in card.body.split("## Citation", 1)[1]
    assert not set(card.metadata) - set(data) - set(cards.PRIVATE_KEYS)


@pytest.mark.parametrize("name", cards.registered_names("datasets"))
def test_dataset_card(name):
    card = cards.load_card("datasets", name)
    parsed = DatasetCard(cards.render(card.public_metadata, card.body))
    data = parsed.data.to_dict()
    assert data["license"] and data["pretty_name"] and data["language"]
    assert EXPORT_MARKER in card.body, "the export writes configs, rows and source checksums at this marker"
    for section in ("## Dataset Structure", "## Caveats", "## Source Data", "## Citation Information"):
        assert section in card.body


def test_multiwoz_card_content():
    card = cards.load_card("datasets", "multiwoz")
    assert card.metadata["license"] == "mit"
    body = card.body
    for config in ("'2.0'", "'2.1'", "'2.2'"):
        assert config in body
    for caveat in ("Delexicalization variants", "Database surface forms", "Train/test goal overlap"):
        assert caveat in body
    assert catalog.MULTIWOZ_COMMIT in body
    assert len(re.findall(r"^@inproceedings", body, flags=re.M)) >= 4
    for field in ("dialogue_id", "belief_state", "frames", "spans", "dialogue_acts", "booked"):
        assert f"`{field}`" in body


def test_dstc9_card_names_the_pinned_commit():
    assert catalog.DSTC9_COMMIT in cards.load_card("datasets", "dstc9_track1").body


class _ExtraMetric:
    @hookimpl
    def mwz_register_metrics(self, register):
        register(MetricEntry("mwz_cardless", "mwz_metrics.modules", "mwz_bleu/mwz_bleu.py", "no card"))


def test_metric_without_card_is_reported_and_not_silently_skipped(tmp_path):
    manager.register_plugin(_ExtraMetric(), "cardless-test")
    try:
        assert "mwz_cardless" in get_registry().metrics
        assert cards.missing_cards()["metrics"] == ["mwz_cardless"]
        with pytest.raises(cards.CardError, match=r"mwz_cardless.*has no card: write .*mwz_cardless\.md"):
            cards.load_card("metrics", "mwz_cardless")
        manifest = Manifest()
        assert export_space("mwz_cardless", tmp_path, manifest) is None
        assert manifest.skipped and manifest.skipped[0]["item"] == "metric mwz_cardless"
        assert "has no card" in manifest.skipped[0]["reason"]
    finally:
        manager.unregister_plugin("cardless-test")
    assert "mwz_cardless" not in get_registry().metrics


def test_parse_errors_name_the_card():
    with pytest.raises(cards.CardError, match="x.md: a card must start"):
        cards.parse("# no front matter\n", "x.md")
    with pytest.raises(cards.CardError, match="y.md: broken YAML"):
        cards.parse("---\na: [\n---\nbody\n", "y.md")


def test_render_keeps_version_config_names_strings():
    import yaml

    text = cards.render({"configs": [{"config_name": "2.2"}]}, "body\n")
    assert "config_name: '2.2'" in text
    assert yaml.safe_load(text.split("---\n")[1])["configs"][0]["config_name"] == "2.2"


def test_hub_commands_are_registered_through_the_entry_point():
    from importlib import metadata

    from mwz_metrics.cli import CLI_ENTRY_POINT_GROUP, COMMANDS, build_parser

    names = {ep.value for ep in metadata.entry_points(group=CLI_ENTRY_POINT_GROUP)}
    assert "mwz_hub.cli" in names, (
        "the mwz.cli entry point of mwz_hub.cli is not in the installed metadata: reinstall the project "
        "(pip install -e .) and remove any stale mwz_eval.egg-info from the checkout"
    )
    build_parser()
    assert {"hub export", "hub push"} <= set(COMMANDS)

"""Conformance suite: runs against every registered plugin contribution.

A new plugin passes these without writing a line of test code; its own tests
cover its behaviour.
"""

from __future__ import annotations

import importlib

import datasets
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from mwz_plugins import ONTOLOGY_SLOTS, get_registry

REGISTRY = get_registry()
SLOTS = [
    "name",
    "destination",
    "departure",
    "type",
    "food",
    "arrive",
    "leave",
    "time",
    "parking",
    "internet",
    "area",
    "pricerange",
    "day",
    "people",
    "stars",
    "book",
]
DOMAINS = [None, "restaurant", "hotel", "attraction", "train", "taxi", "police", "hospital"]
VALUES = st.one_of(
    st.text(),
    st.sampled_from(
        [
            "after 5pm",
            "1 pm.",
            "by 17:30",
            "12a:3pm",
            "christs",
            "nando's",
            " Guest House ",
            "a  'b",
            "don't care",
            "free",
            "0845",
            "noon",
            "by",
            "pm",
            "p.m.",
            "&",
            "1:2:3pm",
        ]
    ),
    st.builds(
        lambda a, b: a + b,
        st.sampled_from(["by ", "after ", "afer ", "", " "]),
        st.from_regex(r"[0-9 :apm.,?]{0,8}", fullmatch=True),
    ),
)


def test_builtins_are_registered():
    assert {"mwzeval"} <= set(REGISTRY.chains)
    assert {"mwz22"} <= set(REGISTRY.styles)
    assert {"multiwoz", "dstc9_track1"} <= set(REGISTRY.datasets)
    assert {"mwz_bleu", "mwz_inform", "mwz_success", "mwz_richness", "mwz_dst"} <= set(REGISTRY.metrics)


@pytest.mark.parametrize("kind", ["normalizers", "chains", "styles"])
def test_names_and_versions_present(kind):
    for name, item in getattr(REGISTRY, kind).items():
        assert name == item.name and name.strip() == name and name
        assert item.version and item.version[0].isdigit(), f"{kind} {name}: version {item.version!r}"


@pytest.mark.parametrize("style", sorted(REGISTRY.styles))
def test_style_placeholders_map_into_ontology(style):
    placeholders = REGISTRY.styles[style].placeholders
    assert placeholders, f"style {style} declares no placeholders"
    assert set(placeholders.values()) <= ONTOLOGY_SLOTS
    assert all(p == p.lower() and p.strip() == p for p in placeholders)


@pytest.mark.parametrize("style", sorted(n for n, s in REGISTRY.styles.items() if s.builds_references))
@settings(max_examples=60, deadline=None)
@given(data=st.data())
def test_style_delexicalize_keeps_text_outside_spans(style, data):
    utterance = data.draw(st.text(min_size=1, max_size=40))
    n = len(utterance)
    spans = data.draw(
        st.lists(
            st.tuples(
                st.integers(0, n),
                st.integers(0, n),
                st.sampled_from(["name", "phone", "ref", "food", "area", "choice"]),
            ),
            max_size=4,
        )
    )
    spans = [
        {"slot": slot, "value": utterance[min(a, b) : max(a, b)] or "x", "start": min(a, b), "end": max(a, b)}
        for a, b, slot in spans
    ]
    before = [dict(s) for s in spans]
    out = REGISTRY.styles[style].delexicalize(utterance, spans)
    assert isinstance(out, str)
    assert spans == before, "delexicalize mutated its spans"
    if not spans:
        assert out == utterance
    # Every stretch of text that no span covers is kept, in order (a style replaces spans only).
    cuts = sorted({0, n, *(s["start"] for s in spans), *(s["end"] for s in spans)})
    position = 0
    for start, end in zip(cuts, cuts[1:]):
        if any(s["start"] <= start and end <= s["end"] for s in spans):
            continue
        found = out.find(utterance[start:end], position)
        assert found >= 0, f"text outside the spans {utterance[start:end]!r} lost: {utterance!r} -> {out!r}"
        position = found + end - start


def test_mwz22_covers_the_whole_ontology():
    assert set(REGISTRY.styles["mwz22"].placeholders.values()) == ONTOLOGY_SLOTS


@pytest.mark.parametrize("name", sorted(REGISTRY.normalizers) + [f"chain:{c}" for c in sorted(REGISTRY.chains)])
@settings(max_examples=300, deadline=None)
@given(domain=st.sampled_from(DOMAINS), slot=st.one_of(st.sampled_from(SLOTS), st.text(max_size=8)), value=VALUES)
def test_normalizers_never_raise_and_are_idempotent(name, domain, slot, value):
    f = REGISTRY.chain(name[6:]) if name.startswith("chain:") else REGISTRY.normalizers[name]
    once = f(domain, slot, value)
    assert isinstance(once, str)
    assert f(domain, slot, once) == once, f"{name} not idempotent on {value!r} (slot {slot!r}): {once!r}"


@pytest.mark.parametrize("name", sorted(REGISTRY.datasets))
def test_dataset_entries_resolve_to_builders(name):
    module_name, _, class_name = REGISTRY.datasets[name].builder.partition(":")
    cls = getattr(importlib.import_module(module_name), class_name)
    assert issubclass(cls, datasets.DatasetBuilder)


@pytest.mark.parametrize("name", sorted(REGISTRY.metrics))
def test_metric_entries_resolve_to_scripts(name):
    from mwz_metrics.routing import script_path

    script = script_path(name)
    text = script.read_text()
    assert "import evaluate\n" in text and "(evaluate.Metric)" in text


@pytest.mark.parametrize(
    "kind,name",
    [("simulators", n) for n in sorted(REGISTRY.simulators)] + [("systems", n) for n in sorted(REGISTRY.systems)],
)
def test_simulator_and_system_loaders_resolve_to_callables(kind, name):
    """Every registered simulator and system names an importable ``make(context, **options)``."""
    entry = getattr(REGISTRY, kind)[name]
    module_name, _, attribute = entry.loader.partition(":")
    make = getattr(importlib.import_module(module_name), attribute)
    assert callable(make), entry.loader

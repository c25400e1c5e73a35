"""Name routing into datasets/evaluate: wrapped once, our names never reach the Hub."""

from __future__ import annotations

import logging
import types

import datasets
import evaluate
import pytest

import mwz_datasets
import mwz_metrics
from mwz_plugins.routing import wrap_factory


def test_factories_are_wrapped_once():
    wrapped_datasets = datasets.load.dataset_module_factory
    wrapped_evaluate = evaluate.loading.evaluation_module_factory
    mwz_datasets.install()
    mwz_metrics.install()
    assert datasets.load.dataset_module_factory is wrapped_datasets
    assert evaluate.loading.evaluation_module_factory is wrapped_evaluate
    assert hasattr(wrapped_datasets, "_mwz_original") and hasattr(wrapped_evaluate, "_mwz_original")


def test_installed_libraries_are_in_the_tested_range():
    from mwz_datasets.routing import TESTED_DATASETS
    from mwz_metrics.routing import TESTED_EVALUATE

    for module, (low, high) in ((datasets, TESTED_DATASETS), (evaluate, TESTED_EVALUATE)):
        version = tuple(int(p) for p in module.__version__.split(".")[:2])
        assert low <= version < high, f"{module.__name__} {module.__version__} not in {low}..{high}"


def test_out_of_range_version_warns(caplog):
    owner = types.SimpleNamespace(factory=lambda path: path)
    with caplog.at_level(logging.WARNING):
        wrap_factory(
            owner,
            "factory",
            lambda original: lambda path: original(path).upper(),
            library="lib",
            version="9.1.0",
            tested=((1, 0), (2, 0)),
        )
    assert "lib 9.1.0 is outside the tested range" in caplog.text
    assert owner.factory("x") == "X"
    wrap_factory(
        owner, "factory", lambda original: lambda path: "twice", library="lib", version="1.5", tested=((1, 0), (2, 0))
    )
    assert owner.factory("x") == "X"  # idempotent: not wrapped twice


def test_registered_names_never_reach_the_original():
    calls = []

    def spy(*args, **kwargs):
        calls.append(args)
        raise AssertionError("reached the Hub path")

    wrapper = mwz_datasets.routing._make_factory(spy)
    module = wrapper("multiwoz")
    assert module.module_path == "mwz_datasets.multiwoz" and module.builder_kwargs == {"dataset_name": "multiwoz"}
    with pytest.raises(AssertionError, match="reached the Hub"):
        wrapper("someone/else")
    assert calls == [("someone/else",)]

"""Settings as typed records, read by the one KEY=VALUE parser (mwz_metrics.settings)."""

from __future__ import annotations

import dataclasses
import subprocess
from pathlib import Path

import pytest

from mwz_metrics import settings
from mwz_plugins.errors import InputError

ROOT = Path(__file__).resolve().parents[2]


@dataclasses.dataclass(frozen=True)
class _Options:
    flag: bool | None = None
    count: int = 1
    rate: float = 0.5
    styles: tuple[str, ...] | None = None
    name: str | None = None


def test_one_parser_one_message():
    assert settings.parse_pair("a=b=c", "--x") == ("a", "b=c")
    assert settings.parse_pairs(["k=1", "k=2", "j=3"], "--x") == {"k": "2", "j": "3"}
    for bad in ("novalue", "=v", "k="):
        with pytest.raises(InputError, match=rf"^--x '{bad}': expected KEY=VALUE$"):
            settings.parse_pair(bad, "--x")
    assert settings.parse_pair("k=", "--x", empty_value=True) == ("k", "")
    with pytest.raises(InputError, match=r"^--metric 'success:x': expected NAME"):
        settings.parse_pair("x", "--metric", "NAME or NAME:KEY=VALUE,...", within="success:x")


def test_no_other_key_value_parser_in_the_package():
    out = subprocess.run(
        ["grep", "-rn", "--include=*.py", 'partition("=")', "mwz_metrics", "mwz_datasets", "plugins", "hub_cards"],
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    # settings.py parses options; secrets.py reads a URL's query parameters (another syntax), in one place
    found = sorted(line.split(":")[0] for line in out.stdout.splitlines())
    assert found == ["mwz_metrics/interactive/secrets.py", "mwz_metrics/settings.py"]


def test_typed_reads_each_field_as_its_type():
    read = settings.typed(_Options, {"flag": "TRUE", "count": "3", "rate": "2", "styles": "a+b", "name": "x"}, "t")
    assert read == _Options(True, 3, 2.0, ("a", "b"), "x")
    assert settings.typed(_Options, {"count": 4}, "t").count == 4  # typed values pass as they are
    with pytest.raises(InputError, match=r"^t takes flag, count, rate, styles, name, got other$"):
        settings.typed(_Options, {"other": "1"}, "t")
    with pytest.raises(InputError, match=r"^t: flag is true or false, got 'maybe'$"):
        settings.typed(_Options, {"flag": "maybe"}, "t")
    with pytest.raises(InputError, match=r"^t: count is a number, got 'many'$"):
        settings.typed(_Options, {"count": "many"}, "t")


def test_factory_options_are_typed():
    """--simulator-option patience=3 is the number 3 (it was the string '3', which no comparison survives)."""
    from mwz_metrics.interactive.systems import llm
    from mwz_metrics.interactive.user import agenda

    assert agenda.make(None, patience="3").options() == {"max_informs": 3, "max_requests": 3, "patience": 3}
    with pytest.raises(InputError, match="--simulator agenda takes max_informs, max_requests, patience, got pat"):
        agenda.make(None, pat="3")
    with pytest.raises(InputError, match="--system llm: max_tokens is a number, got 'lots'"):
        llm.make(None, endpoint="http://127.0.0.1:9", model="m", max_tokens="lots")


def test_evaluation_settings_give_only_what_was_given():
    given = settings.EvaluationSettings(chain="mwzeval", gold_states=False).given()
    assert given == {"chain": "mwzeval", "gold_states": False}


def test_each_success_option_is_declared_once_and_read_everywhere():
    """The flags, --metric success:KEY=VALUE, the evaluate module scripts' _compute and the evaluator read
    the fields of SuccessConfig: a field added there is an option of each."""
    import argparse
    import inspect

    from mwz_metrics.cli.evaluate import add_metric_arguments
    from mwz_metrics.multiwoz import hf_modules

    names = [f.name for f in dataclasses.fields(settings.SuccessConfig)]
    parser = argparse.ArgumentParser()
    add_metric_arguments(parser)
    flags = {action.dest for action in parser._actions}
    assert set(names) <= flags
    compute = hf_modules.success_compute(lambda result, per_dialogue: result)
    assert [p for p in inspect.signature(compute).parameters][-len(names) :] == names
    with pytest.raises(TypeError, match="bogus"):
        compute(object(), predictions={}, bogus=1)
    with pytest.raises(InputError, match=r"^success takes gold_states, matching, name_constraints, active_domains"):
        settings.typed(settings.SuccessConfig, {"bogus": "1"}, "success")
    args = parser.parse_args(["--matching", "intersection", "--optimistic"])
    config = settings.from_arguments(settings.SuccessConfig, args)
    assert config.variant() == {"matching": "intersection", "name_constraints": "name_only", "active_domains": "gold"}

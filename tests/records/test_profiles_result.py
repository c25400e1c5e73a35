"""The result of a run with user profiles as a typed record (issue 50, items 1 and 5): what
``mwz interact --profile NAME --result FILE`` writes validates under the published schema generated from
:class:`~mwz_metrics.records.profiles.ProfilesResult`, every key it writes is declared there, and a renamed
key is found; what ``--json`` prints is a :class:`~mwz_metrics.records.profiles.ProfilesSummary`."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from mwz_metrics.records import profiles, schemas

jsonschema = pytest.importorskip("jsonschema")

SCHEMA = Path(schemas.__file__).with_name("schemas") / "profiles-result.schema.json"
GOALS = 12  # with patience=1 the eager user breaks 2 of the first 12 synth22 goals: reasons to write


def _closed(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` with every record closed: a key that the record does not declare is an error."""
    closed = copy.deepcopy(schema)
    for record in closed["$defs"].values():
        record["additionalProperties"] = False
    return closed


def _valid(value: Any, schema: dict[str, Any]) -> bool:
    return jsonschema.Draft202012Validator(schema).is_valid(value)


@pytest.fixture()
def written(synth22_env, tmp_path, capsys) -> tuple[dict[str, Any], dict[str, Any]]:
    """(the ``--result`` of a run of the default and the eager user, its ``--json`` when scored again)."""
    out, result = tmp_path / "o.jsonl", tmp_path / "result.json"
    asked = ("--profile", "eager", "--resamples", "10")
    code, _, err = run_cli(
        capsys, "interact", "--system", "oracle-text", "--simulator-option", "patience=1", "--goals", str(GOALS),
        "-o", str(out), "--result", str(result), *asked,
    )  # fmt: skip
    assert code == 0, err
    code, shown, err = run_cli(capsys, "interact", "--score-only", "-i", str(out), "--json", *asked)
    assert code == 0, err
    return json.loads(result.read_text()), json.loads(shown)


def test_a_profiles_result_is_its_record_and_a_renamed_key_is_found(written):
    result, _ = written
    schema = json.loads(SCHEMA.read_text())
    assert _valid(result, schema) and _valid(result, _closed(schema))  # every key written is declared
    assert [p["profile"] for p in result["profiles"]] == ["default", "eager"]
    assert result["broken"]["eager"]["broken"] == 2 and result["broken"]["eager"]["reasons"]
    assert "worst_share" in result["robustness"] and "p_value" in result["profiles"][1]["against_default"]["success"]

    def renamed(path: tuple[Any, ...], new: str) -> dict[str, Any]:
        edited = copy.deepcopy(result)
        *above, key = path
        holder = edited
        for step in above:
            holder = holder[step]
        holder[new] = holder.pop(key)
        return edited

    for path in (  # a key every record of its kind has
        ("robustness",),
        ("profiles", 1, "profile"),
        ("profiles", 1, "against_default", "paired_by"),
        ("robustness", "worst", "against_default", "difference"),
        ("broken", "eager", "reasons", 0, "examples"),
    ):
        assert not _valid(renamed(path, "renamed"), schema), path
    # a key only some records have: found by the closed schema (the published one lets readers add keys)
    for path in (("profiles", 0, "success"), ("robustness", "worst_share"), ("profiles", 0, "per_session", 0, "end")):
        edited = renamed(path, "renamed")
        assert _valid(edited, schema) and not _valid(edited, _closed(schema)), path
    assert not _valid(dict(result, robustness={"worst": 60.0}), schema)


def test_what_json_prints_is_the_result_summed_up(written):
    result, shown = written
    summary = _closed(schemas.schema("summary", "--json", profiles.ProfilesSummary))
    assert _valid(shown, summary)
    assert list(shown) == ["profiles", "robustness", "signature"]  # the result less "broken"
    assert shown["robustness"] == result["robustness"] and shown["signature"] == result["signature"]["line"]
    assert [p["signature"] for p in shown["profiles"]] == [p["signature"]["line"] for p in result["profiles"]]
    shown["profiles"][0]["sucess"] = shown["profiles"][0].pop("success")
    assert not _valid(shown, summary)

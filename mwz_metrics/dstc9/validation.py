"""Validation of a DSTC9 Track 1 entry before scoring: schema, structure, knowledge references.

Errors name the instance and field (at most 20 per call) and show a short excerpt of the
offending value, never the whole input.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence

from mwz_plugins.errors import InputError

MAX_ERRORS = 20
MAX_REMEMBERED = 10_000  # valid skeletons kept on disk per schema


class EntryError(InputError):
    """A system output that cannot be scored; the message names instance and field."""


# ---------------------------------------------------------------- validation
def _raise_errors(errors: list[str], what: str) -> None:
    # one line, as every input error is: the first few errors, then how many more
    if errors:
        shown = errors[:MAX_ERRORS]
        more = f"; ... and {len(errors) - MAX_ERRORS} more" if len(errors) > MAX_ERRORS else ""
        raise EntryError(f"{len(errors)} {what}: " + "; ".join(" ".join(e.split()) for e in shown) + more)


EXCERPT_CHARS = 160


def _short(message: str) -> str:
    """jsonschema quotes the offending value whole (a wrong top level quotes the entry): an excerpt."""
    return message if len(message) <= EXCERPT_CHARS else message[:EXCERPT_CHARS] + f"... ({len(message)} characters)"


def _path_text(path) -> str:
    parts = list(path)
    if not parts:
        return "entry"
    head = f"instance[{parts[0]}]" if isinstance(parts[0], int) else str(parts[0])
    return head + "".join(f"[{p}]" if isinstance(p, int) else f".{p}" for p in parts[1:])


def _freeze(value: object) -> object:
    """A hashable stand-in for JSON-like ``value``; types are kept apart (1, 1.0, True, "1")."""
    if isinstance(value, dict):
        return ("dict", tuple(sorted((str(k), _freeze(v)) for k, v in value.items())))
    if isinstance(value, list):
        return ("list", tuple(_freeze(v) for v in value))
    return (type(value).__name__, value if isinstance(value, (str, int, float, bool, type(None))) else repr(value))


_CONSTRAINED = ("target", "knowledge", "response")  # the instance fields the official schemas constrain
_REF_CONSTRAINED = ("domain", "entity_id", "doc_id")  # and those of a knowledge reference


def _blank_free_fields(item: dict, constrained: tuple[str, ...]) -> dict:
    """``item`` with the scalar fields the official schemas do not name (a participant's
    ``score`` or ``prob``) set to their type's empty value: any value of them passes."""
    out = dict(item)
    for key, value in item.items():
        if key not in constrained and isinstance(value, (str, int, float, bool)):
            out[key] = type(value)()
    return out


def _key(value: object) -> object:
    """A hashable key for JSON-like ``value`` that keeps types apart (1, 1.0, True, "1"): its JSON
    text with sorted keys (a C loop), or :func:`_freeze` for what JSON cannot write."""
    try:
        return json.dumps(value, sort_keys=True, allow_nan=True)
    except (TypeError, ValueError):
        return _freeze(value)


_SCALARS = (str, int, float, bool)


def _free_scalars(mapping: dict, constrained: tuple[str, ...]) -> tuple | None:
    """(name, type) of the fields the schemas do not name, all scalar; None if one is not."""
    free = []
    for key, value in mapping.items():
        if key not in constrained:
            if type(value) not in _SCALARS:
                return None
            free.append((key, type(value).__name__))
    return tuple(sorted(free))


def _common_key(item: object) -> tuple | None:
    """The skeleton key of the shapes nearly every instance has, computed without copying:
    ``{"target": false}``, and a target with a ``response`` and references naming a domain
    (string), an entity_id (integer or string) and a doc_id (integer), each beside any scalar
    fields the schemas do not name (a ``score``, a ``prob``); None for anything else."""
    if type(item) is not dict or type(item.get("target")) is not bool:
        return None
    free = _free_scalars(item, _CONSTRAINED)
    if free is None:
        return None
    if item["target"] is False:
        return ("common", False, free) if "knowledge" not in item and "response" not in item else None
    knowledge, response = item.get("knowledge"), item.get("response")
    if type(knowledge) is not list or type(response) is not str:
        return None
    refs = set()
    for ref in knowledge:
        if type(ref) is not dict:
            return None
        domain, entity, doc = ref.get("domain"), ref.get("entity_id"), ref.get("doc_id")
        ref_free = _free_scalars(ref, _REF_CONSTRAINED)
        if type(domain) is not str or type(doc) is not int or type(entity) not in (int, str) or ref_free is None:
            return None
        refs.add((domain, 0 if type(entity) is int else entity, ref_free))
    return ("common", True, bool(response), free, tuple(sorted(refs)))


def _skeleton(item: object) -> tuple[object, object]:
    """``(key, sample)``: ``item`` with the values the official schemas constrain only by
    type made uniform (a non-empty string ``response``, integer ids, unnamed scalar fields)
    and its knowledge references as a set (the schemas check each reference alone, and only
    that the list is non-empty). Instances with equal keys pass or fail the official schemas
    alike, so each distinct sample is validated once."""
    if not isinstance(item, dict):
        return _key(item), item
    out = _blank_free_fields(item, _CONSTRAINED)
    if isinstance(out.get("response"), str) and out["response"]:
        out["response"] = "x"
    if isinstance(out.get("knowledge"), list):
        refs: dict[object, object] = {}
        for ref in out["knowledge"]:
            if isinstance(ref, dict):
                ref = _blank_free_fields(ref, _REF_CONSTRAINED)
                for key in ("entity_id", "doc_id"):
                    if type(ref.get(key)) is int:
                        ref[key] = 0
            refs.setdefault(_key(ref), ref)
        out["knowledge"] = [refs[k] for k in sorted(refs, key=repr)]
    return _key(out), out


def _validator(schema: Mapping):
    import jsonschema

    # The official files name draft 2019-09 by a URL jsonschema does not know.
    if "2019-09" in str(schema.get("$schema", "")):
        return jsonschema.Draft201909Validator(schema)
    return jsonschema.validators.validator_for(schema)(schema)


def _verdict_memo(schema: Mapping):
    """Skeletons already found valid under ``schema`` by this jsonschema version, kept on disk:
    an entry made only of known shapes is checked without importing jsonschema (0.15 s)."""
    from importlib.metadata import version

    from mwz_metrics.dstc9.memo import PersistentMemo

    schema_sha = hashlib.sha256(json.dumps(schema, sort_keys=True).encode()).hexdigest()[:16]
    return PersistentMemo(f"schema-valid-{schema_sha}-jsonschema-{version('jsonschema')}")


def validate_schema(entry: object, schema: Mapping, *, skeletons: bool = False) -> None:
    """Validate against an ``output_schema.json`` with jsonschema; errors name instance and field.

    ``skeletons=True`` (valid for the two official DSTC9 schemas only) validates each
    distinct :func:`_skeleton` once, which is ~20x faster on a full entry; skeletons found
    valid before are remembered (:func:`_verdict_memo`).
    """
    if not skeletons or not isinstance(entry, list):
        validator = _validator(schema)
        found = sorted(validator.iter_errors(entry), key=lambda e: list(map(str, e.absolute_path)))
        _raise_errors(
            [f"{_path_text(e.absolute_path)}: {_short(e.message)}" for e in found], "schema error(s) in the entry"
        )
        return
    groups: dict[object, list[int]] = {}
    samples: dict[object, object] = {}  # one skeleton per group
    for index, item in enumerate(entry):
        common = _common_key(item)
        key: object
        if common is None:
            key, sample = _skeleton(item)
        else:
            key, sample = common, item  # equal common keys: equal verdicts, any member stands for all
        groups.setdefault(key, []).append(index)
        samples.setdefault(key, sample)
    memo = _verdict_memo(schema)
    digests = {key: hashlib.sha256(str(key).encode()).hexdigest()[:32] for key in groups}
    unknown = [key for key in groups if digests[key] not in memo.values]  # every key's text is deterministic
    errors = []
    if unknown:
        validator = _validator(schema)
        for key in unknown:
            if validator.is_valid([samples[key]]):
                if len(memo.values) < MAX_REMEMBERED:
                    memo.get(digests[key], lambda _: True)
                continue
            for index in groups[key]:  # rare: report each instance's own errors and paths
                for e in validator.iter_errors([entry[index]]):
                    path = [index] + list(e.absolute_path)[1:]
                    errors.append((index, f"{_path_text(path)}: {_short(e.message)}"))
        memo.save()
    errors.sort(key=lambda pair: pair[0])
    _raise_errors([text for _, text in errors], "schema error(s) in the entry")


def validate_structure(entry: object) -> None:
    """The schema's checks in code, for when no schema file is at hand."""
    if not isinstance(entry, list):
        raise EntryError(f"an entry is a JSON array of instances, got {type(entry).__name__}")
    errors = []
    for index, item in enumerate(entry):
        where = f"instance[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("target"), bool):
            errors.append(f"{where}.target: missing or not a boolean")
            continue
        if item["target"] is not True:
            continue
        knowledge = item.get("knowledge")
        if not isinstance(knowledge, list) or not knowledge:
            errors.append(f"{where}.knowledge: a non-empty list is required when target is true")
        else:
            for k, ref in enumerate(knowledge):
                if not isinstance(ref, dict) or not {"domain", "entity_id", "doc_id"} <= ref.keys():
                    errors.append(f"{where}.knowledge[{k}]: needs domain, entity_id and doc_id")
                elif isinstance(ref["doc_id"], bool) or not isinstance(ref["doc_id"], int):
                    errors.append(f"{where}.knowledge[{k}].doc_id: not an integer")
        if not isinstance(item.get("response"), str) or not item["response"]:
            errors.append(f"{where}.response: a non-empty string is required when target is true")
    _raise_errors(errors, "error(s) in the entry")


def validate_knowledge(entry: Sequence[Mapping], knowledge: Mapping) -> None:
    """Every knowledge reference of a target instance names a snippet of ``knowledge``."""
    errors = []
    for index, item in enumerate(entry):
        if item.get("target") is not True:
            continue
        for k, ref in enumerate(item.get("knowledge", [])):
            domain, entity, doc = ref["domain"], str(ref["entity_id"]), str(ref["doc_id"])
            snippet = f"{domain}/{entity}/{doc}"
            if domain not in knowledge:
                errors.append(f"instance[{index}].knowledge[{k}]: unknown snippet {snippet} (no domain {domain!r})")
            elif entity not in knowledge[domain]:
                errors.append(f"instance[{index}].knowledge[{k}]: unknown snippet {snippet} (no entity {entity})")
            elif doc not in knowledge[domain][entity]["docs"]:
                errors.append(f"instance[{index}].knowledge[{k}]: unknown snippet {snippet} (no doc {doc})")
    _raise_errors(errors, "unknown knowledge reference(s)")


# ---------------------------------------------------------------- scoring

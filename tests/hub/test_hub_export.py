"""Hub export round trips (offline, from the shared mirror), ``mwz hub push`` dry run and fake upload.

The exported folders are loaded in fresh subprocesses that never import our
packages themselves: datasets with plain ``datasets.load_dataset(folder, config)``,
metrics with ``evaluate.load(space_folder)`` (the script imports ``mwz_metrics``,
as it does on a Space that installs the pinned ``mwz-eval``).
"""

from __future__ import annotations

import importlib.util
import inspect
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
import yaml
from conftest import session_cache, shared_path

from mwz_hub import cards
from mwz_hub.export import MANIFEST, Manifest, export
from mwz_metrics.cli import main

pytestmark = pytest.mark.shared


def rows_digest(ds):
    import hashlib
    import json

    digest = hashlib.sha256()
    for row in ds:
        digest.update(json.dumps(row, sort_keys=True, ensure_ascii=False).encode())
    return {
        "rows": ds.num_rows,
        "sha256": digest.hexdigest(),
        "features": json.dumps(ds.features.to_dict(), sort_keys=True),
    }


_ROWS_DIGEST = inspect.getsource(rows_digest)  # the same function here and in the subprocess


@pytest.fixture(scope="module")
def exported(tmp_path_factory):
    mirror = shared_path("data", "mirror")
    out = tmp_path_factory.mktemp("hub-export")
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MWZ_MIRROR", str(mirror))
        mp.setenv("MWZ_CACHE", str(session_cache(tmp_path_factory)))  # the run's, shared by its workers
        mp.setenv("MWZ_OFFLINE", "1")
        manifest = export(out, cache_dir=out.parent / "builders")
    return out, manifest, mirror


def _subprocess(code: str, tmp: Path, mirror: Path) -> dict:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MWZ_", "HF_"))}
    env.update(
        HF_HOME=str(tmp / "hf-home"),
        HF_HUB_OFFLINE="1",
        HF_DATASETS_OFFLINE="1",
        HF_EVALUATE_OFFLINE="1",
        HF_UPDATE_DOWNLOAD_COUNTS="0",
        MWZ_MIRROR=str(mirror),
        MWZ_OFFLINE="1",
        # the run's derived-data cache (what the cache holds is tested elsewhere; here it saves rebuilding it)
        MWZ_CACHE=os.environ.get("MWZ_CACHE", str(tmp / "mwz-cache")),
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_manifest_lists_everything_registered(exported):
    out, manifest, _ = exported
    assert Manifest.read(out).datasets.keys() == manifest.datasets.keys()
    handled = set(manifest.datasets) | {
        s["item"].split()[1] for s in manifest.skipped if s["item"].startswith("dataset")
    }
    assert handled == set(cards.registered_names("datasets"))
    assert set(manifest.spaces) == set(cards.registered_names("metrics"))
    for skipped in manifest.skipped:
        assert skipped["reason"], skipped


def test_dataset_readme_metadata(exported):
    out, manifest, _ = exported
    from huggingface_hub import DatasetCard

    for _name, entry in manifest.datasets.items():
        text = (out / entry["path"] / "README.md").read_text()
        data = DatasetCard(text).data.to_dict()
        front = yaml.safe_load(text.split("---\n")[1])
        names = [c["config_name"] for c in front["configs"]]
        assert names == sorted(entry["configs"]) and all(isinstance(n, str) for n in names)
        infos = front["dataset_info"] if isinstance(front["dataset_info"], list) else [front["dataset_info"]]
        assert sorted(i["config_name"] for i in infos) == names
        assert data["license"]
        for _config, info in entry["configs"].items():
            for source in info["sources"]:
                assert source["sha256"] in text and source["commit"][:12] in text
    if "multiwoz" in manifest.datasets:
        assert "config_name: '2.2'" in (out / "datasets" / "multiwoz" / "README.md").read_text()


def test_datasets_round_trip_without_our_code(exported, tmp_path):
    out, manifest, mirror = exported
    jobs = {name: sorted(entry["configs"]) for name, entry in manifest.datasets.items()}
    assert jobs.get("multiwoz", [None]).count("2.1") == 1 or "multiwoz" not in jobs
    code = _ROWS_DIGEST + textwrap.dedent(f"""
        import json, sys
        import datasets
        datasets.disable_progress_bars()
        result = {{}}
        for name, configs in {jobs!r}.items():
            for config in configs:
                loaded = datasets.load_dataset({str(out / "datasets")!r} + "/" + name, config)
                result[name + "/" + config] = {{split: rows_digest(ds) for split, ds in loaded.items()}}
        result["mwz_modules"] = sorted(m for m in sys.modules if m.startswith("mwz"))
        print(json.dumps(result))
    """)
    loaded = _subprocess(code, tmp_path, mirror)
    assert loaded.pop("mwz_modules") == []

    from mwz_datasets.routing import builder_class, builder_hash

    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MWZ_MIRROR", str(mirror))
        for name, configs in jobs.items():
            cls = builder_class(name)
            for config in configs:
                # the builders the export prepared (cache_dir): the parquet loaded elsewhere holds their rows
                builder = cls(config_name=config, cache_dir=str(out.parent / "builders"), hash=builder_hash(cls))
                builder.download_and_prepare()
                expected = {
                    split: rows_digest(builder.as_dataset(split))
                    for split in builder.info.splits
                    if builder.info.splits[split].num_examples
                }
                assert loaded[f"{name}/{config}"] == expected, (name, config)


def _metric_inputs(mirror: Path, out: Path) -> dict[str, dict]:
    import pyarrow.parquet as pq

    ubar = json.loads(shared_path("data", "mwzeval", "predictions", "ubar.json").read_text())
    subset = dict(sorted(ubar.items())[:60])
    # BLEU and DST need 2.2 references: UBAR's turns for the (possibly truncated) 2.2 test dialogues
    tests22 = pq.read_table(next((out / "datasets/multiwoz/data/2.2").glob("test-*.parquet"))).to_pylist()
    on22 = {d["key"]: ubar[d["key"]][: sum(t["speaker"] == "SYSTEM" for t in d["turns"])] for d in tests22}
    labels = json.loads((mirror / "alexa/alexa-with-dstc9-track1-dataset/data_eval/test/labels.json").read_text())
    entry = json.loads(shared_path("data", "dstc9", "results", "baseline", "entry0.json").read_text())
    return {
        "mwz_success": {"predictions": subset, "per_dialogue": True},
        "mwz_inform": {"predictions": subset},
        "mwz_richness": {"predictions": subset},
        "mwz_fluency": {"predictions": subset, "explain": 3},
        "mwz_bleu": {"predictions": on22},
        "mwz_dst": {"predictions": on22},
        "dstc9_track1": {"predictions": entry[:300], "references": labels[:300]},
        "mwz_session_coherence": {
            "predictions": {
                "s1": [
                    {"speaker": "user", "text": "i need a cheap hotel in the north ."},
                    {"speaker": "system", "text": "[hotel_name] is a cheap guesthouse in the north ."},
                    {"speaker": "user", "text": "great , book it for 2 nights ."},
                ],
                "s2": [
                    {"speaker": "user", "text": "when does the train to ely leave ?"},
                    {"speaker": "system", "text": "the museum is free to enter ."},
                ],
            }
        },
    }


def test_metric_spaces_round_trip_without_our_code(need_wordnet, exported, tmp_path):
    import evaluate

    import mwz_metrics  # noqa: F401  (routes the registered names)

    out, manifest, mirror = exported
    inputs = _metric_inputs(mirror, out)
    (tmp_path / "inputs.json").write_text(json.dumps(inputs))
    spaces = {name: str(out / entry["path"]) for name, entry in manifest.spaces.items()}
    code = textwrap.dedent(f"""
        import json, sys
        assert not [m for m in sys.modules if m.startswith("mwz")]
        import evaluate
        inputs = json.load(open("inputs.json"))
        result = {{}}
        for name, folder in {spaces!r}.items():
            module = evaluate.load(folder)
            out = {{"description": module.info.description}}
            if name in inputs:
                out["value"] = module.compute(**inputs[name])
            result[name] = out
        print(json.dumps(result, sort_keys=True, default=str))
    """)
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("MWZ_MIRROR", str(mirror))
        remote = _subprocess(code, tmp_path, mirror)
        for name in spaces:
            module = evaluate.load(name)
            assert remote[name]["description"] == module.info.description, name
            if name in inputs:
                ours = json.loads(json.dumps(module.compute(**inputs[name]), sort_keys=True, default=str))
                if name == "mwz_session_coherence":
                    # Neural scores: torch's CPU sums depend on the thread count, so two processes agree
                    # to 1e-6 relative (the tolerance the metric card states), not to the bit.
                    assert _close(remote[name]["value"], ours), name
                else:
                    assert remote[name]["value"] == ours, name
    untested = sorted(set(spaces) - set(inputs))
    if untested:
        pytest.xfail(f"metrics loaded from their Space but with no round-trip inputs here: {untested}")


def _close(a: object, b: object, rel: float = 1e-6) -> bool:
    """Equal structures, floats within ``rel`` relative tolerance."""
    if isinstance(a, float) and isinstance(b, float):
        return a == pytest.approx(b, rel=rel, abs=rel)  # scores are on a 0-100 scale
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_close(a[k], b[k], rel) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_close(x, y, rel) for x, y in zip(a, b))
    return a == b


def test_close_tolerates_only_tiny_float_differences():
    assert _close({"a": [1.0, 2.0]}, {"a": [1.0 + 1e-9, 2.0]})
    assert not _close({"a": [1.0, 2.0]}, {"a": [1.001, 2.0]})
    assert not _close({"a": 1.0}, {"b": 1.0})


def test_space_folders(exported):
    out, manifest, _ = exported
    from huggingface_hub import SpaceCard

    from mwz_plugins.version import __version__

    for name, entry in manifest.spaces.items():
        folder = out / entry["path"]
        assert sorted(p.name for p in folder.iterdir()) == sorted(
            ["README.md", "app.py", "requirements.txt", f"{name}.py"]
        )
        requirement = (folder / "requirements.txt").read_text().splitlines()[0]
        assert requirement.startswith("mwz-eval") and requirement.endswith(f"=={__version__}")
        data = SpaceCard((folder / "README.md").read_text()).data.to_dict()
        assert data["sdk"] == "gradio" and data["app_file"] == "app.py"
        assert not set(cards.PRIVATE_KEYS) & set(data)
        compile((folder / "app.py").read_text(), "app.py", "exec")
        assert f'"{name}.py"' in (folder / "app.py").read_text()
    assert "[dstc9]" in (out / "spaces" / "dstc9_track1" / "requirements.txt").read_text()


def test_push_dry_run(exported, capsys):
    out, manifest, _ = exported
    refused = sorted(
        n for n, e in manifest.datasets.items() if any(c["pinned"] is False for c in e["configs"].values())
    )
    code = main(["hub", "push", str(out), "--namespace", "org", "--dry-run"])
    printed = capsys.readouterr().out
    assert code == (3 if refused else 0)
    for name in manifest.spaces:
        assert f"would upload space org/{name}:" in printed
    for name in manifest.models:
        assert f"would upload model org/{name}:" in printed and "model.safetensors" in printed
    for name in manifest.datasets:
        assert (f"REFUSED org/{name}:" in printed) == (name in refused)
        assert (f"would upload dataset org/{name}:" in printed) == (name not in refused)
    assert "app.py" in printed and MANIFEST not in printed
    assert main(["hub", "push", str(out), "--namespace", "org", "--dry-run", "--allow-unpinned"]) == 0
    assert "REFUSED" not in capsys.readouterr().out


class FakeHfApi:
    calls: list = []

    def create_repo(self, repo_id, **kwargs):
        FakeHfApi.calls.append(("create_repo", repo_id, kwargs))

    def upload_folder(self, **kwargs):
        FakeHfApi.calls.append(("upload_folder", kwargs["repo_id"], kwargs))


def test_push_calls_huggingface_hub(exported, monkeypatch, capsys):
    import huggingface_hub

    out, manifest, _ = exported
    FakeHfApi.calls = []
    monkeypatch.setattr(huggingface_hub, "HfApi", FakeHfApi)
    assert main(["hub", "push", str(out), "--namespace", "org", "--allow-unpinned"]) == 0
    creates = {c[1]: c[2] for c in FakeHfApi.calls if c[0] == "create_repo"}
    uploads = {c[1]: c[2] for c in FakeHfApi.calls if c[0] == "upload_folder"}
    expected = {f"org/{n}": ("dataset", e["path"]) for n, e in manifest.datasets.items()}
    expected.update({f"org/{n}": ("space", e["path"]) for n, e in manifest.spaces.items()})
    expected.update({f"org/{n}": ("model", e["path"]) for n, e in manifest.models.items()})
    assert creates.keys() == uploads.keys() == expected.keys()
    for repo_id, (repo_type, path) in expected.items():
        assert creates[repo_id]["repo_type"] == repo_type and creates[repo_id]["exist_ok"] is True
        assert creates[repo_id].get("space_sdk") == ("gradio" if repo_type == "space" else None)
        assert uploads[repo_id]["repo_type"] == repo_type
        assert Path(uploads[repo_id]["folder_path"]) == out / path
        assert MANIFEST in uploads[repo_id]["ignore_patterns"]
    assert uploads[next(r for r, v in expected.items() if v[0] == "dataset")]["delete_patterns"] == ["data/**"]
    assert "uploaded" in capsys.readouterr().out


def test_export_cli_selection_and_partial(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("MWZ_MIRROR", str(shared_path("data", "mirror")))
    args = ["hub", "export", str(tmp_path), "--dataset", "multiwoz", "--config", "multiwoz=2.2", "--no-metrics"]
    assert main(args) == 3  # something was skipped (2.0, 2.1, the other dataset, the metrics)
    assert "skipped (listed above); --allow-partial" in capsys.readouterr().err
    args.append("--allow-partial")
    assert main(args) == 0
    printed = capsys.readouterr().out
    assert "dataset multiwoz:" in printed and "SKIPPED dataset multiwoz config 2.1: not selected" in printed
    manifest = json.loads((tmp_path / MANIFEST).read_text())
    assert list(manifest["datasets"]["multiwoz"]["configs"]) == ["2.2"]
    assert not (tmp_path / "spaces").exists()
    assert main([a for a in args if a != "--allow-partial"] + ["--strict"]) == 3
    assert main(["hub", "export", str(tmp_path), "--config", "bad"]) == 2
    # --cache-dir keeps the prepared builders there (default: a temporary folder, gone afterwards)
    kept = tmp_path / "builders"
    assert main([*args, "--cache-dir", str(kept)]) == 0
    assert list(kept.glob("**/multiwoz-test.arrow")), sorted(p.name for p in kept.glob("**/*"))


def test_a_kept_cache_dir_never_serves_another_copy(tmp_path, monkeypatch):
    """Two exports into one --cache-dir from two MultiWOZ copies (HF's truncated 2.2 dummies, then the
    full-scale synthetic 2.2): the second has the second copy's rows, not the first one's."""
    rows = {}
    for name in ("mirror", "mirror-synth22"):
        monkeypatch.setenv("MWZ_MIRROR", str(shared_path("data", name)))
        manifest = export(
            tmp_path / name,
            datasets_only=["multiwoz"],
            metrics_only=[],
            configs={"multiwoz": ["2.2"]},
            models=False,
            cache_dir=tmp_path / "kept",
        )
        rows[name] = manifest.datasets["multiwoz"]["configs"]["2.2"]["splits"]["test"]
    assert rows["mirror"] < 10 and rows["mirror-synth22"] == 1000, rows


def test_space_requirements_name_the_extras_their_metric_needs(exported):
    out, manifest, _ = exported
    wanted = {"dstc9_track1": "[dstc9]", "mwz_session_coherence": "[coherence]", "mwz_success": None}
    for name, extra in wanted.items():
        first = (out / manifest.spaces[name]["path"] / "requirements.txt").read_text().splitlines()[0]
        assert first.startswith("mwz-eval" + (extra or "=="))


def test_coherence_model_exported_with_full_weights_loads_with_transformers_alone(exported):
    out, manifest, _ = exported
    if importlib.util.find_spec("transformers") is None:
        pytest.skip("coherence extra not installed")
    import torch
    from safetensors.torch import load_file
    from transformers import AutoModel, AutoTokenizer

    from mwz_metrics.coherence.model import PairClassifier

    folder = out / manifest.models["mwz-session-coherence"]["path"]
    assert (folder / "model.safetensors").stat().st_size > 50_000_000  # full weights, not the adapter
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder).eval()
    head = load_file(str(folder / "coherence_head.safetensors"))
    firsts, seconds = ["user: i need a cheap hotel ."], ["system: what area would you like ?"]
    pair = tokenizer(firsts, seconds, return_tensors="pt")
    with torch.inference_mode():
        hidden = model(**pair).last_hidden_state
    mask = pair["attention_mask"].unsqueeze(-1).float()
    logit = ((hidden * mask).sum(1) / mask.sum(1)) @ head["weight"].T + head["bias"]
    assert float(logit[0, 0]) == pytest.approx(float(PairClassifier().logits(firsts, seconds)[0]), abs=1e-4)

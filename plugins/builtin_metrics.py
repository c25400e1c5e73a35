"""Built-in plugin: the ``evaluate`` module scripts shipped in ``mwz_metrics``, and the metrics of dialogues
that ``mwz evaluate``, ``mwz compare`` and ``mwz interact`` compute by name (registered as a contributor's are)."""

from mwz_plugins.hookspecs import hookimpl
from mwz_plugins.registry import DialogueMetricEntry, MetricEntry

_MODULES = {
    "mwz_bleu": "BLEU of delexicalized responses, one score per delexicalization style",
    "mwz_inform": "Inform rate (mwzeval)",
    "mwz_success": "Inform and Success rates (mwzeval)",
    "mwz_richness": "lexical richness of responses (mwzeval)",
    "mwz_dst": "dialogue state tracking: joint accuracy and slot F1 (mwzeval)",
    "dstc9_track1": "DSTC9 Track 1: detection, selection and generation scores",
    "mwz_session_coherence": "session coherence (Cheng et al. 2022)",
    "mwz_fluency": "sentence fluency: Sent-Score, mean token cross-entropy (Cheng et al. 2022)",
}


@hookimpl
def mwz_register_metrics(register):
    """Register the module scripts shipped in ``mwz_metrics.modules``."""
    for name, description in _MODULES.items():
        register(MetricEntry(name, "mwz_metrics.modules", f"{name}/{name}.py", description))


# mwzeval's metrics, in the order their rows come in a comparison; computed together in one pass.
_MWZEVAL = (
    ("success", "Inform and Success rates (mwzeval), per domain", False),
    ("bleu", "BLEU of the normalized responses, one score per delexicalization style (mwzeval)", True),
    ("richness", "lexical richness of the responses (mwzeval)", False),
    ("dst", "dialogue state tracking: joint accuracy and slot F1 (mwzeval)", True),
)


@hookimpl
def mwz_register_dialogue_metrics(register):
    """Register mwzeval's four metrics (``-s``, ``-b``, ``-r``, ``--dst``), session coherence and sentence
    fluency (``--coherence``, ``--fluency``): ``--metric NAME`` names any of them."""
    for name, description, references in _MWZEVAL:
        register(
            DialogueMetricEntry(
                name,
                "1.0.0",
                f"mwz_metrics.multiwoz.metric:make_{name}",
                description=description,
                group="mwzeval",
                default=name != "dst",
                needs_references=references,
            )
        )
    register(
        DialogueMetricEntry(
            "coherence",
            "1.0.0",
            "mwz_metrics.coherence.metric:make",
            extra="coherence",
            modules=("torch", "transformers"),
            description="session coherence (Cheng et al. 2022): mean P(coherent) over adjacent turn pairs, 0-100",
        )
    )
    register(
        DialogueMetricEntry(
            "fluency",
            "1.0.0",
            "mwz_metrics.fluency.metric:make",
            higher_is_better=False,
            description="sentence fluency (Sent-Score): mean cross-entropy of the responses; model=NAME for a causal LM",
        )
    )

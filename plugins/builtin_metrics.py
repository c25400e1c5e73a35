"""Built-in plugin: the ``evaluate`` module scripts shipped in ``mwz_metrics``."""

from mwz_plugins.hookspecs import hookimpl
from mwz_plugins.registry import MetricEntry

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

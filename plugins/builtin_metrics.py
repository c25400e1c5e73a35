"""Built-in plugin: the metrics shipped in ``mwz_metrics``, each under its one name (``mwz_success``): its
``evaluate`` module script and, for those ``mwz evaluate``, ``mwz compare`` and ``mwz interact`` compute,
its loader (registered as a contributor's are). The short names they had on the command line
(``success``) are their old names until the next release, and stay the keys of their figures."""

from mwz_plugins.hookspecs import hookimpl
from mwz_plugins.registry import MetricEntry

_PACKAGE = "mwz_metrics.modules"

# mwzeval's metrics, in the order their rows come in a comparison; computed together in one pass:
# (name, old name, description, needs references).
_MWZEVAL = (
    ("mwz_success", "success", "Inform and Success rates (mwzeval), per domain", False),
    ("mwz_bleu", "bleu", "BLEU of the normalized responses, one score per delexicalization style (mwzeval)", True),
    ("mwz_richness", "richness", "lexical richness of the responses (mwzeval)", False),
    ("mwz_dst", "dst", "dialogue state tracking: joint accuracy and slot F1 (mwzeval)", True),
)

# Module scripts alone (evaluate.load): (name, old name, description).
_SCRIPTS_ONLY = (
    ("mwz_inform", "inform", "Inform rate (mwzeval)"),
    ("dstc9_track1", "", "DSTC9 Track 1: detection, selection and generation scores"),
)


def _script(name: str) -> str:
    """Where the module script of ``name`` lies in :data:`_PACKAGE`."""
    return f"{name}/{name}.py"


@hookimpl
def mwz_register_metrics(register):
    """Register mwzeval's four metrics (``-s``, ``-b``, ``-r``, ``--dst``), session coherence and sentence
    fluency (``--coherence``, ``--fluency``), each with its module script, then the module scripts alone
    (Inform, DSTC9 Track 1)."""
    for name, old, description, references in _MWZEVAL:
        register(
            MetricEntry(
                name,
                _PACKAGE,
                _script(name),
                description=description,
                version="1.0.0",
                loader=f"mwz_metrics.multiwoz.evaluator:make_{old}",
                group="mwzeval",
                default=old != "dst",
                needs_references=references,
                aliases=(old,),
                section=old,
            )
        )
    register(
        MetricEntry(
            "mwz_session_coherence",
            _PACKAGE,
            _script("mwz_session_coherence"),
            description="session coherence (Cheng et al. 2022): mean P(coherent) over adjacent turn pairs, 0-100",
            version="1.0.0",
            loader="mwz_metrics.coherence.metric:make",
            extra="coherence",
            modules=("torch", "transformers"),
            aliases=("coherence",),
            section="coherence",
        )
    )
    register(
        MetricEntry(
            "mwz_fluency",
            _PACKAGE,
            _script("mwz_fluency"),
            description="sentence fluency (Sent-Score): mean cross-entropy of the responses; model=NAME for a causal LM",
            version="1.0.0",
            loader="mwz_metrics.fluency.metric:make",
            higher_is_better=False,
            aliases=("fluency",),
            section="fluency",
        )
    )
    for name, old, description in _SCRIPTS_ONLY:
        register(MetricEntry(name, _PACKAGE, _script(name), description=description, aliases=(old,) if old else ()))

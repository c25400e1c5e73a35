"""What makes the sentence-fluency models and tells what they are worth: the shipped manifest and
fine-tuning (``train``), the probes (``probes``) and the model card (``card``). A user's ``mwz fluency``
runs none of it (:mod:`mwz_metrics.fluency`)."""

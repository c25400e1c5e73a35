"""What makes the session-coherence model and tells what it is worth: its training (``train``), its
negatives (``negatives``) and extra corpora (``extra``), its probes (``probes``) and its model card
(``card``). A user's ``mwz coherence`` runs none of it (:mod:`mwz_metrics.coherence`)."""

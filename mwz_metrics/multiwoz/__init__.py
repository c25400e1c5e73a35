"""MultiWOZ metrics (mwzeval): inputs, normalization, references, test set, BLEU, Inform/Success, richness, DST."""

"""Dataset and metric cards, and the export/publish path to the Hugging Face Hub (``mwz_hub``)."""

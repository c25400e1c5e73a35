"""A toy system: offers a venue of the domain the user names (`mwz interact --system toy_system:make`)."""

DOMAINS = ("restaurant", "hotel", "attraction", "train", "taxi")


class ToySystem:
    """Answers each user turn on its own; keeps no state."""

    def respond(self, request):
        """One turn: the history ends with the user's turn; answer it."""
        text = request["history"][-1]["text"].lower()
        domain = next((d for d in DOMAINS if d in text), None)
        if "bye" in text or "thank" in text:
            return {"response": "you are welcome, goodbye!", "active_domains": []}
        if domain is None:
            return {"response": "how can i help you?", "active_domains": []}
        reply = f"[value_name] is a nice {domain}. its phone number is [value_phone]."
        return {"response": reply, "state": {domain: {}}, "active_domains": [domain]}


def make():
    """What `--system toy_system:make` calls once, before the sessions."""
    return ToySystem()

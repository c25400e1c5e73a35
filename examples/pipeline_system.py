"""An end-to-end model behind a `transformers` text-generation pipeline (the `neural` extra):

    mwz interact --system pipeline_system:make --system-option model=PATH_OR_NAME -j 1

The history is written as the model was trained to read it (here `<user> ... <system> ...`, the form of
SimpleTOD- or UBAR-style GPT-2 systems; change `_context` for yours) and the model's words up to the
next user turn are the response, delexicalized or lexicalized (`mwz` delexicalizes the latter).
"""


class PipelineSystem:
    """One turn: the history as a prompt, the generated text up to the next user turn as the answer."""

    def __init__(self, model: str, max_new_tokens: int = 40, device: int = -1):
        from transformers import pipeline  # imported here: `mwz` starts fast without it

        self.generate = pipeline("text-generation", model=model, device=device)
        self.max_new_tokens = max_new_tokens

    @staticmethod
    def _context(history) -> str:
        return " ".join(f"<{turn['speaker']}> {turn['text']}" for turn in history) + " <system>"

    def respond(self, request):
        """The generated answer to the history (greedy: the same history, the same answer)."""
        out = self.generate(
            self._context(request["history"]),
            max_new_tokens=self.max_new_tokens,
            do_sample=False,
            return_full_text=False,
        )
        return {"response": out[0]["generated_text"].split("<user>")[0].strip()}


def make(model: str, max_new_tokens: str = "40", device: str = "-1"):
    """What `--system pipeline_system:make --system-option model=...` calls once."""
    return PipelineSystem(model, int(max_new_tokens), int(device))

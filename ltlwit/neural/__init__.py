"""Neural core: tokenizer, positional encodings, the dual-part and symbol-invariant
encoder-decoder transformers, batched beam search, and weights I/O. Imports logic, never cli."""

from __future__ import annotations

import importlib.util

#: What to say where the models are wanted and torch is missing: the models and training are
#: an extra (`ltlwit[models]`), since the engine answers without them and torch's default
#: build brings several GB of CUDA libraries.
TORCH_MISSING = (
    "needs PyTorch, which is not installed here: pip install 'ltlwit[models]' (for a CPU-only "
    "build first: pip install torch --index-url https://download.pytorch.org/whl/cpu)"
)


def torch_installed() -> bool:
    """Whether torch can be imported, found without importing it (that takes seconds)."""
    try:
        return importlib.util.find_spec("torch") is not None
    except (ImportError, ValueError):
        return False

"""Neural core: tokenizer, positional encodings, the dual-part and symbol-invariant
encoder-decoder transformers, batched beam search, and weights I/O. Imports logic, never cli."""

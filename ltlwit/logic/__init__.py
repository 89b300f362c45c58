"""Pure-Python logic layer: formulas, syntaxes, traces, assignments, solving. Never imports torch."""

"""ltlwit: satisfying traces (witnesses) for LTL and propositional formulas."""

__version__ = "0.1.0"

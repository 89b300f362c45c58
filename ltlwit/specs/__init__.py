"""`ltlwit check`: specification files as a CI gate.

`files` reads text and TOML spec files, `run` answers each spec through the solving pipeline
and judges its expectation (sat, unsat, valid), `vacuity` finds AP occurrences the specs do
not need (the exact definition is in its docstring), `report` writes text, JSON Lines and
JUnit XML.
"""

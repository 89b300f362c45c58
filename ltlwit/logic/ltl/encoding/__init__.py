"""What the searches read a formula as: rewritten (`rewrite`, with `implication`'s syntactic
implications), its propositional labels (`labels`), its transition relation in one SAT
solver (`xnf`: the step encoding every search, past requests and the finite end condition
included, works on) and, for small formulas, an explicit automaton (`expand`)."""

"""The portfolio's searches (`ltl.solver` runs them): the explicit search (`explore`), the
bounded lasso search (`bounded`; with a theory, `smt_bounded`), k-liveness's proofs
(`liveness`), the small automaton's emptiness check (`emptiness`), and the theory's
refinement of the Boolean abstraction (`refinement`)."""

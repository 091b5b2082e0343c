"""durak verify: z3 proofs of the spec's invariants from the same clauses the interpreter runs."""

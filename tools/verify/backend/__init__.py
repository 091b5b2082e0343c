"""The z3 backend of the clause language: symbolic values, state, primitives and concretisation."""

"""Example engines for the conformance suite.

`reference_engine` is the template for a subprocess engine. The `broken_*` engines each get one
rule wrong, to prove the suite catches it; `misbehaving_engine` crashes, hangs or breaks the
protocol on request, to prove the runner survives it.
"""

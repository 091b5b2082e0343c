"""durak lint: spec and suite consistency, and the coverage of legality rules by cases."""

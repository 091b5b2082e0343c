"""Adapters for third-party Durak engines: each wraps one engine in the Python engine interface
(conformance/engine.py) and needs its own extra."""

"""Benchmarks that print numbers: the built-in run, the public datasets, the encoders (`harness bench`)."""
